//! Python scalars (`bool`, `int`, `float`, `complex`) as operands: their conversion to an
//! array's dtype by the standard's rules, and the pairing of two operands of a binary
//! operation (array with array, array with scalar).

use crate::array::Array;
use crate::data::{Data, scalar_data};
use ferrotensor::io::DType;
use ferrotensor::ops::cast::Wide;
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt};

/// A Python scalar.
#[derive(Clone, Copy, Debug)]
pub enum Scalar {
    Bool(bool),
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

impl Scalar {
    /// The value in the crate's widest form.
    pub fn wide(self) -> Wide {
        match self {
            Scalar::Bool(b) => Wide::Bool(b),
            Scalar::Int(i) => Wide::Int(i),
            Scalar::Float(f) => Wide::Float(f),
            Scalar::Complex(re, im) => Wide::Complex(re, im),
        }
    }

    /// The dtype the scalar takes next to an array of dtype `arr` (the standard's rule:
    /// the array's dtype when the scalar's kind fits it; otherwise the scalar's default
    /// dtype, or for a complex scalar with a real float array the complex type of that
    /// width, as NumPy does).
    pub fn dtype_with(self, arr: DType) -> DType {
        match self {
            Scalar::Bool(_) => arr,
            Scalar::Int(_) => {
                if arr.is_bool() {
                    DType::I64
                } else {
                    arr
                }
            }
            Scalar::Float(_) => {
                if arr.is_float() {
                    arr
                } else {
                    DType::F64
                }
            }
            Scalar::Complex(..) => arr.complex_of().unwrap_or(DType::C128),
        }
    }

    /// The scalar's own default dtype (`bool`, `int64`, `float64`, `complex128`).
    pub fn default_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DType::F64,
            Scalar::Complex(..) => DType::C128,
        }
    }

    /// A 0-d array of dtype `dt`; `OverflowError` for an integer outside an integer dtype.
    pub fn to_data(self, dt: DType) -> PyResult<Data> {
        if let Scalar::Int(i) = self {
            check_int_range(i, dt)?;
        }
        Ok(scalar_data(self.wide(), dt))
    }
}

/// The range of an integer dtype.
pub fn int_range(dt: DType) -> Option<(i128, i128)> {
    Some(match dt {
        DType::I8 => (i8::MIN as i128, i8::MAX as i128),
        DType::I16 => (i16::MIN as i128, i16::MAX as i128),
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        DType::I64 => (i64::MIN as i128, i64::MAX as i128),
        DType::U8 => (0, u8::MAX as i128),
        DType::U16 => (0, u16::MAX as i128),
        DType::U32 => (0, u32::MAX as i128),
        DType::U64 => (0, u64::MAX as i128),
        _ => return None,
    })
}

/// `OverflowError` if `i` is outside the integer dtype `dt` (other dtypes take any int).
pub fn check_int_range(i: i128, dt: DType) -> PyResult<()> {
    if let Some((lo, hi)) = int_range(dt)
        && (i < lo || i > hi)
    {
        return Err(PyOverflowError::new_err(format!(
            "Python integer {i} out of bounds for {dt}"
        )));
    }
    Ok(())
}

/// The scalar, if `obj` is a Python `bool`, `int`, `float` or `complex`.
pub fn as_scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Some(Scalar::Bool(obj.extract()?)));
    }
    if obj.is_instance_of::<PyInt>() {
        let i: i128 = obj
            .extract()
            .map_err(|_| PyOverflowError::new_err(format!("Python integer {obj} is too large")))?;
        return Ok(Some(Scalar::Int(i)));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Some(Scalar::Float(obj.extract()?)));
    }
    if let Ok(c) = obj.cast::<PyComplex>() {
        return Ok(Some(Scalar::Complex(c.real(), c.imag())));
    }
    Ok(None)
}

/// One operand: an array or a Python scalar.
pub enum Operand {
    Array(Data),
    Scalar(Scalar),
}

/// The operand `obj`, or `None` if it is neither an array nor a Python scalar.
pub fn operand(obj: &Bound<'_, PyAny>) -> PyResult<Option<Operand>> {
    if let Ok(a) = obj.cast::<Array>() {
        return Ok(Some(Operand::Array(a.borrow().data.clone())));
    }
    Ok(as_scalar(obj)?.map(Operand::Scalar))
}

/// The two operands of a binary operation as arrays (a scalar becomes a 0-d array of
/// the dtype the standard gives it next to the other operand); `None` when an operand is
/// of a type that operators should answer `NotImplemented` to.
pub fn pair(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Option<(Data, Data)>> {
    let (Some(x), Some(y)) = (operand(a)?, operand(b)?) else {
        return Ok(None);
    };
    Ok(Some(match (x, y) {
        (Operand::Array(x), Operand::Array(y)) => (x, y),
        (Operand::Array(x), Operand::Scalar(s)) => {
            let dt = s.dtype_with(x.dtype());
            (x, s.to_data(dt)?)
        }
        (Operand::Scalar(s), Operand::Array(y)) => {
            let dt = s.dtype_with(y.dtype());
            (s.to_data(dt)?, y)
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => {
            return Err(PyTypeError::new_err(
                "at least one operand must be an array",
            ));
        }
    }))
}

/// [`pair`] for functions: `TypeError` instead of `None`.
pub fn pair_args(op: &str, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<(Data, Data)> {
    pair(a, b)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{op}: operands must be arrays or Python scalars, got {} and {}",
            type_name(a),
            type_name(b)
        ))
    })
}

fn type_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}
