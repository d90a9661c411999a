//! Streaming (non-temporal) writes of large outputs.
//!
//! An ordinary store to memory not in cache first reads the line in ("read for
//! ownership"), so writing a 64 MiB output moves 128 MiB. Non-temporal stores write
//! whole lines without reading them, and do not evict the inputs from the cache. They
//! pay only when the output is larger than what the cache would keep anyway, so the
//! engine uses them from [`STREAM_MIN_BYTES`] on: kernels compute a chunk into an
//! L1-resident buffer and [`stream_run`] copies it out with `movntdq`. Measured on
//! `a + b` (f32 [4096, 4096], 2 threads, buffers reused): 7.2 ms with ordinary stores,
//! 4.6–5.0 ms streamed with the callers' software prefetch.

use std::mem::MaybeUninit;

/// Outputs of at least this many bytes are written with streaming stores.
pub(crate) const STREAM_MIN_BYTES: usize = 32 << 20;

/// Bytes per staged chunk: well inside L1 next to the inputs' lines. Measured on f32
/// 4096² with the one-chunk-ahead prefetch of the callers: 2 KiB runs `a + b` in 4.6–5.0
/// ms, against 6.0 ms with 1 KiB, 6.2 ms with 4 KiB and 6.9 ms with 8 KiB.
const CHUNK_BYTES: usize = 2048;

/// Whether an output of `n` elements of `O` should be streamed.
#[inline]
pub(crate) fn should_stream<O>(n: usize) -> bool {
    cfg!(all(target_arch = "x86_64", not(miri))) && n.saturating_mul(size_of::<O>()) >= STREAM_MIN_BYTES
}

/// A chunk buffer aligned for any element type up to 64 bytes of alignment.
#[repr(C, align(64))]
struct Chunk([MaybeUninit<u8>; CHUNK_BYTES]);

/// Writes the `len` elements at `dst` by calling `fill(part, start)` for consecutive
/// parts (`part` holds elements `start..start + part.len()`; `fill` must write all of
/// them). With `stream` set (and on x86-64), parts are computed into an L1 buffer and
/// copied out with non-temporal stores, followed by a store fence; otherwise `fill`
/// writes `dst` directly in one part.
///
/// # Safety
/// `dst..dst + len` must be valid for writes and written by nobody else meanwhile.
#[inline(always)]
pub(crate) unsafe fn stream_run<O>(
    dst: *mut MaybeUninit<O>,
    len: usize,
    stream: bool,
    mut fill: impl FnMut(&mut [MaybeUninit<O>], usize),
) {
    let per_chunk = CHUNK_BYTES / size_of::<O>().max(1);
    if !stream || per_chunk < 16 || align_of::<O>() > 64 || !cfg!(all(target_arch = "x86_64", not(miri))) {
        // SAFETY: guaranteed by the caller.
        return fill(unsafe { std::slice::from_raw_parts_mut(dst, len) }, 0);
    }
    let mut chunk = Chunk([MaybeUninit::uninit(); CHUNK_BYTES]);
    let tmp = chunk.0.as_mut_ptr() as *mut MaybeUninit<O>;
    let mut start = 0;
    while start < len {
        let c = per_chunk.min(len - start);
        // SAFETY: the chunk holds `per_chunk >= c` elements of `O` (its alignment of 64
        // covers `O`'s, checked above), and is this call's own memory.
        let part = unsafe { std::slice::from_raw_parts_mut(tmp, c) };
        fill(part, start);
        // SAFETY: `fill` initialised the `c` elements; the destination range lies inside
        // `dst..dst + len` (caller) and does not overlap the stack buffer.
        unsafe { copy_streaming(dst.add(start) as *mut u8, tmp as *const u8, c * size_of::<O>()) };
        start += c;
    }
    fence();
}

/// Copies `src` to `dst`, with streaming stores when `stream` is set (the caller then
/// calls [`fence`] once it has written its whole part).
///
/// # Safety
/// `dst..dst + src.len()` valid for writes, written by nobody else meanwhile.
#[inline(always)]
pub(crate) unsafe fn store_run<O: Copy>(dst: *mut MaybeUninit<O>, src: &[O], stream: bool) {
    // SAFETY: guaranteed by the caller; `src` is a separate, initialised slice.
    unsafe {
        if stream {
            copy_streaming(dst as *mut u8, src.as_ptr() as *const u8, std::mem::size_of_val(src));
        } else {
            std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut O, src.len());
        }
    }
}

/// [`store_run`] of written but not yet typed elements (for callers whose element type
/// is not `Copy`: the bytes are moved, and the source is not used afterwards).
///
/// # Safety
/// As [`store_run`]; every element of `src` initialised, and `src` not read or
/// dropped as `O` afterwards.
#[inline(always)]
pub(crate) unsafe fn store_run_moved<O>(dst: *mut MaybeUninit<O>, src: &[MaybeUninit<O>], stream: bool) {
    // SAFETY: guaranteed by the caller; `src` is a separate slice.
    unsafe {
        if stream {
            copy_streaming(dst as *mut u8, src.as_ptr() as *const u8, std::mem::size_of_val(src));
        } else {
            std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len());
        }
    }
}

