//! Element traits of the bitwise operations: [`Bitwise`] (`& | ^ !` on bool and
//! integers) and [`Integer`] (shifts `<< >>` with NumPy's semantics).

use super::Real;
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::TensorBase;
use std::ops::{BitAnd, BitOr, BitXor, Not};

/// Element types with bitwise `& | ^ !`: `bool` and every integer type.
///
/// ```
/// use ferrotensor::prelude::*;
/// fn mask<T: Bitwise, D: Dimension>(a: &Tensor<T, D>, m: T) -> Tensor<T, D> {
///     a & m
/// }
/// let a = Tensor::from_vec(vec![0b1010u8, 0b0110], [2]).unwrap();
/// assert_eq!(mask(&a, 0b0011).to_vec(), vec![0b0010, 0b0010]);
/// ```
pub trait Bitwise:
    Element + BitAnd<Output = Self> + BitOr<Output = Self> + BitXor<Output = Self> + Not<Output = Self>
{
}

impl<T: Element + BitAnd<Output = T> + BitOr<Output = T> + BitXor<Output = T> + Not<Output = T>> Bitwise for T {}

/// Integer element types: the shifts `<<` / `>>` follow NumPy's `left_shift` /
/// `right_shift` at full width. A shift count in `0..BITS` shifts (right shifts of
/// signed values are arithmetic); a count of `BITS` or more shifts every bit out: `<<`
/// gives 0, `>>` gives 0, or −1 for a negative signed value (Rust's own `<<` would panic
/// or wrap the count instead). The tensor operations reject negative counts (`Err`, or
/// a panic for the operators) before any element is shifted; these element functions,
/// given one, treat it as a count of `BITS` or more.
///
/// ```
/// use ferrotensor::ops::Integer;
/// assert_eq!(1i8.np_shl(7), -128);
/// assert_eq!(1i8.np_shl(8), 0);
/// assert_eq!((-128i8).np_shr(10), -1);
/// assert_eq!(200u8.np_shr(8), 0);
/// assert_eq!(3i32.np_shl(-1), 0);
/// ```
pub trait Integer: Real + Bitwise {
    /// The number of bits.
    const BITS: u32;
    /// NumPy `left_shift`.
    fn np_shl(self, count: Self) -> Self;
    /// NumPy `right_shift`.
    fn np_shr(self, count: Self) -> Self;
}

macro_rules! impl_integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn np_shl(self, count: Self) -> Self {
                let c = count as i128;
                if (0..Self::BITS as i128).contains(&c) { self << c as u32 } else { 0 }
            }
            #[inline(always)]
            fn np_shr(self, count: Self) -> Self {
                let c = count as i128;
                if (0..Self::BITS as i128).contains(&c) {
                    self >> c as u32
                } else if (self as i128) < 0 {
                    // Only reachable for signed types: all sign bits.
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
        }
    )*};
}
impl_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// `Err` naming `op` if a shift-count tensor holds a negative count (checked before
/// anything is written, as NumPy's full-width shifts leave a negative count undefined).
pub(crate) fn check_shift_counts<T: Integer, S: Storage<Elem = T>, D: Dimension>(
    counts: &TensorBase<S, D>,
    op: &'static str,
) -> Result<()> {
    if counts.iter().any(|&c| c < T::zero()) {
        // A scalar count arrives as a 0-d tensor: no shape to name.
        let msg = match counts.ndim() {
            0 => "negative shift count".to_string(),
            _ => format!("negative shift count (counts of shape {})", fmt_shape(counts.shape())),
        };
        return Err(Error::value(op, msg));
    }
    Ok(())
}

/// `Err` naming `op` if a scalar shift count is negative.
pub(crate) fn check_shift_count<T: Integer>(count: T, op: &'static str) -> Result<()> {
    if count < T::zero() {
        return Err(Error::value(op, "negative shift count"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Integer;

    #[test]
    fn shifts_match_numpy_at_and_beyond_the_bit_width() {
        // numpy: left_shift / right_shift on int8 [1, 5, -128, 0] by 1, 7, 8, 65.
        let a = [1i8, 5, -128, 0];
        let l = |s: i8| a.map(|x| x.np_shl(s));
        let r = |s: i8| a.map(|x| x.np_shr(s));
        assert_eq!((l(1), r(1)), ([2, 10, 0, 0], [0, 2, -64, 0]));
        assert_eq!((l(7), r(7)), ([-128, -128, 0, 0], [0, 0, -1, 0]));
        assert_eq!((l(8), r(8)), ([0; 4], [0, 0, -1, 0]));
        assert_eq!((l(-1), r(-1)), ([0; 4], [0, 0, -1, 0]));
        assert_eq!(200u8.np_shr(7), 1);
        assert_eq!(1u64.np_shl(63), 1 << 63);
        assert_eq!(1u64.np_shl(64), 0);
        assert_eq!(u64::MAX.np_shr(64), 0);
    }
}
