//! `conv2d` and `conv1d`: argument checks, then either the direct `f32` kernel of
//! [`super::conv_direct`] (AVX-512 CPUs) or im2col tiles sized for the cache, each fed to
//! one GEMM.
//!
//! On the GEMM path work is split into tasks `(image, group, tile of output positions)`;
//! each task unfolds its tile (skipped for 1×1 kernels, whose im2col matrix is the input
//! itself), then computes `out[n, group, tile] = bias + W_group @ cols` with one `gemm`
//! call.

use super::conv_direct::{conv2d_direct, suits};
use super::conv_kernel::Level;
use super::im2col::{Geom, im2col_tile};
use super::util::{
    cast_slice, cast_vec, check_bias, check_nonzero, contiguous, dims, from_f32, is_native, out_len, owned, par_tasks,
    to_f32,
};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::{Dimension, Ix1, Ix3, Ix4};
use crate::linalg::gemm_kernels::{MatMut, MatRef, gemm_into};
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

/// Bytes of im2col scratch per task: small enough to stay in L2 next to the GEMM's
/// packed panels.
const TILE_BYTES: usize = 1 << 20;

/// 2-D convolution (PyTorch's `conv2d`, a cross-correlation) of `input` `(N, C, H, W)`
/// with `weight` `(O, C / groups, kH, kW)` and an optional `bias` of length `O`.
/// The output is `(N, O, OH, OW)` with `OH = floor((H + 2p − d(kH − 1) − 1) / s) + 1`
/// (likewise `OW`).
///
/// `Err` (naming the shapes) for: ranks other than 4; zero stride, dilation or groups;
/// `groups` not dividing `C` or `O`; weight channels ≠ `C / groups`; bias length ≠ `O`;
/// a dilated kernel larger than the padded input.
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
    bias: Option<&Tensor<T, Ix1>>,
    args: &Conv2dArgs,
) -> Result<Tensor<T, Ix4>> {
    const OP: &str = "conv2d";
    let shapes = || {
        format!(
            "input {}, weight {}",
            fmt_shape(input.shape()),
            fmt_shape(weight.shape())
        )
    };
    let [n, c, h, w] = dims::<4>(input.shape(), OP, "input (N, C, H, W)")?;
    let [o, cw, kh, kw] = dims::<4>(weight.shape(), OP, "weight (O, C / groups, kH, kW)")?;
    check_nonzero(OP, "stride", &args.stride)?;
    check_nonzero(OP, "dilation", &args.dilation)?;
    check_nonzero(OP, "groups", &[args.groups])?;
    let groups = args.groups;
    if c % groups != 0 || o % groups != 0 {
        return Err(Error::shape(
            OP,
            format!(
                "groups = {groups} must divide the input channels {c} and the output channels {o} ({})",
                shapes()
            ),
        ));
    }
    if cw != c / groups {
        return Err(Error::shape(
            OP,
            format!(
                "weight has {cw} input channels but C / groups = {c} / {groups} = {} ({})",
                c / groups,
                shapes()
            ),
        ));
    }
    check_bias(OP, bias, o, &shapes())?;
    if kh == 0 || kw == 0 {
        return Err(Error::shape(OP, format!("empty kernel ({})", shapes())));
    }
    let oh = out_len(OP, h, kh, args.stride[0], args.padding[0], args.dilation[0], &shapes())?;
    let ow = out_len(OP, w, kw, args.stride[1], args.padding[1], args.dilation[1], &shapes())?;
    let g = Geom {
        cg: cw,
        h,
        w,
        kh,
        kw,
        oh,
        ow,
        s: args.stride,
        p: args.padding,
        d: args.dilation,
    };
    let x = contiguous(input);
    let wt = contiguous(weight);
    let b = bias.map(|b| b.to_vec());
    if is_native::<T>() {
        let out = conv2d_core(&x, &wt, b.as_deref(), n, o, groups, &g);
        return Ok(owned(out, [n, o, oh, ow]));
    }
    let bf = b.as_deref().map(to_f32);
    let out = conv2d_core(&to_f32(&x), &to_f32(&wt), bf.as_deref(), n, o, groups, &g);
    Ok(owned(from_f32(&out), [n, o, oh, ow]))
}

