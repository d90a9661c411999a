//! Linear algebra: `matmul`, `matrix_transpose`, and the `linalg` extension.

use crate::array::{Array, data_of};
use crate::data::{Data, IntoData};
use crate::errors::{OrPy, dtype_error};
use ferrotensor::linalg::TensordotAxes;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `a @ b` with promotion (NumPy `matmul` semantics in the crate).
pub fn matmul(py: Python<'_>, a: &Data, b: &Data) -> PyResult<Data> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(PyValueError::new_err(
            "matmul: 0-d operands are not allowed",
        ));
    }
    let dt = a.dtype().promote(b.dtype());
    let (a, b) = (a.astype(dt), b.astype(dt));
    py.detach(|| matmul_typed(&a, &b))
}

fn matmul_typed(a: &Data, b: &Data) -> PyResult<Data> {
    Ok(match (a, b) {
        (Data::I8(x), Data::I8(y)) => x.matmul(y).py()?.into_data(),
        (Data::I16(x), Data::I16(y)) => x.matmul(y).py()?.into_data(),
        (Data::I32(x), Data::I32(y)) => x.matmul(y).py()?.into_data(),
        (Data::I64(x), Data::I64(y)) => x.matmul(y).py()?.into_data(),
        (Data::U8(x), Data::U8(y)) => x.matmul(y).py()?.into_data(),
        (Data::U16(x), Data::U16(y)) => x.matmul(y).py()?.into_data(),
        (Data::U32(x), Data::U32(y)) => x.matmul(y).py()?.into_data(),
        (Data::U64(x), Data::U64(y)) => x.matmul(y).py()?.into_data(),
        (Data::F32(x), Data::F32(y)) => x.matmul(y).py()?.into_data(),
        (Data::F64(x), Data::F64(y)) => x.matmul(y).py()?.into_data(),
        (Data::C64(x), Data::C64(y)) => x.matmul(y).py()?.into_data(),
        (Data::C128(x), Data::C128(y)) => x.matmul(y).py()?.into_data(),
        _ => return Err(dtype_error("matmul", a.dtype())),
    })
}

/// The transpose of the last two axes (a view).
pub fn matrix_transpose(x: &Data) -> PyResult<Data> {
    let n = x.ndim();
    if n < 2 {
        return Err(PyValueError::new_err(format!(
            "matrix_transpose: needs at least 2 dimensions, got {n}"
        )));
    }
    let mut axes: Vec<isize> = (0..n as isize).collect();
    axes.swap(n - 2, n - 1);
    crate::manip::permute(x, &axes)
}

#[pyfunction(name = "matmul")]
#[pyo3(signature = (x1, x2, /))]
fn matmul_fn(py: Python<'_>, x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> PyResult<Array> {
    Ok(matmul(py, &data_of(x1, "matmul")?, &data_of(x2, "matmul")?)?.into())
}

#[pyfunction(name = "matrix_transpose")]
#[pyo3(signature = (x, /))]
fn matrix_transpose_fn(x: &Bound<'_, PyAny>) -> PyResult<Array> {
    Ok(matrix_transpose(&data_of(x, "matrix_transpose")?)?.into())
}

/// `tensordot(x1, x2, /, *, axes=2)`.
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axes = None))]
fn tensordot(
    py: Python<'_>,
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    axes: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (a, b) = (data_of(x1, "tensordot")?, data_of(x2, "tensordot")?);
    let axes: TensordotAxes = match axes {
        None => TensordotAxes::Last(2),
        Some(ax) => match ax.extract::<usize>() {
            Ok(n) => TensordotAxes::Last(n),
            Err(_) => {
                let (l, r): (Vec<isize>, Vec<isize>) = ax.extract()?;
                TensordotAxes::Pairs(l, r)
            }
        },
    };
    let dt = a.dtype().promote(b.dtype());
    let (a, b) = (a.astype(dt), b.astype(dt));
    let out = py.detach(|| -> PyResult<Data> {
        Ok(
            crate::pair_of!(&a, &b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64|C64|C128;
            x, y => x.tensordot(y, axes.clone()).py()?.into_data();
            return Err(dtype_error("tensordot", dt))),
        )
    })?;
    Ok(out.into())
}

/// `vecdot(x1, x2, /, *, axis=-1)`: `sum(conj(x1) * x2, axis)` over broadcast operands.
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axis = -1))]
fn vecdot(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>, axis: isize) -> PyResult<Array> {
    let (a, b) = (data_of(x1, "vecdot")?, data_of(x2, "vecdot")?);
    let dt = a.dtype().promote(b.dtype());
    if !dt.is_numeric() {
        return Err(dtype_error("vecdot", dt));
    }
    let (na, nb) = (a.ndim() as isize, b.ndim() as isize);
    if axis >= 0 || axis < -na.min(nb) {
        return Err(PyValueError::new_err(format!(
            "vecdot: axis {axis} must be negative and within both operands"
        )));
    }
    let (la, lb) = (
        a.shape()[(na + axis) as usize],
        b.shape()[(nb + axis) as usize],
    );
    if la != lb {
        return Err(PyValueError::new_err(format!(
            "vecdot: the contracted axes have lengths {la} and {lb}"
        )));
    }
    let a = crate::elementwise::unary(crate::elementwise::Un::Conj, &a.astype(dt))?;
    let p = crate::elementwise::binary(crate::elementwise::Bin::Mul, &a, &b.astype(dt))?;
    let ax = [p.ndim() as isize + axis];
    Ok(crate::each_num!(&p, t => t.sum_axes(&ax, false).py()?.into_data(), _ => return Err(dtype_error("vecdot", dt))).into())
}

/// Registers the main-namespace linear algebra functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(matmul_fn, m)?)?;
    m.add_function(wrap_pyfunction!(matrix_transpose_fn, m)?)?;
    m.add_function(wrap_pyfunction!(tensordot, m)?)?;
    m.add_function(wrap_pyfunction!(vecdot, m)?)?;
    Ok(())
}
