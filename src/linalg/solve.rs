//! LU-based routines: `solve`, `inv`, `det`, `slogdet` (batched, through faer's
//! partially pivoted LU). A zero pivot means a singular matrix and gives `Err` where
//! NumPy raises `LinAlgError`; `det`/`slogdet` return NumPy's `0` / `(0, -inf)`.

use super::BatchDim;
use super::batch::{Batch, LinalgFloat, broadcast_batch, push_mat, tensor};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, MatmulDim, RemoveAxis};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use faer::linalg::solvers::{DenseSolveCore, PartialPivLu, SolveCore};
use faer::{Conj, Mat};

/// The LU of `a`, or `Err` if a pivot is exactly zero (or the input is not finite).
fn lu_checked<T: LinalgFloat>(a: &Mat<T>, op: &'static str) -> Result<PartialPivLu<T>> {
    let lu = a.partial_piv_lu();
    let u = lu.U();
    for i in 0..u.nrows() {
        let d = u[(i, i)];
        if d == T::zero() {
            return Err(Error::value(op, "singular matrix"));
        }
        if !num_traits::Float::is_finite(d) {
            return Err(Error::value(op, "matrix contains NaN or infinity"));
        }
    }
    Ok(lu)
}

fn check_finite<T: LinalgFloat>(data: &[T], op: &'static str) -> Result<()> {
    if data.iter().all(|x| num_traits::Float::is_finite(*x)) {
        Ok(())
    } else {
        Err(Error::value(
            op,
            "result is not finite: the matrix is numerically singular or holds NaN/infinity",
        ))
    }
}

/// Solves `a · x = b` for `x`. `a` is `(..., n, n)`; `b` is `(n,)` (a vector, for every
/// matrix of `a`) or `(..., n, k)`, with batch axes broadcasting. `Err` for non-square
/// `a`, mismatched `n`, or a singular matrix (a zero LU pivot).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::solve;
/// let a = Tensor::from_vec(vec![3.0f64, 1.0, 1.0, 2.0], [2, 2]).unwrap();
/// let b = Tensor::from_vec(vec![9.0, 8.0], [2]).unwrap();
/// let x: Tensor<f64, Ix1> = solve(&a, &b).unwrap();
/// assert!((x.to_vec()[0] - 2.0).abs() < 1e-12 && (x.to_vec()[1] - 3.0).abs() < 1e-12);
/// let singular = Tensor::from_vec(vec![1.0, 2.0, 2.0, 4.0], [2, 2]).unwrap();
/// assert!(solve(&singular, &b).is_err());
/// ```
pub fn solve<T: LinalgFloat, S: Storage<Elem = T>, D: MatmulDim<D2>, S2: Storage<Elem = T>, D2: Dimension>(
    a: &TensorBase<S, D>,
    b: &TensorBase<S2, D2>,
) -> Result<Tensor<T, D::Output>> {
    let op = "solve";
    let ba = Batch::of(a, op, true)?;
    let vector = b.ndim() == 1;
    let bb = if vector {
        let col = b.view().into_dyn().reshape(vec![b.size(), 1])?;
        Batch::of(&col, op, false)?
    } else {
        Batch::of(b, op, false)?
    };
    if bb.rows != ba.rows {
        return Err(Error::shape(
            op,
            format!(
                "shapes {} and {}: {} rows in b, {} expected",
                fmt_shape(a.shape()),
                fmt_shape(b.shape()),
                bb.rows,
                ba.rows
            ),
        ));
    }
    let batch = if vector {
        ba.batch.clone()
    } else {
        broadcast_batch(&ba.batch, &bb.batch, a.shape(), b.shape(), op)?
    };
    let (ba, bb) = (ba.broadcast(&batch)?, bb.broadcast(&batch)?);
    let mut out = Vec::with_capacity(bb.count().max(ba.count()) * bb.rows * bb.cols);
    for t in 0..ba.count() {
        let lu = lu_checked(&ba.mat(t), op)?;
        let mut x = bb.mat(t);
        lu.solve_in_place_with_conj(Conj::No, x.as_mut());
        push_mat(&mut out, x.as_ref());
    }
    check_finite(&out, op)?;
    if vector {
        tensor(out, &batch, &[ba.rows])
    } else {
        tensor(out, &batch, &[bb.rows, bb.cols])
    }
}

