//! Batches of matrices for the `faer`-backed solvers: the element trait, reading the
//! `(..., m, n)` matrices of a tensor, and writing results back.

use crate::element::{Float, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::layout::transform::broadcast_shapes;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use faer::{Mat, MatRef};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// Element types of the decompositions and solvers: `f32` and `f64` (through `faer`).
///
/// ```
/// use ferrotensor::linalg::{LinalgFloat, det};
/// use ferrotensor::prelude::*;
/// fn det2<T: LinalgFloat>(a: &Tensor<T, Ix2>) -> T { det(a).unwrap().to_scalar().unwrap() }
/// assert_eq!(det2(&Tensor::<f64, _>::eye(3)), 1.0);
/// ```
pub trait LinalgFloat: Float + faer::traits::RealField + sealed::Sealed {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}

/// A tensor's matrices: batch shape, matrix shape and row-major data.
pub(crate) struct Batch<T> {
    pub batch: Vec<usize>,
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<T>,
}

impl<T: LinalgFloat> Batch<T> {
    /// The `(..., m, n)` matrices of `a`; `Err` below two axes (or if `square` and m ≠ n).
    pub fn of<S: Storage<Elem = T>, D: Dimension>(
        a: &TensorBase<S, D>,
        op: &'static str,
        square: bool,
    ) -> Result<Self> {
        let s = a.shape();
        if s.len() < 2 {
            return Err(Error::shape(
                op,
                format!(
                    "{}-dimensional array given; array must be at least two-dimensional (shape {})",
                    s.len(),
                    fmt_shape(s)
                ),
            ));
        }
        let (rows, cols) = (s[s.len() - 2], s[s.len() - 1]);
        if square && rows != cols {
            return Err(Error::shape(
                op,
                format!(
                    "last 2 dimensions of the array must be square, got shape {}",
                    fmt_shape(s)
                ),
            ));
        }
        Ok(Batch {
            batch: s[..s.len() - 2].to_vec(),
            rows,
            cols,
            data: a.to_vec(),
        })
    }

    /// The batch broadcast to `batch` (stride-0 copies of broadcast matrices).
    pub fn broadcast(self, batch: &[usize]) -> Result<Self> {
        if batch == self.batch.as_slice() {
            return Ok(self);
        }
        let mut full: Vec<usize> = self.batch.clone();
        full.extend([self.rows, self.cols]);
        let t = Tensor::from_vec(self.data, full)?;
        let mut target = batch.to_vec();
        target.extend([self.rows, self.cols]);
        let data = t.broadcast_to(target)?.to_vec();
        Ok(Batch {
            batch: batch.to_vec(),
            data,
            ..self
        })
    }

    /// Number of matrices.
    pub fn count(&self) -> usize {
        self.batch.iter().product()
    }

    /// Matrix `t` as a faer matrix.
    pub fn mat(&self, t: usize) -> Mat<T> {
        let (r, c) = (self.rows, self.cols);
        let d = &self.data[t * r * c..(t + 1) * r * c];
        Mat::from_fn(r, c, |i, j| d[i * c + j])
    }
}

/// The broadcast batch shape of two batches, naming the full shapes on error.
pub(crate) fn broadcast_batch(
    a: &[usize],
    b: &[usize],
    sa: &[usize],
    sb: &[usize],
    op: &'static str,
) -> Result<Vec<usize>> {
    broadcast_shapes(a, b, op).map(|v| v.to_vec()).map_err(|_| {
        Error::shape(
            op,
            format!(
                "batch dimensions of shapes {} and {} cannot be broadcast together",
                fmt_shape(sa),
                fmt_shape(sb)
            ),
        )
    })
}

/// Appends a faer matrix to `out` in row-major order.
pub(crate) fn push_mat<T: LinalgFloat>(out: &mut Vec<T>, m: MatRef<'_, T>) {
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            out.push(m[(i, j)]);
        }
    }
}

/// Appends the transpose of a faer matrix to `out` in row-major order.
pub(crate) fn push_mat_t<T: LinalgFloat>(out: &mut Vec<T>, m: MatRef<'_, T>) {
    push_mat(out, m.transpose());
}

/// An owned tensor of `shape` (batch dims followed by `tail`) from row-major data.
pub(crate) fn tensor<T: Num, D: Dimension>(data: Vec<T>, batch: &[usize], tail: &[usize]) -> Result<Tensor<T, D>> {
    let shape: Vec<usize> = batch.iter().chain(tail).copied().collect();
    Tensor::from_vec(data, shape)?.into_dim()
}
