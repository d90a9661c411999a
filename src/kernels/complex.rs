//! Scalar complex functions with the special cases of C99 Annex G (the ones the Python
//! array API standard lists: signed zeros, infinities and NaNs in either part), without
//! undue overflow for large arguments. The inverse functions use Kahan's formulas
//! ("Branch cuts for complex elementary functions", 1987), whose signed zeros put every
//! branch cut on the right side.
//!
//! ```
//! use ferrotensor::kernels::complex as c;
//! use num_complex::Complex;
//! let z = c::exp(Complex::new(0.0f64, std::f64::consts::PI));
//! assert!((z.re + 1.0).abs() < 1e-15 && z.im.abs() < 1e-15);
//! let l = c::ln(Complex::new(-0.0f64, 0.0));
//! assert_eq!((l.re, l.im), (f64::NEG_INFINITY, std::f64::consts::PI));
//! assert_eq!(c::sqrt(Complex::new(-4.0f64, 0.0)), Complex::new(0.0, 2.0));
//! ```

use crate::element::Float;
use num_complex::Complex;

type C<F> = Complex<F>;

#[inline(always)]
fn k<F: Float>(x: f64) -> F {
    F::from_f64(x)
}

#[inline(always)]
fn c<F: Float>(re: F, im: F) -> C<F> {
    Complex::new(re, im)
}

/// `i·z`.
#[inline(always)]
fn mul_i<F: Float>(z: C<F>) -> C<F> {
    c(-z.im, z.re)
}

/// `-i·z`.
#[inline(always)]
fn mul_neg_i<F: Float>(z: C<F>) -> C<F> {
    c(z.im, -z.re)
}

/// `ln` of the largest finite value: beyond it `exp` overflows.
#[inline(always)]
fn ln_max<F: Float>() -> F {
    F::max_value().ln()
}

/// `e^x` as `(m, s)` with `e^x = m · s · s`, finite for every `x` whose `e^x` would
/// overflow while `e^x · t` (for some `|t| ≤ 1`) need not.
#[inline(always)]
fn exp_split<F: Float>(x: F) -> (F, F) {
    if x > ln_max::<F>() {
        let h = (x * k(0.5)).exp();
        (F::one(), h)
    } else {
        (x.exp(), F::one())
    }
}

/// `e^z`.
pub fn exp<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    if y == F::zero() {
        return c(x.exp(), y);
    }
    if x == F::zero() {
        return c(y.cos(), y.sin());
    }
    if !y.is_finite() {
        if x.is_finite() {
            return c(F::nan(), F::nan());
        }
        if x == F::infinity() {
            return c(x, F::nan());
        }
        if x == F::neg_infinity() {
            return c(F::zero(), F::zero());
        }
        return c(F::nan(), F::nan());
    }
    let (m, s) = exp_split(x);
    let (sn, cs) = y.sin_cos();
    c(m * cs * s * s, m * sn * s * s)
}

/// `e^z − 1`, accurate for small `|z|`.
pub fn expm1<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    if y == F::zero() {
        // expm1(±0 + 0i) = +0 + 0i (the real function keeps −0)
        return c(if x == F::zero() { F::zero() } else { x.exp_m1() }, y);
    }
    if x.is_infinite() && !y.is_finite() {
        return if x > F::zero() {
            c(x, F::nan())
        } else {
            c(-F::one(), F::zero())
        };
    }
    if x > ln_max::<F>() || x.is_nan() || !y.is_finite() {
        let e = exp(z);
        return c(e.re - F::one(), e.im);
    }
    // e^x cos y − 1 = expm1(x)·cos y − 2 sin²(y/2)
    let (sn, cs) = y.sin_cos();
    let h = (y * k(0.5)).sin();
    c(x.exp_m1() * cs - k::<F>(2.0) * h * h, x.exp() * sn)
}

