//! Complex tensors: building one from real and imaginary parts (`complex`), and the
//! [`ComplexMath`] trait with the element-wise functions of complex elements (`real`,
//! `imag`, `conj`, `abs`, `angle`, …). The trait's methods share names with the float
//! methods (`abs`, `exp`, …); a float tensor uses its own methods, a complex one the
//! trait's (in the prelude).

use super::DimMax;
use super::core::{map_with, zip_with};
use crate::element::Float;
use crate::error::Result;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use num_complex::Complex;

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
    pub fn complex<S2: Storage<Elem = F>, D2: Dimension>(&self, imag: &TensorBase<S2, D2>) -> Result<Tensor<Complex<F>, D::Output>>
    where
        D: DimMax<D2>,
    {
        super::core::check_broadcast(self.shape(), imag.shape(), "complex")?;
        zip_with(self, imag, "complex", |re: F, im: F| Complex::new(re, im))
    }
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
}
