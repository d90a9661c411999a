//! How a 2-D convolution runs: the shape checks shared by [`super::conv2d`] and
//! [`super::Conv2d`], the weights packed for the kernel that suits the layer
//! ([`Packed`]), and the dispatch over element types and paths ([`run_conv`]).
//!
//! | path | when |
//! |---|---|
//! | Winograd F(2×2, 3×3) or F(4×4, 3×3) ([`super::winograd`], the tile chosen per call by [`super::winograd::tile_for`]) | `f32` (and `f16`/`bf16` through `f32`), 3×3, stride 1, dilation 1, one group, ≥ 16 input and output channels, on AVX2 or AVX-512, from [`CHVEC_MAX_POSITIONS`] output positions per call |
//! | channel-vectorised direct ([`super::conv_chvec`]) | `f32` stride-2 convolutions with at least 16 output channels per group, and the Winograd layers' calls with few positions, on AVX2 or AVX-512 |
//! | direct ([`super::conv_direct`]) | other `f32` convolutions with at least half a block of output channels per group and few discarded columns, on AVX2 or AVX-512 |
//! | im2col + GEMM ([`super::conv_gemm`]) | everything else (`f64`, portable CPUs, depthwise, 1×1 stride-1 kernels, whose im2col matrix is the input) |

use super::conv::Conv2dArgs;
use super::conv_block::Level;
use super::conv_chvec::{ChvecWeights, conv2d_chvec};
use super::conv_direct::{DirectWeights, conv2d_direct, suits};
use super::conv_gemm::conv2d_gemm;
use super::epilogue::{Activation, Epilogue};
use super::im2col::Geom;
use super::util::{cast_slice, cast_vec, check_nonzero, dims, from_f32, out_len, to_f32};
use super::winograd::{Tile, WinogradWeights, conv2d_winograd, tile_for};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use std::sync::OnceLock;

/// Positions (`N·OH·OW`) from which a one-off call ([`super::conv2d`]) takes the
/// Winograd path: below, transforming the weights costs more than it saves.
const WINOGRAD_MIN_POSITIONS: usize = 1024;

/// Output positions per call (`N·OH·OW`) up to which a Winograd-shaped layer runs the
/// channel-vectorised direct kernel instead: F(2×2, 3×3) needs `N·OH·OW / 4` tiles to
/// amortise reading its transformed weights (`16·O·C` floats, 1.8× the direct ones) and
/// computes its tiles in whole 16-lane vectors, so below 64 tiles (a 7×7 or 14×14
/// image at batch 1) the direct kernel's 2.25× more multiplications cost less.
pub(crate) const CHVEC_MAX_POSITIONS: usize = 256;

/// The checked weight shape `[O, C_g, kH, kW]`.
pub(crate) fn check_weight(op: &'static str, shape: &[usize], args: &Conv2dArgs) -> Result<[usize; 4]> {
    let [o, cw, kh, kw] = dims::<4>(shape, op, "weight (O, C / groups, kH, kW)")?;
    check_nonzero(op, "stride", &args.stride)?;
    check_nonzero(op, "dilation", &args.dilation)?;
    check_nonzero(op, "groups", &[args.groups])?;
    if o % args.groups != 0 {
        return Err(Error::shape(
            op,
            format!(
                "groups = {} must divide the output channels {o} (weight {})",
                args.groups,
                fmt_shape(shape)
            ),
        ));
    }
    if kh == 0 || kw == 0 {
        return Err(Error::shape(op, format!("empty kernel (weight {})", fmt_shape(shape))));
    }
    Ok([o, cw, kh, kw])
}

/// The batch size and geometry of `input` `(N, C, H, W)` convolved with a weight of
/// shape `w` (checked by [`check_weight`]).
pub(crate) fn check_input(
    op: &'static str,
    input: &[usize],
    w: [usize; 4],
    args: &Conv2dArgs,
) -> Result<(usize, Geom)> {
    let [o, cw, kh, kw] = w;
    let shapes = || format!("input {}, weight {}", fmt_shape(input), fmt_shape(&w));
    let [n, c, h, wd] = dims::<4>(input, op, "input (N, C, H, W)")?;
    let groups = args.groups;
    if c % groups != 0 {
        return Err(Error::shape(
            op,
            format!(
                "groups = {groups} must divide the input channels {c} and the output channels {o} ({})",
                shapes()
            ),
        ));
    }
    if cw != c / groups {
        return Err(Error::shape(
            op,
            format!(
                "weight has {cw} input channels but C / groups = {c} / {groups} = {} ({})",
                c / groups,
                shapes()
            ),
        ));
    }
    let oh = out_len(op, h, kh, args.stride[0], args.padding[0], args.dilation[0], &shapes())?;
    let ow = out_len(op, wd, kw, args.stride[1], args.padding[1], args.dilation[1], &shapes())?;
    Ok((
        n,
        Geom {
            cg: cw,
            h,
            w: wd,
            kh,
            kw,
            oh,
            ow,
            s: args.stride,
            p: args.padding,
            d: args.dilation,
        },
    ))
}

