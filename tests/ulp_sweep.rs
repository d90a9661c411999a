//! ULP sweeps of the f32 unary functions that do not come from `vmath` (whose own
//! sweeps live in `kernels::vmath`): every 257th (release) or 4099th (debug) bit pattern of the finite f32 values
//! in each function's domain, through the tensor method, against the f64 evaluation
//! rounded to f32. The measured maxima are printed (`--nocapture`) and asserted.

use ferrotensor::prelude::*;

fn ulp_diff(a: f32, b: f32) -> u32 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() || a.is_sign_negative() != b.is_sign_negative() {
        return u32::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

/// Every 257th finite f32 in `[lo, hi]` (every 4099th in unoptimised builds).
fn sample(lo: f32, hi: f32) -> Vec<f32> {
    (0..u32::MAX)
        .step_by(if cfg!(debug_assertions) { 4099 } else { 257 })
        .map(f32::from_bits)
        .filter(|x| x.is_finite() && *x >= lo && *x <= hi)
        .collect()
}

type Case = (
    &'static str,
    f32,
    f32,
    fn(&Tensor<f32>) -> Tensor<f32>,
    fn(f64) -> f64,
    u32,
);

#[test]
fn f32_functions_beyond_vmath_stay_within_their_ulp_bounds() {
    let cases: &[Case] = &[
        ("exp2", -150.0, 128.0, |t| t.exp2(), f64::exp2, 2),
        ("expm1", -100.0, 88.0, |t| t.expm1(), f64::exp_m1, 2),
        ("log2", 0.0, f32::MAX, |t| t.log2(), f64::log2, 2),
        ("log10", 0.0, f32::MAX, |t| t.log10(), f64::log10, 2),
        ("log1p", -1.0, f32::MAX, |t| t.log1p(), f64::ln_1p, 2),
        ("sin", -1e4, 1e4, |t| t.sin(), f64::sin, 2),
        ("cos", -1e4, 1e4, |t| t.cos(), f64::cos, 2),
        ("tan", -1e4, 1e4, |t| t.tan(), f64::tan, 2),
        ("asin", -1.0, 1.0, |t| t.asin(), f64::asin, 2),
        ("acos", -1.0, 1.0, |t| t.acos(), f64::acos, 2),
        ("atan", f32::MIN, f32::MAX, |t| t.atan(), f64::atan, 2),
        ("sinh", -89.0, 89.0, |t| t.sinh(), f64::sinh, 2),
        ("cosh", -89.0, 89.0, |t| t.cosh(), f64::cosh, 2),
        ("asinh", f32::MIN, f32::MAX, |t| t.asinh(), libm::asinh, 2),
        ("acosh", 1.0, f32::MAX, |t| t.acosh(), libm::acosh, 2),
        ("atanh", -1.0, 1.0, |t| t.atanh(), libm::atanh, 2),
        ("sqrt", 0.0, f32::MAX, |t| t.sqrt(), f64::sqrt, 0),
        ("cbrt", f32::MIN, f32::MAX, |t| t.cbrt(), f64::cbrt, 2),
        ("recip", f32::MIN, f32::MAX, |t| t.recip(), |x| 1.0 / x, 0),
        (
            "softplus",
            -100.0,
            1e30,
            |t| t.softplus(),
            |x| x.max(0.0) + (-x.abs()).exp().ln_1p(),
            2,
        ),
    ];
    for &(name, lo, hi, f, reference, bound) in cases {
        let xs = sample(lo, hi);
        assert!(xs.len() > 200_000, "{name}: too few samples");
        let t = Tensor::from_vec(xs.clone(), vec![xs.len()]).unwrap();
        let got = f(&t).to_vec();
        let (mut worst, mut at) = (0u32, 0.0f32);
        for (&x, &g) in xs.iter().zip(&got) {
            let d = ulp_diff(g, reference(x as f64) as f32);
            if d > worst {
                (worst, at) = (d, x);
            }
        }
        println!(
            "{name:>8}: max {worst} ulp (at {at:e}) over {} samples",
            xs.len()
        );
        assert!(
            worst <= bound,
            "{name}: {worst} ulp at {at:e} exceeds {bound}"
        );
    }
}
