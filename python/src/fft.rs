//! The `fft` extension: every transform dispatches to the crate's `fft` module
//! (rustfft/realfft underneath); this file converts arguments and picks the dtype.

use crate::array::{Array, data_of};
use crate::data::{Data, IntoData};
use crate::errors::{OrPy, dtype_error};
use ferrotensor::fft::{self as ff, Norm};
use ferrotensor::io::DType;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

fn norm_arg(norm: &str, op: &str) -> PyResult<Norm> {
    match norm {
        "backward" => Ok(Norm::Backward),
        "ortho" => Ok(Norm::Ortho),
        "forward" => Ok(Norm::Forward),
        other => Err(PyValueError::new_err(format!(
            "{op}: norm must be 'backward', 'ortho' or 'forward', got {other:?}"
        ))),
    }
}

/// A floating-point input: complex for the complex transforms (`complex_in`), real
/// otherwise. Integers and bool are refused, as the standard asks for floats.
fn float_input(x: &Bound<'_, PyAny>, complex_in: bool, op: &str) -> PyResult<Data> {
    let d = data_of(x, op)?;
    let dt = d.dtype();
    if !(dt.is_real_float() || complex_in && dt.is_complex()) {
        return Err(dtype_error(op, dt));
    }
    Ok(d)
}

/// Runs `$body` with `$t` bound to the typed tensor of a float (real or complex) `Data`.
macro_rules! each_fft {
    ($d:expr, $op:expr, $t:ident => $body:expr) => {
        crate::match_data!($d; F32 | F64 | C64 | C128; $t => $body; _ => return Err(dtype_error($op, $d.dtype())))
    };
}

/// `n` as a transform length (`None` keeps the default); `Err` unless positive.
fn len_arg(n: Option<isize>, op: &str) -> PyResult<Option<usize>> {
    match n {
        Some(k) if k < 1 => Err(PyValueError::new_err(format!(
            "{op}: n must be a positive integer, got {k}"
        ))),
        other => Ok(other.map(|k| k as usize)),
    }
}

fn lens_arg(s: Option<Vec<isize>>, op: &str) -> PyResult<Option<Vec<usize>>> {
    s.map(|v| {
        v.into_iter()
            .map(|k| Ok(len_arg(Some(k), op)?.unwrap_or(0)))
            .collect()
    })
    .transpose()
}

/// The complex one-axis transforms (`fft`, `ifft`) and the real-output ones (`irfft`,
/// `hfft`), whose input is complex.
#[derive(Clone, Copy)]
enum OneAxis {
    Fft,
    Ifft,
    Rfft,
    Irfft,
    Hfft,
    Ihfft,
}

fn one_axis(
    py: Python<'_>,
    kind: OneAxis,
    x: &Bound<'_, PyAny>,
    n: Option<isize>,
    axis: isize,
    norm: &str,
    op: &'static str,
) -> PyResult<Array> {
    let complex_in = matches!(
        kind,
        OneAxis::Fft | OneAxis::Ifft | OneAxis::Irfft | OneAxis::Hfft
    );
    let d = float_input(x, complex_in, op)?;
    let (n, norm) = (len_arg(n, op)?, norm_arg(norm, op)?);
    let out = py.detach(|| -> PyResult<Data> {
        Ok(match kind {
            OneAxis::Fft => each_fft!(&d, op, t => ff::fft(t, n, axis, norm).py()?.into_data()),
            OneAxis::Ifft => each_fft!(&d, op, t => ff::ifft(t, n, axis, norm).py()?.into_data()),
            OneAxis::Irfft => each_fft!(&d, op, t => ff::irfft(t, n, axis, norm).py()?.into_data()),
            OneAxis::Hfft => each_fft!(&d, op, t => ff::hfft(t, n, axis, norm).py()?.into_data()),
            OneAxis::Rfft => {
                crate::each_float!(&d, t => ff::rfft(t, n, axis, norm).py()?.into_data(), _ => return Err(dtype_error(op, d.dtype())))
            }
            OneAxis::Ihfft => {
                crate::each_float!(&d, t => ff::ihfft(t, n, axis, norm).py()?.into_data(), _ => return Err(dtype_error(op, d.dtype())))
            }
        })
    })?;
    Ok(out.into())
}

/// The transforms over several axes.
#[derive(Clone, Copy)]
enum ManyAxes {
    Fftn,
    Ifftn,
    Rfftn,
    Irfftn,
}

fn many_axes(
    py: Python<'_>,
    kind: ManyAxes,
    x: &Bound<'_, PyAny>,
    s: Option<Vec<isize>>,
    axes: Option<Vec<isize>>,
    norm: &str,
    op: &'static str,
) -> PyResult<Array> {
    let complex_in = !matches!(kind, ManyAxes::Rfftn);
    let d = float_input(x, complex_in, op)?;
    let (s, norm) = (lens_arg(s, op)?, norm_arg(norm, op)?);
    let (s, axes) = (s.as_deref(), axes.as_deref());
    let out = py.detach(|| -> PyResult<Data> {
        Ok(match kind {
            ManyAxes::Fftn => each_fft!(&d, op, t => ff::fftn(t, s, axes, norm).py()?.into_data()),
            ManyAxes::Ifftn => each_fft!(&d, op, t => ff::ifftn(t, s, axes, norm).py()?.into_data()),
            ManyAxes::Irfftn => each_fft!(&d, op, t => ff::irfftn(t, s, axes, norm).py()?.into_data()),
            ManyAxes::Rfftn => {
                crate::each_float!(&d, t => ff::rfftn(t, s, axes, norm).py()?.into_data(), _ => return Err(dtype_error(op, d.dtype())))
            }
        })
    })?;
    Ok(out.into())
}

