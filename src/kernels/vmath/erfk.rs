//! Branch-free `erf`/`erfc` for `f64`.
//!
//! The rational approximations and interval splitting are those of fdlibm's
//! `s_erf.c` (Copyright (C) 1993 by Sun Microsystems, Inc.; "Permission to
//! use, copy, modify, and distribute this software is freely granted,
//! provided that this notice is preserved."). Instead of branching, the
//! coefficient sets of the intervals that share a formula are selected per
//! lane, so the code autovectorises. The argument may be given as a
//! double-f64 `z + zl`, which `gelu_erf` needs for full accuracy in the tail.

// Coefficients are kept digit-for-digit as published.
#![allow(clippy::excessive_precision)]

use super::f64k::{exp_parts, scale};

const ERX: f64 = 8.450_629_115_104_675_292_97e-1;
// erf on [0, 0.84375]: x + x * P(x^2)/Q(x^2)
const PP: [f64; 7] = [
    1.283_791_670_955_125_585_61e-1,
    -3.250_421_072_470_014_993_70e-1,
    -2.848_174_957_559_851_047_66e-2,
    -5.770_270_296_489_441_591_57e-3,
    -2.376_301_665_665_016_260_84e-5,
    0.0,
    0.0,
];
const QQ: [f64; 6] = [
    3.979_172_239_591_553_528_19e-1,
    6.502_224_998_876_729_444_85e-2,
    5.081_306_281_875_765_627_76e-3,
    1.324_947_380_043_216_445_26e-4,
    -3.960_228_278_775_368_123_20e-6,
    0.0,
];
// erf on [0.84375, 1.25]: erx + P(s)/Q(s), s = |x| - 1
const PA: [f64; 7] = [
    -2.362_118_560_752_659_440_77e-3,
    4.148_561_186_837_483_316_66e-1,
    -3.722_078_760_357_013_238_47e-1,
    3.183_466_199_011_617_536_74e-1,
    -1.108_946_942_823_966_774_76e-1,
    3.547_830_432_561_823_593_71e-2,
    -2.166_375_594_868_790_843_00e-3,
];
const QA: [f64; 6] = [
    1.064_208_804_008_442_282_86e-1,
    5.403_979_177_021_710_489_37e-1,
    7.182_865_441_419_626_628_68e-2,
    1.261_712_198_087_616_421_12e-1,
    1.363_708_391_202_905_073_62e-2,
    1.198_449_984_679_910_741_70e-2,
];
// erfc on [1.25, 1/0.35]: exp(-x^2 - 0.5625 + R(s)/S(s)) / x, s = 1/x^2
const RA: [f64; 8] = [
    -9.864_944_034_847_148_227_05e-3,
    -6.938_585_727_071_817_643_72e-1,
    -1.055_862_622_532_329_098_14e1,
    -6.237_533_245_032_600_603_96e1,
    -1.623_966_694_625_734_703_55e2,
    -1.846_050_929_067_110_359_94e2,
    -8.128_743_550_630_659_342_46e1,
    -9.814_329_344_169_145_485_92,
];
const SA: [f64; 8] = [
    1.965_127_166_743_925_712_92e1,
    1.376_577_541_435_190_426_00e2,
    4.345_658_774_752_292_288_21e2,
    6.453_872_717_332_678_803_36e2,
    4.290_081_400_275_678_333_86e2,
    1.086_350_055_417_794_351_34e2,
    6.570_249_770_319_281_701_35,
    -6.042_441_521_485_809_874_38e-2,
];
// erfc on [1/0.35, 28]
const RB: [f64; 8] = [
    -9.864_942_924_700_099_285_97e-3,
    -7.992_832_376_805_230_065_74e-1,
    -1.775_795_491_775_475_198_89e1,
    -1.606_363_848_558_219_160_62e2,
    -6.375_664_433_683_896_277_22e2,
    -1.025_095_131_611_077_249_54e3,
    -4.835_191_916_086_513_970_19e2,
    0.0,
];
const SB: [f64; 8] = [
    3.033_806_074_348_245_829_24e1,
    3.257_925_129_965_739_188_26e2,
    1.536_729_586_084_436_959_94e3,
    3.199_858_219_508_595_539_08e3,
    2.553_050_406_433_164_425_83e3,
    4.745_285_412_069_553_672_15e2,
    -2.244_095_244_658_581_833_62e1,
    0.0,
];

const RS2_HI: f64 = std::f64::consts::FRAC_1_SQRT_2;
const RS2_LO: f64 = -4.833_646_656_726_457e-17;

#[inline(always)]
fn sel(c: bool, a: f64, b: f64) -> f64 {
    if c { a } else { b }
}

