//! [`Real`]: the element types with an order (integers and floats), and the scalar
//! kernels of the NumPy functions that need one.

use crate::element::{Float, Num};

/// Integers and floats (not complex, not bool): element types with an order.
///
/// Implemented for every integer type and, through a blanket impl, for every
/// [`Float`], so `T: Float` code can call the methods bounded by `Real`. The methods
/// are the scalar kernels of NumPy's functions (`r_` avoids clashes with
/// `num_traits::Float`'s names).
///
/// ```
/// use ferrotensor::ops::Real;
/// assert_eq!((-7i32).r_floor_div(2), Some(-4));
/// assert_eq!((-7i32).r_remainder(2), Some(1));
/// assert_eq!((-7i32).r_fmod(2), Some(-1));
/// assert_eq!(7i32.r_floor_div(0), None);
/// assert!(f64::NAN.r_maximum(1.0).is_nan());
/// assert_eq!(f64::NAN.r_fmax(1.0), 1.0);
/// ```
pub trait Real: Num + PartialOrd {
    /// Absolute value (wrapping for integers: `i32::MIN.r_abs() == i32::MIN`, as NumPy).
    fn r_abs(self) -> Self;
    /// −1, 0 or 1 by sign (NaN for NaN; `sign(-0.0) = 0.0` as NumPy).
    fn r_sign(self) -> Self;
    /// True for NaN.
    fn r_is_nan(self) -> bool;
    /// True for ±infinity.
    fn r_is_inf(self) -> bool;
    /// NumPy `floor_divide` (`//`); `None` for an integer zero divisor.
    fn r_floor_div(self, d: Self) -> Option<Self>;
    /// NumPy `remainder` (sign of the divisor); `None` for an integer zero divisor.
    fn r_remainder(self, d: Self) -> Option<Self>;
    /// C `fmod` (sign of the dividend); `None` for an integer zero divisor.
    fn r_fmod(self, d: Self) -> Option<Self>;
    /// NumPy `power`; `None` for a negative integer exponent.
    fn r_pow(self, e: Self) -> Option<Self>;
    /// NumPy `maximum`: NaN if either is NaN; the second operand on ties.
    #[inline]
    fn r_maximum(self, o: Self) -> Self {
        if self.r_is_nan() || self > o { self } else { o }
    }
    /// NumPy `minimum`: NaN if either is NaN; the second operand on ties.
    #[inline]
    fn r_minimum(self, o: Self) -> Self {
        if self.r_is_nan() || self < o { self } else { o }
    }
    /// NumPy `fmax`: ignores a NaN operand (NaN only if both are).
    #[inline]
    fn r_fmax(self, o: Self) -> Self {
        if o.r_is_nan() || self > o { self } else { o }
    }
    /// NumPy `fmin`: ignores a NaN operand (NaN only if both are).
    #[inline]
    fn r_fmin(self, o: Self) -> Self {
        if o.r_is_nan() || self < o { self } else { o }
    }
}

macro_rules! impl_real_int {
    ($signed:expr; $($t:ty),*) => {$(
        impl Real for $t {
            #[inline(always)]
            fn r_abs(self) -> Self {
                if $signed && self < (0 as $t) { (0 as $t).wrapping_sub(self) } else { self }
            }
            #[inline(always)]
            fn r_sign(self) -> Self {
                if self > (0 as $t) { 1 as $t } else if self == (0 as $t) { 0 as $t } else { (0 as $t).wrapping_sub(1) }
            }
            #[inline(always)]
            fn r_is_nan(self) -> bool { false }
            #[inline(always)]
            fn r_is_inf(self) -> bool { false }
            #[inline]
            fn r_floor_div(self, d: Self) -> Option<Self> {
                if d == 0 { return None; }
                let q = self.wrapping_div(d);
                let r = self.wrapping_rem(d);
                Some(if r != 0 && ((r < (0 as $t)) != (d < (0 as $t))) { q.wrapping_sub(1) } else { q })
            }
            #[inline]
            fn r_remainder(self, d: Self) -> Option<Self> {
                if d == 0 { return None; }
                let r = self.wrapping_rem(d);
                Some(if r != 0 && ((r < (0 as $t)) != (d < (0 as $t))) { r.wrapping_add(d) } else { r })
            }
            #[inline]
            fn r_fmod(self, d: Self) -> Option<Self> {
                if d == 0 { None } else { Some(self.wrapping_rem(d)) }
            }
            #[inline]
            fn r_pow(self, e: Self) -> Option<Self> {
                if e < (0 as $t) { return None; }
                let e = if (e as u128) > u32::MAX as u128 { u32::MAX } else { e as u32 };
                Some(self.wrapping_pow(e))
            }
        }
    )*};
}
impl_real_int!(true; i8, i16, i32, i64, isize);
impl_real_int!(false; u8, u16, u32, u64, usize);

impl<T: Float> Real for T {
    #[inline(always)]
    fn r_abs(self) -> Self {
        num_traits::Float::abs(self)
    }
    #[inline(always)]
    fn r_sign(self) -> Self {
        if self > T::zero() {
            T::one()
        } else if self < T::zero() {
            -T::one()
        } else if self == T::zero() {
            T::zero()
        } else {
            self
        }
    }
    #[inline(always)]
    fn r_is_nan(self) -> bool {
        num_traits::Float::is_nan(self)
    }
    #[inline(always)]
    fn r_is_inf(self) -> bool {
        num_traits::Float::is_infinite(self)
    }
    /// NumPy's `npy_floor_divide`.
    #[inline]
    fn r_floor_div(self, b: Self) -> Option<Self> {
        let a = self;
        if b == T::zero() {
            return Some(a / b);
        }
        let m = a % b;
        let mut div = (a - m) / b;
        if m != T::zero() && ((b < T::zero()) != (m < T::zero())) {
            div = div - T::one();
        }
        Some(if div != T::zero() {
            let mut fd = num_traits::Float::floor(div);
            if div - fd > T::from_f32(0.5) {
                fd = fd + T::one();
            }
            fd
        } else {
            num_traits::Float::copysign(T::zero(), a / b)
        })
    }
    /// NumPy's `npy_divmod` remainder.
    #[inline]
    fn r_remainder(self, b: Self) -> Option<Self> {
        let a = self;
        let mut m = a % b;
        if b == T::zero() {
            return Some(m);
        }
        if m != T::zero() {
            if (b < T::zero()) != (m < T::zero()) {
                m = m + b;
            }
        } else {
            m = num_traits::Float::copysign(T::zero(), b);
        }
        Some(m)
    }
    #[inline(always)]
    fn r_fmod(self, b: Self) -> Option<Self> {
        Some(self % b)
    }
    #[inline(always)]
    fn r_pow(self, e: Self) -> Option<Self> {
        Some(num_traits::Float::powf(self, e))
    }
}