/// The convolution on row-major buffers of a GEMM-native type; returns `(N, O, OH, OW)`.
/// `f32` with AVX-512 takes the direct kernel (see [`super::conv_direct`]) unless the
/// kernel is 1×1 (the input is then already the GEMM operand) or the shape does not suit
/// it; everything else goes through im2col tiles and GEMM.
fn conv2d_core<T: Float>(x: &[T], wt: &[T], bias: Option<&[T]>, n: usize, o: usize, groups: usize, g: &Geom) -> Vec<T> {
    if let (Some(x32), Some(w32)) = (cast_slice::<T, f32>(x), cast_slice::<T, f32>(wt)) {
        let level = Level::detect();
        if level != Level::Portable && !g.is_pointwise() && suits(g, o / groups) {
            let b32 = bias.map(|b| cast_slice::<T, f32>(b).expect("bias has the input's type"));
            let out = conv2d_direct(x32, w32, b32, n, o, groups, g, level, None);
            return cast_vec(out).unwrap_or_else(|_| unreachable!("T is f32"));
        }
    }
    conv2d_gemm(x, wt, bias, n, o, groups, g)
}

/// The im2col + GEMM convolution (any GEMM-native type).
fn conv2d_gemm<T: Float>(x: &[T], wt: &[T], bias: Option<&[T]>, n: usize, o: usize, groups: usize, g: &Geom) -> Vec<T> {
    let (k, p_all) = (g.k(), g.positions());
    let og = o / groups;
    let mut out = vec![T::zero(); n * o * p_all];
    if out.is_empty() {
        return out;
    }
    let pointwise = g.is_pointwise();
    let tile = if pointwise {
        p_all
    } else {
        (TILE_BYTES / (k * size_of::<T>()).max(1))
            .clamp(64, p_all.max(64))
            .min(p_all)
    };
    let tiles = p_all.div_ceil(tile);
    let tasks = n * groups * tiles;
    let plane_in = groups * g.cg * g.h * g.w;
    let optr = SendPtr(out.as_mut_ptr());
    let out_len = out.len();
    // One thread per task; GEMM threads only when there are fewer tasks than threads.
    let gemm_threads = if tasks >= crate::threads::num_threads() {
        1
    } else {
        crate::threads::num_threads()
    };
    par_tasks(
        tasks,
        || {
            if pointwise {
                Vec::new()
            } else {
                vec![T::zero(); k * tile]
            }
        },
        |cols, t| {
            let (ni, rest) = (t / (groups * tiles), t % (groups * tiles));
            let (gi, ti) = (rest / tiles, rest % tiles);
            let p0 = ti * tile;
            let len = tile.min(p_all - p0);
            let xg = &x[ni * plane_in + gi * g.cg * g.h * g.w..][..g.cg * g.h * g.w];
            let rhs = if pointwise {
                MatRef {
                    ptr: xg.as_ptr().wrapping_add(p0),
                    rs: p_all as isize,
                    cs: 1,
                }
            } else {
                im2col_tile(xg, g, p0, len, cols);
                MatRef::row_major(cols, 0, k, len)
            };
            let lhs = MatRef::row_major(wt, gi * og * k, og, k);
            let d0 = (ni * o + gi * og) * p_all + p0;
            assert!(
                d0 + (og - 1) * p_all + len <= out_len,
                "conv2d: output tile outside buffer"
            );
            let dst = optr.get().wrapping_add(d0);
            if let Some(b) = bias {
                for r in 0..og {
                    // SAFETY: row r of this task's tile, inside `out` (asserted above);
                    // tasks write disjoint (image, group, tile) blocks.
                    let row = unsafe { std::slice::from_raw_parts_mut(dst.add(r * p_all), len) };
                    row.fill(b[gi * og + r]);
                }
            }
            // SAFETY: dst is the og × len block at (ni, gi·og, p0) with row stride OH·OW,
            // inside `out` (asserted above) and written by this task only; lhs is the
            // group's og × k weight block inside `wt` (checked by `row_major`); rhs is
            // either the k × len im2col tile in `cols` or, for 1×1 kernels, the group's
            // input channels (k = C_g rows of OH·OW = H·W positions) from column p0 on.
            unsafe {
                gemm_into(
                    bias.is_some(),
                    og,
                    len,
                    k,
                    lhs,
                    rhs,
                    MatMut {
                        ptr: dst,
                        rs: p_all as isize,
                        cs: 1,
                    },
                    gemm_threads,
                )
            };
        },
    );
    out
}

/// 1-D convolution of `input` `(N, C, L)` with `weight` `(O, C / groups, k)`: the
/// [`conv2d`] of the same data viewed with height 1. `Err` as [`conv2d`].
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
    bias: Option<&Tensor<T, Ix1>>,
    args: &Conv1dArgs,
) -> Result<Tensor<T, Ix3>> {
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
    let [_, _, _, ol] = *y.dim();
    y.into_shape([n, o, ol])
}
