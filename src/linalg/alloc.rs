//! Output buffers for matrix products and convolutions: the same allocator as every
//! other output ([`crate::memory`]: the cache of freed large buffers, huge pages from
//! 4 MiB), as an empty vector that a kernel fills through raw pointers.

/// An empty vector with capacity for at least `n` elements, for a kernel to fill
/// completely before `set_len(n)`.
pub(crate) fn output_buffer<T>(n: usize) -> Vec<T> {
    crate::memory::alloc::with_capacity(n)
}
