//! `softmax` and `log_softmax`: fused, numerically stable kernels.
//!
//! Along the last axis each row is handled while it sits in L1: one pass for the
//! maximum, one for `x − max`, the vectorised `exp` of [`crate::kernels::vmath`] in
//! place, one pass for the sum and one to scale. Along other axes tiles of columns are
//! copied into a scratch with a running maximum and sum per column (the input read
//! from memory once), then scaled out; axes too long for a tile use blocks of columns
//! read twice. The loop bodies (`softmax_kernels`) run through [`crate::cpu::dispatch`].
//! `f16`/`bf16` compute through `f32`.

use super::util::{cast_slice, cast_vec, contiguous, from_f32, owned_dim, par_tasks, split_at_axis, to_f32};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::kernels::vmath::VMath;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

use super::softmax_kernels::{ColsK, Out, RowsK, StridedK, TileK, tile_scratch_len};

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
    // SAFETY: `MaybeUninit<E>` has the layout of `E`, and every `E` is a valid
    // `MaybeUninit<E>` (the kernel only writes initialised values into it).
    let out = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<Out<E>>(), out.len()) };
    crate::cpu::dispatch(RowsK {
        x,
        out,
        n,
        log: false,
        stream: false,
        scratch: &mut scratch,
    });
}

/// Elements per parallel task.
const TASK_ELEMS: usize = 1 << 15;
/// Columns per block along a non-last axis: pieces of 2 KiB (f32) per row, long
/// enough for the hardware prefetcher; narrower blocks (one line per row) measured
/// 8 % of the triad on Zen 5.
const COL_BLOCK: usize = 512;

fn compute<E: RowFloat>(x: &[E], outer: usize, n: usize, inner: usize, log: bool) -> Vec<E> {
    compute_with(
        x,
        outer,
        n,
        inner,
        log,
        tile_cols::<E>(n, inner, crate::cpu::cache_bytes().1),
    )
}

/// Longest piece of a row in a tile: 1 KiB, the width measured best (256 f32 columns;
/// 512 measured 25–40 % slower). A shape constant, so that a CPU with a larger L2 than
/// Zen 5's 1 MiB does not get the wider, slower tiles from the L2 rule.
const TILE_ROW_BYTES: usize = 1024;

/// Columns per tile along a strided axis: as many whole cache lines of columns as fit,
/// over all `n` rows, in four times the L2 (`l2` bytes; 256 KiB, the smallest L2 of
/// current x86 cores, when unknown), at most [`TILE_ROW_BYTES`] per row and at most
/// `inner`; `None` when not even one line of columns fits (very long axes: then the two-read column
/// blocks). A rule from the cache size and the shape only: the scratch is contiguous
/// and read back once, in order, so it need not stay in L2, while the input's pieces
/// per row must be long (rows `inner` apart). Measured on AMD EPYC Zen 5 (1 MiB L2,
/// f32 [4096²] axis 0, seventh session): scratch of 1× the L2 (64 columns) 7.4–8.2 ms,
/// 2× 6.7–7.2, 4× (256 columns) 6.2–6.7, 8× (512 columns) 8.0–9.0.
fn tile_cols<E>(n: usize, inner: usize, l2: Option<usize>) -> Option<usize> {
    let l2 = 4 * l2.unwrap_or(256 << 10);
    let line = (64 / size_of::<E>()).max(1);
    let fit = l2 / (n * size_of::<E>()).max(1);
    let w = (fit / line * line).min(TILE_ROW_BYTES / size_of::<E>().max(1));
    (w > 0).then_some(w.min(inner))
}

fn compute_with<E: RowFloat>(x: &[E], outer: usize, n: usize, inner: usize, log: bool, tile: Option<usize>) -> Vec<E> {
    if x.is_empty() {
        return Vec::new();
    }
    let mut out = crate::memory::alloc::uninit_vec::<E>(x.len());
    let optr = SendPtr(out.as_mut_ptr());
    let stream = crate::iter::stream::should_stream::<E>(x.len());
    if inner == 1 {
        let rows_per = (TASK_ELEMS / n).max(1);
        par_tasks(
            outer.div_ceil(rows_per),
            || vec![E::zero(); n],
            |scratch, t| {
                let (r0, r1) = (t * rows_per, ((t + 1) * rows_per).min(outer));
                // SAFETY: rows r0..r1 of `out` (inside it: r1 <= outer); tasks own
                // disjoint row ranges, so this slice is exclusive.
                let out = unsafe { std::slice::from_raw_parts_mut(optr.get().add(r0 * n), (r1 - r0) * n) };
                let x = &x[r0 * n..r1 * n];
                crate::cpu::dispatch(RowsK {
                    x,
                    out,
                    n,
                    log,
                    stream,
                    scratch,
                });
            },
        );
    } else {
        // Tiles of `w` columns × all `n` rows, copied to a scratch (the input is read
        // from memory once and the output written once); for axes too long for a tile,
        // blocks of COL_BLOCK columns read twice.
        let w = tile.unwrap_or(COL_BLOCK);
        let blocks = inner.div_ceil(w);
        let len = if tile.is_some() { tile_scratch_len(n, w) } else { 4 * w };
        par_tasks(
            outer * blocks,
            || vec![E::zero(); len],
            |scratch, t| {
                let (o, b) = (t / blocks, t % blocks);
                let (j0, j1) = (b * w, ((b + 1) * w).min(inner));
                let base = o * n * inner + j0;
                let span = (n - 1) * inner + (j1 - j0);
                let xb = &x[base..base + span];
                // SAFETY: `base + span <= out.len()` (same extent as `xb`); the kernel
                // writes only this task's columns j0..j1 of slab `o`, which no other
                // task touches; the scratch has the length the kernel needs.
                let k = unsafe { StridedK::new(xb, optr.get().add(base), [n, inner, j1 - j0], log, stream, scratch) };
                if tile.is_some() {
                    crate::cpu::dispatch(TileK(k));
                } else {
                    crate::cpu::dispatch(ColsK(k));
                }
            },
        );
    }
    // SAFETY: the tasks together wrote every element: the row tasks every row, the
    // column tasks every column block of every slab (each kernel writes every row of
    // its block).
    unsafe { crate::memory::alloc::assume_init_vec(out) }
}

