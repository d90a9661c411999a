//! Branch-free `f64` kernels (also used, in a reduced-precision variant, as
//! the internal working precision of several `f32` kernels).
//!
//! All functions are `#[inline(always)]` and use only selects instead of
//! branches so that the dispatch loops autovectorise.

// Coefficients are kept digit-for-digit as published.
#![allow(clippy::excessive_precision)]

const LOG2E: f64 = std::f64::consts::LOG2_E;
/// High part of ln 2 with 32 trailing zero bits (`n * LN2_HI` is exact).
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
/// 1.5 * 2^52: adding it rounds to an integer (ties to even).
const SHIFT: f64 = 6_755_399_441_055_744.0;

/// `2^k` for `k` in the normal exponent range, built from bits.
#[inline(always)]
fn pow2i(k: i64) -> f64 {
    f64::from_bits((k.wrapping_add(1023) as u64).wrapping_shl(52))
}

/// `p * 2^n` with a single rounding, valid for `|n| <= 2044`.
#[inline(always)]
pub(crate) fn scale(p: f64, n: i64) -> f64 {
    let n1 = n >> 1;
    p * pow2i(n1) * pow2i(n.wrapping_sub(n1))
}

/// Polynomial `(e^r - 1 - r) / r^2`. `FULL` selects the degree-11
/// (f64-accurate) or the degree-6 (≈2^-32, enough for `f32` results) variant.
#[inline(always)]
fn expm1_q<const FULL: bool>(r: f64) -> f64 {
    if FULL {
        let mut q: f64 = 1.0 / 6_227_020_800.0; // 1/13!
        q = q.mul_add(r, 1.0 / 479_001_600.0);
        q = q.mul_add(r, 1.0 / 39_916_800.0);
        q = q.mul_add(r, 1.0 / 3_628_800.0);
        q = q.mul_add(r, 1.0 / 362_880.0);
        q = q.mul_add(r, 1.0 / 40_320.0);
        q = q.mul_add(r, 1.0 / 5_040.0);
        q = q.mul_add(r, 1.0 / 720.0);
        q = q.mul_add(r, 1.0 / 120.0);
        q = q.mul_add(r, 1.0 / 24.0);
        q = q.mul_add(r, 1.0 / 6.0);
        q.mul_add(r, 0.5)
    } else {
        let mut q: f64 = 1.0 / 40_320.0;
        q = q.mul_add(r, 1.0 / 5_040.0);
        q = q.mul_add(r, 1.0 / 720.0);
        q = q.mul_add(r, 1.0 / 120.0);
        q = q.mul_add(r, 1.0 / 24.0);
        q = q.mul_add(r, 1.0 / 6.0);
        q.mul_add(r, 0.5)
    }
}

