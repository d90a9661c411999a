//! Element traits: [`Element`] for every element type, [`Num`] for arithmetic,
//! [`Float`] for floating point (f16, bf16, f32, f64).
//!
//! ```
//! use ferrotensor::prelude::*;
//! fn total<T: Num>(x: &Tensor<T>) -> T { x.iter().fold(T::zero(), |a, &b| a + b) }
//! let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], vec![3]).unwrap();
//! assert_eq!(total(&t), 6.0);
//! ```

use half::{bf16, f16};
use num_complex::Complex;
use std::fmt::Debug;

/// Every type a tensor can hold.
///
/// ```
/// use ferrotensor::Element;
/// assert_eq!(<f32 as Element>::NAME, "float32");
/// assert_eq!(<bool as Element>::NAME, "bool");
/// ```
pub trait Element: Copy + Send + Sync + Debug + Default + PartialEq + 'static {
    /// NumPy's name for the dtype (`"float32"`, `"int64"`, `"bool"`, …).
    const NAME: &'static str;
}

macro_rules! impl_element {
    ($($t:ty => $n:expr),* $(,)?) => { $(impl Element for $t { const NAME: &'static str = $n; })* };
}
impl_element!(
    bool => "bool", i8 => "int8", i16 => "int16", i32 => "int32", i64 => "int64", isize => "intp",
    u8 => "uint8", u16 => "uint16", u32 => "uint32", u64 => "uint64", usize => "uintp",
    f16 => "float16", bf16 => "bfloat16", f32 => "float32", f64 => "float64",
    Complex<f32> => "complex64", Complex<f64> => "complex128",
);

/// Element types with arithmetic: integers, floats and complex numbers.
///
/// Integer arithmetic wraps on overflow, as NumPy's does; the `w*` methods give the
/// operation each type uses in element-wise kernels.
///
/// ```
/// use ferrotensor::Num;
/// assert_eq!(<u8 as Num>::wadd(250, 10), 4);
/// assert_eq!(<i32 as Num>::checked_quot(7, 0), None);
/// assert_eq!(<f64 as Num>::checked_quot(1.0, 0.0), Some(f64::INFINITY));
/// ```
pub trait Num:
    Element
    + num_traits::Zero
    + num_traits::One
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    /// True for integer types.
    const IS_INT: bool;
    /// Addition (wrapping for integers).
    fn wadd(self, o: Self) -> Self;
    /// Subtraction (wrapping for integers).
    fn wsub(self, o: Self) -> Self;
    /// Multiplication (wrapping for integers).
    fn wmul(self, o: Self) -> Self;
    /// Division; `None` for an integer zero divisor. Integer division truncates toward
    /// zero and `MIN / -1` wraps.
    fn checked_quot(self, o: Self) -> Option<Self>;
    /// Negation (wrapping for integers; `0 - x` for unsigned, as NumPy).
    fn wneg(self) -> Self;
    /// `n` converted to this type (as `n as T`).
    fn from_usize(n: usize) -> Self;
    /// `x` converted to this type (as `x as T`: truncation toward zero for integers).
    fn from_f64(x: f64) -> Self;
    /// The value as `f64` (`as` conversion; the real part of a complex number).
    fn as_f64(self) -> f64;
    /// The value as `i128` (`as` conversion; exact for every integer type).
    fn as_i128(self) -> i128;
    /// The complex conjugate (the value itself for every real type).
    #[inline(always)]
    fn conj(self) -> Self {
        self
    }
}

macro_rules! impl_num_int {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const IS_INT: bool = true;
            #[inline(always)] fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)] fn wsub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline(always)] fn wmul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline(always)] fn checked_quot(self, o: Self) -> Option<Self> {
                if o == 0 { None } else { Some(self.wrapping_div(o)) }
            }
            #[inline(always)] fn wneg(self) -> Self { (0 as $t).wrapping_sub(self) }
            #[inline(always)] fn from_usize(n: usize) -> Self { n as $t }
            #[inline(always)] fn from_f64(x: f64) -> Self { x as $t }
            #[inline(always)] fn as_f64(self) -> f64 { self as f64 }
            #[inline(always)] fn as_i128(self) -> i128 { self as i128 }
        }
    )*};
}
impl_num_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! impl_num_float {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const IS_INT: bool = false;
            #[inline(always)] fn wadd(self, o: Self) -> Self { self + o }
            #[inline(always)] fn wsub(self, o: Self) -> Self { self - o }
            #[inline(always)] fn wmul(self, o: Self) -> Self { self * o }
            #[inline(always)] fn checked_quot(self, o: Self) -> Option<Self> { Some(self / o) }
            #[inline(always)] fn wneg(self) -> Self { -self }
            #[inline(always)] fn from_usize(n: usize) -> Self { n as $t }
            #[inline(always)] fn from_f64(x: f64) -> Self { x as $t }
            #[inline(always)] fn as_f64(self) -> f64 { self as f64 }
            #[inline(always)] fn as_i128(self) -> i128 { self as i128 }
        }
    )*};
}
impl_num_float!(f32, f64);

