//! Scratch buffers that kernels keep per thread between calls, under the same policy as
//! the cache of large buffers: freed [`CACHE_IDLE_RELEASE`](super::CACHE_IDLE_RELEASE)
//! after their last use by the memory module's [reaper](super::reaper) thread, and at once by
//! [`release_cached_buffers`](super::release_cached_buffers).
//!
//! A convolution's tile buffers are megabytes; allocating them per call page-faults and
//! zeroes them every time (several percent of a layer). Keeping them in a plain
//! thread-local would hold that memory for the life of every worker thread, hidden from
//! the user; here each thread's [`ScratchSlot`] is registered so that the idle rule and
//! the release function reach it.

use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Instant;

use super::cache::CACHE_IDLE_RELEASE;

/// A slot keeps at most this many bytes (larger buffers are freed when put back).
pub(crate) const SLOT_KEEP_BYTES: usize = 8 << 20;

/// The buffers one thread keeps for one kernel, and when they were put back.
#[derive(Default)]
struct Kept {
    bufs: [Vec<f32>; 2],
    put_at: Option<Instant>,
}

/// One thread's kept buffers for one kernel (declare it in a `thread_local!`).
pub(crate) struct ScratchSlot(Arc<Mutex<Kept>>);

/// Every live slot.
struct Registry {
    slots: Vec<Weak<Mutex<Kept>>>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { slots: Vec::new() });

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

fn kept(slot: &Mutex<Kept>) -> MutexGuard<'_, Kept> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

impl ScratchSlot {
    /// A new, empty slot, registered for the idle rule.
    pub fn new() -> Self {
        let slot = Arc::new(Mutex::new(Kept::default()));
        let mut reg = registry();
        reg.slots.retain(|w| w.strong_count() > 0);
        reg.slots.push(Arc::downgrade(&slot));
        ScratchSlot(slot)
    }

    /// Takes the kept buffers (empty vectors when none are kept). Their contents are
    /// stale: callers write before they read.
    pub fn take(&self) -> [Vec<f32>; 2] {
        let mut k = kept(&self.0);
        k.put_at = None;
        std::mem::take(&mut k.bufs)
    }

    /// Keeps `bufs` for this thread's next call when they total at most
    /// [`SLOT_KEEP_BYTES`] and a reaper thread can run; frees them otherwise. Costs one uncontended lock and
    /// one atomic load.
    pub fn put(&self, bufs: [Vec<f32>; 2]) {
        let bytes: usize = bufs.iter().map(|b| b.capacity() * size_of::<f32>()).sum();
        if bytes > SLOT_KEEP_BYTES || bytes == 0 || cfg!(miri) {
            return;
        }
        {
            let mut k = kept(&self.0);
            k.bufs = bufs;
            k.put_at = Some(Instant::now());
        }
        // After storing (see the reaper's docs); without a reaper nothing may be kept.
        if !super::reaper::ensure_running() {
            *kept(&self.0) = Kept::default();
        }
    }
}

/// Frees the buffers of every slot put back at least `idle` before `now` (all when
/// `idle` is zero) and returns the bytes freed and the next deadline, if any.
fn free_idle(reg: &Registry, now: Instant, idle: std::time::Duration) -> (usize, Option<Instant>) {
    let (mut freed, mut next) = (0, None::<Instant>);
    for slot in reg.slots.iter().filter_map(Weak::upgrade) {
        let mut k = kept(&slot);
        let Some(at) = k.put_at else { continue };
        if now.saturating_duration_since(at) >= idle {
            freed += k.bufs.iter().map(|b| b.capacity() * size_of::<f32>()).sum::<usize>();
            *k = Kept::default();
        } else {
            let due = at + idle;
            next = Some(next.map_or(due, |n| n.min(due)));
        }
    }
    (freed, next)
}

/// Frees the slots idle for [`CACHE_IDLE_RELEASE`] by `now`; returns the bytes freed and
/// when the next slot falls due. Called by the [reaper](super::reaper).
pub(super) fn free_due(now: Instant) -> (usize, Option<Instant>) {
    free_idle(&registry(), now, CACHE_IDLE_RELEASE)
}

/// Whether any slot keeps buffers.
pub(super) fn holds_any() -> bool {
    registry()
        .slots
        .iter()
        .filter_map(Weak::upgrade)
        .any(|s| kept(&s).put_at.is_some())
}

/// Frees every slot's kept buffers now; returns the bytes freed.
pub(crate) fn release_all() -> usize {
    let reg = registry();
    let (freed, _) = free_idle(&reg, Instant::now(), std::time::Duration::ZERO);
    drop(reg);
    super::reaper::wake();
    freed
}

/// The bytes all slots keep right now.
pub(crate) fn kept_bytes() -> usize {
    let reg = registry();
    reg.slots
        .iter()
        .filter_map(Weak::upgrade)
        .map(|s| {
            kept(&s)
                .bufs
                .iter()
                .map(|b| b.capacity() * size_of::<f32>())
                .sum::<usize>()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_until_released_or_idle() {
        let slot = ScratchSlot::new();
        let [a, b] = slot.take();
        assert!(a.is_empty() && b.is_empty());
        slot.put([vec![1.0; 1024], vec![2.0; 16]]);
        if cfg!(miri) {
            assert!(slot.take()[0].is_empty(), "nothing is kept under Miri");
            return;
        }
        let [a, b] = slot.take();
        assert_eq!((a.len(), b.len()), (1024, 16), "the buffers come back to this thread");
        slot.put([a, b]);
        assert!(kept_bytes() >= 1040 * 4);
        assert!(release_all() >= 1040 * 4);
        assert!(slot.take()[0].is_empty(), "released buffers are gone");
        // Too large to keep.
        slot.put([vec![0.0; SLOT_KEEP_BYTES / 4 + 1], Vec::new()]);
        assert!(slot.take()[0].is_empty());
        // Freed by the reaper after the idle time.
        slot.put([vec![0.0; 4096], Vec::new()]);
        std::thread::sleep(CACHE_IDLE_RELEASE * 2 + std::time::Duration::from_millis(200));
        assert!(slot.take()[0].is_empty(), "idle buffers are freed by the reaper");
    }
}