/// `s` as `f32` for the types computed through the `f32` kernels (borrowed for `f32`,
/// converted for `f16`/`bf16`); `None` for `f64`.
pub(crate) fn as_f32<T: Float>(s: &[T]) -> Option<std::borrow::Cow<'_, [f32]>> {
    if let Some(v) = cast_slice::<T, f32>(s) {
        Some(std::borrow::Cow::Borrowed(v))
    } else if cast_slice::<T, f64>(s).is_some() {
        None
    } else {
        Some(std::borrow::Cow::Owned(to_f32(s)))
    }
}

/// The packings of a Winograd-shaped layer, each made on the first call that needs it
/// (the tile and the kernel depend on the call's batch and image size), so that a layer
/// keeps only the copies its calls use.
#[derive(Clone, Debug, Default)]
pub(crate) struct WinogradPacks {
    f2: OnceLock<WinogradWeights>,
    f4: OnceLock<WinogradWeights>,
    /// The channel-vectorised weights for calls with few positions.
    chvec: OnceLock<ChvecWeights>,
}

impl WinogradPacks {
    /// The weights for `tile`, packed from `w`/`b` (`(O, C, 3, 3)`) on first use.
    fn get(&self, tile: Tile, w: &[f32], b: Option<&[f32]>, o: usize, c: usize) -> &WinogradWeights {
        let cell = match tile {
            Tile::F2 => &self.f2,
            Tile::F4 => &self.f4,
        };
        cell.get_or_init(|| WinogradWeights::new(w, b, o, c, tile))
    }
}

/// Weights packed for the kernel that runs them (`f32`, for `f32`, `f16` and `bf16`).
#[derive(Clone, Debug)]
pub(crate) enum Packed {
    /// The Winograd weights (per tile size) and the channel-vectorised ones for calls
    /// with few positions, each packed on first use.
    Winograd(Box<WinogradPacks>),
    Direct(DirectWeights),
    Chvec(ChvecWeights),
    /// The GEMM path reads the weights as they are.
    None,
}

impl Packed {
    /// The packing for a convolution with weight shape `w` and `args` on `level`, from
    /// the `f32` weights and bias. `positions` (`N·OH·OW`) is known for a one-off call
    /// and decides whether the Winograd transform pays; prepared layers pass `None`.
    pub fn new(
        level: Level,
        w32: &[f32],
        b32: Option<&[f32]>,
        w: [usize; 4],
        args: &Conv2dArgs,
        positions: Option<usize>,
    ) -> Self {
        let [o, cg, kh, kw] = w;
        if level == Level::Portable {
            return Packed::None;
        }
        let winograd = kh == 3
            && kw == 3
            && args.stride == [1, 1]
            && args.dilation == [1, 1]
            && args.groups == 1
            && cg >= 16
            && o >= 16;
        if winograd && positions.is_none_or(|p| p >= WINOGRAD_MIN_POSITIONS) {
            return Packed::Winograd(Box::default());
        }
        if winograd && positions.is_some_and(|p| p <= CHVEC_MAX_POSITIONS) {
            return Packed::Chvec(ChvecWeights::new(w32, b32, o, args.groups, cg * kh * kw));
        }
        let pointwise = kh == 1 && kw == 1 && args.stride == [1, 1] && args.padding == [0, 0];
        if pointwise {
            Packed::None
        } else if args.stride == [2, 2] && super::conv_chvec::fits(args.stride, o / args.groups) {
            // Strided layers: the position-vectorised kernel would compute and discard
            // every other column (or read through a phase split); the channel-vectorised
            // one reads the strided input values directly.
            Packed::Chvec(ChvecWeights::new(w32, b32, o, args.groups, cg * kh * kw))
        } else {
            Packed::Direct(DirectWeights::new(w32, b32, o, args.groups, cg * kh * kw))
        }
    }
}

