//! The bounded cache of FFT plans (see the module documentation of [`crate::fft`]).

use super::FftFloat;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftPlanner};
use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex};

/// Number of plans the cache keeps by default (the most recently used ones).
pub const DEFAULT_PLAN_CACHE_SIZE: usize = 16;

/// What a plan computes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Forward,
    Inverse,
    RealForward,
    RealInverse,
}

struct Entry {
    key: (TypeId, Kind, usize),
    plan: Box<dyn Any + Send + Sync>,
}

struct Cache {
    capacity: usize,
    /// Most recently used last.
    entries: Vec<Entry>,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    capacity: DEFAULT_PLAN_CACHE_SIZE,
    entries: Vec::new(),
});

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    // A panic while the lock was held cannot leave the cache inconsistent (every
    // mutation is a single push/remove), so a poisoned lock is still usable.
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The number of plans the cache keeps.
///
/// ```
/// use ferrotensor::fft;
/// assert!(fft::plan_cache_size() <= 1 << 20);
/// ```
pub fn plan_cache_size() -> usize {
    lock().capacity
}

/// Sets how many plans the cache keeps (the least recently used are dropped first);
/// `0` turns caching off, so every transform plans afresh and no plan outlives its call.
///
/// ```
/// use ferrotensor::fft;
/// let old = fft::plan_cache_size();
/// fft::set_plan_cache_size(4);
/// assert_eq!(fft::plan_cache_size(), 4);
/// fft::set_plan_cache_size(old);
/// ```
pub fn set_plan_cache_size(plans: usize) {
    let mut c = lock();
    c.capacity = plans;
    let excess = c.entries.len().saturating_sub(plans);
    c.entries.drain(..excess);
}

/// Drops every cached plan, freeing their memory.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::<f32, _>::ones([64]);
/// fft::fft(&x, None, 0, Norm::Backward).unwrap();
/// fft::clear_plan_cache();
/// ```
pub fn clear_plan_cache() {
    lock().entries.clear();
}

/// The cached plan for `key`, or a new one from `make` (cached if there is room).
fn get<P: Clone + Send + Sync + 'static>(key: (TypeId, Kind, usize), make: impl FnOnce() -> P) -> P {
    {
        let mut c = lock();
        if let Some(i) = c.entries.iter().position(|e| e.key == key) {
            let e = c.entries.remove(i);
            let plan = e.plan.downcast_ref::<P>().expect("plan type matches its key").clone();
            c.entries.push(e);
            return plan;
        }
    }
    // Planning runs outside the lock: it may take milliseconds for large sizes.
    let plan = make();
    let mut c = lock();
    if c.capacity > 0 && !c.entries.iter().any(|e| e.key == key) {
        if c.entries.len() >= c.capacity {
            c.entries.remove(0);
        }
        c.entries.push(Entry {
            key,
            plan: Box::new(plan.clone()),
        });
    }
    plan
}

/// A complex transform of length `n` (`inverse`: positive exponent, unscaled).
pub(super) fn complex<R: FftFloat>(n: usize, inverse: bool) -> Arc<dyn Fft<R>> {
    let kind = if inverse { Kind::Inverse } else { Kind::Forward };
    get((TypeId::of::<R>(), kind, n), || {
        let mut p = FftPlanner::<R>::new();
        if inverse {
            p.plan_fft_inverse(n)
        } else {
            p.plan_fft_forward(n)
        }
    })
}

/// A real-to-complex transform of `n` real points (`n / 2 + 1` outputs).
pub(super) fn real_forward<R: FftFloat>(n: usize) -> Arc<dyn RealToComplex<R>> {
    get((TypeId::of::<R>(), Kind::RealForward, n), || {
        RealFftPlanner::<R>::new().plan_fft_forward(n)
    })
}

/// A complex-to-real transform giving `n` real points from `n / 2 + 1` inputs.
pub(super) fn real_inverse<R: FftFloat>(n: usize) -> Arc<dyn ComplexToReal<R>> {
    get((TypeId::of::<R>(), Kind::RealInverse, n), || {
        RealFftPlanner::<R>::new().plan_fft_inverse(n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_keeps_the_most_recent_plans_and_can_be_emptied() {
        // One test touches the global cache so that parallel tests cannot race on it.
        let old = plan_cache_size();
        set_plan_cache_size(2);
        let a = complex::<f32>(5, false);
        let b = complex::<f32>(5, false);
        assert!(Arc::ptr_eq(&a, &b), "second request is served from the cache");
        complex::<f64>(5, false);
        complex::<f32>(7, true);
        assert_eq!(lock().entries.len(), 2);
        let c = complex::<f32>(5, false);
        assert!(!Arc::ptr_eq(&a, &c), "the oldest plan was dropped");
        set_plan_cache_size(0);
        assert!(lock().entries.is_empty());
        let d = real_forward::<f64>(6);
        assert_eq!(d.len(), 6);
        assert!(lock().entries.is_empty(), "size 0 caches nothing");
        set_plan_cache_size(old);
        clear_plan_cache();
        assert!(lock().entries.is_empty());
    }
}
