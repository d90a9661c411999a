//! The reduction driver: one engine pass over any layout for any [`Reducer`].
//!
//! The input's axes are split into kept axes and reduced axes, and each set is
//! coalesced by the engine's [`Plan`] (axes in the input's memory order, mergeable axes
//! merged). Then one of two loops runs:
//!
//! - **inner reduce** (the input's fastest axis is reduced): every output element folds
//!   its reduced runs with [`Reducer::run`] (pairwise for sums, several vector
//!   accumulators otherwise);
//! - **row accumulate** (the fastest axis is kept): for a block of outputs along the
//!   kept run, every reduced position adds a whole row with [`Reducer::rows`]
//!   (`acc[j] = step(acc[j], row[j])`, vectorised over the contiguous axis).
//!
//! Above the engine's threshold the work is split over independent outputs; when there
//! are too few outputs, the reduced space is split into pieces whose number depends
//! only on the shape, and the partial results are merged in order — so results never
//! depend on the thread count.

use super::simd::{Kernel, dispatch};
use crate::element::Element;
use crate::iter::{PARALLEL_THRESHOLD, Plan, SendPtr};
use std::ops::Range;

/// A reduction: accumulator type, start value, element step and merge of partials.
pub(crate) trait Reducer<T: Element>: Sync {
    /// The accumulator.
    type Acc: Copy + Send + Sync;
    /// The start value, or `None` to start from the first reduced element
    /// ([`Reducer::lift`]); the latter only for idempotent steps (max, min).
    fn identity(&self) -> Option<Self::Acc>;
    /// The accumulator of one element.
    fn lift(&self, x: T) -> Self::Acc;
    /// Adds one element.
    fn step(&self, acc: Self::Acc, x: T) -> Self::Acc;
    /// Merges the accumulators of an earlier and a later part.
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// False if parts may not be merged (a user fold): no splitting of reduced ranges.
    fn mergeable(&self) -> bool {
        true
    }
    /// Folds the run `buf[off + i·stride]`, `i < len`, into `acc`; `o` is the index of
    /// the output element.
    #[inline]
    fn run(&self, acc: Self::Acc, o: usize, buf: &[T], off: isize, len: usize, stride: isize) -> Self::Acc {
        let _ = o;
        run_default(self, acc, buf, off, len, stride)
    }
    /// [`Reducer::run`] for one long run, possibly on several threads (the result must
    /// not depend on the thread count).
    fn run_par(&self, acc: Self::Acc, o: usize, buf: &[T], off: isize, len: usize, stride: isize) -> Self::Acc {
        const CHUNK: usize = 1 << 15;
        if len <= 2 * CHUNK || !self.mergeable() || crate::threads::num_threads() <= 1 {
            return self.run(acc, o, buf, off, len, stride);
        }
        use rayon::prelude::*;
        let parts: Vec<Self::Acc> = (0..len.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let lo = c * CHUNK;
                let n = CHUNK.min(len - lo);
                let start = off + lo as isize * stride;
                let a0 = self.identity().unwrap_or_else(|| self.lift(buf[start as usize]));
                self.run(a0, o, buf, start, n, stride)
            })
            .collect();
        parts.into_iter().fold(acc, |a, b| self.merge(a, b))
    }
    /// Steps every `acc[j]` with `buf[off + j·stride]`; `o`, `os`: output index of
    /// `acc[0]` and output stride.
    #[inline]
    fn rows(&self, acc: &mut [Self::Acc], o: usize, os: isize, buf: &[T], off: isize, stride: isize) {
        let _ = (o, os);
        rows_default(self, acc, buf, off, stride)
    }
    /// Steps `acc` with the [`ROW_GROUP`] rows at `off + k·rs`, `k < ROW_GROUP`, in
    /// that order: the same as that many calls of [`Reducer::rows`]. Reducers whose step
    /// vectorises override it to read the rows in one pass (several read streams in
    /// flight, each accumulator loaded and stored once).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn rows_group(&self, acc: &mut [Self::Acc], o: usize, os: isize, buf: &[T], off: isize, stride: isize, rs: isize) {
        for k in 0..ROW_GROUP as isize {
            self.rows(acc, o, os, buf, off + k * rs, stride);
        }
    }
}

