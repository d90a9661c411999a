//! A small vector abstraction for the `nn` kernels that are written once for every
//! instruction set: `f32` vectors of AVX-512 (16 lanes) and AVX2 (8 lanes), and a
//! portable one-lane "vector" of `f32` or `f64` (plain Rust, what Miri checks). Callers
//! compile a generic body once per implementation inside a `#[target_feature]` function
//! of the matching level.

/// `f32` vectors of one instruction set.
///
/// # Safety
/// Implementations touch only the lanes a method names. Every method is `unsafe`: it may
/// only be called where the implementation's CPU features are available, and the
/// pointer methods only with addresses valid for the lanes they name.
pub(crate) unsafe trait Simd: Copy {
    /// Lanes per vector.
    const LANES: usize;
    /// The element type.
    type E: crate::element::Float;
    /// The vector type.
    type V: Copy;
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn splat(v: Self::E) -> Self::V;
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn sub(a: Self::V, b: Self::V) -> Self::V;
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn div(a: Self::V, b: Self::V) -> Self::V;
    /// The larger of the two; NaN in either propagates.
    ///
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn max(a: Self::V, b: Self::V) -> Self::V;
    /// Loads lanes `l` with `lo ≤ l < hi` from `p + l`; the other lanes are zero.
    ///
    /// # Safety
    /// `p + l` is readable for those lanes (`p` itself may point outside any object).
    unsafe fn load_range(p: *const Self::E, lo: isize, hi: isize) -> Self::V;
    /// Loads lanes `l` with `lo ≤ l < hi` from `p + l`; the other lanes are `fill`'s.
    ///
    /// # Safety
    /// As [`Simd::load_range`].
    unsafe fn load_range_fill(p: *const Self::E, lo: isize, hi: isize, fill: Self::V) -> Self::V;
    /// Loads all lanes from `p`.
    ///
    /// # Safety
    /// `p..p + LANES` is readable.
    unsafe fn load(p: *const Self::E) -> Self::V;
    /// Stores all lanes to `p` (a plain store, which later loads can forward from,
    /// unlike the masked [`Simd::store_first`]).
    ///
    /// # Safety
    /// `p..p + LANES` is writable.
    unsafe fn store(p: *mut Self::E, v: Self::V);
    /// Stores the first `n ≤ LANES` lanes to `p`.
    ///
    /// # Safety
    /// `p..p + n` is writable.
    unsafe fn store_first(p: *mut Self::E, v: Self::V, n: usize);
    /// The even and the odd elements of the `2·LANES` consecutive elements `a ++ b`.
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn even_odd(a: Self::V, b: Self::V) -> (Self::V, Self::V);
    /// `a₁ a₂ … a₍LANES−1₎ b₀`: the vector one element further along `a ++ b`.
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn shift_in(a: Self::V, b: Self::V) -> Self::V;
    /// The inverse of [`Simd::even_odd`]: `a₀ b₀ a₁ b₁ …` as two vectors.
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn interleave(a: Self::V, b: Self::V) -> (Self::V, Self::V);
    /// `a·b + c` (fused on AVX2 and AVX-512; two roundings on the portable lane).
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn mul_add(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// One step of an arg-max in window order (PyTorch's rule): where `v > best` or `v`
    /// is NaN, `(best, tag)` becomes `(v, vtag)`; elsewhere it stays. So ties keep the
    /// first and a NaN replaces even a NaN (the last NaN wins).
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn argmax_step(best: Self::V, tag: Self::V, v: Self::V, vtag: Self::V) -> (Self::V, Self::V);
    /// The sum of the lanes.
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn sum_lanes(v: Self::V) -> Self::E;
    /// The largest lane of a vector that holds no NaN.
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn max_lanes(v: Self::V) -> Self::E;
    /// Bit `l` set where lane `l` of `a` equals lane `l` of `b` (an ordered compare:
    /// NaN equals nothing, `-0.0` equals `0.0`).
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn eq_mask(a: Self::V, b: Self::V) -> u32;
}

/// One lane of plain Rust, of `f32` or `f64`.
#[derive(Clone, Copy)]
pub(crate) struct Scalar<F>(std::marker::PhantomData<F>);

// SAFETY: plain Rust; the pointer methods touch only the lanes they name.
unsafe impl<F: crate::element::Float> Simd for Scalar<F> {
    const LANES: usize = 1;
    type E = F;
    type V = F;
    #[inline(always)]
    /// # Safety
    /// The implementation's CPU features are available.
    unsafe fn splat(v: F) -> F {
        v
    }
    #[inline(always)]
    unsafe fn add(a: F, b: F) -> F {
        a + b
    }
    #[inline(always)]
    unsafe fn sub(a: F, b: F) -> F {
        a - b
    }
    #[inline(always)]
    unsafe fn div(a: F, b: F) -> F {
        a / b
    }
    #[inline(always)]
    unsafe fn max(a: F, b: F) -> F {
        if a.is_nan() || a > b { a } else { b }
    }
    #[inline(always)]
    unsafe fn load_range(p: *const F, lo: isize, hi: isize) -> F {
        // SAFETY: lane 0 is readable when lo ≤ 0 < hi (the caller's contract).
        if lo <= 0 && 0 < hi { unsafe { *p } } else { F::zero() }
    }
    #[inline(always)]
    unsafe fn load_range_fill(p: *const F, lo: isize, hi: isize, fill: F) -> F {
        // SAFETY: lane 0 is readable when lo ≤ 0 < hi (the caller's contract).
        if lo <= 0 && 0 < hi { unsafe { *p } } else { fill }
    }
    #[inline(always)]
    unsafe fn load(p: *const F) -> F {
        // SAFETY: the caller's contract.
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn store(p: *mut F, v: F) {
        // SAFETY: the caller's contract.
        unsafe { *p = v };
    }
    #[inline(always)]
    unsafe fn store_first(p: *mut F, v: F, n: usize) {
        if n > 0 {
            // SAFETY: the caller's contract.
            unsafe { *p = v };
        }
    }
    #[inline(always)]
    unsafe fn even_odd(a: F, b: F) -> (F, F) {
        (a, b)
    }
    #[inline(always)]
    unsafe fn shift_in(_a: F, b: F) -> F {
        b
    }
    #[inline(always)]
    unsafe fn interleave(a: F, b: F) -> (F, F) {
        (a, b)
    }
    #[inline(always)]
    unsafe fn mul_add(a: F, b: F, c: F) -> F {
        // Not `F::mul_add`: without FMA hardware that is a slow libm call.
        a * b + c
    }
    #[inline(always)]
    unsafe fn argmax_step(best: F, tag: F, v: F, vtag: F) -> (F, F) {
        if v > best || v.is_nan() { (v, vtag) } else { (best, tag) }
    }
    #[inline(always)]
    unsafe fn sum_lanes(v: F) -> F {
        v
    }
    #[inline(always)]
    unsafe fn max_lanes(v: F) -> F {
        v
    }
    #[inline(always)]
    unsafe fn eq_mask(a: F, b: F) -> u32 {
        u32::from(a == b)
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{Avx2, Avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Simd;
    use std::arch::x86_64::*;

    /// 16-lane AVX-512 vectors.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx512;

    /// The mask of lanes `l` with `lo ≤ l < hi` among `n` lanes.
    #[inline(always)]
    fn range_mask(lo: isize, hi: isize, n: isize) -> u32 {
        let (lo, hi) = (lo.clamp(0, n), hi.clamp(0, n));
        if lo >= hi {
            0
        } else {
            ((1u64 << hi) - (1u64 << lo)) as u32
        }
    }

    // SAFETY: every method is only called where AVX-512F is available (the trait's
    // contract), and the masked loads/stores touch only the named lanes.
    unsafe impl Simd for Avx512 {
        const LANES: usize = 16;
        type E = f32;
        type V = __m512;
        #[inline(always)]
        unsafe fn splat(v: f32) -> __m512 {
            // SAFETY: AVX-512F is available (trait contract).
            unsafe { _mm512_set1_ps(v) }
        }
        #[inline(always)]
        unsafe fn add(a: __m512, b: __m512) -> __m512 {
            // SAFETY: as above.
            unsafe { _mm512_add_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn sub(a: __m512, b: __m512) -> __m512 {
            // SAFETY: as above.
            unsafe { _mm512_sub_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn div(a: __m512, b: __m512) -> __m512 {
            // SAFETY: as above.
            unsafe { _mm512_div_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn max(a: __m512, b: __m512) -> __m512 {
            // SAFETY: as above. vmaxps returns its second operand when either is NaN,
            // so NaN in `b` propagates; a NaN `a` is put back where it was.
            unsafe {
                let a_nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, a);
                _mm512_mask_blend_ps(a_nan, _mm512_max_ps(a, b), a)
            }
        }
        #[inline(always)]
        unsafe fn load_range(p: *const f32, lo: isize, hi: isize) -> __m512 {
            let m = range_mask(lo, hi, 16) as u16;
            // SAFETY: only the lanes in the mask are read (fault suppression covers
            // the others); they are readable by the caller's contract.
            unsafe { _mm512_maskz_loadu_ps(m, p) }
        }
        #[inline(always)]
        unsafe fn load_range_fill(p: *const f32, lo: isize, hi: isize, fill: __m512) -> __m512 {
            let m = range_mask(lo, hi, 16) as u16;
            // SAFETY: as `load_range`.
            unsafe { _mm512_mask_loadu_ps(fill, m, p) }
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> __m512 {
            // SAFETY: the caller's contract.
            unsafe { _mm512_loadu_ps(p) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut f32, v: __m512) {
            // SAFETY: the caller's contract.
            unsafe { _mm512_storeu_ps(p, v) }
        }
        #[inline(always)]
        unsafe fn store_first(p: *mut f32, v: __m512, n: usize) {
            let m = range_mask(0, n as isize, 16) as u16;
            // SAFETY: only the first n lanes are written, writable by the contract.
            unsafe { _mm512_mask_storeu_ps(p, m, v) }
        }
        #[inline(always)]
        unsafe fn even_odd(a: __m512, b: __m512) -> (__m512, __m512) {
            // SAFETY: AVX-512F is available (trait contract).
            unsafe {
                let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
                let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
                (_mm512_permutex2var_ps(a, even, b), _mm512_permutex2var_ps(a, odd, b))
            }
        }
        #[inline(always)]
        unsafe fn shift_in(a: __m512, b: __m512) -> __m512 {
            // SAFETY: AVX-512F is available (trait contract). valignd shifts b:a
            // right by one element.
            unsafe { _mm512_castsi512_ps(_mm512_alignr_epi32::<1>(_mm512_castps_si512(b), _mm512_castps_si512(a))) }
        }
        #[inline(always)]
        unsafe fn interleave(a: __m512, b: __m512) -> (__m512, __m512) {
            // SAFETY: AVX-512F is available (trait contract).
            unsafe {
                let lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
                let hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
                (_mm512_permutex2var_ps(a, lo, b), _mm512_permutex2var_ps(a, hi, b))
            }
        }
        #[inline(always)]
        unsafe fn mul_add(a: __m512, b: __m512, c: __m512) -> __m512 {
            // SAFETY: AVX-512F is available (trait contract).
            unsafe { _mm512_fmadd_ps(a, b, c) }
        }
        #[inline(always)]
        unsafe fn argmax_step(best: __m512, tag: __m512, v: __m512, vtag: __m512) -> (__m512, __m512) {
            // SAFETY: AVX-512F is available (trait contract).
            unsafe {
                let take = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(v, best) | _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
                (
                    _mm512_mask_blend_ps(take, best, v),
                    _mm512_mask_blend_ps(take, tag, vtag),
                )
            }
        }
        #[inline(always)]
        unsafe fn sum_lanes(v: __m512) -> f32 {
            // SAFETY: AVX-512F is available (trait contract).
            unsafe { _mm512_reduce_add_ps(v) }
        }
        #[inline(always)]
        unsafe fn max_lanes(v: __m512) -> f32 {
            // SAFETY: AVX-512F is available (trait contract).
            unsafe { _mm512_reduce_max_ps(v) }
        }
        #[inline(always)]
        unsafe fn eq_mask(a: __m512, b: __m512) -> u32 {
            // SAFETY: AVX-512F is available (trait contract).
            unsafe { u32::from(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, b)) }
        }
    }

    /// 8-lane AVX2 vectors.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2;

    /// The AVX2 lane mask (sign bit set) of lanes `lo ≤ l < hi`.
    ///
    /// # Safety
    /// AVX2 is available.
    #[inline(always)]
    unsafe fn mask256(lo: isize, hi: isize) -> __m256i {
        let m = range_mask(lo, hi, 8);
        // SAFETY: AVX2 is available (the caller's contract).
        unsafe {
            let bits = _mm256_set1_epi32(m as i32);
            let sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            _mm256_cmpeq_epi32(_mm256_and_si256(bits, sel), sel)
        }
    }

    // SAFETY: every method is only called where AVX2 and FMA are available (the trait's
    // contract), and the masked loads/stores touch only the named lanes.
    unsafe impl Simd for Avx2 {
        const LANES: usize = 8;
        type E = f32;
        type V = __m256;
        #[inline(always)]
        unsafe fn splat(v: f32) -> __m256 {
            // SAFETY: AVX2 is available (trait contract).
            unsafe { _mm256_set1_ps(v) }
        }
        #[inline(always)]
        unsafe fn add(a: __m256, b: __m256) -> __m256 {
            // SAFETY: as above.
            unsafe { _mm256_add_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn sub(a: __m256, b: __m256) -> __m256 {
            // SAFETY: as above.
            unsafe { _mm256_sub_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn div(a: __m256, b: __m256) -> __m256 {
            // SAFETY: as above.
            unsafe { _mm256_div_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn max(a: __m256, b: __m256) -> __m256 {
            // SAFETY: as above. NaN in `b` propagates through vmaxps, a NaN `a` is put
            // back where it was.
            unsafe {
                let a_nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(a, a);
                _mm256_blendv_ps(_mm256_max_ps(a, b), a, a_nan)
            }
        }
        #[inline(always)]
        unsafe fn load_range(p: *const f32, lo: isize, hi: isize) -> __m256 {
            // SAFETY: vmaskmovps reads only the lanes in the mask (faults suppressed
            // for the others); they are readable by the caller's contract.
            unsafe { _mm256_maskload_ps(p, mask256(lo, hi)) }
        }
        #[inline(always)]
        unsafe fn load_range_fill(p: *const f32, lo: isize, hi: isize, fill: __m256) -> __m256 {
            // SAFETY: as `load_range`; the blend takes `fill` outside the mask.
            unsafe {
                let m = mask256(lo, hi);
                _mm256_blendv_ps(fill, _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m))
            }
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> __m256 {
            // SAFETY: the caller's contract.
            unsafe { _mm256_loadu_ps(p) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut f32, v: __m256) {
            // SAFETY: the caller's contract.
            unsafe { _mm256_storeu_ps(p, v) }
        }
        #[inline(always)]
        unsafe fn store_first(p: *mut f32, v: __m256, n: usize) {
            // SAFETY: only the first n lanes are written, writable by the contract.
            unsafe { _mm256_maskstore_ps(p, mask256(0, n as isize), v) }
        }
        #[inline(always)]
        unsafe fn even_odd(a: __m256, b: __m256) -> (__m256, __m256) {
            // SAFETY: AVX2 is available (trait contract).
            unsafe {
                // Within 128-bit lanes: a0 a2 b0 b2 | a4 a6 b4 b6, then reorder quads.
                let e = _mm256_shuffle_ps::<0b10_00_10_00>(a, b);
                let o = _mm256_shuffle_ps::<0b11_01_11_01>(a, b);
                let fix = |v: __m256| _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(v)));
                (fix(e), fix(o))
            }
        }
        #[inline(always)]
        unsafe fn shift_in(a: __m256, b: __m256) -> __m256 {
            // SAFETY: AVX2 is available (trait contract). u = a_hi b_lo; per 128-bit
            // half, (u:a) >> 4 bytes gives a₁a₂a₃a₄ | a₅a₆a₇b₀.
            unsafe {
                let u = _mm256_castps_si256(_mm256_permute2f128_ps::<0x21>(a, b));
                _mm256_castsi256_ps(_mm256_alignr_epi8::<4>(u, _mm256_castps_si256(a)))
            }
        }
        #[inline(always)]
        unsafe fn interleave(a: __m256, b: __m256) -> (__m256, __m256) {
            // SAFETY: AVX2 is available (trait contract).
            unsafe {
                let lo = _mm256_unpacklo_ps(a, b); // a0 b0 a1 b1 | a4 b4 a5 b5
                let hi = _mm256_unpackhi_ps(a, b); // a2 b2 a3 b3 | a6 b6 a7 b7
                (
                    _mm256_permute2f128_ps::<0x20>(lo, hi),
                    _mm256_permute2f128_ps::<0x31>(lo, hi),
                )
            }
        }
        #[inline(always)]
        unsafe fn mul_add(a: __m256, b: __m256, c: __m256) -> __m256 {
            // SAFETY: AVX2 and FMA are available (trait contract).
            unsafe { _mm256_fmadd_ps(a, b, c) }
        }
        #[inline(always)]
        unsafe fn argmax_step(best: __m256, tag: __m256, v: __m256, vtag: __m256) -> (__m256, __m256) {
            // SAFETY: AVX2 is available (trait contract).
            unsafe {
                let take = _mm256_or_ps(
                    _mm256_cmp_ps::<_CMP_GT_OQ>(v, best),
                    _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v),
                );
                (_mm256_blendv_ps(best, v, take), _mm256_blendv_ps(tag, vtag, take))
            }
        }
        #[inline(always)]
        unsafe fn sum_lanes(v: __m256) -> f32 {
            // SAFETY: AVX2 is available (trait contract). Halves added down to one lane.
            unsafe {
                let q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
                let d = _mm_add_ps(q, _mm_movehl_ps(q, q));
                _mm_cvtss_f32(_mm_add_ss(d, _mm_movehdup_ps(d)))
            }
        }
        #[inline(always)]
        unsafe fn max_lanes(v: __m256) -> f32 {
            // SAFETY: AVX2 is available (trait contract). Halves' maxima down to one lane.
            unsafe {
                let q = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
                let d = _mm_max_ps(q, _mm_movehl_ps(q, q));
                _mm_cvtss_f32(_mm_max_ss(d, _mm_movehdup_ps(d)))
            }
        }
        #[inline(always)]
        unsafe fn eq_mask(a: __m256, b: __m256) -> u32 {
            // SAFETY: AVX2 is available (trait contract).
            unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(a, b)) as u32 }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every implementation this CPU runs gives the scalar results.
    fn check<S: Simd<E = f32>>() {
        let n = S::LANES;
        let src: Vec<f32> = (0..4 * n).map(|i| i as f32).collect();
        let mut out = vec![-1.0f32; 4 * n];
        // SAFETY: the reads stay in src (lanes 0..n of src[n..]) and the writes in out.
        unsafe {
            let a = S::load(src.as_ptr());
            let b = S::load(src.as_ptr().add(n));
            let (e, o) = S::even_odd(a, b);
            S::store_first(out.as_mut_ptr(), e, n);
            S::store_first(out.as_mut_ptr().add(n), o, n);
            let (x, y) = S::interleave(e, o);
            S::store_first(out.as_mut_ptr().add(2 * n), x, n);
            S::store_first(out.as_mut_ptr().add(3 * n), y, n - 1);
            for l in 0..n {
                assert_eq!(out[l], (2 * l) as f32);
                assert_eq!(out[n + l], (2 * l + 1) as f32);
            }
            assert_eq!(&out[2 * n..4 * n - 1], &src[..2 * n - 1]);
            assert_eq!(out[4 * n - 1], -1.0);
            let r = S::load_range(src.as_ptr().add(n).wrapping_sub(1), 1, n as isize);
            S::store_first(out.as_mut_ptr(), r, n);
            assert_eq!(out[0], 0.0);
            assert_eq!(&out[1..n], &src[n..2 * n - 1]);
            let sh = S::shift_in(S::load(src.as_ptr()), S::load(src.as_ptr().add(n)));
            S::store(out.as_mut_ptr(), sh);
            assert_eq!(&out[..n], &src[1..n + 1]);
            // Lanes 1..n−1 (none for one lane) from src[n..], the first and last filled.
            let hi = (n as isize - 1).max(1);
            let f = S::load_range_fill(src.as_ptr().add(n).wrapping_sub(1), 1, hi, S::splat(-7.0));
            S::store(out.as_mut_ptr(), f);
            assert_eq!((out[0], out[n - 1]), (-7.0, -7.0));
            assert_eq!(&out[1..hi as usize], &src[n..n + hi as usize - 1]);
            let m = S::max(S::splat(f32::NAN), S::splat(1.0));
            let m2 = S::max(S::splat(1.0), S::splat(f32::NAN));
            S::store_first(out.as_mut_ptr(), m, 1);
            S::store_first(out.as_mut_ptr().add(1), m2, 1);
            assert!(out[0].is_nan() && out[1].is_nan());
            let fma = S::mul_add(S::load(src.as_ptr()), S::splat(2.0), S::splat(0.5));
            S::store(out.as_mut_ptr(), fma);
            assert!((0..n).all(|l| out[l] == 2.0 * src[l] + 0.5));
            let want: f32 = src[n..2 * n].iter().sum();
            assert_eq!(S::sum_lanes(S::load(src.as_ptr().add(n))), want);
            assert_eq!(S::max_lanes(S::load(src.as_ptr().add(n))), (2 * n - 1) as f32);
            let mut mixed = src[..n].to_vec();
            mixed[n / 2] = 7.5;
            let m = S::max_lanes(S::load(mixed.as_ptr()));
            assert_eq!(m, mixed.iter().copied().fold(f32::MIN, f32::max));
            let eq = S::eq_mask(S::load(mixed.as_ptr()), S::splat(7.5));
            assert_eq!(eq, 1 << (n / 2));
            let z = S::eq_mask(S::splat(-0.0), S::splat(0.0));
            assert_eq!(z, ((1u64 << n) - 1) as u32);
            assert_eq!(S::eq_mask(S::splat(f32::NAN), S::splat(f32::NAN)), 0);
        }
    }

    #[test]
    fn vector_helpers_agree_with_their_definitions() {
        check::<Scalar<f32>>();
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            use crate::cpu::{Isa, detected_isa};
            if detected_isa() >= Isa::Avx2 {
                // SAFETY: the AVX2 level has AVX2 and FMA.
                unsafe { avx2_check() };
            }
            if detected_isa() >= Isa::Avx512 {
                // SAFETY: the AVX-512 level has AVX-512F.
                unsafe { avx512_check() };
            }
        }
    }

    /// # Safety
    /// The CPU features of the `target_feature` attribute are available.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn avx2_check() {
        check::<Avx2>();
    }

    /// # Safety
    /// The CPU features of the `target_feature` attribute are available.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[target_feature(enable = "avx512f")]
    unsafe fn avx512_check() {
        check::<Avx512>();
    }
}
