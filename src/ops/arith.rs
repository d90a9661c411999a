//! Named binary operations with NumPy broadcasting: the fallible twins of the
//! operators and NumPy's binary ufuncs. The right operand is any [`Operand`]: a scalar
//! or any tensor (`a.pow(2.0)`, `a.maximum(&b)`); every one returns `Err` naming the
//! operation and both shapes when they do not broadcast.
//!
//! Integer zero divisors: [`try_div`](TensorBase::try_div), `floor_divide`,
//! `remainder` and `fmod` return `Err` when an integer divisor is zero (NumPy returns 0
//! with a warning; the operator `/` panics with the same message). Float division by
//! zero follows IEEE (±inf, NaN) as in NumPy.

use super::bitwise::check_shift_counts;
use super::core::zip_operand;
use super::{Bitwise, Integer, Operand, Real};
use crate::element::{Float, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};

/// `Err` if an integer divisor tensor holds a zero (checked before anything is written).
pub(crate) fn check_int_divisor<T: Num, S: Storage<Elem = T>, D: Dimension>(
    b: &TensorBase<S, D>,
    op: &'static str,
) -> Result<()> {
    if T::IS_INT && b.iter().any(|&x| x == T::zero()) {
        return Err(Error::value(
            op,
            format!("integer division by zero (divisor of shape {})", fmt_shape(b.shape())),
        ));
    }
    Ok(())
}

