//! Float functions of NumPy and the Python array API standard that work on the
//! representation or need care at the ends of the range: `signbit`, `nextafter` (exact
//! steps to the adjacent float, including subnormals and signed zeros) and `logaddexp`
//! (no overflow, exact at infinities).

use super::DimMax;
use super::core::{map_with, zip_with};
use crate::element::Float;
use crate::error::Result;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use half::{bf16, f16};

/// Bit-level stepping of a float type.
pub trait FloatStep: Float {
    /// The adjacent representable value from `self` toward `y` (C `nextafter`): NaN if
    /// either is NaN, `y` if they are equal (so `nextafter(0, -0) = -0`), the smallest
    /// subnormal of the direction's sign from zero.
    fn next_toward(self, y: Self) -> Self;
}

macro_rules! impl_step {
    ($($t:ty: $bits:ty, $to:expr, $from:expr;)*) => {$(
        impl FloatStep for $t {
            #[inline]
            fn next_toward(self, y: Self) -> Self {
                if self.is_nan() || y.is_nan() {
                    return <$t as num_traits::Float>::nan();
                }
                if self == y {
                    return y;
                }
                let b: $bits = $to(self);
                if self == <$t as num_traits::Zero>::zero() {
                    // smallest subnormal toward y, with y's sign
                    let tiny: $t = $from(1);
                    return if y > self { tiny } else { -tiny };
                }
                // Away from zero increments the magnitude bits; toward zero decrements.
                let away = (y > self) == (self > <$t as num_traits::Zero>::zero());
                $from(if away { b + 1 } else { b - 1 })
            }
        }
    )*};
}
impl_step!(
    f32: u32, f32::to_bits, f32::from_bits;
    f64: u64, f64::to_bits, f64::from_bits;
    f16: u16, f16::to_bits, f16::from_bits;
    bf16: u16, bf16::to_bits, bf16::from_bits;
);

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// True where the sign bit is set (NumPy `signbit`): `-0.0` and negative NaNs too.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![-0.0f64, 0.0, -2.0, -f64::NAN], [4]).unwrap();
    /// assert_eq!(a.signbit().to_vec(), vec![true, false, true, true]);
    /// ```
    pub fn signbit(&self) -> Tensor<bool, D> {
        map_with(self, 1, |x: T| num_traits::Float::is_sign_negative(x))
    }

    /// NumPy `logaddexp`: `ln(e^self + e^rhs)` with broadcasting, computed as
    /// `max + ln_1p(e^-|self - rhs|)` so that it neither overflows nor loses the larger
    /// term; NaN if either is NaN, `+inf` if either is `+inf`, `-inf` if both are `-inf`.
    /// `Err` if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1000.0f64, f64::NEG_INFINITY, 0.0], [3]).unwrap();
    /// let b = Tensor::from_vec(vec![1000.0f64, f64::NEG_INFINITY, f64::INFINITY], [3]).unwrap();
    /// let r = a.logaddexp(&b).unwrap().to_vec();
    /// assert!((r[0] - (1000.0 + std::f64::consts::LN_2)).abs() < 1e-12);
    /// assert_eq!((r[1], r[2]), (f64::NEG_INFINITY, f64::INFINITY));
    /// ```
    pub fn logaddexp<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        rhs: &TensorBase<S2, D2>,
    ) -> Result<Tensor<T, D::Output>>
    where
        D: DimMax<D2>,
    {
        super::core::check_broadcast(self.shape(), rhs.shape(), "logaddexp")?;
        zip_with(self, rhs, "logaddexp", |x: T, y: T| {
            if x.is_nan() || y.is_nan() {
                return T::nan();
            }
            if x == y {
                // also the infinities, where x - y would be NaN
                return x + T::from_f64(std::f64::consts::LN_2);
            }
            let (hi, d) = if x > y { (x, y - x) } else { (y, x - y) };
            hi + d.exp().ln_1p()
        })
    }
}

impl<T: FloatStep, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// C/NumPy `nextafter`: the representable value adjacent to each element of `self`
    /// toward the matching element of `rhs`, with broadcasting (see
    /// [`FloatStep::next_toward`]). `Err` if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f32, 0.0, 0.0], [3]).unwrap();
    /// let b = Tensor::from_vec(vec![2.0f32, -1.0, -0.0], [3]).unwrap();
    /// let r = a.nextafter(&b).unwrap().to_vec();
    /// assert_eq!(r[0], 1.0 + f32::EPSILON);
    /// assert_eq!(r[1], -f32::from_bits(1));
    /// assert!(r[2] == 0.0 && r[2].is_sign_negative());
    /// ```
    pub fn nextafter<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        rhs: &TensorBase<S2, D2>,
    ) -> Result<Tensor<T, D::Output>>
    where
        D: DimMax<D2>,
    {
        super::core::check_broadcast(self.shape(), rhs.shape(), "nextafter")?;
        zip_with(self, rhs, "nextafter", |x: T, y: T| x.next_toward(y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_toward_matches_the_std_steps() {
        for &x in &[1.0f64, -1.0, 1e-310, -1e-310, f64::MAX, f64::MIN_POSITIVE, 3.5] {
            assert_eq!(x.next_toward(f64::INFINITY), x.next_up(), "{x}");
            assert_eq!(x.next_toward(f64::NEG_INFINITY), x.next_down(), "{x}");
        }
        for &x in &[1.0f32, -1.0, 1e-40, f32::MAX, -3.5] {
            assert_eq!(x.next_toward(f32::INFINITY), x.next_up(), "{x}");
            assert_eq!(x.next_toward(f32::NEG_INFINITY), x.next_down(), "{x}");
        }
        assert_eq!(f64::MAX.next_toward(f64::INFINITY), f64::INFINITY);
        assert_eq!(f64::INFINITY.next_toward(0.0), f64::MAX);
        assert!(f32::NAN.next_toward(1.0).is_nan() && 1.0f32.next_toward(f32::NAN).is_nan());
        assert_eq!(f16::ONE.next_toward(f16::from_f32(2.0)), f16::ONE + f16::EPSILON);
        assert_eq!(bf16::ZERO.next_toward(bf16::ONE).to_bits(), 1);
    }

    #[test]
    fn logaddexp_is_stable_and_broadcasts() {
        let a = Tensor::from_vec(vec![-1000.0f32, 0.0, 5.0], [3, 1]).unwrap();
        let b = Tensor::from_vec(vec![-1000.0f32, f32::NAN], [2]).unwrap();
        let r = a.logaddexp(&b).unwrap();
        assert_eq!(r.shape(), &[3, 2]);
        let v = r.to_vec();
        assert!((v[0] - (-1000.0 + std::f32::consts::LN_2)).abs() < 1e-3);
        assert!(v[1].is_nan());
        assert_eq!(v[2], 0.0);
        assert!((v[4] - 5.0).abs() < 1e-6);
        assert!(a.logaddexp(&Tensor::<f32, _>::zeros([2, 2])).is_err());
    }

    #[test]
    fn nextafter_and_signbit_on_strided_views() {
        let a = Tensor::from_vec(vec![1.0f64, -0.0, 2.0, 0.0], [4]).unwrap();
        let flipped = a.flip(0).unwrap();
        assert_eq!(flipped.signbit().to_vec(), vec![false, false, true, false]);
        let r = flipped.nextafter(&Tensor::scalar(10.0)).unwrap().to_vec();
        assert_eq!(
            r,
            vec![f64::from_bits(1), 2.0f64.next_up(), f64::from_bits(1), 1.0f64.next_up()]
        );
    }
}
