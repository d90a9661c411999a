//! Searching (`where`, `nonzero`, `searchsorted`), sorting (`sort`, `argsort`), set
//! functions (`unique_*`) and `diff`.

use crate::array::{Array, data_of};
use crate::data::{Data, IntoData};
use crate::elementwise::{Bin, binary};
use crate::errors::{OrPy, dtype_error};
use crate::scalar::pair_args;
use crate::{match_data, pair_same};
use ferrotensor::Tensor;
use ferrotensor::io::DType;
use ferrotensor::manip::Side;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Sortable dtypes: every one but the complex types.
macro_rules! each_sortable {
    ($d:expr, $t:ident => $body:expr, $o:pat => $other:expr) => {
        match_data!($d; Bool | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F32 | F64; $t => $body; $o => $other)
    };
}

#[pyfunction]
#[pyo3(name = "where", signature = (condition, x1, x2, /))]
fn where_(
    condition: &Bound<'_, PyAny>,
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
) -> PyResult<Array> {
    let c = data_of(condition, "where")?.astype(DType::Bool);
    let (a, b) = pair_args("where", x1, x2)?;
    let dt = a.dtype().promote(b.dtype());
    let (a, b) = (a.astype(dt), b.astype(dt));
    let Data::Bool(c) = c else { unreachable!() };
    Ok(pair_same!(&a, &b, x, y => ferrotensor::where_(&c, x, y).py()?.into_data()).into())
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn nonzero<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let d = data_of(x, "nonzero")?;
    if d.ndim() == 0 {
        return Err(PyValueError::new_err("nonzero: 0-d arrays are not allowed"));
    }
    let idx = crate::each_all!(&d, t => t.nonzero().py()?);
    let arrays: Vec<Array> = idx
        .into_iter()
        .map(|t| t.into_data().astype(DType::I64).into())
        .collect();
    PyTuple::new(py, arrays)
}

#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, side = "left", sorter = None))]
fn searchsorted(
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    side: &str,
    sorter: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let a = data_of(x1, "searchsorted")?;
    let side = match side {
        "left" => Side::Left,
        "right" => Side::Right,
        _ => {
            return Err(PyValueError::new_err(format!(
                "searchsorted: side must be 'left' or 'right', not {side:?}"
            )));
        }
    };
    if a.ndim() != 1 {
        return Err(PyValueError::new_err("searchsorted: x1 must be 1-D"));
    }
    let a = match sorter {
        Some(s) if !s.is_none() => {
            let idx = data_of(s, "searchsorted")?;
            let take = x1.py().import("ferrotensor")?.getattr("take")?;
            data_of(&take.call1((x1, Array::from(idx)))?, "searchsorted")?
        }
        _ => a,
    };
    let (a, v) = pair_args(
        "searchsorted",
        &Array::from(a).into_pyobject(x1.py())?.into_any(),
        x2,
    )?;
    let dt = a.dtype().promote(v.dtype());
    let (a, v) = (a.astype(dt), v.astype(dt));
    let out = crate::pair_of!(&a, &v; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64;
        s, q => s.searchsorted(q, side).py()?.into_data();
        return Err(dtype_error("searchsorted", dt)));
    Ok(out.astype(DType::I64).into())
}

/// Indices that sort `x` along `axis`, stable; descending keeps ties in input order.
fn argsort_data(x: &Data, axis: isize, descending: bool) -> PyResult<Data> {
    if x.ndim() == 0 {
        return Err(PyValueError::new_err("argsort: 0-d arrays are not allowed"));
    }
    if !descending {
        return Ok(
            each_sortable!(x, t => t.argsort(axis).py()?.into_data(), _ => return Err(dtype_error("argsort", x.dtype()))),
        );
    }
    // stable descending: sort the reversed axis ascending, then reverse back, mapping
    // positions i of the reversed axis to n - 1 - i
    let ax = normalize(axis, x.ndim())?;
    let n = x.shape()[ax];
    let flip_items = flip_items(x.ndim(), ax);
    let rev = crate::manip::slice(x, &flip_items)?;
    let asc = each_sortable!(&rev, t => t.argsort(axis).py()?, _ => return Err(dtype_error("argsort", x.dtype())));
    let back = crate::manip::slice(&asc.into_data(), &flip_items)?;
    let back = back.astype(DType::I64);
    let last = Tensor::scalar((n as i64) - 1).into_data();
    binary(Bin::Sub, &last, &back)
}

fn normalize(axis: isize, ndim: usize) -> PyResult<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(PyValueError::new_err(format!(
            "axis {axis} is out of bounds for an array of dimension {ndim}"
        )));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

fn flip_items(ndim: usize, ax: usize) -> Vec<ferrotensor::SliceItem> {
    (0..ndim)
        .map(|i| ferrotensor::SliceItem::Range {
            start: None,
            stop: None,
            step: if i == ax { -1 } else { 1 },
        })
        .collect()
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = -1, descending = false, stable = true))]
fn argsort(x: &Bound<'_, PyAny>, axis: isize, descending: bool, stable: bool) -> PyResult<Array> {
    let _ = stable; // the crate's sorts are always stable
    let d = data_of(x, "argsort")?;
    Ok(argsort_data(&d, axis, descending)?
        .astype(DType::I64)
        .into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = -1, descending = false, stable = true))]
