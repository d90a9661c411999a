//! The iteration engine: every data operation walks its operands through here.
//!
//! Given one output layout and input layouts broadcast to the same shape, the engine
//! drops length-1 axes, orders axes by the output's strides, merges axes that are
//! contiguous in every operand, hands kernels inner runs (unit stride is the fast
//! path), and splits the outer loop over rayon threads above a size threshold (see
//! [`crate::threads`]). Logical-order iterators ([`Iter`], [`IterMut`],
//! [`IndexedIter`]) walk any layout in row-major index order.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::from_vec((0..6).collect(), [2, 3]).unwrap();
//! let t = a.t();                                     // a transposed view
//! let seen: Vec<i32> = t.iter().copied().collect();  // logical order of the view
//! assert_eq!(seen, vec![0, 3, 1, 4, 2, 5]);
//! ```

mod iters;
pub(crate) mod plan;
pub(crate) mod stream;
mod transpose;
pub(crate) mod wide;
pub(crate) mod zip;

pub use iters::{IndexedIter, Iter, IterMut};

/// Moved to [`crate::memory::set_buffer_cache_limit`].
///
/// ```
/// #![allow(deprecated)]
/// let before = ferrotensor::iter::buffer_cache_limit();
/// ferrotensor::iter::set_buffer_cache_limit(before);
/// assert_eq!(ferrotensor::memory::buffer_cache_limit(), before);
/// ```
#[deprecated(since = "0.2.0", note = "moved to `ferrotensor::memory::set_buffer_cache_limit`")]
pub fn set_buffer_cache_limit(bytes: usize) {
    crate::memory::set_buffer_cache_limit(bytes)
}

/// Moved to [`crate::memory::buffer_cache_limit`].
///
/// ```
/// #![allow(deprecated)]
/// assert_eq!(ferrotensor::iter::buffer_cache_limit(), ferrotensor::memory::buffer_cache_limit());
/// ```
#[deprecated(since = "0.2.0", note = "moved to `ferrotensor::memory::buffer_cache_limit`")]
pub fn buffer_cache_limit() -> usize {
    crate::memory::buffer_cache_limit()
}

/// Moved to [`crate::memory::release_cached_buffers`].
///
/// ```
/// #![allow(deprecated)]
/// ferrotensor::iter::release_cached_buffers();
/// assert_eq!(ferrotensor::memory::cached_bytes(), 0);
/// ```
#[deprecated(since = "0.2.0", note = "moved to `ferrotensor::memory::release_cached_buffers`")]
pub fn release_cached_buffers() -> usize {
    crate::memory::release_cached_buffers()
}

#[cfg(test)]
mod tests;
pub(crate) use plan::Plan;

use crate::layout::{Dimension, Layout};

/// Element count from which kernels split work across threads (measured: below this
/// the rayon hand-off costs more than it saves on a 2-core machine).
pub const PARALLEL_THRESHOLD: usize = 1 << 17;

thread_local! {
    static THRESHOLD_OVERRIDE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with the element-wise kernels' parallel threshold set to `elements` on this
/// thread (restored afterwards, also on panic): a tool for measuring where splitting
/// pays (`0` splits everything that has at least two runs or elements).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::ones([64, 64]);
/// let b = ferrotensor::iter::with_parallel_threshold(0, || &a + &a);
/// assert_eq!(b.to_vec(), vec![2.0; 4096]);
/// ```
pub fn with_parallel_threshold<R>(elements: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THRESHOLD_OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(THRESHOLD_OVERRIDE.with(|c| c.replace(Some(elements))));
    f()
}

/// The threshold override of [`with_parallel_threshold`], if any.
pub(crate) fn threshold_override() -> Option<usize> {
    THRESHOLD_OVERRIDE.with(|c| c.get())
}

/// A raw pointer that may be sent to other threads: kernels give each thread
/// disjoint runs of one buffer.
pub(crate) struct SendPtr<T>(pub *mut T);
impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}
impl<T> SendPtr<T> {
    /// The pointer (a method, so closures capture the whole `Send + Sync` wrapper).
    #[inline(always)]
    pub(crate) fn get(self) -> *mut T {
        self.0
    }
}
// SAFETY: a SendPtr is only dereferenced inside engine kernels, on runs that the
// plan hands to exactly one thread each.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above; shared access never writes the same element from two threads.
unsafe impl<T: Send> Sync for SendPtr<T> {}

