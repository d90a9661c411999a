//! `conv_transpose1d` (the 2-D transposed convolution of the data seen with height 1)
//! and `conv_transpose3d` (one GEMM `Wᵀ @ X` per image and group giving every kernel
//! tap's contribution, then col2vol scatter-adds the taps into the output).

use super::conv_transpose::{ConvTranspose2dArgs, conv_transpose2d};
use super::param::{Param, opt_param_vec};
use super::util::{check_nonzero, contiguous, dims, from_f32, is_native, owned_dim, par_tasks, to_f32};
use super::vol2col::{Geom3, col2vol_add};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::Dimension;
use crate::linalg::gemm_kernels::{MatMut, MatRef, gemm};
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
/// `Err` as [`conv_transpose2d`] (ranks other than 3 here).
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
    const OP: &str = "conv_transpose1d";
    let [n, c, l] = dims::<3>(input.shape(), OP, "input (N, C, L)")?;
    let [cw, og, k] = dims::<3>(weight.shape(), OP, "weight (C, O / groups, k)")?;
    let x = input.view().into_dyn().reshape([n, c, 1, l])?;
    let wt = weight.view().into_dyn().reshape([cw, og, 1, k])?;
    let a2 = ConvTranspose2dArgs {
        stride: [1, args.stride],
        padding: [0, args.padding],
        output_padding: [0, args.output_padding],
        dilation: [1, args.dilation],
        groups: args.groups,
    };
    let y = conv_transpose2d(&x, &wt, bias, &a2).map_err(|e| match e {
        Error::Shape { msg, .. } => Error::shape(OP, msg),
        Error::Value { msg, .. } => Error::value(OP, msg),
        other => other,
    })?;
    let (o, ol) = (y.shape()[1], y.shape()[3]);
    Ok(owned_dim(y.into_vec(), &[n, o, ol]))
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
    const OP: &str = "conv_transpose3d";
    let shapes = format!(
        "input {}, weight {}",
        fmt_shape(input.shape()),
        fmt_shape(weight.shape())
    );
    let [n, c, id, ih, iw] = dims::<5>(input.shape(), OP, "input (N, C, D, H, W)")?;
    let [cw, og, kd, kh, kw] = dims::<5>(weight.shape(), OP, "weight (C, O / groups, kD, kH, kW)")?;
    check_nonzero(OP, "stride", &args.stride)?;
    check_nonzero(OP, "dilation", &args.dilation)?;
    check_nonzero(OP, "groups", &[args.groups])?;
    let groups = args.groups;
    if c % groups != 0 {
        return Err(Error::shape(
            OP,
            format!("groups = {groups} must divide the input channels {c} ({shapes})"),
        ));
    }
    if cw != c {
        return Err(Error::shape(
            OP,
            format!("weight has {cw} input channels, input has {c} ({shapes})"),
        ));
    }
    let o = og * groups;
    let b = opt_param_vec(OP, "bias", bias, o, &shapes)?;
    let (s, p, op_, d) = (args.stride, args.padding, args.output_padding, args.dilation);
    if (0..3).any(|a| op_[a] >= s[a] && op_[a] >= d[a]) {
        return Err(Error::value(
            OP,
            format!("output padding {op_:?} must be smaller than stride {s:?} or dilation {d:?} ({shapes})"),
        ));
    }
    let (input_len, kernel) = ([id, ih, iw], [kd, kh, kw]);
    let mut out = [0; 3];
    for a in 0..3 {
        let full = (input_len[a].max(1) - 1) * s[a] + d[a] * (kernel[a].max(1) - 1) + op_[a] + 1;
        if input_len[a] == 0 || kernel[a] == 0 || full <= 2 * p[a] {
            return Err(Error::shape(OP, format!("empty output for padding {p:?} ({shapes})")));
        }
        out[a] = full - 2 * p[a];
    }
    // The scatter is the col2vol of the convolution whose input is this output.
    let g = Geom3 {
        cg: og,
        input: out,
        kernel,
        out: input_len,
        s,
        p,
        d,
    };
    let x = contiguous(input);
    let wt = contiguous(weight);
    let y = if is_native::<T>() {
        core(&x, &wt, b.as_deref(), n, c / groups, groups, &g)
    } else {
        let bf = b.as_deref().map(to_f32);
        from_f32(&core(
            &to_f32(&x),
            &to_f32(&wt),
            bf.as_deref(),
            n,
            c / groups,
            groups,
            &g,
        ))
    };
    Ok(owned_dim(y, &[n, o, out[0], out[1], out[2]]))
}

/// Per (image, group): `cols = W_gᵀ @ X_g` (`O_g·kD·kH·kW × D·H·W`), then bias and
/// col2vol into the group's output channels.
fn core<T: Float>(x: &[T], wt: &[T], bias: Option<&[T]>, n: usize, cg: usize, groups: usize, g: &Geom3) -> Vec<T> {
    let og = g.cg;
    let rows = og * g.kernel.iter().product::<usize>();
    let (hw, ohw) = (g.out.iter().product::<usize>(), g.input.iter().product::<usize>());
    let o = og * groups;
    let mut out = vec![T::zero(); n * o * ohw];
    if out.is_empty() {
        return out;
    }
    let optr = SendPtr(out.as_mut_ptr());
    let tasks = n * groups;
    let gemm_threads = if tasks >= crate::threads::num_threads() {
        1
    } else {
        crate::threads::num_threads()
    };
    par_tasks(
        tasks,
        || vec![T::zero(); rows * hw],
        |cols, t| {
            let (ni, gi) = (t / groups, t % groups);
            let xg = &x[(ni * groups + gi) * cg * hw..][..cg * hw];
            let lhs = MatRef::row_major(wt, gi * cg * rows, cg, rows).t();
            // SAFETY: `cols` is this task's rows × hw buffer; lhs reads the group's
            // weight block (bounds checked by `row_major`), rhs the group's C_g × D·H·W
            // input channels (a subslice of `x`).
            unsafe {
                gemm(
                    rows,
                    hw,
                    cg,
                    lhs,
                    MatRef::row_major(xg, 0, cg, hw),
                    MatMut {
                        ptr: cols.as_mut_ptr(),
                        rs: hw as isize,
                        cs: 1,
                    },
                    gemm_threads,
                )
            };
            let base = (ni * o + gi * og) * ohw;
            // SAFETY: the (image, group) output block, written only by this task.
            let ob = unsafe { std::slice::from_raw_parts_mut(optr.get().add(base), og * ohw) };
            if let Some(b) = bias {
                for (oc, plane) in ob.chunks_mut(ohw).enumerate() {
                    plane.fill(b[gi * og + oc]);
                }
            }
            col2vol_add(cols, g, ob);
        },
    );
    out
}
