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
//! | pooling and resizing | [`max_pool2d`], [`avg_pool2d`] (and `_into` a caller-owned output), [`adaptive_avg_pool2d`], [`upsample_nearest2d`], [`upsample_bilinear2d`] |
//! | 1-D and 3-D convolution, transposed | [`conv3d`], [`conv_transpose1d`], [`conv_transpose3d`] |
//! | 1-D and 3-D pooling | [`max_pool1d`], [`max_pool3d`] (and `_with_indices`), [`avg_pool1d`], [`avg_pool3d`] |
//! | adaptive pooling | [`adaptive_avg_pool1d`], [`adaptive_avg_pool3d`], [`adaptive_max_pool1d`], [`adaptive_max_pool2d`], [`adaptive_max_pool3d`] |
//! | sliding blocks | [`unfold`] (im2col), [`fold`] (col2im) |
//! | activations | [`relu`], [`relu6`], [`leaky_relu`], [`elu`], [`hardsigmoid`], [`hardswish`], [`sigmoid`], [`silu`], [`gelu`], [`gelu_tanh`], [`tanh`] |
//! | more activations | [`selu`], [`celu`], [`mish`], [`glu`], [`prelu`], [`softsign`], [`softmin`], [`softplus`], [`tanhshrink`], [`threshold`], [`hardtanh`], [`log_sigmoid`], [`hardshrink`], [`softshrink`] |
//! | normalisation and layers | [`group_norm`], [`instance_norm`], [`embedding`], [`one_hot`], [`scaled_dot_product_attention`] |
//! | resizing and sampling | [`interpolate`] (bicubic, antialias), [`grid_sample`], [`affine_grid`] |
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
mod activation_gated;
mod activation_piecewise;
mod activation_smooth;
mod attention;
mod chw;
mod chw_fill;
mod conv;
mod conv3d;
mod conv3d_depth;
mod conv_block;
#[cfg(test)]
mod conv_block_tests;
mod conv_chvec;
mod conv_chvec_kernel;
mod conv_chvec_pool;
#[cfg(test)]
mod conv_chvec_tests;
mod conv_direct;
#[cfg(test)]
mod conv_direct_tests;
mod conv_gemm;
mod conv_layer;
mod conv_phase;
mod conv_plan;
mod conv_store;
mod conv_transpose;
mod conv_transpose_nd;
mod embedding;
mod epilogue;
mod flatten;
mod grid_sample;
mod group_norm;
mod im2col;
mod interpolate;
mod linear;
mod linear_packed;
mod linear_small;
mod norm;
mod norm_layer;
mod param;
mod pool;
mod pool1d;
mod pool3d;
mod pool3d_kernel;
mod pool_adaptive;
mod pool_adaptive_nd;
mod pool_band1d;
mod pool_geom;
mod pool_global_arg;
mod pool_indices;
mod pool_into;
mod pool_kernel;
#[cfg(test)]
mod pool_kernel_tests;
mod pool_nd;
mod pool_rows;
mod pool_stride2;
mod simd;
mod softmax;
mod softmax_kernels;
mod unfold;
mod upsample;
pub(crate) mod util;
mod vol2col;
mod winograd;
mod winograd_f4;
#[cfg(test)]
mod winograd_tests;
mod winograd_transform;

pub use activation::{elu, gelu, gelu_tanh, hardsigmoid, hardswish, leaky_relu, relu, relu6, sigmoid, silu, tanh};
pub use activation_gated::{glu, prelu, softmin};
pub use activation_piecewise::{hardshrink, hardtanh, softshrink, threshold};
pub use activation_smooth::{celu, log_sigmoid, mish, selu, softplus, softsign, tanhshrink};
pub use attention::{AttnMask, scaled_dot_product_attention};
pub use chw::ChwTensor;
pub use conv::{Conv1dArgs, Conv2dArgs, conv1d, conv2d};
pub use conv_layer::Conv2d;
pub use conv_transpose::{ConvTranspose2dArgs, conv_transpose2d};
pub use conv_transpose_nd::{ConvTranspose1dArgs, ConvTranspose3dArgs, conv_transpose1d, conv_transpose3d};
pub use conv3d::{Conv3dArgs, conv3d};
pub use embedding::{embedding, one_hot};
pub use epilogue::Activation;
pub use flatten::flatten;
pub use grid_sample::{GridPadding, GridSampleMode, affine_grid, grid_sample};
pub use group_norm::{group_norm, instance_norm};
pub use interpolate::{InterpolateMode, interpolate};
pub use linear::{Linear, linear};
pub use norm::{batch_norm, layer_norm, rms_norm};
pub use norm_layer::BatchNorm2d;
pub use param::Param;
pub use pool::{AvgPool2dArgs, MaxPool2dArgs, avg_pool2d, avg_pool2d_with, max_pool2d, max_pool2d_with};
pub use pool_adaptive::{adaptive_avg_pool2d, global_avg_pool2d};
pub use pool_adaptive_nd::{
    adaptive_avg_pool1d, adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d,
};
pub(crate) use pool_geom::{PoolGeom, Window as PoolWindow};
pub use pool_indices::{max_pool2d_with_indices, max_unpool2d};
pub use pool_into::{avg_pool2d_into, max_pool2d_into};
pub use pool1d::{AvgPool1dArgs, MaxPool1dArgs, avg_pool1d, max_pool1d, max_pool1d_with_indices};
pub use pool3d::{AvgPool3dArgs, MaxPool3dArgs, avg_pool3d, max_pool3d, max_pool3d_with_indices};
pub use softmax::{log_softmax, softmax};
pub use unfold::{UnfoldArgs, fold, unfold};
pub use upsample::{Resize, upsample_bilinear2d, upsample_nearest2d};
