//! Creation functions: `asarray` (Python scalars, nested sequences, arrays, DLPack
//! producers such as NumPy arrays), `zeros`/`ones`/`empty`/`full` and their `_like`
//! forms, `arange`, `linspace`, `eye`, `tril`/`triu`, `meshgrid`.

use crate::array::Array;
use crate::data::{Data, IntoData, data_from_wides};
use crate::dtype::parse_dtype;
use crate::errors::{OrPy, dtype_error};
use crate::scalar::{Scalar, as_scalar, check_int_range};
use crate::{each_all, with_type};
use ferrotensor::io::DType;
use ferrotensor::manip::Indexing;
use ferrotensor::ops::Castable;
use ferrotensor::ops::cast::Wide;
use ferrotensor::{Ix1, IxDyn, Tensor};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PySequence, PyString};

/// `Err` unless `device` is `None`, the CPU device, or `"cpu"`.
pub fn check_device(device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let Some(d) = device else { return Ok(()) };
    if d.is_none() {
        return Ok(());
    }
    let cpu = d.py().import("ferrotensor")?.getattr("CPU_DEVICE")?;
    if d.eq(&cpu)? || d.extract::<String>().is_ok_and(|s| s == "cpu") {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "unsupported device {d}: ferrotensor arrays live on the CPU"
        )))
    }
}

/// A shape argument: an int or a sequence of ints.
pub fn parse_shape(shape: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let dims: Vec<isize> = if let Ok(n) = shape.extract::<isize>() {
        vec![n]
    } else {
        shape.extract::<Vec<isize>>()?
    };
    dims.into_iter()
        .map(|d| {
            usize::try_from(d).map_err(|_| {
                PyValueError::new_err(format!("negative dimensions are not allowed: {d}"))
            })
        })
        .collect()
}

/// The kind order of Python scalars: bool < int < float < complex.
fn kind_rank(s: &Scalar) -> u8 {
    match s {
        Scalar::Bool(_) => 0,
        Scalar::Int(_) => 1,
        Scalar::Float(_) => 2,
        Scalar::Complex(..) => 3,
    }
}

/// Values gathered from nested sequences.
#[derive(Default)]
struct Nested {
    shape: Vec<usize>,
    values: Vec<Wide>,
    /// the widest Python scalar kind seen, and the largest and smallest ints
    kind: Option<u8>,
    max_int: i128,
    min_int: i128,
    /// the promoted dtype of arrays met as elements
    arr_dtype: Option<DType>,
}

impl Nested {
    fn push_scalar(&mut self, s: Scalar) {
        self.kind = Some(self.kind.map_or(kind_rank(&s), |k| k.max(kind_rank(&s))));
        if let Scalar::Int(i) = s {
            self.max_int = self.max_int.max(i);
            self.min_int = self.min_int.min(i);
        }
        self.values.push(s.wide());
    }

    fn push_array(&mut self, d: &Data) {
        self.arr_dtype = Some(self.arr_dtype.map_or(d.dtype(), |a| a.promote(d.dtype())));
        self.values.extend(d.wide_values());
    }

    /// Walks `obj` at nesting `depth`, fixing the shape from the first element seen at
    /// each depth and checking every later one against it.
    fn walk(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<()> {
        if let Some(s) = as_scalar(obj)? {
            return self.leaf(depth, &[], |n| n.push_scalar(s));
        }
        if let Ok(a) = obj.cast::<Array>() {
            let d = a.borrow().data.clone();
            let shape = d.shape().to_vec();
            return self.leaf(depth, &shape, |n| n.push_array(&d));
        }
        if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
            return Err(PyTypeError::new_err(
                "asarray: strings are not array elements",
            ));
        }
        let Ok(seq) = obj.cast::<PySequence>() else {
            if obj.hasattr("__dlpack__")? {
                let d = crate::dlpack::import(obj)?;
                let shape = d.shape().to_vec();
                return self.leaf(depth, &shape, |n| n.push_array(&d));
            }
            return Err(PyTypeError::new_err(format!(
                "asarray: cannot make an array element from {}",
                obj.get_type().name()?
            )));
        };
        let len = seq.len()?;
        if depth == self.shape.len()
            && self.values.is_empty()
            && self.kind.is_none()
            && self.arr_dtype.is_none()
        {
            self.shape.push(len);
        } else if depth >= self.shape.len() || self.shape[depth] != len {
            return Err(ragged());
        }
        for item in seq.try_iter()? {
            self.walk(&item?, depth + 1)?;
        }
        Ok(())
    }