/// Reduction `hi + lo = n ln2 + r`, returns `(e^r - 1, n)`.
/// Requires `hi` clamped to about `[-1500, 1500]` (or NaN).
#[inline(always)]
fn exp_reduce<const FULL: bool>(hi: f64, lo: f64) -> (f64, i64) {
    let kf = hi.mul_add(LOG2E, SHIFT);
    let n = kf - SHIFT;
    let ni = (kf.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
    let r = (-n).mul_add(LN2_HI, hi);
    let r = (-n).mul_add(LN2_LO, r) + lo;
    let em1 = (r * r).mul_add(expm1_q::<FULL>(r), r);
    (em1, ni)
}

/// `e^(hi + lo) = (1 + em1) 2^n`, returned as `(em1, n)`. Arguments below
/// -760 are clamped (the result then underflows even after division by any
/// value >= 1).
#[inline(always)]
pub(crate) fn exp_parts(hi: f64, lo: f64) -> (f64, i64) {
    let (hi, lo) = if hi < -760.0 {
        (-760.0, 0.0)
    } else if hi > 710.0 {
        (710.0, 0.0)
    } else {
        (hi, lo)
    };
    exp_reduce::<true>(hi, lo)
}

/// `e^x` for `f64` (< 1 ulp).
#[inline(always)]
pub(crate) fn exp(x: f64) -> f64 {
    let xc = x.clamp(-746.0, 710.0); // NaN stays NaN
    let (em1, n) = exp_reduce::<true>(xc, 0.0);
    scale(1.0 + em1, n)
}

const LG1: f64 = 6.666_666_666_666_735_130e-1;
const LG2: f64 = 3.999_999_999_940_941_908e-1;
const LG3: f64 = 2.857_142_874_366_239_149e-1;
const LG4: f64 = 2.222_219_843_214_978_396e-1;
const LG5: f64 = 1.818_357_216_161_805_012e-1;
const LG6: f64 = 1.531_383_769_920_937_332e-1;
const LG7: f64 = 1.479_819_860_511_658_591e-1;

/// Natural logarithm for `f64` (fdlibm algorithm, branch-free).
#[inline(always)]
pub(crate) fn ln(x: f64) -> f64 {
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18_014_398_509_481_984.0 } else { x }; // 2^54
    let kadj: i64 = if sub { 54 } else { 0 };
    let ix = xs.to_bits();
    let hx = ((ix >> 32) as u32).wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
    let k = i64::from(hx >> 20) - 0x3ff - kadj;
    let hx = (hx & 0x000f_ffff) + 0x3fe6_a09e;
    let m = f64::from_bits((u64::from(hx) << 32) | (ix & 0xffff_ffff));
    let f = m - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * w.mul_add(w.mul_add(LG6, LG4), LG2);
    let t2 = z * w.mul_add(w.mul_add(w.mul_add(LG7, LG5), LG3), LG1);
    let r = t2 + t1;
    let dk = k as f64;
    let res = s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI;
    if x > 0.0 && x < f64::INFINITY {
        res
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else if x < 0.0 {
        f64::NAN
    } else {
        x // +inf or NaN
    }
}

const TP: [f64; 3] = [
    -9.643_991_794_250_522_386_28e-1,
    -9.928_772_310_019_185_865_64e1,
    -1.614_687_684_417_084_479_52e3,
];
const TQ: [f64; 3] = [
    1.128_116_784_916_329_314_02e2,
    2.235_488_390_601_004_485_83e3,
    4.844_063_053_251_254_860_48e3,
];

/// `tanh(x)`: Cephes rational for `|x| < 0.625`, otherwise `E / (E + 2)`
/// with `E = expm1(2|x|)`.
#[inline(always)]
pub(crate) fn tanh<const FULL: bool>(x: f64) -> f64 {
    let ax = x.abs();
    let y = if ax > 20.0 { 40.0 } else { 2.0 * ax };
    let (em1, n) = exp_reduce::<FULL>(y, 0.0);
    let p2 = pow2i(n);
    // expm1(y) = 2^n (e^r - 1) + (2^n - 1), exact product, one rounding.
    let e = p2.mul_add(em1, p2 - 1.0);
    let big = if ax > 20.0 { 1.0 } else { e / (e + 2.0) };
    // |x| < 0.625: Cephes rational x + x z P(z)/Q(z), z = x^2.
    let z = x * x;
    let p = z.mul_add(TP[0], TP[1]).mul_add(z, TP[2]) * z;
    let q = (z + TQ[0]).mul_add(z, TQ[1]).mul_add(z, TQ[2]);
    let small = x.mul_add(p / q, x);
    // copysign also fixes the sign of zero: tanh(-0) = -0.
    let t = if ax < 0.625 { small } else { big };
    t.copysign(x)
}

/// `x * sigmoid(th + tl)` for a double-f64 argument `th + tl` (|tl| ≪ |th|).
///
/// `e = exp(-|t|) = (1 + em1) 2^n`; for `t >= 0` the result is `x / (1 + e)`,
/// otherwise `x e / (1 + e)` where the power of two is applied last so that
/// results in the subnormal range are rounded only once.
#[inline(always)]
pub(crate) fn x_sigmoid<const FULL: bool>(x: f64, th: f64, tl: f64) -> f64 {
    let neg = th < 0.0;
    let a = -th.abs();
    let alo = if neg { tl } else { -tl };
    // Below -760 even `x e^t` underflows for every |x| < 2^21; larger |x|
    // only occur together with far more negative `t`, so the result is ±0.
    let under = a < -760.0;
    let (a, alo) = if under { (-760.0, 0.0) } else { (a, alo) };
    let (em1, n) = exp_reduce::<FULL>(a, alo);
    // d = 1 + e = (1 + 2^n) + em1 2^n with a single rounding (for n < -100,
    // e is negligible next to 1 and the clamp keeps 2^n a normal number).
    let p2 = pow2i(if n < -100 { -100 } else { n });
    let d = em1.mul_add(p2, 1.0 + p2);
    // x e / d with e = x (1 + em1) 2^n: one rounding for x (1 + em1).
    let num = x.mul_add(em1, x);
    let (qn, qp) = if FULL {
        // One Newton-style correction of both quotients using the exact
        // residuals of d = dh + dl and num = num + nl.
        let s1 = 1.0 + p2;
        let dl = (s1 - d) + em1 * p2;
        let nl = x.mul_add(em1, x - num);
        let qn = num / d;
        let qn = qn + (qn.mul_add(-d, num) + (nl - qn * dl)) / d;
        let qp = x / d;
        let qp = qp + (qp.mul_add(-d, x) - qp * dl) / d;
        (qn, qp)
    } else {
        (num / d, x / d)
    };
    let neg_res = if under { x * 0.0 } else { scale(qn, n) };
    if neg { neg_res } else { qp }
}

/// `sigmoid(x) = 1 / (1 + e^-x)`.
#[inline(always)]
pub(crate) fn sigmoid<const FULL: bool>(x: f64) -> f64 {
    x_sigmoid::<FULL>(1.0, x, 0.0)
}

/// `silu(x) = x * sigmoid(x)`, with `silu(-inf) = -0`.
#[inline(always)]
pub(crate) fn silu<const FULL: bool>(x: f64) -> f64 {
    let r = x_sigmoid::<FULL>(x, x, 0.0);
    if x == f64::NEG_INFINITY { -0.0 } else { r }
}

/// `2 sqrt(2/pi)` as a double-f64.
const GC_HI: f64 = 1.595_769_121_605_730_8;
const GC_LO: f64 = -9.969_308_809_110_92e-17;
/// `2 sqrt(2/pi) * 0.044715` (the f64 nearest to 0.044715) as a double-f64.
const GCA_HI: f64 = 0.071_354_816_272_600_25;
const GCA_LO: f64 = -4.121_857_721_743_182_5e-18;

/// `t = 2 sqrt(2/pi) (x + 0.044715 x^3)` as an unevaluated sum `th + tl`
/// accurate to ~2^-100 relative (needed because `sigmoid(t)` for negative
/// `t` has condition number `|t|`).
#[inline(always)]
pub(crate) fn gelu_arg(x: f64) -> (f64, f64) {
    let x2 = x * x;
    let x2l = x.mul_add(x, -x2);
    let q = GCA_HI * x2;
    let ql = GCA_HI.mul_add(x2, -q) + GCA_HI.mul_add(x2l, GCA_LO * x2);
    let s = GC_HI + q;
    let bb = s - GC_HI;
    let sl = (GC_HI - (s - bb)) + (q - bb) + (GC_LO + ql);
    let th = x * s;
    let tl = x.mul_add(s, -th) + x * sl;
    (th, tl)
}

/// `gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))) = x sigmoid(t)`.
#[inline(always)]
pub(crate) fn gelu<const FULL: bool>(x: f64) -> f64 {
    let (th, tl) = gelu_arg(x);
    let r = x_sigmoid::<FULL>(x, th, tl);
    if x == f64::NEG_INFINITY { -0.0 } else { r }
}