/// Returns `(erf(z + zl), erfc(z + zl), g)`, NaN-propagating, where for
/// `|z| >= 1.25` `g = |z| erfc(|z|) / sqrt 2 = exp(-z^2 - 0.5625 + R/S) / sqrt 2`
/// (rounded once), which `gelu_erf` uses to avoid a division.
#[inline(always)]
pub(crate) fn erf_erfc(z: f64, zl: f64) -> (f64, f64, f64) {
    let ax = z.abs();
    let axl = if z < 0.0 { -zl } else { zl };
    let neg = z < 0.0;

    // Intervals A ([0, 0.84375)) and B ([0.84375, 1.25)) share one rational
    // evaluation with per-lane coefficients.
    let in_a = ax < 0.843_75;
    let t = if in_a { z * z } else { (ax - 1.0) + axl };
    let mut num = sel(in_a, PP[6], PA[6]);
    for k in (0..6).rev() {
        num = num.mul_add(t, sel(in_a, PP[k], PA[k]));
    }
    let mut den = sel(in_a, QQ[5], QA[5]);
    for k in (0..5).rev() {
        den = den.mul_add(t, sel(in_a, QQ[k], QA[k]));
    }
    let den = den.mul_add(t, 1.0);
    let y = num / den;
    // A: erf = z + z*y (+ zl correction); erfc per fdlibm.
    let erf_a = z + z.mul_add(y, zl);
    let erfc_a = if z < 0.25 {
        1.0 - erf_a
    } else {
        0.5 - ((z - 0.5) + z.mul_add(y, zl))
    };
    // B: erf = ±(erx + y), erfc = (1 - erx) - y or 1 + (erx + y).
    let erf_b = (ERX + y).copysign(z);
    let erfc_b = if neg { 1.0 + (ERX + y) } else { (1.0 - ERX) - y };

    // Interval C (|z| >= 1.25): erfc = exp(-z^2 - 0.5625 + R/S) / |z|.
    let in_ra = ax < f64::from_bits(0x4006_db6d_0000_0000);
    let inv = 1.0 / ax;
    let s = inv * inv;
    let mut r = sel(in_ra, RA[7], RB[7]);
    for k in (0..7).rev() {
        r = r.mul_add(s, sel(in_ra, RA[k], RB[k]));
    }
    let mut ss = sel(in_ra, SA[7], SB[7]);
    for k in (0..7).rev() {
        ss = ss.mul_add(s, sel(in_ra, SA[k], SB[k]));
    }
    let ss = ss.mul_add(s, 1.0);
    // -(ax + axl)^2 - 0.5625 + R/S as a double-f64 (eh, el); exact
    // Fast2Sum steps since |h| >= 1.5625 > |R/S|.
    let h = ax * ax;
    let hl = ax.mul_add(ax, -h) + 2.0 * ax * axl;
    let t1 = -h - 0.5625;
    let e1 = (-h - t1) - 0.5625;
    let rs = r / ss;
    let eh = t1 + rs;
    let e2 = (t1 - eh) + rs;
    let el = (e1 + e2) - hl;
    let (em1, n) = exp_parts(eh, el);
    let tail = scale((1.0 + em1) / ax, n);
    let g = scale(RS2_HI.mul_add(em1, RS2_HI + RS2_LO), n);
    let erf_c = (1.0 - tail).copysign(z);
    let erfc_c = if neg { 2.0 - tail } else { tail };

    let (erf, erfc) = if in_a {
        (erf_a, erfc_a)
    } else if ax < 1.25 {
        (erf_b, erfc_b)
    } else {
        (erf_c, erfc_c)
    };
    if z.is_nan() { (z, z, z) } else { (erf, erfc, g) }
}

/// `erf(x)` for `f64`.
#[inline(always)]
pub(crate) fn erf(x: f64) -> f64 {
    // erf is odd; copysign gives erf(-0) = -0 (NaN stays NaN).
    erf_erfc(x, 0.0).0.copysign(x)
}

/// `gelu_erf(x) = 0.5 x erfc(-x / sqrt 2)`, with `-x/sqrt 2` as a double-f64.
///
/// In the tail interval (`|x| / sqrt 2 >= 1.25`) the factor `x / |z|` cancels
/// exactly: `gelu_erf(x) = -g` for `x < 0` and `x - g` for `x > 0`.
#[inline(always)]
pub(crate) fn gelu_erf(x: f64) -> f64 {
    let ph = x * RS2_HI;
    let pl = x.mul_add(RS2_HI, -ph) + x * RS2_LO;
    let (_, c, g) = erf_erfc(-ph, -pl);
    let r = if ph.abs() >= 1.25 {
        if x < 0.0 { -g } else { x - g }
    } else {
        (0.5 * x) * c
    };
    if x == f64::NEG_INFINITY { -0.0 } else { r }
}
