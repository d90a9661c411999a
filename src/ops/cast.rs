//! Element type conversion: `cast::<U>()` and the [`CastFrom`] trait.
//!
//! NumPy's `astype` rules (unsafe casting), with Rust's `as` where NumPy's result is
//! platform-defined:
//! - integer → integer wraps (two's complement), as NumPy;
//! - float → integer truncates toward zero; **NaN gives 0 and out-of-range values
//!   saturate** to the target's MIN/MAX (Rust `as`; NumPy's result is undefined there,
//!   e.g. `INT_MIN` on x86-64);
//! - integer → float and float → narrower float round to nearest (overflow gives ±inf);
//! - anything → bool is `x != 0` (NaN is true; a complex is true if either part is
//!   nonzero); bool → number is 0 or 1;
//! - complex → real keeps the real part (NumPy warns and discards the imaginary part);
//!   real → complex has imaginary part 0.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::from_vec(vec![-1.7f64, 2.9, 300.0, f64::NAN], [4]).unwrap();
//! assert_eq!(a.cast::<i32>().to_vec(), vec![-1, 2, 300, 0]);
//! assert_eq!(a.cast::<u8>().to_vec(), vec![0, 2, 255, 0]);
//! assert_eq!(Tensor::from_vec(vec![300i32, -1], [2]).unwrap().cast::<u8>().to_vec(), vec![44, 255]);
//! ```

use super::core::map_with;
use crate::element::Element;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use half::{bf16, f16};
use num_complex::Complex;

/// A value in the widest form of its kind, through which every cast goes without
/// losing information (except `f64` rounding of 128-bit integers, which no element
/// type reaches).
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub enum Wide {
    /// A boolean.
    Bool(bool),
    /// Any integer (exact).
    Int(i128),
    /// Any real float (exact for f16, bf16, f32, f64).
    Float(f64),
    /// A complex number.
    Complex(f64, f64),
}

/// Element types that can be cast: conversion into and out of [`Wide`].
///
/// ```
/// use ferrotensor::ops::Castable;
/// assert_eq!(<u8 as Castable>::from_wide(300i32.to_wide()), 44);
/// ```
pub trait Castable: Element {
    /// The value in its widest form.
    fn to_wide(self) -> Wide;
    /// The value converted from a wide form (NumPy's rules, see the module docs).
    fn from_wide(w: Wide) -> Self;
}

/// Conversion from element type `T` following NumPy's casting rules (see [`cast`](self)).
///
/// ```
/// use ferrotensor::ops::CastFrom;
/// assert_eq!(<i8 as CastFrom<f32>>::cast_from(-3.9), -3);
/// assert_eq!(<bool as CastFrom<f64>>::cast_from(f64::NAN), true);
/// ```
pub trait CastFrom<T>: Sized {
    /// `x` converted to `Self`.
    fn cast_from(x: T) -> Self;
}

impl<T: Castable, U: Castable> CastFrom<T> for U {
    #[inline(always)]
    fn cast_from(x: T) -> U {
        U::from_wide(x.to_wide())
    }
}

macro_rules! castable_int {
    ($($t:ty),*) => {$(
        impl Castable for $t {
            #[inline(always)]
            fn to_wide(self) -> Wide { Wide::Int(self as i128) }
            #[inline(always)]
            fn from_wide(w: Wide) -> Self {
                match w {
                    Wide::Bool(b) => b as $t,
                    Wide::Int(i) => i as $t,
                    Wide::Float(f) => f as $t,
                    Wide::Complex(re, _) => re as $t,
                }
            }
        }
    )*};
}
castable_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! castable_float {
    ($($t:ty: $to:expr, $from:expr, $from_int:expr;)*) => {$(
        impl Castable for $t {
            #[inline(always)]
            fn to_wide(self) -> Wide { Wide::Float($to(self)) }
            #[inline(always)]
            fn from_wide(w: Wide) -> Self {
                match w {
                    Wide::Bool(b) => $from(b as u8 as f64),
                    Wide::Int(i) => $from_int(i),
                    Wide::Float(f) => $from(f),
                    Wide::Complex(re, _) => $from(re),
                }
            }
        }
    )*};
}
castable_float!(
    f64: |x: f64| x, |x: f64| x, |i: i128| i as f64;
    f32: |x: f32| x as f64, |x: f64| x as f32, |i: i128| i as f32;
    f16: f16::to_f64, f16::from_f64, |i: i128| f16::from_f64(i as f64);
    bf16: bf16::to_f64, bf16::from_f64, |i: i128| bf16::from_f64(i as f64);
);

impl Castable for bool {
    #[inline(always)]
    fn to_wide(self) -> Wide {
        Wide::Bool(self)
    }
    #[inline(always)]
    fn from_wide(w: Wide) -> Self {
        match w {
            Wide::Bool(b) => b,
            Wide::Int(i) => i != 0,
            Wide::Float(f) => f != 0.0,
            Wide::Complex(re, im) => re != 0.0 || im != 0.0,
        }
    }
}

macro_rules! castable_complex {
    ($($f:ty),*) => {$(
        impl Castable for Complex<$f> {
            #[inline(always)]
            fn to_wide(self) -> Wide { Wide::Complex(self.re as f64, self.im as f64) }
            #[inline(always)]
            fn from_wide(w: Wide) -> Self {
                match w {
                    Wide::Bool(b) => Complex::new(b as u8 as $f, 0.0),
                    Wide::Int(i) => Complex::new(i as $f, 0.0),
                    Wide::Float(f) => Complex::new(f as $f, 0.0),
                    Wide::Complex(re, im) => Complex::new(re as $f, im as $f),
                }
            }
        }
    )*};
}
castable_complex!(f32, f64);

impl<T: Castable, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// The elements converted to `U` by NumPy's casting rules (see [the module
    /// docs](crate::ops::cast)), as a new row-major tensor.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0u8, 1, 2], [3]).unwrap();
    /// assert_eq!(a.cast::<bool>().to_vec(), vec![false, true, true]);
    /// assert_eq!(a.cast::<half::f16>().cast::<f64>().to_vec(), vec![0.0, 1.0, 2.0]);
    /// ```
    pub fn cast<U: CastFrom<T> + Send>(&self) -> Tensor<U, D> {
        map_with(self, 1, U::cast_from)
    }
}
