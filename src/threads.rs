//! Thread limits for parallel kernels.
//!
//! Kernels split large work across rayon's pool; small tensors stay on the calling
//! thread. [`set_num_threads`] limits every later call; [`with_num_threads`] limits the
//! calls made inside its closure on the current thread.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f32, _>::ones([512, 512]);
//! let s = ferrotensor::with_num_threads(1, || a.to_owned());
//! assert_eq!(s.size(), 512 * 512);
//! ```

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

static GLOBAL_LIMIT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static SCOPED_LIMIT: Cell<usize> = const { Cell::new(0) };
}

/// Limits every later parallel kernel to `n` threads (`0` removes the limit: use all of
/// rayon's pool). `1` runs everything on the calling thread.
///
/// ```
/// ferrotensor::set_num_threads(1);
/// assert_eq!(ferrotensor::num_threads(), 1);
/// ferrotensor::set_num_threads(0);
/// ```
pub fn set_num_threads(n: usize) {
    GLOBAL_LIMIT.store(n, Ordering::Relaxed);
}

/// Runs `f` with parallel kernels limited to `n` threads on this thread; the previous
/// limit is restored afterwards, also if `f` panics.
///
/// ```
/// let n = ferrotensor::with_num_threads(1, ferrotensor::num_threads);
/// assert_eq!(n, 1);
/// ```
pub fn with_num_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED_LIMIT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(SCOPED_LIMIT.with(|c| c.replace(n)));
    f()
}

/// The number of threads a parallel kernel started now would use.
///
/// ```
/// assert!(ferrotensor::num_threads() >= 1);
/// ```
pub fn num_threads() -> usize {
    let pool = rayon::current_num_threads().max(1);
    let scoped = SCOPED_LIMIT.with(|c| c.get());
    let limit = if scoped > 0 {
        scoped
    } else {
        GLOBAL_LIMIT.load(Ordering::Relaxed)
    };
    if limit == 0 { pool } else { limit.min(pool) }
}
