//! `softmax` and `log_softmax`: fused, numerically stable per-row kernels.
//!
//! Along the last axis each row is handled while it sits in L1: one pass for the
//! maximum, one for `x − max`, the vectorised `exp` of [`crate::kernels::vmath`] in
//! place, one pass for the sum and one to scale. Along other axes the same passes run
//! over blocks of columns. `f16`/`bf16` compute through `f32`.

use super::util::{cast_slice, cast_vec, contiguous, from_f32, owned_dim, par_tasks, split_at_axis, to_f32};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::kernels::vmath::VMath;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Softmax along `axis` (negative counts from the end): `exp(x − max) / Σ exp(x − max)`.
/// Stable for large inputs; a row holding NaN gives NaN. `Err` if the axis is out of
/// range.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![100.0f32, 101.0, 0.0, 0.0], [2, 2])?;
/// let y = ferrotensor::nn::softmax(&x, -1)?;
/// assert!((y[&[0, 1][..]] - 0.7310586).abs() < 1e-6);
/// assert_eq!(y[&[1, 0][..]], 0.5);
/// assert!(ferrotensor::nn::softmax(&x, 2).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn softmax<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    axis: isize,
) -> Result<Tensor<T, D>> {
    run(x, axis, false, "softmax")
}

/// Log-softmax along `axis`: `x − max − ln Σ exp(x − max)`, stable for large inputs.
/// `Err` if the axis is out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![100.0f64, 101.0], [2])?;
/// let y = ferrotensor::nn::log_softmax(&x, 0)?;
/// assert!((y[&[1][..]] - (-0.31326168751822286)).abs() < 1e-12);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn log_softmax<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    axis: isize,
) -> Result<Tensor<T, D>> {
    run(x, axis, true, "log_softmax")
}

fn run<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    axis: isize,
    log: bool,
    op: &'static str,
) -> Result<Tensor<T, D>> {
    let ax = crate::layout::transform::normalize_axis(axis, x.ndim(), op)
        .map_err(|e| Error::axis(op, format!("{e} (input shape {})", fmt_shape(x.shape()))))?;
    let shape = x.shape().to_vec();
    let (outer, n, inner) = split_at_axis(&shape, ax);
    let data = contiguous(x);
    let out: Vec<T> = if let Some(xs) = cast_slice::<T, f32>(&data) {
        cast_vec(compute(xs, outer, n, inner, log)).unwrap_or_else(|_| unreachable!())
    } else if let Some(xs) = cast_slice::<T, f64>(&data) {
        cast_vec(compute(xs, outer, n, inner, log)).unwrap_or_else(|_| unreachable!())
    } else {
        from_f32(&compute(&to_f32(&data), outer, n, inner, log))
    };
    Ok(owned_dim(out, &shape))
}

/// Element types with vectorised row kernels.
pub(super) trait RowFloat: Float + VMath {}
impl RowFloat for f32 {}
impl RowFloat for f64 {}

/// Softmax of consecutive rows of `n` elements of `x` into `out`, on the calling thread
/// (the fused row kernel of [`softmax`], for callers that tile their own rows).
pub(super) fn softmax_rows<E: RowFloat>(x: &[E], out: &mut [E], n: usize) {
    assert_eq!(x.len(), out.len(), "softmax_rows: input and output lengths differ");
    let mut scratch = vec![E::zero(); n];
    // SAFETY: `out` is an exclusive slice of `x.len()` elements, and `MaybeUninit<E>`
    // has the layout of `E`.
    unsafe { Level::detect().rows(x, out.as_mut_ptr().cast::<Out<E>>(), n, false, false, &mut scratch) }
}

/// Elements per parallel task.
const TASK_ELEMS: usize = 1 << 15;
/// Columns per block along a non-last axis: pieces of 2 KiB (f32) per row, long
/// enough for the hardware prefetcher; narrower blocks (one line per row) measured
/// 8 % of the triad on Zen 5.
const COL_BLOCK: usize = 512;
/// Bytes of a group of rows of a column block, whose maximum is taken before their
/// exponentials are summed (the group is then re-read from L1/L2, not memory).
const GROUP_BYTES: usize = 64 << 10;

