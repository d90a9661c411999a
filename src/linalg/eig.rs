//! Eigenvalues of general matrices (complex results), eigenvalues of Hermitian
//! matrices alone, and singular values alone: NumPy's `eig`, `eigvals`, `eigvalsh`,
//! `svdvals`, batched over leading axes, real and complex.

use super::batch::{Batch, tensor};
use super::decomp::Uplo;
use super::scalar::LinalgScalar;
use crate::error::{Error, Result};
use crate::layout::RemoveAxis;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use num_complex::Complex;

/// Eigenvalues and eigenvectors of [`eig`].
type Eig<T, D> = (
    Tensor<<T as LinalgScalar>::Cx, <D as RemoveAxis>::Smaller>,
    Tensor<<T as LinalgScalar>::Cx, D>,
);

/// NumPy's `LinAlgError` for non-finite input to `eig`/`eigvals`.
fn finite<T: LinalgScalar>(b: &Batch<T>, op: &'static str) -> Result<()> {
    if b.data.iter().all(|x| x.all_finite()) {
        Ok(())
    } else {
        Err(Error::value(op, "array must not contain infs or NaNs"))
    }
}

/// Eigenvalues (complex, in no particular order) and right eigenvectors (columns, unit
/// 2-norm, each turned so that its largest component is real and positive) of each
/// square `(..., n, n)` matrix (NumPy's `eig`): `a · v[:, i] = w[i] · v[:, i]`. The
/// result is complex even when every eigenvalue is real (NumPy then returns a real
/// array). `Err` if non-square, not finite, or the iteration does not converge.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::eig;
/// use num_complex::Complex;
/// let rot = Tensor::from_vec(vec![0.0f64, -1.0, 1.0, 0.0], [2, 2]).unwrap();
/// let (w, v) = eig(&rot).unwrap();
/// let mut w = w.to_vec();
/// w.sort_by(|a, b| a.im.partial_cmp(&b.im).unwrap());
/// assert!((w[0] - Complex::new(0.0, -1.0)).norm() < 1e-12 && (w[1] - Complex::new(0.0, 1.0)).norm() < 1e-12);
/// assert_eq!(v.shape(), &[2, 2]);
/// ```
pub fn eig<T: LinalgScalar, S: Storage<Elem = T>, D: RemoveAxis>(a: &TensorBase<S, D>) -> Result<Eig<T, D>> {
    let op = "eig";
    let ba = Batch::of(a, op, true)?;
    finite(&ba, op)?;
    let n = ba.rows;
    let (mut ws, mut vs) = (Vec::new(), Vec::new());
    for t in 0..ba.count() {
        let f = ba
            .mat(t)
            .eigen()
            .map_err(|_| Error::value(op, "eigenvalue iteration did not converge"))?;
        let s = f.S().column_vector();
        ws.extend((0..n).map(|i| T::cx(s[i])));
        let u = f.U();
        let mut cols: Vec<Vec<Complex<T::Real>>> = (0..n).map(|j| (0..n).map(|i| u[(i, j)]).collect()).collect();
        cols.iter_mut().for_each(|c| normalise(c));
        for i in 0..n {
            vs.extend(cols.iter().map(|c| T::cx(c[i])));
        }
    }
    Ok((tensor(ws, &ba.batch, &[n])?, tensor(vs, &ba.batch, &[n, n])?))
}

