//! Smooth activations built on the vectorised `exp`, `ln` and `tanh` of
//! [`crate::kernels::vmath`] (PyTorch semantics): `softplus`, `log_sigmoid`, `mish`,
//! `selu`, `celu`, `softsign`, `tanhshrink`. Each returns a new row-major tensor of the
//! input's shape and rank type; NaN inputs give NaN.

use super::util::map_float;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::kernels::vmath::VMath;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Elements per block of the kernels' stack scratch.
const PART: usize = 256;

/// `ln(1 + u)` for `u ≥ 0` from `l = ln(1 + u)` as rounded (Goldberg's correction:
/// exact to a few ulps even where `1 + u` rounds to 1).
#[inline(always)]
fn log1p_fix<E: Float>(u: E, l: E) -> E {
    let w = E::one() + u;
    if w == E::one() { u } else { l * u / (w - E::one()) }
}

/// `log1p(exp(−|x|))` of every element of `s`, in place (vectorised `exp` and `ln`).
#[inline(always)]
fn log1p_exp_neg_abs<E: Float + VMath>(s: &mut [E], tmp: &mut [E]) {
    for v in s.iter_mut() {
        *v = -v.abs();
    }
    E::exp_inplace(s);
    for (t, &u) in tmp.iter_mut().zip(s.iter()) {
        *t = E::one() + u;
    }
    E::ln_inplace(tmp);
    for (v, &l) in s.iter_mut().zip(tmp.iter()) {
        *v = log1p_fix(*v, l);
    }
}

/// `softplus(x·β)/β`, the identity where `x·β > threshold` (PyTorch's rule).
fn softplus_kernel<E: Float + VMath>(s: &mut [E], beta: E, threshold: E) {
    let (mut sp, mut tmp) = ([E::zero(); PART], [E::zero(); PART]);
    for ch in s.chunks_mut(PART) {
        let n = ch.len();
        let (sp, tmp) = (&mut sp[..n], &mut tmp[..n]);
        for (t, &x) in sp.iter_mut().zip(ch.iter()) {
            *t = x * beta;
        }
        log1p_exp_neg_abs(sp, tmp);
        for (x, &l) in ch.iter_mut().zip(sp.iter()) {
            let z = *x * beta;
            // softplus(z) = max(z, 0) + log1p(exp(−|z|)); NaN stays NaN through `l`.
            let soft = (if z > E::zero() { z } else { E::zero() } + l) / beta;
            *x = if z > threshold { *x } else { soft };
        }
    }
}

/// `min(x, 0) − log1p(exp(−|x|))`.
fn log_sigmoid_kernel<E: Float + VMath>(s: &mut [E]) {
    let (mut l, mut tmp) = ([E::zero(); PART], [E::zero(); PART]);
    for ch in s.chunks_mut(PART) {
        let n = ch.len();
        let (l, tmp) = (&mut l[..n], &mut tmp[..n]);
        l.copy_from_slice(ch);
        log1p_exp_neg_abs(l, tmp);
        for (x, &l) in ch.iter_mut().zip(l.iter()) {
            *x = if *x < E::zero() { *x } else { E::zero() } - l;
        }
    }
}

/// `x · tanh(softplus(x))` (softplus with β = 1, threshold 20 as PyTorch).
fn mish_kernel<E: Float + VMath>(s: &mut [E]) {
    let mut t = [E::zero(); PART];
    for ch in s.chunks_mut(PART) {
        let t = &mut t[..ch.len()];
        t.copy_from_slice(ch);
        softplus_kernel(t, E::one(), E::from_f64(20.0));
        E::tanh_inplace(t);
        for (x, &y) in ch.iter_mut().zip(t.iter()) {
            *x = *x * y;
        }
    }
}

/// `x − tanh(x)`.
fn tanhshrink_kernel<E: Float + VMath>(s: &mut [E]) {
    let mut t = [E::zero(); PART];
    for ch in s.chunks_mut(PART) {
        let t = &mut t[..ch.len()];
        E::tanh_slice(ch, t);
        for (x, &y) in ch.iter_mut().zip(t.iter()) {
            *x = *x - y;
        }
    }
}

/// `scale · (max(0, x) + min(0, α·(exp(x/α·in) − 1)))` with `exp_m1` (ELU family).
fn elu_family_kernel<E: Float>(s: &mut [E], alpha: E, scale: E, input_scale: E) {
    for e in s.iter_mut() {
        let x = *e;
        *e = if x > E::zero() {
            scale * x
        } else {
            scale * alpha * (x * input_scale).exp_m1()
        };
    }
}