fn compute<E: RowFloat>(x: &[E], outer: usize, n: usize, inner: usize, log: bool) -> Vec<E> {
    compute_with(
        x,
        outer,
        n,
        inner,
        log,
        // log_softmax measured 3–10 % slower in tiles than in the two-read column
        // blocks (AMD EPYC, BENCHMARKS.md, sixth session), softmax 10–15 % faster.
        if log {
            None
        } else {
            tile_cols::<E>(n, inner, crate::cpu::cache_bytes().1)
        },
    )
}

/// Columns per tile along a strided axis: as many whole cache lines of columns as fit,
/// over all `n` rows, in the L2 (`l2` bytes; 256 KiB, the smallest L2 of current x86
/// cores, when unknown), at most [`COL_BLOCK`] and at most `inner`; `None` when not
/// even one line of columns fits (very long axes: then the two-read column blocks).
/// A rule from the cache size and the shape only. Measured on AMD EPYC Zen 5 (1 MiB
/// L2, f32 [4096²] axis 0): tiles of the whole L2 (64 columns, 256-byte pieces per
/// row) 6.4 ms; of half the L2 (32 columns) 8.2 ms, of a quarter 15.6 ms, the two-read
/// blocks 8.0–8.6 ms: the input's pieces per row must be long, while the scratch, being
/// contiguous, need not stay in L2.
fn tile_cols<E>(n: usize, inner: usize, l2: Option<usize>) -> Option<usize> {
    let l2 = l2.unwrap_or(256 << 10);
    let line = (64 / size_of::<E>()).max(1);
    let fit = l2 / (n * size_of::<E>()).max(1);
    let w = (fit / line * line).min(COL_BLOCK);
    (w > 0).then_some(w.min(inner))
}

/// Elements of a tile handled per step of its second pass (`x − max`, `exp`, the
/// sums): 8 KiB of f32, in L1 on every x86 core.
const TILE_CHUNK: usize = 2048;

fn compute_with<E: RowFloat>(x: &[E], outer: usize, n: usize, inner: usize, log: bool, tile: Option<usize>) -> Vec<E> {
    if x.is_empty() {
        return Vec::new();
    }
    let mut out = crate::memory::alloc::uninit_vec::<E>(x.len());
    let optr = SendPtr(out.as_mut_ptr());
    let level = Level::detect();
    if inner == 1 {
        let rows_per = (TASK_ELEMS / n).max(1);
        let stream = crate::iter::stream::should_stream::<E>(x.len());
        par_tasks(
            outer.div_ceil(rows_per),
            || vec![E::zero(); n],
            |scratch, t| {
                let (r0, r1) = (t * rows_per, ((t + 1) * rows_per).min(outer));
                // SAFETY: rows r0..r1 of `out` (inside it: r1 <= outer); tasks own
                // disjoint row ranges.
                unsafe { level.rows(&x[r0 * n..r1 * n], optr.get().add(r0 * n), n, log, stream, scratch) };
            },
        );
    } else if let Some(w) = tile {
        // Tiles of `w` columns × all `n` rows, copied to a scratch that stays in L2:
        // the input is read from memory once and the output written once.
        let blocks = inner.div_ceil(w);
        let stream = crate::iter::stream::should_stream::<E>(x.len());
        par_tasks(
            outer * blocks,
            || vec![E::zero(); n * w + 2 * w + TILE_CHUNK.max(w)],
            |scratch, t| {
                let (o, b) = (t / blocks, t % blocks);
                let (j0, j1) = (b * w, ((b + 1) * w).min(inner));
                let base = o * n * inner + j0;
                let span = (n - 1) * inner + (j1 - j0);
                let xb = &x[base..base + span];
                // SAFETY: as for the column blocks below: this task's columns of slab
                // `o`, inside `out` (same extent as `xb`), touched by no other task.
                unsafe { level.tile(xb, optr.get().add(base), [n, inner, j1 - j0], log, stream, scratch) };
            },
        );
    } else {
        let cb = COL_BLOCK;
        let blocks = inner.div_ceil(cb);
        let stream = crate::iter::stream::should_stream::<E>(x.len());
        par_tasks(
            outer * blocks,
            || vec![E::zero(); 4 * cb],
            |scratch, t| {
                let (o, b) = (t / blocks, t % blocks);
                let (j0, j1) = (b * cb, ((b + 1) * cb).min(inner));
                let base = o * n * inner + j0;
                let span = (n - 1) * inner + (j1 - j0);
                let xb = &x[base..base + span];
                // SAFETY: `base + span <= out.len()` (same extent as `xb`); the kernel
                // writes only this task's columns j0..j1 of slab `o`, which no other
                // task touches.
                unsafe { level.cols(xb, optr.get().add(base), [n, inner, j1 - j0], log, stream, scratch) };
            },
        );
    }
    // SAFETY: the tasks together wrote every element: the row tasks every row, the
    // column tasks every column block of every slab (`cols_body` writes each of its
    // rows before reading it back).
    unsafe { crate::memory::alloc::assume_init_vec(out) }
}

