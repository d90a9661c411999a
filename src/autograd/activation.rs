//! Activation functions as free functions mirroring their [`crate::nn`] twins (each
//! the same as the [`Var`] method of that name).

use super::var::Var;
use crate::element::Float;

/// `max(x, 0)` (as [`crate::nn::relu`]); see [`Var::relu`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![-1.0f32, 2.0], [2])?);
/// assert_eq!(ferrotensor::autograd::relu(&x).value().to_vec(), vec![0.0, 2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn relu<T: Float>(x: &Var<T>) -> Var<T> {
    x.relu()
}

/// Exact (erf) GELU (as [`crate::nn::gelu`]); see [`Var::gelu`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
/// assert_eq!(ferrotensor::autograd::gelu(&x).value().to_vec(), vec![0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn gelu<T: Float>(x: &Var<T>) -> Var<T> {
    x.gelu()
}

/// GELU, tanh approximation (as [`crate::nn::gelu_tanh`]); see [`Var::gelu_tanh`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
/// assert_eq!(ferrotensor::autograd::gelu_tanh(&x).value().to_vec(), vec![0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn gelu_tanh<T: Float>(x: &Var<T>) -> Var<T> {
    x.gelu_tanh()
}

/// SiLU `x·sigmoid(x)` (as [`crate::nn::silu`]); see [`Var::silu`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
/// assert_eq!(ferrotensor::autograd::silu(&x).value().to_vec(), vec![0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn silu<T: Float>(x: &Var<T>) -> Var<T> {
    x.silu()
}

/// Leaky ReLU (as [`crate::nn::leaky_relu`]); see [`Var::leaky_relu`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![-2.0f64], [1])?);
/// assert_eq!(ferrotensor::autograd::leaky_relu(&x, 0.5).value().to_vec(), vec![-1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn leaky_relu<T: Float>(x: &Var<T>, negative_slope: T) -> Var<T> {
    x.leaky_relu(negative_slope)
}

/// Logistic sigmoid (as [`crate::nn::sigmoid`]); see [`Var::sigmoid`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
/// assert_eq!(ferrotensor::autograd::sigmoid(&x).value().to_vec(), vec![0.5]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn sigmoid<T: Float>(x: &Var<T>) -> Var<T> {
    x.sigmoid()
}

/// Hyperbolic tangent (as [`crate::nn::tanh`]); see [`Var::tanh`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
/// assert_eq!(ferrotensor::autograd::tanh(&x).value().to_vec(), vec![0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn tanh<T: Float>(x: &Var<T>) -> Var<T> {
    x.tanh()
}