    /// A leaf of shape `shape` at `depth`: the first leaf fixes the rest of the shape.
    fn leaf(
        &mut self,
        depth: usize,
        shape: &[usize],
        push: impl FnOnce(&mut Self),
    ) -> PyResult<()> {
        let first = self.values.is_empty() && self.kind.is_none() && self.arr_dtype.is_none();
        if first && depth == self.shape.len() {
            self.shape.extend_from_slice(shape);
        } else if self.shape.len() != depth + shape.len() || self.shape[depth..] != *shape {
            return Err(ragged());
        }
        push(self);
        Ok(())
    }

    /// The dtype: the requested one, else the promotion of the elements' kinds.
    fn dtype(&self, requested: Option<DType>) -> PyResult<DType> {
        if let Some(dt) = requested {
            if let Some((lo, hi)) = crate::scalar::int_range(dt)
                && self.kind == Some(1)
                && (self.min_int < lo || self.max_int > hi)
            {
                let bad = if self.min_int < lo {
                    self.min_int
                } else {
                    self.max_int
                };
                return Err(PyOverflowError::new_err(format!(
                    "Python integer {bad} out of bounds for {dt}"
                )));
            }
            if self.kind == Some(3) && !dt.is_complex() {
                return Err(PyTypeError::new_err(format!(
                    "cannot convert complex values to {dt}"
                )));
            }
            return Ok(dt);
        }
        let scalar_dt = self.kind.map(|k| match k {
            0 => DType::Bool,
            1 if self.max_int > i64::MAX as i128
                && self.min_int >= 0
                && self.max_int <= u64::MAX as i128 =>
            {
                DType::U64
            }
            1 => DType::I64,
            2 => DType::F64,
            _ => DType::C128,
        });
        if self.kind == Some(1)
            && (self.min_int < i64::MIN as i128 || self.max_int > u64::MAX as i128)
        {
            return Err(PyOverflowError::new_err(
                "Python integer out of bounds for int64",
            ));
        }
        Ok(match (scalar_dt, self.arr_dtype) {
            (Some(s), Some(a)) => s.promote(a),
            (Some(s), None) => s,
            (None, Some(a)) => a,
            (None, None) => DType::F64, // an empty list
        })
    }
}

fn ragged() -> PyErr {
    PyValueError::new_err(
        "asarray: the nested sequences are ragged (elements of different lengths)",
    )
}