macro_rules! one_axis_fn {
    ($($name:ident => $kind:ident),* $(,)?) => {$(
        #[pyfunction]
        #[pyo3(signature = (x, /, *, n = None, axis = -1, norm = "backward"))]
        fn $name(py: Python<'_>, x: &Bound<'_, PyAny>, n: Option<isize>, axis: isize, norm: &str) -> PyResult<Array> {
            one_axis(py, OneAxis::$kind, x, n, axis, norm, stringify!($name))
        }
    )*};
}
one_axis_fn!(fft => Fft, ifft => Ifft, rfft => Rfft, irfft => Irfft, hfft => Hfft, ihfft => Ihfft);

macro_rules! many_axes_fn {
    ($($name:ident => $kind:ident),* $(,)?) => {$(
        #[pyfunction]
        #[pyo3(signature = (x, /, *, s = None, axes = None, norm = "backward"))]
        fn $name(
            py: Python<'_>,
            x: &Bound<'_, PyAny>,
            s: Option<Vec<isize>>,
            axes: Option<Vec<isize>>,
            norm: &str,
        ) -> PyResult<Array> {
            many_axes(py, ManyAxes::$kind, x, s, axes, norm, stringify!($name))
        }
    )*};
}
many_axes_fn!(fftn => Fftn, ifftn => Ifftn, rfftn => Rfftn, irfftn => Irfftn);

/// The dtype of `fftfreq`/`rfftfreq`: a real float, `float64` by default.
fn freq_dtype(dtype: Option<&Bound<'_, PyAny>>, op: &str) -> PyResult<DType> {
    match crate::dtype::parse_dtype(dtype)? {
        None => Ok(DType::F64),
        Some(dt) if dt.is_real_float() => Ok(dt),
        Some(dt) => Err(PyTypeError::new_err(format!(
            "{op}: dtype must be a real floating-point dtype, got {dt}"
        ))),
    }
}

fn freq(
    n: isize,
    d: f64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    half: bool,
    op: &str,
) -> PyResult<Array> {
    crate::creation::check_device(device)?;
    if n < 1 {
        return Err(PyValueError::new_err(format!(
            "{op}: n must be a positive integer, got {n}"
        )));
    }
    let n = n as usize;
    let data = match (freq_dtype(dtype, op)?, half) {
        (DType::F32, false) => ff::fftfreq(n, d as f32).py()?.into_data(),
        (DType::F32, true) => ff::rfftfreq(n, d as f32).py()?.into_data(),
        (_, false) => ff::fftfreq(n, d).py()?.into_data(),
        (_, true) => ff::rfftfreq(n, d).py()?.into_data(),
    };
    Ok(data.into())
}

/// `fftfreq(n, /, *, d=1.0, dtype=None, device=None)`.
#[pyfunction]
#[pyo3(signature = (n, /, *, d = 1.0, dtype = None, device = None))]
fn fftfreq(
    n: isize,
    d: f64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    freq(n, d, dtype, device, false, "fftfreq")
}

/// `rfftfreq(n, /, *, d=1.0, dtype=None, device=None)`.
#[pyfunction]
#[pyo3(signature = (n, /, *, d = 1.0, dtype = None, device = None))]
fn rfftfreq(
    n: isize,
    d: f64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    freq(n, d, dtype, device, true, "rfftfreq")
}

fn shift(
    x: &Bound<'_, PyAny>,
    axes: Option<&Bound<'_, PyAny>>,
    inverse: bool,
    op: &str,
) -> PyResult<Array> {
    let d = data_of(x, op)?;
    let axes = match axes {
        Some(a) if !a.is_none() => Some(crate::stats::parse_axes(Some(a), d.ndim())?),
        _ => None,
    };
    let axes = axes.as_deref();
    let out = crate::each_all!(&d, t => if inverse { ff::ifftshift(t, axes) } else { ff::fftshift(t, axes) }.py()?.into_data());
    Ok(out.into())
}

/// `fftshift(x, /, *, axes=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, *, axes = None))]
fn fftshift(x: &Bound<'_, PyAny>, axes: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    shift(x, axes, false, "fftshift")
}

/// `ifftshift(x, /, *, axes=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, *, axes = None))]
fn ifftshift(x: &Bound<'_, PyAny>, axes: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    shift(x, axes, true, "ifftshift")
}

/// Registers the `fft` extension as the submodule `_core._fft`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(m.py(), "_fft")?;
    sub.add_function(wrap_pyfunction!(fft, &sub)?)?;
    sub.add_function(wrap_pyfunction!(ifft, &sub)?)?;
    sub.add_function(wrap_pyfunction!(fftn, &sub)?)?;
    sub.add_function(wrap_pyfunction!(ifftn, &sub)?)?;
    sub.add_function(wrap_pyfunction!(rfft, &sub)?)?;
    sub.add_function(wrap_pyfunction!(irfft, &sub)?)?;
    sub.add_function(wrap_pyfunction!(rfftn, &sub)?)?;
    sub.add_function(wrap_pyfunction!(irfftn, &sub)?)?;
    sub.add_function(wrap_pyfunction!(hfft, &sub)?)?;
    sub.add_function(wrap_pyfunction!(ihfft, &sub)?)?;
    sub.add_function(wrap_pyfunction!(fftfreq, &sub)?)?;
    sub.add_function(wrap_pyfunction!(rfftfreq, &sub)?)?;
    sub.add_function(wrap_pyfunction!(fftshift, &sub)?)?;
    sub.add_function(wrap_pyfunction!(ifftshift, &sub)?)?;
    m.add_submodule(&sub)?;
    Ok(())
}
