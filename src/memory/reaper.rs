//! The one background thread that frees what the memory module keeps once it has been
//! idle for [`CACHE_IDLE_RELEASE`](super::CACHE_IDLE_RELEASE): the cache's large
//! buffers ([`cache`](super::cache)) and the kernels' per-thread scratch
//! ([`scratch`](super::scratch)).
//!
//! The thread exists only while something is kept. A keeper first stores what it keeps
//! and then calls [`ensure_running`]; the reaper, before it exits, clears [`RUNNING`]
//! and looks once more. Between the two orders (store → check, clear → look) one of
//! them sees the other, so nothing is ever left behind by a reaper that is just exiting,
//! and the hot path of a keeper is one atomic load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use super::{cache, scratch};

/// Whether a reaper thread runs (or is about to). Only a successful `false → true`
/// exchange may start or continue one, so at most one runs.
static RUNNING: AtomicBool = AtomicBool::new(false);
/// The reaper sleeps on this until the next deadline or an early [`wake`].
static SLEEP: Mutex<()> = Mutex::new(());
static WAKE: Condvar = Condvar::new();

/// Makes sure a reaper runs; call it after storing something to keep. Returns `false`
/// when no thread could be started: the caller must then free what it stored.
pub(super) fn ensure_running() -> bool {
    if RUNNING.load(Ordering::SeqCst) {
        return true;
    }
    if RUNNING
        .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        return true;
    }
    let spawned = std::thread::Builder::new().name("ferrotensor-memory".into()).spawn(run);
    if spawned.is_err() {
        RUNNING.store(false, Ordering::SeqCst);
        return false;
    }
    true
}

/// Wakes the reaper early (something was released or a limit changed), so that it
/// recomputes its deadline or exits.
pub(super) fn wake() {
    WAKE.notify_all();
}

/// Frees what is due in both keepers and returns the earliest next deadline.
fn free_due(now: Instant) -> Option<Instant> {
    let (cache_freed, cache_next) = cache::free_due(now);
    let (scratch_freed, scratch_next) = scratch::free_due(now);
    if cache_freed + scratch_freed > 0 {
        cache::return_free_memory();
    }
    match (cache_next, scratch_next) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The reaper: frees what falls due, sleeps until the next deadline, and exits once
/// nothing is kept.
fn run() {
    loop {
        let now = Instant::now();
        match free_due(now) {
            Some(due) => {
                let guard = SLEEP.lock().unwrap_or_else(|e| e.into_inner());
                let wait = due.saturating_duration_since(Instant::now());
                drop(WAKE.wait_timeout(guard, wait).unwrap_or_else(|e| e.into_inner()));
            }
            None => {
                RUNNING.store(false, Ordering::SeqCst);
                // A keeper that stored before the clear but saw `RUNNING` set is seen
                // here; one that stores after it sees `false` and starts a reaper.
                let kept_now = cache::holds_any() || scratch::holds_any();
                if !(kept_now
                    && RUNNING
                        .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok())
                {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_reaper_serves_cache_and_scratch() {
        if cfg!(miri) {
            return; // nothing is kept under Miri
        }
        let slot = scratch::ScratchSlot::new();
        slot.put([vec![0.0; 4096], Vec::new()]);
        cache::recycle(vec![0u8; super::super::LARGE_BUFFER_BYTES]);
        assert!(RUNNING.load(Ordering::SeqCst), "keeping something starts the reaper");
        std::thread::sleep(super::super::CACHE_IDLE_RELEASE * 2 + std::time::Duration::from_millis(300));
        assert!(slot.take()[0].is_empty(), "the reaper freed the idle scratch");
    }
}
