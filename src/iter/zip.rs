//! Element-wise kernels of the engine: one to three read operands, written into a fresh
//! row-major output or into a writable operand in place.
//!
//! Each kernel builds a [`Plan`] (operand 0 is the output), checks that every run stays
//! inside its buffer, and walks the runs (tiled for transposing plans, parallel above
//! [`PARALLEL_THRESHOLD`](super::PARALLEL_THRESHOLD) elements). The inner loops work on
//! slices for unit-stride runs so that the compiler vectorises them.

use super::stream::{should_stream, stream_run};
use super::{Plan, SendPtr, check_plan_bounds};
use crate::layout::dim::StrideVec;
use crate::memory::alloc::{assume_init_vec, uninit_vec};
use std::mem::MaybeUninit;

/// Side of the square tiles used for transposing plans. Each operand's tile is staged
/// through an L1-resident buffer (32×32 f32 = 4 KiB) in the order its memory runs, so a
/// transposed operand is read along its contiguous axis and every cache line is used
/// completely while it is loaded (walking it strided instead costs 3–7×, and
/// power-of-two strides make the lines of one tile collide in the same cache set).
pub(crate) const TILE: usize = 32;

/// A tile buffer, row-major with row length [`TILE`].
type TileBuf<T> = [MaybeUninit<T>; TILE * TILE];

#[inline(always)]
fn tile_buf<T>() -> TileBuf<T> {
    [const { MaybeUninit::uninit() }; TILE * TILE]
}

/// Copies the `rows`×`cols` tile whose element `(i, c)` is at `p + i·rs + c·cs` into
/// `buf[i·TILE + c]`, looping along whichever axis is contiguous in memory.
///
/// # Safety
/// Every element of the tile must be readable through `p`.
#[inline(always)]
unsafe fn stage<T: Copy>(p: *const T, rs: isize, cs: isize, rows: usize, cols: usize, buf: &mut TileBuf<T>) {
    // SAFETY: guaranteed by the caller; buffer indices are below TILE².
    unsafe {
        if cs.unsigned_abs() <= rs.unsigned_abs() {
            for i in 0..rows {
                let row = p.offset(i as isize * rs);
                for (c, b) in buf[i * TILE..i * TILE + cols].iter_mut().enumerate() {
                    b.write(*row.offset(c as isize * cs));
                }
            }
        } else {
            for c in 0..cols {
                let col = p.offset(c as isize * cs);
                for i in 0..rows {
                    buf[i * TILE + c].write(*col.offset(i as isize * rs));
                }
            }
        }
    }
}

/// Writes a staged tile back (the inverse of [`stage`]).
///
/// # Safety
/// Every element of the tile must be writable through `p` by this caller alone, and
/// the first `cols` entries of the first `rows` buffer rows initialised.
#[inline(always)]
unsafe fn unstage<T: Copy>(p: *mut T, rs: isize, cs: isize, rows: usize, cols: usize, buf: &TileBuf<T>) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        if cs.unsigned_abs() <= rs.unsigned_abs() {
            for i in 0..rows {
                let row = p.offset(i as isize * rs);
                for c in 0..cols {
                    *row.offset(c as isize * cs) = buf[i * TILE + c].assume_init();
                }
            }
        } else {
            for c in 0..cols {
                let col = p.offset(c as isize * cs);
                for i in 0..rows {
                    *col.offset(i as isize * rs) = buf[i * TILE + c].assume_init();
                }
            }
        }
    }
}

/// Row `i` (first `cols` entries) of a staged tile.
///
/// # Safety
/// Those entries must be initialised.
#[inline(always)]
unsafe fn tile_row<T>(buf: &TileBuf<T>, i: usize, cols: usize) -> &[T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout; the entries are initialised (caller).
    unsafe { std::slice::from_raw_parts(buf.as_ptr().add(i * TILE) as *const T, cols) }
}

