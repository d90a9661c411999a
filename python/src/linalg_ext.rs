//! The `linalg` extension: decompositions and solvers dispatch to the crate's `linalg`
//! (faer underneath); norms, `trace`, `diagonal`, `matrix_power`, `matrix_rank` and
//! `cross` are compositions of the crate's operations.

use crate::array::{Array, data_of};
use crate::data::{Data, IntoData, ViewFn};
use crate::elementwise::{Bin, Un, binary, unary};
use crate::errors::{OrPy, dtype_error};
use crate::stats::parse_axes;
use ferrotensor::io::DType;
use ferrotensor::linalg as la;
use ferrotensor::{IxDyn, SliceItem, TensorView};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A floating-point array for a decomposition: integers and bool become `float64`.
fn float_arg(x: &Bound<'_, PyAny>, op: &str) -> PyResult<Data> {
    let d = data_of(x, op)?;
    Ok(if d.dtype().is_float() {
        d
    } else {
        d.astype(DType::F64)
    })
}

/// `Err` unless `x` is a stack of square matrices.
fn check_square(x: &Data, op: &str) -> PyResult<()> {
    let s = x.shape();
    if s.len() < 2 || s[s.len() - 1] != s[s.len() - 2] {
        return Err(PyValueError::new_err(format!(
            "{op}: expected square matrices (..., n, n), got shape {s:?}"
        )));
    }
    Ok(())
}

/// Runs `$body` with `$t` bound to the tensor of a float `Data` (real or complex).
macro_rules! any_linalg {
    ($d:expr, $op:expr, $t:ident => $body:expr) => {
        crate::match_data!($d; F32 | F64 | C64 | C128; $t => $body; _ => return Err(dtype_error($op, $d.dtype())))
    };
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
#[pyo3(signature = (x, /, *, upper = false))]
fn cholesky(py: Python<'_>, x: &Bound<'_, PyAny>, upper: bool) -> PyResult<Array> {
    let d = float_arg(x, "cholesky")?;
    check_square(&d, "cholesky")?;
    let l = py.detach(|| -> PyResult<Data> {
        Ok(any_linalg!(&d, "cholesky", t => la::cholesky(t, upper).py()?.into_data()))
    })?;
    Ok(l.into())
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn det(x: &Bound<'_, PyAny>) -> PyResult<Array> {
    let d = float_arg(x, "det")?;
    check_square(&d, "det")?;
    Ok(any_linalg!(&d, "det", t => la::det(t).py()?.into_data()).into())
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn slogdet<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let d = float_arg(x, "slogdet")?;
    check_square(&d, "slogdet")?;
    let (s, l) = any_linalg!(&d, "slogdet", t => {
        let (s, l) = la::slogdet(t).py()?;
        (s.into_data(), l.into_data())
    });
    namedtuple(py, "SlogdetResult", &["sign", "logabsdet"], vec![s, l])
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn inv(x: &Bound<'_, PyAny>) -> PyResult<Array> {
    let d = float_arg(x, "inv")?;
    check_square(&d, "inv")?;
    Ok(any_linalg!(&d, "inv", t => la::inv(t).py()?.into_data()).into())
}

fn eigh_parts(x: &Bound<'_, PyAny>) -> PyResult<(Data, Data)> {
    let d = float_arg(x, "eigh")?;
    check_square(&d, "eigh")?;
    Ok(any_linalg!(&d, "eigh", t => {
        let (w, v) = la::eigh(t, la::Uplo::Lower).py()?;
        (w.into_data(), v.into_data())
    }))
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn eigh<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let (w, v) = eigh_parts(x)?;
    namedtuple(
        py,
        "EighResult",
        &["eigenvalues", "eigenvectors"],
        vec![w, v],
    )
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn eigvalsh(x: &Bound<'_, PyAny>) -> PyResult<Array> {
    Ok(eigh_parts(x)?.0.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, mode = "reduced"))]
fn qr<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, mode: &str) -> PyResult<Bound<'py, PyAny>> {
    if mode != "reduced" && mode != "complete" {
        return Err(PyValueError::new_err(format!(
            "qr: mode must be 'reduced' or 'complete', not {mode:?}"
        )));
    }
    let d = float_arg(x, "qr")?;
    if d.ndim() < 2 {
        return Err(PyValueError::new_err("qr: expected matrices (..., m, n)"));
    }
    let s = d.shape();
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    let complete = mode == "complete" && m > n;
    let (q, r) = any_linalg!(&d, "qr", t => {
        let (q, r) = if complete { la::qr_complete(t) } else { la::qr(t) }.py()?;
        (q.into_data(), r.into_data())
    });
    namedtuple(py, "QRResult", &["Q", "R"], vec![q, r])
}

fn svd_parts(d: &Data, full: bool) -> PyResult<(Data, Data, Data)> {
    if d.ndim() < 2 {
        return Err(PyValueError::new_err("svd: expected matrices (..., m, n)"));
    }
    Ok(any_linalg!(d, "svd", t => {
        let (u, s, vh) = la::svd(t, full).py()?;
        (u.into_data(), s.into_data(), vh.into_data())
    }))
}

#[pyfunction]
#[pyo3(signature = (x, /, *, full_matrices = true))]
fn svd<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    full_matrices: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let d = float_arg(x, "svd")?;
    let (u, s, vh) = py.detach(|| svd_parts(&d, full_matrices))?;
    namedtuple(py, "SVDResult", &["U", "S", "Vh"], vec![u, s, vh])
}

