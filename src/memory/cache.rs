//! The cache of freed large buffers and the background thread that empties it when idle
//! (the policy is described in the [module docs](super)).
//!
//! A block enters when an owned tensor's buffer of at least
//! [`LARGE_BUFFER_BYTES`](super::LARGE_BUFFER_BYTES) is dropped and leaves when an
//! output of a size within 1/8 of it is allocated, when the cache's limits push it out
//! (oldest first), or [`CACHE_IDLE_RELEASE`] after it entered: the memory module's
//! [reaper](super::reaper) thread sleeps until the oldest block's deadline, frees what is
//! due, and exits when nothing is kept.

use std::alloc::Layout;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::LARGE_BUFFER_BYTES;

/// The default cap on the bytes held by the cache.
///
/// ```
/// assert_eq!(ferrotensor::memory::DEFAULT_CACHE_LIMIT_BYTES, 512 << 20);
/// ```
pub const DEFAULT_CACHE_LIMIT_BYTES: usize = 512 << 20;
/// The most blocks the cache holds at once.
const MAX_BLOCKS: usize = 16;
/// A cached buffer not reused for this long is freed by the background thread.
///
/// ```
/// assert_eq!(ferrotensor::memory::CACHE_IDLE_RELEASE.as_millis(), 1000);
/// ```
pub const CACHE_IDLE_RELEASE: Duration = Duration::from_secs(1);

/// One cached allocation: made by the global allocator with `Layout(bytes, align)`.
struct Block {
    ptr: NonNull<u8>,
    bytes: usize,
    align: usize,
    freed_at: Instant,
}

// SAFETY: a `Block` is the sole owner of an allocation no one else references (its
// vector was consumed when it was cached), so it may move between threads.
unsafe impl Send for Block {}

impl Block {
    fn free(self) {
        // SAFETY: `ptr` was allocated by the global allocator with exactly this layout
        // (that of the `Vec` it came from), and this block is its only owner.
        unsafe {
            std::alloc::dealloc(
                self.ptr.as_ptr(),
                Layout::from_size_align_unchecked(self.bytes, self.align),
            )
        }
    }
}

/// The cache's state: blocks in the order they were freed (oldest first).
pub(crate) struct Pool {
    blocks: Vec<Block>,
    held: usize,
}

impl Pool {
    pub(crate) const fn new() -> Self {
        Pool {
            blocks: Vec::new(),
            held: 0,
        }
    }