/// Mutable row `i` of a staged tile.
///
/// # Safety
/// As [`tile_row`].
#[inline(always)]
unsafe fn tile_row_mut<T>(buf: &mut TileBuf<T>, i: usize, cols: usize) -> &mut [T] {
    // SAFETY: as `tile_row`.
    unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().add(i * TILE) as *mut T, cols) }
}

/// A read operand: the whole buffer, strides already broadcast to the shared shape
/// (stride 0 on broadcast axes), and the offset of element zero.
#[derive(Clone, Copy)]
pub(crate) struct Src<'a, T> {
    pub buf: &'a [T],
    pub strides: &'a [isize],
    pub off: usize,
}

impl<'a, T> Src<'a, T> {
    pub(crate) fn new(buf: &'a [T], strides: &'a [isize], off: usize) -> Self {
        Src { buf, strides, off }
    }
}

/// A read-only pointer that may be shared between threads.
#[derive(Clone, Copy)]
pub(crate) struct ReadPtr<T>(pub(crate) *const T);
impl<T> ReadPtr<T> {
    #[inline(always)]
    pub(crate) fn at(self, off: isize) -> *const T {
        self.0.wrapping_offset(off)
    }
}
// SAFETY: only used to read elements of a shared slice `&[T]` with `T: Sync`.
unsafe impl<T: Sync> Send for ReadPtr<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for ReadPtr<T> {}

/// Row-major strides of `shape`.
pub(crate) fn c_strides(shape: &[usize]) -> StrideVec {
    let mut s = StrideVec::from_elem(0, shape.len());
    crate::layout::default_strides(shape, crate::Order::RowMajor, &mut s);
    s
}

/// Minimum element count for a parallel split, scaled down for expensive functions.
#[inline]
fn threshold(cost: usize) -> usize {
    super::threshold_override().unwrap_or((super::PARALLEL_THRESHOLD / cost.max(1)).max(1 << 12))
}

/// A fresh row-major output of `shape` and the plan over it (operand 0) and the
/// inputs (`strides[0]`, `offsets[0]` and `lens[0]` are ignored), checked to stay inside
/// every buffer.
fn output_plan<O, const N: usize>(
    shape: &[usize],
    strides: [&[isize]; N],
    offsets: [usize; N],
    lens: [usize; N],
) -> (Vec<MaybeUninit<O>>, Plan<N>) {
    let n: usize = shape.iter().product();
    let cs = c_strides(shape);
    let st: [&[isize]; N] = std::array::from_fn(|k| if k == 0 { &cs[..] } else { strides[k] });
    let offs = std::array::from_fn(|k| if k == 0 { 0 } else { offsets[k] });
    let plan = Plan::new(shape, st, offs, true);
    check_plan_bounds(&plan, std::array::from_fn(|k| if k == 0 { n } else { lens[k] }));
    (uninit_vec::<O>(n), plan)
}

/// `f(a[i], b[i])` for two equally long contiguous slices: the fast path of same-shape
/// row-major operands (no plan to build), split over threads when large.
pub(crate) fn zip_contig<A: Copy + Sync, B: Copy + Sync, O: Send>(
    a: &[A],
    b: &[B],
    cost: usize,
    f: impl Fn(A, B) -> O + Sync,
) -> Vec<O> {
    assert_eq!(a.len(), b.len(), "zip_contig: lengths differ");
    let mut out = uninit_vec::<O>(a.len());
    let stream = should_stream::<O>(a.len());
    let kernel = |o: &mut [MaybeUninit<O>], a: &[A], b: &[B]| {
        // SAFETY: `o` is this call's own slice.
        unsafe {
            stream_run(o.as_mut_ptr(), o.len(), stream, |part, start| {
                if stream {
                    super::stream::prefetch(a, start + part.len(), part.len());
                    super::stream::prefetch(b, start + part.len(), part.len());
                }
                super::wide::zip_slices(part, &a[start..], &b[start..], &f);
            })
        }
    };
    if a.len() < threshold(cost) || crate::threads::num_threads() <= 1 {
        kernel(&mut out, a, b);
    } else {
        use rayon::prelude::*;
        let chunk = a.len().div_ceil(crate::threads::num_threads() * 4);
        out.par_chunks_mut(chunk)
            .zip(a.par_chunks(chunk))
            .zip(b.par_chunks(chunk))
            .for_each(|((o, a), b)| kernel(o, a, b));
    }
    // SAFETY: the chunks cover every element of `out`, each written once.
    unsafe { assume_init_vec(out) }
}

