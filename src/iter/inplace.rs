//! Element-wise kernels that write into an existing writable operand ([`Dst`]): every
//! element of it once, in place, with read operands broadcast to its shape.

use super::operand::{Dst, ReadPtr, SendPtr, Src};
use super::tile::{TILE, stage, tile_buf, tile_row, tile_row_mut, unstage};
use super::{Plan, check_plan_bounds};

/// `f(&mut o)` for every element `o` of the writable operand.
pub(crate) fn for_each_mut<O: Send>(shape: &[usize], out: Dst<'_, O>, f: impl Fn(&mut O) + Sync) {
    let plan = Plan::<1>::new(shape, [out.strides], [out.off], true);
    check_plan_bounds(&plan, [out.buf.len()]);
    let threshold = super::threshold(1);
    let [so] = plan.inner;
    let optr = SendPtr(out.buf.as_mut_ptr());
    plan.par_for_each_block(threshold, TILE, |[oo], len| {
        if so == 1 {
            // SAFETY: the plan's runs lie inside the buffer (checked above) and runs
            // handed to different threads are disjoint because the operand does not alias.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().offset(oo), len) };
            o.iter_mut().for_each(&f);
        } else {
            for i in 0..len as isize {
                // SAFETY: as above, for one element of the run.
                f(unsafe { &mut *optr.get().offset(oo + i * so) });
            }
        }
    });
}

/// `f(&mut o, b)` for every element `o` of the writable operand, `b` broadcast to its
/// shape.
pub(crate) fn zip_into<O: Copy + Send, B: Copy + Sync>(
    shape: &[usize],
    out: Dst<'_, O>,
    b: Src<'_, B>,
    f: impl Fn(&mut O, B) + Sync,
) {
    let plan = Plan::<2>::new(shape, [out.strides, b.strides], [out.off, b.off], true);
    check_plan_bounds(&plan, [out.buf.len(), b.buf.len()]);
    let threshold = super::threshold(1);
    let [so, sb] = plan.inner;
    let (op, bp) = (SendPtr(out.buf.as_mut_ptr()), ReadPtr(b.buf.as_ptr()));
    if let Some(r) = plan.tile_axis(TILE) {
        let [ro, rb] = std::array::from_fn(|k| plan.outer_strides[k][r]);
        plan.par_for_each_tile(threshold, TILE, r, |[oo, bo], rows, cols| {
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
    plan.par_for_each_run(threshold, |[oo, bo], len| {
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
