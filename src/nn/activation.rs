//! Activation functions (PyTorch semantics), each returning a new row-major tensor
//! of the input's shape. NaN inputs give NaN. `sigmoid`, `silu`, `gelu`, `gelu_tanh`
//! and `tanh` use the vectorised kernels of [`crate::kernels::vmath`].

use super::util::map_float;
use crate::element::Float;
use crate::kernels::vmath::VMath;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Applies `$body` (an expression in `$v`, written with untyped float literals) to
/// every element, for `f32` and `f64`.
macro_rules! pointwise {
    ($x:expr, |$v:ident| $body:expr) => {
        map_float(
            $x,
            |s: &mut [f32]| {
                for e in s.iter_mut() {
                    let $v = *e;
                    *e = $body;
                }
            },
            |s: &mut [f64]| {
                for e in s.iter_mut() {
                    let $v = *e;
                    *e = $body;
                }
            },
        )
    };
}

/// `max(x, 0)`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-1.0f32, 0.5], [2])?;
/// assert_eq!(ferrotensor::nn::relu(&x).to_vec(), vec![0.0, 0.5]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn relu<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    pointwise!(x, |v| if v < 0.0 { 0.0 } else { v })
}

/// `min(max(x, 0), 6)`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-1.0f64, 3.0, 9.0], [3])?;
/// assert_eq!(ferrotensor::nn::relu6(&x).to_vec(), vec![0.0, 3.0, 6.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn relu6<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    pointwise!(x, |v| v.clamp(0.0, 6.0))
}

/// `x` for `x ≥ 0`, `negative_slope · x` otherwise (PyTorch's default slope is 0.01).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-2.0f32, 2.0], [2])?;
/// assert_eq!(ferrotensor::nn::leaky_relu(&x, 0.1).to_vec(), vec![-0.2, 2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn leaky_relu<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    negative_slope: T,
) -> Tensor<T, D> {
    let (a32, a64) = (negative_slope.to_f32(), negative_slope.to_f64());
    map_float(
        x,
        |s: &mut [f32]| s.iter_mut().for_each(|e| *e = if *e < 0.0 { *e * a32 } else { *e }),
        |s: &mut [f64]| s.iter_mut().for_each(|e| *e = if *e < 0.0 { *e * a64 } else { *e }),
    )
}

/// `x` for `x > 0`, `alpha · (exp(x) − 1)` otherwise (computed with `exp_m1`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-1.0f64, 2.0], [2])?;
/// let y = ferrotensor::nn::elu(&x, 1.0);
/// assert!((y[[0]] - (-0.6321205588285577)).abs() < 1e-15);
/// assert_eq!(y[[1]], 2.0);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn elu<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>, alpha: T) -> Tensor<T, D> {
    let (a32, a64) = (alpha.to_f32(), alpha.to_f64());
    map_float(
        x,
        |s: &mut [f32]| {
            s.iter_mut()
                .for_each(|e| *e = if *e > 0.0 { *e } else { a32 * e.exp_m1() })
        },
        |s: &mut [f64]| {
            s.iter_mut()
                .for_each(|e| *e = if *e > 0.0 { *e } else { a64 * e.exp_m1() })
        },
    )
}

/// `relu6(x + 3) / 6`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-4.0f32, 0.0, 4.0], [3])?;
/// assert_eq!(ferrotensor::nn::hardsigmoid(&x).to_vec(), vec![0.0, 0.5, 1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn hardsigmoid<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    pointwise!(x, |v| (v + 3.0).clamp(0.0, 6.0) / 6.0)
}

/// `x · relu6(x + 3) / 6`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-4.0f32, 1.0, 4.0], [3])?;
/// assert_eq!(ferrotensor::nn::hardswish(&x).to_vec(), vec![-0.0, 4.0 / 6.0, 4.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn hardswish<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    pointwise!(x, |v| v * (v + 3.0).clamp(0.0, 6.0) / 6.0)
}

/// `1 / (1 + exp(−x))` (vectorised).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![0.0f32], [1])?;
/// assert_eq!(ferrotensor::nn::sigmoid(&x).to_vec(), vec![0.5]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn sigmoid<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(x, f32::sigmoid_inplace, f64::sigmoid_inplace)
}

/// `x · sigmoid(x)` (vectorised).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![0.0f64, 1.0], [2])?;
/// let y = ferrotensor::nn::silu(&x);
/// assert!((y[[1]] - 0.7310585786300049).abs() < 1e-15);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn silu<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(x, f32::silu_inplace, f64::silu_inplace)
}

/// GELU with the exact error function, `x/2 · (1 + erf(x/√2))` (PyTorch's default
/// `approximate='none'`; vectorised).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f64], [1])?;
/// assert!((ferrotensor::nn::gelu(&x)[[0]] - 0.8413447460685429).abs() < 1e-15);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn gelu<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(x, f32::gelu_erf_inplace, f64::gelu_erf_inplace)
}

/// GELU, tanh approximation (PyTorch's `approximate='tanh'`; vectorised).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32], [1])?;
/// assert!((ferrotensor::nn::gelu_tanh(&x)[[0]] - 0.841192).abs() < 1e-6);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn gelu_tanh<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(x, f32::gelu_inplace, f64::gelu_inplace)
}

/// Hyperbolic tangent (vectorised).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![0.0f32, 100.0], [2])?;
/// assert_eq!(ferrotensor::nn::tanh(&x).to_vec(), vec![0.0, 1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn tanh<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Tensor<T, D> {
    map_float(x, f32::tanh_inplace, f64::tanh_inplace)
}
