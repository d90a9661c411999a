//! `conv2d` and `conv1d`, the functional convolutions: argument checks, then the path
//! [`super::conv_plan`] picks (Winograd, direct or im2col + GEMM), with the weights
//! packed for this one call.

use super::conv_block::Level;
use super::conv_plan::{ConvCall, Packed, as_f32, check_input, check_weight, run_conv};
use super::epilogue::Activation;
use super::param::{Param, opt_param_vec};
use super::util::{contiguous, dims, owned_dim};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Arguments of [`conv2d`]: stride, zero padding and dilation as `[rows, cols]`, and the
/// number of groups. `Default` is stride 1, padding 0, dilation 1, groups 1.
///
/// ```
/// let a = ferrotensor::nn::Conv2dArgs { stride: [2, 2], padding: [3, 3], ..Default::default() };
/// assert_eq!(a.dilation, [1, 1]);
/// assert_eq!(a.groups, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2dArgs {
    /// Step between output positions, `[rows, cols]`.
    pub stride: [usize; 2],
    /// Zeros added on both sides, `[rows, cols]`.
    pub padding: [usize; 2],
    /// Spacing between kernel taps, `[rows, cols]`.
    pub dilation: [usize; 2],
    /// Channel groups: input and output channels are split into `groups` blocks that
    /// are convolved independently.
    pub groups: usize,
}

impl Default for Conv2dArgs {
    fn default() -> Self {
        Conv2dArgs {
            stride: [1, 1],
            padding: [0, 0],
            dilation: [1, 1],
            groups: 1,
        }
    }
}

/// Arguments of [`conv1d`]. `Default` is stride 1, padding 0, dilation 1, groups 1.
///
/// ```
/// let a = ferrotensor::nn::Conv1dArgs { stride: 2, ..Default::default() };
/// assert_eq!((a.padding, a.dilation, a.groups), (0, 1, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv1dArgs {
    /// Step between output positions.
    pub stride: usize,
    /// Zeros added on both sides.
    pub padding: usize,
    /// Spacing between kernel taps.
    pub dilation: usize,
    /// Channel groups.
    pub groups: usize,
}

impl Default for Conv1dArgs {
    fn default() -> Self {
        Conv1dArgs {
            stride: 1,
            padding: 0,
            dilation: 1,
            groups: 1,
        }
    }
}

/// 2-D convolution (PyTorch's `conv2d`, a cross-correlation) of `input` `(N, C, H, W)`
/// with `weight` `(O, C / groups, kH, kW)` and an optional `bias` of length `O` (any
/// 1-D tensor or view, see [`Param`]). The output is `(N, O, OH, OW)`, of the input's
/// rank type, with `OH = floor((H + 2p − d(kH − 1) − 1) / s) + 1` (likewise `OW`).
///
/// `Err` (naming the shapes) for: ranks other than 4; zero stride, dilation or groups;
/// `groups` not dividing `C` or `O`; weight channels ≠ `C / groups`; bias not 1-D of
/// length `O`; a dilated kernel larger than the padded input.
///
/// For repeated calls with the same weights, [`super::Conv2d`] packs them once and can
/// fuse the bias, a residual and an activation into the pass that writes the output.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{conv2d, Conv2dArgs};
/// let x = Tensor::<f32, _>::ones([1, 1, 4, 4]);
/// let w = Tensor::<f32, _>::ones([2, 1, 3, 3]);
/// let b = Tensor::from_vec(vec![0.0, 100.0], [2])?;
/// let y = conv2d(&x, &w, Some(&b), &Conv2dArgs { padding: [1, 1], ..Default::default() })?;
/// assert_eq!(y.shape(), &[1, 2, 4, 4]);
/// assert_eq!(y[[0, 0, 0, 0]], 4.0);   // corner: 2×2 of the window inside
/// assert_eq!(y[[0, 1, 1, 1]], 109.0); // interior: 9 ones + bias
/// assert!(conv2d(&x, &Tensor::<f32, _>::ones([2, 3, 3, 3]), None, &Conv2dArgs::default()).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn conv2d<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    input: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&dyn Param<T>>,
    args: &Conv2dArgs,
) -> Result<Tensor<T, D1>> {
    const OP: &str = "conv2d";
    let wshape = check_weight(OP, weight.shape(), args)?;
    let (n, g) = check_input(OP, input.shape(), wshape, args)?;
    let o = wshape[0];
    let shapes = format!(
        "input {}, weight {}",
        fmt_shape(input.shape()),
        fmt_shape(weight.shape())
    );
    let b = opt_param_vec(OP, "bias", bias, o, &shapes)?;
    let x = contiguous(input);
    let wt = contiguous(weight);
    let level = Level::detect();
    let w32 = as_f32(&wt);
    let packed = match &w32 {
        Some(w32) => {
            let b32 = b.as_deref().and_then(as_f32);
            Packed::new(level, w32, b32.as_deref(), wshape, args, Some(n * g.positions()))
        }
        None => Packed::None,
    };
    let call = ConvCall {
        weight: &wt,
        weight32: w32.as_deref(),
        bias: b.as_deref(),
        o,
        groups: args.groups,
        packed: &packed,
        level,
        residual: None,
        act: Activation::Identity,
    };
    let out = run_conv(&x, n, &g, &call);
    Ok(owned_dim(out, &[n, o, g.oh, g.ow]))
}

/// 1-D convolution of `input` `(N, C, L)` with `weight` `(O, C / groups, k)`: the
/// [`conv2d`] of the same data viewed with height 1; the result has the input's rank
/// type. `Err` as [`conv2d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{conv1d, Conv1dArgs};
/// let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0], [1, 1, 5])?;
/// let w = Tensor::from_vec(vec![1.0, 0.0, -1.0], [1, 1, 3])?;
/// let y = conv1d(&x, &w, None, &Conv1dArgs { stride: 2, ..Default::default() })?;
/// assert_eq!(y.to_vec(), vec![-2.0, -2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn conv1d<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    input: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&dyn Param<T>>,
    args: &Conv1dArgs,
) -> Result<Tensor<T, D1>> {
    const OP: &str = "conv1d";
    let [n, c, l] = dims::<3>(input.shape(), OP, "input (N, C, L)")?;
    let [o, cw, k] = dims::<3>(weight.shape(), OP, "weight (O, C / groups, k)")?;
    let x = input.view().into_dyn().reshape([n, c, 1, l])?;
    let wt = weight.view().into_dyn().reshape([o, cw, 1, k])?;
    let a2 = Conv2dArgs {
        stride: [1, args.stride],
        padding: [0, args.padding],
        dilation: [1, args.dilation],
        groups: args.groups,
    };
    let y = conv2d(&x, &wt, bias, &a2).map_err(|e| match e {
        Error::Shape { msg, .. } => Error::shape(OP, msg),
        Error::Value { msg, .. } => Error::value(OP, msg),
        other => other,
    })?;
    let ol = y.shape()[3];
    Ok(owned_dim(y.into_vec(), &[n, o, ol]))
}