/// The instruction set the row kernels run with.
#[derive(Clone, Copy)]
enum Level {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Level {
    fn detect() -> Self {
        match crate::cpu::isa() {
            #[cfg(target_arch = "x86_64")]
            crate::cpu::Isa::Avx512 => Level::Avx512,
            #[cfg(target_arch = "x86_64")]
            crate::cpu::Isa::Avx2 => Level::Avx2,
            _ => Level::Portable,
        }
    }

    /// # Safety
    /// `out..out + x.len()` must be valid for writes and not accessed by anyone else
    /// during the call.
    unsafe fn rows<E: RowFloat>(self, x: &[E], out: *mut Out<E>, n: usize, log: bool, stream: bool, s: &mut [E]) {
        match self {
            // SAFETY: `detect` verified the CPU supports the features the callee
            // enables; the caller's guarantee on `out`, passed on.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86::rows_avx512(x, out, n, log, stream, s) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => unsafe { x86::rows_avx2(x, out, n, log, stream, s) },
            // SAFETY: the caller's guarantee, passed on.
            Level::Portable => unsafe { rows_body(x, out, n, log, stream, s) },
        }
    }

    /// # Safety
    /// With `g = [n, inner, w]`: `out + r·inner + j` must be valid for writes, for
    /// `r < n`, `j < w`, and not accessed by anyone else during the call.
    unsafe fn tile<E: RowFloat>(self, x: &[E], out: *mut Out<E>, g: [usize; 3], log: bool, st: bool, s: &mut [E]) {
        match self {
            // SAFETY: `detect` verified the CPU supports the features the callee enables.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86::tile_avx512(x, out, g, log, st, s) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => unsafe { x86::tile_avx2(x, out, g, log, st, s) },
            // SAFETY: the caller's guarantee, passed on.
            Level::Portable => unsafe { tile_body(x, out, g, log, st, s) },
        }
    }

    /// # Safety
    /// With `g = [n, inner, w]`: `out + r·inner + j` must be valid for writes, for
    /// `r < n`, `j < w`, and not accessed by anyone else during the call.
    unsafe fn cols<E: RowFloat>(self, x: &[E], out: *mut Out<E>, g: [usize; 3], log: bool, st: bool, s: &mut [E]) {
        match self {
            // SAFETY: `detect` verified the CPU supports the features the callee enables.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86::cols_avx512(x, out, g, log, st, s) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => unsafe { x86::cols_avx2(x, out, g, log, st, s) },
            // SAFETY: the caller's guarantee, passed on.
            Level::Portable => unsafe { cols_body(x, out, g, log, st, s) },
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Out, RowFloat, cols_body, rows_body, tile_body};

    /// [`tile_body`] for AVX-512.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is `Avx512`; the contract of [`tile_body`].
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn tile_avx512<E: RowFloat>(
        x: &[E],
        out: *mut Out<E>,
        g: [usize; 3],
        log: bool,
        st: bool,
        s: &mut [E],
    ) {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { tile_body(x, out, g, log, st, s) }
    }
    /// [`tile_body`] for AVX2.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is at least `Avx2`; the contract of [`tile_body`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile_avx2<E: RowFloat>(
        x: &[E],
        out: *mut Out<E>,
        g: [usize; 3],
        log: bool,
        st: bool,
        s: &mut [E],
    ) {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { tile_body(x, out, g, log, st, s) }
    }

