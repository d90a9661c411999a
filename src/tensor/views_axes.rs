//! More axis views: `moveaxis`, `squeeze_axes`, `narrow`, `step_by`, `diagonal`, and the
//! rank-keeping `slice_ranges`. Each computes only a new layout; none copies.
//!
//! On a [`TensorView`] the methods return views with the buffer's lifetime; the other
//! ownership kinds get borrowing twins (all written once through `view_methods!`), and
//! writable tensors get `_mut` variants that return [`TensorMut`].

use super::view_methods::view_methods;
use super::{TensorBase, TensorMut, TensorView};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::slice::{SliceItem, slice_layout};
use crate::layout::transform as tf;
use crate::layout::{Dimension, IxDyn, Layout, RemoveAxis};
use crate::storage::{StorageMut, ViewMutRepr};

/// The layout of a slice made of ranges only (and at most one `Ellipsis`), which keeps
/// the rank; `Err` for an integer index or `NewAxis`.
pub(crate) fn slice_ranges_layout<D: Dimension>(layout: &Layout<D>, items: &[SliceItem]) -> Result<Layout<D>> {
    if let Some(bad) = items
        .iter()
        .find(|i| matches!(i, SliceItem::Index(_) | SliceItem::NewAxis))
    {
        return Err(Error::index(
            "slice_ranges",
            format!(
                "only ranges (and one Ellipsis) keep the rank; got {:?} for shape {}",
                bad,
                fmt_shape(layout.shape())
            ),
        ));
    }
    slice_layout(layout, items)?.into_dim()
}