/// `f(a)` of every element of `shape`, as a row-major vector.
pub(crate) fn map_new<A: Copy + Sync, O: Send>(shape: &[usize], a: Src<'_, A>, f: impl Fn(A) -> O + Sync) -> Vec<O> {
    map_new_cost(shape, a, 1, f)
}

/// [`map_new`] with a relative per-element `cost` (1 = one add) for the parallel split.
pub(crate) fn map_new_cost<A: Copy + Sync, O: Send>(
    shape: &[usize],
    a: Src<'_, A>,
    cost: usize,
    f: impl Fn(A) -> O + Sync,
) -> Vec<O> {
    let (mut out, plan) = output_plan::<O, 2>(shape, [&[], a.strides], [0, a.off], [0, a.buf.len()]);
    let [so, sa] = plan.inner;
    let (op, ap) = (SendPtr(out.as_mut_ptr()), ReadPtr(a.buf.as_ptr()));
    if let Some(r) = plan.tile_axis(TILE).filter(|_| so == 1) {
        let (ro, ra) = (plan.outer_strides[0][r], plan.outer_strides[1][r]);
        plan.par_for_each_tile(threshold(cost), TILE, r, |[oo, ao], rows, cols| {
            let mut ba = tile_buf::<A>();
            // SAFETY: the tile lies inside both buffers (`check_plan_bounds`), output
            // tiles are disjoint across threads, and `stage` initialises what is read.
            unsafe {
                stage(ap.at(ao), ra, sa, rows, cols, &mut ba);
                for i in 0..rows {
                    let o = std::slice::from_raw_parts_mut(op.get().offset(oo + i as isize * ro), cols);
                    for (d, &x) in o.iter_mut().zip(tile_row(&ba, i, cols)) {
                        d.write(f(x));
                    }
                }
            }
        });
        // SAFETY: the tiles cover every element of the row-major output exactly once.
        return unsafe { assume_init_vec(out) };
    }
    let stream = should_stream::<O>(plan.len());
    plan.par_for_each_run(threshold(cost), |[oo, ao], len| {
        // SAFETY: `check_plan_bounds` proved that every run lies inside both buffers;
        // runs handed to different threads are disjoint in the (row-major) output.
        unsafe { run1(op.get().offset(oo), so, ap.at(ao), sa, len, stream, &f) }
    });
    // SAFETY: the plan covers every element of the row-major output exactly once.
    unsafe { assume_init_vec(out) }
}

