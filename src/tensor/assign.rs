//! Writing through tensors and views: `assign` copies a scalar or another tensor
//! (broadcast) into this one's elements, `assign_at` into a slice of them.

use super::{Operand, TensorBase};
use crate::element::Element;
use crate::error::Result;
use crate::layout::slice::SliceItem;
use crate::layout::{Dimension, IxDyn};
use crate::storage::{Storage, StorageMut};

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Copies `src` (a scalar, or a tensor of any ownership kind and rank, NumPy-broadcast
    /// to this tensor's shape) into this tensor's elements — NumPy's `a[...] = src`; `Err` naming both shapes if `src` does not broadcast
    /// to it (nothing is written then). Through a [`TensorMut`](crate::TensorMut) from
    /// `slice_mut` the writes land in the parent tensor.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([2, 3]);
    /// a.slice_mut(s![.., 1..]).assign(&Tensor::from_vec(vec![7, 8], [2]).unwrap()).unwrap();
    /// assert_eq!(a.to_vec(), vec![0, 7, 8, 0, 7, 8]);
    /// assert!(a.assign(&Tensor::<i32, _>::zeros([2])).is_err());
    /// a.assign(5).unwrap();
    /// assert_eq!(a.to_vec(), vec![5; 6]);
    /// ```
    pub fn assign<O: Operand<T, D>>(&mut self, src: O) -> Result<()> {
        let src = src.operand_view();
        let b = crate::layout::transform::broadcast_layout(&src.layout, self.layout.shape(), "assign")?;
        self.storage.make_unique(&mut self.layout);
        let (shape, strides, off) = (
            self.layout.shape.clone(),
            self.layout.strides.clone(),
            self.layout.offset,
        );
        crate::iter::zip_into(
            shape.slice(),
            crate::iter::Dst::new(self.storage.buffer_mut(), strides.as_ref(), off),
            crate::iter::Src::of(src.storage.buffer(), &b),
            |o, x| *o = x,
        );
        Ok(())
    }

    /// NumPy's slice assignment `a[items] = src`: copies `src` (a scalar or any tensor,
    /// broadcast to the slice's shape) into the elements selected by `items` (the
    /// [`s!`](crate::s) items of [`slice_mut`](TensorBase::slice_mut)); PyTorch's
    /// `slice_scatter` in place. `Err` naming the shapes if the slice is invalid or
    /// `src` does not broadcast to it (nothing is written then).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([3, 4]);
    /// a.assign_at(s![1.., ..;2], &Tensor::from_vec(vec![7, 8], [2]).unwrap()).unwrap();
    /// a.assign_at(s![0, ..], 1).unwrap();
    /// assert_eq!(a.to_vec(), vec![1, 1, 1, 1, 7, 0, 8, 0, 7, 0, 8, 0]);
    /// assert!(a.assign_at(s![.., 5], 1).is_err());
    /// ```
    #[doc(alias = "slice_assign")]
    #[doc(alias = "setitem")]
    pub fn assign_at<O: Operand<T, IxDyn>>(&mut self, items: impl AsRef<[SliceItem]>, src: O) -> Result<()> {
        self.try_slice_mut(items)?.assign(src)
    }
}
