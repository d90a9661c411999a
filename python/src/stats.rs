//! Statistical and utility reductions: `sum`, `prod`, `mean`, `std`, `var`, `max`, `min`,
//! `cumulative_sum`, `cumulative_prod`, `all`, `any`, `count_nonzero`, `argmax`,
//! `argmin`, over an axis, several axes or all of them.

use crate::array::{Array, data_of};
use crate::data::{Data, IntoData};
use crate::dtype::parse_dtype;
use crate::errors::{OrPy, dtype_error};
use crate::{each_all, each_float, each_num, each_real};
use ferrotensor::io::DType;
use ferrotensor::{IxDyn, Tensor};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// An `axis` argument (`None`, an int, or a tuple of ints) as the list of axes,
/// normalised and checked against `ndim`; `None` means every axis.
pub fn parse_axes(axis: Option<&Bound<'_, PyAny>>, ndim: usize) -> PyResult<Vec<isize>> {
    let raw: Vec<isize> = match axis {
        None => return Ok((0..ndim as isize).collect()),
        Some(a) if a.is_none() => return Ok((0..ndim as isize).collect()),
        Some(a) => match a.extract::<isize>() {
            Ok(i) => vec![i],
            Err(_) => a.extract::<Vec<isize>>()?,
        },
    };
    let mut out = Vec::with_capacity(raw.len());
    for &ax in &raw {
        let n = ndim as isize;
        if ax < -n || ax >= n {
            return Err(PyValueError::new_err(format!(
                "axis {ax} is out of bounds for an array of dimension {ndim}"
            )));
        }
        let a = if ax < 0 { ax + n } else { ax };
        if out.contains(&a) {
            return Err(PyValueError::new_err(format!("repeated axis {ax}")));
        }
        out.push(a);
    }
    Ok(out)
}

/// `sum` over `axes` in the array's own dtype (no widening).
pub fn reduce_sum(d: &Data, axes: &[isize], keepdims: bool) -> PyResult<Data> {
    let axes = normalized(axes, d.ndim())?;
    Ok(
        each_num!(d, t => t.sum_axes(&axes, keepdims).py()?.into_data(), _ => return Err(dtype_error("sum", d.dtype()))),
    )
}

/// `max` over `axes`.
pub fn reduce_max(d: &Data, axes: &[isize], keepdims: bool) -> PyResult<Data> {
    let axes = normalized(axes, d.ndim())?;
    Ok(
        each_real!(d, t => t.max_axes(&axes, keepdims).py()?.into_data(), _ => return Err(dtype_error("max", d.dtype()))),
    )
}

/// `min` over `axes`.
pub fn reduce_min(d: &Data, axes: &[isize], keepdims: bool) -> PyResult<Data> {
    let axes = normalized(axes, d.ndim())?;
    Ok(
        each_real!(d, t => t.min_axes(&axes, keepdims).py()?.into_data(), _ => return Err(dtype_error("min", d.dtype()))),
    )
}

/// The number of true elements of a bool array along `axis` (as `int64`).
pub fn count_true(d: &Data, axis: isize) -> PyResult<Data> {
    let axes = normalized(&[axis], d.ndim())?;
    Ok(crate::each_all!(d, t => t.count_nonzero_axes(&axes, false).py()?.into_data()))
}

fn normalized(axes: &[isize], ndim: usize) -> PyResult<Vec<isize>> {
    let n = ndim as isize;
    axes.iter()
        .map(|&a| {
            if a < -n || a >= n {
                Err(PyValueError::new_err(format!(
                    "axis {a} is out of bounds for an array of dimension {ndim}"
                )))
            } else {
                Ok(if a < 0 { a + n } else { a })
            }
        })
        .collect()
}

