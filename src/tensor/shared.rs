//! Tensors over memory made elsewhere: views that share ownership (a [`TensorArc`] whose
//! layout comes from a view operation, holding one more reference to the same buffer
//! instead of borrowing it, as a language binding needs when a slice of an array must
//! outlive the borrow that made it), and views of a borrowed slice with any layout (such
//! as memory received from another library).

use super::{TensorArc, TensorBase, TensorView};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{Dimension, Layout};
use crate::storage::{ArcRepr, ViewRepr};
use std::sync::Arc;

impl<T: Element, D: Dimension> TensorArc<T, D> {
    /// A shared tensor from a shared buffer and a layout over it; `Err` if the layout
    /// reaches outside the buffer.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::layout::Layout;
    /// let buf = std::sync::Arc::new(vec![1, 2, 3, 4]);
    /// let t = TensorArc::from_arc_parts(buf.clone(), Layout::new([2usize, 2], [1isize, 2], 0)).unwrap();
    /// assert_eq!(t.to_vec(), vec![1, 3, 2, 4]);
    /// assert!(TensorArc::from_arc_parts(buf, Layout::new([3usize], [2isize], 0)).is_err());
    /// ```
    pub fn from_arc_parts(buffer: Arc<Vec<T>>, layout: Layout<D>) -> Result<Self> {
        TensorBase::from_parts(ArcRepr(buffer), layout, "from_arc_parts")
    }

    /// The shared buffer (every element, including those the layout skips).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([3]).into_shared();
    /// let b = a.clone();
    /// assert_eq!(std::sync::Arc::strong_count(a.arc()), 2);
    /// assert!(std::sync::Arc::ptr_eq(a.arc(), b.arc()));
    /// ```
    pub fn arc(&self) -> &Arc<Vec<T>> {
        &self.storage.0
    }

    /// Applies a view operation and returns its result as a shared tensor over the same
    /// buffer (one more reference, no copy). `Err` if `f` fails, or if it returns a view
    /// of other memory than this tensor's buffer.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap().into_shared();
    /// let col = a.share_view(|v| v.try_slice(s![.., 1])).unwrap();
    /// assert_eq!(col.to_vec(), vec![1, 4]);
    /// assert_eq!(col.buffer().as_ptr(), a.buffer().as_ptr());
    /// let t = a.share_view(|v| Ok(v.t())).unwrap();
    /// assert_eq!(t.shape(), &[3, 2]);
    /// ```
    pub fn share_view<D2: Dimension>(
        &self,
        f: impl FnOnce(TensorView<'_, T, D>) -> Result<TensorView<'_, T, D2>>,
    ) -> Result<TensorArc<T, D2>> {
        let buf = self.storage.0.as_slice();
        let view = f(self.view())?;
        let vb = view.storage.0;
        if vb.as_ptr() != buf.as_ptr() || vb.len() != buf.len() {
            return Err(Error::value(
                "share_view",
                "the view operation returned a view of other memory than the shared buffer",
            ));
        }
        Ok(TensorBase {
            storage: ArcRepr(Arc::clone(&self.storage.0)),
            layout: view.layout,
        })
    }

    /// True if this is the only reference to the buffer (a write would not copy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([3]).into_shared();
    /// assert!(a.is_unique());
    /// let b = a.clone();
    /// assert!(!a.is_unique() && !b.is_unique());
    /// ```
    pub fn is_unique(&self) -> bool {
        Arc::strong_count(&self.storage.0) == 1 && Arc::weak_count(&self.storage.0) == 0
    }
}

impl<'a, T: Element, D: Dimension> TensorView<'a, T, D> {
    /// A view of `buffer` through `layout` (any strides, negative or zero, and offset);
    /// `Err` if the layout reaches outside the slice.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::layout::Layout;
    /// let buf = [1, 2, 3, 4, 5, 6];
    /// let v = TensorView::from_slice_layout(&buf, Layout::new([2usize, 2], [-3isize, 2], 3)).unwrap();
    /// assert_eq!(v.to_vec(), vec![4, 6, 1, 3]);
    /// assert!(TensorView::from_slice_layout(&buf, Layout::new([3usize], [3isize], 0)).is_err());
    /// ```
    pub fn from_slice_layout(buffer: &'a [T], layout: Layout<D>) -> Result<Self> {
        TensorBase::from_parts(ViewRepr(buffer), layout, "from_slice_layout")
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn shared_views_keep_the_buffer_alive() {
        let a = Tensor::<i64, _>::arange(12).into_shape([3, 4]).unwrap().into_shared();
        let v = a.share_view(|v| v.try_slice(s![1.., ..;-2])).unwrap();
        drop(a);
        assert_eq!(v.to_vec(), vec![7, 5, 11, 9]);
        assert_eq!(v.shape(), &[2, 2]);
    }

    #[test]
    fn share_view_rejects_foreign_memory() {
        // `f` is generic over the view's lifetime, so only 'static memory can get here.
        let other: &'static Tensor<f32, Ix1> = Box::leak(Box::new(Tensor::<f32, _>::zeros([4])));
        let a = Tensor::<f32, _>::zeros([4]).into_shared();
        let e = a.share_view(|_| Ok(other.view())).unwrap_err();
        assert!(e.to_string().starts_with("share_view:"));
    }

    #[test]
    fn writes_after_sharing_copy() {
        let a = Tensor::<i32, _>::arange(4).into_shared();
        let mut b = a.share_view(|v| v.try_slice(s![1..])).unwrap();
        b.slice_mut(s![0]).fill(9);
        assert_eq!(a.to_vec(), vec![0, 1, 2, 3]);
        assert_eq!(b.to_vec(), vec![9, 2, 3]);
    }
}