    /// Removes blocks idle for [`CACHE_IDLE_RELEASE`] by `now` and, oldest first, blocks until
    /// at most `max_blocks` remain holding at most `max_bytes`; returns them to free.
    fn evict(&mut self, now: Instant, max_blocks: usize, max_bytes: usize) -> Vec<Block> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.blocks.len() {
            let b = &self.blocks[i];
            let stale = now.saturating_duration_since(b.freed_at) >= CACHE_IDLE_RELEASE;
            if stale || self.blocks.len() > max_blocks || self.held > max_bytes {
                let b = self.blocks.remove(i);
                self.held -= b.bytes;
                out.push(b);
            } else {
                i += 1;
            }
        }
        out
    }

    /// Keeps `v`'s allocation if it is large enough and fits under `limit`; returns
    /// the blocks to free (outside any lock).
    fn put<T>(&mut self, v: Vec<T>, min_bytes: usize, limit: usize, now: Instant) -> Vec<Block> {
        let bytes = v.capacity() * size_of::<T>();
        if bytes < min_bytes.max(1) || bytes > limit {
            drop(v);
            return self.evict(now, MAX_BLOCKS, limit);
        }
        let mut v = ManuallyDrop::new(v);
        v.clear(); // drops the elements, keeps the allocation
        let block = Block {
            // SAFETY: a vector with non-zero capacity of a non-zero-sized type has a
            // real, non-null allocation.
            ptr: unsafe { NonNull::new_unchecked(v.as_mut_ptr() as *mut u8) },
            bytes,
            align: align_of::<T>(),
            freed_at: now,
        };
        self.blocks.push(block);
        self.held += bytes;
        self.evict(now, MAX_BLOCKS, limit)
    }

    /// A vector of `n` uninitialised elements made from a cached block whose size is
    /// between `n` elements and 1/8 more, if there is one. On a miss, frees blocks so
    /// that the new allocation plus the cache stay under `limit`.
    fn take<T>(
        &mut self,
        n: usize,
        min_bytes: usize,
        limit: usize,
        now: Instant,
    ) -> (Option<Vec<MaybeUninit<T>>>, Vec<Block>) {
        let size = size_of::<T>();
        let Some(bytes) = n.checked_mul(size) else {
            return (None, Vec::new());
        };
        if size == 0 || bytes < min_bytes.max(1) {
            return (None, Vec::new());
        }
        let fits = |b: &Block| {
            b.align == align_of::<T>()
                && b.bytes.is_multiple_of(size)
                && b.bytes >= bytes
                && b.bytes - bytes <= bytes / 8
        };
        // The newest fitting block: most likely still in cache and TLB.
        if let Some(i) = self.blocks.iter().rposition(fits) {
            let b = self.blocks.remove(i);
            self.held -= b.bytes;
            let b = ManuallyDrop::new(b);
            // SAFETY: the block was allocated by the global allocator with layout
            // `(b.bytes, align_of::<T>())`, which is `Layout::array::<T>(cap)` for
            // `cap = b.bytes / size` (checked above); `n <= cap` and `MaybeUninit`
            // elements need no initialisation. Ownership passes to the vector.
            let v = unsafe { Vec::from_raw_parts(b.ptr.as_ptr() as *mut MaybeUninit<T>, n, b.bytes / size) };
            return (Some(v), self.evict(now, MAX_BLOCKS, limit));
        }
        (None, self.evict(now, MAX_BLOCKS, limit.saturating_sub(bytes)))
    }

    /// When the oldest block falls due, if there is one.
    fn next_deadline(&self) -> Option<Instant> {
        self.blocks.iter().map(|b| b.freed_at + CACHE_IDLE_RELEASE).min()
    }

    /// Removes every block; returns them to free.
    fn drain(&mut self) -> Vec<Block> {
        self.held = 0;
        std::mem::take(&mut self.blocks)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.drain().into_iter().for_each(Block::free);
    }
}

/// The cache.
struct State {
    pool: Pool,
}

static STATE: Mutex<State> = Mutex::new(State { pool: Pool::new() });
static LIMIT: AtomicUsize = AtomicUsize::new(DEFAULT_CACHE_LIMIT_BYTES);

