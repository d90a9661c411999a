//! The pooling kernels: one task per `(n, c)` plane (in parallel), and per output row
//!
//! 1. the vertical reduction of the window's input rows into one padded row (whole
//!    vectors across the row; −∞ or 0 in the padding),
//! 2. for stride 2 a split of that row into even and odd columns, for other strides
//!    above 1 into `s` phases, so that every horizontal tap is one contiguous run,
//! 3. the horizontal reduction over the taps, a vector of outputs at a time, and for
//!    averages the division by each window's count.
//!
//! Written once over [`Simd`]: AVX-512 and AVX2 for `f32` (picked at run time),
//! portable for `f32` without them and for `f64`; `f16`/`bf16` go through `f32`.

use super::conv_block::Level;
use super::pool_geom::PoolGeom;
use super::pool_stride2;
use super::simd::{Scalar, Simd};
use super::util::{cast_slice, from_f32, par_tasks, to_f32};
use crate::element::Float;
use crate::iter::SendPtr;
use num_traits::{Float as _, Zero};
use std::mem::MaybeUninit;

/// The reduction of a pooling window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduce {
    /// Maximum, NaN propagating, −∞ padding.
    Max,
    /// Average with zero padding, divided by `divisor` if given, else by the window's
    /// size within the padded input (`count_include_pad`) or within the input.
    Avg {
        count_include_pad: bool,
        divisor: Option<usize>,
    },
}

/// Pools `planes` row-major `H × W` planes of `x` into `OH × OW` planes, in a new
/// buffer from the crate's output allocator.
pub(crate) fn pool_planes<T: Float>(x: &[T], planes: usize, g: &PoolGeom, r: Reduce) -> Vec<T> {
    let mut out = crate::memory::alloc::uninit_vec::<T>(planes * g.out[0] * g.out[1]);
    pool_planes_uninit(x, planes, g, r, &mut out);
    // SAFETY: every plane kernel writes all of its output plane, so every element of
    // the `planes · OH · OW` output was written.
    unsafe { crate::memory::alloc::assume_init_vec(out) }
}

/// [`pool_planes`] into the caller's `out` (`planes · OH · OW` elements, row-major).
pub(crate) fn pool_planes_into<T: Float>(x: &[T], planes: usize, g: &PoolGeom, r: Reduce, out: &mut [T]) {
    assert_eq!(out.len(), planes * g.out[0] * g.out[1], "pool: output length");
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and the kernels store only initialised
    // values through it, so `out` stays initialised.
    let o = unsafe { &mut *(out as *mut [T] as *mut [MaybeUninit<T>]) };
    pool_planes_uninit(x, planes, g, r, o);
}

/// Writes every element of `out` (`planes · OH · OW`).
fn pool_planes_uninit<T: Float>(x: &[T], planes: usize, g: &PoolGeom, r: Reduce, out: &mut [MaybeUninit<T>]) {
    use crate::same_type::slice_mut;
    if let Some(x32) = cast_slice::<T, f32>(x) {
        let o = slice_mut::<_, MaybeUninit<f32>>(out).expect("T is f32");
        return pool_f32_into(Level::detect(), x32, planes, g, r, o);
    }
    if let Some(x64) = cast_slice::<T, f64>(x) {
        let o = slice_mut::<_, MaybeUninit<f64>>(out).expect("T is f64");
        return run::<Scalar<f64>>(x64, planes, g, r, o, |x, g, r, o, s| {
            // SAFETY: plain Rust.
            unsafe { plane::<Scalar<f64>>(x, g, r, o, s) }
        });
    }
    let y: Vec<T> = from_f32(&pool_f32_at(Level::detect(), &to_f32(x), planes, g, r));
    for (o, v) in out.iter_mut().zip(y) {
        o.write(v);
    }
}

/// [`pool_planes`] for `f32` on `level` (the tests run every level); panics if the CPU
/// lacks it.
pub(super) fn pool_f32_at(level: Level, x: &[f32], planes: usize, g: &PoolGeom, r: Reduce) -> Vec<f32> {
    let mut out = crate::memory::alloc::uninit_vec::<f32>(planes * g.out[0] * g.out[1]);
    pool_f32_into(level, x, planes, g, r, &mut out);
    // SAFETY: `pool_f32_into` writes every element.
    unsafe { crate::memory::alloc::assume_init_vec(out) }
}

