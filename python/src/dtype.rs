//! The Python dtype objects (`ferrotensor.float32`, …) and their conversion from the
//! objects users pass as `dtype=` (a dtype object, or `None` for the default).

use ferrotensor::io::DType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyType;

/// A data type of the array API standard.
#[pyclass(
    frozen,
    eq,
    hash,
    skip_from_py_object,
    name = "dtype",
    module = "ferrotensor"
)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDType {
    pub dt: DType,
}

#[pymethods]
impl PyDType {
    /// NumPy's name of the type (`"float32"`).
    #[getter]
    fn name(&self) -> &'static str {
        self.dt.name()
    }

    fn __repr__(&self) -> String {
        format!("ferrotensor.{}", self.dt.name())
    }

    fn __str__(&self) -> &'static str {
        self.dt.name()
    }

    /// The size of one element in bytes.
    #[getter]
    fn itemsize(&self) -> usize {
        self.dt.size()
    }
}

/// The 13 dtypes of the standard, in the order of the standard's listing.
pub const STANDARD: [DType; 13] = [
    DType::Bool,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
];

/// The dtype named by a `dtype=` argument: a ferrotensor dtype, or a NumPy dtype or
/// scalar type, or a name such as `"float32"`; `None` gives `None`.
pub fn parse_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    let Some(obj) = obj else { return Ok(None) };
    if obj.is_none() {
        return Ok(None);
    }
    if let Ok(d) = obj.cast::<PyDType>() {
        return Ok(Some(d.get().dt));
    }
    let name: String = if let Ok(s) = obj.extract::<String>() {
        s
    } else if let Ok(t) = obj.cast::<PyType>() {
        // Python's bool/int/float/complex, or a NumPy scalar type
        match t.name()?.to_string().as_str() {
            "bool" => "bool".into(),
            "int" => "int64".into(),
            "float" => "float64".into(),
            "complex" => "complex128".into(),
            other => other.trim_end_matches('_').to_string(),
        }
    } else if let Ok(n) = obj.getattr("name") {
        n.extract::<String>()?
    } else {
        return Err(PyTypeError::new_err(format!("not a dtype: {obj}")));
    };
    STANDARD
        .iter()
        .copied()
        .find(|d| d.name() == name)
        .map(Some)
        .ok_or_else(|| PyTypeError::new_err(format!("unsupported dtype: {name}")))
}

fn dtype_arg(obj: &Bound<'_, PyAny>, op: &str) -> PyResult<DType> {
    if let Ok(a) = obj.cast::<crate::array::Array>() {
        return Ok(a.borrow().data.dtype());
    }
    parse_dtype(Some(obj))?
        .ok_or_else(|| PyTypeError::new_err(format!("{op}: expected a dtype or an array")))
}

/// NumPy's `promote_types` over the standard's dtypes.
#[pyfunction]
#[pyo3(signature = (type1, type2, /))]
fn promote_types(type1: &Bound<'_, PyAny>, type2: &Bound<'_, PyAny>) -> PyResult<PyDType> {
    let (a, b) = (
        dtype_arg(type1, "promote_types")?,
        dtype_arg(type2, "promote_types")?,
    );
    Ok(PyDType { dt: a.promote(b) })
}

/// `can_cast(from_, to, /)`: true when every value of `from_` is a value of `to`.
#[pyfunction]
#[pyo3(signature = (from_, to, /))]
fn can_cast(from_: &Bound<'_, PyAny>, to: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(dtype_arg(from_, "can_cast")?.can_cast_to(dtype_arg(to, "can_cast")?))
}

/// The dtype a Python scalar takes next to dtype `other`.
#[pyfunction]
#[pyo3(signature = (scalar, other, /))]
fn _scalar_dtype(scalar: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> PyResult<PyDType> {
    let s = crate::scalar::as_scalar(scalar)?
        .ok_or_else(|| PyTypeError::new_err("not a Python scalar"))?;
    Ok(PyDType {
        dt: s.dtype_with(dtype_arg(other, "result_type")?),
    })
}

/// `astype(x, dtype, /, *, copy=True, device=None)`.
#[pyfunction]
#[pyo3(signature = (x, dtype, /, *, copy = true, device = None))]
fn astype(
    x: &Bound<'_, PyAny>,
    dtype: &Bound<'_, PyAny>,
    copy: bool,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<crate::array::Array> {
    crate::creation::check_device(device)?;
    let d = crate::array::data_of(x, "astype")?;
    let dt = dtype_arg(dtype, "astype")?;
    if dt == d.dtype() {
        return Ok(if copy { d.copy() } else { d }.into());
    }
    if d.dtype().is_complex() && !dt.is_complex() {
        return Err(PyTypeError::new_err(format!(
            "astype: casting complex to {dt} is not allowed"
        )));
    }
    Ok(d.astype(dt).into())
}

/// Registers the dtype functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(promote_types, m)?)?;
    m.add_function(wrap_pyfunction!(can_cast, m)?)?;
    m.add_function(wrap_pyfunction!(_scalar_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(astype, m)?)?;
    Ok(())
}
