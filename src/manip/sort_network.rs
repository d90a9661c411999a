//! Sorting of short lanes of `u32` keys (at most [`NET_MAX`]) by a bitonic sorting
//! network in AVX-512 registers, with `sort_unstable` as the portable fallback.
//!
//! The keys are loaded into `R` (a power of two, at most 16) registers of 16 lanes, the
//! tail padded with `u32::MAX`, and sorted by the full bitonic network on `16·R`
//! elements: stages whose partner distance is at least 16 compare whole registers
//! (`min`/`max`), shorter ones compare lanes within a register (a permute, `min`, `max`
//! and a blend). Equal keys are indistinguishable, so the network's instability does
//! not matter.

/// Longest lane the network sorts (16 registers of 16 keys).
pub(crate) const NET_MAX: usize = 256;

/// Sorts `keys` ascending: by the AVX-512 network when the CPU has it and the lane is
/// at most [`NET_MAX`] long, otherwise by `sort_unstable`.
pub(crate) fn sort_keys(keys: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    if keys.len() > 1 && keys.len() <= NET_MAX && crate::cpu::isa() == crate::cpu::Isa::Avx512 {
        // SAFETY: `isa` is `Avx512` only when the CPU has AVX-512F.
        unsafe { avx512::sort(keys) };
        return;
    }
    keys.sort_unstable();
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx512 {
    use std::arch::x86_64::*;

    /// Sorts `keys` (2 ..= [`NET_MAX`](super::NET_MAX) long) ascending.
    ///
    /// # Safety
    /// The CPU supports AVX-512F (callers outside this module must check it).
    #[target_feature(enable = "avx512f")]
    pub(in crate::manip) fn sort(keys: &mut [u32]) {
        match keys.len().div_ceil(16).next_power_of_two() {
            1 => sort_regs::<1>(keys),
            2 => sort_regs::<2>(keys),
            4 => sort_regs::<4>(keys),
            8 => sort_regs::<8>(keys),
            _ => sort_regs::<16>(keys),
        }
    }

    /// Lanes `l` of a register with `l & m != 0` (`m` a power of two below 16).
    #[inline(always)]
    fn lanes_with(m: usize) -> u16 {
        match m {
            1 => 0xaaaa,
            2 => 0xcccc,
            4 => 0xf0f0,
            _ => 0xff00,
        }
    }

    /// One compare-exchange stage within a register: lane `i` meets lane `i ^ j`
    /// (`p` is `x` with those lanes swapped) and takes the larger value where `hi` is set.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn exchange(x: __m512i, p: __m512i, hi: u16) -> __m512i {
        _mm512_mask_blend_epi32(hi, _mm512_min_epu32(x, p), _mm512_max_epu32(x, p))
    }

    /// `x` with lane `i` swapped with lane `i ^ J` (`J` a power of two below 16), by the
    /// cheapest shuffle for the distance.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn swap_lanes<const J: usize>(x: __m512i) -> __m512i {
        match J {
            1 => _mm512_shuffle_epi32::<0b10_11_00_01>(x),
            2 => _mm512_shuffle_epi32::<0b01_00_11_10>(x),
            4 => _mm512_shuffle_i32x4::<0b10_11_00_01>(x, x),
            _ => _mm512_shuffle_i32x4::<0b01_00_11_10>(x, x),
        }
    }

    /// The 16 lanes of `x` sorted ascending (the bitonic network in one register).
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn sort16(mut x: __m512i) -> __m512i {
        // stage (k, j): lane i takes the max iff (i & j != 0) xor (i & k != 0)
        x = exchange(x, swap_lanes::<1>(x), lanes_with(1) ^ lanes_with(2));
        x = exchange(x, swap_lanes::<2>(x), lanes_with(2) ^ lanes_with(4));
        x = exchange(x, swap_lanes::<1>(x), lanes_with(1) ^ lanes_with(4));
        x = exchange(x, swap_lanes::<4>(x), lanes_with(4) ^ lanes_with(8));
        x = exchange(x, swap_lanes::<2>(x), lanes_with(2) ^ lanes_with(8));
        x = exchange(x, swap_lanes::<1>(x), lanes_with(1) ^ lanes_with(8));
        merge16(x)
    }

    /// The 16 lanes of the bitonic `x` sorted ascending (half-cleaners of 8, 4, 2, 1).
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn merge16(mut x: __m512i) -> __m512i {
        x = exchange(x, swap_lanes::<8>(x), lanes_with(8));
        x = exchange(x, swap_lanes::<4>(x), lanes_with(4));
        x = exchange(x, swap_lanes::<2>(x), lanes_with(2));
        exchange(x, swap_lanes::<1>(x), lanes_with(1))
    }

    /// Merges each pair of sorted blocks of `M` registers of `v` into one sorted block
    /// (nothing when `M >= R`): the second block is compared reversed against the first
    /// (both halves become bitonic), then half-cleaners across registers, then within.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn merge_blocks<const R: usize, const M: usize>(v: &mut [__m512i; R]) {
        if M >= R {
            return;
        }
        let rev = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        for b in (0..R).step_by(2 * M) {
            for i in 0..M {
                let a = v[b + i];
                let c = _mm512_permutexvar_epi32(rev, v[b + 2 * M - 1 - i]);
                v[b + i] = _mm512_min_epu32(a, c);
                v[b + 2 * M - 1 - i] = _mm512_permutexvar_epi32(rev, _mm512_max_epu32(a, c));
            }
            // `v[b + M ..]` now holds the larger half max(A[t], B[n-1-t]) reversed
            // (registers and lanes), which keeps it bitonic.
            let mut d = M / 2;
            while d > 0 {
                for r in b..b + 2 * M {
                    if r & d == 0 {
                        let (x, y) = (v[r], v[r | d]);
                        v[r] = _mm512_min_epu32(x, y);
                        v[r | d] = _mm512_max_epu32(x, y);
                    }
                }
                d /= 2;
            }
        }
        for x in v.iter_mut() {
            *x = merge16(*x);
        }
    }

    /// The bitonic network on `R` registers (`keys.len() <= 16 * R`).
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn sort_regs<const R: usize>(keys: &mut [u32]) {
        let n = keys.len();
        debug_assert!(n <= 16 * R);
        let pad = _mm512_set1_epi32(-1);
        let mut v = [pad; R];
        for (r, x) in v.iter_mut().enumerate() {
            let cnt = n.saturating_sub(16 * r).min(16);
            if cnt > 0 {
                let m = ((1u32 << cnt) - 1) as u16;
                // SAFETY: the lanes the mask enables read `keys[16r .. 16r + cnt]`,
                // which is in bounds; masked-off lanes are not accessed.
                *x = unsafe { _mm512_mask_loadu_epi32(pad, m, keys.as_ptr().add(16 * r).cast()) };
            }
        }
        for x in v.iter_mut() {
            *x = sort16(*x);
        }
        // Blocks of 1, 2, 4, 8 sorted registers merged pairwise (constant trip counts,
        // so the compiler unrolls every stage and keeps `v` in registers).
        merge_blocks::<R, 1>(&mut v);
        merge_blocks::<R, 2>(&mut v);
        merge_blocks::<R, 4>(&mut v);
        merge_blocks::<R, 8>(&mut v);
        for (r, x) in v.iter().enumerate() {
            let cnt = n.saturating_sub(16 * r).min(16);
            if cnt > 0 {
                let m = ((1u32 << cnt) - 1) as u16;
                // SAFETY: the lanes the mask enables write `keys[16r .. 16r + cnt]`,
                // which is in bounds and borrowed mutably; masked-off lanes are untouched.
                unsafe { _mm512_mask_storeu_epi32(keys.as_mut_ptr().add(16 * r).cast(), m, *x) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_sorts_every_length() {
        let mut seed = 5u64;
        let max = if cfg!(miri) { 40 } else { NET_MAX + 20 };
        for n in 0..=max {
            for variant in 0..4 {
                let mut v: Vec<u32> = (0..n)
                    .map(|i| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        let r = (seed >> 33) as u32;
                        match variant {
                            0 => r,
                            1 => u32::MAX - 4 + r % 5, // ties, and values equal to the padding
                            2 => i as u32,
                            _ => (n - i) as u32,
                        }
                    })
                    .collect();
                let mut want = v.clone();
                want.sort();
                sort_keys(&mut v);
                assert_eq!(v, want, "n = {n} variant {variant}");
            }
        }
    }
}
