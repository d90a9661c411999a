//! Coalescing N operand layouts over one shape into outer axes plus one inner run.

use crate::layout::dim::{DimVec, StrideVec};
use smallvec::SmallVec;

/// An iteration plan for `N` operands that share one (broadcast) shape.
///
/// Size-1 axes are dropped, axes are ordered by operand 0's strides (largest first)
/// when reordering is allowed, and adjacent axes that are contiguous in every operand
/// are merged. What is left is a list of outer axes and one inner run.
#[derive(Clone, Debug)]
pub(crate) struct Plan<const N: usize> {
    /// Outer axes' lengths.
    pub outer: DimVec,
    /// Outer axes' strides per operand.
    pub outer_strides: [StrideVec; N],
    /// Length of the inner run.
    pub inner_len: usize,
    /// Inner strides per operand.
    pub inner: [isize; N],
    /// Offset of the first element per operand.
    pub base: [isize; N],
    /// No elements at all.
    pub empty: bool,
}

impl<const N: usize> Plan<N> {
    /// Builds the plan. `reorder` lets the plan visit elements in operand 0's memory
    /// order instead of the logical row-major order.
    pub fn new(shape: &[usize], strides: [&[isize]; N], offsets: [usize; N], reorder: bool) -> Self {
        let base = offsets.map(|o| o as isize);
        if shape.contains(&0) {
            return Plan {
                outer: DimVec::new(),
                outer_strides: std::array::from_fn(|_| StrideVec::new()),
                inner_len: 0,
                inner: [0; N],
                base,
                empty: true,
            };
        }
        let mut axes: SmallVec<[usize; 8]> = (0..shape.len()).filter(|&a| shape[a] > 1).collect();
        if reorder && N > 0 {
            // Stable sort: largest |stride| of operand 0 first; ties keep logical order.
            axes.sort_by(|&x, &y| strides[0][y].unsigned_abs().cmp(&strides[0][x].unsigned_abs()));
        }
        // Merge from the innermost axis outwards.
        let mut dims: SmallVec<[usize; 8]> = SmallVec::new();
        let mut st: [SmallVec<[isize; 8]>; N] = std::array::from_fn(|_| SmallVec::new());
        for &ax in axes.iter().rev() {
            let d = shape[ax];
            if let Some(&inner_d) = dims.last() {
                let mergeable = (0..N).all(|k| strides[k][ax] == *st[k].last().unwrap() * inner_d as isize);
                if mergeable {
                    *dims.last_mut().unwrap() *= d;
                    continue;
                }
            }
            dims.push(d);
            for k in 0..N {
                st[k].push(strides[k][ax]);
            }
        }
        // dims/st are innermost-first; the first is the inner run.
        if dims.is_empty() {
            return Plan {
                outer: DimVec::new(),
                outer_strides: std::array::from_fn(|_| StrideVec::new()),
                inner_len: 1,
                inner: [0; N],
                base,
                empty: false,
            };
        }
        let inner_len = dims[0];
        let inner = std::array::from_fn(|k| st[k][0]);
        let outer: DimVec = dims[1..].iter().rev().copied().collect();
        let outer_strides = std::array::from_fn(|k| st[k][1..].iter().rev().copied().collect());
        Plan {
            outer,
            outer_strides,
            inner_len,
            inner,
            base,
            empty: false,
        }
    }

    /// Number of elements visited.
    pub fn len(&self) -> usize {
        if self.empty {
            0
        } else {
            self.outer.iter().product::<usize>() * self.inner_len
        }
    }

    /// Number of inner runs.
    pub fn runs(&self) -> usize {
        if self.empty { 0 } else { self.outer.iter().product() }
    }

    /// Offsets of the start of run number `r` (row-major over the outer axes).
    fn run_start(&self, mut r: usize) -> [isize; N] {
        let mut off = self.base;
        for ax in (0..self.outer.len()).rev() {
            let d = self.outer[ax];
            let i = (r % d) as isize;
            r /= d;
            for (k, o) in off.iter_mut().enumerate() {
                *o += i * self.outer_strides[k][ax];
            }
        }
        off
    }

    /// Calls `f(offsets, len)` for the runs `runs` (each restricted to the inner range
    /// `inner`), in order.
    pub fn for_runs(
        &self,
        runs: std::ops::Range<usize>,
        inner: std::ops::Range<usize>,
        f: &mut impl FnMut([isize; N], usize),
    ) {
        if self.empty || runs.is_empty() || inner.is_empty() {
            return;
        }
        let len = inner.end - inner.start;
        let shift: [isize; N] = std::array::from_fn(|k| inner.start as isize * self.inner[k]);
        let mut off = self.run_start(runs.start);
        let nd = self.outer.len();
        let mut idx: SmallVec<[usize; 8]> = SmallVec::from_elem(0, nd);
        {
            let mut r = runs.start;
            for ax in (0..nd).rev() {
                idx[ax] = r % self.outer[ax];
                r /= self.outer[ax];
            }
        }
        for _ in runs {
            f(std::array::from_fn(|k| off[k] + shift[k]), len);
            // advance the odometer
            let mut ax = nd;
            while ax > 0 {
                ax -= 1;
                idx[ax] += 1;
                for (k, o) in off.iter_mut().enumerate() {
                    *o += self.outer_strides[k][ax];
                }
                if idx[ax] < self.outer[ax] {
                    break;
                }
                for (k, o) in off.iter_mut().enumerate() {
                    *o -= self.outer_strides[k][ax] * self.outer[ax] as isize;
                }
                idx[ax] = 0;
            }
        }
    }

