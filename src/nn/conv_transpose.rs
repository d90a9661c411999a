//! Transposed convolution over 1 to 3 spatial axes (`conv_transpose2d` here, the 1-D
//! and 3-D entry points in [`super::conv_transpose_nd`]): one GEMM per (image, group)
//! giving every kernel tap's contribution (`Wᵀ @ X`), then col2vol scatter-adds the
//! taps into the output.

use super::param::{Param, opt_param_vec};
use super::util::{check_nonzero, contiguous, from_f32, is_native, owned_dim, par_tasks, to_f32};
use super::vol2col::{Geom3, col2vol_add};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::Dimension;
use crate::linalg::gemm_kernels::{MatMut, MatRef, gemm};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Arguments of [`conv_transpose2d`], each `[rows, cols]` except `groups`. `Default` is
/// stride 1, padding 0, output padding 0, dilation 1, groups 1.
///
/// ```
/// let a = ferrotensor::nn::ConvTranspose2dArgs { stride: [2, 2], ..Default::default() };
/// assert_eq!(a.output_padding, [0, 0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvTranspose2dArgs {
    /// Step between the input positions' footprints in the output.
    pub stride: [usize; 2],
    /// Implicit zero padding removed from both sides of the output.
    pub padding: [usize; 2],
    /// Extra rows/columns added on one side of the output (smaller than stride or
    /// dilation).
    pub output_padding: [usize; 2],
    /// Spacing between kernel taps.
    pub dilation: [usize; 2],
    /// Channel groups.
    pub groups: usize,
}

impl Default for ConvTranspose2dArgs {
    fn default() -> Self {
        ConvTranspose2dArgs {
            stride: [1, 1],
            padding: [0, 0],
            output_padding: [0, 0],
            dilation: [1, 1],
            groups: 1,
        }
    }
}

/// Transposed 2-D convolution (PyTorch's `conv_transpose2d`, the gradient of
/// [`conv2d`](super::conv2d) with respect to its input) of `input` `(N, C, H, W)` with
/// `weight` `(C, O / groups, kH, kW)` and optional `bias` of length `O` (any 1-D tensor or
/// view). Output `(N, O, OH, OW)` of the input's rank type with
/// `OH = (H − 1)·s − 2p + d·(kH − 1) + output_padding + 1` (likewise `OW`).
///
/// `Err` for ranks other than 4; zero stride, dilation or groups; `groups` not dividing
/// `C`; weight rows ≠ `C`; bias length ≠ `O`; output padding not smaller than stride or
/// dilation; an empty output.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{conv_transpose2d, ConvTranspose2dArgs};
/// let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], [1, 1, 2, 2])?;
/// let w = Tensor::<f32, _>::ones([1, 1, 2, 2]);
/// let y = conv_transpose2d(&x, &w, None, &ConvTranspose2dArgs { stride: [2, 2], ..Default::default() })?;
/// assert_eq!(y.shape(), &[1, 1, 4, 4]);
/// assert_eq!(y.to_vec()[..4].to_vec(), vec![1.0, 1.0, 2.0, 2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn conv_transpose2d<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    input: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&dyn Param<T>>,
    args: &ConvTranspose2dArgs,
) -> Result<Tensor<T, D1>> {
    let spec = TransposeSpec {
        stride: args.stride,
        padding: args.padding,
        output_padding: args.output_padding,
        dilation: args.dilation,
        groups: args.groups,
    };
    conv_transpose_nd("conv_transpose2d", input, weight, bias, &spec)
}

/// The arguments of a transposed convolution over `N` spatial axes.
pub(crate) struct TransposeSpec<const N: usize> {
    pub stride: [usize; N],
    pub padding: [usize; N],
    pub output_padding: [usize; N],
    pub dilation: [usize; N],
    pub groups: usize,
}

/// The transposed convolution over `N ≤ 3` spatial axes of `input` `(N, C, spatial…)`
/// with `weight` `(C, O / groups, kernel…)`: checks, then runs on the geometry lifted to
/// 3 axes (unit axes in front).
pub(crate) fn conv_transpose_nd<
    T: Float,
    S1: Storage<Elem = T>,
    D1: Dimension,
    S2: Storage<Elem = T>,
    D2: Dimension,
    const N: usize,
>(
    op: &'static str,
    input: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&dyn Param<T>>,
    spec: &TransposeSpec<N>,
) -> Result<Tensor<T, D1>> {
    let shapes = format!(
        "input {}, weight {}",
        fmt_shape(input.shape()),
        fmt_shape(weight.shape())
    );
    let rank_err = |what: &str, shape: &[usize]| {
        Error::shape(
            op,
            format!("expected a {}-D {what}, got shape {}", N + 2, fmt_shape(shape)),
        )
    };
    let (xs, ws) = (input.shape(), weight.shape());
    if xs.len() != N + 2 {
        return Err(rank_err("input (N, C, spatial…)", xs));
    }
    if ws.len() != N + 2 {
        return Err(rank_err("weight (C, O / groups, kernel…)", ws));
    }
    let (n, c, cw, og) = (xs[0], xs[1], ws[0], ws[1]);
    let (s, p, op_, d) = (spec.stride, spec.padding, spec.output_padding, spec.dilation);
    check_nonzero(op, "stride", &s)?;
    check_nonzero(op, "dilation", &d)?;
    check_nonzero(op, "groups", &[spec.groups])?;
    let groups = spec.groups;
    if c % groups != 0 {
        return Err(Error::shape(
            op,
            format!("groups = {groups} must divide the input channels {c} ({shapes})"),
        ));
    }
    if cw != c {
        return Err(Error::shape(
            op,
            format!("weight has {cw} input channels, input has {c} ({shapes})"),
        ));
    }
    let o = og * groups;
    let b = opt_param_vec(op, "bias", bias, o, &shapes)?;
    if (0..N).any(|a| op_[a] >= s[a] && op_[a] >= d[a]) {
        return Err(Error::value(
            op,
            format!("output padding {op_:?} must be smaller than stride {s:?} or dilation {d:?} ({shapes})"),
        ));
    }
    // Lifted to 3 axes; the scatter is the col2vol of the convolution whose input is
    // this output.
    let (mut input_len, mut kernel, mut out) = ([1; 3], [1; 3], [1; 3]);
    let (mut s3, mut p3, mut d3) = ([1; 3], [0; 3], [1; 3]);
    for a in 0..N {
        let (len, k) = (xs[2 + a], ws[2 + a]);
        let full = (len.max(1) - 1) * s[a] + d[a] * (k.max(1) - 1) + op_[a] + 1;
        if len == 0 || k == 0 || full <= 2 * p[a] {
            return Err(Error::shape(op, format!("empty output for padding {p:?} ({shapes})")));
        }
        let b3 = 3 - N + a;
        (input_len[b3], kernel[b3], out[b3]) = (len, k, full - 2 * p[a]);
        (s3[b3], p3[b3], d3[b3]) = (s[a], p[a], d[a]);
    }
    let g = Geom3 {
        cg: og,
        input: out,
        kernel,
        out: input_len,
        s: s3,
        p: p3,
        d: d3,
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
    let mut shape = vec![n, o];
    shape.extend_from_slice(&out[3 - N..]);
    Ok(owned_dim(y, &shape))
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