/// The accumulation dtype of `sum`/`prod`/`cumulative_*`: the requested one, else the
/// standard's default (small signed integers widen to int64, unsigned to uint64, bool
/// to int64; floats keep their dtype).
fn sum_dtype(x: DType, requested: Option<DType>) -> DType {
    requested.unwrap_or(match x {
        DType::Bool | DType::I8 | DType::I16 | DType::I32 | DType::I64 => DType::I64,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => DType::U64,
        d => d,
    })
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, keepdims = false))]
fn sum(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Array> {
    let d = data_of(x, "sum")?;
    let axes = parse_axes(axis, d.ndim())?;
    let dt = sum_dtype(d.dtype(), parse_dtype(dtype)?);
    let d = d.astype(dt);
    let all = axes.len() == d.ndim() && !keepdims;
    let out = py.detach(|| -> PyResult<Data> {
        Ok(each_num!(&d, t => if all { Tensor::scalar(t.sum()).into_data() } else { t.sum_axes(&axes, keepdims).py()?.into_data() },
            _ => return Err(dtype_error("sum", dt))))
    })?;
    Ok(out.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, keepdims = false))]
fn prod(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Array> {
    let d = data_of(x, "prod")?;
    let axes = parse_axes(axis, d.ndim())?;
    let dt = sum_dtype(d.dtype(), parse_dtype(dtype)?);
    let d = d.astype(dt);
    let out = py.detach(|| -> PyResult<Data> {
        Ok(each_num!(&d, t => t.prod_axes(&axes, keepdims).py()?.into_data(), _ => return Err(dtype_error("prod", dt))))
    })?;
    Ok(out.into())
}

/// The number of elements reduced over `axes`.
fn reduced_count(shape: &[usize], axes: &[isize]) -> usize {
    axes.iter().map(|&a| shape[a as usize]).product()
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
fn mean(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Array> {
    let d = data_of(x, "mean")?;
    let axes = parse_axes(axis, d.ndim())?;
    let dt = d.dtype();
    if !dt.is_float() {
        return Err(dtype_error("mean", dt));
    }
    let n = reduced_count(d.shape(), &axes);
    let out = py.detach(|| -> PyResult<Data> {
        Ok(match &d {
            Data::F32(t) => t.mean_axes(&axes, keepdims).py()?.into_data(),
            Data::F64(t) => t.mean_axes(&axes, keepdims).py()?.into_data(),
            // complex: the sum divided by the count (NaN for an empty reduction)
            Data::C64(t) => {
                let s = t.sum_axes(&axes, keepdims).py()?;
                (&s / num_complex::Complex::new(n as f32, 0.0)).into_data()
            }
            Data::C128(t) => {
                let s = t.sum_axes(&axes, keepdims).py()?;
                (&s / num_complex::Complex::new(n as f64, 0.0)).into_data()
            }
            _ => return Err(dtype_error("mean", dt)),
        })
    })?;
    Ok(out.into())
}

/// The `correction` argument as a whole number of degrees of freedom (the crate's
/// `ddof`), with the factor that rescales the `ddof = 0` variance for a fractional one.
fn ddof(correction: f64) -> PyResult<(usize, Option<f64>)> {
    if !correction.is_finite() || correction < 0.0 {
        return Err(PyValueError::new_err(format!(
            "correction must be a finite number >= 0, got {correction}"
        )));
    }
    if correction.fract() == 0.0 {
        Ok((correction as usize, None))
    } else {
        Ok((0, Some(correction)))
    }
}

fn moments(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    correction: f64,
    keepdims: bool,
    std: bool,
) -> PyResult<Array> {
    let op = if std { "std" } else { "var" };
    let d = data_of(x, op)?;
    let axes = parse_axes(axis, d.ndim())?;
    let (dd, frac) = ddof(correction)?;
    let n = reduced_count(d.shape(), &axes) as f64;
    let out = py.detach(|| -> PyResult<Data> {
        Ok(each_float!(&d, t => {
            match frac {
                None if std => t.std_axes(&axes, keepdims, dd).py()?.into_data(),
                None => t.var_axes(&axes, keepdims, dd).py()?.into_data(),
                Some(c) => {
                    // var with a fractional correction c: var(ddof = 0) · n / (n − c)
                    let v = t.var_axes(&axes, keepdims, 0).py()?;
                    let v = scaled(&v, n / (n - c));
                    if std { v.sqrt().into_data() } else { v.into_data() }
                }
            }
        }, _ => return Err(dtype_error(op, d.dtype()))))
    })?;
    Ok(out.into())
}

fn scaled<T: ferrotensor::Float>(v: &Tensor<T, IxDyn>, s: f64) -> Tensor<T, IxDyn> {
    v * <T as ferrotensor::Num>::from_f64(s)
}

#[pyfunction(name = "std")]
#[pyo3(signature = (x, /, *, axis = None, correction = 0.0, keepdims = false))]
fn std_(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    correction: f64,
    keepdims: bool,
) -> PyResult<Array> {
    moments(py, x, axis, correction, keepdims, true)
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, correction = 0.0, keepdims = false))]
fn var(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    correction: f64,
    keepdims: bool,
) -> PyResult<Array> {
    moments(py, x, axis, correction, keepdims, false)
}

fn extremum(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    is_max: bool,
) -> PyResult<Array> {
    let op = if is_max { "max" } else { "min" };
    let d = data_of(x, op)?;
    let axes = parse_axes(axis, d.ndim())?;
    let out = py.detach(|| -> PyResult<Data> {
        Ok(match &d {
            Data::Bool(t) => {
                if is_max { t.max_axes(&axes, keepdims) } else { t.min_axes(&axes, keepdims) }.py()?.into_data()
            }
            d => each_real!(d, t => if is_max { t.max_axes(&axes, keepdims) } else { t.min_axes(&axes, keepdims) }.py()?.into_data(),
                _ => return Err(dtype_error(op, d.dtype()))),
        })
    })?;
    Ok(out.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
fn max(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Array> {
    extremum(py, x, axis, keepdims, true)
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
fn min(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Array> {
    extremum(py, x, axis, keepdims, false)
}

/// The one axis of a cumulative function (`None` only for 1-D input).
fn scan_axis(axis: Option<isize>, ndim: usize, op: &str) -> PyResult<isize> {
    match axis {
        Some(a) => Ok(a),
        None if ndim == 1 => Ok(0),
        None => Err(PyValueError::new_err(format!(
            "{op}: axis is required for arrays of {ndim} dimensions"
        ))),
    }
}

fn cumulative(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    dtype: Option<&Bound<'_, PyAny>>,
    include_initial: bool,
    product: bool,
) -> PyResult<Array> {
    let op = if product {
        "cumulative_prod"
    } else {
        "cumulative_sum"
    };
    let d = data_of(x, op)?;
    if d.ndim() == 0 {
        return Err(PyValueError::new_err(format!("{op}: 0-d input")));
    }
    let ax = scan_axis(axis, d.ndim(), op)?;
    let dt = sum_dtype(d.dtype(), parse_dtype(dtype)?);
    let d = d.astype(dt);
    let out = each_num!(&d, t => {
        let c = if product { t.cumprod(ax) } else { t.cumsum(ax) }.py()?;
        if include_initial {
            let mut shape = c.shape().to_vec();
            let a = if ax < 0 { ax + shape.len() as isize } else { ax } as usize;
            shape[a] = 1;
            let init = Tensor::<_, IxDyn>::full(shape, if product { ferrotensor::Num::from_usize(1) } else { ferrotensor::Num::from_usize(0) });
            ferrotensor::manip::concatenate(&[&init.view(), &c.view()], ax).py()?.into_data()
        } else {
            c.into_data()
        }
    }, _ => return Err(dtype_error(op, dt)));
    Ok(out.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, include_initial = false))]
fn cumulative_sum(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    dtype: Option<&Bound<'_, PyAny>>,
    include_initial: bool,
) -> PyResult<Array> {
    cumulative(x, axis, dtype, include_initial, false)
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, include_initial = false))]
fn cumulative_prod(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    dtype: Option<&Bound<'_, PyAny>>,
    include_initial: bool,
) -> PyResult<Array> {
    cumulative(x, axis, dtype, include_initial, true)
}

fn logical(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    is_all: bool,
) -> PyResult<Array> {
    let d = data_of(x, if is_all { "all" } else { "any" })?;
    let axes = parse_axes(axis, d.ndim())?;
    let out = each_all!(&d, t => if is_all { t.all_axes(&axes, keepdims) } else { t.any_axes(&axes, keepdims) }.py()?.into_data());
    Ok(out.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
fn all(x: &Bound<'_, PyAny>, axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Array> {
    logical(x, axis, keepdims, true)
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
fn any(x: &Bound<'_, PyAny>, axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Array> {
    logical(x, axis, keepdims, false)
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
fn count_nonzero(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Array> {
    let d = data_of(x, "count_nonzero")?;
    let axes = parse_axes(axis, d.ndim())?;
    let out = each_all!(&d, t => t.count_nonzero_axes(&axes, keepdims).py()?);
    Ok(out.into_data().astype(DType::I64).into())
}

fn arg_extremum(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    keepdims: bool,
    is_max: bool,
) -> PyResult<Array> {
    let op = if is_max { "argmax" } else { "argmin" };
    let d = data_of(x, op)?;
    if d.size() == 0 {
        return Err(PyValueError::new_err(format!("{op}: empty array")));
    }
    if matches!(d, Data::C64(_) | Data::C128(_)) {
        return Err(PyTypeError::new_err(format!(
            "{op}: complex arrays have no order"
        )));
    }
    let out = match axis {
        Some(a) => {
            crate::match_data!(&d; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64;
                t => {
                    let r = if is_max { t.argmax_axis(a) } else { t.argmin_axis(a) }.py()?;
                    // keepdims: the reduced axis back as length 1
                    if keepdims { r.unsqueeze(a).py()?.to_owned().into_data() } else { r.into_data() }
                };
                _ => unreachable!())
        }
        None => {
            let i = crate::match_data!(&d; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64;
                t => if is_max { t.argmax() } else { t.argmin() }.py()?;
                _ => unreachable!());
            let shape = if keepdims {
                vec![1; d.ndim()]
            } else {
                Vec::new()
            };
            Tensor::<usize, IxDyn>::from_vec(vec![i], shape)
                .py()?
                .into_data()
        }
    };
    Ok(out.astype(DType::I64).into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
fn argmax(x: &Bound<'_, PyAny>, axis: Option<isize>, keepdims: bool) -> PyResult<Array> {
    arg_extremum(x, axis, keepdims, true)
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
fn argmin(x: &Bound<'_, PyAny>, axis: Option<isize>, keepdims: bool) -> PyResult<Array> {
    arg_extremum(x, axis, keepdims, false)
}

/// Registers the reductions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sum, m)?)?;
    m.add_function(wrap_pyfunction!(prod, m)?)?;
    m.add_function(wrap_pyfunction!(mean, m)?)?;
    m.add_function(wrap_pyfunction!(std_, m)?)?;
    m.add_function(wrap_pyfunction!(var, m)?)?;
    m.add_function(wrap_pyfunction!(max, m)?)?;
    m.add_function(wrap_pyfunction!(min, m)?)?;
    m.add_function(wrap_pyfunction!(cumulative_sum, m)?)?;
    m.add_function(wrap_pyfunction!(cumulative_prod, m)?)?;
    m.add_function(wrap_pyfunction!(all, m)?)?;
    m.add_function(wrap_pyfunction!(any, m)?)?;
    m.add_function(wrap_pyfunction!(count_nonzero, m)?)?;
    m.add_function(wrap_pyfunction!(argmax, m)?)?;
    m.add_function(wrap_pyfunction!(argmin, m)?)?;
    Ok(())
}