fn svdvals_data(d: &Data) -> PyResult<Data> {
    if d.ndim() < 2 {
        return Err(PyValueError::new_err(
            "svdvals: expected matrices (..., m, n)",
        ));
    }
    Ok(any_linalg!(d, "svdvals", t => la::svdvals(t).py()?.into_data()))
}

#[pyfunction]
#[pyo3(signature = (x, /))]
fn svdvals(x: &Bound<'_, PyAny>) -> PyResult<Array> {
    Ok(svdvals_data(&float_arg(x, "svdvals")?)?.into())
}

#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn solve(py: Python<'_>, x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> PyResult<Array> {
    let (a, b) = (float_arg(x1, "solve")?, float_arg(x2, "solve")?);
    check_square(&a, "solve")?;
    let dt = a.dtype().promote(b.dtype());
    let (a, b) = (a.astype(dt), b.astype(dt));
    let out = py.detach(|| -> PyResult<Data> {
        Ok(crate::pair_of!(&a, &b; F32|F64|C64|C128; x, y => la::solve(x, y).py()?.into_data(); return Err(dtype_error("solve", dt))))
    })?;
    Ok(out.into())
}

/// The default relative tolerance of `pinv`/`matrix_rank`: `max(M, N)·eps`.
fn default_rtol(d: &Data) -> f64 {
    let s = d.shape();
    let mn = s[s.len() - 2].max(s[s.len() - 1]) as f64;
    let eps = if matches!(d.dtype(), DType::F32 | DType::C64) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    mn * eps
}

/// `pinv` of every matrix of `d` with one relative cutoff `rc`.
fn pinv_one(d: &Data, rc: f64) -> PyResult<Data> {
    Ok(match d {
        Data::F32(t) => la::pinv(t, Some(rc as f32)).py()?.into_data(),
        Data::F64(t) => la::pinv(t, Some(rc)).py()?.into_data(),
        Data::C64(t) => la::pinv(t, Some(rc as f32)).py()?.into_data(),
        Data::C128(t) => la::pinv(t, Some(rc)).py()?.into_data(),
        _ => return Err(dtype_error("pinv", d.dtype())),
    })
}

