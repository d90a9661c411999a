//! `f32` kernels.
//!
//! `exp` and `ln` are evaluated natively in `f32` (Cephes `expf` polynomial,
//! fdlibm `logf` reduction). The other functions are evaluated in `f64` with
//! branch-free code and rounded once to `f32`, which makes them accurate to
//! ~0.5 ulp while still vectorising (8 `f64` lanes per AVX-512 register).

// Coefficients are kept digit-for-digit as published.
#![allow(clippy::excessive_precision)]

use super::{erfk, f64k};

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// Cephes split of ln 2: `C1` has 9 significant bits so `n * C1` is exact.
const C1: f32 = 0.693_359_375;
const C2: f32 = -2.121_944_4e-4;
/// 1.5 * 2^23: adding it rounds to an integer (ties to even).
const SHIFT: f32 = 12_582_912.0;

#[inline(always)]
fn pow2i(k: i32) -> f32 {
    f32::from_bits((k.wrapping_add(127) as u32).wrapping_shl(23))
}

/// `e^x` for `f32`.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    // NaN fails both comparisons and propagates.
    let xc = x.clamp(-104.0, 89.0); // NaN stays NaN
    let kf = xc.mul_add(LOG2E, SHIFT);
    let n = kf - SHIFT;
    let ni = (kf.to_bits() as i32).wrapping_sub(SHIFT.to_bits() as i32);
    let r = (-n).mul_add(C1, xc);
    let r = (-n).mul_add(C2, r);
    let mut p = 1.987_569_1e-4_f32;
    p = p.mul_add(r, 1.398_199_9e-3);
    p = p.mul_add(r, 8.333_452e-3);
    p = p.mul_add(r, 4.166_579_6e-2);
    p = p.mul_add(r, 1.666_666_5e-1);
    p = p.mul_add(r, 5.000_000_1e-1);
    let y = (r * r).mul_add(p, r) + 1.0;
    // Two-step scaling: y * 2^n1 is normal, the last product rounds once
    // (correct gradual underflow and overflow to +inf).
    let n1 = ni >> 1;
    y * pow2i(n1) * pow2i(ni.wrapping_sub(n1))
}

const LN2_HI: f32 = 6.931_381_2e-1; // 0x3f317180
const LN2_LO: f32 = 9.058_000_6e-6; // 0x3717f7d1
const LG1: f32 = 0.666_666_63; // 0xaaaaaa.0p-24
const LG2: f32 = 0.400_009_72; // 0xccce13.0p-25
const LG3: f32 = 0.284_987_87; // 0x91e9ee.0p-25
const LG4: f32 = 0.242_790_79; // 0xf89e26.0p-26

/// Natural logarithm for `f32` (fdlibm `logf` algorithm, branch-free).
#[inline(always)]
pub(crate) fn ln(x: f32) -> f32 {
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 33_554_432.0 } else { x }; // 2^25
    let kadj: i32 = if sub { 25 } else { 0 };
    let ix = xs.to_bits().wrapping_add(0x3f80_0000 - 0x3f35_04f3);
    let k = (ix >> 23) as i32 - 0x7f - kadj;
    let m = f32::from_bits((ix & 0x007f_ffff) + 0x3f35_04f3);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * w.mul_add(LG4, LG2);
    let t2 = z * w.mul_add(LG3, LG1);
    let r = t2 + t1;
    let hfsq = 0.5 * f * f;
    let dk = k as f32;
    let res = s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI;
    if x > 0.0 && x < f32::INFINITY {
        res
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x < 0.0 {
        f32::NAN
    } else {
        x // +inf or NaN
    }
}

#[inline(always)]
pub(crate) fn tanh(x: f32) -> f32 {
    f64k::tanh::<false>(f64::from(x)) as f32
}

#[inline(always)]
pub(crate) fn sigmoid(x: f32) -> f32 {
    f64k::sigmoid::<false>(f64::from(x)) as f32
}

#[inline(always)]
pub(crate) fn silu(x: f32) -> f32 {
    f64k::silu::<false>(f64::from(x)) as f32
}

#[inline(always)]
pub(crate) fn gelu(x: f32) -> f32 {
    f64k::gelu::<false>(f64::from(x)) as f32
}

#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    erfk::erf(f64::from(x)) as f32
}

#[inline(always)]
pub(crate) fn gelu_erf(x: f32) -> f32 {
    erfk::gelu_erf(f64::from(x)) as f32
}