/// Like [`map_new`] with a slice kernel for unit-stride runs: `fs(src, dst)` must write
/// `f` of every element of `src` into `dst` (e.g. a vectorised `exp`).
pub(crate) fn map_new_slices<A: Copy + Sync, O: Copy + Default + Send>(
    shape: &[usize],
    a: Src<'_, A>,
    cost: usize,
    f: impl Fn(A) -> O + Sync,
    fs: impl Fn(&[A], &mut [O]) + Sync,
) -> Vec<O> {
    const CHUNK: usize = 256;
    const PREFETCH_CHUNKS: usize = 4;
    let (mut out, plan) = output_plan::<O, 2>(shape, [&[], a.strides], [0, a.off], [0, a.buf.len()]);
    let [so, sa] = plan.inner;
    let (op, ap) = (SendPtr(out.as_mut_ptr()), ReadPtr(a.buf.as_ptr()));
    if let Some(r) = plan.tile_axis(TILE).filter(|_| so == 1) {
        let (ro, ra) = (plan.outer_strides[0][r], plan.outer_strides[1][r]);
        plan.par_for_each_tile(threshold(cost), TILE, r, |[oo, ao], rows, cols| {
            let mut ba = tile_buf::<A>();
            let mut tmp = [O::default(); TILE];
            // SAFETY: as in `map_new_cost`.
            unsafe {
                stage(ap.at(ao), ra, sa, rows, cols, &mut ba);
                for i in 0..rows {
                    fs(tile_row(&ba, i, cols), &mut tmp[..cols]);
                    let o = std::slice::from_raw_parts_mut(op.get().offset(oo + i as isize * ro), cols);
                    for (d, &t) in o.iter_mut().zip(&tmp[..cols]) {
                        d.write(t);
                    }
                }
            }
        });
        // SAFETY: the tiles cover every element of the row-major output exactly once.
        return unsafe { assume_init_vec(out) };
    }
    let stream = should_stream::<O>(plan.len());
    plan.par_for_each_run(threshold(cost), |[oo, ao], len| {
        if so == 1 && sa == 1 {
            let mut tmp = [O::default(); CHUNK];
            // SAFETY: the run lies inside both buffers (`check_plan_bounds`) and the
            // output run belongs to this call alone.
            unsafe {
                let (src, dst) = (std::slice::from_raw_parts(ap.at(ao), len), op.get().offset(oo));
                for (k, part) in src.chunks(CHUNK).enumerate() {
                    let tmp = &mut tmp[..part.len()];
                    if stream {
                        super::stream::prefetch(src, (k + PREFETCH_CHUNKS) * CHUNK, CHUNK);
                    }
                    fs(part, tmp);
                    super::stream::store_run(dst.add(k * CHUNK), tmp, stream);
                }
            }
            if stream {
                super::stream::fence();
            }
        } else {
            // SAFETY: as in `map_new_cost`.
            unsafe { run1(op.get().offset(oo), so, ap.at(ao), sa, len, stream, &f) }
        }
    });
    // SAFETY: the plan covers every element of the row-major output exactly once.
    unsafe { assume_init_vec(out) }
}

/// One run of a unary kernel.
///
/// # Safety
/// `o + i*so` and `a + i*sa` for `i < len` must be valid, `o`'s elements written by
/// nobody else meanwhile.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn run1<A: Copy, O>(
    o: *mut MaybeUninit<O>,
    so: isize,
    a: *const A,
    sa: isize,
    len: usize,
    stream: bool,
    f: &impl Fn(A) -> O,
) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        if so == 1 && sa == 1 {
            let a = std::slice::from_raw_parts(a, len);
            stream_run(o, len, stream, |o, start| {
                if stream {
                    super::stream::prefetch(a, start + o.len(), o.len());
                }
                super::wide::map_slices(o, &a[start..], f)
            });
        } else if so == 1 && sa == 0 {
            let y = *a;
            stream_run(o, len, stream, |o, _| {
                for x in o {
                    x.write(f(y));
                }
            });
        } else {
            for i in 0..len as isize {
                (*o.offset(i * so)).write(f(*a.offset(i * sa)));
            }
        }
    }
}