#[pyfunction]
#[pyo3(signature = (x, /, *, rtol = None))]
fn pinv(py: Python<'_>, x: &Bound<'_, PyAny>, rtol: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let d = float_arg(x, "pinv")?;
    if d.ndim() < 2 {
        return Err(PyValueError::new_err("pinv: expected matrices (..., m, n)"));
    }
    let r = match rtol.filter(|r| !r.is_none()) {
        None => return Ok(py.detach(|| pinv_one(&d, default_rtol(&d)))?.into()),
        Some(r) if r.cast::<Array>().is_err() => {
            let rc: f64 = r.extract()?;
            return Ok(py.detach(|| pinv_one(&d, rc))?.into());
        }
        Some(r) => data_of(r, "pinv")?,
    };
    // an array rtol holds one cutoff per matrix: the crate's pinv runs matrix by matrix
    let nd = d.ndim();
    let batch = d.shape()[..nd - 2].to_vec();
    let cut = crate::manip::broadcast(&r.astype(DType::F64), &batch)?;
    let Data::F64(cut) = cut else {
        unreachable!("cast to float64")
    };
    let cut = cut.to_vec();
    if cut.is_empty() {
        return Ok(pinv_one(&d, 0.0)?.into());
    }
    let full = SliceItem::Range {
        start: None,
        stop: None,
        step: 1,
    };
    let mut outs = Vec::with_capacity(cut.len());
    for (b, &rc) in cut.iter().enumerate() {
        let mut items = vec![full; nd];
        let mut rest = b;
        for ax in (0..nd - 2).rev() {
            items[ax] = SliceItem::Index((rest % batch[ax]) as isize);
            rest /= batch[ax];
        }
        outs.push(pinv_one(&crate::manip::slice(&d, &items)?, rc)?);
    }
    let stacked = crate::manip::stack_data(&outs, 0)?;
    let mut shape = batch;
    shape.extend_from_slice(&stacked.shape()[1..]);
    Ok(crate::manip::reshape_data(&stacked, &shape)?.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, rtol = None))]
fn matrix_rank(x: &Bound<'_, PyAny>, rtol: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let d = float_arg(x, "matrix_rank")?;
    let s = svdvals_data(&d)?;
    // rank = number of singular values above rtol · the largest one
    let smax = crate::stats::reduce_max(&s, &[-1], true)?;
    let rt = match rtol.filter(|r| !r.is_none()) {
        None => crate::data::scalar_data(
            ferrotensor::ops::cast::Wide::Float(default_rtol(&d)),
            s.dtype(),
        ),
        Some(r) if r.cast::<Array>().is_err() => {
            crate::data::scalar_data(ferrotensor::ops::cast::Wide::Float(r.extract()?), s.dtype())
        }
        Some(r) => {
            let r = data_of(r, "matrix_rank")?.astype(s.dtype());
            // an array rtol applies per matrix: give it the reduced axis
            if r.ndim() > 0 {
                crate::manip::expand_last(&r)?
            } else {
                r
            }
        }
    };
    let tol = binary(Bin::Mul, &smax, &rt)?;
    let above = binary(Bin::Gt, &s, &tol)?;
    Ok(crate::stats::count_true(&above, -1)?.into())
}

struct DiagView(isize);
impl ViewFn for DiagView {
    fn apply<'a, T: ferrotensor::Element>(
        &self,
        v: TensorView<'a, T, IxDyn>,
    ) -> ferrotensor::Result<TensorView<'a, T, IxDyn>> {
        v.diagonal(self.0, -2, -1)
    }
}

fn diagonal_data(d: &Data, offset: isize) -> PyResult<Data> {
    if d.ndim() < 2 {
        return Err(PyValueError::new_err(
            "diagonal: expected matrices (..., m, n)",
        ));
    }
    d.share(&DiagView(offset)).py()
}

#[pyfunction]
#[pyo3(signature = (x, /, *, offset = 0))]
fn diagonal(x: &Bound<'_, PyAny>, offset: isize) -> PyResult<Array> {
    Ok(diagonal_data(&data_of(x, "diagonal")?, offset)?.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, offset = 0, dtype = None))]
fn trace(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    offset: isize,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let diag = Array::from(diagonal_data(&data_of(x, "trace")?, offset)?);
    let sum = py.import("ferrotensor")?.getattr("sum")?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("axis", -1)?;
    if let Some(d) = dtype {
        kwargs.set_item("dtype", d)?;
    }
    Ok(sum.call((diag,), Some(&kwargs))?.unbind())
}

#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn outer(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> PyResult<Array> {
    let (a, b) = (data_of(x1, "outer")?, data_of(x2, "outer")?);
    if a.ndim() != 1 || b.ndim() != 1 {
        return Err(PyValueError::new_err("outer: expected 1-D arrays"));
    }
    let dt = a.dtype().promote(b.dtype());
    let (a, b) = (a.astype(dt), b.astype(dt));
    Ok(
        crate::pair_of!(&a, &b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64|C64|C128;
        x, y => x.outer(y).py()?.into_data(); return Err(dtype_error("outer", dt)))
        .into(),
    )
}

