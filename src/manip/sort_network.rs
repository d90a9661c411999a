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
mod avx512 {
    use std::arch::x86_64::*;

    /// Sorts `keys` (2 ..= [`NET_MAX`](super::NET_MAX) long) ascending.
    ///
    /// # Safety
    /// The CPU supports AVX-512F (callers outside this module must check it).
    #[target_feature(enable = "avx512f")]
    pub(super) fn sort(keys: &mut [u32]) {
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
        let iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let mut k = 2;
        while k <= 16 * R {
            let mut j = k / 2;
            while j > 0 {
                if j >= 16 {
                    // partners in registers r and r | j/16, same lane
                    let jr = j / 16;
                    for r in 0..R {
                        if r & jr == 0 {
                            let s = r | jr;
                            let lo = _mm512_min_epu32(v[r], v[s]);
                            let hi = _mm512_max_epu32(v[r], v[s]);
                            if (16 * r) & k == 0 {
                                (v[r], v[s]) = (lo, hi);
                            } else {
                                (v[r], v[s]) = (hi, lo);
                            }
                        }
                    }
                } else {
                    let idx = _mm512_xor_si512(iota, _mm512_set1_epi32(j as i32));
                    for (r, x) in v.iter_mut().enumerate() {
                        // element i takes the max of its pair iff (i & j != 0) xor its
                        // block of k descends (i & k != 0)
                        let desc = if k < 16 {
                            lanes_with(k)
                        } else if (16 * r) & k != 0 {
                            0xffff
                        } else {
                            0
                        };
                        let p = _mm512_permutexvar_epi32(idx, *x);
                        let lo = _mm512_min_epu32(*x, p);
                        let hi = _mm512_max_epu32(*x, p);
                        *x = _mm512_mask_blend_epi32(lanes_with(j) ^ desc, lo, hi);
                    }
                }
                j /= 2;
            }
            k *= 2;
        }
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