view_methods! { 'a;
    /// Moves axis `src` to position `dst` (NumPy `moveaxis`); the other axes keep their
    /// order. Negative axes count from the end.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2, 3, 4]);
    /// let m = a.view().moveaxis(0, -1).unwrap();
    /// assert_eq!(m.shape(), &[3, 4, 2]);
    /// assert_eq!(m.as_ptr(), a.as_ptr());
    /// ```
    fn moveaxis(&self, src: isize, dst: isize) -> Result<TensorView<'a, T, D>> {
        Ok(self.with_layout(tf::moveaxis_layout(&self.layout, src, dst)?))
    }

    /// Removes the listed axes, each of which must have length 1 (NumPy
    /// `squeeze(axis=...)`); `Err` otherwise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([1, 3, 1]);
    /// assert_eq!(a.view().squeeze_axes(&[0]).unwrap().shape(), &[3, 1]);
    /// assert!(a.view().squeeze_axes(&[1]).is_err());
    /// ```
    fn squeeze_axes(&self, axes: &[isize]) -> Result<TensorView<'a, T, IxDyn>> {
        Ok(self.with_layout(tf::squeeze_axes_layout(&self.layout, axes)?))
    }

    /// `len` elements of `axis` from `start` (negative counts from the end), as
    /// PyTorch's `narrow`; `Err` if that leaves the axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(10);
    /// assert_eq!(a.view().narrow(0, 2, 3).unwrap().to_vec(), vec![2, 3, 4]);
    /// assert_eq!(a.view().narrow(0, -2, 2).unwrap().to_vec(), vec![8, 9]);
    /// assert!(a.view().narrow(0, 8, 3).is_err());
    /// ```
    fn narrow(&self, axis: isize, start: isize, len: usize) -> Result<TensorView<'a, T, D>> {
        Ok(self.with_layout(tf::narrow_layout(&self.layout, axis, start, len)?))
    }

    /// Every `step`-th element along `axis` (Python's `[::step]`: a negative step
    /// starts from the last element); `Err` for step 0.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(10);
    /// assert_eq!(a.view().step_by(0, 4).unwrap().to_vec(), vec![0, 4, 8]);
    /// assert_eq!(a.view().step_by(0, -4).unwrap().to_vec(), vec![9, 5, 1]);
    /// assert!(a.view().step_by(0, 0).is_err());
    /// ```
    fn step_by(&self, axis: isize, step: isize) -> Result<TensorView<'a, T, D>> {
        Ok(self.with_layout(tf::step_layout(&self.layout, axis, step)?))
    }

    /// NumPy's `diagonal(offset, axis1, axis2)` as a view: both axes are removed and the
    /// diagonal becomes the last axis, so the result has one axis fewer (`Ix3` gives
    /// `Ix2`; [`RemoveAxis`]). `offset > 0` is above the main diagonal. `Err` below two
    /// axes, for an axis out of range, or for `axis1 == axis2`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(12).into_shape([3, 4]).unwrap();
    /// let d: TensorView<'_, i32, Ix1> = a.view().diagonal(0, 0, 1).unwrap();
    /// assert_eq!(d.to_vec(), vec![0, 5, 10]);
    /// assert_eq!(a.view().diagonal(1, 0, 1).unwrap().to_vec(), vec![1, 6, 11]);
    /// assert_eq!(a.view().diagonal(-1, 0, 1).unwrap().to_vec(), vec![4, 9]);
    /// assert!(a.view().diagonal(0, 1, -1).is_err());
    /// ```
    fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<TensorView<'a, T, <D as RemoveAxis>::Smaller>>
    where D: RemoveAxis
    {
        Ok(self.with_layout(tf::diagonal_layout(&self.layout, offset, axis1, axis2)?.into_dim()?))
    }

    /// Slicing that keeps the rank type `D`: only range items (and at most one
    /// `Ellipsis`, which keeps the rank too) are allowed; `Err` for an integer index or
    /// `NewAxis` (use [`TensorView::try_slice`] for those) and as `try_slice` otherwise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(12).into_shape([3, 4]).unwrap();
    /// let v: TensorView<'_, i32, Ix2> = a.view().slice_ranges(s![1.., ..;-2]).unwrap();
    /// assert_eq!(v.to_vec(), vec![7, 5, 11, 9]);
    /// assert!(a.view().slice_ranges(s![0, ..]).is_err());
    /// ```
    fn slice_ranges(&self, items: impl AsRef<[SliceItem]>) -> Result<TensorView<'a, T, D>> {
        Ok(self.with_layout(slice_ranges_layout(&self.layout, items.as_ref())?))
    }
}

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A writable view with the layout `f` computes from this tensor's layout.
    fn relayout_mut<D2: Dimension>(
        &mut self,
        f: impl Fn(&Layout<D>) -> Result<Layout<D2>>,
    ) -> Result<TensorMut<'_, T, D2>> {
        f(&self.layout)?; // fail before a copy-on-write tensor copies
        self.storage.make_unique(&mut self.layout);
        let layout = f(&self.layout)?; // make_unique may have compacted the layout
        Ok(TensorBase {
            storage: ViewMutRepr(self.storage.buffer_mut()),
            layout,
        })
    }

    /// A writable rank-keeping slice (ranges only). See [`TensorView::slice_ranges`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([2, 4]);
    /// a.slice_ranges_mut(s![.., 1..;2]).unwrap().fill(1);
    /// assert_eq!(a.to_vec(), vec![0, 1, 0, 1, 0, 1, 0, 1]);
    /// ```
    pub fn slice_ranges_mut(&mut self, items: impl AsRef<[SliceItem]>) -> Result<TensorMut<'_, T, D>> {
        self.relayout_mut(|l| slice_ranges_layout(l, items.as_ref()))
    }

    /// A writable sub-range of one axis. See [`TensorView::narrow`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([5]);
    /// a.narrow_mut(0, 1, 2).unwrap().fill(7);
    /// assert_eq!(a.to_vec(), vec![0, 7, 7, 0, 0]);
    /// ```
    pub fn narrow_mut(&mut self, axis: isize, start: isize, len: usize) -> Result<TensorMut<'_, T, D>> {
        self.relayout_mut(|l| tf::narrow_layout(l, axis, start, len))
    }

    /// A writable view of every `step`-th element along `axis`. See [`TensorView::step_by`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([5]);
    /// a.step_by_mut(0, -2).unwrap().fill(1);
    /// assert_eq!(a.to_vec(), vec![1, 0, 1, 0, 1]);
    /// ```
    pub fn step_by_mut(&mut self, axis: isize, step: isize) -> Result<TensorMut<'_, T, D>> {
        self.relayout_mut(|l| tf::step_layout(l, axis, step))
    }

    /// A writable diagonal. See [`TensorView::diagonal`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([3, 3]);
    /// a.diagonal_mut(0, 0, 1).unwrap().fill(1);
    /// assert_eq!(a.to_vec(), Tensor::<i32, _>::eye(3).to_vec());
    /// ```
    pub fn diagonal_mut(&mut self, offset: isize, axis1: isize, axis2: isize) -> Result<TensorMut<'_, T, D::Smaller>>
    where
        D: RemoveAxis,
    {
        self.relayout_mut(|l| tf::diagonal_layout(l, offset, axis1, axis2)?.into_dim())
    }

    /// A writable view with axes reordered. See [`TensorView::permute`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([2, 3]);
    /// a.permute_mut(&[1, 0]).unwrap()[[2, 1]] = 5;
    /// assert_eq!(a[[1, 2]], 5);
    /// ```
    pub fn permute_mut(&mut self, axes: &[isize]) -> Result<TensorMut<'_, T, D>> {
        self.relayout_mut(|l| tf::permute_layout(l, axes))
    }
}