    /// [`rows_body`] for AVX-512.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is `Avx512`; the contract of [`rows_body`].
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn rows_avx512<E: RowFloat>(
        x: &[E],
        out: *mut Out<E>,
        n: usize,
        log: bool,
        st: bool,
        s: &mut [E],
    ) {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { rows_body(x, out, n, log, st, s) }
    }
    /// [`rows_body`] for AVX2.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is at least `Avx2`; the contract of [`rows_body`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn rows_avx2<E: RowFloat>(x: &[E], out: *mut Out<E>, n: usize, log: bool, st: bool, s: &mut [E]) {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { rows_body(x, out, n, log, st, s) }
    }
    /// [`cols_body`] for AVX-512.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is `Avx512`; the contract of [`cols_body`].
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn cols_avx512<E: RowFloat>(
        x: &[E],
        out: *mut Out<E>,
        g: [usize; 3],
        log: bool,
        st: bool,
        s: &mut [E],
    ) {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { cols_body(x, out, g, log, st, s) }
    }
    /// [`cols_body`] for AVX2.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is at least `Avx2`; the contract of [`cols_body`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn cols_avx2<E: RowFloat>(
        x: &[E],
        out: *mut Out<E>,
        g: [usize; 3],
        log: bool,
        st: bool,
        s: &mut [E],
    ) {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { cols_body(x, out, g, log, st, s) }
    }
}

const LANES: usize = 16;

/// Folds `x` with `f` over `LANES` independent accumulators (so the loop vectorises),
/// then across the lanes and the remainder.
#[inline(always)]
fn fold_lanes<E: Float>(x: &[E], init: E, f: impl Fn(E, E) -> E) -> E {
    let mut acc = [init; LANES];
    let chunks = x.chunks_exact(LANES);
    let rem = chunks.remainder();
    for ch in chunks {
        for (a, &v) in acc.iter_mut().zip(ch) {
            *a = f(*a, v);
        }
    }
    acc.iter().chain(rem).fold(init, |a, &v| f(a, v))
}

/// Maximum ignoring NaN (a NaN row still gives NaN through `exp(NaN − max)`).
#[inline(always)]
fn max_of<E: Float>(x: &[E]) -> E {
    fold_lanes(x, E::neg_infinity(), |a, v| if v > a { v } else { a })
}

#[inline(always)]
fn sum_of<E: Float>(x: &[E]) -> E {
    fold_lanes(x, E::zero(), |a, v| a + v)
}

/// Elements per step of the row pass that prefetches the next row.
const PF_CHUNK: usize = 64;

/// An output element not yet written.
type Out<E> = std::mem::MaybeUninit<E>;

/// Softmax (or log-softmax) of consecutive rows of length `n`, each computed in
/// `scratch` (one row: L1 for rows up to a few thousand values) and then stored to
/// `out` once, with streaming stores when `stream` is set. Per row the input is read
/// from memory once (the maximum) and from cache after that.
///
/// # Safety
/// `out..out + x.len()` must be valid for writes and not accessed by anyone else
/// during the call.
#[inline(always)]
unsafe fn rows_body<E: RowFloat>(x: &[E], out: *mut Out<E>, n: usize, log: bool, stream: bool, scratch: &mut [E]) {
    let s = &mut scratch[..n];
    for (r, xr) in x.chunks_exact(n).enumerate() {
        let m = max_of(xr);
        // The next row's lines are requested while this one is computed from cache, so
        // memory and arithmetic overlap (the max pass is the only read from memory).
        for (c, (o, xs)) in s.chunks_mut(PF_CHUNK).zip(xr.chunks(PF_CHUNK)).enumerate() {
            crate::iter::stream::prefetch(x, (r + 1) * n + c * PF_CHUNK, PF_CHUNK);
            for (o, &v) in o.iter_mut().zip(xs) {
                *o = v - m;
            }
        }
        E::exp_inplace(s);
        let sum = sum_of(s);
        if log {
            let lse = E::vln(sum);
            for (o, &v) in s.iter_mut().zip(xr) {
                *o = (v - m) - lse;
            }
        } else {
            let inv = E::one() / sum;
            for o in s.iter_mut() {
                *o = *o * inv;
            }
        }
        // SAFETY: row r lies inside `out..out + x.len()` (caller), apart from `s`.
        unsafe { crate::iter::stream::store_run(out.add(r * n), s, stream) };
    }
    if stream {
        crate::iter::stream::fence();
    }
}