/// The principal natural logarithm (imaginary part in `(-π, π]`).
pub fn ln<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    let im = y.atan2(x);
    let (ax, ay) = (x.abs(), y.abs());
    let (big, small) = if ax >= ay { (ax, ay) } else { (ay, ax) };
    // near |z| = 1, ln|z| = ½ ln1p((big − 1)(big + 1) + small²) keeps its digits
    let re = if big.is_finite() && big > k(0.5) && big < k(1.5) && small < k(0.8) {
        k::<F>(0.5) * ((big - F::one()) * (big + F::one()) + small * small).ln_1p()
    } else {
        x.hypot(y).ln()
    };
    c(re, im)
}

/// `ln(1 + z)`, accurate for small `|z|`.
pub fn ln_1p<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    let limit = F::epsilon().sqrt().recip();
    if !(x.abs() < limit && y.abs() < limit) {
        return ln(c(F::one() + x, y));
    }
    // |1 + z|² − 1 = x(2 + x) + y²
    c(
        k::<F>(0.5) * (x * (k::<F>(2.0) + x) + y * y).ln_1p(),
        y.atan2(F::one() + x),
    )
}

/// `log₂ z`.
pub fn log2<F: Float>(z: C<F>) -> C<F> {
    let l = ln(z);
    let s = k::<F>(std::f64::consts::LOG2_E);
    c(l.re * s, l.im * s)
}

/// `log₁₀ z`.
pub fn log10<F: Float>(z: C<F>) -> C<F> {
    let l = ln(z);
    let s = k::<F>(std::f64::consts::LOG10_E);
    c(l.re * s, l.im * s)
}

/// The principal square root (real part ≥ 0; the imaginary part has `z.im`'s sign).
pub fn sqrt<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    if x == F::zero() && y == F::zero() {
        return c(F::zero(), y);
    }
    if y.is_infinite() {
        return c(F::infinity(), y);
    }
    if x.is_nan() {
        return c(F::nan(), F::nan());
    }
    if x.is_infinite() {
        return if x < F::zero() {
            // √(−∞ + iy) = 0 + i∞·sign(y); NaN real part when y is NaN
            c(if y.is_nan() { F::nan() } else { F::zero() }, F::infinity().copysign(y))
        } else {
            c(x, if y.is_nan() { y } else { F::zero().copysign(y) })
        };
    }
    if y.is_nan() {
        return c(F::nan(), F::nan());
    }
    // scale away from overflow (large) and from the subnormals' lost bits (tiny)
    let big = F::max_value() * k(0.25);
    let tiny = F::min_positive_value() * k(4.0) / F::epsilon();
    let (x, y, scale) = if x.abs() > big || y.abs() > big {
        (x * k(0.25), y * k(0.25), k::<F>(2.0))
    } else if x.abs() < tiny && y.abs() < tiny {
        let s = F::epsilon().recip();
        (x * s * s, y * s * s, F::epsilon())
    } else {
        (x, y, F::one())
    };
    let t = ((x.abs() + x.hypot(y)) * k(0.5)).sqrt();
    let (re, im) = if x >= F::zero() {
        (t, y / (t + t))
    } else {
        (y.abs() / (t + t), t.copysign(y))
    };
    c(re * scale, im * scale)
}

/// `cosh` and `sinh` of a finite real `x`, scaled as in [`exp_split`] for large `|x|`:
/// `(ch, sh, s)` with `cosh x = ch·s·s`, `sinh x = sh·s·s`.
fn cosh_sinh<F: Float>(x: F) -> (F, F, F) {
    if x.abs() > ln_max::<F>() - k(1.0) {
        let (m, s) = exp_split(x.abs());
        let h = m * k(0.5);
        (h, h.copysign(x), s)
    } else {
        (x.cosh(), x.sinh(), F::one())
    }
}