#[pyfunction]
#[pyo3(signature = (x, n, /))]
fn matrix_power(py: Python<'_>, x: &Bound<'_, PyAny>, n: i64) -> PyResult<Array> {
    let d = data_of(x, "matrix_power")?;
    check_square(&d, "matrix_power")?;
    let base = if n < 0 { inv(x)?.data } else { d.clone() };
    let mut e = n.unsigned_abs();
    // identity of the input's shape and dtype
    let k = d.shape()[d.ndim() - 1];
    let eye = crate::creation::eye_data(k, base.dtype())?;
    let mut acc = crate::manip::broadcast(&eye, base.shape())?.copy();
    let mut p = base;
    while e > 0 {
        if e & 1 == 1 {
            acc = crate::linalg::matmul(py, &acc, &p)?;
        }
        e >>= 1;
        if e > 0 {
            p = crate::linalg::matmul(py, &p, &p)?;
        }
    }
    Ok(acc.into())
}

/// `|x|` in the real dtype of `x`.
fn magnitude(d: &Data) -> PyResult<Data> {
    unary(Un::Abs, d)
}

#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false, ord = None))]
fn vector_norm(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    ord: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let d = float_arg(x, "vector_norm")?;
    let axes = parse_axes(axis, d.ndim())?;
    let ord: f64 = match ord.filter(|o| !o.is_none()) {
        None => 2.0,
        Some(o) => o.extract()?,
    };
    let a = magnitude(&d)?;
    let out = if ord == f64::INFINITY {
        crate::stats::reduce_max(&a, &axes, keepdims)?
    } else if ord == f64::NEG_INFINITY {
        crate::stats::reduce_min(&a, &axes, keepdims)?
    } else if ord == 0.0 {
        let nz = binary(
            Bin::Ne,
            &a,
            &crate::data::scalar_data(ferrotensor::ops::cast::Wide::Int(0), a.dtype()),
        )?;
        crate::stats::reduce_sum(&nz.astype(a.dtype()), &axes, keepdims)?
    } else if ord == 1.0 {
        crate::stats::reduce_sum(&a, &axes, keepdims)?
    } else if ord == 2.0 {
        let sq = binary(Bin::Mul, &a, &a)?;
        unary(Un::Sqrt, &crate::stats::reduce_sum(&sq, &axes, keepdims)?)?
    } else {
        let p = crate::data::scalar_data(ferrotensor::ops::cast::Wide::Float(ord), a.dtype());
        let inv_p =
            crate::data::scalar_data(ferrotensor::ops::cast::Wide::Float(1.0 / ord), a.dtype());
        let s = crate::stats::reduce_sum(&binary(Bin::Pow, &a, &p)?, &axes, keepdims)?;
        binary(Bin::Pow, &s, &inv_p)?
    };
    Ok(out.into())
}

#[pyfunction]
#[pyo3(signature = (x, /, *, keepdims = false, ord = None))]
fn matrix_norm(
    x: &Bound<'_, PyAny>,
    keepdims: bool,
    ord: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let d = float_arg(x, "matrix_norm")?;
    if d.ndim() < 2 {
        return Err(PyValueError::new_err(
            "matrix_norm: expected matrices (..., m, n)",
        ));
    }
    let last2 = [-2isize, -1];
    let ord_s: Option<String> = ord
        .filter(|o| !o.is_none())
        .and_then(|o| o.extract::<String>().ok());
    let ord_f: Option<f64> = ord
        .filter(|o| !o.is_none())
        .and_then(|o| o.extract::<f64>().ok());
    let keep = |r: Data| -> PyResult<Data> {
        if keepdims {
            crate::manip::expand_last(&crate::manip::expand_last(&r)?)
        } else {
            Ok(r)
        }
    };
    let out = match (ord_s.as_deref(), ord_f) {
        (None, None) | (Some("fro"), _) => {
            let a = magnitude(&d)?;
            let sq = binary(Bin::Mul, &a, &a)?;
            unary(Un::Sqrt, &crate::stats::reduce_sum(&sq, &last2, keepdims)?)?
        }
        (Some("nuc"), _) => keep(crate::stats::reduce_sum(&svdvals_data(&d)?, &[-1], false)?)?,
        (_, Some(2.0)) => keep(crate::stats::reduce_max(&svdvals_data(&d)?, &[-1], false)?)?,
        (_, Some(-2.0)) => keep(crate::stats::reduce_min(&svdvals_data(&d)?, &[-1], false)?)?,
        (_, Some(o)) if o.abs() == 1.0 || o.is_infinite() => {
            // 1: the largest column sum; inf: the largest row sum (min for the negatives)
            let a = magnitude(&d)?;
            let sum_axis = if o.abs() == 1.0 { -2 } else { -1 };
            let sums = crate::stats::reduce_sum(&a, &[sum_axis], true)?;
            if o > 0.0 {
                crate::stats::reduce_max(&sums, &last2, keepdims)?
            } else {
                crate::stats::reduce_min(&sums, &last2, keepdims)?
            }
        }
        _ => {
            return Err(PyValueError::new_err(
                "matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf",
            ));
        }
    };
    Ok(out.into())
}

