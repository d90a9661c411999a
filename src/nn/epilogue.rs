//! What a prepared layer does to its output in the pass that writes it: add a residual
//! tensor, then apply an [`Activation`]. The kernels call [`Epilogue::apply`] on each
//! output span right after storing it (while it is in L1/L2), so a fused
//! `conv → + residual → ReLU` touches the output in memory once.

use super::util::map_float;
use crate::element::Float;
use crate::kernels::vmath::VMath;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// An element-wise activation that [`super::Conv2d`], [`super::Linear`] and
/// [`super::BatchNorm2d`] can apply to their output as they write it (PyTorch
/// semantics; [`Activation::Gelu`] is the exact, erf-based GELU).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::Activation;
/// let x = Tensor::from_vec(vec![-1.0f32, 0.5, 7.0], [3])?;
/// assert_eq!(Activation::Relu6.apply(&x).to_vec(), vec![0.0, 0.5, 6.0]);
/// assert_eq!(Activation::LeakyRelu(0.1).apply(&x).to_vec(), vec![-0.1, 0.5, 7.0]);
/// assert_eq!(Activation::default(), Activation::Identity);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Activation {
    /// No activation.
    #[default]
    Identity,
    /// `max(x, 0)`.
    Relu,
    /// `min(max(x, 0), 6)`.
    Relu6,
    /// `x` for `x ≥ 0`, `slope · x` otherwise.
    LeakyRelu(f64),
    /// `x · sigmoid(x)`.
    Silu,
    /// `x/2 · (1 + erf(x/√2))`.
    Gelu,
    /// `1 / (1 + exp(−x))`.
    Sigmoid,
    /// `tanh(x)`.
    Tanh,
}

impl Activation {
    /// The activation of every element of `x`, as a new row-major tensor of its shape
    /// (the same values as the functions [`super::relu`], [`super::silu`], …).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::from_vec(vec![0.0f64], [1])?;
    /// assert_eq!(ferrotensor::nn::Activation::Sigmoid.apply(&x).to_vec(), vec![0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn apply<T: Float, S: Storage<Elem = T>, D: Dimension>(&self, x: &TensorBase<S, D>) -> Tensor<T, D> {
        let a = *self;
        map_float(x, move |s: &mut [f32]| a.run(s), move |s: &mut [f64]| a.run(s))
    }

    /// Applies the activation in place to a slice of `f32` or `f64`.
    pub(crate) fn run<F: ActFloat>(self, y: &mut [F]) {
        match self {
            Activation::Identity => {}
            Activation::Relu => y.iter_mut().for_each(|v| *v = if *v < F::ZERO { F::ZERO } else { *v }),
            Activation::Relu6 => y.iter_mut().for_each(|v| {
                *v = if *v < F::ZERO {
                    F::ZERO
                } else if *v > F::SIX {
                    F::SIX
                } else {
                    *v
                }
            }),
            Activation::LeakyRelu(s) => {
                let s = F::from_f64(s);
                y.iter_mut().for_each(|v| *v = if *v < F::ZERO { *v * s } else { *v })
            }
            Activation::Silu => F::silu_inplace(y),
            Activation::Gelu => F::gelu_erf_inplace(y),
            Activation::Sigmoid => F::sigmoid_inplace(y),
            Activation::Tanh => F::tanh_inplace(y),
        }
    }
}

/// `f32` and `f64`: the types the epilogue computes in.
pub(crate) trait ActFloat: Float + VMath + std::ops::AddAssign {
    const ZERO: Self;
    const SIX: Self;
}
impl ActFloat for f32 {
    const ZERO: Self = 0.0;
    const SIX: Self = 6.0;
}
impl ActFloat for f64 {
    const ZERO: Self = 0.0;
    const SIX: Self = 6.0;
}

/// The epilogue of one layer call: an optional residual (the output's shape, row-major)
/// and the activation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Epilogue<'a, F> {
    pub residual: Option<&'a [F]>,
    pub act: Activation,
}

impl<'a, F: ActFloat> Epilogue<'a, F> {
    /// Nothing to do.
    #[cfg(test)]
    pub fn none() -> Self {
        Epilogue {
            residual: None,
            act: Activation::Identity,
        }
    }

    pub fn is_identity(&self) -> bool {
        self.residual.is_none() && self.act == Activation::Identity
    }

    /// Finishes the output span `y`, which starts at element `at` of the output:
    /// `y += residual[at..]`, then the activation.
    pub fn apply(&self, y: &mut [F], at: usize) {
        if let Some(r) = self.residual {
            let len = y.len();
            for (v, &rv) in y.iter_mut().zip(&r[at..at + len]) {
                *v += rv;
            }
        }
        self.act.run(y);
    }
}
