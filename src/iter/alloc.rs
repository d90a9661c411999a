//! Output buffers for data operations: uninitialised (the engine writes every element
//! once) and, for large buffers on Linux, backed by transparent huge pages.
//!
//! A fresh 64 MiB output is otherwise page-faulted 4 KiB at a time, which costs as much
//! as the arithmetic of a memory-bound operation; with `MADV_HUGEPAGE` the kernel maps
//! 2 MiB pages on first touch (512× fewer faults).

use std::mem::MaybeUninit;

/// Buffers of at least this many bytes are advised to use huge pages.
pub(crate) const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// A vector of `n` uninitialised elements (its length is `n`), reusing a cached
/// freed buffer of about that size when there is one (see [`super::pool`]).
pub(crate) fn uninit_vec<T>(n: usize) -> Vec<MaybeUninit<T>> {
    if let Some(v) = super::pool::reuse::<T>(n) {
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
    advise_huge_pages(
        v.as_ptr() as *const u8,
        n * std::mem::size_of::<T>(),
        HUGE_PAGE_MIN_BYTES,
    );
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
/// transparent huge pages when `bytes >= min_bytes` (a hint: failure is ignored). The
/// one helper for every module; each passes the threshold it measured.
#[cfg(all(target_os = "linux", not(miri)))]
pub(crate) fn advise_huge_pages(ptr: *const u8, bytes: usize, min_bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < min_bytes {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + bytes) & !(HUGE - 1);
    if end > start {
        // SAFETY: the range lies inside an allocation this vector owns; `madvise` with
        // MADV_HUGEPAGE changes only how the kernel backs the pages, never their contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(all(target_os = "linux", not(miri))))]
pub(crate) fn advise_huge_pages(_ptr: *const u8, _bytes: usize, _min_bytes: usize) {}

/// Opt-in: keeps freed large buffers in the process heap so the next large output
/// reuses already-mapped memory instead of page-faulting fresh pages (the dominant
/// cost of memory-bound operations on large tensors). It raises glibc's `mmap` and
/// trim thresholds to 1 GiB (`mallopt`), which affects the whole process: memory of
/// freed buffers is kept by the allocator for reuse rather than returned to the
/// system. Returns `false` (doing nothing) where glibc is not the allocator.
///
/// ```
/// let applied = ferrotensor::iter::retain_large_buffers();
/// assert_eq!(applied, cfg!(all(target_os = "linux", target_env = "gnu")));
/// ```
pub fn retain_large_buffers() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
    {
        // SAFETY: `mallopt` only changes allocator tuning parameters.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
        }
        true
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri))))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uninit_then_init_round_trip() {
        let big = if cfg!(miri) {
            1000
        } else {
            (HUGE_PAGE_MIN_BYTES / 4) + 3
        };
        for n in [0usize, 1, 7, big] {
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
}