/// Softmax along the rows of a block: `n` rows `inner` apart, `w` columns each
/// (`g = [n, inner, w]`), in two reads of the block from memory. The first keeps per
/// column the running maximum and the sum of exponentials relative to it: a group of
/// rows (in cache) gives its maximum, the sum is rescaled once by `exp(old − new)`,
/// then the group's exponentials are added. The second writes the results, streamed
/// when `stream` is set.
///
/// # Safety
/// As [`Level::cols`].
#[inline(always)]
unsafe fn cols_body<E: RowFloat>(x: &[E], out: *mut Out<E>, g: [usize; 3], log: bool, stream: bool, scratch: &mut [E]) {
    let [n, inner, w] = g;
    let xrow = |r: usize| &x[r * inner..r * inner + w];
    let (m, rest) = scratch.split_at_mut(w);
    let (s, rest) = rest.split_at_mut(w);
    let (gm, tmp) = rest.split_at_mut(w);
    let (gm, tmp) = (&mut gm[..w], &mut tmp[..w]);
    m.fill(E::neg_infinity());
    s.fill(E::zero());
    let group = (GROUP_BYTES / (w * size_of::<E>()).max(1)).max(1);
    for r0 in (0..n).step_by(group) {
        let r1 = (r0 + group).min(n);
        gm.copy_from_slice(m);
        for r in r0..r1 {
            for (a, &v) in gm.iter_mut().zip(xrow(r)) {
                *a = if v > *a { v } else { *a };
            }
        }
        // Rescale the sums to the new maximum (factor 1 where it did not move, also
        // for columns still at −∞).
        for ((t, &old), &new) in tmp.iter_mut().zip(m.iter()).zip(gm.iter()) {
            *t = if old == new { E::zero() } else { old - new };
        }
        E::exp_inplace(tmp);
        for (a, &f) in s.iter_mut().zip(tmp.iter()) {
            *a = *a * f;
        }
        m.copy_from_slice(gm);
        for r in r0..r1 {
            for ((t, &v), &mx) in tmp.iter_mut().zip(xrow(r)).zip(m.iter()) {
                *t = v - mx;
            }
            E::exp_inplace(tmp);
            for (a, &e) in s.iter_mut().zip(tmp.iter()) {
                *a = *a + e;
            }
        }
    }
    for a in s.iter_mut() {
        *a = if log { E::vln(*a) } else { E::one() / *a };
    }
    for r in 0..n {
        for ((t, &v), &mx) in tmp.iter_mut().zip(xrow(r)).zip(m.iter()) {
            *t = v - mx;
        }
        if log {
            for (t, &a) in tmp.iter_mut().zip(s.iter()) {
                *t = *t - a;
            }
        } else {
            E::exp_inplace(tmp);
            for (t, &a) in tmp.iter_mut().zip(s.iter()) {
                *t = *t * a;
            }
        }
        // SAFETY: row r's w columns are valid and ours (caller); `tmp` is apart.
        unsafe { crate::iter::stream::store_run(out.add(r * inner), tmp, stream) };
    }
    if stream {
        crate::iter::stream::fence();
    }
}

