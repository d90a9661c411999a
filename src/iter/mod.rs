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

mod band_walk;
pub(crate) mod inplace;
mod iters;
pub(crate) mod operand;
pub(crate) mod plan;
mod scratch_zip;
pub(crate) mod stream;
mod tile;
mod transpose;
mod transposed_zip;
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
pub(crate) use inplace::{for_each_mut, zip_into};
pub(crate) use operand::{Dst, SendPtr, Src};
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

/// The threshold set by [`with_parallel_threshold`] on this thread, if any.
pub(crate) fn threshold_override() -> Option<usize> {
    THRESHOLD_OVERRIDE.with(|c| c.get())
}

/// Minimum element count for a parallel split (the override of
/// [`with_parallel_threshold`] if set), scaled down for expensive functions (`cost` 1 =
/// an add).
#[inline]
pub(crate) fn threshold(cost: usize) -> usize {
    THRESHOLD_OVERRIDE
        .with(|c| c.get())
        .unwrap_or((PARALLEL_THRESHOLD / cost.max(1)).max(1 << 12))
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
    let src = Src::of(buf, layout);
    if let Some(v) = transpose::transpose_copy(layout.shape(), src) {
        return v;
    }
    zip::map_new(layout.shape(), src, |x: T| x)
}
