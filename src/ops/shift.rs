//! Bit shifts of integers with broadcasting (NumPy `left_shift`/`right_shift`, the array
//! API's `bitwise_left_shift`/`bitwise_right_shift`): a shift by the bit width or more
//! gives 0 (left) or the sign fill (right, arithmetic for signed types), unlike Rust's
//! masked shift counts; a negative count is `Err`.

use super::DimMax;
use super::core::zip_with;
use crate::element::Num;
use crate::error::{Error, Result};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Integer types that shift.
pub trait Shift: Num + PartialOrd {
    /// `self << n`, 0 when `n` is the bit width or more.
    fn shl_full(self, n: Self) -> Self;
    /// `self >> n` (arithmetic for signed types), the sign fill when `n` is the bit
    /// width or more.
    fn shr_full(self, n: Self) -> Self;
}

macro_rules! impl_shift {
    ($($t:ty),*) => {$(
        impl Shift for $t {
            #[inline(always)]
            fn shl_full(self, n: Self) -> Self {
                if (n as u128) < <$t>::BITS as u128 { self << (n as u32) } else { 0 }
            }
            #[inline(always)]
            fn shr_full(self, n: Self) -> Self {
                if (n as u128) < <$t>::BITS as u128 {
                    self >> (n as u32)
                } else {
                    #[allow(unused_comparisons)]
                    let negative = self < (0 as $t);
                    if negative { (0 as $t).wrapping_sub(1) } else { 0 }
                }
            }
        }
    )*};
}
impl_shift!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

fn check_counts<T: Num + PartialOrd, S: Storage<Elem = T>, D: Dimension>(
    b: &TensorBase<S, D>,
    op: &'static str,
) -> Result<()> {
    if b.iter().any(|&n| n < T::zero()) {
        return Err(Error::value(op, "negative shift count"));
    }
    Ok(())
}

impl<T: Shift, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// `self << rhs` element-wise with broadcasting; 0 where the count is the bit width
    /// or more. `Err` if the shapes do not broadcast or a count is negative.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1i32, -3, 5], [3]).unwrap();
    /// let n = Tensor::from_vec(vec![4i32, 1, 40], [3]).unwrap();
    /// assert_eq!(a.left_shift(&n).unwrap().to_vec(), vec![16, -6, 0]);
    /// assert!(a.left_shift(&Tensor::scalar(-1)).is_err());
    /// ```
    pub fn left_shift<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        rhs: &TensorBase<S2, D2>,
    ) -> Result<Tensor<T, D::Output>>
    where
        D: DimMax<D2>,
    {
        super::core::check_broadcast(self.shape(), rhs.shape(), "left_shift")?;
        check_counts(rhs, "left_shift")?;
        zip_with(self, rhs, "left_shift", |x: T, n: T| x.shl_full(n))
    }

    /// `self >> rhs` element-wise with broadcasting, arithmetic (sign-filling) for signed
    /// types; 0 or −1 (by sign) where the count is the bit width or more. `Err` if the
    /// shapes do not broadcast or a count is negative.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![-16i8, 16, -1, 100], [4]).unwrap();
    /// let n = Tensor::from_vec(vec![2i8, 2, 100, 100], [4]).unwrap();
    /// assert_eq!(a.right_shift(&n).unwrap().to_vec(), vec![-4, 4, -1, 0]);
    /// ```
    pub fn right_shift<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        rhs: &TensorBase<S2, D2>,
    ) -> Result<Tensor<T, D::Output>>
    where
        D: DimMax<D2>,
    {
        super::core::check_broadcast(self.shape(), rhs.shape(), "right_shift")?;
        check_counts(rhs, "right_shift")?;
        zip_with(self, rhs, "right_shift", |x: T, n: T| x.shr_full(n))
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn shifts_at_and_past_the_width() {
        let a = Tensor::from_vec(vec![1u8, 255, 128], [3]).unwrap();
        assert_eq!(a.left_shift(&Tensor::scalar(7u8)).unwrap().to_vec(), vec![128, 128, 0]);
        assert_eq!(a.left_shift(&Tensor::scalar(8u8)).unwrap().to_vec(), vec![0, 0, 0]);
        assert_eq!(a.right_shift(&Tensor::scalar(7u8)).unwrap().to_vec(), vec![0, 1, 1]);
        assert_eq!(a.right_shift(&Tensor::scalar(200u8)).unwrap().to_vec(), vec![0, 0, 0]);
        let s = Tensor::from_vec(vec![i64::MIN, -1, 7], [3]).unwrap();
        assert_eq!(s.right_shift(&Tensor::scalar(63i64)).unwrap().to_vec(), vec![-1, -1, 0]);
        assert_eq!(s.right_shift(&Tensor::scalar(64i64)).unwrap().to_vec(), vec![-1, -1, 0]);
        assert_eq!(
            s.left_shift(&Tensor::scalar(63i64)).unwrap().to_vec(),
            vec![0, i64::MIN, i64::MIN]
        );
    }

    #[test]
    fn shift_errors_name_the_operation() {
        let a = Tensor::from_vec(vec![1i16, 2], [2]).unwrap();
        let e = a
            .right_shift(&Tensor::from_vec(vec![1i16, -2], [2]).unwrap())
            .unwrap_err();
        assert_eq!(e.to_string(), "right_shift: negative shift count");
        assert!(
            a.left_shift(&Tensor::<i16, _>::zeros([3]))
                .unwrap_err()
                .to_string()
                .starts_with("left_shift:")
        );
        let flipped = Tensor::from_vec(vec![1i16, 2, 3], [3]).unwrap();
        let r = flipped
            .flip(0)
            .unwrap()
            .left_shift(&Tensor::from_vec(vec![1i16], [1]).unwrap())
            .unwrap();
        assert_eq!(r.to_vec(), vec![6, 4, 2]);
    }
}
