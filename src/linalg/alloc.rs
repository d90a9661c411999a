//! Output buffers for matrix products: uninitialised (the kernels write every element)
//! and, on Linux, marked for transparent huge pages when very large. A fresh 64 MiB
//! result otherwise costs 16,384 page faults, which on this kind of machine takes about
//! as long as the product of 4,096 64×64 matrices itself.
//!
//! Measured: below glibc's largest mmap threshold (32 MiB) the allocator reuses freed
//! memory without page faults, and asking for huge pages there made 8–16 MiB results
//! slower (huge-page faults zero and compact 2 MiB at a time), so only larger buffers,
//! which are always fresh mappings, ask for them.

/// Buffers of at least this many bytes ask for huge pages.
const HUGE_PAGE_MIN: usize = 32 << 20;

/// An empty vector with capacity for `n` elements, for a kernel to fill completely
/// before `set_len(n)`.
pub(crate) fn output_buffer<T>(n: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(n);
    crate::iter::alloc::advise_huge_pages(
        v.as_ptr() as *const u8,
        n.saturating_mul(std::mem::size_of::<T>()),
        HUGE_PAGE_MIN,
    );
    v
}