macro_rules! binary_methods {
    ($bound:ident; $($(#[$doc:meta])* $name:ident, $op:literal, |$x:ident, $y:ident| $body:expr, $pre:expr;)*) => {
        impl<T: $bound, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
            $(
                $(#[$doc])*
                pub fn $name<O: Operand<T, D>>(&self, rhs: O) -> Result<Tensor<T, O::Output>> {
                    let v = rhs.operand_view();
                    super::core::check_broadcast(self.shape(), v.shape(), $op)?;
                    let pre: fn(&TensorView<'_, T, O::Dim>) -> Result<()> = $pre;
                    pre(&v)?;
                    zip_operand(self, &rhs, $op, |$x: T, $y: T| $body)
                }
            )*
        }
    };
}

binary_methods!(Num;
    /// `self + rhs` with broadcasting (integers wrap); `Err` if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
    /// assert_eq!(a.try_add(&a).unwrap().to_vec(), vec![2, 4, 6]);
    /// assert_eq!(a.try_add(10).unwrap().to_vec(), vec![11, 12, 13]);
    /// let e = a.try_add(&Tensor::<i32, _>::zeros([2])).unwrap_err();
    /// assert_eq!(e.to_string(), "add: operands could not be broadcast together with shapes (3,) (2,)");
    /// ```
    try_add, "add", |x, y| x.wadd(y), |_| Ok(());
    /// `self - rhs` with broadcasting (integers wrap).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0u8, 1], [2]).unwrap();
    /// assert_eq!(a.try_sub(&Tensor::from_vec(vec![1u8], [1]).unwrap()).unwrap().to_vec(), vec![255, 0]);
    /// ```
    try_sub, "subtract", |x, y| x.wsub(y), |_| Ok(());
    /// `self * rhs` with broadcasting (integers wrap).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.5, 2.0], [2, 1]).unwrap();
    /// let b = Tensor::from_vec(vec![2.0, 4.0], [2]).unwrap();
    /// assert_eq!(a.try_mul(&b).unwrap().to_vec(), vec![3.0, 6.0, 4.0, 8.0]);
    /// ```
    try_mul, "multiply", |x, y| x.wmul(y), |_| Ok(());
    /// `self / rhs` with broadcasting. Integers truncate toward zero (as Rust); an
    /// integer zero divisor is `Err`. Floats follow IEEE.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![-7, 7], [2]).unwrap();
    /// assert_eq!(a.try_div(&Tensor::from_vec(vec![2, 2], [2]).unwrap()).unwrap().to_vec(), vec![-3, 3]);
    /// assert!(a.try_div(&Tensor::from_vec(vec![2, 0], [2]).unwrap()).is_err());
    /// assert!(a.try_div(0).is_err());
    /// ```
    try_div, "divide", |x, y| x.checked_quot(y).unwrap_or_else(T::zero), |b| check_int_divisor(b, "divide");
);

binary_methods!(Real;
    /// NumPy `remainder` (Python `%`): the result has the sign of the divisor. An
    /// integer zero divisor is `Err` (NumPy gives 0 and a warning).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![7, -7, 7, -7], [4]).unwrap();
    /// let b = Tensor::from_vec(vec![2, 2, -2, -2], [4]).unwrap();
    /// assert_eq!(a.remainder(&b).unwrap().to_vec(), vec![1, 1, -1, -1]);
    /// ```
    remainder, "remainder", |x, y| x.r_remainder(y).unwrap_or_else(T::zero), |b| check_int_divisor(b, "remainder");
    /// C `fmod`: the result has the sign of the dividend. An integer zero divisor is `Err`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![7, -7, 7, -7], [4]).unwrap();
    /// let b = Tensor::from_vec(vec![2, 2, -2, -2], [4]).unwrap();
    /// assert_eq!(a.fmod(&b).unwrap().to_vec(), vec![1, -1, 1, -1]);
    /// ```
    fmod, "fmod", |x, y| x.r_fmod(y).unwrap_or_else(T::zero), |b| check_int_divisor(b, "fmod");
    /// NumPy `floor_divide` (Python `//`): rounds toward −∞. An integer zero divisor is
    /// `Err`; `MIN // -1` wraps to `MIN` as in NumPy.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![7, -7, 7, -7], [4]).unwrap();
    /// let b = Tensor::from_vec(vec![2, 2, -2, -2], [4]).unwrap();
    /// assert_eq!(a.floor_divide(&b).unwrap().to_vec(), vec![3, -4, -4, 3]);
    /// ```
    floor_divide, "floor_divide", |x, y| x.r_floor_div(y).unwrap_or_else(T::zero), |b| check_int_divisor(b, "floor_divide");
    /// NumPy `power`: floats use `powf`; integers wrap, and a negative integer exponent
    /// is `Err` (as NumPy's "Integers to negative integer powers are not allowed").
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![2, 3], [2]).unwrap();
    /// assert_eq!(a.pow(&Tensor::from_vec(vec![10, 2], [2]).unwrap()).unwrap().to_vec(), vec![1024, 9]);
    /// assert_eq!(a.pow(2).unwrap().to_vec(), vec![4, 9]);
    /// assert_eq!(a.pow(-1).unwrap_err().to_string(), "power: Integers to negative integer powers are not allowed");
    /// ```
    pow, "power", |x, y| x.r_pow(y).unwrap_or_else(T::zero), |b| {
        if b.iter().any(|&e| e < T::zero() && T::IS_INT) {
            return Err(Error::value("power", "Integers to negative integer powers are not allowed"));
        }
        Ok(())
    };
    /// NumPy `maximum`: element-wise maximum, NaN if either operand is NaN.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 3.0], [3]).unwrap();
    /// let m = a.maximum(2.0).unwrap().to_vec();
    /// assert_eq!((m[0], m[1].is_nan(), m[2]), (2.0, true, 3.0));
    /// let b = Tensor::from_vec(vec![0.0, 0.0, 4.0], [3]).unwrap();
    /// assert_eq!(a.maximum(&b).unwrap().to_vec()[2], 4.0);
    /// ```
    maximum, "maximum", |x, y| x.r_maximum(y), |_| Ok(());
    /// NumPy `minimum`: element-wise minimum, NaN if either operand is NaN.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 5], [2]).unwrap();
    /// assert_eq!(a.minimum(3).unwrap().to_vec(), vec![1, 3]);
    /// assert_eq!(a.minimum(&Tensor::from_vec(vec![0, 9], [2]).unwrap()).unwrap().to_vec(), vec![0, 5]);
    /// ```
    minimum, "minimum", |x, y| x.r_minimum(y), |_| Ok(());
    /// NumPy `fmax`: element-wise maximum ignoring NaN (NaN only if both are NaN).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN], [2]).unwrap();
    /// assert_eq!(a.fmax(2.0).unwrap().to_vec(), vec![2.0, 2.0]);
    /// ```
    fmax, "fmax", |x, y| x.r_fmax(y), |_| Ok(());
    /// NumPy `fmin`: element-wise minimum ignoring NaN (NaN only if both are NaN).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN], [2]).unwrap();
    /// assert_eq!(a.fmin(2.0).unwrap().to_vec(), vec![1.0, 2.0]);
    /// ```
    fmin, "fmin", |x, y| x.r_fmin(y), |_| Ok(());
);

binary_methods!(Float;
    /// NumPy `arctan2(self, rhs)`: the angle of the point `(rhs, self)`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let y = Tensor::from_vec(vec![1.0f64], [1]).unwrap();
    /// let a = y.atan2(&Tensor::from_vec(vec![-1.0], [1]).unwrap()).unwrap();
    /// assert!((a.to_vec()[0] - 3.0 * std::f64::consts::FRAC_PI_4).abs() < 1e-15);
    /// ```
    atan2, "arctan2", |x, y| num_traits::Float::atan2(x, y), |_| Ok(());
    /// NumPy `hypot`: `sqrt(self² + rhs²)` without undue overflow.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3.0f32, 3e30], [2]).unwrap();
    /// let h = a.hypot(&Tensor::from_vec(vec![4.0f32, 4e30], [2]).unwrap()).unwrap();
    /// assert_eq!(h.to_vec(), vec![5.0, 5e30]);
    /// ```
    hypot, "hypot", |x, y| num_traits::Float::hypot(x, y), |_| Ok(());
    /// NumPy `copysign`: the magnitude of `self` with the sign of `rhs`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.5f64, -2.0], [2]).unwrap();
    /// assert_eq!(a.copysign(&Tensor::from_vec(vec![-0.0], [1]).unwrap()).unwrap().to_vec(), vec![-1.5, -2.0]);
    /// ```
    copysign, "copysign", |x, y| num_traits::Float::copysign(x, y), |_| Ok(());
);

binary_methods!(Bitwise;
    /// `self & rhs` with broadcasting (NumPy `bitwise_and`; logical and for `bool`):
    /// the fallible twin of `&`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0b1100u8, 0b1010], [2]).unwrap();
    /// assert_eq!(a.try_bitand(0b0110).unwrap().to_vec(), vec![0b0100, 0b0010]);
    /// assert!(a.try_bitand(&Tensor::<u8, _>::zeros([3])).is_err());
    /// ```
    try_bitand, "bitwise_and", |x, y| x & y, |_| Ok(());
    /// `self | rhs` with broadcasting (NumPy `bitwise_or`): the fallible twin of `|`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![true, false], [2]).unwrap();
    /// assert_eq!(a.try_bitor(&Tensor::from_vec(vec![false, false], [2]).unwrap()).unwrap().to_vec(), vec![true, false]);
    /// ```
    try_bitor, "bitwise_or", |x, y| x | y, |_| Ok(());
    /// `self ^ rhs` with broadcasting (NumPy `bitwise_xor`): the fallible twin of `^`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![5i32, -1], [2]).unwrap();
    /// assert_eq!(a.try_bitxor(1).unwrap().to_vec(), vec![4, -2]);
    /// ```
    try_bitxor, "bitwise_xor", |x, y| x ^ y, |_| Ok(());
);

binary_methods!(Integer;
    /// `self << rhs` with broadcasting, NumPy `left_shift` at full width: a count of
    /// `BITS` or more gives 0 ([`Integer`]). `Err` if the shapes do not broadcast or a
    /// count is negative. The fallible twin of `<<`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1i8, 3], [2]).unwrap();
    /// assert_eq!(a.try_shl(2).unwrap().to_vec(), vec![4, 12]);
    /// assert_eq!(a.try_shl(&Tensor::from_vec(vec![7i8, 8], [2]).unwrap()).unwrap().to_vec(), vec![-128, 0]);
    /// assert_eq!(a.try_shl(-1).unwrap_err().to_string(), "left_shift: negative shift count");
    /// ```
    try_shl, "left_shift", |x, y| x.np_shl(y), |b| check_shift_counts(b, "left_shift");
    /// `self >> rhs` with broadcasting, NumPy `right_shift` at full width (arithmetic
    /// for signed types): a count of `BITS` or more gives 0, or −1 for negative values.
    /// `Err` if the shapes do not broadcast or a count is negative. The fallible twin
    /// of `>>`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![-8i32, 8], [2]).unwrap();
    /// assert_eq!(a.try_shr(1).unwrap().to_vec(), vec![-4, 4]);
    /// assert_eq!(a.try_shr(40).unwrap().to_vec(), vec![-1, 0]);
    /// let e = a.try_shr(&Tensor::from_vec(vec![1, -2], [2]).unwrap()).unwrap_err();
    /// assert_eq!(e.to_string(), "right_shift: negative shift count (counts of shape (2,))");
    /// ```
    try_shr, "right_shift", |x, y| x.np_shr(y), |b| check_shift_counts(b, "right_shift");
);
