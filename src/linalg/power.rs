//! Products of several matrices: NumPy's `matrix_power` and `multi_dot`.

use super::batch::Batch;
use super::scalar::LinalgScalar;
use crate::element::Num;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn};
use crate::manip::AsDynView;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};
use half::{bf16, f16};
use num_complex::Complex;

/// Element types of [`matrix_power`]: every numeric type for `n ≥ 0`; negative powers
/// need an inverse, which `f32`, `f64` and the complex types have (others give `Err`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::{PowerElement, matrix_power};
/// fn square<T: PowerElement>(a: &Tensor<T, Ix2>) -> Tensor<T, Ix2> { matrix_power(a, 2).unwrap() }
/// let f = Tensor::from_vec(vec![1i64, 1, 1, 0], [2, 2]).unwrap();
/// assert_eq!(square(&f).to_vec(), vec![2, 1, 1, 1]);
/// ```
pub trait PowerElement: Num {
    /// The inverse of each matrix of `a` (square, at least 2-D), or `Err`.
    fn inverse(a: &TensorView<'_, Self, IxDyn>) -> Result<Tensor<Self, IxDyn>>;
}

macro_rules! power_invertible {
    ($($t:ty),*) => {$(
        impl PowerElement for $t {
            fn inverse(a: &TensorView<'_, Self, IxDyn>) -> Result<Tensor<Self, IxDyn>> {
                super::inv(a)
            }
        }
    )*};
}
power_invertible!(f32, f64, Complex<f32>, Complex<f64>);

macro_rules! power_only {
    ($($t:ty),*) => {$(
        impl PowerElement for $t {
            fn inverse(a: &TensorView<'_, Self, IxDyn>) -> Result<Tensor<Self, IxDyn>> {
                Err(Error::value(
                    "matrix_power",
                    format!(
                        "a negative power needs an inverse, which {} matrices do not have (shape {}): cast to a float type first",
                        <$t as crate::element::Element>::NAME,
                        fmt_shape(a.shape())
                    ),
                ))
            }
        }
    )*};
}
power_only!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, bf16);

/// `Err` unless `a` is a stack of square matrices.
fn stacked_square(shape: &[usize], op: &'static str) -> Result<()> {
    let nd = shape.len();
    if nd < 2 {
        return Err(Error::shape(
            op,
            format!(
                "{nd}-dimensional array given; array must be at least two-dimensional (shape {})",
                fmt_shape(shape)
            ),
        ));
    }
    if shape[nd - 1] != shape[nd - 2] {
        return Err(Error::shape(
            op,
            format!(
                "last 2 dimensions of the array must be square, got shape {}",
                fmt_shape(shape)
            ),
        ));
    }
    Ok(())
}

/// `a` raised to the integer power `n` for each square `(..., k, k)` matrix (NumPy's
/// `matrix_power`): `n = 0` gives identities, `n < 0` the power of the inverse;
/// repeated squaring in NumPy's order of products. `Err` for non-square input, or a
/// negative power of a singular matrix or of a type without inverse.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::matrix_power;
/// let a = Tensor::from_vec(vec![0.0f64, 1.0, -1.0, 0.0], [2, 2]).unwrap();
/// assert_eq!(matrix_power(&a, 2).unwrap().to_vec(), vec![-1.0, 0.0, 0.0, -1.0]);
/// assert_eq!(matrix_power(&a, 0).unwrap().to_vec(), vec![1.0, 0.0, 0.0, 1.0]);
/// assert_eq!(matrix_power(&a, -1).unwrap().to_vec(), vec![0.0, -1.0, 1.0, 0.0]);
/// let b: Tensor<f64, Ix2> = matrix_power(&a, 5).unwrap();
/// assert_eq!(b.to_vec(), vec![0.0, 1.0, -1.0, 0.0]);
/// ```
pub fn matrix_power<T: PowerElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    n: i64,
) -> Result<Tensor<T, D>> {
    power_dyn(a, n)?.into_dim()
}

/// [`matrix_power`] with a dynamic-rank result.
fn power_dyn<T: PowerElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    n: i64,
) -> Result<Tensor<T, IxDyn>> {
    let op = "matrix_power";
    stacked_square(a.shape(), op)?;
    let v = a.view().into_dyn();
    if n == 0 {
        let k = a.shape()[a.ndim() - 1];
        let eye = Tensor::from_shape_fn(
            vec![k, k],
            |i: &[usize]| if i[0] == i[1] { T::one() } else { T::zero() },
        );
        return Ok(eye.view().broadcast_to(a.shape().to_vec())?.to_owned());
    }
    let base = if n < 0 { T::inverse(&v)? } else { v.to_owned() };
    let mut n = n.unsigned_abs();
    match n {
        1 => return Ok(base),
        2 => return base.matmul(&base),
        3 => return base.matmul(&base)?.matmul(&base),
        _ => {}
    }
    let mut z: Option<Tensor<T, IxDyn>> = None;
    let mut result: Option<Tensor<T, IxDyn>> = None;
    while n > 0 {
        z = Some(match z {
            None => base.clone(),
            Some(z) => z.matmul(&z)?,
        });
        let bit = n % 2;
        n /= 2;
        if bit == 1 {
            let zz = z.as_ref().expect("set above");
            result = Some(match result {
                None => zz.clone(),
                Some(r) => r.matmul(zz)?,
            });
        }
    }
    Ok(result.expect("n > 0 sets a result"))
}