/// The inverse of each `(..., n, n)` matrix; `Err` if non-square or singular.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::inv;
/// let a = Tensor::from_vec(vec![4.0f32, 7.0, 2.0, 6.0], [2, 2]).unwrap();
/// let i: Tensor<f32, Ix2> = inv(&a).unwrap();
/// let back = &a % &i;
/// assert!((back.to_vec()[0] - 1.0).abs() < 1e-5 && back.to_vec()[1].abs() < 1e-5);
/// assert!(inv(&Tensor::<f64, _>::zeros([2, 2])).is_err());
/// assert!(inv(&Tensor::<f64, _>::zeros([2, 3])).is_err());
/// ```
pub fn inv<T: LinalgFloat, S: Storage<Elem = T>, D: Dimension>(a: &TensorBase<S, D>) -> Result<Tensor<T, D>> {
    let op = "inv";
    let ba = Batch::of(a, op, true)?;
    let mut out = Vec::with_capacity(ba.data.len());
    for t in 0..ba.count() {
        let lu = lu_checked(&ba.mat(t), op)?;
        push_mat(&mut out, lu.inverse().as_ref());
    }
    check_finite(&out, op)?;
    tensor(out, &ba.batch, &[ba.rows, ba.cols])
}

/// Sign of the row permutation and `(sign, log|det|)` of the LU's `U`.
fn lu_slogdet<T: LinalgFloat>(a: &Mat<T>) -> (T, T) {
    let n = a.nrows();
    if n == 0 {
        return (T::one(), T::zero());
    }
    let lu = a.partial_piv_lu();
    let perm = lu.P().arrays().0;
    let mut seen = vec![false; n];
    let mut sign = T::one();
    for s in 0..n {
        let mut len = 0;
        let mut i = s;
        while !seen[i] {
            seen[i] = true;
            i = perm[i];
            len += 1;
        }
        if len > 0 && len % 2 == 0 {
            sign = -sign;
        }
    }
    let u = lu.U();
    let mut logabs = T::zero();
    for i in 0..n {
        let d = u[(i, i)];
        if d == T::zero() {
            return (T::zero(), T::neg_infinity());
        }
        if d < T::zero() {
            sign = -sign;
        }
        logabs += num_traits::Float::ln(num_traits::Float::abs(d));
    }
    (sign, logabs)
}

/// The determinant of each `(..., n, n)` matrix (shape `(...)`, 0-d for one matrix);
/// a singular matrix gives `0` as in NumPy. `Err` if non-square.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::det;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2]).unwrap();
/// assert!((det(&a).unwrap().to_scalar().unwrap() + 2.0).abs() < 1e-12);
/// ```
pub fn det<T: LinalgFloat, S: Storage<Elem = T>, D: RemoveAxis>(a: &TensorBase<S, D>) -> Result<Tensor<T, BatchDim<D>>>
where
    D::Smaller: RemoveAxis,
{
    let ba = Batch::of(a, "det", true)?;
    let out: Vec<T> = (0..ba.count())
        .map(|t| {
            let m = ba.mat(t);
            if m.nrows() == 0 { T::one() } else { m.determinant() }
        })
        .collect();
    tensor(out, &ba.batch, &[])
}

/// Sign and natural log of the absolute determinant of each `(..., n, n)` matrix, as
/// NumPy's `slogdet`: a singular matrix gives `(0, -inf)`. `Err` if non-square.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::slogdet;
/// let a = Tensor::from_vec(vec![0.0f64, 2.0, 3.0, 0.0], [2, 2]).unwrap();
/// let (s, l) = slogdet(&a).unwrap();
/// assert_eq!(s.to_scalar().unwrap(), -1.0);
/// assert!((l.to_scalar().unwrap() - 6f64.ln()).abs() < 1e-12);
/// ```
#[allow(clippy::type_complexity)]
pub fn slogdet<T: LinalgFloat, S: Storage<Elem = T>, D: RemoveAxis>(
    a: &TensorBase<S, D>,
) -> Result<(Tensor<T, BatchDim<D>>, Tensor<T, BatchDim<D>>)>
where
    D::Smaller: RemoveAxis,
{
    let ba = Batch::of(a, "slogdet", true)?;
    let (signs, logs): (Vec<T>, Vec<T>) = (0..ba.count()).map(|t| lu_slogdet(&ba.mat(t))).unzip();
    Ok((tensor(signs, &ba.batch, &[])?, tensor(logs, &ba.batch, &[])?))
}