/// Softmax along the rows of a tile: `n` rows `inner` apart, `w` columns each, with
/// `g = [n, inner, w]`. The first pass copies the tile into `scratch` (contiguous, the
/// size of the L2: see [`tile_cols`]) while it keeps each column's maximum; the second
/// forms `x − max` in the scratch and the sums of the
/// exponentials per piece of [`TILE_CHUNK`] elements from L1; the third scales (or
/// subtracts the log-sum) and stores each row once, streamed when `stream` is set. So
/// the input is read from memory once and `exp` runs once per element.
///
/// # Safety
/// As [`Level::tile`].
#[inline(always)]
unsafe fn tile_body<E: RowFloat>(x: &[E], out: *mut Out<E>, g: [usize; 3], log: bool, stream: bool, scratch: &mut [E]) {
    let [n, inner, w] = g;
    let (t, rest) = scratch.split_at_mut(n * w);
    let (m, rest) = rest.split_at_mut(w);
    let (s, tmp) = rest.split_at_mut(w);
    m.fill(E::neg_infinity());
    s.fill(E::zero());
    for (r, tr) in t.chunks_exact_mut(w).enumerate() {
        for ((o, a), &v) in tr.iter_mut().zip(m.iter_mut()).zip(&x[r * inner..r * inner + w]) {
            *o = v;
            *a = if v > *a { v } else { *a };
        }
    }
    let rows = (TILE_CHUNK / w).max(1);
    for piece in t.chunks_mut(rows * w) {
        for row in piece.chunks_exact_mut(w) {
            for (v, &mx) in row.iter_mut().zip(m.iter()) {
                *v = *v - mx;
            }
        }
        let e = if log {
            let e = &mut tmp[..piece.len()];
            e.copy_from_slice(piece);
            e
        } else {
            &mut *piece
        };
        E::exp_inplace(e);
        for row in e.chunks_exact(w) {
            for (a, &v) in s.iter_mut().zip(row) {
                *a = *a + v;
            }
        }
    }
    for a in s.iter_mut() {
        *a = if log { E::vln(*a) } else { E::one() / *a };
    }
    for (r, row) in t.chunks_exact_mut(w).enumerate() {
        if log {
            for (v, &a) in row.iter_mut().zip(s.iter()) {
                *v = *v - a;
            }
        } else {
            for (v, &a) in row.iter_mut().zip(s.iter()) {
                *v = *v * a;
            }
        }
        // SAFETY: row r's w columns are valid and ours (caller); `row` is apart.
        unsafe { crate::iter::stream::store_run(out.add(r * inner), row, stream) };
    }
    if stream {
        crate::iter::stream::fence();
    }
}

#[cfg(test)]
mod tests {
    use super::{COL_BLOCK, GROUP_BYTES, compute, compute_with, tile_cols};
    use crate::prelude::*;

