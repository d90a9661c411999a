//! NumPy's pairwise sum of an f32 run (the tree of [`pairwise`]) with the eight leaves
//! of every subtree of 8 × 128 values summed interleaved in explicit AVX2 vectors.
//!
//! Why: [`pairwise`] runs two leaves at a time, two chains of dependent vector
//! additions; a leaf is 15 of them per 128 values, so from L1 the sum is bound by the
//! addition latency, and `var` over rows (the squared deviations summed from L1 right
//! after the mean) cost about as much as reading the row from memory. Eight leaves give
//! eight independent chains (throughput-bound instead), and the leaf results are
//! combined with horizontal adds that pair the same lanes as the tree. Every addition is
//! the tree's, in the same order, so the bits are those of [`pairwise`].
//!
//! On AVX-512 CPUs a subtree of eight full leaves runs two leaves per register
//! (`x86::eight_wide`), the same additions lane for lane.
//!
//! The grouping is a rule of the shape only (a subtree whose three levels of splits all
//! end in leaves), not a tuned constant; runs of other shapes, other types and CPUs
//! without AVX2 take [`pairwise`].

use super::pairwise::pairwise;

/// The value summed for each `x`: `x` itself, or `(x − m)²` (the product rounded, then
/// summed: NumPy's `var`, no fused multiply-add).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Term {
    /// `x`.
    Value,
    /// `(x − m)²` for the given centre `m`.
    SquaredDeviation(f32),
}

impl Term {
    #[inline(always)]
    fn of(self, x: f32) -> f32 {
        match self {
            Term::Value => x,
            Term::SquaredDeviation(m) => (x - m) * (x - m),
        }
    }
}

/// Leaf size of the pairwise tree (NumPy's `PW_BLOCKSIZE`).
const BLOCK: usize = 128;

/// Where the tree splits a run of `n > BLOCK` values (`n/2` down to a multiple of 8).
#[inline(always)]
fn split(n: usize) -> usize {
    n / 2 - (n / 2) % 8
}

/// The eight leaves `(start, len)` of a subtree of `n` values when its first three
/// levels all split and end in leaves of 8 to [`BLOCK`] values; `None` otherwise.
fn leaves(n: usize) -> Option<[(usize, usize); 8]> {
    let mut p = [(0usize, n); 8];
    let mut count = 1;
    for _ in 0..3 {
        let mut q = [(0usize, 0usize); 8];
        for i in 0..count {
            let (o, l) = p[i];
            if l <= BLOCK {
                return None;
            }
            let h = split(l);
            q[2 * i] = (o, h);
            q[2 * i + 1] = (o + h, l - h);
        }
        p = q;
        count *= 2;
    }
    p.iter().all(|&(_, l)| (8..=BLOCK).contains(&l)).then_some(p)
}