/// Hyperbolic sine.
pub fn sinh<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    if x.is_finite() && y.is_finite() {
        if y == F::zero() {
            return c(x.sinh(), y);
        }
        let (ch, sh, s) = cosh_sinh(x);
        let (sn, cs) = y.sin_cos();
        return c(sh * cs * s * s, ch * sn * s * s);
    }
    if x == F::zero() {
        return c(x, F::nan());
    }
    if y == F::zero() {
        return c(x, y);
    }
    if x.is_finite() {
        return c(F::nan(), F::nan());
    }
    if x.is_infinite() {
        if !y.is_finite() {
            return c(x, F::nan());
        }
        let (sn, cs) = y.sin_cos();
        return c(x * cs, F::infinity() * sn);
    }
    c(F::nan(), F::nan())
}

/// Hyperbolic cosine.
pub fn cosh<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    if x.is_finite() && y.is_finite() {
        if y == F::zero() {
            return c(x.cosh(), x * y);
        }
        let (ch, sh, s) = cosh_sinh(x);
        let (sn, cs) = y.sin_cos();
        return c(ch * cs * s * s, sh * sn * s * s);
    }
    if x == F::zero() {
        return c(F::nan(), F::zero());
    }
    if y == F::zero() {
        return c(x * x, F::zero().copysign(x) * y);
    }
    if x.is_finite() {
        return c(F::nan(), F::nan());
    }
    if x.is_infinite() {
        if !y.is_finite() {
            return c(F::infinity(), F::nan());
        }
        let (sn, cs) = y.sin_cos();
        return c(F::infinity() * cs, x * sn);
    }
    c(F::nan(), F::nan())
}

/// Hyperbolic tangent.
pub fn tanh<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    if x.is_nan() {
        return c(x, if y == F::zero() { y } else { F::nan() });
    }
    if x.is_infinite() {
        // the array API standard fixes `1 + 0j` for `+inf + iy`, y > 0 (C99 Annex G
        // has `0·sin 2y`, whose sign varies with y): the sign of y, conjugate-symmetric
        let im = if y.is_infinite() {
            F::zero()
        } else {
            F::zero().copysign(y)
        };
        return c(F::one().copysign(x), im);
    }
    if !y.is_finite() {
        return c(if x == F::zero() { x } else { F::nan() }, F::nan());
    }
    // beyond |x| = 22 (f64), tanh x rounds to ±1
    if x.abs() > k(22.0) {
        let e = (-x.abs()).exp();
        return c(F::one().copysign(x), k::<F>(4.0) * y.sin() * y.cos() * e * e);
    }
    let t = y.tan();
    let beta = F::one() + t * t;
    let s = x.sinh();
    let rho = (F::one() + s * s).sqrt();
    let den = F::one() + beta * s * s;
    c(beta * rho * s / den, t / den)
}

/// Sine (`−i·sinh(i·z)`).
pub fn sin<F: Float>(z: C<F>) -> C<F> {
    mul_neg_i(sinh(mul_i(z)))
}

/// Cosine (`cosh(i·z)`).
pub fn cos<F: Float>(z: C<F>) -> C<F> {
    cosh(mul_i(z))
}

/// Tangent (`−i·tanh(i·z)`).
pub fn tan<F: Float>(z: C<F>) -> C<F> {
    mul_neg_i(tanh(mul_i(z)))
}

/// Real `asinh`, accurate near 0 and for large arguments.
fn asinh_r<F: Float>(x: F) -> F {
    let a = x.abs();
    let r = if a > F::epsilon().sqrt().recip() {
        a.ln() + k(std::f64::consts::LN_2)
    } else {
        (a + a * a / (F::one() + (F::one() + a * a).sqrt())).ln_1p()
    };
    r.copysign(x)
}

/// Whether either part is NaN or infinite.
#[inline(always)]
fn non_finite<F: Float>(z: C<F>) -> bool {
    !z.re.is_finite() || !z.im.is_finite()
}