/// `asarray(obj, /, *, dtype=None, device=None, copy=None)`.
#[pyfunction]
#[pyo3(signature = (obj, /, *, dtype = None, device = None, copy = None))]
pub fn asarray(
    obj: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Py<PyAny>> {
    let py = obj.py();
    let wrap = |a: Array| -> PyResult<Py<PyAny>> { Ok(a.into_pyobject(py)?.into_any().unbind()) };
    check_device(device)?;
    let dt = parse_dtype(dtype)?;
    if let Ok(a) = obj.cast::<Array>() {
        let d = a.borrow().data.clone();
        return match dt {
            Some(t) if t != d.dtype() => {
                if copy == Some(false) {
                    return Err(PyValueError::new_err(
                        "asarray: copy=False cannot change the dtype",
                    ));
                }
                Ok(Array::from(d.astype(t))
                    .into_pyobject(obj.py())?
                    .into_any()
                    .unbind())
            }
            _ if copy == Some(true) => Ok(Array::from(d.copy())
                .into_pyobject(obj.py())?
                .into_any()
                .unbind()),
            // the array itself: writes through either name are one array's writes
            _ => Ok(obj.clone().unbind()),
        };
    }
    if let Some(s) = as_scalar(obj)? {
        let t = match dt {
            Some(t) => {
                if matches!(s, Scalar::Complex(..)) && !t.is_complex() {
                    return Err(PyTypeError::new_err(format!(
                        "cannot convert a complex value to {t}"
                    )));
                }
                t
            }
            None => s.default_dtype(),
        };
        return wrap(s.to_data(t)?.into());
    }
    if copy == Some(false) {
        return Err(PyValueError::new_err(
            "asarray: copy=False is possible only for ferrotensor arrays",
        ));
    }
    if !obj.is_instance_of::<PySequence>() && obj.hasattr("__dlpack__")? {
        let d = crate::dlpack::import(obj)?;
        return wrap(
            match dt {
                Some(t) => d.astype(t),
                None => d,
            }
            .into(),
        );
    }
    if !obj.is_instance_of::<PySequence>() && obj.hasattr("__array__")? {
        // NumPy-like objects without DLPack: through NumPy
        let np = obj.py().import("numpy")?;
        let arr = np.call_method1("asarray", (obj,))?;
        return asarray(&arr, dtype, None, None);
    }
    if let Ok(mv) = obj
        .py()
        .import("builtins")?
        .getattr("memoryview")?
        .call1((obj,))
    {
        // buffer-protocol objects (bytes-like, array.array, …) through NumPy
        let np = obj.py().import("numpy")?;
        let arr = np.call_method1("asarray", (mv,))?;
        return asarray(&arr, dtype, None, None);
    }
    let mut n = Nested::default();
    n.walk(obj, 0)?;
    let t = n.dtype(dt)?;
    wrap(data_from_wides(&n.values, n.shape, t).py()?.into())
}

fn default_float(dt: Option<DType>) -> DType {
    dt.unwrap_or(DType::F64)
}

/// An array of `shape` filled with `w` (cast to `dt`).
fn filled(shape: Vec<usize>, w: Wide, dt: DType) -> PyResult<Data> {
    ferrotensor::layout::checked_size(&shape, "full").py()?;
    Ok(
        with_type!(dt, T => Tensor::<T, IxDyn>::full(shape, T::from_wide(w)).into_data(), unreachable!()),
    )
}

#[pyfunction]
#[pyo3(signature = (shape, *, dtype = None, device = None))]
pub fn zeros(
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    check_device(device)?;
    Ok(filled(
        parse_shape(shape)?,
        Wide::Int(0),
        default_float(parse_dtype(dtype)?),
    )?
    .into())
}

#[pyfunction]
#[pyo3(signature = (shape, *, dtype = None, device = None))]
pub fn ones(
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    check_device(device)?;
    Ok(filled(
        parse_shape(shape)?,
        Wide::Int(1),
        default_float(parse_dtype(dtype)?),
    )?
    .into())
}

/// `empty` gives zeros (the crate has no uninitialised constructor for users).
#[pyfunction]
#[pyo3(signature = (shape, *, dtype = None, device = None))]
pub fn empty(
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    zeros(shape, dtype, device)
}

/// The fill value as a wide value and its dtype (the requested one, or the value's
/// default dtype).
fn fill_value(value: &Bound<'_, PyAny>, dt: Option<DType>) -> PyResult<(Wide, DType)> {
    if let Ok(a) = value.cast::<Array>() {
        let d = a.borrow().data.clone();
        let w = d
            .wide_item()
            .ok_or_else(|| PyValueError::new_err("fill_value must be a scalar or a 0-d array"))?;
        return Ok((w, dt.unwrap_or(d.dtype())));
    }
    let s = as_scalar(value)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "fill_value must be a Python scalar, got {}",
            value
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let t = dt.unwrap_or(s.default_dtype());
    if let Scalar::Int(i) = s {
        check_int_range(i, t)?;
    }
    if matches!(s, Scalar::Complex(..)) && !t.is_complex() {
        return Err(PyTypeError::new_err(format!(
            "cannot fill an array of dtype {t} with a complex value"
        )));
    }
    Ok((s.wide(), t))
}

#[pyfunction]
#[pyo3(signature = (shape, fill_value, *, dtype = None, device = None))]
pub fn full(
    shape: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    check_device(device)?;
    let (w, dt) = self::fill_value(fill_value, parse_dtype(dtype)?)?;
    Ok(filled(parse_shape(shape)?, w, dt)?.into())
}

fn like(
    x: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Vec<usize>, DType)> {
    check_device(device)?;
    let d = crate::array::data_of(x, "_like")?;
    Ok((d.shape().to_vec(), parse_dtype(dtype)?.unwrap_or(d.dtype())))
}

#[pyfunction]
#[pyo3(signature = (x, /, *, dtype = None, device = None))]
pub fn zeros_like(
    x: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (s, dt) = like(x, dtype, device)?;
    Ok(filled(s, Wide::Int(0), dt)?.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, dtype = None, device = None))]