macro_rules! impl_num_half {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const IS_INT: bool = false;
            #[inline(always)] fn wadd(self, o: Self) -> Self { self + o }
            #[inline(always)] fn wsub(self, o: Self) -> Self { self - o }
            #[inline(always)] fn wmul(self, o: Self) -> Self { self * o }
            #[inline(always)] fn checked_quot(self, o: Self) -> Option<Self> { Some(self / o) }
            #[inline(always)] fn wneg(self) -> Self { -self }
            #[inline(always)] fn from_usize(n: usize) -> Self { <$t>::from_f64(n as f64) }
            #[inline(always)] fn from_f64(x: f64) -> Self { <$t>::from_f64(x) }
            #[inline(always)] fn as_f64(self) -> f64 { self.to_f64() }
            #[inline(always)] fn as_i128(self) -> i128 { self.to_f64() as i128 }
        }
    )*};
}
impl_num_half!(f16, bf16);

macro_rules! impl_num_complex {
    ($($f:ty),*) => {$(
        impl Num for Complex<$f> {
            const IS_INT: bool = false;
            #[inline(always)] fn wadd(self, o: Self) -> Self { self + o }
            #[inline(always)] fn wsub(self, o: Self) -> Self { self - o }
            #[inline(always)] fn wmul(self, o: Self) -> Self { self * o }
            #[inline(always)] fn checked_quot(self, o: Self) -> Option<Self> { Some(self / o) }
            #[inline(always)] fn wneg(self) -> Self { -self }
            #[inline(always)] fn from_usize(n: usize) -> Self { Complex::new(n as $f, 0.0) }
            #[inline(always)] fn from_f64(x: f64) -> Self { Complex::new(x as $f, 0.0) }
            #[inline(always)] fn as_f64(self) -> f64 { self.re as f64 }
            #[inline(always)] fn as_i128(self) -> i128 { self.re as i128 }
            #[inline(always)] fn conj(self) -> Self { Complex::conj(&self) }
        }
    )*};
}
impl_num_complex!(f32, f64);

/// Floating-point element types: `f16`, `bf16`, `f32`, `f64`.
///
/// `f16` and `bf16` compute through `f32` ([`Float::to_f32`], [`Float::from_f32`]).
///
/// ```
/// use ferrotensor::Float;
/// use half::f16;
/// assert_eq!(<f16 as Float>::from_f32(1.5).to_f32(), 1.5);
/// fn half_of<T: Float>(x: T) -> T { x / (T::one() + T::one()) }
/// assert_eq!(half_of(3.0f64), 1.5);
/// ```
pub trait Float: Num + num_traits::Float + PartialOrd {
    /// Converts to `f32` (rounding for `f64`).
    fn to_f32(self) -> f32;
    /// Converts from `f32` (rounding to nearest for `f16`/`bf16`).
    fn from_f32(x: f32) -> Self;
    /// Converts to `f64` exactly.
    fn to_f64(self) -> f64;
}

impl Float for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_f32(x: f32) -> Self {
        x
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl Float for f64 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
    #[inline(always)]
    fn from_f32(x: f32) -> Self {
        x as f64
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}
macro_rules! impl_float_half {
    ($($t:ty),*) => {$(
        impl Float for $t {
            #[inline(always)] fn to_f32(self) -> f32 { <$t>::to_f32(self) }
            #[inline(always)] fn from_f32(x: f32) -> Self { <$t>::from_f32(x) }
            #[inline(always)] fn to_f64(self) -> f64 { <$t>::to_f64(self) }
        }
    )*};
}
impl_float_half!(f16, bf16);