/// Inverse sine, principal branch (real part in `[−π/2, π/2]`).
pub fn asin<F: Float>(z: C<F>) -> C<F> {
    if non_finite(z) {
        return mul_neg_i(asinh(mul_i(z)));
    }
    let (s1m, s1p) = (sqrt(c(F::one() - z.re, -z.im)), sqrt(c(F::one() + z.re, z.im)));
    // Kahan: asin z = atan(x / Re(√(1−z)√(1+z))) + i·asinh(Im(conj(√(1−z))·√(1+z)))
    let re = z.re.atan2(s1m.re * s1p.re - s1m.im * s1p.im);
    let im = asinh_r(s1m.re * s1p.im - s1m.im * s1p.re);
    c(re, im)
}

/// Inverse cosine, principal branch (real part in `[0, π]`).
pub fn acos<F: Float>(z: C<F>) -> C<F> {
    if non_finite(z) {
        let s = asin(z);
        return c(k::<F>(std::f64::consts::FRAC_PI_2) - s.re, -s.im);
    }
    let (s1m, s1p) = (sqrt(c(F::one() - z.re, -z.im)), sqrt(c(F::one() + z.re, z.im)));
    // Kahan: acos z = 2·atan(Re √(1−z) / Re √(1+z)) + i·asinh(Im(conj(√(1+z))·√(1−z)))
    let re = k::<F>(2.0) * s1m.re.atan2(s1p.re);
    let im = asinh_r(s1p.re * s1m.im - s1p.im * s1m.re);
    c(re, im)
}

/// Inverse tangent (`−i·atanh(i·z)`).
pub fn atan<F: Float>(z: C<F>) -> C<F> {
    mul_neg_i(atanh(mul_i(z)))
}

/// Inverse hyperbolic sine.
pub fn asinh<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    if x.is_nan() || y.is_nan() {
        if x.is_infinite() {
            return c(x, F::nan());
        }
        if y.is_infinite() {
            return c(F::infinity(), F::nan());
        }
        if y == F::zero() {
            return c(F::nan(), y);
        }
        return c(F::nan(), F::nan());
    }
    if x.is_infinite() || y.is_infinite() {
        return c(F::infinity().copysign(x), y.atan2(x.abs()));
    }
    // asinh z = −i·asin(i·z)
    mul_neg_i(asin(mul_i(z)))
}

/// Inverse hyperbolic cosine (real part ≥ 0).
pub fn acosh<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    if x.is_nan() || y.is_nan() {
        if x.is_infinite() || y.is_infinite() {
            return c(F::infinity(), F::nan());
        }
        if x == F::zero() {
            return c(F::nan(), k(std::f64::consts::FRAC_PI_2));
        }
        return c(F::nan(), F::nan());
    }
    if x.is_infinite() || y.is_infinite() {
        return c(F::infinity(), y.atan2(x));
    }
    let (s1m, s1p) = (sqrt(c(x - F::one(), y)), sqrt(c(x + F::one(), y)));
    // Kahan: acosh z = asinh(Re(conj(√(z−1))·√(z+1))) + 2i·atan(Im √(z−1) / Re √(z+1))
    let re = asinh_r(s1m.re * s1p.re + s1m.im * s1p.im);
    let im = k::<F>(2.0) * s1m.im.atan2(s1p.re);
    c(re, im)
}