pub fn ones_like(
    x: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (s, dt) = like(x, dtype, device)?;
    Ok(filled(s, Wide::Int(1), dt)?.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, dtype = None, device = None))]
pub fn empty_like(
    x: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    zeros_like(x, dtype, device)
}

#[pyfunction]
#[pyo3(signature = (x, /, fill_value, *, dtype = None, device = None))]
pub fn full_like(
    x: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (s, dt) = like(x, dtype, device)?;
    let (w, dt) = self::fill_value(fill_value, Some(dt))?;
    Ok(filled(s, w, dt)?.into())
}

/// `arange(start, /, stop=None, step=1, *, dtype=None, device=None)`.
#[pyfunction]
#[pyo3(signature = (start, /, stop = None, step = None, *, dtype = None, device = None))]
pub fn arange(
    start: &Bound<'_, PyAny>,
    stop: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    check_device(device)?;
    let num = |o: &Bound<'_, PyAny>| -> PyResult<Scalar> {
        match as_scalar(o)? {
            Some(s @ (Scalar::Int(_) | Scalar::Float(_))) => Ok(s),
            _ => Err(PyTypeError::new_err("arange takes real Python numbers")),
        }
    };
    let (mut a, mut b) = (num(start)?, None);
    if let Some(s) = stop
        && !s.is_none()
    {
        b = Some(num(s)?);
    }
    let (a, b) = match b {
        Some(b) => (a, b),
        None => {
            let stop = a;
            a = Scalar::Int(0);
            (a, stop)
        }
    };
    let st = match step {
        Some(s) if !s.is_none() => num(s)?,
        _ => Scalar::Int(1),
    };
    let all_int = [a, b, st].iter().all(|s| matches!(s, Scalar::Int(_)));
    let dt = parse_dtype(dtype)?.unwrap_or(if all_int { DType::I64 } else { DType::F64 });
    let is_zero = match st {
        Scalar::Int(i) => i == 0,
        Scalar::Float(f) => f == 0.0,
        _ => false,
    };
    if is_zero {
        return Err(PyValueError::new_err("arange: step must not be zero"));
    }
    if dt.is_int() && all_int {
        let out = with_type!(dt, T => {
            let (Scalar::Int(s), Scalar::Int(e), Scalar::Int(k)) = (a, b, st) else { unreachable!() };
            check_int_range(s, dt)?;
            let len = arange_len_int(s, e, k);
            if len > 0 {
                check_int_range(s + (len as i128 - 1) * k, dt)?;
            }
            check_len(len)?;
            Tensor::<T, Ix1>::from_shape_fn([len], |i| T::from_wide(Wide::Int(s + i[0] as i128 * k))).into_data()
        }, unreachable!());
        return Ok(out.into());
    }
    if !dt.is_real_float() && !dt.is_int() {
        return Err(dtype_error("arange", dt));
    }
    let f = |s: Scalar| match s {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
        _ => unreachable!(),
    };
    let (s, e, k) = (f(a), f(b), f(st));
    let len = ((e - s) / k).ceil();
    let len = if len.is_nan() || len <= 0.0 {
        0usize
    } else {
        len as usize
    };
    check_len(len)?;
    let t = Tensor::<f64, Ix1>::arange_step(s, s + len as f64 * k, k);
    // the length rule of NumPy (ceil((stop - start) / step)) decides, not rounding in
    // the crate's loop
    let t = if t.size() == len {
        t
    } else {
        Tensor::<f64, Ix1>::from_shape_fn([len], |i| s + i[0] as f64 * k)
    };
    Ok(t.into_data().astype(dt).into())
}