/// The product of two or more matrices in the cheapest order (NumPy's
/// `multi_dot(arrays)`): the first may be 1-D (a row vector) and the last 1-D (a
/// column vector), the others 2-D; with exactly two inputs it is NumPy's `dot`. The
/// inputs are a slice of references of any ranks and ownership kinds (`&[&v, &m, &w]`,
/// see [`AsDynView`]); the result's rank depends on theirs, hence `IxDyn`. The
/// order minimises scalar multiplications (matrix-chain dynamic programming, NumPy's
/// rule for three). `Err` for fewer than two inputs, other ranks, or shapes that do
/// not chain.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::multi_dot;
/// let a = Tensor::<f64, _>::ones([10, 100]);
/// let b = Tensor::<f64, _>::ones([100, 5]).into_dyn();
/// let c = Tensor::<f64, _>::ones([5]);
/// let r = multi_dot(&[&a, &b, &c]).unwrap();
/// assert_eq!((r.shape(), r.to_vec()[0]), (&[10usize][..], 500.0));
/// ```
pub fn multi_dot<T: Num>(arrays: &[&dyn AsDynView<T>]) -> Result<Tensor<T, IxDyn>> {
    let op = "multi_dot";
    let n = arrays.len();
    if n < 2 {
        return Err(Error::value(op, format!("expecting at least two arrays, got {n}")));
    }
    let views: Vec<TensorView<'_, T, IxDyn>> = arrays.iter().map(|v| v.as_dyn_view()).collect();
    if n == 2 {
        return views[0].dot(&views[1]);
    }
    let (first_1d, last_1d) = (views[0].ndim() == 1, views[n - 1].ndim() == 1);
    let mut mats: Vec<TensorView<'_, T, IxDyn>> = views;
    if first_1d {
        mats[0] = mats[0].unsqueeze(0)?;
    }
    if last_1d {
        mats[n - 1] = mats[n - 1].unsqueeze(1)?;
    }
    for (i, m) in mats.iter().enumerate() {
        if m.ndim() != 2 {
            return Err(Error::shape(
                op,
                format!(
                    "array {i} has {} dimensions (shape {}); multi_dot needs 2-D arrays (1-D at the ends)",
                    m.ndim(),
                    fmt_shape(m.shape())
                ),
            ));
        }
        if i > 0 && mats[i - 1].shape()[1] != m.shape()[0] {
            return Err(Error::shape(
                op,
                format!(
                    "shapes {} (array {}) and {} (array {i}) not aligned",
                    fmt_shape(mats[i - 1].shape()),
                    i - 1,
                    fmt_shape(m.shape())
                ),
            ));
        }
    }
    let result = if n == 3 {
        let (a0, a1) = (mats[0].shape()[0], mats[0].shape()[1]);
        let (c0, c1) = (mats[2].shape()[0], mats[2].shape()[1]);
        let cost1 = a0 * c0 * (a1 + c1);
        let cost2 = a1 * c1 * (a0 + c0);
        if cost1 < cost2 {
            mats[0].matmul(&mats[1])?.matmul(&mats[2])?
        } else {
            mats[0].matmul(&mats[1].matmul(&mats[2])?)?
        }
    } else {
        let order = chain_order(&mats);
        chain(&mats, &order, 0, n - 1)?
    };
    match (first_1d, last_1d) {
        (true, true) => result.into_shape(Vec::<usize>::new()),
        (true, false) | (false, true) => {
            let len = result.size();
            result.into_shape(vec![len])
        }
        _ => Ok(result),
    }
}

/// NumPy's `_multi_dot_matrix_chain_order`: `s[i][j]` is where to split `i..=j`.
fn chain_order<T>(mats: &[TensorView<'_, T, IxDyn>]) -> Vec<Vec<usize>> {
    let n = mats.len();
    let p: Vec<f64> = mats
        .iter()
        .map(|m| m.shape()[0] as f64)
        .chain([mats[n - 1].shape()[1] as f64])
        .collect();
    let mut m = vec![vec![0.0f64; n]; n];
    let mut s = vec![vec![0usize; n]; n];
    for l in 1..n {
        for i in 0..n - l {
            let j = i + l;
            m[i][j] = f64::INFINITY;
            for k in i..j {
                let q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
                if q < m[i][j] {
                    m[i][j] = q;
                    s[i][j] = k;
                }
            }
        }
    }
    s
}

fn chain<T: Num>(mats: &[TensorView<'_, T, IxDyn>], s: &[Vec<usize>], i: usize, j: usize) -> Result<Tensor<T, IxDyn>> {
    if i == j {
        return Ok(mats[i].to_owned());
    }
    let k = s[i][j];
    let (l, r) = (chain(mats, s, i, k)?, chain(mats, s, k + 1, j)?);
    l.matmul(&r)
}

/// The inverse through the LU solver (used for negative powers and `cond`); `None` if
/// a pivot is zero or the result is not finite.
pub(crate) fn try_inverse<T: LinalgScalar>(b: &Batch<T>, t: usize) -> Option<faer::Mat<T>> {
    use faer::linalg::solvers::DenseSolveCore;
    let lu = super::solve::lu_checked(&b.mat(t), "cond").ok()?;
    let inv = lu.inverse();
    let ok = (0..inv.nrows()).all(|i| (0..inv.ncols()).all(|j| inv[(i, j)].all_finite()));
    ok.then_some(inv)
}
