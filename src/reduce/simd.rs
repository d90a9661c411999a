//! Runtime CPU-feature dispatch for the reduction kernels.
//!
//! The build targets baseline x86-64 (SSE2). [`dispatch`] runs a [`Kernel`] inside a
//! function compiled for AVX-512 or AVX2+FMA when the CPU has them, so the loops inlined
//! into it are vectorised for the wider registers; elsewhere (other CPUs, aarch64, Miri)
//! the kernel runs as portable code. [`fast_exp`] is a vectorisable `exp` for f32.

#[cfg(target_arch = "x86_64")]
use std::sync::atomic::{AtomicU8, Ordering};

#[cfg(target_arch = "x86_64")]
static LEVEL: AtomicU8 = AtomicU8::new(u8::MAX);

/// 2: AVX-512 (F, VL, BW, DQ), 1: AVX2 + FMA, 0: baseline.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn level() -> u8 {
    if cfg!(miri) {
        return 0;
    }
    let l = LEVEL.load(Ordering::Relaxed);
    if l != u8::MAX {
        return l;
    }
    let l = if is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512dq")
    {
        2
    } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        1
    } else {
        0
    };
    LEVEL.store(l, Ordering::Relaxed);
    l
}

/// A loop body to run compiled for the widest vector unit ([`dispatch`]).
///
/// `call` must be `#[inline(always)]` and everything it calls inlinable, so that the
/// body is compiled inside the feature-enabled wrappers. A closure does not work for
/// this: called from the three wrappers, LLVM keeps its body out of line, compiled for
/// the baseline (SSE2) only.
pub(crate) trait Kernel {
    /// The result.
    type Out;
    /// Runs the body.
    fn call(self) -> Self::Out;
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
fn run_avx512<K: Kernel>(k: K) -> K::Out {
    k.call()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2<K: Kernel>(k: K) -> K::Out {
    k.call()
}

/// Runs kernel `k` compiled for the widest vector unit available (the portable code
/// elsewhere, and always under Miri).
#[inline(always)]
pub(crate) fn dispatch<K: Kernel>(k: K) -> K::Out {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    match level() {
        // SAFETY: the CPU supports the features these functions are compiled for
        // (checked by `level`).
        2 => return unsafe { run_avx512(k) },
        // SAFETY: as above.
        1 => return unsafe { run_avx2(k) },
        _ => {}
    }
    k.call()
}

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