/// Inverse hyperbolic tangent.
pub fn atanh<F: Float>(z: C<F>) -> C<F> {
    let (x, y) = (z.re, z.im);
    let half_pi = k::<F>(std::f64::consts::FRAC_PI_2);
    if x.is_nan() {
        return if y.is_infinite() {
            c(F::zero(), half_pi.copysign(y))
        } else {
            c(F::nan(), F::nan())
        };
    }
    if y.is_nan() {
        return if x.is_infinite() || x == F::zero() {
            c(F::zero().copysign(x), y)
        } else {
            c(F::nan(), F::nan())
        };
    }
    if x.is_infinite() || y.is_infinite() {
        return c(F::zero().copysign(x), half_pi.copysign(y));
    }
    let (a, b) = (x.abs(), y.abs());
    if a == F::one() && b == F::zero() {
        return c(F::infinity().copysign(x), y);
    }
    let big = F::max_value().sqrt() * k(0.25);
    let (re, im) = if a > big || b > big {
        // atanh z ≈ 1/z for huge |z|: Re = a/|z|², Im = ±π/2
        let h = a.hypot(b);
        ((a / h) / h, half_pi)
    } else {
        let d = (F::one() - a) * (F::one() - a) + b * b;
        let re = k::<F>(0.25) * (k::<F>(4.0) * a / d).ln_1p();
        let im = k::<F>(0.5) * (b + b).atan2((F::one() - a) * (F::one() + a) - b * b);
        (re, im)
    };
    c(re.copysign(x), im.copysign(y))
}

/// `z / |z|` (0 for 0; NaN if either part is NaN).
pub fn sign<F: Float>(z: C<F>) -> C<F> {
    if z.re.is_nan() || z.im.is_nan() {
        return c(F::nan(), F::nan());
    }
    if z.re == F::zero() && z.im == F::zero() {
        return c(F::zero(), F::zero());
    }
    let h = z.re.hypot(z.im);
    c(z.re / h, z.im / h)
}

/// Both parts rounded to the nearest integer, half to even.
pub fn round<F: Float>(z: C<F>) -> C<F> {
    fn r<F: Float>(x: F) -> F {
        let f = x.round();
        // ties went away from zero: step back to the even neighbour
        if (f - x).abs() == k(0.5) && (f * k(0.5)).fract() != F::zero() {
            f - (f - x) * k(2.0)
        } else {
            f
        }
    }
    c(r(z.re), r(z.im))
}

/// `a / b` by Smith's algorithm (no overflow of `|b|²`), with C99's recovery of
/// infinities and zeros that the plain formula turns into NaN.
pub fn div<F: Float>(a: C<F>, b: C<F>) -> C<F> {
    let (ar, ai, br, bi) = (a.re, a.im, b.re, b.im);
    let (mut re, mut im) = if br.abs() >= bi.abs() {
        if br == F::zero() && bi == F::zero() {
            (ar / br.abs(), ai / br.abs())
        } else {
            let r = bi / br;
            let d = br + bi * r;
            if r == F::zero() {
                // avoid r·(small) underflowing first
                ((ar + bi * (ai / br)) / d, (ai - bi * (ar / br)) / d)
            } else {
                ((ar + ai * r) / d, (ai - ar * r) / d)
            }
        }
    } else {
        let r = br / bi;
        let d = bi + br * r;
        ((ar * r + ai) / d, (ai * r - ar) / d)
    };
    if re.is_nan() && im.is_nan() {
        // C99 G.5.1: infinite / finite, finite / infinite, nonzero / zero
        if br == F::zero() && bi == F::zero() && (!ar.is_nan() || !ai.is_nan()) {
            re = F::infinity().copysign(br) * ar;
            im = F::infinity().copysign(br) * ai;
        } else if (ar.is_infinite() || ai.is_infinite()) && br.is_finite() && bi.is_finite() {
            let (x, y) = (box_inf(ar), box_inf(ai));
            re = F::infinity() * (x * br + y * bi);
            im = F::infinity() * (y * br - x * bi);
        } else if (br.is_infinite() || bi.is_infinite()) && ar.is_finite() && ai.is_finite() {
            let (x, y) = (box_inf(br), box_inf(bi));
            re = F::zero() * (ar * x + ai * y);
            im = F::zero() * (ai * x - ar * y);
        }
    }
    c(re, im)
}

/// ±1 for an infinity, ±0 for a finite value (C99's "box" of an infinite part).
#[inline(always)]
fn box_inf<F: Float>(x: F) -> F {
    if x.is_infinite() {
        F::one().copysign(x)
    } else {
        F::zero().copysign(x)
    }
}