fn lock() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Frees blocks taken out of the cache, outside its lock (unmapping tens of MiB takes
/// a while).
fn free_all(blocks: Vec<Block>) {
    blocks.into_iter().for_each(Block::free);
}

fn with_pool<R>(f: impl FnOnce(&mut Pool) -> (R, Vec<Block>)) -> R {
    let (r, to_free) = f(&mut lock().pool);
    free_all(to_free);
    r
}

/// Frees the blocks due by `now` (idle, or over the limits); returns the bytes freed
/// and when the next block falls due. Called by the [reaper](super::reaper).
pub(super) fn free_due(now: Instant) -> (usize, Option<Instant>) {
    let limit = LIMIT.load(Ordering::Relaxed);
    let (due, next) = {
        let mut state = lock();
        let due = state.pool.evict(now, MAX_BLOCKS, limit);
        (due, state.pool.next_deadline())
    };
    let freed = due.iter().map(|b| b.bytes).sum();
    free_all(due);
    (freed, next)
}

/// Whether the cache holds any block.
pub(super) fn holds_any() -> bool {
    !lock().pool.blocks.is_empty()
}

/// Asks the C allocator to give free memory back to the system: glibc keeps freed
/// chunks below its `mmap` threshold (up to 32 MiB) in its heap.
pub(super) fn return_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
    // SAFETY: `malloc_trim` only releases memory the allocator holds as free; it takes
    // the allocator's own locks and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Hands a dropped owned buffer to the cache (or frees it).
pub(crate) fn recycle<T>(v: Vec<T>) {
    let bytes = v.capacity() * size_of::<T>();
    let limit = LIMIT.load(Ordering::Relaxed);
    if bytes < LARGE_BUFFER_BYTES || bytes > limit || size_of::<T>() == 0 || cfg!(miri) {
        return;
    }
    with_pool(|p| ((), p.put(v, LARGE_BUFFER_BYTES, limit, Instant::now())));
    // After storing (see the reaper's docs); without a reaper nothing may be kept.
    if !super::reaper::ensure_running() {
        release_cached_buffers();
    }
}

/// A cached buffer for `n` elements of `T`, if one fits.
pub(crate) fn reuse<T>(n: usize) -> Option<Vec<MaybeUninit<T>>> {
    if n.saturating_mul(size_of::<T>()) < LARGE_BUFFER_BYTES || cfg!(miri) {
        return None;
    }
    let limit = LIMIT.load(Ordering::Relaxed);
    with_pool(|p| p.take(n, LARGE_BUFFER_BYTES, limit, Instant::now()))
}

/// Sets the most bytes of freed large buffers kept for reuse (`0` turns the cache off
/// and frees what it holds). Buffers under
/// [`LARGE_BUFFER_BYTES`](super::LARGE_BUFFER_BYTES) are never cached.
///
/// ```
/// use ferrotensor::memory::{buffer_cache_limit, set_buffer_cache_limit};
/// let before = buffer_cache_limit();
/// set_buffer_cache_limit(0);          // no caching: every large output is fresh memory
/// assert_eq!(buffer_cache_limit(), 0);
/// set_buffer_cache_limit(before);
/// ```
pub fn set_buffer_cache_limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
    with_pool(|p| ((), p.evict(Instant::now(), MAX_BLOCKS, bytes)));
    super::reaper::wake();
}

/// The most bytes of freed large buffers kept for reuse (default
/// [`DEFAULT_CACHE_LIMIT_BYTES`]).
///
/// ```
/// assert!(ferrotensor::memory::buffer_cache_limit() <= usize::MAX);
/// ```
pub fn buffer_cache_limit() -> usize {
    LIMIT.load(Ordering::Relaxed)
}

/// The bytes the cache holds right now (freed within the last
/// [`CACHE_IDLE_RELEASE`]), with the scratch buffers the convolution kernels keep per
/// thread between calls (freed by the same idle rule).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::memory::{cached_bytes, release_cached_buffers};
/// drop(Tensor::<f32, _>::ones([1024, 2048]));     // an 8 MiB buffer: cached
/// assert!(cached_bytes() >= 8 << 20);
/// release_cached_buffers();
/// assert_eq!(cached_bytes(), 0);
/// ```
pub fn cached_bytes() -> usize {
    lock().pool.held + super::scratch::kept_bytes()
}