/// Pools one `f32` plane on `level` (`x` `H × W` into `out` `OH × OW`, every element
/// written), with `sc` from [`Scratch::new`] for `g`'s widths and at least 16 lanes;
/// panics if the CPU lacks the level. For callers that make the plane themselves (a
/// convolution's band of output rows, pooled while it is in cache).
pub(crate) fn pool_plane_f32(
    level: Level,
    x: &[f32],
    g: &PoolGeom,
    r: Reduce,
    out: &mut [MaybeUninit<f32>],
    sc: &mut Scratch<f32>,
) {
    assert!(level_supported(level), "pool: {level:?} is not supported by this CPU");
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has the AVX-512 level (asserted above).
        Level::Avx512 => unsafe { x86::plane512(x, g, r, out, sc) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 and FMA (asserted above).
        Level::Avx2 => unsafe { x86::plane256(x, g, r, out, sc) },
        // SAFETY: plain Rust.
        Level::Portable => unsafe { plane::<Scalar<f32>>(x, g, r, out, sc) },
    }
}

/// True when this CPU runs `level`'s kernels.
fn level_supported(level: Level) -> bool {
    use crate::cpu::{Isa, detected_isa};
    let needs = match level {
        Level::Portable => Isa::Portable,
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => Isa::Avx2,
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => Isa::Avx512,
    };
    detected_isa() >= needs
}

fn pool_f32_into(level: Level, x: &[f32], planes: usize, g: &PoolGeom, r: Reduce, out: &mut [MaybeUninit<f32>]) {
    assert!(level_supported(level), "pool: {level:?} is not supported by this CPU");
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => run::<super::simd::Avx512>(x, planes, g, r, out, |x, g, r, o, s| {
            // SAFETY: the CPU has the AVX-512 level (asserted above).
            unsafe { x86::plane512(x, g, r, o, s) }
        }),
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => run::<super::simd::Avx2>(x, planes, g, r, out, |x, g, r, o, s| {
            // SAFETY: the CPU has AVX2 and FMA (asserted above).
            unsafe { x86::plane256(x, g, r, o, s) }
        }),
        // SAFETY: plain Rust.
        Level::Portable => run::<Scalar<f32>>(x, planes, g, r, out, |x, g, r, o, s| unsafe {
            plane::<Scalar<f32>>(x, g, r, o, s)
        }),
    }
}

/// Runs `plane_fn` on every plane in parallel, with per-task scratch sized for `S`,
/// writing all of `out` (`planes · OH · OW`; not zeroed first: zeroing would be one more
/// pass over the output, a fifth of the stem pool's traffic).
fn run<S: Simd>(
    x: &[S::E],
    planes: usize,
    g: &PoolGeom,
    r: Reduce,
    out: &mut [MaybeUninit<S::E>],
    plane_fn: impl Fn(&[S::E], &PoolGeom, Reduce, &mut [MaybeUninit<S::E>], &mut Scratch<S::E>) + Sync,
) {
    let (hw, ohw) = (g.input[0] * g.input[1], g.out[0] * g.out[1]);
    assert!(
        out.len() >= planes * ohw && x.len() >= planes * hw,
        "pool: planes outside their buffers"
    );
    if planes * ohw == 0 {
        return;
    }
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        planes,
        || Scratch::new(g, S::LANES),
        |scratch, pl| {
            // SAFETY: plane `pl` of `out` (asserted long enough), written only by this
            // task.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().add(pl * ohw), ohw) };
            plane_fn(&x[pl * hw..][..hw], g, r, o, scratch);
        },
    );
}

/// Per-task buffers: the padded row, its phases, and one output row of divisors.
pub(crate) struct Scratch<E> {
    row: Vec<E>,
    phases: Vec<E>,
    /// Elements per phase.
    phase_len: usize,
    div: Vec<E>,
    /// The input rows of one output row's window.
    rows: Vec<usize>,
    /// A factor of every average's count (the depth count of a 3-D average, so that
    /// it divides once, as PyTorch does); 1 for 2-D pooling.
    pub(crate) count_scale: usize,
    /// The row factor of the divisors in `div` (0: none yet): interior rows share it,
    /// so their divisors are not recomputed.
    div_key: usize,
}

