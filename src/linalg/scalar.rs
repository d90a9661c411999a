//! [`LinalgScalar`]: the element types of the decompositions and solvers, real and
//! complex.

use crate::element::{Float, Num};
use num_complex::Complex;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for num_complex::Complex<f32> {}
    impl Sealed for num_complex::Complex<f64> {}
}

/// Element types of the decompositions and solvers: `f32`, `f64`, `Complex<f32>` and
/// `Complex<f64>` (through `faer`). `Real` (from `faer`'s `ComplexField`) is the type of
/// singular values, Hermitian eigenvalues, norms and `log|det|`.
///
/// ```
/// use ferrotensor::linalg::{LinalgScalar, det};
/// use ferrotensor::prelude::*;
/// use num_complex::Complex;
/// fn det_of<T: LinalgScalar>(a: &Tensor<T, Ix2>) -> T { det(a).unwrap().to_scalar().unwrap() }
/// let i = Tensor::from_vec(vec![Complex::new(0.0, 1.0), Complex::new(0.0, 0.0), Complex::new(0.0, 0.0), Complex::new(0.0, 1.0)], [2, 2]).unwrap();
/// assert_eq!(det_of(&i), Complex::new(-1.0, 0.0));
/// assert_eq!(Complex::new(3.0f64, 4.0).modulus(), 5.0);
/// ```
pub trait LinalgScalar:
    Num + faer::traits::ComplexField<Real: Float + faer::traits::RealField> + sealed::Sealed
{
    /// True for the complex types.
    const IS_COMPLEX: bool;
    /// The complex type of this precision (`Complex<Real>`): the element type of
    /// general eigenvalues and eigenvectors.
    type Cx: LinalgScalar<Real = Self::Real>;
    /// `c` as [`LinalgScalar::Cx`].
    fn cx(c: Complex<Self::Real>) -> Self::Cx;
    /// `|x|` (the modulus of a complex number).
    fn modulus(self) -> Self::Real;
    /// The real part.
    fn real_part(self) -> Self::Real;
    /// The imaginary part (0 for real types).
    fn imag_part(self) -> Self::Real;
    /// A real value in this type.
    fn from_real(r: Self::Real) -> Self;
    /// `re + i·im` (`im` is dropped for real types).
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
    /// The value as `Complex<Real>`.
    fn to_complex(self) -> Complex<Self::Real> {
        Complex::new(self.real_part(), self.imag_part())
    }
    /// True if every part is finite.
    fn all_finite(self) -> bool {
        num_traits::Float::is_finite(self.real_part()) && num_traits::Float::is_finite(self.imag_part())
    }
    /// True if a part is NaN.
    fn has_nan(self) -> bool {
        num_traits::Float::is_nan(self.real_part()) || num_traits::Float::is_nan(self.imag_part())
    }
}

macro_rules! impl_real {
    ($($t:ty),*) => {$(
        impl LinalgScalar for $t {
            const IS_COMPLEX: bool = false;
            type Cx = Complex<$t>;
            #[inline(always)]
            fn cx(c: Complex<$t>) -> Complex<$t> { c }
            #[inline(always)]
            fn modulus(self) -> $t { self.abs() }
            #[inline(always)]
            fn real_part(self) -> $t { self }
            #[inline(always)]
            fn imag_part(self) -> $t { 0.0 }
            #[inline(always)]
            fn from_real(r: $t) -> Self { r }
            #[inline(always)]
            fn from_parts(re: $t, _im: $t) -> Self { re }
        }
    )*};
}
impl_real!(f32, f64);

macro_rules! impl_complex {
    ($($t:ty),*) => {$(
        impl LinalgScalar for Complex<$t> {
            const IS_COMPLEX: bool = true;
            type Cx = Complex<$t>;
            #[inline(always)]
            fn cx(c: Complex<$t>) -> Complex<$t> { c }
            #[inline(always)]
            fn modulus(self) -> $t { self.norm() }
            #[inline(always)]
            fn real_part(self) -> $t { self.re }
            #[inline(always)]
            fn imag_part(self) -> $t { self.im }
            #[inline(always)]
            fn from_real(r: $t) -> Self { Complex::new(r, 0.0) }
            #[inline(always)]
            fn from_parts(re: $t, im: $t) -> Self { Complex::new(re, im) }
        }
    )*};
}
impl_complex!(f32, f64);