/// Scales an eigenvector to unit 2-norm with its largest component real and positive.
#[allow(clippy::assign_op_pattern)] // `Complex<R>: MulAssign` needs more bounds than `Mul`
fn normalise<R: crate::element::Float>(c: &mut [Complex<R>]) {
    let norm = c.iter().map(|x| x.norm_sqr()).fold(R::zero(), |a, b| a + b).sqrt();
    let big = c.iter().copied().max_by(|a, b| {
        a.norm_sqr()
            .partial_cmp(&b.norm_sqr())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    if let Some(big) = big
        && norm > R::zero()
    {
        let phase = big.conj() / Complex::new(big.norm(), R::zero());
        let s = phase / Complex::new(norm, R::zero());
        c.iter_mut().for_each(|x| *x = *x * s);
    }
}

/// The eigenvalues (complex) of each square `(..., n, n)` matrix (NumPy's `eigvals`).
/// `Err` as [`eig`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::eigvals;
/// let a = Tensor::from_vec(vec![2.0f32, 0.0, 0.0, 3.0], [2, 2]).unwrap();
/// let mut w: Vec<f32> = eigvals(&a).unwrap().to_vec().iter().map(|c| c.re).collect();
/// w.sort_by(|a, b| a.partial_cmp(b).unwrap());
/// assert_eq!(w, vec![2.0, 3.0]);
/// ```
pub fn eigvals<T: LinalgScalar, S: Storage<Elem = T>, D: RemoveAxis>(
    a: &TensorBase<S, D>,
) -> Result<Tensor<T::Cx, D::Smaller>> {
    let op = "eigvals";
    let ba = Batch::of(a, op, true)?;
    finite(&ba, op)?;
    let mut ws = Vec::with_capacity(ba.count() * ba.rows);
    for t in 0..ba.count() {
        let w = ba
            .mat(t)
            .eigenvalues()
            .map_err(|_| Error::value(op, "eigenvalue iteration did not converge"))?;
        ws.extend(w.into_iter().map(T::cx));
    }
    tensor(ws, &ba.batch, &[ba.rows])
}

/// The eigenvalues (real, ascending) of each Hermitian `(..., n, n)` matrix, reading the
/// triangle `uplo` names (NumPy's `eigvalsh(a, UPLO)`). `Err` if non-square or the
/// iteration does not converge.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::{Uplo, eigvalsh};
/// let a = Tensor::from_vec(vec![2.0f64, 1.0, 1.0, 2.0], [2, 2]).unwrap();
/// let w = eigvalsh(&a, Uplo::Lower).unwrap().to_vec();
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// ```
pub fn eigvalsh<T: LinalgScalar, S: Storage<Elem = T>, D: RemoveAxis>(
    a: &TensorBase<S, D>,
    uplo: Uplo,
) -> Result<Tensor<T::Real, D::Smaller>> {
    let op = "eigvalsh";
    let ba = Batch::of(a, op, true)?;
    let mut ws = Vec::with_capacity(ba.count() * ba.rows);
    for t in 0..ba.count() {
        let w = ba
            .mat(t)
            .self_adjoint_eigenvalues(uplo.side())
            .map_err(|_| Error::value(op, "eigenvalue iteration did not converge"))?;
        ws.extend(w);
    }
    tensor(ws, &ba.batch, &[ba.rows])
}

/// The singular values (real, descending) of each `(..., m, n)` matrix (NumPy's
/// `svdvals`, `svd(a, compute_uv=False)`). `Err` below two axes or if the iteration
/// does not converge (also for NaN input, as NumPy).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::svdvals;
/// let a = Tensor::from_vec(vec![0.0f64, 2.0, 3.0, 0.0, 0.0, 0.0], [3, 2]).unwrap();
/// assert_eq!(svdvals(&a).unwrap().to_vec(), vec![3.0, 2.0]);
/// ```
pub fn svdvals<T: LinalgScalar, S: Storage<Elem = T>, D: RemoveAxis>(
    a: &TensorBase<S, D>,
) -> Result<Tensor<T::Real, D::Smaller>> {
    let op = "svdvals";
    let ba = Batch::of(a, op, false)?;
    if !ba.data.iter().all(|x| x.all_finite()) {
        return Err(Error::value(op, "SVD did not converge (the input holds infs or NaNs)"));
    }
    let k = ba.rows.min(ba.cols);
    let mut ss = Vec::with_capacity(ba.count() * k);
    for t in 0..ba.count() {
        let s = ba
            .mat(t)
            .singular_values()
            .map_err(|_| Error::value(op, "SVD did not converge"))?;
        ss.extend(s);
    }
    tensor(ss, &ba.batch, &[k])
}
