//! Neural-network inference functions on NCHW tensors, and the KuiperInfer-style
//! [`ChwTensor`].
//!
//! Every function takes its inputs as `&TensorBase<S, D>` of any ownership kind and any
//! layout (views, transposes, slices), checks the shapes and returns `Err` naming the
//! operation and the shapes when they do not fit. Results are new row-major tensors.
//! Semantics follow PyTorch (`torch.nn.functional`): cross-correlation, zero padding,
//! floor output sizes.
//!
//! | group | functions |
//! |---|---|
//! | normalisation | [`softmax`], [`log_softmax`], [`layer_norm`], [`rms_norm`], [`batch_norm`] |
//! | linear and convolution | [`linear`], [`conv1d`], [`conv2d`], [`conv_transpose2d`] |
//! | pooling and resizing | [`max_pool2d`], [`avg_pool2d`], [`adaptive_avg_pool2d`], [`upsample_nearest2d`], [`upsample_bilinear2d`] |
//! | activations | [`relu`], [`relu6`], [`leaky_relu`], [`elu`], [`hardsigmoid`], [`hardswish`], [`sigmoid`], [`silu`], [`gelu`], [`gelu_tanh`], [`tanh`] |
//!
//! `f32` convolutions on AVX-512 CPUs run a direct kernel over a stride-phase-split copy
//! of the input (no im2col matrix); other convolutions are lowered to GEMM (the `gemm`
//! crate) over cache-sized im2col tiles;
//! softmax runs a fused per-row kernel with the vectorised `exp` of
//! [`crate::kernels::vmath`]. `f16`/`bf16` compute through `f32`.
//!
//! ```
//! use ferrotensor::prelude::*;
//! use ferrotensor::nn;
//! let x = Tensor::<f32, _>::from_shape_fn([1, 2, 4, 4], |i| (i[2] * 4 + i[3] + 1) as f32);
//! let w = Tensor::from_vec([1., 2., 3., 3., 2., 1., 1., 2., 3.].repeat(2), [1, 2, 3, 3])?;
//! let y = nn::conv2d(&x, &w, None, &nn::Conv2dArgs::default())?;
//! assert_eq!(y.to_vec(), vec![220.0, 256.0, 364.0, 400.0]);
//! # Ok::<(), ferrotensor::Error>(())
//! ```

mod activation;
mod chw;
mod chw_fill;
mod conv;
mod conv_direct;
#[cfg(test)]
mod conv_direct_tests;
mod conv_kernel;
mod conv_phase;
mod conv_transpose;
mod im2col;
mod linear;
mod norm;
mod pool;
mod softmax;
mod upsample;
pub(crate) mod util;

pub use activation::{elu, gelu, gelu_tanh, hardsigmoid, hardswish, leaky_relu, relu, relu6, sigmoid, silu, tanh};
pub use chw::ChwTensor;
pub use conv::{Conv1dArgs, Conv2dArgs, conv1d, conv2d};
pub use conv_transpose::{ConvTranspose2dArgs, conv_transpose2d};
pub use linear::linear;
pub use norm::{batch_norm, layer_norm, rms_norm};
pub use pool::{adaptive_avg_pool2d, avg_pool2d, max_pool2d};
pub use softmax::{log_softmax, softmax};
pub use upsample::{Resize, upsample_bilinear2d, upsample_nearest2d};
