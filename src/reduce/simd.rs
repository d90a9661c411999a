//! Vector helpers of the reduction kernels: [`dispatch`] (from [`crate::cpu`]) runs a
//! [`Kernel`] compiled for the instruction set the CPU has, and [`fast_exp`] is a
//! vectorisable `exp` for f32.

pub(crate) use crate::cpu::{Kernel, dispatch};

/// `exp(x)` for f32 by range reduction and a degree-6 polynomial (≤ 2 ulp on the normal
/// range; 0 below −87.3, +∞ above 88.7, NaN stays NaN); branch-free so loops over it
/// vectorise. Other float types use their own `exp`.
#[inline(always)]
pub(crate) fn fast_exp<T: crate::Float>(x: T) -> T {
    // f32 is the only 4-byte float type: the conversions are then identities.
    if std::mem::size_of::<T>() == 4 {
        return T::from_f32(exp_f32(x.to_f32()));
    }
    x.exp()
}

#[inline(always)]
fn exp_f32(x: f32) -> f32 {
    // Not `clamp`: this form keeps NaN and vectorises without a libm call.
    #[allow(clippy::manual_clamp)]
    let xc = if x < -87.3 {
        -87.3
    } else if x > 88.7 {
        88.7
    } else {
        x
    };
    let v = exp_core(xc);
    if x < -87.3 {
        0.0
    } else if x > 88.7 {
        f32::INFINITY
    } else if x.is_nan() {
        x
    } else {
        v
    }
}

/// [`exp_f32`] for `x ≤ 0` or `x = −∞` (not NaN): the same bits with the upper clamp
/// and the NaN test left out, two compare-and-selects fewer per element. `logsumexp`
/// and softmax rows call it with `x − max(row)` when the maximum is finite.
#[inline(always)]
pub(crate) fn exp_nonpositive_f32(x: f32) -> f32 {
    debug_assert!(x <= 0.0, "exp_nonpositive_f32 of {x}");
    #[allow(clippy::manual_clamp)]
    let xc = if x < -87.3 { -87.3 } else { x };
    let v = exp_core(xc);
    if x < -87.3 { 0.0 } else { v }
}

/// `exp(xc)` for `xc` in [−87.3, 88.7]: range reduction and the degree-6 polynomial.
#[inline(always)]
fn exp_core(xc: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Round to nearest by the 1.5·2²³ trick (|x·log2 e| < 2²²): no libm call.
    const MAGIC: f32 = 12_582_912.0;
    let t = xc * LOG2E + MAGIC;
    let k = t - MAGIC;
    // The integer k from the same bits (no float-to-int conversion).
    let ki = t.to_bits() as i32 - MAGIC.to_bits() as i32;
    let r = xc - k * LN2_HI - k * LN2_LO;
    let p = 1.987_569_1e-4f32;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 0.166_666_66;
    let p = p * r + 0.5;
    let y = (p * r * r + r) + 1.0;
    let scale = f32::from_bits(((ki + 127) as u32) << 23);
    y * scale
}

#[cfg(test)]
mod tests {
    #[test]
    fn exp_accuracy() {
        let mut worst = 0.0f64;
        let mut x = -87.0f32;
        while x < 88.0 {
            let (got, want) = (super::exp_f32(x) as f64, (x as f64).exp());
            worst = worst.max(((got - want) / want).abs());
            x += 0.0137;
        }
        assert!(worst < 3.0 * f32::EPSILON as f64, "relative error {worst}");
        assert_eq!(super::exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(super::exp_f32(f32::INFINITY), f32::INFINITY);
        assert!(super::exp_f32(f32::NAN).is_nan());
        assert_eq!(super::exp_f32(0.0), 1.0);
    }

    /// The lean variant gives the bits of the full one on every non-positive input
    /// (both clamp sides of −87.3, subnormal results, −0.0, −∞).
    #[test]
    fn exp_nonpositive_matches_exp() {
        let mut xs = vec![
            0.0f32,
            -0.0,
            -87.3,
            -87.29999,
            -87.30001,
            -100.0,
            f32::NEG_INFINITY,
            -f32::MAX,
        ];
        let mut x = -90.0f32;
        while x <= 0.0 {
            xs.push(x);
            x += 0.0731;
        }
        for x in xs {
            let (a, b) = (super::exp_nonpositive_f32(x), super::exp_f32(x));
            assert_eq!(a.to_bits(), b.to_bits(), "exp({x}): {a} vs {b}");
        }
    }
}
