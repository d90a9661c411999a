//! Where the memory of tensor outputs comes from, and when it goes back.
//!
//! # The policy
//!
//! Every data operation (element-wise math, copies, reductions' outputs, `matmul`,
//! `concatenate`, sorting, …) gets its output buffer from this module. Buffers of at
//! least [`LARGE_BUFFER_BYTES`] (4 MiB) are *large*:
//!
//! * **Huge pages.** On Linux a large buffer asks the kernel for transparent huge pages
//!   (`madvise(MADV_HUGEPAGE)`), as NumPy does for arrays of 4 MiB and more: its first
//!   touch then faults 2 MiB at a time instead of 4 KiB (512× fewer faults). One
//!   threshold for every output.
//! * **A short-lived cache.** When an owned tensor with a large buffer is dropped, its
//!   allocation (never its contents) is kept for reuse, so that the next output of about
//!   that size (within 1/8) skips the page faults and zeroing of fresh memory. For a
//!   memory-bound operation such as `&a + &b` on f32 `[4096, 4096]` that is the
//!   difference between 6.8 ms and 3.7 ms (2-core AMD EPYC, see `BENCHMARKS.md`).
//! * **Given back when idle.** A cached buffer that is not reused within
//!   [`CACHE_IDLE_RELEASE`] (1 s) is freed by a background thread, which then asks the
//!   C allocator to return free memory to the system (`malloc_trim` on glibc). So after
//!   your tensors are dropped and ferrotensor is not called for two seconds, the
//!   process's resident anonymous memory is back to what it was (the test
//!   `resident_memory_returns_after_two_idle_seconds` in `tests/memory.rs` checks this
//!   through `/proc/self/status`). One thread serves the cache and the kernels' scratch
//!   below and exists only while something is kept; where threads cannot be started,
//!   nothing is kept.
//!
//! * **Kernel scratch under the same rule.** The convolution kernels keep their tile
//!   buffers (at most 8 MiB per thread and kernel) for the thread's next call, so a
//!   network's layers do not page-fault fresh scratch on every call; these too are freed
//!   [`CACHE_IDLE_RELEASE`] after their last use, counted by [`cached_bytes`] and freed by
//!   [`release_cached_buffers`].
//!
//! The cache holds at most [`buffer_cache_limit`] bytes (default
//! [`DEFAULT_CACHE_LIMIT_BYTES`], 512 MiB) in at most 16 buffers.
//! [`set_buffer_cache_limit`]`(0)` turns it off (every large output is then fresh
//! memory) and [`release_cached_buffers`] frees everything at once.
//!
//! ferrotensor changes no process-wide allocator setting (`mallopt` and the like):
//! programs that want glibc itself to keep freed memory mapped can do so themselves.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f32, _>::ones([1024, 2048]);      // 8 MiB: a large buffer
//! for _ in 0..3 {
//!     let b = &a + 1.0;                               // reuses the buffer of the last `b`
//!     assert_eq!(b[[0, 0]], 2.0);
//! }
//! // The last `b`'s buffer is now cached (unless another thread just took it) and is
//! // freed one second after its drop; to give it back at once:
//! let freed = ferrotensor::memory::release_cached_buffers();
//! assert!(freed == 0 || freed >= 8 << 20);
//! assert_eq!(ferrotensor::memory::cached_bytes(), 0);
//! ```

pub(crate) mod alloc;
mod cache;
mod reaper;
pub(crate) mod scratch;

pub(crate) use cache::recycle;
pub use cache::{
    CACHE_IDLE_RELEASE, DEFAULT_CACHE_LIMIT_BYTES, buffer_cache_limit, cached_bytes, release_cached_buffers,
    set_buffer_cache_limit,
};

/// Buffers of at least this many bytes are *large*: they ask for huge pages when
/// allocated and are cached for reuse when dropped (see the [module docs](self)).
///
/// ```
/// assert_eq!(ferrotensor::memory::LARGE_BUFFER_BYTES, 4 << 20);
/// ```
pub const LARGE_BUFFER_BYTES: usize = 4 << 20;
