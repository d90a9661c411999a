//! Output buffers for data operations: uninitialised (the kernels write every element
//! once) or zeroed, taken from the cache of freed large buffers when one fits, and
//! otherwise fresh memory that asks for transparent huge pages when large.
//!
//! A fresh 64 MiB output is otherwise page-faulted 4 KiB at a time, which costs as much
//! as the arithmetic of a memory-bound operation; with `MADV_HUGEPAGE` the kernel maps
//! 2 MiB pages on first touch (512× fewer faults).

use super::LARGE_BUFFER_BYTES;
use std::mem::MaybeUninit;

/// A vector of `n` uninitialised elements (its length is `n`), reusing a cached
/// freed buffer of about that size when there is one.
pub(crate) fn uninit_vec<T>(n: usize) -> Vec<MaybeUninit<T>> {
    if let Some(v) = super::cache::reuse::<T>(n) {
        return v;
    }
    // A panic, not the abort of `Vec::with_capacity`, when the memory cannot be had.
    let mut v: Vec<MaybeUninit<T>> = Vec::new();
    if v.try_reserve_exact(n).is_err() {
        panic!(
            "cannot allocate an output of {n} elements of {} bytes: the allocator refused or the size exceeds isize::MAX bytes",
            std::mem::size_of::<T>()
        );
    }
    // SAFETY: `MaybeUninit<T>` needs no initialisation and the capacity is `n`.
    unsafe { v.set_len(n) };
    advise_huge_pages(v.as_ptr() as *const u8, n * size_of::<T>());
    v
}

/// An empty vector with capacity for at least `n` elements, from the same source as
/// [`uninit_vec`], for a kernel that writes through raw pointers and then sets the
/// length.
pub(crate) fn with_capacity<T>(n: usize) -> Vec<T> {
    let mut v = std::mem::ManuallyDrop::new(uninit_vec::<T>(n));
    let (ptr, cap) = (v.as_mut_ptr(), v.capacity());
    // SAFETY: the allocation came from a `Vec<MaybeUninit<T>>` of capacity `cap`, which
    // has `T`'s layout; the new vector has length 0, so nothing is assumed initialised,
    // and `v` is not dropped, so ownership moves.
    unsafe { Vec::from_raw_parts(ptr as *mut T, 0, cap) }
}

/// `n` copies of `T::default()`. A cached buffer is filled in parallel (cheaper than
/// faulting fresh pages); otherwise fresh zeroed memory (no write here when `T`'s
/// default is all-zero bits) that asks for huge pages when large.
pub(crate) fn default_vec<T: Copy + Default + Send + Sync>(n: usize) -> Vec<T> {
    if let Some(mut v) = super::cache::reuse::<T>(n) {
        use rayon::prelude::*;
        let chunk = n.div_ceil(crate::threads::num_threads() * 4).max(1 << 16);
        v.par_chunks_mut(chunk)
            .for_each(|c| c.iter_mut().for_each(|x| _ = x.write(T::default())));
        // SAFETY: every element was written above.
        return unsafe { assume_init_vec(v) };
    }
    let v = vec![T::default(); n];
    advise_huge_pages(v.as_ptr() as *const u8, n * size_of::<T>());
    v
}

/// Converts a vector whose every element has been written.
///
/// # Safety
/// Every element of `v` must be initialised.
pub(crate) unsafe fn assume_init_vec<T>(v: Vec<MaybeUninit<T>>) -> Vec<T> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: `MaybeUninit<T>` has the layout of `T`; the allocation came from a
    // `Vec<MaybeUninit<T>>` of the same capacity, and the caller guarantees that all
    // `len` elements are initialised.
    unsafe { Vec::from_raw_parts(ptr as *mut T, len, cap) }
}

/// Asks the kernel to back the 2 MiB-aligned interior of `[ptr, ptr + bytes)` with
/// transparent huge pages when `bytes` is at least [`LARGE_BUFFER_BYTES`] (a hint:
/// failure is ignored). The one place that decides, for every output and scratch
/// buffer.
#[cfg(all(target_os = "linux", not(miri)))]
pub(crate) fn advise_huge_pages(ptr: *const u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < LARGE_BUFFER_BYTES {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + bytes) & !(HUGE - 1);
    if end > start {
        // SAFETY: the range lies inside an allocation the caller owns; `madvise` with
        // MADV_HUGEPAGE changes only how the kernel backs the pages, never their contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(all(target_os = "linux", not(miri))))]
pub(crate) fn advise_huge_pages(_ptr: *const u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes() -> [usize; 4] {
        let big = if cfg!(miri) { 1000 } else { (LARGE_BUFFER_BYTES / 4) + 3 };
        [0, 1, 7, big]
    }

    #[test]
    fn uninit_then_init_round_trip() {
        for n in sizes() {
            let mut v = uninit_vec::<f32>(n);
            for (i, x) in v.iter_mut().enumerate() {
                x.write(i as f32);
            }
            // SAFETY: every element was written above.
            let v = unsafe { assume_init_vec(v) };
            assert_eq!(v.len(), n);
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as f32));
        }
    }

    #[test]
    fn capacity_and_default_buffers() {
        for n in sizes() {
            let v = with_capacity::<u64>(n);
            assert!(v.is_empty() && v.capacity() >= n);
            // A dropped buffer of this size may come back from the cache dirty: the
            // default vector is still all default.
            crate::memory::recycle(vec![7u32; n]);
            let z = default_vec::<u32>(n);
            assert_eq!(z.len(), n);
            assert!(z.iter().all(|&x| x == 0));
        }
    }
}