/// Softplus (PyTorch's `softplus(x, beta, threshold)`, defaults `beta = 1`,
/// `threshold = 20`): `ln(1 + exp(β·x)) / β`, and `x` itself where `β·x > threshold`.
/// Computed stably as `max(β·x, 0) + log1p(exp(−|β·x|))` with the vectorised `exp`/`ln`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![0.0f64, 30.0, -40.0], [3])?;
/// let y = ferrotensor::nn::softplus(&x, 1.0, 20.0);
/// assert!((y[[0]] - 2f64.ln()).abs() < 1e-15);
/// assert_eq!(y[[1]], 30.0);
/// assert!((y[[2]] - (-40f64).exp()).abs() < 1e-30);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn softplus<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    beta: f64,
    threshold: f64,
) -> Tensor<T, D> {
    let (b32, t32) = (beta as f32, threshold as f32);
    map_float(
        x,
        |s: &mut [f32]| softplus_kernel(s, b32, t32),
        |s: &mut [f64]| softplus_kernel(s, beta, threshold),
    )
}

/// `ln(sigmoid(x))`, computed stably as `min(x, 0) − log1p(exp(−|x|))` (no overflow or
/// `ln 0` for large `|x|`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![0.0f32, -200.0, 200.0], [3])?;
/// let y = ferrotensor::nn::log_sigmoid(&x);
/// assert!((y[[0]] + 2f32.ln()).abs() < 1e-7);
/// assert_eq!(y[[1]], -200.0);
/// assert_eq!(y[[2]], 0.0);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn log_sigmoid<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(x, log_sigmoid_kernel::<f32>, log_sigmoid_kernel::<f64>)
}

/// Mish, `x · tanh(softplus(x))` (vectorised).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f64, 0.0], [2])?;
/// let y = ferrotensor::nn::mish(&x);
/// assert!((y[[0]] - 0.8650983882673103).abs() < 1e-14);
/// assert_eq!(y[[1]], 0.0);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn mish<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(x, mish_kernel::<f32>, mish_kernel::<f64>)
}

/// `x − tanh(x)` (vectorised `tanh`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![0.0f32, 100.0], [2])?;
/// assert_eq!(ferrotensor::nn::tanhshrink(&x).to_vec(), vec![0.0, 99.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn tanhshrink<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(x, tanhshrink_kernel::<f32>, tanhshrink_kernel::<f64>)
}

/// `x / (1 + |x|)`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-3.0f32, 1.0], [2])?;
/// assert_eq!(ferrotensor::nn::softsign(&x).to_vec(), vec![-0.75, 0.5]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn softsign<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(
        x,
        |s: &mut [f32]| s.iter_mut().for_each(|e| *e /= 1.0 + e.abs()),
        |s: &mut [f64]| s.iter_mut().for_each(|e| *e /= 1.0 + e.abs()),
    )
}

/// PyTorch's SELU constants `α` and `scale` (Klambauer et al.).
const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

/// SELU, `scale · (max(0, x) + min(0, α·(exp(x) − 1)))` with PyTorch's constants
/// `α = 1.6732632423543772`, `scale = 1.0507009873554805`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f64, -1.0], [2])?;
/// let y = ferrotensor::nn::selu(&x);
/// assert!((y[[0]] - 1.0507009873554805).abs() < 1e-15);
/// assert!((y[[1]] - (-1.1113307378125628)).abs() < 1e-15);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn selu<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(
        x,
        |s: &mut [f32]| elu_family_kernel(s, SELU_ALPHA as f32, SELU_SCALE as f32, 1.0),
        |s: &mut [f64]| elu_family_kernel(s, SELU_ALPHA, SELU_SCALE, 1.0),
    )
}

/// CELU, `max(0, x) + min(0, α·(exp(x/α) − 1))` (PyTorch's default `α = 1`). `Err` for
/// `α = 0` (PyTorch divides by it).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![2.0f64, -2.0], [2])?;
/// let y = ferrotensor::nn::celu(&x, 2.0)?;
/// assert_eq!(y[[0]], 2.0);
/// assert!((y[[1]] - 2.0 * (-1f64).exp_m1()).abs() < 1e-15);
/// assert!(ferrotensor::nn::celu(&x, 0.0).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn celu<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>, alpha: f64) -> Result<Tensor<T, D>> {
    if alpha == 0.0 {
        return Err(Error::value(
            "celu",
            format!("alpha must be nonzero (input {})", fmt_shape(x.shape())),
        ));
    }
    let inv = 1.0 / alpha;
    Ok(map_float(
        x,
        |s: &mut [f32]| elu_family_kernel(s, alpha as f32, 1.0, inv as f32),
        |s: &mut [f64]| elu_family_kernel(s, alpha, 1.0, inv),
    ))
}