/// Everything one call needs besides the input.
pub(crate) struct ConvCall<'a, T> {
    pub weight: &'a [T],
    /// The weights as `f32` when `T` is `f16`/`bf16` (the GEMM fallback reads them).
    pub weight32: Option<&'a [f32]>,
    pub bias: Option<&'a [T]>,
    pub o: usize,
    pub groups: usize,
    pub packed: &'a Packed,
    pub level: Level,
    pub residual: Option<&'a [T]>,
    pub act: Activation,
}

/// The convolution of the row-major input `x` `(N, C, H, W)`, as a row-major
/// `(N, O, OH, OW)` vector after bias, residual and activation.
pub(crate) fn run_conv<T: Float>(x: &[T], n: usize, g: &Geom, call: &ConvCall<'_, T>) -> Vec<T> {
    if let Some(x32) = cast_slice::<T, f32>(x) {
        fn cast<T: 'static>(s: &[T]) -> &[f32] {
            cast_slice::<T, f32>(s).expect("T is f32")
        }
        let epi = Epilogue {
            residual: call.residual.map(cast),
            act: call.act,
        };
        let out = run_f32(x32, n, g, cast(call.weight), call.bias.map(cast), call, &epi);
        return cast_vec(out).unwrap_or_else(|_| unreachable!("T is f32"));
    }
    if let Some(x64) = cast_slice::<T, f64>(x) {
        fn cast<T: 'static>(s: &[T]) -> &[f64] {
            cast_slice::<T, f64>(s).expect("T is f64")
        }
        let epi = Epilogue {
            residual: call.residual.map(cast),
            act: call.act,
        };
        let out = conv2d_gemm(
            x64,
            cast(call.weight),
            call.bias.map(cast),
            n,
            call.o,
            call.groups,
            g,
            &epi,
        );
        return cast_vec(out).unwrap_or_else(|_| unreachable!("T is f64"));
    }
    // f16/bf16: through f32 (one rounding of the finished output).
    let res32 = call.residual.map(to_f32);
    let epi = Epilogue {
        residual: res32.as_deref(),
        act: call.act,
    };
    let w32 = match call.weight32 {
        Some(w) => std::borrow::Cow::Borrowed(w),
        None => std::borrow::Cow::Owned(to_f32(call.weight)),
    };
    let b32 = call.bias.map(to_f32);
    from_f32(&run_f32(&to_f32(x), n, g, &w32, b32.as_deref(), call, &epi))
}

/// `max_pool(act(conv2d(x)))` in one pass ([`super::conv_chvec_pool`]) when the layer
/// runs the channel-vectorised kernel on `f32`; `None` for other layers (the caller
/// composes the two operations).
pub(crate) fn run_conv_max_pool<T: Float>(
    x: &[T],
    n: usize,
    g: &Geom,
    call: &ConvCall<'_, T>,
    pool: &super::PoolGeom,
) -> Option<Vec<T>> {
    let (Packed::Chvec(cw), Some(x32)) = (call.packed, cast_slice::<T, f32>(x)) else {
        return None;
    };
    if call.residual.is_some() {
        return None;
    }
    let out = super::conv_chvec_pool::conv2d_chvec_max_pool(x32, cw, n, g, call.level, call.act, pool);
    Some(cast_vec(out).unwrap_or_else(|_| unreachable!("T is f32")))
}

/// The `f32` paths.
fn run_f32<T>(
    x: &[f32],
    n: usize,
    g: &Geom,
    w: &[f32],
    b: Option<&[f32]>,
    call: &ConvCall<'_, T>,
    epi: &Epilogue<f32>,
) -> Vec<f32> {
    let (o, groups) = (call.o, call.groups);
    match call.packed {
        Packed::Winograd(p) if n * g.positions() <= CHVEC_MAX_POSITIONS => {
            let cw = p.chvec.get_or_init(|| ChvecWeights::new(w, b, o, groups, g.k()));
            conv2d_chvec(x, cw, n, g, call.level, epi)
        }
        Packed::Winograd(p) => {
            let ww = p.get(tile_for(n, g), w, b, o, g.cg);
            conv2d_winograd(x, ww, n, g, call.level, epi)
        }
        Packed::Chvec(cw) => conv2d_chvec(x, cw, n, g, call.level, epi),
        Packed::Direct(dw) if suits(g, o / groups) => conv2d_direct(x, dw, n, g, call.level, None, epi),
        _ => conv2d_gemm(x, w, b, n, o, groups, g, epi),
    }
}