    /// Softmax (or log-softmax) along `axis` in f64 by the definition, for reference.
    fn naive(x: &[f64], outer: usize, n: usize, inner: usize, log: bool) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for o in 0..outer {
            for j in 0..inner {
                let at = |r: usize| o * n * inner + r * inner + j;
                let m = (0..n).map(|r| x[at(r)]).fold(f64::NEG_INFINITY, f64::max);
                let s: f64 = (0..n).map(|r| (x[at(r)] - m).exp()).sum();
                for r in 0..n {
                    let d = x[at(r)] - m;
                    out[at(r)] = if log { d - s.ln() } else { d.exp() / s };
                }
            }
        }
        out
    }

    fn values(len: usize) -> Vec<f64> {
        (0..len).map(|i| ((i * 7919) % 1013) as f64 * 0.013 - 6.0).collect()
    }

    fn check(outer: usize, n: usize, inner: usize) {
        let x = values(outer * n * inner);
        for log in [false, true] {
            let want = naive(&x, outer, n, inner, log);
            // Every path: the one chosen for this machine, and for `inner > 1` the
            // two-read column blocks and tiles of one line, three lines and `inner`.
            let mut paths = vec![compute(&x, outer, n, inner, log)];
            if inner > 1 {
                for tile in [None, Some(8), Some(24), Some(inner)] {
                    paths.push(compute_with(&x, outer, n, inner, log, tile));
                }
            }
            for got in &paths {
                for (g, w) in got.iter().zip(&want) {
                    assert!(
                        (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
                        "f64 {outer}x{n}x{inner} log={log}: {g} vs {w}"
                    );
                }
            }
            let got = compute(&x, outer, n, inner, log);
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
                    "f64 {outer}x{n}x{inner} log={log}: {g} vs {w}"
                );
            }
            assert_eq!(got.len(), want.len());
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let mut paths = vec![compute(&x32, outer, n, inner, log)];
            if inner > 1 {
                for tile in [None, Some(16), Some(48), Some(inner)] {
                    paths.push(compute_with(&x32, outer, n, inner, log, tile));
                }
            }
            for got in &paths {
                assert_eq!(got.len(), want.len());
                for (g, w) in got.iter().zip(&want) {
                    assert!(
                        (*g as f64 - w).abs() <= 2e-5 * (1.0 + w.abs()),
                        "f32 {outer}x{n}x{inner} log={log}: {g} vs {w}"
                    );
                }
            }
        }
    }

    /// Rows (last axis) and blocks of columns (other axes) against the definition, with
    /// row lengths off the vector width and several column blocks.
    #[test]
    fn kernels_match_the_definition() {
        check(3, 37, 1);
        check(2, 5, 19);
        check(1, 2, COL_BLOCK + 3);
        check(1, 1, 1);
        if !cfg!(miri) {
            check(70, 1000, 1);
            // Several column blocks (the last one partial) and several row groups.
            let n = 3 * GROUP_BYTES / (COL_BLOCK * 4) + 5;
            check(2, n, COL_BLOCK + 40);
        }
        assert!(compute::<f32>(&[], 0, 3, 1, false).is_empty());
    }

    /// Tile widths: whole lines in the L2, capped by the block and the axis, and
    /// no tile when one line of columns over all rows does not fit.
    #[test]
    fn tile_widths_follow_the_cache_and_the_shape() {
        let mib = Some(1 << 20);
        assert_eq!(tile_cols::<f32>(4096, 4096, mib), Some(64));
        assert_eq!(tile_cols::<f64>(4096, 4096, mib), Some(32));
        assert_eq!(tile_cols::<f32>(4096, 20, mib), Some(20));
        assert_eq!(tile_cols::<f32>(3, 4096, mib), Some(COL_BLOCK));
        assert_eq!(tile_cols::<f32>(16384, 4096, mib), Some(16));
        assert_eq!(tile_cols::<f32>(16385, 4096, mib), None);
        assert_eq!(tile_cols::<f32>(4096, 4096, None), Some(16));
    }

    /// Strided, flipped and NaN inputs through the public functions: the same values as
    /// a contiguous copy, and NaN only in the rows that hold one.
    #[test]
    fn strided_flipped_and_nan_inputs() {
        let v: Vec<f32> = values(6 * 9).iter().map(|&v| v as f32).collect();
        let a = Tensor::from_vec(v, [6, 9]).unwrap();
        for axis in [0, 1] {
            for view in [a.t().into_dyn(), a.slice(s![..;-1, ..;2])] {
                let want = crate::nn::softmax(&view.to_owned(), axis).unwrap();
                assert_eq!(crate::nn::softmax(&view, axis).unwrap().to_vec(), want.to_vec());
                let want = crate::nn::log_softmax(&view.to_owned(), axis).unwrap();
                assert_eq!(crate::nn::log_softmax(&view, axis).unwrap().to_vec(), want.to_vec());
            }
        }
        let mut b = a.to_owned();
        b[&[2, 4][..]] = f32::NAN;
        for log in [false, true] {
            let y = if log {
                crate::nn::log_softmax(&b, 1)
            } else {
                crate::nn::softmax(&b, 1)
            }
            .unwrap();
            for r in 0..6 {
                for c in 0..9 {
                    assert_eq!(y[&[r, c][..]].is_nan(), r == 2, "log={log} ({r}, {c})");
                }
            }
            let y = if log {
                crate::nn::log_softmax(&b, 0)
            } else {
                crate::nn::softmax(&b, 0)
            }
            .unwrap();
            for r in 0..6 {
                for c in 0..9 {
                    assert_eq!(y[&[r, c][..]].is_nan(), c == 4, "log={log} ({r}, {c})");
                }
            }
        }
        let e = Tensor::<f64, _>::zeros([0, 4]);
        assert_eq!(crate::nn::softmax(&e, 0).unwrap().shape(), &[0, 4]);
        assert_eq!(crate::nn::log_softmax(&e, 1).unwrap().shape(), &[0, 4]);
    }
}