impl<E: Float> Scratch<E> {
    /// Buffers for planes of `g`, with slack for vectors of up to `lanes` lanes.
    pub(crate) fn new(g: &PoolGeom, lanes: usize) -> Self {
        let wp = padded_width(g);
        let phase_len = wp.div_ceil(g.s[1]) + 2 * lanes;
        Scratch {
            row: vec![E::zero(); phase_len * g.s[1] + 2 * lanes],
            phases: vec![E::zero(); phase_len * g.s[1]],
            phase_len,
            div: vec![E::one(); g.out[1] + lanes],
            rows: Vec::with_capacity(g.k[0]),
            count_scale: 1,
            div_key: 0,
        }
    }
}

/// Columns of the padded row the windows read: `(OW − 1)·s + (k − 1)·d + 1`.
fn padded_width(g: &PoolGeom) -> usize {
    (g.out[1] - 1) * g.s[1] + (g.k[1] - 1) * g.d[1] + 1
}

/// The number of window positions along one axis that lie inside `0..limit` for the
/// window starting at `start` (`k` taps `d` apart).
fn count(start: isize, k: usize, d: usize, limit: isize) -> usize {
    (0..k)
        .filter(|&i| (0..limit).contains(&(start + (i * d) as isize)))
        .count()
}

/// PyTorch's average divisor along one axis for the window at `start`: with the
/// padding, the window clipped to `−p .. len + p`; without, clipped to the input.
fn avg_count(start: isize, k: usize, p: usize, len: usize, include_pad: bool) -> usize {
    if include_pad {
        let end = (start + k as isize).min((len + p) as isize);
        (end - start) as usize
    } else {
        count(start, k, 1, len as isize)
    }
}

/// The average divisors of output row `oh` into `div[..OW]`: the override, or the
/// window's count (times `scale`, a 3-D average's depth count). Skipped when the row's
/// factor equals `key`, the factor of the divisors already there (then updated).
fn row_divisors<E: Float>(g: &PoolGeom, r: Reduce, scale: usize, oh: usize, div: &mut [E], key: &mut usize) {
    let Reduce::Avg {
        count_include_pad,
        divisor,
    } = r
    else {
        return;
    };
    let r0 = (oh * g.s[0]) as isize - g.p[0] as isize;
    let factor = match divisor {
        Some(_) => usize::MAX,
        None => scale * avg_count(r0, g.k[0], g.p[0], g.input[0], count_include_pad),
    };
    if *key == factor {
        return;
    }
    *key = factor;
    for (ow, dv) in div[..g.out[1]].iter_mut().enumerate() {
        let c0 = (ow * g.s[1]) as isize - g.p[1] as isize;
        let cnt = divisor.unwrap_or_else(|| factor * avg_count(c0, g.k[1], g.p[1], g.input[1], count_include_pad));
        *dv = E::from_usize(cnt);
    }
}