/// Copies `bytes` from `src` to `dst` with non-temporal stores for the 16-byte
/// aligned middle part.
///
/// # Safety
/// Both ranges valid, not overlapping.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
unsafe fn copy_streaming(dst: *mut u8, src: *const u8, bytes: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    let head = dst.align_offset(16).min(bytes);
    // SAFETY: every access is inside `[0, bytes)` of both ranges (caller); the
    // streamed stores go to 16-byte aligned addresses as `movntdq` requires. SSE2 is
    // part of the x86-64 baseline.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, head);
        let mut i = head;
        while i + 64 <= bytes {
            for k in (0..64).step_by(16) {
                let v = _mm_loadu_si128(src.add(i + k) as *const __m128i);
                _mm_stream_si128(dst.add(i + k) as *mut __m128i, v);
            }
            i += 64;
        }
        while i + 16 <= bytes {
            let v = _mm_loadu_si128(src.add(i) as *const __m128i);
            _mm_stream_si128(dst.add(i) as *mut __m128i, v);
            i += 16;
        }
        std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), bytes - i);
    }
}

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
#[inline(always)]
unsafe fn copy_streaming(dst: *mut u8, src: *const u8, bytes: usize) {
    // SAFETY: guaranteed by the caller.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, bytes) }
}

/// Asks for the cache lines of `s[start..start + len]` (clamped to `s`) ahead of use.
/// Compute-heavy kernels (e.g. `exp`) otherwise wait for memory and compute in turn
/// instead of overlapping the two.
#[inline(always)]
pub(crate) fn prefetch<T>(s: &[T], start: usize, len: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let end = (start + len).min(s.len());
        let mut i = start;
        let step = (64 / size_of::<T>().max(1)).max(1);
        while i < end {
            // SAFETY: `i < s.len()`, so the address is inside `s`; a prefetch never faults
            // and changes no memory. SSE is part of the x86-64 baseline.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(s.as_ptr().add(i) as *const i8)
            };
            i += step;
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = (s, start, len);
}

/// Orders the streamed stores before whatever this thread does next (in particular
/// before it signals that its part is done).
#[inline(always)]
pub(crate) fn fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `sfence` has no preconditions (SSE is part of the x86-64 baseline).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(len: usize, stream: bool, offset: usize) {
        let mut buf = vec![MaybeUninit::<u32>::uninit(); len + offset];
        let mut calls = 0;
        // SAFETY: the range lies inside `buf`, which nobody else touches.
        unsafe {
            stream_run(buf.as_mut_ptr().add(offset), len, stream, |part, start| {
                calls += 1;
                for (i, x) in part.iter_mut().enumerate() {
                    x.write((start + i) as u32 * 3);
                }
            })
        };
        for (i, x) in buf[offset..].iter().enumerate() {
            // SAFETY: `stream_run` wrote every element of the range.
            assert_eq!(unsafe { x.assume_init() }, i as u32 * 3, "len {len} offset {offset}");
        }
        assert!(calls >= 1 || (stream && len == 0));
        assert!(
            !stream
                || len == 0
                || calls == len.div_ceil(CHUNK_BYTES / 4)
                || !cfg!(target_arch = "x86_64")
                || cfg!(miri)
        );
    }

    #[test]
    fn streamed_and_direct_runs_write_every_element() {
        // Under Miri (CI's time budget) up to just past two chunks; natively ten chunks.
        let lens: &[usize] = if cfg!(miri) {
            &[0, 1, 15, 16, 17, 1023, 1024, 1025]
        } else {
            &[0, 1, 15, 16, 17, 1023, 1024, 1025, 5000]
        };
        for &len in lens {
            for offset in [0, 1, 3] {
                run(len, true, offset);
                run(len, false, offset);
            }
        }
        assert!(!should_stream::<f32>(1000));
        assert_eq!(
            should_stream::<f32>(STREAM_MIN_BYTES / 4),
            cfg!(all(target_arch = "x86_64", not(miri)))
        );
    }

    #[test]
    fn copy_streaming_copies_unaligned_ranges() {
        let src: Vec<u8> = (0..300).map(|i| i as u8).collect();
        for (off, n) in [(0, 300), (1, 200), (5, 64), (7, 17), (3, 0)] {
            let mut dst = vec![0u8; 310];
            // SAFETY: both ranges are in bounds and distinct.
            unsafe { copy_streaming(dst.as_mut_ptr().add(off), src.as_ptr(), n) };
            fence();
            assert_eq!(&dst[off..off + n], &src[..n]);
            assert!(dst[off + n..].iter().all(|&b| b == 0));
        }
    }
}
