//! The tensor type: [`TensorBase`] = storage + layout, and its five ownership kinds.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f64, _>::zeros([2, 3]);      // owned, Tensor<f64, Ix2>
//! let v: TensorView<'_, f64, Ix2> = a.view();   // borrowed, no copy
//! assert_eq!(v.as_ptr(), a.as_ptr());
//! assert_eq!(v.shape(), &[2, 3]);
//! ```

mod access;
mod assign;
mod convert;
mod create;
mod fmt;
mod operand;
mod select;
mod shared;
#[cfg(test)]
mod tests;
pub(crate) mod view_methods;
mod views;
mod views_axes;
mod views_reshape;

pub use operand::Operand;

use crate::layout::{Dimension, IxDyn, Layout};
use crate::storage::{ArcRepr, CowRepr, OwnedRepr, Storage, ViewMutRepr, ViewRepr};

/// An n-dimensional tensor: a storage `S` (one of the five ownership kinds) and a
/// [`Layout`] of rank type `D` over it. Use the aliases [`Tensor`], [`TensorView`],
/// [`TensorMut`], [`TensorCow`] and [`TensorArc`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let a: Tensor<i32, Ix1> = Tensor::arange(4);
/// assert_eq!(a.to_vec(), vec![0, 1, 2, 3]);
/// ```
pub struct TensorBase<S: Storage, D: Dimension> {
    pub(crate) storage: S,
    pub(crate) layout: Layout<D>,
}

/// An owned tensor (a `Vec<T>` and a layout).
///
/// ```
/// let a = ferrotensor::Tensor::<f32, _>::ones([2]);
/// assert_eq!(a.to_vec(), vec![1.0, 1.0]);
/// ```
pub type Tensor<T, D = IxDyn> = TensorBase<OwnedRepr<T>, D>;
/// A read-only view borrowing another tensor's memory; cheap to clone.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::ones([2]);
/// let v: TensorView<'_, f32, Ix1> = a.view();
/// let w = v.clone();
/// assert_eq!(w.as_ptr(), a.as_ptr());
/// ```
pub type TensorView<'a, T, D = IxDyn> = TensorBase<ViewRepr<'a, T>, D>;
/// A writable view borrowing another tensor's memory.
///
/// ```
/// use ferrotensor::prelude::*;
/// let mut a = Tensor::<f32, _>::zeros([2]);
/// let mut m: TensorMut<'_, f32, Ix1> = a.view_mut();
/// m[[1]] = 5.0;
/// assert_eq!(a.to_vec(), vec![0.0, 5.0]);
/// ```
pub type TensorMut<'a, T, D = IxDyn> = TensorBase<ViewMutRepr<'a, T>, D>;
/// A copy-on-write tensor: borrowed until written, then owned.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::zeros([4]);
/// let c = a.reshape([2, 2]).unwrap();          // a view: no copy
/// assert!(c.is_view());
/// ```
pub type TensorCow<'a, T, D = IxDyn> = TensorBase<CowRepr<'a, T>, D>;
/// A shared tensor (`Arc`): clones are cheap; a write copies only when shared.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::zeros([2]).into_shared();
/// let b = a.clone();
/// assert_eq!(a.as_ptr(), b.as_ptr());
/// ```
pub type TensorArc<T, D = IxDyn> = TensorBase<ArcRepr<T>, D>;

impl<S: Storage + Clone, D: Dimension> Clone for TensorBase<S, D> {
    fn clone(&self) -> Self {
        TensorBase {
            storage: self.storage.clone(),
            layout: self.layout.clone(),
        }
    }
}

impl<S: Storage, D: Dimension> TensorBase<S, D> {
    /// Builds a tensor from storage and a layout, checking that the layout stays inside
    /// the buffer.
    pub(crate) fn from_parts(storage: S, layout: Layout<D>, op: &'static str) -> crate::Result<Self> {
        layout.check_in_buffer(storage.buffer().len(), op)?;
        Ok(TensorBase { storage, layout })
    }

    /// The lengths of the axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).shape(), &[2, 3]);
    /// ```
    #[inline]
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }
    /// The shape as the rank type `D`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let d: [usize; 2] = *Tensor::<f32, _>::zeros([2, 3]).dim();
    /// assert_eq!(d, [2, 3]);
    /// ```
    #[inline]
    pub fn dim(&self) -> &D {
        self.layout.dim()
    }
    /// Strides in elements (signed: negative after a flip).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).strides(), &[3, 1]);
    /// ```
    #[inline]
    pub fn strides(&self) -> &[isize] {
        self.layout.strides()
    }
    /// Number of axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).ndim(), 2);
    /// ```
    #[inline]
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    /// Number of elements.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).size(), 6);
    /// ```
    #[inline]
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    /// True if the tensor has no elements.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert!(Tensor::<f32, _>::zeros([2, 0]).is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.size() == 0
    }
    /// The layout (shape, strides, offset).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).layout().offset(), 0);
    /// ```
    #[inline]
    pub fn layout(&self) -> &Layout<D> {
        &self.layout
    }
    /// Row-major contiguity (NumPy's `C_CONTIGUOUS` flag).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2, 3]);
    /// assert!(a.is_contiguous());
    /// assert!(!a.t().is_contiguous());
    /// ```
    #[inline]
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_c_contiguous()
    }
    /// Column-major contiguity (NumPy's `F_CONTIGUOUS` flag).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert!(Tensor::<f32, _>::zeros([2, 3]).t().is_f_contiguous());
    /// ```
    #[inline]
    pub fn is_f_contiguous(&self) -> bool {
        self.layout.is_f_contiguous()
    }
    /// Index in the underlying buffer of the element whose index is all zeros.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(10);
    /// assert_eq!(a.slice(s![3..]).offset(), 3);
    /// ```
    #[inline]
    pub fn offset(&self) -> usize {
        self.layout.offset
    }
    /// Pointer to the element whose index is all zeros.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(10);
    /// assert_eq!(a.view().as_ptr(), a.as_ptr());
    /// ```
    #[inline]
    pub fn as_ptr(&self) -> *const S::Elem {
        self.storage.buffer().as_ptr().wrapping_add(self.layout.offset)
    }
    /// The whole underlying buffer, including elements this tensor's layout skips.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(4);
    /// assert_eq!(a.slice(s![..;2]).buffer(), &[0, 1, 2, 3]);
    /// ```
    #[inline]
    pub fn buffer(&self) -> &[S::Elem] {
        self.storage.buffer()
    }
    /// The elements as one slice in row-major order, if the layout is row-major
    /// contiguous.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(4);
    /// assert_eq!(a.as_slice(), Some(&[0, 1, 2, 3][..]));
    /// assert_eq!(a.slice(s![..;2]).as_slice(), None);
    /// ```
    pub fn as_slice(&self) -> Option<&[S::Elem]> {
        if self.is_contiguous() {
            let n = self.size();
            if n == 0 {
                return Some(&[]);
            }
            Some(&self.storage.buffer()[self.layout.offset..self.layout.offset + n])
        } else {
            None
        }
    }
}
