//! Index element types for gathering and scattering.

use crate::element::Element;
use crate::error::{Error, Result};

/// Integer types usable as indices (`usize`, `isize`, `i64`, `i32`, `u32`, `u64`, …),
/// e.g. the output of [`argsort`](crate::TensorBase::argsort) (`usize`) or
/// PyTorch-style `i64` index tensors.
///
/// ```
/// use ferrotensor::manip::IndexElement;
/// assert_eq!((-1i64).to_i128(), -1);
/// assert_eq!(7usize.to_i128(), 7);
/// ```
pub trait IndexElement: Element {
    /// The index as `i128` (exact for every implementing type).
    fn to_i128(self) -> i128;
}

macro_rules! impl_index {
    ($($t:ty),*) => {$(
        impl IndexElement for $t {
            #[inline(always)]
            fn to_i128(self) -> i128 { self as i128 }
        }
    )*};
}
impl_index!(usize, isize, i64, i32, i16, i8, u64, u32, u16, u8);

/// Resolves index `i` against an axis of length `n`: negative indices count from the
/// end when `negative` is set (NumPy), else they are out of range (PyTorch `gather`).
#[inline]
pub(crate) fn resolve<I: IndexElement>(i: I, n: usize, negative: bool, axis: usize, op: &'static str) -> Result<usize> {
    let v = i.to_i128();
    let w = if negative && v < 0 { v + n as i128 } else { v };
    if w < 0 || w >= n as i128 {
        return Err(Error::index(
            op,
            format!("index {v} is out of bounds for axis {axis} with size {n}"),
        ));
    }
    Ok(w as usize)
}