/// Pools one plane (`x` `H × W` into `out` `OH × OW`).
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
pub(crate) unsafe fn plane<S: Simd>(
    x: &[S::E],
    g: &PoolGeom,
    r: Reduce,
    out: &mut [MaybeUninit<S::E>],
    sc: &mut Scratch<S::E>,
) {
    let n = S::LANES;
    let (s1, d1) = (g.s[1], g.d[1]);
    let wp = padded_width(g);
    assert!(
        x.len() >= g.input[0] * g.input[1]
            && out.len() >= g.out[0] * g.out[1]
            && sc.row.len() >= wp.max(g.p[1] + g.input[1]) + n
            && sc.phases.len() >= s1 * sc.phase_len
            && sc.div.len() >= g.out[1],
        "pool: plane outside its buffers"
    );
    let ident = match r {
        Reduce::Max => S::E::neg_infinity(),
        Reduce::Avg { .. } => S::E::zero(),
    };
    let max = r == Reduce::Max;
    if pool_stride2::takes(g) {
        // SAFETY: the features are the caller's contract; `div` has OW + LANES entries.
        return unsafe {
            match r {
                Reduce::Max => pool_stride2::plane_s2::<S>(x, g, out, &mut sc.rows, None),
                Reduce::Avg { .. } => {
                    let (scale, key) = (sc.count_scale, &mut sc.div_key);
                    let mut fill = |oh: usize, d: &mut [S::E]| row_divisors(g, r, scale, oh, d, key);
                    pool_stride2::plane_s2::<S>(x, g, out, &mut sc.rows, Some((&mut sc.div, &mut fill)))
                }
            }
        };
    }
    // The row's padding columns hold the identity for every output row.
    sc.row.fill(ident);
    // Horizontal taps: (phase, offset in the phase) of tap kj.
    let taps: Vec<(usize, usize)> = (0..g.k[1]).map(|kj| (kj * d1 % s1, kj * d1 / s1)).collect();
    // SAFETY: loads read lanes inside `x` (input rows, `load_range_fill` with the lanes in
    // 0..W) or inside the scratch rows (sized above with a vector of slack past every
    // read start); stores write `out` rows (first OW lanes) and scratch rows inside
    // their lengths; the features are the caller's contract.
    unsafe {
        let rowp = sc.row.as_mut_ptr();
        for oh in 0..g.out[0] {
            // 1. Vertical, in registers over the window's rows, one plain store per
            // vector: input columns 0..W land at row[p1 + x]; the lanes past W hold
            // the identity, as the right padding must.
            sc.rows.clear();
            sc.rows.extend(g.taps(0, oh));
            let dst = rowp.add(g.p[1]);
            let identv = S::splat(ident);
            for x0 in (0..g.input[1]).step_by(n) {
                let mut acc = identv;
                for (i, &ih) in sc.rows.iter().enumerate() {
                    let src = x.as_ptr().add(ih * g.input[1] + x0);
                    let v = S::load_range_fill(src, 0, (g.input[1] - x0) as isize, identv);
                    acc = if i == 0 {
                        v
                    } else if max {
                        S::max(acc, v)
                    } else {
                        S::add(acc, v)
                    };
                }
                S::store(dst.add(x0), acc);
            }
            // 2. Phases: row[j·s + q] → phase q, element j.
            let (src, stride) = if s1 == 1 {
                (rowp as *const S::E, 0)
            } else if s1 == 2 {
                let (e, o) = (sc.phases.as_mut_ptr(), sc.phases.as_mut_ptr().add(sc.phase_len));
                for j in (0..wp.div_ceil(2)).step_by(n) {
                    let (ev, od) = S::even_odd(S::load(rowp.add(2 * j)), S::load(rowp.add(2 * j + n)));
                    S::store_first(e.add(j), ev, n);
                    S::store_first(o.add(j), od, n);
                }
                (sc.phases.as_ptr(), sc.phase_len)
            } else {
                for j in 0..wp.div_ceil(s1) {
                    for q in 0..s1 {
                        sc.phases[q * sc.phase_len + j] = *rowp.add(j * s1 + q);
                    }
                }
                (sc.phases.as_ptr(), sc.phase_len)
            };
            // Divisors of this output row.
            if !max {
                row_divisors(g, r, sc.count_scale, oh, &mut sc.div, &mut sc.div_key);
            }
            // 3. Horizontal.
            let orow = out.as_mut_ptr().cast::<S::E>().add(oh * g.out[1]);
            for ow in (0..g.out[1]).step_by(n) {
                let (q, off) = taps[0];
                let mut acc = S::load(src.add(q * stride + off + ow));
                for &(q, off) in &taps[1..] {
                    let v = S::load(src.add(q * stride + off + ow));
                    acc = if max { S::max(acc, v) } else { S::add(acc, v) };
                }
                if !max {
                    acc = S::div(acc, S::load(sc.div.as_ptr().add(ow)));
                }
                S::store_first(orow.add(ow), acc, n.min(g.out[1] - ow));
            }
        }
    }
}

/// The plane kernel compiled for each x86 level.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::pool_geom::PoolGeom;
    use super::super::simd::{Avx2, Avx512};
    use super::{Reduce, Scratch, plane};
    use std::mem::MaybeUninit;

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn plane512(
        x: &[f32],
        g: &PoolGeom,
        r: Reduce,
        out: &mut [MaybeUninit<f32>],
        s: &mut Scratch<f32>,
    ) {
        // SAFETY: the features are enabled here.
        unsafe { plane::<Avx512>(x, g, r, out, s) }
    }

    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn plane256(
        x: &[f32],
        g: &PoolGeom,
        r: Reduce,
        out: &mut [MaybeUninit<f32>],
        s: &mut Scratch<f32>,
    ) {
        // SAFETY: the features are enabled here.
        unsafe { plane::<Avx2>(x, g, r, out, s) }
    }
}