/// Runs `f(out, a)` for every element of a shared shape: `out` is written through a
/// writable buffer (`out_strides` must not make two indices alias), `a` is read.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply2<O: Send, A: Copy + Sync>(
    shape: &[usize],
    out: &mut [O],
    out_strides: &[isize],
    out_off: usize,
    a: &[A],
    a_strides: &[isize],
    a_off: usize,
    f: impl Fn(&mut O, A) + Sync,
) {
    let plan = Plan::<2>::new(shape, [out_strides, a_strides], [out_off, a_off], true);
    check_plan_bounds(&plan, [out.len(), a.len()]);
    let [so, sa] = plan.inner;
    let optr = SendPtr(out.as_mut_ptr());
    plan.par_for_each_block(PARALLEL_THRESHOLD, zip::TILE, |[oo, ao], len| {
        if so == 1 {
            // SAFETY: the plan's runs lie inside `out` (checked above) and runs handed to
            // different threads are disjoint because `out` has no aliasing strides.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().offset(oo), len) };
            if sa == 1 {
                let src = &a[ao as usize..ao as usize + len];
                for (x, &y) in o.iter_mut().zip(src) {
                    f(x, y);
                }
            } else if sa == 0 {
                let y = a[ao as usize];
                for x in o.iter_mut() {
                    f(x, y);
                }
            } else {
                for (i, x) in o.iter_mut().enumerate() {
                    f(x, a[(ao + i as isize * sa) as usize]);
                }
            }
        } else {
            for i in 0..len as isize {
                // SAFETY: as above, for one element of the run.
                let x = unsafe { &mut *optr.get().offset(oo + i * so) };
                f(x, a[(ao + i * sa) as usize]);
            }
        }
    });
}

/// Runs `f(out, a, b)` for every element of a shared shape (see [`apply2`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply3<O: Send, A: Copy + Sync, B: Copy + Sync>(
    shape: &[usize],
    out: &mut [O],
    out_strides: &[isize],
    out_off: usize,
    a: (&[A], &[isize], usize),
    b: (&[B], &[isize], usize),
    f: impl Fn(&mut O, A, B) + Sync,
) {
    let plan = Plan::<3>::new(shape, [out_strides, a.1, b.1], [out_off, a.2, b.2], true);
    check_plan_bounds(&plan, [out.len(), a.0.len(), b.0.len()]);
    let [so, sa, sb] = plan.inner;
    let (abuf, bbuf) = (a.0, b.0);
    let optr = SendPtr(out.as_mut_ptr());
    plan.par_for_each_block(PARALLEL_THRESHOLD, zip::TILE, |[oo, ao, bo], len| {
        if so == 1 {
            // SAFETY: see `apply2`: runs are in bounds and disjoint across threads.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().offset(oo), len) };
            let (ao, bo) = (ao as usize, bo as usize);
            match (sa, sb) {
                (1, 1) => {
                    let (x, y) = (&abuf[ao..ao + len], &bbuf[bo..bo + len]);
                    for ((r, &p), &q) in o.iter_mut().zip(x).zip(y) {
                        f(r, p, q);
                    }
                }
                (1, 0) => {
                    let (x, q) = (&abuf[ao..ao + len], bbuf[bo]);
                    for (r, &p) in o.iter_mut().zip(x) {
                        f(r, p, q);
                    }
                }
                (0, 1) => {
                    let (p, y) = (abuf[ao], &bbuf[bo..bo + len]);
                    for (r, &q) in o.iter_mut().zip(y) {
                        f(r, p, q);
                    }
                }
                _ => {
                    for (i, r) in o.iter_mut().enumerate() {
                        let i = i as isize;
                        f(
                            r,
                            abuf[(ao as isize + i * sa) as usize],
                            bbuf[(bo as isize + i * sb) as usize],
                        );
                    }
                }
            }
        } else {
            for i in 0..len as isize {
                // SAFETY: as above, for one element of the run.
                let r = unsafe { &mut *optr.get().offset(oo + i * so) };
                f(r, abuf[(ao + i * sa) as usize], bbuf[(bo + i * sb) as usize]);
            }
        }
    });
}