/// How many rows [`Reducer::rows_group`] takes at once.
pub(crate) const ROW_GROUP: usize = 4;

/// The default-step [`Reducer::rows_group`] over contiguous rows: `acc[j]` is stepped
/// with `row_0[j]`, `row_1[j]`, … in order, in registers. Returns false (doing
/// nothing) unless `stride` is 1.
#[inline]
pub(crate) fn rows_group_default<T: Element, R: Reducer<T> + ?Sized>(
    r: &R,
    acc: &mut [R::Acc],
    buf: &[T],
    off: isize,
    stride: isize,
    rs: isize,
) -> bool {
    if stride != 1 {
        return false;
    }
    let n = acc.len();
    let rows: [&[T]; ROW_GROUP] = std::array::from_fn(|k| {
        let s = (off + k as isize * rs) as usize;
        &buf[s..s + n]
    });
    dispatch(RowsGroupK(r, acc, rows));
    true
}

/// [`rows_group_default`] as a vector [`Kernel`].
struct RowsGroupK<'a, T: Element, R: Reducer<T> + ?Sized>(&'a R, &'a mut [R::Acc], [&'a [T]; ROW_GROUP]);
impl<T: Element, R: Reducer<T> + ?Sized> Kernel for RowsGroupK<'_, T, R> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        let RowsGroupK(r, acc, [r0, r1, r2, r3]) = self;
        let n = acc.len();
        let (r0, r1, r2, r3) = (&r0[..n], &r1[..n], &r2[..n], &r3[..n]);
        for j in 0..n {
            acc[j] = r.step(r.step(r.step(r.step(acc[j], r0[j]), r1[j]), r2[j]), r3[j]);
        }
    }
}

/// The default [`Reducer::run`]: vector lanes over a contiguous run of a mergeable
/// reducer, a sequential fold otherwise.
#[inline]
pub(crate) fn run_default<T: Element, R: Reducer<T> + ?Sized>(
    r: &R,
    acc: R::Acc,
    buf: &[T],
    off: isize,
    len: usize,
    stride: isize,
) -> R::Acc {
    if stride == 1 && r.mergeable() {
        lanes(r, acc, &buf[off as usize..off as usize + len])
    } else {
        (0..len).fold(acc, |a, i| r.step(a, buf[(off + i as isize * stride) as usize]))
    }
}

/// The default [`Reducer::rows`]: `acc[j] = step(acc[j], buf[off + j·stride])`.
#[inline]
pub(crate) fn rows_default<T: Element, R: Reducer<T> + ?Sized>(
    r: &R,
    acc: &mut [R::Acc],
    buf: &[T],
    off: isize,
    stride: isize,
) {
    if stride == 1 {
        let row = &buf[off as usize..off as usize + acc.len()];
        dispatch(RowsK(r, acc, row));
    } else {
        for (j, a) in acc.iter_mut().enumerate() {
            *a = r.step(*a, buf[(off + j as isize * stride) as usize]);
        }
    }
}

/// Folds a contiguous run with 16 independent accumulators (they vectorise), then
/// merges them in a fixed tree.
#[inline]
pub(crate) fn lanes<T: Element, R: Reducer<T> + ?Sized>(r: &R, acc: R::Acc, x: &[T]) -> R::Acc {
    dispatch(LanesK(r, acc, x))
}

/// [`lanes_inner`] as a vector [`Kernel`].
struct LanesK<'a, T: Element, R: Reducer<T> + ?Sized>(&'a R, R::Acc, &'a [T]);
impl<T: Element, R: Reducer<T> + ?Sized> Kernel for LanesK<'_, T, R> {
    type Out = R::Acc;
    #[inline(always)]
    fn call(self) -> R::Acc {
        lanes_inner(self.0, self.1, self.2)
    }
}

