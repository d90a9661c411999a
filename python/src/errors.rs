//! Crate errors as Python exceptions: indices out of range raise `IndexError`, everything
//! else (shapes, axes, values, overflow) `ValueError`, with the crate's message (which
//! names the operation and the shapes).

use ferrotensor::Error;
use pyo3::PyErr;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};

/// The Python exception for a crate error.
pub fn to_py(e: Error) -> PyErr {
    match e {
        Error::Index { .. } => PyIndexError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// `?`-friendly conversion of crate results.
pub trait OrPy<T> {
    /// The value, or the crate error as a Python exception.
    fn py(self) -> pyo3::PyResult<T>;
}

impl<T> OrPy<T> for ferrotensor::Result<T> {
    #[inline]
    fn py(self) -> pyo3::PyResult<T> {
        self.map_err(to_py)
    }
}

/// `TypeError` for a function that does not take arrays of dtype `dt`.
pub fn dtype_error(op: &str, dt: ferrotensor::io::DType) -> PyErr {
    PyTypeError::new_err(format!("{op}: arrays of dtype {dt} are not supported"))
}
