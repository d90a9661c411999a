//! An AVX-512 quicksort of `u32` keys: vectorised in-place partitions (compress in a
//! register, masked stores) around the median of a 16-key sample, down to pieces of at
//! most [`NET_MAX`] keys, which the bitonic network of [`super::sort_network`] sorts.
//!
//! This is the scheme of NumPy's x86-simd-sort. Equal keys are indistinguishable, so
//! the sort's instability does not matter; callers map floats to order keys first
//! (see [`super::fsort`]). Without AVX-512 (and under Miri) [`sort_keys`] returns
//! `false` and the caller keeps its portable path.

use super::sort_network::NET_MAX;

/// Whether [`sort_keys`] sorts (the CPU has AVX-512).
pub(crate) fn available() -> bool {
    cfg!(target_arch = "x86_64") && crate::cpu::isa() == crate::cpu::Isa::Avx512
}

/// Sorts `keys` ascending and returns `true` when the CPU has AVX-512; returns `false`
/// (leaving `keys` untouched) otherwise.
pub(crate) fn sort_keys(keys: &mut [u32]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::isa() == crate::cpu::Isa::Avx512 {
        // SAFETY: `isa` is `Avx512` only when the CPU has AVX-512F.
        unsafe { avx512::sort(keys) };
        return true;
    }
    let _ = keys;
    false
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::NET_MAX;
    use crate::manip::sort_network::avx512::sort as network;
    use std::arch::x86_64::*;

    /// Sorts `keys` ascending.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) fn sort(keys: &mut [u32]) {
        // Beyond twice the ideal depth the pivots are being chosen badly: the standard
        // library's sort bounds the worst case.
        let depth = 2 * (usize::BITS - keys.len().leading_zeros());
        quicksort(keys, depth);
    }

    /// [`sort`] with `depth` levels of partitioning left before the fallback.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    fn quicksort(mut keys: &mut [u32], mut depth: u32) {
        loop {
            let n = keys.len();
            if n <= NET_MAX {
                if n > 1 {
                    network(keys);
                }
                return;
            }
            if depth == 0 {
                keys.sort_unstable();
                return;
            }
            depth -= 1;
            let p = pivot(keys);
            let (mid, min, max) = partition(keys, p);
            if min == max {
                return; // all keys equal
            }
            let (lo, hi) = if mid == 0 {
                // `p` is the minimum (and below the maximum): split off the keys equal to
                // it, which need no more sorting.
                let (eq, _, _) = partition(keys, p + 1);
                let (_, hi) = keys.split_at_mut(eq);
                (&mut [][..], hi)
            } else {
                keys.split_at_mut(mid)
            };
            // Recurse into the shorter side, loop on the longer one (bounded stack).
            if lo.len() < hi.len() {
                quicksort(lo, depth);
                keys = hi;
            } else {
                quicksort(hi, depth);
                keys = lo;
            }
        }
    }

    /// The median of 16 keys spread over `keys` (at least 16 long).
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    fn pivot(keys: &[u32]) -> u32 {
        let step = keys.len() / 16;
        let mut s = [0u32; 16];
        for (i, x) in s.iter_mut().enumerate() {
            *x = keys[i * step + step / 2];
        }
        network(&mut s);
        s[8]
    }

    /// Vectors read per step of [`partition`]: one decision of which side to read per
    /// `U` vectors, so the chain from the counts of one step to the addresses of the next
    /// (compare, mask to count, add, select) is paid once per `U` vectors.
    const U: usize = 4;

    /// Partitions `keys` (at least `32 U` long) in place: keys below `p` first, then
    /// the others. Returns the number below `p` and the minimum and maximum key.
    ///
    /// The unread keys are `keys[l..r]`; the partitioned ones are written to
    /// `keys[..ls]` and `keys[rs..]`. `2 U` vectors are read ahead, so the gap
    /// `(l - ls) + (rs - r)` is `32 U` keys before each step; each step reads (16 or
    /// `16 U` keys) from the side with the smaller gap, which leaves room on each side
    /// for the keys written there in that step.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    fn partition(keys: &mut [u32], p: u32) -> (usize, u32, u32) {
        let n = keys.len();
        assert!(n >= 32 * U);
        let ptr = keys.as_mut_ptr();
        let pv = _mm512_set1_epi32(p as i32);
        let mut vmin = _mm512_set1_epi32(-1);
        let mut vmax = _mm512_setzero_si512();
        let mut ahead = [_mm512_setzero_si512(); 2 * U];
        for (i, a) in ahead.iter_mut().enumerate() {
            let at = if i < U { 16 * i } else { n - 16 * (2 * U - i) };
            // SAFETY: the first and last `16 U` keys, in bounds (`n >= 32 U`).
            *a = unsafe { _mm512_loadu_si512(ptr.add(at).cast()) };
        }
        let (mut l, mut r, mut ls, mut rs) = (16 * U, n - 16 * U, 0, n);
        // The keys that do not fill a whole vector, first (the gaps are `16 U + rem`
        // and `16 U` keys: room enough).
        let rem = (r - l) % 16;
        if rem > 0 {
            let m = ((1u32 << rem) - 1) as u16;
            // SAFETY: reads `keys[l..l + rem]`, unread and in bounds (`rem <= r - l`).
            let v = unsafe { _mm512_maskz_loadu_epi32(m, ptr.add(l).cast()) };
            l += rem;
            vmin = _mm512_mask_min_epu32(vmin, m, vmin, v);
            vmax = _mm512_mask_max_epu32(vmax, m, vmax, v);
            let ge = _mm512_mask_cmpge_epu32_mask(m, v, pv);
            // SAFETY: the gaps hold at least 16 keys on each side (see above).
            unsafe { store(ptr, &mut ls, &mut rs, v, m & !ge, ge) };
        }
        // Single vectors until the unread run is whole steps of `U` vectors.
        while (r - l) % (16 * U) != 0 {
            // The side to read is data dependent and unpredictable: select, no branch.
            let left = (l - ls <= rs - r) as usize;
            let at = if left == 1 { l } else { r - 16 };
            l += 16 * left;
            r -= 16 * (1 - left);
            // SAFETY: `at` is `l` or `r - 16` before the move, and `l + 16 <= r` (`r - l`
            // is a positive multiple of 16).
            let v = unsafe { _mm512_loadu_si512(ptr.add(at).cast()) };
            vmin = _mm512_min_epu32(vmin, v);
            vmax = _mm512_max_epu32(vmax, v);
            let ge = _mm512_cmpge_epu32_mask(v, pv);
            // SAFETY: after the read the gaps hold at least 16 keys on each side.
            unsafe { store(ptr, &mut ls, &mut rs, v, !ge, ge) };
        }
        while l < r {
            let left = (l - ls <= rs - r) as usize;
            let at = if left == 1 { l } else { r - 16 * U };
            l += 16 * U * left;
            r -= 16 * U * (1 - left);
            let mut vs = [_mm512_setzero_si512(); U];
            for (i, v) in vs.iter_mut().enumerate() {
                // SAFETY: `at .. at + 16 U` was unread and is in bounds (`r - l` is a
                // positive multiple of `16 U` before the move).
                *v = unsafe { _mm512_loadu_si512(ptr.add(at + 16 * i).cast()) };
            }
            for v in vs {
                vmin = _mm512_min_epu32(vmin, v);
                vmax = _mm512_max_epu32(vmax, v);
                let ge = _mm512_cmpge_epu32_mask(v, pv);
                // SAFETY: after the read the gaps hold at least `16 U` keys on each side.
                unsafe { store(ptr, &mut ls, &mut rs, v, !ge, ge) };
            }
        }
        // Nothing is unread: the gap `keys[ls..rs]` is one run of `32 U` keys.
        for v in ahead {
            vmin = _mm512_min_epu32(vmin, v);
            vmax = _mm512_max_epu32(vmax, v);
            let ge = _mm512_cmpge_epu32_mask(v, pv);
            // SAFETY: the gap is contiguous and holds the keys of the vectors not yet
            // written, at least 16.
            unsafe { store(ptr, &mut ls, &mut rs, v, !ge, ge) };
        }
        debug_assert_eq!(ls, rs);
        (ls, _mm512_reduce_min_epu32(vmin), _mm512_reduce_max_epu32(vmax))
    }

    /// Set bits of each byte value (the kernels are not compiled with `popcnt`, whose
    /// emulation costs more than the rest of a partition step).
    static ONES: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u32).count_ones() as u8;
            i += 1;
        }
        t
    };

    /// Set bits of `m`.
    #[inline(always)]
    fn ones(m: u16) -> usize {
        (ONES[(m & 0xff) as usize] + ONES[(m >> 8) as usize]) as usize
    }

    /// Writes the lanes `lt` of `v` to `ptr[ls..]` and the lanes `ge` to `ptr[..rs]`,
    /// in order, and moves `ls` and `rs` past them.
    ///
    /// # Safety
    /// The CPU supports AVX-512F; `ptr[ls..ls + popcnt(lt)]` and
    /// `ptr[rs - popcnt(ge)..rs]` are in bounds, writable, and hold no key still needed.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn store(ptr: *mut u32, ls: &mut usize, rs: &mut usize, v: __m512i, lt: u16, ge: u16) {
        let (nl, ng) = (ones(lt), ones(ge));
        let low = _mm512_maskz_compress_epi32(lt, v);
        let high = _mm512_maskz_compress_epi32(ge, v);
        // Compress into a register and a masked store: a compressing store is slow on
        // AMD Zen 4.
        // SAFETY: by the caller's contract, the enabled lanes are in bounds.
        unsafe {
            _mm512_mask_storeu_epi32(ptr.add(*ls).cast(), ((1u32 << nl) - 1) as u16, low);
            _mm512_mask_storeu_epi32(ptr.add(*rs - ng).cast(), ((1u32 << ng) - 1) as u16, high);
        }
        *ls += nl;
        *rs -= ng;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quicksort_sorts_hard_inputs() {
        let mut seed = 3u64;
        let mut rnd = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for n in [
            0, 1, 2, 16, 255, 256, 257, 272, 273, 300, 1000, 4095, 4096, 4097, 70_000,
        ] {
            for variant in 0..7 {
                let mut v: Vec<u32> = (0..n)
                    .map(|i| match variant {
                        0 => rnd(),
                        1 => rnd() % 3,                 // many ties
                        2 => 7,                         // all equal
                        3 => i as u32,                  // sorted
                        4 => (n - i) as u32,            // reversed
                        5 => u32::MAX - rnd() % 2,      // ties at the top
                        _ => (i % 2) as u32 * u32::MAX, // two extremes
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_unstable();
                if sort_keys(&mut v) {
                    assert!(v == want, "n = {n} variant {variant}");
                }
            }
        }
    }
}
