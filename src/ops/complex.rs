//! Complex tensors: building one from real and imaginary parts (`complex`), and the
//! [`ComplexMath`] trait with the element-wise functions of complex elements (`real`,
//! `imag`, `conj`, `abs`, `angle`, …). The trait's methods share names with the float
//! methods (`abs`, `exp`, …); a float tensor uses its own methods, a complex one the
//! trait's (in the prelude).

use super::DimMax;
use super::core::{map_with, zip_with};
use crate::element::Float;
use crate::error::Result;
use crate::kernels::complex;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use num_complex::Complex;

/// The result of a broadcasting binary operation on ranks `D` and `D2`.
type Broadcast<T, D, D2> = Tensor<T, <D as DimMax<D2>>::Output>;

impl<F: Float, S: Storage<Elem = F>, D: Dimension> TensorBase<S, D> {
    /// The complex tensor `self + i·imag` with broadcasting (PyTorch `complex`); `Err` if
    /// the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let re = Tensor::from_vec(vec![1.0f32, 2.0], [2]).unwrap();
    /// let z = re.complex(&Tensor::scalar(-1.0f32)).unwrap();
    /// assert_eq!(z.to_vec(), vec![num_complex::Complex::new(1.0, -1.0), num_complex::Complex::new(2.0, -1.0)]);
    /// ```
    pub fn complex<S2: Storage<Elem = F>, D2: Dimension>(
        &self,
        imag: &TensorBase<S2, D2>,
    ) -> Result<Tensor<Complex<F>, D::Output>>
    where
        D: DimMax<D2>,
    {
        super::core::check_broadcast(self.shape(), imag.shape(), "complex")?;
        zip_with(self, imag, "complex", |re: F, im: F| Complex::new(re, im))
    }
}

macro_rules! complex_unary_decl {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("Element-wise complex `", stringify!($name), "` (see [`complex`](crate::kernels::complex)).")]
        fn $name(&self) -> Tensor<Complex<Self::Real>, Self::Dim>;
    )*};
}

macro_rules! complex_unary_impl {
    ($($name:ident => $f:path),* $(,)?) => {$(
        fn $name(&self) -> Tensor<Complex<F>, D> {
            map_with(self, 16, $f)
        }
    )*};
}

/// Element-wise functions of complex tensors (`Complex<f32>`, `Complex<f64>`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use num_complex::Complex;
/// let z = Tensor::from_vec(vec![Complex::new(3.0f64, -4.0)], [1]).unwrap();
/// assert_eq!(z.abs().to_vec(), vec![5.0]);
/// assert_eq!(z.conj().to_vec(), vec![Complex::new(3.0, 4.0)]);
/// assert_eq!((z.real().to_vec(), z.imag().to_vec()), (vec![3.0], vec![-4.0]));
/// let w = Tensor::from_vec(vec![Complex::new(-1.0f64, 0.0)], [1]).unwrap();
/// assert_eq!(w.sqrt().to_vec(), vec![Complex::new(0.0, 1.0)]);
/// assert!((w.ln().to_vec()[0].im - std::f64::consts::PI).abs() < 1e-15);
/// ```
pub trait ComplexMath {
    /// The real element type of the parts.
    type Real: Float;
    /// The rank type.
    type Dim: Dimension;
    /// The real parts.
    fn real(&self) -> Tensor<Self::Real, Self::Dim>;
    /// The imaginary parts.
    fn imag(&self) -> Tensor<Self::Real, Self::Dim>;
    /// The complex conjugates.
    fn conj(&self) -> Tensor<Complex<Self::Real>, Self::Dim>;
    /// The magnitudes `|z|` (computed as `hypot`, so without undue overflow; `+inf` if
    /// either part is infinite, even if the other is NaN).
    fn abs(&self) -> Tensor<Self::Real, Self::Dim>;
    /// The arguments `atan2(im, re)` in `(-π, π]`.
    fn angle(&self) -> Tensor<Self::Real, Self::Dim>;
    /// True where either part is NaN.
    fn isnan(&self) -> Tensor<bool, Self::Dim>;
    /// True where either part is infinite.
    fn isinf(&self) -> Tensor<bool, Self::Dim>;
    /// True where both parts are finite.
    fn isfinite(&self) -> Tensor<bool, Self::Dim>;
    /// `self ** rhs` element-wise with broadcasting (see [`complex::pow`]); `Err` if the
    /// shapes do not broadcast.
    fn pow<S2: Storage<Elem = Complex<Self::Real>>, D2: Dimension>(
        &self,
        rhs: &TensorBase<S2, D2>,
    ) -> Result<Broadcast<Complex<Self::Real>, Self::Dim, D2>>
    where
        Self::Dim: DimMax<D2>;
    complex_unary_decl! {
        exp, expm1, ln, log1p, log2, log10, sqrt, sin, cos, tan, sinh, cosh, tanh,
        asin, acos, atan, asinh, acosh, atanh, sign, round, recip
    }
}

