//! SVD-based routines: `lstsq`, `pinv`, `matrix_rank`; and `norm`.

use super::batch::{Batch, LinalgFloat, tensor};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix1, IxDyn, RemoveAxis};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use faer::Mat;

/// Thin SVD of one matrix as (U, s, V).
fn thin_svd<T: LinalgFloat>(m: &Mat<T>, op: &'static str) -> Result<(Mat<T>, Vec<T>, Mat<T>)> {
    let f = m.thin_svd().map_err(|_| Error::value(op, "SVD did not converge"))?;
    let s = f.S().column_vector();
    let k = m.nrows().min(m.ncols());
    Ok((f.U().to_owned(), (0..k).map(|i| s[i]).collect(), f.V().to_owned()))
}

/// `V · diag(1/s) · Uᵀ` keeping singular values above `cutoff`, row-major `n × m`.
fn pinv_from_svd<T: LinalgFloat>(u: &Mat<T>, s: &[T], v: &Mat<T>, cutoff: T) -> Vec<T> {
    let (m, n) = (u.nrows(), v.nrows());
    let mut out = vec![T::zero(); n * m];
    for (k, &sk) in s.iter().enumerate() {
        if sk <= cutoff {
            continue;
        }
        let inv = T::one() / sk;
        for i in 0..n {
            let vik = v[(i, k)] * inv;
            for j in 0..m {
                out[i * m + j] += vik * u[(j, k)];
            }
        }
    }
    out
}

/// The result of [`lstsq`], as NumPy's tuple.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f64, _>::eye(2);
/// let r = ferrotensor::linalg::lstsq(&a, &a, None).unwrap();
/// let x: &Tensor<f64, Ix2> = &r.solution;
/// assert_eq!(x.shape(), &[2, 2]);
/// assert_eq!(r.singular_values.to_vec(), vec![1.0, 1.0]);
/// ```
pub struct Lstsq<T: crate::element::Element, D: Dimension = IxDyn> {
    /// The least-squares solution `x`, shape `(n,)` or `(n, k)`: `b`'s rank type.
    pub solution: Tensor<T, D>,
    /// Squared residual norms per column of `b` when `rank == n < m`, else empty.
    pub residuals: Tensor<T, Ix1>,
    /// The effective rank of `a`.
    pub rank: usize,
    /// The singular values of `a`, descending.
    pub singular_values: Tensor<T, Ix1>,
}