/// `Σ term(x)` over `x` by the pairwise tree: the bits of [`pairwise`] of `term`.
/// `from_memory`: the run is read from memory (prefetch lines ahead, as [`pairwise`]
/// does), not from cache.
pub(crate) fn pairwise_f32(x: &[f32], term: Term, from_memory: bool) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::isa() >= crate::cpu::Isa::Avx2 {
        let wide = crate::cpu::isa() >= crate::cpu::Isa::Avx512;
        // SAFETY: the CPU has AVX2 and FMA (`isa`), the features `x86::tree` is
        // compiled with, and every feature of `Isa::Avx512` when `wide` is set.
        return unsafe { x86::tree(x, term, from_memory, wide) };
    }
    let _ = from_memory;
    pairwise(x, &|v: f32| term.of(v))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{BLOCK, Term, leaves, split};
    use crate::reduce::pairwise::{pairwise, prefetch_lines};
    use std::arch::x86_64::*;

    /// The recursion of the tree down to subtrees of eight leaves. `wide`: subtrees of
    /// eight full leaves run [`eight_wide`] (AVX-512), the others [`eight`].
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA, and every feature of `Isa::Avx512` if `wide`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn tree(x: &[f32], term: Term, from_memory: bool, wide: bool) -> f32 {
        let n = x.len();
        if n > 8 * BLOCK {
            let h = split(n);
            return tree(&x[..h], term, from_memory, wide) + tree(&x[h..], term, from_memory, wide);
        }
        let Some(lv) = leaves(n) else {
            return pairwise(x, &|v: f32| term.of(v));
        };
        if from_memory {
            prefetch_lines(x.as_ptr(), std::mem::size_of_val(x));
        }
        if wide && lv.iter().all(|&(o, l)| l == BLOCK && o + BLOCK <= n) {
            let m = match term {
                Term::Value => None,
                Term::SquaredDeviation(m) => Some(m),
            };
            // SAFETY: `wide` only when the CPU has the AVX-512 level (the caller).
            return unsafe { eight_wide(x, &lv, m) };
        }
        match term {
            Term::Value => eight(x, &lv, _mm256_setzero_ps(), false),
            Term::SquaredDeviation(m) => eight(x, &lv, _mm256_set1_ps(m), true),
        }
    }

    /// The subtree of the eight leaves `lv` of `x`: `(x − m)²` summed if `square`, else
    /// `x`.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA (every read of `x` is checked against its length).
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn eight(x: &[f32], lv: &[(usize, usize); 8], m: __m256, square: bool) -> f32 {
        let f = |v: __m256| {
            if square {
                let d = _mm256_sub_ps(v, m);
                _mm256_mul_ps(d, d)
            } else {
                v
            }
        };
        // Eight values of `x` at `o` (bounds-checked: this loop is not the hot one).
        let at = |o: usize| {
            let c: &[f32; 8] = x[o..o + 8].try_into().expect("8 values");
            // SAFETY: `c` is 8 readable f32; the load has no alignment requirement.
            f(unsafe { _mm256_loadu_ps(c.as_ptr()) })
        };
        let full: [usize; 8] = std::array::from_fn(|k| lv[k].1 - lv[k].1 % 8);
        let mut a: [__m256; 8] = std::array::from_fn(|k| at(lv[k].0));
        let common = full.iter().copied().min().unwrap_or(0);
        if lv.iter().all(|&(o, l)| l == BLOCK && o + BLOCK <= x.len()) {
            // The common shape (leaves of 128: every run of 1024 · 2^k values).
            let p = x.as_ptr();
            let mut i = 8;
            while i < BLOCK {
                for k in 0..8 {
                    // SAFETY: leaf `k` is `x[lv[k].0..lv[k].0 + BLOCK]` (checked above)
                    // and `i + 8 ≤ BLOCK`, so the 8 values read are inside `x`.
                    a[k] = _mm256_add_ps(a[k], f(unsafe { _mm256_loadu_ps(p.add(lv[k].0 + i)) }));
                }
                i += 8;
            }
        } else {
            let mut i = 8;
            while i < common {
                for k in 0..8 {
                    a[k] = _mm256_add_ps(a[k], at(lv[k].0 + i));
                }
                i += 8;
            }
            for k in 0..8 {
                let mut j = common.max(8);
                while j < full[k] {
                    a[k] = _mm256_add_ps(a[k], at(lv[k].0 + j));
                    j += 8;
                }
            }
        }
        let mut r = combine(&a);
        // The leaves' last `len % 8` values, one by one after the lanes, as the tree.
        let term = if square {
            Term::SquaredDeviation(_mm256_cvtss_f32(m))
        } else {
            Term::Value
        };
        for k in 0..8 {
            for &v in &x[lv[k].0 + full[k]..lv[k].0 + lv[k].1] {
                r[k] += term.of(v);
            }
        }
        ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    }

    /// The eight leaves' lane vectors `a` (leaf `k` in `a[k]`) reduced to the eight leaf
    /// sums (before their remainders).
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn combine(a: &[__m256; 8]) -> [f32; 8] {
        // Each leaf's lanes as the tree combines them, ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)):
        // `hadd` forms r0+r1, r2+r3 (then their sum) within each 128-bit half, so the
        // low half of `q0` holds (r0+r1)+(r2+r3) of leaves 0–3 and the high half
        // (r4+r5)+(r6+r7); adding the halves gives the leaves' sums, lane k = leaf k.
        let q0 = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
        let q1 = _mm256_hadd_ps(_mm256_hadd_ps(a[4], a[5]), _mm256_hadd_ps(a[6], a[7]));
        let l = _mm256_add_ps(
            _mm256_permute2f128_ps::<0x20>(q0, q1),
            _mm256_permute2f128_ps::<0x31>(q0, q1),
        );
        let mut r = [0.0f32; 8];
        // SAFETY: `r` holds 8 f32; the store has no alignment requirement.
        unsafe { _mm256_storeu_ps(r.as_mut_ptr(), l) };
        r
    }

    /// [`eight`] for eight full leaves of [`BLOCK`] values, two leaves per AVX-512
    /// register: lanes 0–7 of `a[j]` are leaf `2j`'s eight lanes, lanes 8–15 leaf
    /// `2j + 1`'s, so every lane adds the same values in the same order as [`eight`]
    /// (the same bits) with half the instructions. `m`: `(x − m)²` summed, else `x`.
    ///
    /// Why: from L1 (the deviations of `var` over rows) [`eight`] is bound by the two
    /// floating-point add pipes (a subtraction and an addition per 8 values); 16 values
    /// per instruction halve that (measured: 357 against 537 cycles per 4096 values on
    /// AMD Zen 5).
    ///
    /// # Safety
    /// The CPU has every feature of `Isa::Avx512` (every read is checked below).
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    fn eight_wide(x: &[f32], lv: &[(usize, usize); 8], m: Option<f32>) -> f32 {
        assert!(lv.iter().all(|&(o, l)| l == BLOCK && o + BLOCK <= x.len()));
        let p = x.as_ptr();
        let mv = _mm512_set1_ps(m.unwrap_or(0.0));
        let f = |v: __m512| {
            if m.is_some() {
                let d = _mm512_sub_ps(v, mv);
                _mm512_mul_ps(d, d)
            } else {
                v
            }
        };
        // Values `i..i + 8` of leaves `2j` (low half) and `2j + 1` (high half).
        let pair = |j: usize, i: usize| {
            // SAFETY: leaves `2j`, `2j + 1` are `x[o..o + BLOCK]` (asserted above) and
            // `i + 8 ≤ BLOCK`, so both 8-value reads are inside `x`; unaligned loads.
            let (lo, hi) = unsafe {
                (
                    _mm256_loadu_ps(p.add(lv[2 * j].0 + i)),
                    _mm256_loadu_ps(p.add(lv[2 * j + 1].0 + i)),
                )
            };
            f(_mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi))
        };
        let mut a: [__m512; 4] = std::array::from_fn(|j| pair(j, 0));
        let mut i = 8;
        while i < BLOCK {
            for (j, aj) in a.iter_mut().enumerate() {
                *aj = _mm512_add_ps(*aj, pair(j, i));
            }
            i += 8;
        }
        let halves: [__m256; 8] = std::array::from_fn(|k| {
            if k % 2 == 0 {
                _mm512_castps512_ps256(a[k / 2])
            } else {
                _mm512_extractf32x8_ps::<1>(a[k / 2])
            }
        });
        let r = combine(&halves);
        ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lengths with every kind of subtree: 8 leaves of 128 (1024, 4096), leaves of
    /// uneven lengths with remainders (1000, 777, 3001), too short for eight leaves
    /// (129, 300, 513), and no leaf split at all (5, 100).
    const LENS: [usize; 12] = [0, 5, 100, 129, 300, 513, 777, 1000, 1024, 1030, 3001, 4096];

    fn data(n: usize) -> Vec<f32> {
        (0..n).map(|i| ((i * 7919) % 1013) as f32 * 0.013 - 6.0).collect()
    }

    #[test]
    fn matches_the_pairwise_tree() {
        let x = data(4096 + 7);
        for n in LENS {
            for off in [0, 3] {
                let r = &x[off..off + n];
                let want = pairwise(r, &|v: f32| v);
                assert_eq!(pairwise_f32(r, Term::Value, true).to_bits(), want.to_bits(), "n {n}");
                let want = pairwise(r, &|v: f32| (v - 0.37) * (v - 0.37));
                let got = pairwise_f32(r, Term::SquaredDeviation(0.37), false);
                assert_eq!(got.to_bits(), want.to_bits(), "squared, n {n}");
            }
        }
    }

    /// The AVX2 kernel itself (also under Miri when it is built with AVX2 enabled),
    /// including NaN and infinities.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx2_kernel_matches_the_tree() {
        if !std::arch::is_x86_feature_detected!("avx2") || !std::arch::is_x86_feature_detected!("fma") {
            return;
        }
        let mut x = data(2048 + 9);
        x[1500] = f32::INFINITY;
        for n in [8, 200, 1000, 1024, 1031, 2048] {
            let r = &x[..n];
            for term in [Term::Value, Term::SquaredDeviation(-1.5)] {
                let want = pairwise(r, &|v: f32| term.of(v));
                // SAFETY: the CPU has AVX2 and FMA (checked above).
                let got = unsafe { x86::tree(r, term, n % 2 == 0, false) };
                assert_eq!(got.to_bits(), want.to_bits(), "{term:?} n {n}");
            }
        }
        x[7] = f32::NAN;
        // SAFETY: as above.
        assert!(unsafe { x86::tree(&x[..1024], Term::Value, false, false) }.is_nan());
        assert_eq!(leaves(1024).map(|l| l[7]), Some((896, 128)));
        assert_eq!(leaves(512), None);
    }

    /// The AVX-512 kernel (two leaves per register) against the tree, bit for bit:
    /// runs of full leaves (1024, 4096, 8192 with an odd offset), mixed subtrees (3001,
    /// 5000: some take the AVX2 kernel), NaN, infinities and large magnitudes whose
    /// order of addition shows in the bits.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx512_kernel_matches_the_tree() {
        if crate::cpu::detected_isa() < crate::cpu::Isa::Avx512 {
            return;
        }
        let mut x: Vec<f32> = data(8192 + 5)
            .iter()
            .enumerate()
            .map(|(i, &v)| if i % 97 == 0 { v * 3.0e7 } else { v })
            .collect();
        for off in [0, 1] {
            for n in [1024, 3001, 4096, 5000, 8192] {
                let r = &x[off..off + n];
                for term in [Term::Value, Term::SquaredDeviation(0.77)] {
                    let want = pairwise(r, &|v: f32| term.of(v));
                    // SAFETY: the CPU has every feature of `Isa::Avx512` (checked above).
                    let got = unsafe { x86::tree(r, term, n % 2 == 1, true) };
                    assert_eq!(got.to_bits(), want.to_bits(), "{term:?} n {n} off {off}");
                }
            }
        }
        x[2000] = f32::INFINITY;
        // SAFETY: as above.
        let inf = unsafe { x86::tree(&x[..4096], Term::Value, false, true) };
        assert_eq!(inf, f32::INFINITY);
        x[3000] = f32::NEG_INFINITY;
        // SAFETY: as above.
        assert!(unsafe { x86::tree(&x[..4096], Term::Value, false, true) }.is_nan());
        x[2000] = 1.0;
        x[3000] = f32::NAN;
        // SAFETY: as above.
        assert!(unsafe { x86::tree(&x[..4096], Term::SquaredDeviation(1.0), false, true) }.is_nan());
    }
}
