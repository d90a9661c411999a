//! Writing through tensors and views: `assign` copies another tensor (broadcast) into
//! this one's elements.

use super::TensorBase;
use crate::element::Element;
use crate::error::Result;
use crate::layout::Dimension;
use crate::storage::{Storage, StorageMut};

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Copies `src` (any ownership kind and rank, NumPy-broadcast to this tensor's shape)
    /// into this tensor's elements; `Err` naming both shapes if `src` does not broadcast
    /// to it (nothing is written then). Through a [`TensorMut`](crate::TensorMut) from
    /// `slice_mut` the writes land in the parent tensor.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([2, 3]);
    /// a.slice_mut(s![.., 1..]).assign(&Tensor::from_vec(vec![7, 8], [2]).unwrap()).unwrap();
    /// assert_eq!(a.to_vec(), vec![0, 7, 8, 0, 7, 8]);
    /// assert!(a.assign(&Tensor::<i32, _>::zeros([2])).is_err());
    /// ```
    pub fn assign<S2: Storage<Elem = T>, D2: Dimension>(&mut self, src: &TensorBase<S2, D2>) -> Result<()> {
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
}