/// `f(a, b)` of every element of `shape` (operands already broadcast), row-major.
pub(crate) fn zip_new<A: Copy + Sync, B: Copy + Sync, O: Send>(
    shape: &[usize],
    a: Src<'_, A>,
    b: Src<'_, B>,
    f: impl Fn(A, B) -> O + Sync,
) -> Vec<O> {
    let (mut out, plan) = output_plan::<O, 3>(
        shape,
        [&[], a.strides, b.strides],
        [0, a.off, b.off],
        [0, a.buf.len(), b.buf.len()],
    );
    let [so, sa, sb] = plan.inner;
    let (op, ap, bp) = (
        SendPtr(out.as_mut_ptr()),
        ReadPtr(a.buf.as_ptr()),
        ReadPtr(b.buf.as_ptr()),
    );
    if let Some(r) = plan.tile_axis(TILE).filter(|_| so == 1) {
        let [ro, ra, rb] = std::array::from_fn(|k| plan.outer_strides[k][r]);
        plan.par_for_each_tile(threshold(1), TILE, r, |[oo, ao, bo], rows, cols| {
            let (mut ba, mut bb) = (tile_buf::<A>(), tile_buf::<B>());
            // SAFETY: as in `map_new_cost`.
            unsafe {
                stage(ap.at(ao), ra, sa, rows, cols, &mut ba);
                stage(bp.at(bo), rb, sb, rows, cols, &mut bb);
                for i in 0..rows {
                    let o = std::slice::from_raw_parts_mut(op.get().offset(oo + i as isize * ro), cols);
                    let (x, y) = (tile_row(&ba, i, cols), tile_row(&bb, i, cols));
                    for ((d, &p), &q) in o.iter_mut().zip(x).zip(y) {
                        d.write(f(p, q));
                    }
                }
            }
        });
        // SAFETY: the tiles cover every element of the row-major output exactly once.
        return unsafe { assume_init_vec(out) };
    }
    let stream = should_stream::<O>(plan.len());
    plan.par_for_each_run(threshold(1), |[oo, ao, bo], len| {
        // SAFETY: every run lies inside its buffer (`check_plan_bounds`); output runs
        // handed to different threads are disjoint.
        unsafe {
            let o = op.get().offset(oo);
            let (a, b) = (ap.at(ao), bp.at(bo));
            if so != 1 {
                for i in 0..len as isize {
                    (*o.offset(i * so)).write(f(*a.offset(i * sa), *b.offset(i * sb)));
                }
                return;
            }
            stream_run(o, len, stream, |o, start| {
                let (a, b) = (a.offset(start as isize * sa), b.offset(start as isize * sb));
                let len = o.len();
                match (sa, sb) {
                    (1, 1) => {
                        let (a, b) = (std::slice::from_raw_parts(a, len), std::slice::from_raw_parts(b, len));
                        super::wide::zip_slices(o, a, b, &f);
                    }
                    (1, 0) => {
                        let (a, q) = (std::slice::from_raw_parts(a, len), *b);
                        super::wide::map_slices(o, a, &|p| f(p, q));
                    }
                    (0, 1) => {
                        let (p, b) = (*a, std::slice::from_raw_parts(b, len));
                        super::wide::map_slices(o, b, &|q| f(p, q));
                    }
                    _ => {
                        for (i, x) in o.iter_mut().enumerate() {
                            let i = i as isize;
                            x.write(f(*a.offset(i * sa), *b.offset(i * sb)));
                        }
                    }
                }
            });
        }
    });
    // SAFETY: the plan covers every element of the row-major output exactly once.
    unsafe { assume_init_vec(out) }
}

/// `f(a, b, c)` of every element of `shape` (operands already broadcast), row-major.
pub(crate) fn zip3_new<A: Copy + Sync, B: Copy + Sync, C: Copy + Sync, O: Send>(
    shape: &[usize],
    a: Src<'_, A>,
    b: Src<'_, B>,
    c: Src<'_, C>,
    f: impl Fn(A, B, C) -> O + Sync,
) -> Vec<O> {
    let (mut out, plan) = output_plan::<O, 4>(
        shape,
        [&[], a.strides, b.strides, c.strides],
        [0, a.off, b.off, c.off],
        [0, a.buf.len(), b.buf.len(), c.buf.len()],
    );
    let [so, sa, sb, sc] = plan.inner;
    let op = SendPtr(out.as_mut_ptr());
    let (ap, bp, cp) = (
        ReadPtr(a.buf.as_ptr()),
        ReadPtr(b.buf.as_ptr()),
        ReadPtr(c.buf.as_ptr()),
    );
    plan.par_for_each_block(threshold(1), TILE, |[oo, ao, bo, co], len| {
        // SAFETY: as in `zip_new`.
        unsafe {
            let o = op.get().offset(oo);
            let (a, b, c) = (ap.at(ao), bp.at(bo), cp.at(co));
            for i in 0..len as isize {
                (*o.offset(i * so)).write(f(*a.offset(i * sa), *b.offset(i * sb), *c.offset(i * sc)));
            }
        }
    });
    // SAFETY: the plan covers every element of the row-major output exactly once.
    unsafe { assume_init_vec(out) }
}

