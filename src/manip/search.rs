//! Binary search in a sorted 1-D tensor: `searchsorted`.

use super::owned;
use super::sort::SortElement;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Which insertion point [`TensorBase::searchsorted`] returns for values already
/// present (NumPy's `side`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1, 2, 2, 3], [4]).unwrap();
/// let v = Tensor::scalar(2);
/// assert_eq!(a.searchsorted(&v, Side::Left).unwrap().to_vec(), vec![1]);
/// assert_eq!(a.searchsorted(&v, Side::Right).unwrap().to_vec(), vec![3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Side {
    /// The first position `i` with `v <= a[i]`.
    #[default]
    Left,
    /// The first position `i` with `v < a[i]`.
    Right,
}

impl<T: SortElement, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Insertion points that keep this sorted 1-D tensor sorted (NumPy
    /// `searchsorted`), one per element of `values` (any shape; the result has its
    /// shape). Uses NumPy's order, so NaNs sort last. The tensor is assumed sorted
    /// ascending (unsorted input gives unspecified positions, as in NumPy). `Err` if
    /// this tensor is not 1-D.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, f64::NAN], [4]).unwrap();
    /// let v = Tensor::from_vec(vec![0.5, 2.0, 10.0, f64::NAN], [2, 2]).unwrap();
    /// let i = a.searchsorted(&v, Side::Left).unwrap();
    /// assert_eq!((i.shape(), i.to_vec()), (&[2usize, 2][..], vec![0, 1, 3, 3]));
    /// ```
    pub fn searchsorted<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        values: &TensorBase<S2, D2>,
        side: Side,
    ) -> Result<Tensor<usize, D2>> {
        let op = "searchsorted";
        if self.ndim() != 1 {
            return Err(Error::shape(
                op,
                format!("the sorted tensor must be 1-D, got shape {}", fmt_shape(self.shape())),
            ));
        }
        let (buf, st, off, n) = (
            self.storage.buffer(),
            self.strides()[0],
            self.offset() as isize,
            self.shape()[0],
        );
        let at = |i: usize| buf[(off + i as isize * st) as usize].sort_key();
        let shape = values.shape().to_vec();
        let out = crate::iter::zip::map_new(
            &shape,
            crate::iter::Src::of(values.storage.buffer(), &values.layout),
            |x: T| {
                let key = x.sort_key();
                let (mut lo, mut hi) = (0usize, n);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    let before = match side {
                        Side::Left => at(mid) < key,
                        Side::Right => at(mid) <= key,
                    };
                    if before { lo = mid + 1 } else { hi = mid }
                }
                lo
            },
        );
        owned(out, &shape, op)
    }
}
