//! Element-wise kernels of the engine that write a fresh row-major output: one to
//! three read operands ([`Src`]).
//!
//! Each kernel builds a [`Plan`] (operand 0 is the output), checks that every run stays
//! inside its buffer, and walks the runs (tiled for transposing plans, parallel above
//! [`PARALLEL_THRESHOLD`](super::PARALLEL_THRESHOLD) elements). The inner loops work on
//! slices for unit-stride runs so that the compiler vectorises them.

pub(crate) use super::operand::{Dst, Src, c_strides};
use super::operand::{ReadPtr, SendPtr};
use super::stream::{fence, should_stream, store_run_moved, stream_run};
use super::tile::{TILE, stage, tile_buf, tile_row};
use super::{Plan, check_plan_bounds, threshold};
use crate::memory::alloc::{assume_init_vec, uninit_vec};
use std::mem::MaybeUninit;

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
fn zip_contig<A: Copy + Sync, B: Copy + Sync, O: Send>(
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
    if map_tiles(&plan, &mut out, a, cost, |src, dst| {
        for (d, &x) in dst.iter_mut().zip(src) {
            d.write(f(x));
        }
    }) {
        // SAFETY: the tiles cover every element of the row-major output exactly once.
        return unsafe { assume_init_vec(out) };
    }
    let [so, sa] = plan.inner;
    let (op, ap) = (SendPtr(out.as_mut_ptr()), ReadPtr(a.buf.as_ptr()));
    let stream = should_stream::<O>(plan.len());
    plan.par_for_each_run(threshold(cost), |[oo, ao], len| {
        // SAFETY: `check_plan_bounds` proved that every run lies inside both buffers;
        // runs handed to different threads are disjoint in the (row-major) output.
        unsafe { run1(op.get().offset(oo), so, ap.at(ao), sa, len, stream, &f) }
    });
    // SAFETY: the plan covers every element of the row-major output exactly once.
    unsafe { assume_init_vec(out) }
}

