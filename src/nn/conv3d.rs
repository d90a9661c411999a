//! `conv3d`: 3-D convolution (PyTorch's, a cross-correlation): with deep channels a sum
//! of 2-D convolutions over the kernel's depth taps ([`super::conv3d_depth`]), else
//! lowered to vol2col tiles and one GEMM per tile, through the same driver as the 2-D
//! GEMM path.

use super::conv_gemm::conv2d_gemm;
use super::conv3d_depth::{conv3d_by_depth, takes};
use super::epilogue::{Activation, Epilogue};
use super::param::{Param, opt_param_vec};
use super::util::{cast_slice, cast_vec, check_nonzero, contiguous, dims, from_f32, out_len, owned_dim, to_f32};
use super::vol2col::Geom3;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Arguments of [`conv3d`]: stride, zero padding and dilation as
/// `[depth, rows, cols]`, and the number of groups. `Default` is stride 1, padding 0,
/// dilation 1, groups 1.
///
/// ```
/// let a = ferrotensor::nn::Conv3dArgs { padding: [1, 1, 1], ..Default::default() };
/// assert_eq!((a.stride, a.dilation, a.groups), ([1, 1, 1], [1, 1, 1], 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv3dArgs {
    /// Step between output positions.
    pub stride: [usize; 3],
    /// Zeros added on both sides.
    pub padding: [usize; 3],
    /// Spacing between kernel taps.
    pub dilation: [usize; 3],
    /// Channel groups: input and output channels are split into `groups` blocks that
    /// are convolved independently.
    pub groups: usize,
}

impl Default for Conv3dArgs {
    fn default() -> Self {
        Conv3dArgs {
            stride: [1; 3],
            padding: [0; 3],
            dilation: [1; 3],
            groups: 1,
        }
    }
}

/// 3-D convolution (PyTorch's `conv3d`, a cross-correlation) of `input`
/// `(N, C, D, H, W)` with `weight` `(O, C / groups, kD, kH, kW)` and an optional `bias`
/// of length `O`. The output is `(N, O, OD, OH, OW)`, of the input's rank type, with
/// `OD = floor((D + 2p − d(kD − 1) − 1) / s) + 1` (likewise `OH`, `OW`).
///
/// `Err` (naming the shapes) for: ranks other than 5; zero stride, dilation or groups;
/// `groups` not dividing `C` or `O`; weight channels ≠ `C / groups`; an empty kernel;
/// bias not 1-D of length `O`; a dilated kernel larger than the padded input.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{conv3d, Conv3dArgs};
/// let x = Tensor::<f32, _>::ones([1, 1, 3, 3, 3]);
/// let w = Tensor::<f32, _>::ones([1, 1, 2, 2, 2]);
/// let y = conv3d(&x, &w, None, &Conv3dArgs::default())?;
/// assert_eq!(y.shape(), &[1, 1, 2, 2, 2]);
/// assert_eq!(y.to_vec(), vec![8.0; 8]);
/// assert!(conv3d(&x, &Tensor::<f32, _>::ones([1, 2, 2, 2, 2]), None, &Conv3dArgs::default()).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn conv3d<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    input: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&dyn Param<T>>,
    args: &Conv3dArgs,
) -> Result<Tensor<T, D1>> {
    const OP: &str = "conv3d";
    let shapes = format!(
        "input {}, weight {}",
        fmt_shape(input.shape()),
        fmt_shape(weight.shape())
    );
    let [n, c, id, ih, iw] = dims::<5>(input.shape(), OP, "input (N, C, D, H, W)")?;
    let [o, cw, kd, kh, kw] = dims::<5>(weight.shape(), OP, "weight (O, C / groups, kD, kH, kW)")?;
    check_nonzero(OP, "stride", &args.stride)?;
    check_nonzero(OP, "dilation", &args.dilation)?;
    check_nonzero(OP, "groups", &[args.groups])?;
    let groups = args.groups;
    if c % groups != 0 || o % groups != 0 {
        return Err(Error::shape(
            OP,
            format!("groups = {groups} must divide the input channels {c} and the output channels {o} ({shapes})"),
        ));
    }
    if cw != c / groups {
        return Err(Error::shape(
            OP,
            format!(
                "weight has {cw} input channels but C / groups = {c} / {groups} = {} ({shapes})",
                c / groups
            ),
        ));
    }
    if kd * kh * kw == 0 {
        return Err(Error::shape(OP, format!("empty kernel ({shapes})")));
    }
    let b = opt_param_vec(OP, "bias", bias, o, &shapes)?;
    let (input_len, kernel) = ([id, ih, iw], [kd, kh, kw]);
    let mut out = [0; 3];
    for a in 0..3 {
        let (s, p, d) = (args.stride[a], args.padding[a], args.dilation[a]);
        out[a] = out_len(OP, input_len[a], kernel[a], s, p, d, &shapes)?;
    }
    let g = Geom3 {
        cg: c / groups,
        input: input_len,
        kernel,
        out,
        s: args.stride,
        p: args.padding,
        d: args.dilation,
    };
    if n > 0 && takes::<T>(&g, o, groups) {
        let y = conv3d_by_depth(input, weight, b.as_deref(), o, groups, &g)?;
        return Ok(owned_dim(y, &[n, o, out[0], out[1], out[2]]));
    }
    let x = contiguous(input);
    let wt = contiguous(weight);
    fn epi<F>() -> Epilogue<'static, F> {
        Epilogue {
            residual: None,
            act: Activation::Identity,
        }
    }
    let y: Vec<T> = if let (Some(x), Some(w)) = (cast_slice::<T, f32>(&x), cast_slice::<T, f32>(&wt)) {
        let b = b.as_deref().map(|b| cast_slice::<T, f32>(b).expect("T is f32"));
        cast_vec(conv2d_gemm(x, w, b, n, o, groups, &g, &epi())).unwrap_or_else(|_| unreachable!("T is f32"))
    } else if let (Some(x), Some(w)) = (cast_slice::<T, f64>(&x), cast_slice::<T, f64>(&wt)) {
        let b = b.as_deref().map(|b| cast_slice::<T, f64>(b).expect("T is f64"));
        cast_vec(conv2d_gemm(x, w, b, n, o, groups, &g, &epi())).unwrap_or_else(|_| unreachable!("T is f64"))
    } else {
        let b = b.as_deref().map(to_f32);
        let y = conv2d_gemm(&to_f32(&x), &to_f32(&wt), b.as_deref(), n, o, groups, &g, &epi());
        from_f32(&y)
    };
    Ok(owned_dim(y, &[n, o, out[0], out[1], out[2]]))
}
