//! Batched norms and condition numbers: NumPy's (and the array API's) `matrix_norm`,
//! `vector_norm` and `cond`, real and complex.

use super::BatchDim;
use super::LinalgNormOrd;
use super::batch::{Batch, tensor};
use super::lstsq::{norm_of_moduli, thin_svd};
use super::power::try_inverse;
use super::scalar::LinalgScalar;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::permute_layout;
use crate::layout::{Dimension, IxDyn, Order, RemoveAxis};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use num_traits::Float as _;

/// The norm `ord` of every `(m, n)` matrix of a batch, from its moduli and (lazily)
/// its singular values.
fn matrix_norms<T: LinalgScalar>(b: &Batch<T>, ord: LinalgNormOrd, op: &'static str) -> Result<Vec<T::Real>> {
    let (m, n) = (b.rows, b.cols);
    (0..b.count())
        .map(|t| {
            let x: Vec<T::Real> = b.data[t * m * n..(t + 1) * m * n].iter().map(|v| v.modulus()).collect();
            norm_of_moduli(&x, &[m, n], ord, || Ok(thin_svd(&b.mat(t), op)?.1))
        })
        .collect()
}

/// The matrix norm of each `(..., m, n)` matrix (NumPy's and the array API's
/// `matrix_norm(x, keepdims, ord)`): `Fro` (NumPy's default), `Nuc`, `Inf`/`NegInf` (max /
/// min row sum of `|x|`), `P(1.0)`/`P(-1.0)` (max / min column sum), `P(2.0)`/`P(-2.0)`
/// (largest / smallest singular value). With `keepdims` the last two axes stay as
/// length 1. `Err` below two axes or for another `P`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::{LinalgNormOrd, matrix_norm};
/// let a = Tensor::from_vec(vec![1.0f64, -2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 1.0], [2, 2, 2]).unwrap();
/// assert_eq!(matrix_norm(&a, false, LinalgNormOrd::P(1.0)).unwrap().to_vec(), vec![6.0, 1.0]);
/// assert_eq!(matrix_norm(&a, true, LinalgNormOrd::Inf).unwrap().shape(), &[2, 1, 1]);
/// ```
pub fn matrix_norm<T: LinalgScalar, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    keepdims: bool,
    ord: LinalgNormOrd,
) -> Result<Tensor<T::Real, IxDyn>> {
    let op = "matrix_norm";
    let b = Batch::of(x, op, false)?;
    let out = matrix_norms(&b, ord, op)?;
    let tail: &[usize] = if keepdims { &[1, 1] } else { &[] };
    tensor(out, &b.batch, tail)
}

/// The vector norm over `axes` (`None`: all elements; several axes are one vector) of
/// NumPy's and the array API's `vector_norm(x, axis, keepdims, ord)`: `ord` is `p` in
/// `(Σ|x|^p)^(1/p)`, with `f64::INFINITY` / `NEG_INFINITY` the max / min of `|x|` and
/// `0` the count of non-zeros. Computed as NumPy does (no rescaling against
/// overflow); NaN propagates; the max over nothing is 0. `Err` for an axis out of
/// range or repeated, or a min over nothing.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::vector_norm;
/// let a = Tensor::from_vec(vec![3.0f64, 4.0, 0.0, -12.0], [2, 2]).unwrap();
/// assert_eq!(vector_norm(&a, Some(&[1]), false, 2.0).unwrap().to_vec(), vec![5.0, 12.0]);
/// assert_eq!(vector_norm(&a, None, false, f64::INFINITY).unwrap().to_scalar().unwrap(), 12.0);
/// assert_eq!(vector_norm(&a, None, true, 0.0).unwrap().shape(), &[1, 1]);
/// ```
pub fn vector_norm<T: LinalgScalar, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    axes: Option<&[isize]>,
    keepdims: bool,
    ord: f64,
) -> Result<Tensor<T::Real, IxDyn>> {
    let op = "vector_norm";
    let spec = crate::reduce::Spec::new(x.shape(), axes, op)?;
    let (lanes, m) = (spec.n_out(), spec.n_red);
    if m == 0 && lanes > 0 && ord == f64::NEG_INFINITY {
        return Err(Error::value(
            op,
            format!(
                "zero-size array to reduction operation of norm {ord} (shape {})",
                fmt_shape(x.shape())
            ),
        ));
    }
    let kept = spec.mask.iter().enumerate().filter(|p| !*p.1).map(|p| p.0 as isize);
    let red = spec.mask.iter().enumerate().filter(|p| *p.1).map(|p| p.0 as isize);
    let order: Vec<isize> = kept.chain(red).collect();
    let layout = permute_layout(&x.layout().clone().into_dyn(), &order)?;
    let data = crate::iter::gather_c_order(x.buffer(), &layout);
    let out: Vec<T::Real> = (0..lanes).map(|l| lane_norm(&data[l * m..(l + 1) * m], ord)).collect();
    let shape = if keepdims { &spec.keep_shape } else { &spec.out_shape };
    Tensor::owned_from(out, IxDyn::from(&shape[..]), Order::RowMajor, op)
}