/// `acc[j] = step(acc[j], row[j])` as a vector [`Kernel`].
struct RowsK<'a, T: Element, R: Reducer<T> + ?Sized>(&'a R, &'a mut [R::Acc], &'a [T]);
impl<T: Element, R: Reducer<T> + ?Sized> Kernel for RowsK<'_, T, R> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        let RowsK(r, acc, row) = self;
        for (a, &x) in acc.iter_mut().zip(row) {
            *a = r.step(*a, x);
        }
    }
}

#[inline(always)]
pub(crate) fn lanes_inner<T: Element, R: Reducer<T> + ?Sized>(r: &R, acc: R::Acc, x: &[T]) -> R::Acc {
    const L: usize = 16;
    if x.len() < 2 * L {
        return x.iter().fold(acc, |a, &v| r.step(a, v));
    }
    let mut l: [R::Acc; L] = std::array::from_fn(|j| r.lift(x[j]));
    let chunks = x[L..].chunks_exact(L);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..L {
            l[j] = r.step(l[j], c[j]);
        }
    }
    let mut w = L;
    while w > 1 {
        w /= 2;
        for j in 0..w {
            l[j] = r.merge(l[j], l[j + w]);
        }
    }
    let tail = rest.iter().fold(l[0], |a, &v| r.step(a, v));
    r.merge(acc, tail)
}

/// How many rows ahead the row-accumulate loop prefetches.
const PF_ROWS: isize = 2;
/// Pieces per thread when a row-accumulate reduction splits its kept run over threads:
/// one, so each thread reads the longest pieces of every row. Measured on AMD Zen 5
/// (sum axis 0 of f32 [4096²], 2 threads, with [`ROW_GROUP`] rows at a time): 0.95 ms
/// with 1 piece per thread, 1.22 ms with 2, 1.22 ms with 4.
const ROW_TASKS_PER_THREAD: usize = 1;
/// The row-accumulate loop prefetches pieces of rows up to this size (longer pieces
/// are streams the hardware prefetcher follows by itself).
const PF_MAX_BYTES: usize = 4096;

/// A layout split into kept and reduced axes, each coalesced.
pub(crate) struct Split {
    kept: Plan<2>,
    red: Plan<1>,
    /// Number of output elements.
    pub n_out: usize,
    /// Number of reduced elements per output.
    pub n_red: usize,
    inner_mode: bool,
}

impl Split {
    /// `mask[k]` is true for reduced axes. `logical` keeps the reduced axes in
    /// row-major order (user folds) instead of memory order.
    pub(crate) fn new(shape: &[usize], strides: &[isize], offset: usize, mask: &[bool], logical: bool) -> Split {
        let (mut ks, mut kst, mut rs, mut rst) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (k, &red) in mask.iter().enumerate() {
            if red {
                rs.push(shape[k]);
                rst.push(strides[k]);
            } else {
                ks.push(shape[k]);
                kst.push(strides[k]);
            }
        }
        let mut ost = vec![0isize; ks.len()];
        crate::layout::default_strides(&ks, crate::Order::RowMajor, &mut ost);
        let kept = Plan::<2>::new(&ks, [&kst, &ost], [offset, 0], true);
        let red = Plan::<1>::new(&rs, [&rst], [0], !logical);
        let n_out = ks.iter().product();
        let n_red = rs.iter().product();
        let (ri, ki) = (red.inner[0].unsigned_abs(), kept.inner[0].unsigned_abs());
        let inner_mode = logical || kept.inner_len <= 1 || (red.inner_len > 1 && ri <= ki);
        Split {
            kept,
            red,
            n_out,
            n_red,
            inner_mode,
        }
    }

    /// Offset (relative to a kept position) of the first element of a reduced part.
    fn first(&self, part: &(Range<usize>, Range<usize>)) -> isize {
        let mut first = 0;
        self.red.for_runs(
            part.0.start..part.0.start + 1,
            part.1.start..part.1.start + 1,
            &mut |[o], _| first = o,
        );
        first
    }