fn sort(x: &Bound<'_, PyAny>, axis: isize, descending: bool, stable: bool) -> PyResult<Array> {
    let _ = stable;
    let d = data_of(x, "sort")?;
    if d.ndim() == 0 {
        return Err(PyValueError::new_err("sort: 0-d arrays are not allowed"));
    }
    let asc = each_sortable!(&d, t => t.sort(axis).py()?.into_data(), _ => return Err(dtype_error("sort", d.dtype())));
    if descending {
        let ax = normalize(axis, d.ndim())?;
        return Ok(crate::manip::slice(&asc, &flip_items(d.ndim(), ax))?.into());
    }
    Ok(asc.into())
}

/// The crate's `unique` of `x` (values, first indices, inverse, counts).
fn unique_parts(x: &Data) -> PyResult<(Data, Data, Data, Data)> {
    macro_rules! parts {
        ($u:expr) => {{
            let u = $u;
            (
                u.values.into_data(),
                u.indices.into_data(),
                u.inverse.into_data(),
                u.counts.into_data(),
            )
        }};
    }
    Ok(match x {
        Data::C64(t) => parts!(t.unique_complex()),
        Data::C128(t) => parts!(t.unique_complex()),
        x => {
            each_sortable!(x, t => parts!(t.unique_nan_distinct()), _ => return Err(dtype_error("unique", x.dtype())))
        }
    })
}

fn namedtuple<'py>(
    py: Python<'py>,
    name: &str,
    fields: &[&str],
    values: Vec<Data>,
) -> PyResult<Bound<'py, PyAny>> {
    let nt = py.import("collections")?.getattr("namedtuple")?;
    let cls = nt.call1((name, fields.to_vec()))?;
    let items: Vec<Array> = values.into_iter().map(Array::from).collect();
    cls.call1(PyTuple::new(py, items)?)
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn unique_all<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let d = data_of(x, "unique_all")?;
    let (v, i, inv, c) = unique_parts(&d)?;
    namedtuple(
        py,
        "UniqueAllResult",
        &["values", "indices", "inverse_indices", "counts"],
        vec![v, i, inv, c],
    )
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn unique_counts<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let d = data_of(x, "unique_counts")?;
    let (v, _, _, c) = unique_parts(&d)?;
    namedtuple(py, "UniqueCountsResult", &["values", "counts"], vec![v, c])
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn unique_inverse<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let d = data_of(x, "unique_inverse")?;
    let (v, _, inv, _) = unique_parts(&d)?;
    namedtuple(
        py,
        "UniqueInverseResult",
        &["values", "inverse_indices"],
        vec![v, inv],
    )
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn unique_values(x: &Bound<'_, PyAny>) -> PyResult<Array> {
    let d = data_of(x, "unique_values")?;
    Ok(unique_parts(&d)?.0.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = -1, n = 1, prepend = None, append = None))]
fn diff(
    x: &Bound<'_, PyAny>,
    axis: isize,
    n: usize,
    prepend: Option<&Bound<'_, PyAny>>,
    append: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let mut d = data_of(x, "diff")?;
    if d.ndim() == 0 {
        return Err(PyValueError::new_err("diff: 0-d arrays are not allowed"));
    }
    if prepend.is_some_and(|p| !p.is_none()) || append.is_some_and(|a| !a.is_none()) {
        let concat = x.py().import("ferrotensor")?.getattr("concat")?;
        let mut parts: Vec<Bound<'_, PyAny>> = Vec::new();
        if let Some(p) = prepend.filter(|p| !p.is_none()) {
            parts.push(p.clone());
        }
        parts.push(x.clone());
        if let Some(a) = append.filter(|a| !a.is_none()) {
            parts.push(a.clone());
        }
        let kwargs = pyo3::types::PyDict::new(x.py());
        kwargs.set_item("axis", axis)?;
        d = data_of(&concat.call((parts,), Some(&kwargs))?, "diff")?;
    }
    let out = match &d {
        Data::Bool(t) => {
            // NumPy: the difference of booleans is their inequality
            let mut cur = t.to_owned();
            for _ in 0..n {
                let ax = normalize(axis, cur.ndim())?;
                let len = cur.shape()[ax];
                if len == 0 {
                    break;
                }
                let mut hi = flip_items(cur.ndim(), ax);
                let mut lo = hi.clone();
                hi[ax] = ferrotensor::SliceItem::Range {
                    start: Some(1),
                    stop: None,
                    step: 1,
                };
                lo[ax] = ferrotensor::SliceItem::Range {
                    start: None,
                    stop: Some(len as isize - 1),
                    step: 1,
                };
                cur = cur
                    .try_slice(&hi)
                    .py()?
                    .ne(&cur.try_slice(&lo).py()?)
                    .py()?;
            }
            cur.into_data()
        }
        d => {
            crate::each_num!(d, t => t.diff(n, axis).py()?.into_data(), _ => return Err(dtype_error("diff", d.dtype())))
        }
    };
    Ok(out.into())
}

/// Registers the searching, sorting, set and utility functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(where_, m)?)?;
    m.add_function(wrap_pyfunction!(nonzero, m)?)?;
    m.add_function(wrap_pyfunction!(searchsorted, m)?)?;
    m.add_function(wrap_pyfunction!(argsort, m)?)?;
    m.add_function(wrap_pyfunction!(sort, m)?)?;
    m.add_function(wrap_pyfunction!(unique_all, m)?)?;
    m.add_function(wrap_pyfunction!(unique_counts, m)?)?;
    m.add_function(wrap_pyfunction!(unique_inverse, m)?)?;
    m.add_function(wrap_pyfunction!(unique_values, m)?)?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    Ok(())
}