/// Like [`map_new`] with a slice kernel: `fs(src, dst)` must write `f` of every element
/// of `src` into `dst` (e.g. a vectorised `exp`). Strided and broadcast inputs are
/// gathered a chunk at a time so that `fs` runs on them too.
pub(crate) fn map_new_slices<A: Copy + Default + Sync, O: Copy + Default + Send>(
    shape: &[usize],
    a: Src<'_, A>,
    cost: usize,
    f: impl Fn(A) -> O + Sync,
    fs: impl Fn(&[A], &mut [O]) + Sync,
) -> Vec<O> {
    const CHUNK: usize = 256;
    const PREFETCH_CHUNKS: usize = 4;
    let (mut out, plan) = output_plan::<O, 2>(shape, [&[], a.strides], [0, a.off], [0, a.buf.len()]);
    if map_tiles(&plan, &mut out, a, cost, |src, dst| {
        let mut tmp = [O::default(); TILE];
        let tmp = &mut tmp[..src.len()];
        fs(src, tmp);
        for (d, &t) in dst.iter_mut().zip(tmp.iter()) {
            d.write(t);
        }
    }) {
        // SAFETY: the tiles cover every element of the row-major output exactly once.
        return unsafe { assume_init_vec(out) };
    }
    let [so, sa] = plan.inner;
    let (op, ap) = (SendPtr(out.as_mut_ptr()), ReadPtr(a.buf.as_ptr()));
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
        } else if so == 1 {
            let (mut src, mut tmp) = ([A::default(); CHUNK], [O::default(); CHUNK]);
            let mut start = 0;
            while start < len {
                let part = CHUNK.min(len - start);
                for (i, s) in src[..part].iter_mut().enumerate() {
                    // SAFETY: element `start + i < len` of the run, inside the input
                    // (`check_plan_bounds`).
                    *s = unsafe { *ap.at(ao + (start + i) as isize * sa) };
                }
                fs(&src[..part], &mut tmp[..part]);
                // SAFETY: the output run lies inside `out` and belongs to this call alone.
                unsafe { super::stream::store_run(op.get().offset(oo).add(start), &tmp[..part], stream) };
                start += part;
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

/// The tiled walk of a transposing unary plan (see [`Plan::tile_axis`]) into the fresh
/// row-major `out`: each tile of `a` is staged in L1, then `row(src, dst)` writes one
/// output row of the tile (`dst[j]` from `src[j]`, `src.len() == dst.len() <= TILE`).
/// Returns `false`, doing nothing, when the plan is not tiled.
fn map_tiles<A: Copy + Sync, O: Send>(
    plan: &Plan<2>,
    out: &mut [MaybeUninit<O>],
    a: Src<'_, A>,
    cost: usize,
    row: impl Fn(&[A], &mut [MaybeUninit<O>]) + Sync,
) -> bool {
    let [so, sa] = plan.inner;
    let Some(r) = plan.tile_axis(TILE).filter(|_| so == 1) else {
        return false;
    };
    let (ro, ra) = (plan.outer_strides[0][r], plan.outer_strides[1][r]);
    let (op, ap) = (SendPtr(out.as_mut_ptr()), ReadPtr(a.buf.as_ptr()));
    plan.par_for_each_tile(threshold(cost), TILE, r, |[oo, ao], rows, cols| {
        let mut ba = tile_buf::<A>();
        // SAFETY: the plan was checked against both buffers (`output_plan`), so the tile
        // lies inside them; output tiles are disjoint across threads; `stage`
        // initialises every entry `tile_row` reads.
        unsafe {
            stage(ap.at(ao), ra, sa, rows, cols, &mut ba);
            for i in 0..rows {
                let o = std::slice::from_raw_parts_mut(op.get().offset(oo + i as isize * ro), cols);
                row(tile_row(&ba, i, cols), o);
            }
        }
    });
    true
}

/// One run of a unary kernel.
///
/// # Safety
/// `o + i*so` and `a + i*sa` for `i < len` must be valid, `o`'s elements written by
/// nobody else meanwhile.
#[inline(always)]
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
    if let (Some(x), Some(y)) = (a.as_c_slice(shape), b.as_c_slice(shape)) {
        return zip_contig(x, y, 1, f);
    }
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
    // SAFETY: `output_plan` checked the plan against the buffers; `out` is ours.
    if unsafe { super::transposed_zip::zip_transposed(&plan, op, ap, bp, &f) } {
        // SAFETY: `zip_transposed` wrote every element of the output.
        return unsafe { assume_init_vec(out) };
    }
    if let Some(r) = plan.tile_axis(TILE).filter(|_| so == 1) {
        let [ro, ra, rb] = std::array::from_fn(|k| plan.outer_strides[k][r]);
        // Large outputs: each tile row (whole cache lines when aligned) is streamed, so
        // the line-strided writes of the column-block walk are not read first.
        let stream = should_stream::<O>(plan.len());
        plan.par_for_each_tile(threshold(1), TILE, r, |[oo, ao, bo], rows, cols| {
            let (mut ba, mut bb) = (tile_buf::<A>(), tile_buf::<B>());
            // SAFETY: as in `map_new_cost`; each output row of the tile (owned by this
            // task alone) is written once from `row`, whose first `cols` entries were
            // just written.
            unsafe {
                stage(ap.at(ao), ra, sa, rows, cols, &mut ba);
                stage(bp.at(bo), rb, sb, rows, cols, &mut bb);
                let mut row: [MaybeUninit<O>; TILE] = [const { MaybeUninit::uninit() }; TILE];
                for i in 0..rows {
                    let (x, y) = (tile_row(&ba, i, cols), tile_row(&bb, i, cols));
                    for ((d, &p), &q) in row.iter_mut().zip(x).zip(y) {
                        d.write(f(p, q));
                    }
                    store_run_moved(op.get().offset(oo + i as isize * ro), &row[..cols], stream);
                }
            }
            if stream {
                fence();
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

#[cfg(test)]
#[path = "zip_tests.rs"]
mod tests;
