//! `conv_transpose2d`: one GEMM per (image, group) giving every kernel tap's
//! contribution (`Wᵀ @ X`), then col2im scatter-adds the taps into the output.

use super::param::{Param, opt_param_vec};
use super::util::{check_nonzero, contiguous, dims, from_f32, is_native, owned_dim, par_tasks, to_f32, valid_range};
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
    const OP: &str = "conv_transpose2d";
    let shapes = || {
        format!(
            "input {}, weight {}",
            fmt_shape(input.shape()),
            fmt_shape(weight.shape())
        )
    };
    let [n, c, h, w] = dims::<4>(input.shape(), OP, "input (N, C, H, W)")?;
    let [cw, og, kh, kw] = dims::<4>(weight.shape(), OP, "weight (C, O / groups, kH, kW)")?;
    check_nonzero(OP, "stride", &args.stride)?;
    check_nonzero(OP, "dilation", &args.dilation)?;
    check_nonzero(OP, "groups", &[args.groups])?;
    let groups = args.groups;
    if c % groups != 0 {
        return Err(Error::shape(
            OP,
            format!("groups = {groups} must divide the input channels {c} ({})", shapes()),
        ));
    }
    if cw != c {
        return Err(Error::shape(
            OP,
            format!("weight has {cw} input channels, input has {c} ({})", shapes()),
        ));
    }
    let o = og * groups;
    let b = opt_param_vec(OP, "bias", bias, o, &shapes())?;
    let (s, p, op_, d) = (args.stride, args.padding, args.output_padding, args.dilation);
    for a in 0..2 {
        if op_[a] >= s[a] && op_[a] >= d[a] {
            return Err(Error::value(
                OP,
                format!("output padding {op_:?} must be smaller than stride {s:?} or dilation {d:?}"),
            ));
        }
    }
    let full = |len: usize, k: usize, a: usize| (len.max(1) - 1) * s[a] + d[a] * (k.max(1) - 1) + op_[a] + 1;
    let (fh, fw) = (full(h, kh, 0), full(w, kw, 1));
    if h == 0 || w == 0 || kh == 0 || kw == 0 || fh <= 2 * p[0] || fw <= 2 * p[1] {
        return Err(Error::shape(
            OP,
            format!("empty output for padding {p:?} ({})", shapes()),
        ));
    }
    let g = TGeom {
        cg: c / groups,
        og,
        h,
        w,
        kh,
        kw,
        oh: fh - 2 * p[0],
        ow: fw - 2 * p[1],
        s,
        p,
        d,
    };
    let x = contiguous(input);
    let wt = contiguous(weight);
    let out = if is_native::<T>() {
        core(&x, &wt, b.as_deref(), n, groups, &g)
    } else {
        let bf = b.as_deref().map(to_f32);
        from_f32(&core(&to_f32(&x), &to_f32(&wt), bf.as_deref(), n, groups, &g))
    };
    Ok(owned_dim(out, &[n, o, g.oh, g.ow]))
}

struct TGeom {
    cg: usize,
    og: usize,
    h: usize,
    w: usize,
    kh: usize,
    kw: usize,
    oh: usize,
    ow: usize,
    s: [usize; 2],
    p: [usize; 2],
    d: [usize; 2],
}

fn core<T: Float>(x: &[T], wt: &[T], bias: Option<&[T]>, n: usize, groups: usize, g: &TGeom) -> Vec<T> {
    let (hw, ohw, kk) = (g.h * g.w, g.oh * g.ow, g.kh * g.kw);
    let rows = g.og * kk;
    let o = g.og * groups;
    let mut out = vec![T::zero(); n * o * ohw];
    let optr = SendPtr(out.as_mut_ptr());
    let tasks = n * groups;
    let gemm_threads = if tasks >= crate::threads::num_threads() {
        1
    } else {
        crate::threads::num_threads()
    };
    // Valid input columns per kernel column: ow = iw·s − p + kj·d ∈ [0, OW).
    let cols_ok: Vec<(usize, usize)> = (0..g.kw)
        .map(|kj| valid_range((kj * g.d[1]) as isize - g.p[1] as isize, g.s[1], g.ow, g.w))
        .collect();
    par_tasks(
        tasks,
        || vec![T::zero(); rows * hw],
        |cols, t| {
            let (ni, gi) = (t / groups, t % groups);
            let xg = &x[(ni * groups + gi) * g.cg * hw..][..g.cg * hw];
            // Wᵀ of the group's (C_g × O_g·kH·kW) block.
            let lhs = MatRef::row_major(wt, gi * g.cg * rows, g.cg, rows).t();
            // SAFETY: `cols` is a fresh rows × hw buffer owned by this task; lhs reads the
            // group's weight block (bounds checked by `row_major`), rhs the group's
            // C_g × H·W input channels (a subslice of `x`).
            unsafe {
                gemm(
                    rows,
                    hw,
                    g.cg,
                    lhs,
                    MatRef::row_major(xg, 0, g.cg, hw),
                    MatMut {
                        ptr: cols.as_mut_ptr(),
                        rs: hw as isize,
                        cs: 1,
                    },
                    gemm_threads,
                )
            };
            let base = (ni * o + gi * g.og) * ohw;
            // SAFETY: the (image, group) output block, written only by this task.
            let ob = unsafe { std::slice::from_raw_parts_mut(optr.get().add(base), g.og * ohw) };
            for oc in 0..g.og {
                let plane = &mut ob[oc * ohw..(oc + 1) * ohw];
                if let Some(b) = bias {
                    plane.fill(b[gi * g.og + oc]);
                }
                for ki in 0..g.kh {
                    for (kj, &(lo, hi)) in cols_ok.iter().enumerate() {
                        let r = (oc * g.kh + ki) * g.kw + kj;
                        let crow = &cols[r * hw..(r + 1) * hw];
                        for ih in 0..g.h {
                            let oh = (ih * g.s[0] + ki * g.d[0]) as isize - g.p[0] as isize;
                            if oh < 0 || oh >= g.oh as isize || lo >= hi {
                                continue;
                            }
                            let first = lo * g.s[1] + kj * g.d[1] - g.p[1];
                            let orow = &mut plane[oh as usize * g.ow + first..];
                            let src = &crow[ih * g.w + lo..ih * g.w + hi];
                            for (o, &v) in orow.iter_mut().step_by(g.s[1]).zip(src) {
                                *o = *o + v;
                            }
                        }
                    }
                }
            }
        },
    );
    out
}