/// NumPy's `norm(x, ord)` of one vector.
fn lane_norm<T: LinalgScalar>(x: &[T], ord: f64) -> T::Real {
    let abs = x.iter().map(|v| v.modulus());
    let nan_max = |a: T::Real, b: T::Real| {
        if a.is_nan() || b.is_nan() {
            <T::Real as num_traits::Float>::nan()
        } else {
            a.max(b)
        }
    };
    let nan_min = |a: T::Real, b: T::Real| {
        if a.is_nan() || b.is_nan() {
            <T::Real as num_traits::Float>::nan()
        } else {
            a.min(b)
        }
    };
    let z = <T::Real as num_traits::Zero>::zero();
    if ord == f64::INFINITY {
        abs.reduce(nan_max).unwrap_or(z)
    } else if ord == f64::NEG_INFINITY {
        abs.reduce(nan_min).unwrap_or(z)
    } else if ord == 0.0 {
        <T::Real as crate::element::Num>::from_usize(x.iter().filter(|&&v| v != T::zero()).count())
    } else if ord == 1.0 {
        abs.fold(z, |s, v| s + v)
    } else if ord == 2.0 {
        abs.fold(z, |s, v| s + v * v).sqrt()
    } else {
        let p = <T::Real as crate::element::Num>::from_f64(ord);
        abs.fold(z, |s, v| s + v.powf(p))
            .powf(<T::Real as num_traits::One>::one() / p)
    }
}

/// The condition number of each `(..., n, n)` matrix (NumPy's `cond(x, p=None)`):
/// with `None` (or `P(2.0)` / `P(-2.0)`) the ratio of the largest to the smallest
/// singular value (the reverse for `-2`), which needs no square matrix; otherwise
/// `norm(x, p) · norm(inv(x), p)` with [`matrix_norm`]'s orders. A singular matrix gives
/// infinity, as NumPy's. `Err` for empty or (with another `p`) non-square input, or NaN
/// input to the singular-value orders (NumPy's SVD raises).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::{LinalgNormOrd, cond};
/// let a = Tensor::from_vec(vec![1.0f64, 0.0, 0.0, 4.0], [2, 2]).unwrap();
/// assert_eq!(cond(&a, None).unwrap().to_scalar().unwrap(), 4.0);
/// assert_eq!(cond(&a, Some(LinalgNormOrd::P(1.0))).unwrap().to_scalar().unwrap(), 4.0);
/// let s = Tensor::from_vec(vec![1.0f64, 2.0, 2.0, 4.0], [2, 2]).unwrap();
/// assert!(cond(&s, Some(LinalgNormOrd::Fro)).unwrap().to_scalar().unwrap().is_infinite());
/// ```
pub fn cond<T: LinalgScalar, S: Storage<Elem = T>, D: RemoveAxis>(
    x: &TensorBase<S, D>,
    p: Option<LinalgNormOrd>,
) -> Result<Tensor<T::Real, BatchDim<D>>>
where
    D::Smaller: RemoveAxis,
{
    let op = "cond";
    let svd_order = matches!(p, None | Some(LinalgNormOrd::P(2.0)) | Some(LinalgNormOrd::P(-2.0)));
    let b = Batch::of(x, op, !svd_order)?;
    if b.rows == 0 || b.cols == 0 {
        return Err(Error::value(
            op,
            format!("cond is not defined on empty arrays (shape {})", fmt_shape(x.shape())),
        ));
    }
    let inf = <T::Real as num_traits::Float>::infinity();
    let mut out = Vec::with_capacity(b.count());
    if svd_order {
        if !b.data.iter().all(|v| v.all_finite()) {
            return Err(Error::value(op, "SVD did not converge (the input holds infs or NaNs)"));
        }
        for t in 0..b.count() {
            let s = thin_svd(&b.mat(t), op)?.1;
            let (hi, lo) = (s[0], s[s.len() - 1]);
            let r = if p == Some(LinalgNormOrd::P(-2.0)) {
                lo / hi
            } else {
                hi / lo
            };
            // NumPy turns a NaN ratio (0 / 0) into infinity.
            out.push(if r.is_nan() { inf } else { r });
        }
    } else {
        let ord = p.expect("svd orders handled above");
        let norms = matrix_norms(&b, ord, op)?;
        for (t, nx) in norms.into_iter().enumerate() {
            let n = b.rows;
            let has_nan = b.data[t * n * n..(t + 1) * n * n].iter().any(|v| v.has_nan());
            let r = match try_inverse(&b, t) {
                Some(inv) => {
                    let moduli: Vec<T::Real> = (0..n)
                        .flat_map(|i| (0..n).map(move |j| (i, j)))
                        .map(|(i, j)| inv[(i, j)].modulus())
                        .collect();
                    nx * norm_of_moduli(&moduli, &[n, n], ord, || Ok(thin_svd(&inv, op)?.1))?
                }
                None => <T::Real as num_traits::Float>::nan(),
            };
            out.push(if r.is_nan() && !has_nan { inf } else { r });
        }
    }
    tensor(out, &b.batch, &[])
}
