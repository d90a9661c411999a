//! `ferrotensor._core`: the compiled part of the Python package `ferrotensor`, an array
//! API standard (2024.12) namespace over the ferrotensor crate. The binding converts
//! Python values, promotes dtypes and dispatches to the crate's typed operations; the
//! Python package (`ferrotensor/__init__.py`) adds the pure-Python pieces (dtype
//! information objects, the inspection namespace, the `linalg` and `fft` modules).

mod array;
mod creation;
mod data;
mod dlpack;
mod dtype;
mod elementwise;
mod errors;
mod fft;
mod indexing;
mod linalg;
mod linalg_ext;
mod manip;
mod scalar;
mod search;
mod stats;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<array::Array>()?;
    m.add_class::<dtype::PyDType>()?;
    for dt in dtype::STANDARD {
        m.add(dt.name(), dtype::PyDType { dt })?;
    }
    creation::register(m)?;
    elementwise::register(m)?;
    fft::register(m)?;
    dtype::register(m)?;
    linalg::register(m)?;
    linalg_ext::register(m)?;
    manip::register(m)?;
    search::register(m)?;
    stats::register(m)?;
    Ok(())
}