    /// Calls `f(offsets, len)` for every run, serially, in order.
    pub fn for_each_run(&self, mut f: impl FnMut([isize; N], usize)) {
        self.for_runs(0..self.runs(), 0..self.inner_len, &mut f);
    }

    /// The outer axis to tile together with the inner run, if the plan transposes: some
    /// operand walks the last outer axis with a smaller stride than the inner run (e.g.
    /// `a + b.t()`, a copy of `a.t()`). Walking both axes in square blocks then keeps
    /// every cache line of that operand in L1 until all its elements are used.
    pub fn tile_axis(&self, block: usize) -> Option<usize> {
        let r = self.outer.len().checked_sub(1)?;
        if self.empty || self.inner_len < block || self.outer[r] < block {
            return None;
        }
        let transposed = (0..N).any(|k| {
            let (o, i) = (self.outer_strides[k][r].unsigned_abs(), self.inner[k].unsigned_abs());
            o != 0 && i != 0 && o < i
        });
        transposed.then_some(r)
    }

    /// Calls `f(offsets, len)` for every run, as [`Plan::par_for_each_run`], but walks
    /// transposing plans (see [`Plan::tile_axis`]) in `block`×`block` tiles: runs are
    /// then at most `block` long and come tile by tile. Every element is visited once.
    pub fn par_for_each_block(&self, min_parallel: usize, block: usize, f: impl Fn([isize; N], usize) + Sync) {
        let Some(r) = self.tile_axis(block) else {
            return self.par_for_each_run(min_parallel, f);
        };
        self.par_for_each_tile(min_parallel, block, r, |start, rows, cols| {
            for i in 0..rows as isize {
                f(std::array::from_fn(|k| start[k] + i * self.outer_strides[k][r]), cols);
            }
        });
    }

    /// Walks a transposing plan (`r` from [`Plan::tile_axis`]) in tiles of at most
    /// `block` rows (outer axis `r`, strides `outer_strides[k][r]`) by `block` columns
    /// (the inner run, strides `inner[k]`): `f(offsets of the tile's first element,
    /// rows, cols)`. Tiles cover every element once; large plans are split over threads
    /// by blocks of rows.
    pub fn par_for_each_tile(
        &self,
        min_parallel: usize,
        block: usize,
        r: usize,
        f: impl Fn([isize; N], usize, usize) + Sync,
    ) {
        // Tiles walk down the outer axis `r` within one block of columns: the
        // transposed operand (unit stride along `r`) is then read as `block` sequential
        // streams, which the hardware prefetchers follow, and the other operands
        // advance by whole rows.
        let nr = self.outer[r];
        let col_blocks = self.inner_len.div_ceil(block);
        let units = (self.runs() / nr) * col_blocks;
        let tile_rows = |lo: usize, hi: usize| {
            for u in lo..hi {
                let (hi_run, cb) = (u / col_blocks, u % col_blocks);
                let c0 = cb * block;
                let cols = block.min(self.inner_len - c0);
                let start = self.run_start(hi_run * nr);
                let mut r0 = 0;
                while r0 < nr {
                    let rows = block.min(nr - r0);
                    f(
                        std::array::from_fn(|k| {
                            start[k] + r0 as isize * self.outer_strides[k][r] + c0 as isize * self.inner[k]
                        }),
                        rows,
                        cols,
                    );
                    r0 += block;
                }
            }
        };
        // (The cheap size test first: asking rayon for its pool costs more than a tiny op.)
        if self.len() < min_parallel.max(2) || units < 2 {
            return tile_rows(0, units);
        }
        let threads = crate::threads::num_threads();
        if threads <= 1 {
            return tile_rows(0, units);
        }
        let tasks = (threads * 4).min(units);
        use rayon::prelude::*;
        (0..tasks)
            .into_par_iter()
            .for_each(|t| tile_rows(units * t / tasks, units * (t + 1) / tasks));
    }

    /// Calls `f(offsets, len)` for every run, split over threads when the plan holds at
    /// least `min_parallel` elements. Pieces are disjoint and cover every element once.
    pub fn par_for_each_run(&self, min_parallel: usize, f: impl Fn([isize; N], usize) + Sync) {
        let total = self.len();
        if total < min_parallel.max(2) || crate::threads::num_threads() <= 1 {
            self.for_runs(0..self.runs(), 0..self.inner_len, &mut |o, l| f(o, l));
            return;
        }
        let tasks = crate::threads::num_threads() * 4;
        let runs = self.runs();
        use rayon::prelude::*;
        if runs >= tasks {
            (0..tasks).into_par_iter().for_each(|t| {
                let lo = runs * t / tasks;
                let hi = runs * (t + 1) / tasks;
                self.for_runs(lo..hi, 0..self.inner_len, &mut |o, l| f(o, l));
            });
        } else {
            let pieces = tasks.div_ceil(runs);
            (0..runs * pieces).into_par_iter().for_each(|t| {
                let (r, p) = (t / pieces, t % pieces);
                let lo = self.inner_len * p / pieces;
                let hi = self.inner_len * (p + 1) / pieces;
                self.for_runs(r..r + 1, lo..hi, &mut |o, l| f(o, l));
            });
        }
    }
}
