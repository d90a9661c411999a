//! Decompositions, batched over leading axes: `cholesky`, `qr`, `svd`, `eigh`.

use super::batch::{Batch, LinalgFloat, push_mat, push_mat_t, tensor};
use crate::error::{Error, Result};
use crate::layout::{Dimension, RemoveAxis};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use faer::Side;

/// `Q` and `R` of [`qr`], both of the input's rank type.
type Qr<T, D> = (Tensor<T, D>, Tensor<T, D>);
/// `U`, `S` and `Vh` of [`svd`]: `S` has one axis fewer.
type Svd<T, D> = (Tensor<T, D>, Tensor<T, <D as RemoveAxis>::Smaller>, Tensor<T, D>);
/// Eigenvalues (one axis fewer) and eigenvectors of [`eigh`].
type Eigh<T, D> = (Tensor<T, <D as RemoveAxis>::Smaller>, Tensor<T, D>);

/// The lower Cholesky factor `L` (`a = L·Lᵀ`) of each `(..., n, n)` matrix, reading the
/// lower triangle as NumPy does. `Err` if non-square or not positive definite.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::cholesky;
/// let a = Tensor::from_vec(vec![4.0f64, 2.0, 2.0, 3.0], [2, 2]).unwrap();
/// let l: Tensor<f64, Ix2> = cholesky(&a).unwrap();
/// assert_eq!(l.to_vec()[1], 0.0);
/// let back = &l % l.t();
/// assert!(back.to_vec().iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
/// assert!(cholesky(&Tensor::from_vec(vec![1.0, 2.0, 2.0, 1.0], [2, 2]).unwrap()).is_err());
/// ```
pub fn cholesky<T: LinalgFloat, S: Storage<Elem = T>, D: Dimension>(a: &TensorBase<S, D>) -> Result<Tensor<T, D>> {
    let op = "cholesky";
    let ba = Batch::of(a, op, true)?;
    let mut out = Vec::with_capacity(ba.data.len());
    for t in 0..ba.count() {
        let llt = ba
            .mat(t)
            .llt(Side::Lower)
            .map_err(|_| Error::value(op, "matrix is not positive definite"))?;
        let l = llt.L();
        let n = l.nrows();
        for i in 0..n {
            for j in 0..n {
                out.push(if j <= i { l[(i, j)] } else { T::zero() });
            }
        }
    }
    tensor(out, &ba.batch, &[ba.rows, ba.cols])
}

/// The reduced QR decomposition of each `(..., m, n)` matrix: `Q` is `(..., m, k)` with
/// orthonormal columns and `R` `(..., k, n)` upper triangular, `k = min(m, n)` (NumPy's
/// `mode='reduced'`; column signs may differ from LAPACK's).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::qr;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 2]).unwrap();
/// let (q, r) = qr(&a).unwrap();
/// assert_eq!((q.shape(), r.shape()), (&[3usize, 2][..], &[2usize, 2][..]));
/// let back = &q % &r;
/// assert!(back.to_vec().iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn qr<T: LinalgFloat, S: Storage<Elem = T>, D: Dimension>(a: &TensorBase<S, D>) -> Result<Qr<T, D>> {
    let ba = Batch::of(a, "qr", false)?;
    let k = ba.rows.min(ba.cols);
    let (mut qs, mut rs) = (Vec::new(), Vec::new());
    for t in 0..ba.count() {
        let m = ba.mat(t);
        let f = m.qr();
        push_mat(&mut qs, f.compute_thin_Q().as_ref());
        let r = f.thin_R();
        for i in 0..k {
            for j in 0..ba.cols {
                rs.push(if j >= i { r[(i, j)] } else { T::zero() });
            }
        }
    }
    Ok((
        tensor(qs, &ba.batch, &[ba.rows, k])?,
        tensor(rs, &ba.batch, &[k, ba.cols])?,
    ))
}

/// The singular value decomposition `a = U · diag(S) · Vh` of each `(..., m, n)`
/// matrix, singular values in descending order. With `full_matrices` `U` is
/// `(..., m, m)` and `Vh` `(..., n, n)`, else `(..., m, k)` and `(..., k, n)`,
/// `k = min(m, n)`. `Err` if the iteration does not converge.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::svd;
/// let a = Tensor::from_vec(vec![3.0f64, 0.0, 0.0, -2.0], [2, 2]).unwrap();
/// let (u, s, vh): (Tensor<f64, Ix2>, Tensor<f64, Ix1>, Tensor<f64, Ix2>) = svd(&a, false).unwrap();
/// assert_eq!(s.to_vec(), vec![3.0, 2.0]);
/// assert_eq!((u.shape(), vh.shape()), (&[2usize, 2][..], &[2usize, 2][..]));
/// ```
pub fn svd<T: LinalgFloat, S: Storage<Elem = T>, D: RemoveAxis>(
    a: &TensorBase<S, D>,
    full_matrices: bool,
) -> Result<Svd<T, D>> {
    let op = "svd";
    let ba = Batch::of(a, op, false)?;
    let k = ba.rows.min(ba.cols);
    let (mut us, mut ss, mut vs) = (Vec::new(), Vec::new(), Vec::new());
    for t in 0..ba.count() {
        let m = ba.mat(t);
        let f =
            if full_matrices { m.svd() } else { m.thin_svd() }.map_err(|_| Error::value(op, "SVD did not converge"))?;
        push_mat(&mut us, f.U());
        let s = f.S().column_vector();
        ss.extend((0..k).map(|i| s[i]));
        push_mat_t(&mut vs, f.V());
    }
    let (uc, vr) = if full_matrices { (ba.rows, ba.cols) } else { (k, k) };
    Ok((
        tensor(us, &ba.batch, &[ba.rows, uc])?,
        tensor(ss, &ba.batch, &[k])?,
        tensor(vs, &ba.batch, &[vr, ba.cols])?,
    ))
}

/// Eigenvalues (ascending) and eigenvectors (columns) of each symmetric `(..., n, n)`
/// matrix, reading the lower triangle as NumPy's `eigh` does: `a · V = V · diag(w)`.
/// `Err` if non-square or the iteration does not converge.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::eigh;
/// let a = Tensor::from_vec(vec![2.0f64, 1.0, 1.0, 2.0], [2, 2]).unwrap();
/// let (w, v): (Tensor<f64, Ix1>, Tensor<f64, Ix2>) = eigh(&a).unwrap();
/// assert!((w.to_vec()[0] - 1.0).abs() < 1e-12 && (w.to_vec()[1] - 3.0).abs() < 1e-12);
/// assert_eq!(v.shape(), &[2, 2]);
/// ```
pub fn eigh<T: LinalgFloat, S: Storage<Elem = T>, D: RemoveAxis>(a: &TensorBase<S, D>) -> Result<Eigh<T, D>> {
    let op = "eigh";
    let ba = Batch::of(a, op, true)?;
    let (mut ws, mut vs) = (Vec::new(), Vec::new());
    for t in 0..ba.count() {
        let f = ba
            .mat(t)
            .self_adjoint_eigen(Side::Lower)
            .map_err(|_| Error::value(op, "eigenvalue iteration did not converge"))?;
        let s = f.S().column_vector();
        ws.extend((0..ba.rows).map(|i| s[i]));
        push_mat(&mut vs, f.U());
    }
    Ok((
        tensor(ws, &ba.batch, &[ba.rows])?,
        tensor(vs, &ba.batch, &[ba.rows, ba.rows])?,
    ))
}