/// Frees every cached buffer (and the kernels' kept per-thread scratch buffers) now,
/// gives the memory back to the system, and returns how many bytes that released (the background thread would do the same within
/// [`CACHE_IDLE_RELEASE`] anyway).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::zeros([1024, 2048]);   // 8 MiB
/// let b = a.mapv(|x| x + 1.0);                     // a fresh 8 MiB output
/// drop(b);                                         // its buffer is cached
/// let released = ferrotensor::memory::release_cached_buffers();
/// assert!(released == 0 || released >= 8 << 20);
/// assert_eq!(ferrotensor::memory::release_cached_buffers(), 0);
/// ```
pub fn release_cached_buffers() -> usize {
    let released = with_pool(|p| {
        let blocks = p.drain();
        (blocks.iter().map(|b| b.bytes).sum::<usize>(), blocks)
    }) + super::scratch::release_all();
    if released > 0 {
        return_free_memory();
    }
    super::reaper::wake();
    released
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: usize = 64;

    #[test]
    fn a_dropped_buffer_is_reused_for_a_close_size() {
        let mut p = Pool::new();
        let now = Instant::now();
        let v: Vec<f32> = vec![1.0; 100];
        let addr = v.as_ptr() as usize;
        p.put(v, MIN, 1 << 20, now).into_iter().for_each(Block::free);
        assert_eq!(p.held, 400);
        // 95 elements: within 1/8 of 100, same alignment.
        let (got, freed) = p.take::<f32>(95, MIN, 1 << 20, now);
        assert!(freed.is_empty());
        let mut got = got.expect("a fitting block");
        assert_eq!((got.len(), got.capacity(), got.as_ptr() as usize), (95, 100, addr));
        for (i, x) in got.iter_mut().enumerate() {
            x.write(i as f32);
        }
        assert_eq!(p.held, 0);
        // Back in as a vector of another type with the same alignment.
        // SAFETY: every element was written above.
        let got: Vec<f32> = unsafe { crate::memory::alloc::assume_init_vec(got) };
        assert_eq!(got[94], 94.0);
        let as_u32: Vec<u32> = got.into_iter().map(f32::to_bits).collect();
        p.put(as_u32, MIN, 1 << 20, now).into_iter().for_each(Block::free);
        assert_eq!(p.blocks.len(), 1);
    }

    #[test]
    fn sizes_and_alignments_that_do_not_fit_miss() {
        let mut p = Pool::new();
        let now = Instant::now();
        p.put(vec![0u64; 100], MIN, 1 << 20, now)
            .into_iter()
            .for_each(Block::free);
        for miss in [
            p.take::<u64>(101, MIN, 1 << 20, now).0.is_none(), // too big
            p.take::<u64>(80, MIN, 1 << 20, now).0.is_none(),  // too much slack
            p.take::<f32>(200, MIN, 1 << 20, now).0.is_none(), // other alignment
            p.take::<u64>(4, MIN, 1 << 20, now).0.is_none(),   // below the minimum
        ] {
            assert!(miss);
        }
        assert!(p.take::<f64>(100, MIN, 1 << 20, now).0.is_some());
    }

    #[test]
    fn limits_and_idle_time_evict_oldest_first() {
        let mut p = Pool::new();
        let t0 = Instant::now();
        let freed = p.put(vec![0u8; 1000], MIN, 1500, t0);
        assert!(freed.is_empty());
        // A second block over the byte limit evicts the first (oldest).
        let freed = p.put(vec![1u8; 800], MIN, 1500, t0);
        assert_eq!(freed.iter().map(|b| b.bytes).collect::<Vec<_>>(), vec![1000]);
        freed.into_iter().for_each(Block::free);
        // Larger than the limit: not kept at all.
        assert!(p.put(vec![0u8; 2000], MIN, 1500, t0).is_empty());
        assert_eq!(p.held, 800);
        // A miss makes room for the new allocation.
        let (v, freed) = p.take::<u8>(1200, MIN, 1500, t0);
        assert!(v.is_none());
        assert_eq!(freed.len(), 1);
        freed.into_iter().for_each(Block::free);
        // Idle blocks go at the next operation.
        p.put(vec![0u8; 100], MIN, 1500, t0).into_iter().for_each(Block::free);
        let later = t0 + CACHE_IDLE_RELEASE;
        let (_, freed) = p.take::<u8>(10, MIN, 1500, later);
        assert!(freed.is_empty(), "below the minimum size nothing is touched");
        let (_, freed) = p.take::<u8>(5000, MIN, 1500, later);
        assert_eq!(freed.len(), 1);
        freed.into_iter().for_each(Block::free);
        assert_eq!((p.held, p.blocks.len()), (0, 0));
    }

    #[test]
    fn elements_with_drop_are_dropped_when_cached() {
        let mut p = Pool::new();
        let rc = std::rc::Rc::new(());
        let v = vec![rc.clone(); 10];
        assert_eq!(std::rc::Rc::strong_count(&rc), 11);
        p.put(v, MIN, 1 << 20, Instant::now()).into_iter().for_each(Block::free);
        assert_eq!(std::rc::Rc::strong_count(&rc), 1);
        assert_eq!(p.blocks.len(), 1);
    }
}
