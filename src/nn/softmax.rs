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
    Level::detect().rows(x, out, n, false, &mut [])
}

/// Elements per parallel task.
const TASK_ELEMS: usize = 1 << 15;
/// Columns per block along a non-last axis.
const COL_BLOCK: usize = 512;

fn compute<E: RowFloat>(x: &[E], outer: usize, n: usize, inner: usize, log: bool) -> Vec<E> {
    let mut out = vec![E::zero(); x.len()];
    if x.is_empty() {
        return out;
    }
    let optr = SendPtr(out.as_mut_ptr());
    let level = Level::detect();
    if inner == 1 {
        let rows_per = (TASK_ELEMS / n).max(1);
        par_tasks(
            outer.div_ceil(rows_per),
            || vec![E::zero(); if log { n } else { 0 }],
            |scratch, t| {
                let (r0, r1) = (t * rows_per, ((t + 1) * rows_per).min(outer));
                // SAFETY: rows r0..r1 of `out`; tasks own disjoint row ranges.
                let o = unsafe { std::slice::from_raw_parts_mut(optr.get().add(r0 * n), (r1 - r0) * n) };
                level.rows(&x[r0 * n..r1 * n], o, n, log, scratch);
            },
        );
    } else {
        let blocks = inner.div_ceil(COL_BLOCK);
        par_tasks(
            outer * blocks,
            || vec![E::zero(); 3 * COL_BLOCK],
            |scratch, t| {
                let (o, b) = (t / blocks, t % blocks);
                let (j0, j1) = (b * COL_BLOCK, ((b + 1) * COL_BLOCK).min(inner));
                let base = o * n * inner + j0;
                let span = (n - 1) * inner + (j1 - j0);
                let xb = &x[base..base + span];
                // SAFETY: `base + span <= out.len()` (same extent as `xb`); the kernel
                // writes only this task's columns j0..j1 of slab `o`, which no other
                // task touches.
                unsafe { level.cols(xb, optr.get().add(base), n, inner, j1 - j0, log, scratch) };
            },
        );
    }
    out
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

    fn rows<E: RowFloat>(self, x: &[E], out: &mut [E], n: usize, log: bool, scratch: &mut [E]) {
        match self {
            // SAFETY: `detect` verified the CPU supports the features the callee enables.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86::rows_avx512(x, out, n, log, scratch) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => unsafe { x86::rows_avx2(x, out, n, log, scratch) },
            Level::Portable => rows_body(x, out, n, log, scratch),
        }
    }

    /// # Safety
    /// `out + r·inner + j` must be valid for writes, for `r < n`, `j < w`, and not
    /// accessed by anyone else during the call.
    #[allow(clippy::too_many_arguments)]
    unsafe fn cols<E: RowFloat>(self, x: &[E], out: *mut E, n: usize, inner: usize, w: usize, log: bool, s: &mut [E]) {
        match self {
            // SAFETY: `detect` verified the CPU supports the features the callee enables.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86::cols_avx512(x, out, n, inner, w, log, s) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => unsafe { x86::cols_avx2(x, out, n, inner, w, log, s) },
            // SAFETY: the caller's guarantee, passed on.
            Level::Portable => unsafe { cols_body(x, out, n, inner, w, log, s) },
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{RowFloat, cols_body, rows_body};

    /// [`rows_body`] for AVX-512.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is `Avx512`.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn rows_avx512<E: RowFloat>(x: &[E], out: &mut [E], n: usize, log: bool, s: &mut [E]) {
        rows_body(x, out, n, log, s)
    }
    /// [`rows_body`] for AVX2.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is at least `Avx2`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn rows_avx2<E: RowFloat>(x: &[E], out: &mut [E], n: usize, log: bool, s: &mut [E]) {
        rows_body(x, out, n, log, s)
    }
    /// [`cols_body`] for AVX-512.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is `Avx512`; the contract of [`cols_body`].
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn cols_avx512<E: RowFloat>(
        x: &[E],
        out: *mut E,
        n: usize,
        inner: usize,
        w: usize,
        log: bool,
        s: &mut [E],
    ) {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { cols_body(x, out, n, inner, w, log, s) }
    }
    /// [`cols_body`] for AVX2.
    ///
    /// # Safety
    /// `crate::cpu::isa()` is at least `Avx2`; the contract of [`cols_body`].
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn cols_avx2<E: RowFloat>(
        x: &[E],
        out: *mut E,
        n: usize,
        inner: usize,
        w: usize,
        log: bool,
        s: &mut [E],
    ) {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { cols_body(x, out, n, inner, w, log, s) }
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

/// Softmax (or log-softmax) of consecutive rows of length `n`.
#[inline(always)]
fn rows_body<E: RowFloat>(x: &[E], out: &mut [E], n: usize, log: bool, scratch: &mut [E]) {
    for (xr, or) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
        let m = max_of(xr);
        for (o, &v) in or.iter_mut().zip(xr) {
            *o = v - m;
        }
        if log {
            let e = &mut scratch[..n];
            E::exp_slice(or, e);
            let lse = E::vln(sum_of(e));
            for o in or.iter_mut() {
                *o = *o - lse;
            }
        } else {
            E::exp_inplace(or);
            let inv = E::one() / sum_of(or);
            for o in or.iter_mut() {
                *o = *o * inv;
            }
        }
    }
}

/// Softmax along the rows of a block: `n` rows `inner` apart, `w` columns each.
///
/// # Safety
/// As [`Level::cols`].
#[inline(always)]
unsafe fn cols_body<E: RowFloat>(x: &[E], out: *mut E, n: usize, inner: usize, w: usize, log: bool, scratch: &mut [E]) {
    // SAFETY: row r's w columns are valid and exclusively ours (caller's guarantee).
    let row = |r: usize| unsafe { std::slice::from_raw_parts_mut(out.add(r * inner), w) };
    let (m, rest) = scratch.split_at_mut(COL_BLOCK);
    let (s, tmp) = rest.split_at_mut(COL_BLOCK);
    let (m, s, tmp) = (&mut m[..w], &mut s[..w], &mut tmp[..w]);
    m.fill(E::neg_infinity());
    s.fill(E::zero());
    for r in 0..n {
        for (a, &v) in m.iter_mut().zip(&x[r * inner..r * inner + w]) {
            *a = if v > *a { v } else { *a };
        }
    }
    for r in 0..n {
        let (xr, or) = (&x[r * inner..r * inner + w], row(r));
        for ((o, &v), &mx) in or.iter_mut().zip(xr).zip(m.iter()) {
            *o = v - mx;
        }
        if log {
            E::exp_slice(or, tmp);
            for (a, &e) in s.iter_mut().zip(tmp.iter()) {
                *a = *a + e;
            }
        } else {
            E::exp_inplace(or);
            for (a, &e) in s.iter_mut().zip(or.iter()) {
                *a = *a + e;
            }
        }
    }
    if log {
        for a in s.iter_mut() {
            *a = E::vln(*a);
        }
    } else {
        for a in s.iter_mut() {
            *a = E::one() / *a;
        }
    }
    for r in 0..n {
        let or = row(r);
        for (o, &a) in or.iter_mut().zip(s.iter()) {
            *o = if log { *o - a } else { *o * a };
        }
    }
}