fn check_len(len: usize) -> PyResult<()> {
    if len > (1usize << 40) {
        return Err(PyValueError::new_err(format!(
            "arange: {len} elements are too many"
        )));
    }
    Ok(())
}

fn arange_len_int(s: i128, e: i128, k: i128) -> usize {
    let n = if k > 0 {
        (e - s + k - 1).div_euclid(k)
    } else {
        (s - e + (-k) - 1).div_euclid(-k)
    };
    n.max(0) as usize
}

/// `linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True)`.
#[pyfunction]
#[pyo3(signature = (start, stop, /, num, *, dtype = None, device = None, endpoint = true))]
pub fn linspace(
    start: &Bound<'_, PyAny>,
    stop: &Bound<'_, PyAny>,
    num: usize,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    endpoint: bool,
) -> PyResult<Array> {
    check_device(device)?;
    let part = |o: &Bound<'_, PyAny>| -> PyResult<(f64, f64, bool)> {
        Ok(match as_scalar(o)? {
            Some(Scalar::Int(i)) => (i as f64, 0.0, false),
            Some(Scalar::Float(f)) => (f, 0.0, false),
            Some(Scalar::Complex(re, im)) => (re, im, true),
            _ => return Err(PyTypeError::new_err("linspace takes Python numbers")),
        })
    };
    let (a, b) = (part(start)?, part(stop)?);
    let complex = a.2 || b.2;
    let dt = parse_dtype(dtype)?.unwrap_or(if complex { DType::C128 } else { DType::F64 });
    if complex && !dt.is_complex() {
        return Err(PyTypeError::new_err(format!(
            "linspace: complex bounds with dtype {dt}"
        )));
    }
    let n = if endpoint { num } else { num + 1 };
    let cut = |t: Tensor<f64, Ix1>| -> Tensor<f64, Ix1> {
        if endpoint {
            t
        } else {
            Tensor::from_vec(t.to_vec()[..num].to_vec(), [num]).expect("length")
        }
    };
    let re = cut(Tensor::<f64, Ix1>::linspace(a.0, b.0, n));
    if dt.is_complex() {
        let im = cut(Tensor::<f64, Ix1>::linspace(a.1, b.1, n));
        let z = re.complex(&im).py()?;
        return Ok(z.into_data().astype(dt).into());
    }
    if !dt.is_real_float() {
        return Err(dtype_error("linspace", dt));
    }
    Ok(re.into_data().astype(dt).into())
}

/// The `k × k` identity of dtype `dt`.
pub fn eye_data(k: usize, dt: DType) -> PyResult<Data> {
    Ok(with_type!(dt, T => {
        let mut t = Tensor::<T, IxDyn>::full(vec![k, k], T::from_wide(Wide::Int(0)));
        if k > 0 {
            t.diagonal_mut(0, 0, 1).py()?.fill(T::from_wide(Wide::Int(1)));
        }
        t.into_data()
    }, unreachable!()))
}

/// A diagonal offset given as any Python int: one beyond `isize` lies outside every
/// array, so it is clamped (the diagonal stays empty either way).
fn diagonal_offset(k: &Bound<'_, PyAny>) -> PyResult<isize> {
    match k.extract::<isize>() {
        Ok(k) => Ok(k),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(k.py()) => {
            Ok(if k.lt(0)? { -isize::MAX } else { isize::MAX })
        }
        Err(e) => Err(e),
    }
}

