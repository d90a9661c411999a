//! Reverse-mode automatic differentiation: [`Var`], [`Var::backward`] and [`Grads`].
//!
//! A [`Var`] wraps a `Tensor<T, IxDyn>` (`T` = `f32` or `f64`). [`Var::new`] makes a
//! leaf whose gradient is wanted (a parameter), [`Var::constant`] one that only takes
//! part (inputs, targets). Every operation on `Var`s computes its value at once, with
//! the same kernels as on tensors, and records its inputs and a backward rule.
//! `loss.backward()` walks the recorded graph once in reverse topological order and
//! returns the gradient of the 0-d `loss` with respect to every tracked leaf:
//!
//! ```
//! use ferrotensor::prelude::*;
//! use ferrotensor::autograd;
//! // One step of logistic regression by hand.
//! let x = Var::constant(Tensor::from_vec(vec![1.0f64, 2.0, -1.0, 0.5], [2, 2])?);
//! let w = Var::new(Tensor::from_vec(vec![0.1f64, -0.2, 0.3, 0.4], [2, 2])?);
//! let b = Var::new(Tensor::<f64, _>::zeros([2]));
//! let labels = Tensor::from_vec(vec![1i64, 0], [2])?;
//! let logits = &x.matmul(&w)? + &b;                       // bias broadcast over rows
//! let loss = autograd::cross_entropy(&logits, &labels)?;  // mean over the batch
//! let grads = loss.backward()?;
//! assert_eq!(grads.get(&w).unwrap().shape(), &[2, 2]);
//! assert_eq!(grads.get(&b).unwrap().shape(), &[2]);      // summed over the broadcast
//! assert!(grads.get(&x).is_none());                      // a constant
//! # Ok::<(), ferrotensor::Error>(())
//! ```
//!
//! # What is differentiable
//!
//! | group | operations |
//! |---|---|
//! | arithmetic | `+ - * /` and unary `-` (two `Var`s or a scalar on either side, NumPy broadcasting), [`Var::maximum`], [`Var::minimum`] (ties split half/half as PyTorch), [`where_`], [`Var::clip`] |
//! | element-wise | `exp ln tanh sigmoid relu sqrt powf square abs gelu gelu_tanh silu leaky_relu` |
//! | reductions | [`Var::sum`] (0-d), [`Var::mean`], `sum_axes mean_axes max_axes min_axes var var_axes std std_axes cumsum` |
//! | linear algebra | [`Var::matmul`] (NumPy `matmul`: 1-D promotion, batch broadcasting), [`linear`] |
//! | views and copies | `reshape permute t slice broadcast_to squeeze unsqueeze flip index_select gather pad`, [`concatenate`] |
//! | `nn` | [`softmax`], [`log_softmax`], [`conv2d`], [`max_pool2d`], [`avg_pool2d`], [`layer_norm`], [`batch_norm`] (training mode, running statistics updated), [`gelu`] (exact), [`gelu_tanh`], [`silu`], [`leaky_relu`], [`relu`] |
//! | losses (mean over the batch) | [`cross_entropy`], [`nll_loss`], [`mse_loss`], [`bce_with_logits`] |
//!
//! Methods take the same arguments as their [`crate::Tensor`] namesakes and return
//! `Result<Var>` where the tensor method returns a `Result`; shape errors are the tensor
//! operations' own errors. Functions mirror their [`crate::nn`] and [`crate::manip`]
//! twins.
//!
//! # Semantics
//!
//! - **Broadcasting** in the forward pass is undone in the backward pass: an operand
//!   broadcast along an axis receives the sum of the gradient over that axis.
//! - **Views** (`slice` with any steps, `permute`, `t`, `flip`, `broadcast_to`,
//!   `squeeze`, `unsqueeze`, and `reshape` when NumPy would give a view) share their
//!   input's memory in the forward pass and map the gradient back element for element.
//! - A `Var` used several times receives the sum of the gradients of its uses
//!   (accumulated in place).
//! - Non-differentiable points follow PyTorch: `relu` and `abs` have gradient 0 at 0,
//!   `clip` passes the gradient to `x` where `min ≤ x ≤ max` (else to the bound that was taken), `max_axes` splits it evenly among
//!   tied maxima, `maximum`/`minimum` give each operand half at a tie, `max_pool2d`
//!   gives it to the first maximum of each window.
//! - **First order only**: gradients are plain tensors, not `Var`s, so they cannot be
//!   differentiated again (no Hessians, no gradient penalties).
//!
//! # Memory
//!
//! Each node keeps its forward value (views keep only a layout) and its inputs; the
//! whole graph is freed when the last `Var` depending on it — usually the loss — is
//! dropped. `backward` keeps the graph (it can be called again) and frees each
//! intermediate gradient as soon as it has been propagated. Rules reuse forward outputs
//! (`exp`, `tanh`, `sigmoid`, `relu`, `sqrt`, `softmax`), overwrite incoming gradients in
//! place where they can, and never materialise the gradient of `sum`/`mean` or of a
//! broadcast.
//!
//! Training loops pair this with [`crate::optim`] (SGD, Adam, AdamW).

mod activation;
mod arith;
mod backward;
mod conv;
mod grad;
mod grads;
mod indexing;
mod linalg;
mod loss;
mod norm;
mod operators;
mod pool;
mod reduce;
mod select;
mod softmax;
mod unary;
mod var;
mod views;

pub use activation::{gelu, gelu_tanh, leaky_relu, relu, sigmoid, silu, tanh};
pub use conv::conv2d;
pub use grads::Grads;
pub use indexing::concatenate;
pub use linalg::linear;
pub use loss::{bce_with_logits, cross_entropy, mse_loss, nll_loss};
pub use norm::{BatchNormArgs, batch_norm, layer_norm};
pub use pool::{avg_pool2d, max_pool2d};
pub use select::{IntoVar, where_};
pub use softmax::{log_softmax, softmax};
pub use var::Var;