#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axis = -1))]
fn cross(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>, axis: isize) -> PyResult<Array> {
    let (a, b) = (data_of(x1, "cross")?, data_of(x2, "cross")?);
    let dt = a.dtype().promote(b.dtype());
    if !dt.is_numeric() {
        return Err(dtype_error("cross", dt));
    }
    let (na, nb) = (a.ndim() as isize, b.ndim() as isize);
    if axis >= 0 || axis < -na.min(nb) {
        return Err(PyValueError::new_err(format!(
            "cross: axis {axis} must be negative and within both operands"
        )));
    }
    if a.shape()[(na + axis) as usize] != 3 || b.shape()[(nb + axis) as usize] != 3 {
        return Err(PyValueError::new_err(
            "cross: the axis must have length 3 in both operands",
        ));
    }
    // component i of each operand along `axis`
    let comp = |d: &Data, i: isize| -> PyResult<Data> {
        let nd = d.ndim();
        let mut items = vec![
            SliceItem::Range {
                start: None,
                stop: None,
                step: 1
            };
            nd
        ];
        items[(nd as isize + axis) as usize] = SliceItem::Index(i);
        crate::manip::slice(d, &items)
    };
    let (a, b) = (a.astype(dt), b.astype(dt));
    let mut parts = Vec::with_capacity(3);
    for (i, j) in [(1, 2), (2, 0), (0, 1)] {
        let l = binary(Bin::Mul, &comp(&a, i)?, &comp(&b, j)?)?;
        let r = binary(Bin::Mul, &comp(&a, j)?, &comp(&b, i)?)?;
        parts.push(binary(Bin::Sub, &l, &r)?);
    }
    let nd = parts[0].ndim() as isize;
    Ok(crate::manip::stack_data(&parts, nd + 1 + axis)?.into())
}

/// Registers the `linalg` extension as the submodule `_core._linalg`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(m.py(), "_linalg")?;
    sub.add_function(wrap_pyfunction!(cholesky, &sub)?)?;
    sub.add_function(wrap_pyfunction!(cross, &sub)?)?;
    sub.add_function(wrap_pyfunction!(det, &sub)?)?;
    sub.add_function(wrap_pyfunction!(diagonal, &sub)?)?;
    sub.add_function(wrap_pyfunction!(eigh, &sub)?)?;
    sub.add_function(wrap_pyfunction!(eigvalsh, &sub)?)?;
    sub.add_function(wrap_pyfunction!(inv, &sub)?)?;
    sub.add_function(wrap_pyfunction!(matrix_norm, &sub)?)?;
    sub.add_function(wrap_pyfunction!(matrix_power, &sub)?)?;
    sub.add_function(wrap_pyfunction!(matrix_rank, &sub)?)?;
    sub.add_function(wrap_pyfunction!(outer, &sub)?)?;
    sub.add_function(wrap_pyfunction!(pinv, &sub)?)?;
    sub.add_function(wrap_pyfunction!(qr, &sub)?)?;
    sub.add_function(wrap_pyfunction!(slogdet, &sub)?)?;
    sub.add_function(wrap_pyfunction!(solve, &sub)?)?;
    sub.add_function(wrap_pyfunction!(svd, &sub)?)?;
    sub.add_function(wrap_pyfunction!(svdvals, &sub)?)?;
    sub.add_function(wrap_pyfunction!(trace, &sub)?)?;
    sub.add_function(wrap_pyfunction!(vector_norm, &sub)?)?;
    m.add_submodule(&sub)?;
    Ok(())
}
