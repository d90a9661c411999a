//! Element-wise kernels of the engine: one to three read operands, written into a fresh
//! row-major output or into a writable operand in place.
//!
//! Each kernel builds a [`Plan`] (operand 0 is the output), checks that every run stays
//! inside its buffer, and walks the runs (tiled for transposing plans, parallel above
//! [`PARALLEL_THRESHOLD`](super::PARALLEL_THRESHOLD) elements). The inner loops work on
//! slices for unit-stride runs so that the compiler vectorises them.

use super::alloc::{assume_init_vec, uninit_vec};
use super::{Plan, SendPtr, check_plan_bounds};
use crate::layout::dim::StrideVec;
use std::mem::MaybeUninit;

/// Side of the square tiles used for transposing plans (64×64 f32 = 16 KiB per operand).
pub(crate) const TILE: usize = 64;

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
struct ReadPtr<T>(*const T);
impl<T> ReadPtr<T> {
    #[inline(always)]
    fn at(self, off: isize) -> *const T {
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
    (super::PARALLEL_THRESHOLD / cost.max(1)).max(1 << 12)
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
    let n: usize = shape.iter().product();
    let mut out = uninit_vec::<O>(n);
    let cs = c_strides(shape);
    let plan = Plan::<2>::new(shape, [&cs, a.strides], [0, a.off], true);
    check_plan_bounds(&plan, [n, a.buf.len()]);
    let [so, sa] = plan.inner;
    let (op, ap) = (SendPtr(out.as_mut_ptr()), ReadPtr(a.buf.as_ptr()));
    plan.par_for_each_block(threshold(cost), TILE, |[oo, ao], len| {
        // SAFETY: `check_plan_bounds` proved that every run lies inside both buffers;
        // runs handed to different threads are disjoint in the (row-major) output.
        unsafe { run1(op.get().offset(oo), so, ap.at(ao), sa, len, &f) }
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
    let n: usize = shape.iter().product();
    let mut out = uninit_vec::<O>(n);
    let cs = c_strides(shape);
    let plan = Plan::<2>::new(shape, [&cs, a.strides], [0, a.off], true);
    check_plan_bounds(&plan, [n, a.buf.len()]);
    let [so, sa] = plan.inner;
    let (op, ap) = (SendPtr(out.as_mut_ptr()), ReadPtr(a.buf.as_ptr()));
    plan.par_for_each_block(threshold(cost), TILE, |[oo, ao], len| {
        if so == 1 && sa == 1 {
            let mut tmp = [O::default(); CHUNK];
            let mut done = 0;
            while done < len {
                let c = CHUNK.min(len - done);
                // SAFETY: the run lies inside both buffers (`check_plan_bounds`) and the
                // output run belongs to this call alone.
                let (src, dst) = unsafe {
                    (
                        std::slice::from_raw_parts(ap.at(ao + done as isize), c),
                        std::slice::from_raw_parts_mut(op.get().offset(oo + done as isize), c),
                    )
                };
                fs(src, &mut tmp[..c]);
                for (d, &t) in dst.iter_mut().zip(&tmp[..c]) {
                    d.write(t);
                }
                done += c;
            }
        } else {
            // SAFETY: as in `map_new_cost`.
            unsafe { run1(op.get().offset(oo), so, ap.at(ao), sa, len, &f) }
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
unsafe fn run1<A: Copy, O>(o: *mut MaybeUninit<O>, so: isize, a: *const A, sa: isize, len: usize, f: &impl Fn(A) -> O) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        if so == 1 && sa == 1 {
            let (o, a) = (
                std::slice::from_raw_parts_mut(o, len),
                std::slice::from_raw_parts(a, len),
            );
            for (x, &y) in o.iter_mut().zip(a) {
                x.write(f(y));
            }
        } else if so == 1 && sa == 0 {
            let y = *a;
            for x in std::slice::from_raw_parts_mut(o, len) {
                x.write(f(y));
            }
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
    let n: usize = shape.iter().product();
    let mut out = uninit_vec::<O>(n);
    let cs = c_strides(shape);
    let plan = Plan::<3>::new(shape, [&cs, a.strides, b.strides], [0, a.off, b.off], true);
    check_plan_bounds(&plan, [n, a.buf.len(), b.buf.len()]);
    let [so, sa, sb] = plan.inner;
    let (op, ap, bp) = (
        SendPtr(out.as_mut_ptr()),
        ReadPtr(a.buf.as_ptr()),
        ReadPtr(b.buf.as_ptr()),
    );
    plan.par_for_each_block(threshold(1), TILE, |[oo, ao, bo], len| {
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
            let o = std::slice::from_raw_parts_mut(o, len);
            match (sa, sb) {
                (1, 1) => {
                    let (a, b) = (std::slice::from_raw_parts(a, len), std::slice::from_raw_parts(b, len));
                    for ((x, &p), &q) in o.iter_mut().zip(a).zip(b) {
                        x.write(f(p, q));
                    }
                }
                (1, 0) => {
                    let (a, q) = (std::slice::from_raw_parts(a, len), *b);
                    for (x, &p) in o.iter_mut().zip(a) {
                        x.write(f(p, q));
                    }
                }
                (0, 1) => {
                    let (p, b) = (*a, std::slice::from_raw_parts(b, len));
                    for (x, &q) in o.iter_mut().zip(b) {
                        x.write(f(p, q));
                    }
                }
                _ => {
                    for (i, x) in o.iter_mut().enumerate() {
                        let i = i as isize;
                        x.write(f(*a.offset(i * sa), *b.offset(i * sb)));
                    }
                }
            }
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
    let n: usize = shape.iter().product();
    let mut out = uninit_vec::<O>(n);
    let cs = c_strides(shape);
    let plan = Plan::<4>::new(
        shape,
        [&cs, a.strides, b.strides, c.strides],
        [0, a.off, b.off, c.off],
        true,
    );
    check_plan_bounds(&plan, [n, a.buf.len(), b.buf.len(), c.buf.len()]);
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
pub(crate) fn zip_inplace<O: Send, B: Copy + Sync>(
    shape: &[usize],
    out: Dst<'_, O>,
    b: Src<'_, B>,
    f: impl Fn(&mut O, B) + Sync,
) {
    let plan = Plan::<2>::new(shape, [out.strides, b.strides], [out.off, b.off], true);
    check_plan_bounds(&plan, [out.buf.len(), b.buf.len()]);
    let [so, sb] = plan.inner;
    let (op, bp) = (SendPtr(out.buf.as_mut_ptr()), ReadPtr(b.buf.as_ptr()));
    plan.par_for_each_block(threshold(1), TILE, |[oo, bo], len| {
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