    /// Reduces the kept run at input offset `io`, output index `oo`, length `klen`,
    /// over the reduced part `part`, writing the outputs through `out`.
    #[allow(clippy::too_many_arguments)]
    fn kept_run<T: Element, R: Reducer<T>>(
        &self,
        r: &R,
        buf: &[T],
        [io, oo]: [isize; 2],
        klen: usize,
        part: &(Range<usize>, Range<usize>),
        out: SendPtr<R::Acc>,
        scratch: &mut Vec<R::Acc>,
    ) {
        let [ks, kos] = self.kept.inner;
        let rs = self.red.inner[0];
        let first = self.first(part);
        let start = |off: isize| r.identity().unwrap_or_else(|| r.lift(buf[(off + first) as usize]));
        if self.inner_mode {
            for j in 0..klen as isize {
                let (i0, o) = (io + j * ks, (oo + j * kos) as usize);
                let mut acc = start(i0);
                self.red.for_runs(part.0.clone(), part.1.clone(), &mut |[ro], rl| {
                    acc = r.run(acc, o, buf, i0 + ro, rl, rs)
                });
                // SAFETY: `o` is a distinct output index < n_out (row-major strides of
                // the kept shape); each output is written by exactly one caller.
                unsafe { *out.get().add(o) = acc };
            }
            return;
        }
        let block = (16384 / std::mem::size_of::<R::Acc>().max(1)).max(64);
        let mut b0 = 0;
        while b0 < klen {
            let bl = block.min(klen - b0);
            let (i0, o0) = (io + b0 as isize * ks, oo + b0 as isize * kos);
            scratch.clear();
            scratch.extend((0..bl as isize).map(|j| start(i0 + j * ks)));
            let row_bytes = bl * std::mem::size_of::<T>();
            let pf = |i: isize, rows: isize, rl: isize, ro: isize| {
                if ks == 1 && row_bytes <= PF_MAX_BYTES {
                    // Short contiguous pieces of far-apart rows: fetch the pieces of
                    // later rows ahead (the hardware prefetcher restarts per piece).
                    for k in i + PF_ROWS..(i + PF_ROWS + rows).min(rl) {
                        let p = buf.as_ptr().wrapping_offset(i0 + ro + k * rs) as *const u8;
                        for b in (0..row_bytes).step_by(64) {
                            super::pairwise::prefetch(p.wrapping_add(b));
                        }
                    }
                }
            };
            self.red.for_runs(part.0.clone(), part.1.clone(), &mut |[ro], rl| {
                let (g, rl) = (ROW_GROUP as isize, rl as isize);
                let mut i = 0;
                while i + g <= rl {
                    pf(i, g, rl, ro);
                    r.rows_group(scratch, o0 as usize, kos, buf, i0 + ro + i * rs, ks, rs);
                    i += g;
                }
                while i < rl {
                    pf(i, 1, rl, ro);
                    r.rows(scratch, o0 as usize, kos, buf, i0 + ro + i * rs, ks);
                    i += 1;
                }
            });
            for (j, &a) in scratch.iter().enumerate() {
                // SAFETY: as above, distinct outputs of this kept run.
                unsafe { *out.get().offset(o0 + j as isize * kos) = a };
            }
            b0 += bl;
        }
    }