/// `eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None)`.
#[pyfunction]
#[pyo3(
    signature = (n_rows, n_cols = None, /, *, k = None, dtype = None, device = None),
    text_signature = "(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None)"
)]
pub fn eye(
    n_rows: usize,
    n_cols: Option<usize>,
    k: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    check_device(device)?;
    let dt = default_float(parse_dtype(dtype)?);
    let m = n_cols.unwrap_or(n_rows);
    let k = k.map(diagonal_offset).transpose()?.unwrap_or(0);
    let out = with_type!(dt, T => {
        ferrotensor::layout::checked_size(&[n_rows, m], "eye").py()?;
        let mut t = Tensor::<T, IxDyn>::full(vec![n_rows, m], T::from_wide(Wide::Int(0)));
        let fits = if k >= 0 { (k as usize) < m.max(1) || m == 0 } else { k.unsigned_abs() < n_rows.max(1) };
        if fits && n_rows > 0 && m > 0 {
            t.diagonal_mut(k, 0, 1).py()?.fill(T::from_wide(Wide::Int(1)));
        }
        t.into_data()
    }, unreachable!());
    Ok(out.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, k = 0))]
pub fn tril(x: &Bound<'_, PyAny>, k: isize) -> PyResult<Array> {
    let d = crate::array::data_of(x, "tril")?;
    Ok(each_all!(&d, t => t.tril(k).py()?.into_data()).into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, k = 0))]
pub fn triu(x: &Bound<'_, PyAny>, k: isize) -> PyResult<Array> {
    let d = crate::array::data_of(x, "triu")?;
    Ok(each_all!(&d, t => t.triu(k).py()?.into_data()).into())
}

/// `meshgrid(*arrays, indexing='xy')`.
#[pyfunction]
#[pyo3(signature = (*arrays, indexing = "xy"))]
pub fn meshgrid(arrays: Vec<Bound<'_, PyAny>>, indexing: &str) -> PyResult<Vec<Array>> {
    let ix = match indexing {
        "xy" => Indexing::Xy,
        "ij" => Indexing::Ij,
        _ => {
            return Err(PyValueError::new_err(format!(
                "meshgrid: indexing must be 'xy' or 'ij', not {indexing:?}"
            )));
        }
    };
    let ds: Vec<Data> = arrays
        .iter()
        .map(|a| crate::array::data_of(a, "meshgrid"))
        .collect::<PyResult<_>>()?;
    if ds.is_empty() {
        return Ok(Vec::new());
    }
    let dt = ds
        .iter()
        .skip(1)
        .fold(ds[0].dtype(), |a, d| a.promote(d.dtype()));
    let ds: Vec<Data> = ds.iter().map(|d| d.astype(dt)).collect();
    let out = with_type!(dt, T => {
        let ts: Vec<&dyn ferrotensor::manip::AsDynView<T>> = ds.iter().map(|d| <T as crate::data::Elem>::peel(d).expect("one dtype") as &dyn ferrotensor::manip::AsDynView<T>).collect();
        ferrotensor::manip::meshgrid(&ts, ix).py()?.into_iter().map(|t| Array::from(t.into_data())).collect()
    }, unreachable!());
    Ok(out)
}

/// `from_dlpack(x, /, *, device=None, copy=None)`: a copy of the producer's memory.
#[pyfunction]
#[pyo3(signature = (x, /, *, device = None, copy = None))]
pub fn from_dlpack(
    x: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Array> {
    check_device(device)?;
    if let Ok(a) = x.cast::<Array>() {
        let d = a.borrow().data.clone();
        return Ok(if copy == Some(true) { d.copy() } else { d }.into());
    }
    if copy == Some(false) {
        return Err(PyValueError::new_err(
            "from_dlpack: ferrotensor copies foreign memory (its arrays own their buffers); copy=False is impossible",
        ));
    }
    Ok(crate::dlpack::import(x)?.into())
}

/// Registers the creation functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(asarray, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(zeros_like, m)?)?;
    m.add_function(wrap_pyfunction!(ones_like, m)?)?;
    m.add_function(wrap_pyfunction!(empty_like, m)?)?;
    m.add_function(wrap_pyfunction!(full_like, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(eye, m)?)?;
    m.add_function(wrap_pyfunction!(tril, m)?)?;
    m.add_function(wrap_pyfunction!(triu, m)?)?;
    m.add_function(wrap_pyfunction!(meshgrid, m)?)?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    Ok(())
}