/// Panics (a bug, not a user error) if a plan could reach outside its buffers: the
/// unsafe writes above rely on it.
fn check_plan_bounds<const N: usize>(plan: &Plan<N>, lens: [usize; N]) {
    if plan.empty {
        return;
    }
    for (k, &len) in lens.iter().enumerate() {
        let mut lo = plan.base[k] as i128;
        let mut hi = lo;
        let spans = plan
            .outer
            .iter()
            .zip(plan.outer_strides[k].iter())
            .map(|(&d, &s)| (d as i128 - 1) * s as i128)
            .chain(std::iter::once((plan.inner_len as i128 - 1) * plan.inner[k] as i128));
        for span in spans {
            if span < 0 { lo += span } else { hi += span }
        }
        assert!(
            lo >= 0 && hi < len as i128,
            "engine: operand {k} reaches outside its buffer"
        );
    }
}

/// Copies the elements a layout names into a new vector in row-major logical order
/// (tiled when the layout is transposed, parallel when large).
pub(crate) fn gather_c_order<T: crate::Element, D: Dimension>(buf: &[T], layout: &Layout<D>) -> Vec<T> {
    let src = zip::Src::new(buf, layout.strides(), layout.offset);
    if let Some(v) = transpose::transpose_copy(layout.shape(), src) {
        return v;
    }
    zip::map_new(layout.shape(), src, |x: T| x)
}

/// `f` of every element a layout names, into a new row-major vector.
pub(crate) fn map_c_order<A: Sync, O: Send + Default + Clone, D: Dimension>(
    buf: &[A],
    layout: &Layout<D>,
    f: impl Fn(&A) -> O + Sync,
) -> Vec<O> {
    let n = layout.size();
    let mut out = vec![O::default(); n];
    let shape = layout.shape();
    let cs = zip::c_strides(shape);
    apply_ref(shape, &mut out, &cs, 0, buf, layout.strides(), layout.offset, |o, a| {
        *o = f(a)
    });
    out
}

/// Like [`apply2`] for inputs read by reference (no `Copy` bound).
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_ref<O: Send, A: Sync>(
    shape: &[usize],
    out: &mut [O],
    out_strides: &[isize],
    out_off: usize,
    a: &[A],
    a_strides: &[isize],
    a_off: usize,
    f: impl Fn(&mut O, &A) + Sync,
) {
    let plan = Plan::<2>::new(shape, [out_strides, a_strides], [out_off, a_off], true);
    check_plan_bounds(&plan, [out.len(), a.len()]);
    let [so, sa] = plan.inner;
    let optr = SendPtr(out.as_mut_ptr());
    plan.par_for_each_block(PARALLEL_THRESHOLD, zip::TILE, |[oo, ao], len| {
        if so == 1 && sa == 1 {
            // SAFETY: see `apply2`.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().offset(oo), len) };
            for (x, y) in o.iter_mut().zip(&a[ao as usize..ao as usize + len]) {
                f(x, y);
            }
        } else {
            for i in 0..len as isize {
                // SAFETY: see `apply2`, for one element of the run.
                let x = unsafe { &mut *optr.get().offset(oo + i * so) };
                f(x, &a[(ao + i * sa) as usize]);
            }
        }
    });
}

/// Runs `f` on every element a writable layout names (no aliasing strides).
pub(crate) fn apply1<O: Send>(
    buf: &mut [O],
    layout_shape: &[usize],
    strides: &[isize],
    off: usize,
    f: impl Fn(&mut O) + Sync,
) {
    let plan = Plan::<1>::new(layout_shape, [strides], [off], true);
    check_plan_bounds(&plan, [buf.len()]);
    let [so] = plan.inner;
    let optr = SendPtr(buf.as_mut_ptr());
    plan.par_for_each_block(PARALLEL_THRESHOLD, zip::TILE, |[oo], len| {
        if so == 1 {
            // SAFETY: see `apply2`.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().offset(oo), len) };
            o.iter_mut().for_each(&f);
        } else {
            for i in 0..len as isize {
                // SAFETY: see `apply2`, for one element of the run.
                f(unsafe { &mut *optr.get().offset(oo + i * so) });
            }
        }
    });
}