    /// Runs the reduction over the whole reduced space; `out` holds `n_out`
    /// accumulators (row-major over the kept axes) and is overwritten.
    pub(crate) fn run<T: Element, R: Reducer<T>>(&self, r: &R, buf: &[T], out: &mut [R::Acc]) {
        assert_eq!(out.len(), self.n_out);
        if self.n_out == 0 {
            return;
        }
        if self.n_red == 0 {
            let id = r.identity().expect("reduction without identity over an empty range");
            out.iter_mut().for_each(|o| *o = id);
            return;
        }
        let total = self.n_out * self.n_red;
        let threads = crate::threads::num_threads();
        let whole = (0..self.red.runs(), 0..self.red.inner_len);
        let ptr = SendPtr(out.as_mut_ptr());
        if threads <= 1 || total < PARALLEL_THRESHOLD {
            let mut scratch = Vec::new();
            self.kept
                .for_each_run(|o, l| self.kept_run(r, buf, o, l, &whole, ptr, &mut scratch));
        } else if !self.inner_mode
            && self.kept.runs() < threads * ROW_TASKS_PER_THREAD
            && self.kept.inner_len >= threads * ROW_TASKS_PER_THREAD * 64
        {
            // Row accumulate over few kept runs (a reduction down the rows of a
            // matrix): each thread takes long pieces of the rows (64-byte multiples),
            // as long streams as the split allows, for the hardware prefetchers.
            use rayon::prelude::*;
            let runs = self.kept.runs();
            let per = (threads * ROW_TASKS_PER_THREAD).div_ceil(runs);
            let il = self.kept.inner_len;
            let q = (64 / std::mem::size_of::<T>().max(1)).max(1);
            let cut = |p: usize| if p == per { il } else { (il * p / per) / q * q };
            (0..runs * per).into_par_iter().for_each(|t| {
                let (ru, p) = (t / per, t % per);
                let (lo, hi) = (cut(p), cut(p + 1));
                if lo < hi {
                    let mut scratch = Vec::new();
                    self.kept.for_runs(ru..ru + 1, lo..hi, &mut |o, l| {
                        self.kept_run(r, buf, o, l, &whole, ptr, &mut scratch)
                    });
                }
            });
        } else if self.n_out >= 4 * threads || !r.mergeable() {
            self.kept.par_for_each_run(0, |o, l| {
                let mut scratch = Vec::new();
                self.kept_run(r, buf, o, l, &whole, ptr, &mut scratch)
            });
        } else if self.inner_mode && self.red.runs() == 1 {
            let rs = self.red.inner[0];
            let base = self.red.base[0];
            self.kept.for_each_run(|[io, oo], l| {
                let [ks, kos] = self.kept.inner;
                for j in 0..l as isize {
                    let (i0, o) = (io + j * ks + base, (oo + j * kos) as usize);
                    let a0 = r.identity().unwrap_or_else(|| r.lift(buf[i0 as usize]));
                    out[o] = r.run_par(a0, o, buf, i0, self.red.inner_len, rs);
                }
            });
        } else {
            self.run_split(r, buf, out, total);
        }
    }

    /// Few outputs, many reduced elements: partial results over pieces of the reduced
    /// space (a shape-determined count), merged in order.
    fn run_split<T: Element, R: Reducer<T>>(&self, r: &R, buf: &[T], out: &mut [R::Acc], total: usize) {
        use rayon::prelude::*;
        let pieces = (total / (1 << 16)).clamp(2, 64);
        let runs = self.red.runs();
        let parts: Vec<(Range<usize>, Range<usize>)> = if runs >= pieces {
            (0..pieces)
                .map(|p| (runs * p / pieces..runs * (p + 1) / pieces, 0..self.red.inner_len))
                .collect()
        } else {
            let per = pieces.div_ceil(runs).min(self.red.inner_len);
            let il = self.red.inner_len;
            (0..runs)
                .flat_map(|ru| (0..per).map(move |p| (ru..ru + 1, il * p / per..il * (p + 1) / per)))
                .collect()
        };
        let partials: Vec<Vec<R::Acc>> = parts
            .par_iter()
            .map(|part| {
                let mut v = out.to_vec();
                let ptr = SendPtr(v.as_mut_ptr());
                let mut scratch = Vec::new();
                self.kept
                    .for_each_run(|o, l| self.kept_run(r, buf, o, l, part, ptr, &mut scratch));
                v
            })
            .collect();
        for (k, o) in out.iter_mut().enumerate() {
            *o = partials[1..].iter().fold(partials[0][k], |a, p| r.merge(a, p[k]));
        }
    }
}
