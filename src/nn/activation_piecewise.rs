//! Piecewise-linear activations with parameters (PyTorch semantics): `threshold`,
//! `hardtanh`, `hardshrink`, `softshrink`. Plain comparisons the compiler vectorises;
//! each returns a new row-major tensor of the input's shape and rank type, NaN stays NaN.

use super::util::map_float;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Applies `f(v, a, b)` to every element with the two parameters cast to the kernel's
/// type.
fn with_params<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    a: f64,
    b: f64,
    f32k: fn(f32, f32, f32) -> f32,
    f64k: fn(f64, f64, f64) -> f64,
) -> Tensor<T, D> {
    let (a32, b32) = (a as f32, b as f32);
    map_float(
        x,
        |s: &mut [f32]| s.iter_mut().for_each(|e| *e = f32k(*e, a32, b32)),
        |s: &mut [f64]| s.iter_mut().for_each(|e| *e = f64k(*e, a, b)),
    )
}

macro_rules! both {
    (|$v:ident, $a:ident, $b:ident| $body:expr) => {
        (
            |$v: f32, $a: f32, $b: f32| -> f32 { $body },
            |$v: f64, $a: f64, $b: f64| -> f64 { $body },
        )
    };
}

/// `x` where `x > threshold`, else `value` (PyTorch's `threshold`; NaN stays NaN).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-1.0f32, 0.5, 2.0], [3])?;
/// assert_eq!(ferrotensor::nn::threshold(&x, 0.5, -9.0).to_vec(), vec![-9.0, -9.0, 2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn threshold<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    threshold: f64,
    value: f64,
) -> Tensor<T, D> {
    let (k32, k64) = both!(|v, t, val| if v <= t { val } else { v });
    with_params(x, threshold, value, k32, k64)
}

/// `min(max(x, min_val), max_val)` (PyTorch's `hardtanh`, defaults −1 and 1; NaN stays
/// NaN). With `min_val > max_val` every element becomes `max_val`, as `torch.clamp`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-3.0f64, 0.25, 3.0], [3])?;
/// assert_eq!(ferrotensor::nn::hardtanh(&x, -1.0, 1.0).to_vec(), vec![-1.0, 0.25, 1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn hardtanh<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    min_val: f64,
    max_val: f64,
) -> Tensor<T, D> {
    let (k32, k64) = both!(|v, lo, hi| {
        let v = if v < lo { lo } else { v };
        if v > hi { hi } else { v }
    });
    with_params(x, min_val, max_val, k32, k64)
}

/// `x` where `|x| > λ`, else 0 (PyTorch's `hardshrink`, default `λ = 0.5`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-1.0f32, 0.3, 0.7], [3])?;
/// assert_eq!(ferrotensor::nn::hardshrink(&x, 0.5).to_vec(), vec![-1.0, 0.0, 0.7]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn hardshrink<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>, lambd: f64) -> Tensor<T, D> {
    let (k32, k64) = both!(|v, l, _u| if v >= -l && v <= l { 0.0 } else { v });
    with_params(x, lambd, 0.0, k32, k64)
}

/// `x − λ` where `x > λ`, `x + λ` where `x < −λ`, else 0 (PyTorch's `softshrink`,
/// default `λ = 0.5`; NaN stays NaN). `Err` for a negative or NaN `λ`, as PyTorch.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-1.0f64, 0.25, 2.0], [3])?;
/// assert_eq!(ferrotensor::nn::softshrink(&x, 0.5)?.to_vec(), vec![-0.5, 0.0, 1.5]);
/// assert!(ferrotensor::nn::softshrink(&x, -1.0).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn softshrink<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    lambd: f64,
) -> Result<Tensor<T, D>> {
    if lambd.is_nan() || lambd < 0.0 {
        return Err(Error::value(
            "softshrink",
            format!("lambda must be >= 0, got {lambd} (input {})", fmt_shape(x.shape())),
        ));
    }
    let (k32, k64) = both!(|v, l, _u| if v > l {
        v - l
    } else if v < -l {
        v + l
    } else if v.is_nan() {
        v
    } else {
        0.0
    });
    Ok(with_params(x, lambd, 0.0, k32, k64))
}
