//! Manipulation and indexing functions. Views (`permute_dims`, `expand_dims`,
//! `squeeze`, `flip`, `moveaxis`, `broadcast_to`, `unstack`, `reshape` when the layout
//! allows) share memory with their input; `concat`, `stack`, `tile`, `repeat`, `roll`,
//! `take`, `take_along_axis` copy.

use crate::array::{Array, data_of};
use crate::data::{Data, Elem, IntoData, ViewFn};
use crate::errors::OrPy;
use crate::stats::parse_axes;
use crate::{each_all, each_int, with_type};
use ferrotensor::io::DType;
use ferrotensor::{IxDyn, SliceItem, TensorView};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// A view operation given by a closure over `IxDyn` views of any element type.
macro_rules! view_fn {
    ($name:ident { $($field:ident: $ty:ty),* } |$s:ident, $v:ident| $body:expr) => {
        struct $name<'k> { $($field: $ty,)* _k: std::marker::PhantomData<&'k ()> }
        impl ViewFn for $name<'_> {
            fn apply<'a, T: ferrotensor::Element>(&self, $v: TensorView<'a, T, IxDyn>) -> ferrotensor::Result<TensorView<'a, T, IxDyn>> {
                let $s = self;
                $body
            }
        }
    };
}

view_fn!(Permute { axes: &'k [isize] } |s, v| v.permute(s.axes));
view_fn!(Slice { items: &'k [SliceItem] } |s, v| v.try_slice(s.items));
view_fn!(Broadcast { shape: &'k [usize] } |s, v| v.broadcast_to(s.shape.to_vec()));
view_fn!(ReshapeView { shape: &'k [usize] } |s, v| v.reshape_view(s.shape.to_vec()));
view_fn!(SqueezeAxes { axes: &'k [isize] } |s, v| v.squeeze_axes(s.axes));

/// The axes of `x` in the order `axes` (a view).
pub fn permute(x: &Data, axes: &[isize]) -> PyResult<Data> {
    x.share(&Permute {
        axes,
        _k: Default::default(),
    })
    .py()
}

/// Basic slicing (a view).
pub fn slice(x: &Data, items: &[SliceItem]) -> PyResult<Data> {
    x.share(&Slice {
        items,
        _k: Default::default(),
    })
    .py()
}

/// `x` broadcast to `shape` (a view).
pub fn broadcast(x: &Data, shape: &[usize]) -> PyResult<Data> {
    x.share(&Broadcast {
        shape,
        _k: Default::default(),
    })
    .py()
}

/// `x` with a trailing axis of length 1 (a view).
pub fn expand_last(x: &Data) -> PyResult<Data> {
    let mut items = vec![SliceItem::Ellipsis];
    items.push(SliceItem::NewAxis);
    slice(x, &items)
}

/// The arrays (of one dtype) stacked along a new `axis`.
pub fn stack_data(ds: &[Data], axis: isize) -> PyResult<Data> {
    let dt = ds[0].dtype();
    Ok(
        with_type!(dt, T => ferrotensor::manip::stack(&typed::<T>(ds), axis).py()?.into_data(), unreachable!()),
    )
}

#[pyfunction]
#[pyo3(signature = (x, /, axes))]
fn permute_dims(x: &Bound<'_, PyAny>, axes: Vec<isize>) -> PyResult<Array> {
    let d = data_of(x, "permute_dims")?;
    if axes.len() != d.ndim() {
        return Err(PyValueError::new_err(format!(
            "permute_dims: {} axes for an array of {} dimensions",
            axes.len(),
            d.ndim()
        )));
    }
    Ok(permute(&d, &axes)?.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, shape))]
fn broadcast_to(x: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>) -> PyResult<Array> {
    let d = data_of(x, "broadcast_to")?;
    let shape = crate::creation::parse_shape(shape)?;
    Ok(broadcast(&d, &shape)?.into())
}

#[pyfunction]
#[pyo3(signature = (*arrays))]
fn broadcast_arrays(arrays: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<Array>> {
    let ds: Vec<Data> = arrays
        .iter()
        .map(|a| data_of(a, "broadcast_arrays"))
        .collect::<PyResult<_>>()?;
    let mut shape: Vec<usize> = Vec::new();
    for d in &ds {
        shape =
            ferrotensor::layout::transform::broadcast_shapes(&shape, d.shape(), "broadcast_arrays")
                .py()?
                .to_vec();
    }
    ds.iter()
        .map(|d| Ok(broadcast(d, &shape)?.into()))
        .collect()
}

#[pyfunction]
#[pyo3(signature = (x, /, axis = None))]
fn expand_dims(x: &Bound<'_, PyAny>, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let d = data_of(x, "expand_dims")?;
    let axes: Vec<isize> = match axis {
        None => vec![0],
        Some(a) => match a.extract::<isize>() {
            Ok(i) => vec![i],
            Err(_) => a.extract()?,
        },
    };
    let n = (d.ndim() + axes.len()) as isize;
    let mut norm: Vec<usize> = Vec::with_capacity(axes.len());
    for &a in &axes {
        if a < -n || a >= n {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "expand_dims: axis {a} is out of bounds for the result of {n} dimensions"
            )));
        }
        let a = if a < 0 { a + n } else { a } as usize;
        if norm.contains(&a) {
            return Err(PyValueError::new_err(format!(
                "expand_dims: repeated axis {a}"
            )));
        }
        norm.push(a);
    }
    let mut items = Vec::with_capacity(n as usize);
    let mut k = 0;
    for i in 0..n as usize {
        if norm.contains(&i) {
            items.push(SliceItem::NewAxis);
        } else {
            items.push(SliceItem::Range {
                start: None,
                stop: None,
                step: 1,
            });
            k += 1;
        }
    }
    debug_assert_eq!(k, d.ndim());
    Ok(slice(&d, &items)?.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, axis))]
fn squeeze(x: &Bound<'_, PyAny>, axis: &Bound<'_, PyAny>) -> PyResult<Array> {
    let d = data_of(x, "squeeze")?;
    let axes = parse_axes(Some(axis), d.ndim())?;
    for &a in &axes {
        if d.shape()[a as usize] != 1 {
            return Err(PyValueError::new_err(format!(
                "squeeze: axis {a} has length {}, not 1",
                d.shape()[a as usize]
            )));
        }
    }
    Ok(d.share(&SqueezeAxes {
        axes: &axes,
        _k: Default::default(),
    })
    .py()?
    .into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None))]
fn flip(x: &Bound<'_, PyAny>, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let d = data_of(x, "flip")?;
    let axes = parse_axes(axis, d.ndim())?;
    let items: Vec<SliceItem> = (0..d.ndim() as isize)
        .map(|i| SliceItem::Range {
            start: None,
            stop: None,
            step: if axes.contains(&i) { -1 } else { 1 },
        })
        .collect();
    Ok(slice(&d, &items)?.into())
}

#[pyfunction]
#[pyo3(signature = (x, source, destination, /))]
fn moveaxis(
    x: &Bound<'_, PyAny>,
    source: &Bound<'_, PyAny>,
    destination: &Bound<'_, PyAny>,
) -> PyResult<Array> {
    let d = data_of(x, "moveaxis")?;
    let n = d.ndim();
    let src = parse_axes(Some(source), n)?;
    let dst = parse_axes(Some(destination), n)?;
    if src.len() != dst.len() {
        return Err(PyValueError::new_err(
            "moveaxis: source and destination must have the same number of axes",
        ));
    }
    // NumPy's rule: the axes not moved keep their order in the remaining slots
    let mut order: Vec<isize> = (0..n as isize).filter(|a| !src.contains(a)).collect();
    let mut pairs: Vec<(isize, isize)> = dst.iter().copied().zip(src.iter().copied()).collect();
    pairs.sort();
    for (dpos, s) in pairs {
        order.insert(dpos as usize, s);
    }
    Ok(permute(&d, &order)?.into())
}

/// `reshape(x, /, shape, *, copy=None)`: a view when the layout allows, else a copy
/// (`copy=False` then raises); `copy=True` always copies.
#[pyfunction]
#[pyo3(signature = (x, /, shape, *, copy = None))]
fn reshape(x: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>, copy: Option<bool>) -> PyResult<Array> {
    let d = data_of(x, "reshape")?;
    let raw: Vec<isize> = match shape.extract::<isize>() {
        Ok(n) => vec![n],
        Err(_) => shape.extract()?,
    };
    let target = infer_shape(&raw, d.size())?;
    if copy == Some(true) {
        return Ok(d
            .copy()
            .share(&ReshapeView {
                shape: &target,
                _k: Default::default(),
            })
            .py()?
            .into());
    }
    match d.share(&ReshapeView {
        shape: &target,
        _k: Default::default(),
    }) {
        Ok(v) => Ok(v.into()),
        Err(_) if copy == Some(false) => Err(PyValueError::new_err(
            "reshape: copy=False, but this reshape needs a copy",
        )),
        Err(_) => Ok(d
            .copy()
            .share(&ReshapeView {
                shape: &target,
                _k: Default::default(),
            })
            .py()?
            .into()),
    }
}

fn infer_shape(raw: &[isize], size: usize) -> PyResult<Vec<usize>> {
    let unknown = raw.iter().filter(|&&s| s == -1).count();
    if unknown > 1 || raw.iter().any(|&s| s < -1) {
        return Err(PyValueError::new_err(format!(
            "reshape: invalid shape {raw:?}"
        )));
    }
    let known: usize = raw
        .iter()
        .filter(|&&s| s != -1)
        .map(|&s| s as usize)
        .product();
    let out: Vec<usize> = raw
        .iter()
        .map(|&s| {
            if s == -1 {
                size.checked_div(known).ok_or_else(|| {
                    PyValueError::new_err("reshape: cannot infer -1 with a zero-size dimension")
                })
            } else {
                Ok(s as usize)
            }
        })
        .collect::<PyResult<_>>()?;
    if out.iter().product::<usize>() != size {
        return Err(PyValueError::new_err(format!(
            "reshape: cannot reshape an array of size {size} into shape {raw:?}"
        )));
    }
    Ok(out)
}

/// The arrays of a sequence argument, promoted to one dtype.
fn promoted_list(arrays: &Bound<'_, PyAny>, op: &str) -> PyResult<(Vec<Data>, DType)> {
    let ds: Vec<Data> = arrays
        .try_iter()?
        .map(|a| data_of(&a?, op))
        .collect::<PyResult<_>>()?;
    if ds.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{op}: needs at least one array"
        )));
    }
    let dt = ds
        .iter()
        .skip(1)
        .fold(ds[0].dtype(), |a, d| a.promote(d.dtype()));
    Ok((ds.iter().map(|d| d.astype(dt)).collect(), dt))
}

fn typed<T: Elem>(ds: &[Data]) -> Vec<&dyn ferrotensor::manip::AsView<T, IxDyn>> {
    ds.iter()
        .map(|d| {
            T::peel(d).expect("promoted to one dtype") as &dyn ferrotensor::manip::AsView<T, IxDyn>
        })
        .collect()
}

#[pyfunction]
#[pyo3(signature = (arrays, /, *, axis = Some(0)))]
fn concat(arrays: &Bound<'_, PyAny>, axis: Option<isize>) -> PyResult<Array> {
    let (ds, dt) = promoted_list(arrays, "concat")?;
    let (ds, ax) = match axis {
        Some(a) => (ds, a),
        None => {
            let flat: Vec<Data> = ds.iter().map(reshape_flat).collect::<PyResult<_>>()?;
            (flat, 0)
        }
    };
    if ds.iter().any(|d| d.ndim() == 0) {
        return Err(PyValueError::new_err(
            "concat: 0-d arrays cannot be concatenated",
        ));
    }
    Ok(with_type!(dt, T => ferrotensor::manip::concatenate(&typed::<T>(&ds), ax).py()?.into_data(), unreachable!()).into())
}

fn reshape_flat(d: &Data) -> PyResult<Data> {
    reshape_data(d, &[d.size()])
}

/// `d` in shape `n` (of the same size): a view when the layout allows, else a copy.
pub fn reshape_data(d: &Data, n: &[usize]) -> PyResult<Data> {
    match d.share(&ReshapeView {
        shape: n,
        _k: Default::default(),
    }) {
        Ok(v) => Ok(v),
        Err(_) => d
            .copy()
            .share(&ReshapeView {
                shape: n,
                _k: Default::default(),
            })
            .py(),
    }
}

#[pyfunction]
#[pyo3(signature = (arrays, /, *, axis = 0))]
fn stack(arrays: &Bound<'_, PyAny>, axis: isize) -> PyResult<Array> {
    let (ds, dt) = promoted_list(arrays, "stack")?;
    Ok(with_type!(dt, T => ferrotensor::manip::stack(&typed::<T>(&ds), axis).py()?.into_data(), unreachable!()).into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = 0))]