#[cfg(test)]
mod tests {
    use super::super::softmax_kernels::GROUP_BYTES;
    use super::{COL_BLOCK, compute, compute_with, tile_cols};
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

    /// Columns that start with a run of −∞ longer than a group of rows (finite
    /// results), are all −∞, hold +∞ or NaN (NaN columns), on every path and both
    /// types, against the f64 definition; NaN exactly where the definition has it.
    #[test]
    fn infinities_and_nan_on_every_path() {
        let (n, inner) = if cfg!(miri) { (9, 600) } else { (70, 600) };
        let mut x = values(n * inner);
        for r in 0..n {
            let at = |c: usize| r * inner + c;
            if r < n - 2 {
                x[at(0)] = f64::NEG_INFINITY;
            }
            x[at(1)] = f64::NEG_INFINITY;
            x[at(inner - 1)] = f64::NEG_INFINITY;
        }
        x[(n / 2) * inner + 2] = f64::INFINITY;
        x[(n - 1) * inner + 3] = f64::NAN;
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        for log in [false, true] {
            let want = naive(&x, 1, n, inner, log);
            let near = |g: f64, w: f64, tol: f64| {
                (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * (1.0 + w.abs())
            };
            // Tiles of one line, of several groups of a few rows, and the column blocks.
            for tile in [Some(8), Some(inner - 8), None] {
                let got = compute_with(&x, 1, n, inner, log, tile);
                let g32 = compute_with(&x32, 1, n, inner, log, tile);
                for (i, ((g, &h), w)) in got.iter().zip(&g32).zip(&want).enumerate() {
                    assert!(
                        near(*g, *w, 1e-12),
                        "f64 {tile:?} log={log} [{}, {}]: {g} vs {w}",
                        i / inner,
                        i % inner
                    );
                    assert!(
                        near(h as f64, *w, 2e-5),
                        "f32 {tile:?} log={log} [{}, {}]: {h} vs {w}",
                        i / inner,
                        i % inner
                    );
                }
            }
            assert!(want[0].is_finite() || log && want[0] == f64::NEG_INFINITY);
            assert!(want[1].is_nan() && want[2].is_nan() && want[3].is_nan() && want[4].is_finite());
        }
    }

    /// Tile widths: whole lines in the L2, capped by the block and the axis, and
    /// no tile when one line of columns over all rows does not fit.
    #[test]
    fn tile_widths_follow_the_cache_and_the_shape() {
        let mib = Some(1 << 20);
        assert_eq!(tile_cols::<f32>(4096, 4096, mib), Some(256));
        assert_eq!(tile_cols::<f64>(4096, 4096, mib), Some(128));
        assert_eq!(tile_cols::<f32>(4096, 20, mib), Some(20));
        assert_eq!(tile_cols::<f32>(3, 4096, mib), Some(256));
        assert_eq!(tile_cols::<f32>(4096, 4096, Some(2 << 20)), Some(256));
        assert_eq!(tile_cols::<f32>(16385, 4096, mib), Some(48));
        assert_eq!(tile_cols::<f32>(65536, 4096, mib), Some(16));
        assert_eq!(tile_cols::<f32>(65537, 4096, mib), None);
        assert_eq!(tile_cols::<f32>(4096, 4096, None), Some(64));
    }

    /// Every axis of a 3-D input (rows, tiles over several slabs), contiguous and as a
    /// permuted view, on 1 and 2 threads: the same bits on both thread counts (each
    /// column's result depends only on its own values), and close to the definition.
    #[test]
    fn every_axis_and_thread_count_agree() {
        let (d0, d1, d2) = if cfg!(miri) { (3, 5, 7) } else { (6, 67, 45) };
        let v: Vec<f32> = values(d0 * d1 * d2).iter().map(|&v| v as f32).collect();
        let a = Tensor::from_vec(v, [d0, d1, d2]).unwrap();
        for perm in [[0, 1, 2], [2, 0, 1]] {
            let view = a.permute(&perm).unwrap().into_dyn();
            let owned = view.to_owned();
            let x: Vec<f64> = owned.iter().map(|&v| v as f64).collect();
            let sh = owned.shape().to_vec();
            for axis in 0..3 {
                let outer: usize = sh[..axis].iter().product();
                let inner: usize = sh[axis + 1..].iter().product();
                for log in [false, true] {
                    let f = |t: usize| {
                        crate::with_num_threads(t, || {
                            if log {
                                crate::nn::log_softmax(&view, axis as isize)
                            } else {
                                crate::nn::softmax(&view, axis as isize)
                            }
                        })
                        .unwrap()
                        .to_vec()
                    };
                    let (one, two) = (f(1), f(2));
                    assert_eq!(one, two, "axis {axis} log={log} shape {sh:?}");
                    let want = naive(&x, outer, sh[axis], inner, log);
                    for (g, w) in one.iter().zip(&want) {
                        assert!(
                            (*g as f64 - w).abs() <= 2e-5 * (1.0 + w.abs()),
                            "axis {axis} log={log} shape {sh:?}: {g} vs {w}"
                        );
                    }
                }
            }
        }
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