/// A writable operand: the whole buffer, strides that never make two indices alias,
/// and the offset of element zero.
pub(crate) struct Dst<'a, T> {
    pub buf: &'a mut [T],
    pub strides: &'a [isize],
    pub off: usize,
}

/// `f(&mut o, b)` for every element `o` of the writable operand, `b` broadcast to its
/// shape.
pub(crate) fn zip_inplace<O: Copy + Send, B: Copy + Sync>(
    shape: &[usize],
    out: Dst<'_, O>,
    b: Src<'_, B>,
    f: impl Fn(&mut O, B) + Sync,
) {
    let plan = Plan::<2>::new(shape, [out.strides, b.strides], [out.off, b.off], true);
    check_plan_bounds(&plan, [out.buf.len(), b.buf.len()]);
    let [so, sb] = plan.inner;
    let (op, bp) = (SendPtr(out.buf.as_mut_ptr()), ReadPtr(b.buf.as_ptr()));
    if let Some(r) = plan.tile_axis(TILE) {
        let [ro, rb] = std::array::from_fn(|k| plan.outer_strides[k][r]);
        plan.par_for_each_tile(threshold(1), TILE, r, |[oo, bo], rows, cols| {
            let (mut bo_, mut bb) = (tile_buf::<O>(), tile_buf::<B>());
            // SAFETY: the tile lies inside both buffers (`check_plan_bounds`); the
            // output layout does not alias, so tiles handed to different threads are
            // disjoint; `stage` initialises every entry that is read or written back.
            unsafe {
                let o = op.get().offset(oo);
                stage(o, ro, so, rows, cols, &mut bo_);
                stage(bp.at(bo), rb, sb, rows, cols, &mut bb);
                for i in 0..rows {
                    let y = tile_row(&bb, i, cols);
                    for (x, &y) in tile_row_mut(&mut bo_, i, cols).iter_mut().zip(y) {
                        f(x, y);
                    }
                }
                unstage(o, ro, so, rows, cols, &bo_);
            }
        });
        return;
    }
    plan.par_for_each_run(threshold(1), |[oo, bo], len| {
        // SAFETY: runs lie inside the buffers (`check_plan_bounds`); the output layout
        // does not alias, so runs handed to different threads are disjoint, and the
        // read operand is a different buffer (a shared borrow next to a unique one).
        unsafe {
            let o = op.get().offset(oo);
            let b = bp.at(bo);
            if so == 1 && sb == 1 {
                let (o, b) = (
                    std::slice::from_raw_parts_mut(o, len),
                    std::slice::from_raw_parts(b, len),
                );
                for (x, &y) in o.iter_mut().zip(b) {
                    f(x, y);
                }
            } else if so == 1 && sb == 0 {
                let y = *b;
                for x in std::slice::from_raw_parts_mut(o, len) {
                    f(x, y);
                }
            } else {
                for i in 0..len as isize {
                    f(&mut *o.offset(i * so), *b.offset(i * sb));
                }
            }
        }
    });
}

/// `f(&mut o)` for every element of a writable operand.
pub(crate) fn map_inplace<O: Send>(shape: &[usize], out: Dst<'_, O>, f: impl Fn(&mut O) + Sync) {
    super::apply1(out.buf, shape, out.strides, out.off, f)
}

#[cfg(test)]
#[path = "zip_tests.rs"]
mod tests;
