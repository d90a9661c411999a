//! The rank type of a broadcast result: [`DimMax`].

use crate::layout::{Dimension, IxDyn};

/// The rank type of the result of a binary operation between rank types `Self` and
/// `Other`: the same type when both are equal, [`IxDyn`] otherwise.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::ops::DimMax;
/// let a = Tensor::<f32, _>::ones([2, 3]);
/// let b = Tensor::<f32, _>::ones([3]);
/// let c: Tensor<f32, <Ix2 as DimMax<Ix1>>::Output> = &a + &b;   // IxDyn
/// assert_eq!(c.shape(), &[2, 3]);
/// let d: Tensor<f32, Ix2> = &a + &a;
/// assert_eq!(d.shape(), &[2, 3]);
/// ```
pub trait DimMax<Other: Dimension>: Dimension {
    /// The result's rank type.
    type Output: Dimension;
}

impl<const N: usize> DimMax<[usize; N]> for [usize; N] {
    type Output = [usize; N];
}
impl DimMax<IxDyn> for IxDyn {
    type Output = IxDyn;
}
impl<const N: usize> DimMax<IxDyn> for [usize; N] {
    type Output = IxDyn;
}
impl<const N: usize> DimMax<[usize; N]> for IxDyn {
    type Output = IxDyn;
}

macro_rules! unequal_ranks {
    ($($n:literal: $($m:literal)*;)*) => {$($(
        impl DimMax<[usize; $m]> for [usize; $n] {
            type Output = IxDyn;
        }
    )*)*};
}
unequal_ranks!(
    0: 1 2 3 4 5 6;
    1: 0 2 3 4 5 6;
    2: 0 1 3 4 5 6;
    3: 0 1 2 4 5 6;
    4: 0 1 2 3 5 6;
    5: 0 1 2 3 4 6;
    6: 0 1 2 3 4 5;
);
