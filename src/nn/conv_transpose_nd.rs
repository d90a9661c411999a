//! The 1-D and 3-D transposed convolutions (PyTorch's `conv_transpose1d`,
//! `conv_transpose3d`): argument structs and entry points of the shared engine in
//! [`super::conv_transpose`].

use super::conv_transpose::{TransposeSpec, conv_transpose_nd};
use super::param::Param;
use crate::element::Float;
use crate::error::Result;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Arguments of [`conv_transpose1d`]. `Default` is stride 1, padding 0, output padding
/// 0, dilation 1, groups 1.
///
/// ```
/// let a = ferrotensor::nn::ConvTranspose1dArgs { stride: 2, output_padding: 1, ..Default::default() };
/// assert_eq!((a.padding, a.dilation, a.groups), (0, 1, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvTranspose1dArgs {
    /// Step between the input positions' footprints in the output.
    pub stride: usize,
    /// Implicit zero padding removed from both ends of the output.
    pub padding: usize,
    /// Extra elements added at the end of the output (smaller than stride or dilation).
    pub output_padding: usize,
    /// Spacing between kernel taps.
    pub dilation: usize,
    /// Channel groups.
    pub groups: usize,
}

impl Default for ConvTranspose1dArgs {
    fn default() -> Self {
        ConvTranspose1dArgs {
            stride: 1,
            padding: 0,
            output_padding: 0,
            dilation: 1,
            groups: 1,
        }
    }
}

/// Arguments of [`conv_transpose3d`], each `[depth, rows, cols]` except `groups`.
/// `Default` is stride 1, padding 0, output padding 0, dilation 1, groups 1.
///
/// ```
/// let a = ferrotensor::nn::ConvTranspose3dArgs { stride: [2, 2, 2], ..Default::default() };
/// assert_eq!(a.output_padding, [0, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvTranspose3dArgs {
    /// Step between the input positions' footprints in the output.
    pub stride: [usize; 3],
    /// Implicit zero padding removed from both sides of the output.
    pub padding: [usize; 3],
    /// Extra planes/rows/columns added on one side of the output (smaller than stride
    /// or dilation).
    pub output_padding: [usize; 3],
    /// Spacing between kernel taps.
    pub dilation: [usize; 3],
    /// Channel groups.
    pub groups: usize,
}

impl Default for ConvTranspose3dArgs {
    fn default() -> Self {
        ConvTranspose3dArgs {
            stride: [1; 3],
            padding: [0; 3],
            output_padding: [0; 3],
            dilation: [1; 3],
            groups: 1,
        }
    }
}

/// Transposed 1-D convolution (PyTorch's `conv_transpose1d`) of `input` `(N, C, L)`
/// with `weight` `(C, O / groups, k)` and optional `bias` of length `O`: the output is
/// `(N, O, (L − 1)·s − 2p + d·(k − 1) + output_padding + 1)` of the input's rank type.
/// `Err` as [`conv_transpose2d`](super::conv_transpose2d) (ranks other than 3 here).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{conv_transpose1d, ConvTranspose1dArgs};
/// let x = Tensor::from_vec(vec![1.0f32, 2.0], [1, 1, 2])?;
/// let w = Tensor::from_vec(vec![1.0f32, 10.0, 100.0], [1, 1, 3])?;
/// let y = conv_transpose1d(&x, &w, None, &ConvTranspose1dArgs { stride: 2, ..Default::default() })?;
/// assert_eq!(y.to_vec(), vec![1.0, 10.0, 102.0, 20.0, 200.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn conv_transpose1d<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    input: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&dyn Param<T>>,
    args: &ConvTranspose1dArgs,
) -> Result<Tensor<T, D1>> {
    let spec = TransposeSpec {
        stride: [args.stride],
        padding: [args.padding],
        output_padding: [args.output_padding],
        dilation: [args.dilation],
        groups: args.groups,
    };
    conv_transpose_nd("conv_transpose1d", input, weight, bias, &spec)
}

/// Transposed 3-D convolution (PyTorch's `conv_transpose3d`, the gradient of
/// [`conv3d`](super::conv3d) with respect to its input) of `input` `(N, C, D, H, W)`
/// with `weight` `(C, O / groups, kD, kH, kW)` and optional `bias` of length `O`.
/// Output `(N, O, OD, OH, OW)` of the input's rank type with
/// `OD = (D − 1)·s − 2p + d·(kD − 1) + output_padding + 1` (likewise `OH`, `OW`).
///
/// `Err` for ranks other than 5; zero stride, dilation or groups; `groups` not dividing
/// `C`; weight rows ≠ `C`; bias length ≠ `O`; output padding not smaller than stride
/// or dilation; an empty output.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{conv_transpose3d, ConvTranspose3dArgs};
/// let x = Tensor::from_vec(vec![1.0f64, 2.0], [1, 1, 2, 1, 1])?;
/// let w = Tensor::<f64, _>::ones([1, 2, 2, 1, 1]);
/// let y = conv_transpose3d(&x, &w, None, &ConvTranspose3dArgs::default())?;
/// assert_eq!(y.shape(), &[1, 2, 3, 1, 1]);
/// assert_eq!(y.to_vec(), vec![1.0, 3.0, 2.0, 1.0, 3.0, 2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn conv_transpose3d<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    input: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&dyn Param<T>>,
    args: &ConvTranspose3dArgs,
) -> Result<Tensor<T, D1>> {
    let spec = TransposeSpec {
        stride: args.stride,
        padding: args.padding,
        output_padding: args.output_padding,
        dilation: args.dilation,
        groups: args.groups,
    };
    conv_transpose_nd("conv_transpose3d", input, weight, bias, &spec)
}