impl<F: Float, S: Storage<Elem = Complex<F>>, D: Dimension> ComplexMath for TensorBase<S, D>
where
    Complex<F>: crate::Element,
{
    type Real = F;
    type Dim = D;
    fn real(&self) -> Tensor<F, D> {
        map_with(self, 1, |z: Complex<F>| z.re)
    }
    fn imag(&self) -> Tensor<F, D> {
        map_with(self, 1, |z: Complex<F>| z.im)
    }
    fn conj(&self) -> Tensor<Complex<F>, D> {
        map_with(self, 1, |z: Complex<F>| Complex::new(z.re, -z.im))
    }
    fn abs(&self) -> Tensor<F, D> {
        map_with(self, 2, |z: Complex<F>| z.re.hypot(z.im))
    }
    fn angle(&self) -> Tensor<F, D> {
        map_with(self, 8, |z: Complex<F>| z.im.atan2(z.re))
    }
    fn isnan(&self) -> Tensor<bool, D> {
        map_with(self, 1, |z: Complex<F>| z.re.is_nan() || z.im.is_nan())
    }
    fn isinf(&self) -> Tensor<bool, D> {
        map_with(self, 1, |z: Complex<F>| z.re.is_infinite() || z.im.is_infinite())
    }
    fn isfinite(&self) -> Tensor<bool, D> {
        map_with(self, 1, |z: Complex<F>| z.re.is_finite() && z.im.is_finite())
    }
    fn pow<S2: Storage<Elem = Complex<F>>, D2: Dimension>(
        &self,
        rhs: &TensorBase<S2, D2>,
    ) -> Result<Tensor<Complex<F>, D::Output>>
    where
        D: DimMax<D2>,
    {
        super::core::check_broadcast(self.shape(), rhs.shape(), "power")?;
        zip_with(self, rhs, "power", complex::pow::<F>)
    }
    complex_unary_impl! {
        exp => complex::exp, expm1 => complex::expm1, ln => complex::ln, log1p => complex::ln_1p,
        log2 => complex::log2, log10 => complex::log10, sqrt => complex::sqrt, sin => complex::sin,
        cos => complex::cos, tan => complex::tan, sinh => complex::sinh, cosh => complex::cosh,
        tanh => complex::tanh, asin => complex::asin, acos => complex::acos, atan => complex::atan,
        asinh => complex::asinh, acosh => complex::acosh, atanh => complex::atanh, sign => complex::sign,
        round => complex::round, recip => complex::recip
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use num_complex::Complex;

    #[test]
    fn methods_map_the_scalar_kernels_over_strided_views() {
        let z = Tensor::from_vec(
            vec![
                Complex::new(0.5f64, -1.0),
                Complex::new(-0.0, 0.0),
                Complex::new(f64::NAN, 2.0),
                Complex::new(3.0, f64::INFINITY),
            ],
            [2, 2],
        )
        .unwrap();
        let t = z.t();
        let e = t.exp().to_vec();
        assert_eq!(e[0], crate::kernels::complex::exp(Complex::new(0.5, -1.0)));
        assert!(e[1].re.is_nan());
        let l = t.ln().to_vec();
        assert_eq!((l[2].re, l[2].im), (f64::NEG_INFINITY, std::f64::consts::PI));
        assert_eq!(t.isnan().to_vec(), vec![false, true, false, false]);
        assert_eq!(t.isinf().to_vec(), vec![false, false, false, true]);
        assert_eq!(t.isfinite().to_vec(), vec![true, false, true, false]);
        let p = t.pow(&Tensor::scalar(Complex::new(2.0, 0.0))).unwrap().to_vec();
        assert_eq!(p[0], Complex::new(0.5, -1.0) * Complex::new(0.5, -1.0));
        assert!(t.pow(&Tensor::<Complex<f64>, _>::zeros([3])).is_err());
        let f = Tensor::from_vec(vec![Complex::new(1.0f32, 1.0)], [1]).unwrap();
        assert!((f.sqrt().to_vec()[0] - Complex::new(1.0986841f32, 0.45508987)).norm() < 1e-6);
    }
}
