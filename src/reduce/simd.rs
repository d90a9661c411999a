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
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Round to nearest by the 1.5·2²³ trick (|x·log2 e| < 2²²): no libm call.
    const MAGIC: f32 = 12_582_912.0;
    // Not `clamp`: this form keeps NaN and vectorises without a libm call.
    #[allow(clippy::manual_clamp)]
    let xc = if x < -87.3 {
        -87.3
    } else if x > 88.7 {
        88.7
    } else {
        x
    };
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
    let v = y * scale;
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
}