fn unstack<'py>(x: &Bound<'py, PyAny>, axis: isize) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let d = data_of(x, "unstack")?;
    let ax = parse_axes(Some(&axis.into_pyobject(x.py())?.into_any()), d.ndim())?[0] as usize;
    let parts: Vec<Array> = (0..d.shape()[ax])
        .map(|i| {
            let mut items = vec![
                SliceItem::Range {
                    start: None,
                    stop: None,
                    step: 1
                };
                d.ndim()
            ];
            items[ax] = SliceItem::Index(i as isize);
            Ok(slice(&d, &items)?.into())
        })
        .collect::<PyResult<_>>()?;
    pyo3::types::PyTuple::new(x.py(), parts)
}

#[pyfunction]
#[pyo3(signature = (x, repetitions, /))]
fn tile(x: &Bound<'_, PyAny>, repetitions: Vec<usize>) -> PyResult<Array> {
    let d = data_of(x, "tile")?;
    Ok(each_all!(&d, t => t.tile(&repetitions).py()?.into_data()).into())
}

#[pyfunction]
#[pyo3(signature = (x, repeats, /, *, axis = None))]
fn repeat(
    x: &Bound<'_, PyAny>,
    repeats: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<Array> {
    let d = data_of(x, "repeat")?;
    let reps: Vec<usize> = if let Ok(n) = repeats.extract::<i64>() {
        vec![usize::try_from(n).map_err(|_| PyValueError::new_err("repeat: negative repeats"))?]
    } else {
        let r = data_of(repeats, "repeat")?;
        if !r.dtype().is_int() {
            return Err(PyTypeError::new_err("repeat: repeats must be integers"));
        }
        r.astype(DType::I64)
            .wide_values()
            .into_iter()
            .map(|w| match w {
                ferrotensor::ops::cast::Wide::Int(i) if i >= 0 => Ok(i as usize),
                _ => Err(PyValueError::new_err("repeat: negative repeats")),
            })
            .collect::<PyResult<_>>()?
    };
    Ok(each_all!(&d, t => t.repeat(&reps, axis).py()?.into_data()).into())
}

#[pyfunction]
#[pyo3(signature = (x, /, shift, *, axis = None))]
fn roll(
    x: &Bound<'_, PyAny>,
    shift: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let d = data_of(x, "roll")?;
    let shifts: Vec<isize> = match shift.extract::<isize>() {
        Ok(s) => vec![s],
        Err(_) => shift.extract()?,
    };
    let axes: Option<Vec<isize>> = match axis {
        None => None,
        Some(a) if a.is_none() => None,
        Some(a) => Some(match a.extract::<isize>() {
            Ok(i) => vec![i],
            Err(_) => a.extract()?,
        }),
    };
    let out = match axes {
        None => {
            if shifts.len() != 1 {
                return Err(PyValueError::new_err("roll: one shift without axes"));
            }
            each_all!(&d, t => t.roll(shifts[0], None).py()?.into_data())
        }
        Some(axes) => {
            let shifts = if shifts.len() == 1 {
                vec![shifts[0]; axes.len()]
            } else {
                shifts
            };
            if shifts.len() != axes.len() {
                return Err(PyValueError::new_err(
                    "roll: shift and axis must have the same length",
                ));
            }
            let mut cur = d;
            for (s, a) in shifts.iter().zip(&axes) {
                cur = each_all!(&cur, t => t.roll(*s, Some(*a)).py()?.into_data());
            }
            cur
        }
    };
    Ok(out.into())
}

/// Index values of an integer array as `isize`.
fn index_values(idx: &Data, op: &str) -> PyResult<Vec<isize>> {
    if !idx.dtype().is_int() {
        return Err(PyTypeError::new_err(format!(
            "{op}: indices must be integers, not {}",
            idx.dtype()
        )));
    }
    Ok(each_int!(idx, t => t.iter().map(|&i| i as isize).collect(), _ => unreachable!()))
}

#[pyfunction]
#[pyo3(signature = (x, indices, /, *, axis = None))]
fn take(x: &Bound<'_, PyAny>, indices: &Bound<'_, PyAny>, axis: Option<isize>) -> PyResult<Array> {
    let d = data_of(x, "take")?;
    let i = data_of(indices, "take")?;
    if i.ndim() != 1 {
        return Err(PyValueError::new_err("take: indices must be 1-D"));
    }
    let ax = match axis {
        Some(a) => a,
        None if d.ndim() == 1 => 0,
        None => {
            return Err(PyValueError::new_err(
                "take: axis is required for arrays of more than one dimension",
            ));
        }
    };
    let idx = index_values(&i, "take")?;
    Ok(each_all!(&d, t => t.index_select(ax, &idx).py()?.into_data()).into())
}

#[pyfunction]
#[pyo3(signature = (x, indices, /, *, axis = -1))]
fn take_along_axis(
    x: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    axis: isize,
) -> PyResult<Array> {
    let d = data_of(x, "take_along_axis")?;
    let i = data_of(indices, "take_along_axis")?;
    if !i.dtype().is_int() {
        return Err(PyTypeError::new_err(
            "take_along_axis: indices must be integers",
        ));
    }
    let Data::I64(it) = i.astype(DType::I64) else {
        unreachable!()
    };
    Ok(each_all!(&d, t => t.take_along_axis(&it, axis).py()?.into_data()).into())
}

/// Registers the manipulation functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(permute_dims, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_to, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(expand_dims, m)?)?;
    m.add_function(wrap_pyfunction!(squeeze, m)?)?;
    m.add_function(wrap_pyfunction!(flip, m)?)?;
    m.add_function(wrap_pyfunction!(moveaxis, m)?)?;
    m.add_function(wrap_pyfunction!(reshape, m)?)?;
    m.add_function(wrap_pyfunction!(concat, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    m.add_function(wrap_pyfunction!(unstack, m)?)?;
    m.add_function(wrap_pyfunction!(tile, m)?)?;
    m.add_function(wrap_pyfunction!(repeat, m)?)?;
    m.add_function(wrap_pyfunction!(roll, m)?)?;
    m.add_function(wrap_pyfunction!(take, m)?)?;
    m.add_function(wrap_pyfunction!(take_along_axis, m)?)?;
    Ok(())
}
