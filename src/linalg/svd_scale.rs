//! Scaling before a singular value decomposition.
//!
//! faer's SVD reports "did not converge" for finite matrices whose entries lie near the
//! overflow threshold (norms and rotations computed on them overflow), and loses the
//! smallest values near the underflow threshold. LAPACK's `gesdd`, which NumPy calls,
//! scales such a matrix first and the singular values back after; so does this.

use super::scalar::LinalgScalar;
use faer::Mat;
use num_traits::Float;
use num_traits::{One, Zero};
use std::borrow::Cow;

/// `m` scaled to a largest modulus of 1 when that modulus lies outside
/// `[√min_positive / ε, ε / √min_positive]` (LAPACK's safe range), with the factor `c`
/// (`m = c · scaled`) that multiplies the singular values back; `m` itself and 1 otherwise.
pub(crate) fn scaled_for_svd<T: LinalgScalar>(m: &Mat<T>) -> (Cow<'_, Mat<T>>, T::Real) {
    let mut amax = <T::Real as Zero>::zero();
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            let a = m[(i, j)].modulus();
            if a > amax {
                amax = a;
            }
        }
    }
    let small = T::Real::min_positive_value().sqrt() / T::Real::epsilon();
    if !amax.is_finite() || amax == <T::Real as Zero>::zero() || (amax >= small && amax <= small.recip()) {
        return (Cow::Borrowed(m), <T::Real as One>::one());
    }
    let inv = T::from_real(amax.recip());
    (
        Cow::Owned(Mat::from_fn(m.nrows(), m.ncols(), |i, j| m[(i, j)] * inv)),
        amax,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex;

    #[test]
    fn huge_and_tiny_matrices_are_scaled_ordinary_ones_are_not() {
        let huge = Mat::from_fn(2, 2, |i, j| if i == j { 1e308f64 } else { -1e308 });
        let (s, c) = scaled_for_svd(&huge);
        assert!(matches!(s, Cow::Owned(_)) && c == 1e308);
        assert!((s[(0, 0)] - 1.0).abs() < 1e-15 && (s[(0, 1)] + 1.0).abs() < 1e-15);
        let tiny = Mat::from_fn(2, 1, |i, _| Complex::new(3e-300f64 * (i + 1) as f64, 4e-300));
        let (_, c) = scaled_for_svd(&tiny);
        assert!((c - Complex::new(6e-300f64, 4e-300).norm()).abs() < 1e-310);
        let plain = Mat::from_fn(2, 2, |i, j| (i + j) as f32 + 0.5);
        assert!(matches!(scaled_for_svd(&plain), (Cow::Borrowed(_), 1.0)));
        assert!(matches!(
            scaled_for_svd(&Mat::<f64>::zeros(2, 2)),
            (Cow::Borrowed(_), 1.0)
        ));
    }
}