/// `1 / z`.
pub fn recip<F: Float>(z: C<F>) -> C<F> {
    div(c(F::one(), F::zero()), z)
}

/// `a^b = exp(b·ln a)`, with `a^0 = 1` and `0^b = 0` for `Re b > 0` (as Python's `**`).
pub fn pow<F: Float>(a: C<F>, b: C<F>) -> C<F> {
    if b.re == F::zero() && b.im == F::zero() {
        return c(F::one(), F::zero());
    }
    if a.re == F::zero() && a.im == F::zero() && b.im == F::zero() && b.re > F::zero() {
        return c(F::zero(), F::zero());
    }
    if b.im == F::zero() && b.re.fract() == F::zero() && b.re.abs() <= k(64.0) && a.re.is_finite() && a.im.is_finite() {
        // small integer powers by repeated squaring: exact for Gaussian integers
        let mut n = b.re.abs().to_u32().unwrap_or(0);
        let (mut base, mut acc) = (a, c(F::one(), F::zero()));
        while n > 0 {
            if n & 1 == 1 {
                acc = acc * base;
            }
            base = base * base;
            n >>= 1;
        }
        return if b.re < F::zero() { recip(acc) } else { acc };
    }
    exp(b * ln(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

    const INF: f64 = f64::INFINITY;
    const NAN: f64 = f64::NAN;

    fn cz(re: f64, im: f64) -> C<f64> {
        Complex::new(re, im)
    }

    fn same(a: C<f64>, re: f64, im: f64) -> bool {
        let eq =
            |x: f64, y: f64| (x.is_nan() && y.is_nan()) || (x == y && x.is_sign_negative() == y.is_sign_negative());
        eq(a.re, re) && eq(a.im, im)
    }

    fn close(a: C<f64>, b: C<f64>) -> bool {
        (a - b).norm() <= 1e-13 * (1.0 + b.norm())
    }

    #[test]
    fn special_cases_of_the_standard() {
        assert!(same(exp(cz(0.0, 0.0)), 1.0, 0.0));
        assert!(same(exp(cz(INF, 0.0)), INF, 0.0));
        assert!(same(exp(cz(-INF, 1.0)), 0.0 * 1f64.cos(), 0.0 * 1f64.sin()));
        assert!(same(exp(cz(NAN, 0.0)), NAN, 0.0));
        assert!(exp(cz(INF, INF)).re.is_infinite() && exp(cz(INF, INF)).im.is_nan());
        assert!(same(ln(cz(-0.0, 0.0)), -INF, PI));
        assert!(same(ln(cz(-INF, INF)), INF, 3.0 * FRAC_PI_4));
        assert!(same(ln(cz(NAN, INF)), INF, NAN));
        assert!(same(sqrt(cz(-INF, 2.0)), 0.0, INF));
        assert!(same(sqrt(cz(NAN, INF)), INF, INF));
        assert!(same(sqrt(cz(INF, NAN)), INF, NAN));
        assert!(same(cosh(cz(0.0, 0.0)), 1.0, 0.0));
        assert!(same(sinh(cz(INF, 0.0)), INF, 0.0));
        assert!(same(tanh(cz(INF, 3.0)), 1.0, 0.0));
        assert!(same(tanh(cz(-INF, -3.0)), -1.0, -0.0));
        assert!(same(tanh(cz(0.0, NAN)), 0.0, NAN));
        assert!(same(acos(cz(0.0, 0.0)), FRAC_PI_2, -0.0));
        assert!(same(acos(cz(NAN, INF)), NAN, -INF));
        assert!(same(acos(cz(-INF, 1.0)), PI, -INF));
        assert!(same(acosh(cz(0.0, 0.0)), 0.0, FRAC_PI_2));
        assert!(same(acosh(cz(-INF, INF)), INF, 3.0 * FRAC_PI_4));
        assert!(same(asinh(cz(INF, INF)), INF, FRAC_PI_4));
        assert!(same(atanh(cz(1.0, 0.0)), INF, 0.0));
        assert!(same(atanh(cz(NAN, INF)), 0.0, FRAC_PI_2));
        assert!(same(ln_1p(cz(-1.0, 0.0)), -INF, 0.0));
        assert!(same(expm1(cz(-INF, INF)), -1.0, 0.0));
        assert!(same(sign(cz(0.0, -0.0)), 0.0, 0.0));
    }

    #[test]
    fn values_match_the_textbook_formulas() {
        let zs = [
            cz(0.3, -0.7),
            cz(-2.5, 1.25),
            cz(1e-5, 2e-6),
            cz(5.0, 0.5),
            cz(-0.9, -3.0),
        ];
        let one = cz(1.0, 0.0);
        let i = cz(0.0, 1.0);
        for &z in &zs {
            assert!(close(exp(ln(z)), z), "{z}");
            assert!(close(sqrt(z) * sqrt(z), z), "{z}");
            assert!(close(sin(asin(z)), z), "{z}");
            assert!(close(cos(acos(z)), z), "{z}");
            assert!(close(tan(atan(z)), z), "{z}");
            assert!(close(sinh(asinh(z)), z), "{z}");
            assert!(close(cosh(acosh(z)), z), "{z}");
            assert!(close(tanh(atanh(z)), z), "{z}");
            assert!(close(expm1(z), exp(z) - one), "{z}");
            assert!(close(ln_1p(z), ln(z + one)), "{z}");
            assert!(close(sinh(z), (exp(z) - exp(-z)) * 0.5), "{z}");
            assert!(close(tan(z), sin(z) / cos(z)), "{z}");
            assert!(close(div(one, z), one / z), "{z}");
            assert!(close(pow(z, cz(3.0, 0.0)), z * z * z), "{z}");
            assert!(close(pow(z, i), exp(i * ln(z))), "{z}");
        }
        // accuracy where the naive formulas lose digits
        assert!((expm1(cz(1e-10, 0.0)).re - 1.00000000005e-10).abs() < 1e-24);
        let t = 2f64.powi(-33); // 1 + t is exact
        assert!((ln(cz(1.0 + t, 0.0)).re - t.ln_1p()).abs() < 1e-28);
    }

    #[test]
    fn large_arguments_do_not_overflow() {
        let big = cz(1e300, 1e300);
        assert!(sqrt(big).re.is_finite() && sqrt(big).im.is_finite());
        assert!(close(div(big, big), cz(1.0, 0.0)));
        let a = asinh(big);
        assert!((a.re - (2f64.sqrt() * 1e300).ln() - std::f64::consts::LN_2).abs() < 1e-12);
        let e = exp(cz(709.8, 2.0));
        let m = 708.8f64.exp() * std::f64::consts::E;
        assert!(e.re.is_finite() && e.im.is_finite());
        assert!(close(e, cz(m * 2f64.cos(), m * 2f64.sin())));
        assert!(atanh(cz(1e300, 1e300)).re.abs() < 1e-299);
        assert!((tanh(cz(30.0, 1.0)).re - 1.0).abs() < 1e-15);
    }

    #[test]
    fn f32_is_consistent_with_f64() {
        for &(re, im) in &[(0.5f32, 0.25f32), (-3.0, 2.0), (10.0, -1.0)] {
            let z32 = c(re, im);
            let z64 = c(re as f64, im as f64);
            for (a, b) in [
                (exp(z32), exp(z64)),
                (ln(z32), ln(z64)),
                (acos(z32), acos(z64)),
                (atanh(z32), atanh(z64)),
            ] {
                assert!(((a.re as f64) - b.re).abs() <= 1e-5 * (1.0 + b.re.abs()));
                assert!(((a.im as f64) - b.im).abs() <= 1e-5 * (1.0 + b.im.abs()));
            }
        }
    }
}