/// Least-squares solution of `a · x ≈ b` for a `(m, n)` matrix `a` and `b` of shape
/// `(m,)` or `(m, k)`, via the SVD; singular values at most `rcond · max(s)` count as
/// zero (`None`: machine epsilon times `max(m, n)`, NumPy's default). `Err` for
/// shapes that don't fit.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::lstsq;
/// // fit y = c0 + c1 t through (0, 1), (1, 3), (2, 5)
/// let a = Tensor::from_vec(vec![1.0f64, 0.0, 1.0, 1.0, 1.0, 2.0], [3, 2]).unwrap();
/// let y = Tensor::from_vec(vec![1.0, 3.0, 5.0], [3]).unwrap();
/// let r = lstsq(&a, &y, None).unwrap();
/// let c = r.solution.to_vec();
/// assert!((c[0] - 1.0).abs() < 1e-12 && (c[1] - 2.0).abs() < 1e-12);
/// assert_eq!(r.rank, 2);
/// ```
pub fn lstsq<T: LinalgFloat, S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    a: &TensorBase<S, D>,
    b: &TensorBase<S2, D2>,
    rcond: Option<T>,
) -> Result<Lstsq<T, D2>> {
    let op = "lstsq";
    let bad = || {
        Error::shape(
            op,
            format!(
                "incompatible shapes {} and {}",
                fmt_shape(a.shape()),
                fmt_shape(b.shape())
            ),
        )
    };
    if a.ndim() != 2 || b.ndim() == 0 || b.ndim() > 2 || b.shape()[0] != a.shape()[0] {
        return Err(bad());
    }
    let ba = Batch::of(a, op, false)?;
    let (m, n) = (ba.rows, ba.cols);
    let k = if b.ndim() == 1 { 1 } else { b.shape()[1] };
    let bv = b.to_vec();
    let (u, s, v) = thin_svd(&ba.mat(0), op)?;
    let smax = s.iter().copied().fold(T::zero(), T::max);
    let rc = rcond.unwrap_or_else(|| T::epsilon() * T::from_usize(m.max(n)));
    let cutoff = rc * smax;
    let rank = s.iter().filter(|&&x| x > cutoff).count();
    let p = pinv_from_svd(&u, &s, &v, cutoff);
    let mut x = vec![T::zero(); n * k];
    for i in 0..n {
        for j in 0..m {
            for c in 0..k {
                x[i * k + c] += p[i * m + j] * bv[j * k + c];
            }
        }
    }
    let residuals = if rank == n && m > n {
        let av = &ba.data;
        (0..k)
            .map(|c| {
                (0..m).fold(T::zero(), |acc, r| {
                    let fit = (0..n).fold(T::zero(), |s, q| s + av[r * n + q] * x[q * k + c]);
                    let d = bv[r * k + c] - fit;
                    acc + d * d
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let nres = residuals.len();
    let solution = if b.ndim() == 1 {
        tensor(x, &[n], &[])?
    } else {
        tensor(x, &[n, k], &[])?
    };
    Ok(Lstsq {
        solution,
        residuals: tensor(residuals, &[nres], &[])?,
        rank,
        singular_values: tensor(s, &[m.min(n)], &[])?,
    })
}

/// The Moore–Penrose pseudo-inverse of each `(..., m, n)` matrix (shape `(..., n, m)`),
/// singular values at most `rcond · max(s)` treated as zero (NumPy's default
/// `rcond = 1e-15` when `None`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::pinv;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 2.0, 4.0], [2, 2]).unwrap(); // rank 1
/// let p = pinv(&a, None).unwrap();
/// let back = &(&a % &p) % &a;                                            // A·A⁺·A = A
/// assert!(back.to_vec().iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn pinv<T: LinalgFloat, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    rcond: Option<T>,
) -> Result<Tensor<T, D>> {
    let ba = Batch::of(a, "pinv", false)?;
    let rc = rcond.unwrap_or_else(|| T::from_f64(1e-15));
    let mut out = Vec::with_capacity(ba.data.len());
    for t in 0..ba.count() {
        let (u, s, v) = thin_svd(&ba.mat(t), "pinv")?;
        let smax = s.iter().copied().fold(T::zero(), T::max);
        out.extend(pinv_from_svd(&u, &s, &v, rc * smax));
    }
    tensor(out, &ba.batch, &[ba.cols, ba.rows])
}

/// The rank of each `(..., m, n)` matrix: the number of singular values above
/// `max(s) · max(m, n) · eps` (NumPy's default tolerance).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::matrix_rank;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 2.0, 4.0, 0.0, 1.0], [3, 2]).unwrap();
/// assert_eq!(matrix_rank(&a).unwrap().to_scalar().unwrap(), 2);
/// assert_eq!(matrix_rank(&Tensor::<f64, _>::zeros([2, 2])).unwrap().to_scalar().unwrap(), 0);
/// ```
pub fn matrix_rank<T: LinalgFloat, S: Storage<Elem = T>, D: RemoveAxis>(
    a: &TensorBase<S, D>,
) -> Result<Tensor<usize, super::BatchDim<D>>>
where
    D::Smaller: RemoveAxis,
{
    let ba = Batch::of(a, "matrix_rank", false)?;
    let mut out = Vec::with_capacity(ba.count());
    for t in 0..ba.count() {
        let (_, s, _) = thin_svd(&ba.mat(t), "matrix_rank")?;
        let smax = s.iter().copied().fold(T::zero(), T::max);
        let tol = smax * T::from_usize(ba.rows.max(ba.cols)) * T::epsilon();
        out.push(s.iter().filter(|&&x| x > tol).count());
    }
    Tensor::from_vec(out, ba.batch)?.into_dim()
}

/// Which norm [`norm_ord`] computes (NumPy's `ord`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinalgNormOrd {
    /// Frobenius (matrices only).
    Fro,
    /// Nuclear: the sum of singular values (matrices only).
    Nuc,
    /// Vectors: max |x|. Matrices: max row sum of |x|.
    Inf,
    /// Vectors: min |x|. Matrices: min row sum of |x|.
    NegInf,
    /// Vectors: `(Σ |x|^p)^(1/p)` (`p = 0` counts non-zeros). Matrices: `1` max column
    /// sum, `-1` min column sum, `2` largest and `-2` smallest singular value.
    P(f64),
}

/// The 2-norm of all elements (NumPy's `norm(x)` with default arguments: Frobenius for
/// a matrix).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![3.0f32, 4.0], [2]).unwrap();
/// assert_eq!(ferrotensor::linalg::norm(&a), 5.0);
/// ```
pub fn norm<T: LinalgFloat, S: Storage<Elem = T>, D: Dimension>(a: &TensorBase<S, D>) -> T {
    a.iter().fold(T::zero(), |s, &x| s + x * x).sqrt()
}

/// NumPy's `norm(x, ord)` for a vector (1-D) or a matrix (2-D); `Err` for other ranks
/// and for orders NumPy rejects (`Fro`/`Nuc` on vectors, other `P` on matrices).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::{norm_ord, LinalgNormOrd};
/// let m = Tensor::from_vec(vec![1.0f64, -2.0, 3.0, 4.0], [2, 2]).unwrap();
/// assert_eq!(norm_ord(&m, LinalgNormOrd::P(1.0)).unwrap(), 6.0);
/// assert_eq!(norm_ord(&m, LinalgNormOrd::Inf).unwrap(), 7.0);
/// let v = Tensor::from_vec(vec![1.0f64, -2.0, 2.0], [3]).unwrap();
/// assert_eq!(norm_ord(&v, LinalgNormOrd::P(2.0)).unwrap(), 3.0);
/// assert!(norm_ord(&v, LinalgNormOrd::Fro).is_err());
/// ```
pub fn norm_ord<T: LinalgFloat, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    ord: LinalgNormOrd,
) -> Result<T> {
    let op = "norm";
    let x = a.to_vec();
    let abs = x.iter().map(|v| v.abs());
    match (a.ndim(), ord) {
        (1, LinalgNormOrd::Inf) => Ok(abs.fold(T::zero(), T::max)),
        (1, LinalgNormOrd::NegInf) => Ok(abs.fold(T::infinity(), T::min)),
        (1, LinalgNormOrd::P(0.0)) => Ok(T::from_usize(x.iter().filter(|&&v| v != T::zero()).count())),
        (1, LinalgNormOrd::P(p)) => {
            let p = T::from_f64(p);
            Ok(abs.fold(T::zero(), |s, v| s + v.powf(p)).powf(T::one() / p))
        }
        (2, _) => {
            let (r, c) = (a.shape()[0], a.shape()[1]);
            let row_sums = || (0..r).map(|i| (0..c).fold(T::zero(), |s, j| s + x[i * c + j].abs()));
            let col_sums = || (0..c).map(|j| (0..r).fold(T::zero(), |s, i| s + x[i * c + j].abs()));
            let svals = || -> Result<Vec<T>> { Ok(thin_svd(&Batch::of(a, op, false)?.mat(0), op)?.1) };
            match ord {
                LinalgNormOrd::Fro => Ok(norm(a)),
                LinalgNormOrd::Nuc => Ok(svals()?.into_iter().fold(T::zero(), |s, v| s + v)),
                LinalgNormOrd::Inf => Ok(row_sums().fold(T::zero(), T::max)),
                LinalgNormOrd::NegInf => Ok(row_sums().fold(T::infinity(), T::min)),
                LinalgNormOrd::P(1.0) => Ok(col_sums().fold(T::zero(), T::max)),
                LinalgNormOrd::P(-1.0) => Ok(col_sums().fold(T::infinity(), T::min)),
                LinalgNormOrd::P(2.0) => Ok(svals()?.into_iter().fold(T::zero(), T::max)),
                LinalgNormOrd::P(-2.0) => Ok(svals()?.into_iter().fold(T::infinity(), T::min)),
                LinalgNormOrd::P(p) => Err(Error::value(op, format!("invalid norm order {p} for matrices"))),
            }
        }
        (1, o) => Err(Error::value(op, format!("invalid norm order {o:?} for vectors"))),
        (n, _) => Err(Error::shape(
            op,
            format!(
                "norm with an order needs a 1-D or 2-D input, got {n}-D shape {}",
                fmt_shape(a.shape())
            ),
        )),
    }
}
