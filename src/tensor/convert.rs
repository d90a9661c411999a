//! Conversions between ownership kinds, ranks, vectors and scalars. Each method's
//! documentation states whether it copies.
//!
//! A conversion that copies needs memory for every element the tensor names, which
//! for a broadcast view can be far more than its buffer holds. When that memory cannot
//! be had (its byte size exceeds `isize::MAX`, or the allocator refuses it) the
//! conversion panics with a message naming the operation and the shape; it never
//! aborts the process.

use super::{Tensor, TensorArc, TensorBase, TensorCow, TensorMut, TensorView};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape, unwrap_or_panic};
use crate::layout::{Dimension, IntoShape, IxDyn, Layout, Order};
use crate::storage::alloc::{check_bytes, try_with_capacity};
use crate::storage::{ArcRepr, CowRepr, OwnedRepr, Storage, StorageMut, ViewMutRepr, ViewRepr};
use std::sync::Arc;

/// The panic of a conversion whose copy of `shape` exceeds `isize::MAX` bytes (a
/// refusal of the allocator panics in the engine's allocation).
#[track_caller]
fn check_copy<T: Element>(shape: &[usize], op: &'static str) {
    // A valid shape's element count fits usize.
    unwrap_or_panic(check_bytes::<T>(shape.iter().product(), shape, op));
}

/// The `# Panics` text shared by every copying conversion.
macro_rules! copy_panics_doc {
    () => {
        "# Panics\nIf the copy cannot be allocated (its byte size exceeds `isize::MAX`, or the allocator refuses it); the message names the operation and the shape."
    };
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A read-only view of the same memory. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([2, 2]);
    /// assert_eq!(a.view().as_ptr(), a.as_ptr());
    /// ```
    pub fn view(&self) -> TensorView<'_, T, D> {
        TensorBase {
            storage: ViewRepr(self.storage.buffer()),
            layout: self.layout.clone(),
        }
    }

    /// A row-major contiguous owned copy of the viewed elements. Always copies.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let t = a.t().to_owned();
    /// assert_eq!(t.to_vec(), vec![1, 3, 2, 4]);
    /// assert!(t.is_contiguous());
    /// ```
    #[track_caller]
    pub fn to_owned(&self) -> Tensor<T, D> {
        check_copy::<T>(self.shape(), "to_owned");
        let data = crate::iter::gather_c_order(self.storage.buffer(), &self.layout);
        let layout = Layout::new_order(self.layout.shape.clone(), Order::RowMajor).expect("valid shape");
        TensorBase {
            storage: OwnedRepr(data),
            layout,
        }
    }

    /// Same as [`TensorBase::to_owned`]: a row-major contiguous copy.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([2, 3]);
    /// assert!(a.t().to_contiguous().is_contiguous());
    /// ```
    #[track_caller]
    pub fn to_contiguous(&self) -> Tensor<T, D> {
        self.to_owned()
    }

    /// A copy-on-write tensor that borrows when the layout is already row-major
    /// contiguous and copies otherwise.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([2, 3]);
    /// assert!(a.as_standard_layout().is_view());
    /// assert!(!a.t().as_standard_layout().is_view());
    /// ```
    #[track_caller]
    pub fn as_standard_layout(&self) -> TensorCow<'_, T, D> {
        if self.is_contiguous() {
            TensorBase {
                storage: CowRepr::View(self.storage.buffer()),
                layout: self.layout.clone(),
            }
        } else {
            let t = self.to_owned();
            TensorBase {
                storage: CowRepr::Owned(t.storage.into_vec()),
                layout: t.layout,
            }
        }
    }

    /// Converts into an owned tensor. An owned tensor is returned as it is (no copy);
    /// a shared tensor is unwrapped without copying when it is the only reference; views,
    /// borrowed copy-on-write tensors and shared buffers with other references are
    /// copied, compacted to the viewed elements in row-major order.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([4]);
    /// let p = a.as_ptr();
    /// let b = a.into_owned();
    /// assert_eq!(b.as_ptr(), p);               // no copy
    /// let c = b.view().into_owned();
    /// assert_ne!(c.as_ptr(), p);               // a view always copies
    /// ```
    #[track_caller]
    pub fn into_owned(self) -> Tensor<T, D> {
        check_copy::<T>(self.shape(), "into_owned");
        let (v, layout) = self.storage.into_vec_parts(self.layout);
        TensorBase {
            storage: OwnedRepr(v),
            layout,
        }
    }

    /// Converts into a shared tensor. Owned memory moves into the `Arc` (no copy), a
    /// shared tensor is returned as it is, borrowed memory is copied and compacted.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([4]);
    /// let p = a.as_ptr();
    /// assert_eq!(a.into_shared().as_ptr(), p);
    /// ```
    #[track_caller]
    pub fn into_shared(self) -> TensorArc<T, D> {
        check_copy::<T>(self.shape(), "into_shared");
        let (arc, layout) = self.storage.into_arc_parts(self.layout);
        TensorBase {
            storage: ArcRepr(arc),
            layout,
        }
    }

    /// All elements in logical row-major order. Always copies.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// assert_eq!(a.t().to_vec(), vec![1, 3, 2, 4]);
    /// ```
    #[track_caller]
    pub fn to_vec(&self) -> Vec<T> {
        check_copy::<T>(self.shape(), "to_vec");
        crate::iter::gather_c_order(self.storage.buffer(), &self.layout)
    }

    /// All elements in logical row-major order, without copying when the memory already
    /// is exactly that vector (an owned or unique shared tensor whose layout is
    /// row-major contiguous over the whole buffer), at any rank.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::zeros([2, 3]);
    /// let p = a.as_ptr();
    /// let v = a.into_vec();
    /// assert_eq!(v.as_ptr(), p);
    /// ```
    #[track_caller]
    pub fn into_vec(self) -> Vec<T> {
        check_copy::<T>(self.shape(), "into_vec");
        let (v, layout) = self.storage.into_vec_parts(self.layout);
        if layout.is_c_contiguous() && layout.offset == 0 && v.len() == layout.size() {
            v
        } else {
            crate::iter::gather_c_order(&v, &layout)
        }
    }

    /// The single element of a one-element tensor of any rank; `Err` otherwise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::from_vec(vec![3], [1, 1]).unwrap().to_scalar().unwrap(), 3);
    /// assert!(Tensor::<i32, _>::zeros([2]).to_scalar().is_err());
    /// ```
    pub fn to_scalar(&self) -> Result<T> {
        if self.size() != 1 {
            return Err(Error::shape(
                "to_scalar",
                format!(
                    "only size-1 tensors convert to a scalar, got shape {}",
                    fmt_shape(self.shape())
                ),
            ));
        }
        Ok(self.storage.buffer()[self.layout.offset])
    }

    /// The same tensor with dynamic rank. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a: Tensor<f32, IxDyn> = Tensor::<f32, _>::zeros([2, 3]).into_dyn();
    /// assert_eq!(a.shape(), &[2, 3]);
    /// ```
    pub fn into_dyn(self) -> TensorBase<S, IxDyn> {
        TensorBase {
            storage: self.storage,
            layout: self.layout.into_dyn(),
        }
    }

    /// The same tensor with rank type `D2`; `Err` if the rank differs. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros(vec![2, 3]);
    /// let b: Tensor<f32, Ix2> = a.into_dim::<Ix2>().unwrap();
    /// assert!(b.into_dim::<Ix3>().is_err());
    /// ```
    pub fn into_dim<D2: Dimension>(self) -> Result<TensorBase<S, D2>> {
        Ok(TensorBase {
            storage: self.storage,
            layout: self.layout.into_dim()?,
        })
    }
}

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A writable view. Never copies for owned tensors and mutable views; a borrowed
    /// copy-on-write tensor is copied first, a shared tensor only when other references
    /// exist.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<f32, _>::zeros([2]);
    /// let p = a.as_ptr();
    /// let m = a.view_mut();
    /// assert_eq!(m.as_ptr(), p);
    /// ```
    #[track_caller]
    pub fn view_mut(&mut self) -> TensorMut<'_, T, D> {
        self.storage.make_unique(&mut self.layout);
        TensorBase {
            storage: ViewMutRepr(self.storage.buffer_mut()),
            layout: self.layout.clone(),
        }
    }

    /// Pointer to the element whose index is all zeros, for writing (makes the storage
    /// unique first, like [`TensorBase::view_mut`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<f32, _>::zeros([2]);
    /// assert_eq!(a.as_mut_ptr() as *const f32, a.as_ptr());
    /// ```
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.storage.make_unique(&mut self.layout);
        self.storage.buffer_mut().as_mut_ptr().wrapping_add(self.layout.offset)
    }

    /// The elements as one mutable slice in row-major order, if the layout is row-major
    /// contiguous.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([3]);
    /// a.as_slice_mut().unwrap()[1] = 4;
    /// assert_eq!(a.to_vec(), vec![0, 4, 0]);
    /// ```
    pub fn as_slice_mut(&mut self) -> Option<&mut [T]> {
        self.storage.make_unique(&mut self.layout);
        if self.is_contiguous() {
            let (o, n) = (self.layout.offset, self.size());
            if n == 0 {
                return Some(&mut []);
            }
            Some(&mut self.storage.buffer_mut()[o..o + n])
        } else {
            None
        }
    }
}

impl<T: Element, D: Dimension> Tensor<T, D> {
    /// Returns the tensor as it is (owned, layout kept). Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2]);
    /// let p = a.as_ptr();
    /// assert_eq!(a.into_owned_keep_layout().as_ptr(), p);
    /// ```
    pub fn into_owned_keep_layout(self) -> Tensor<T, D> {
        self
    }

    /// A copy-on-write tensor owning this memory. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2]);
    /// let p = a.as_ptr();
    /// let c = a.into_cow();
    /// assert!(!c.is_view());
    /// assert_eq!(c.as_ptr(), p);
    /// ```
    pub fn into_cow(self) -> TensorCow<'static, T, D> {
        TensorBase {
            storage: CowRepr::Owned(self.storage.into_vec()),
            layout: self.layout,
        }
    }

    /// Reshapes an owned tensor to `shape` (row-major element order), reusing the
    /// buffer without copying when the layout allows a view (NumPy's rules), else
    /// copying.
    ///
    /// # Errors
    /// If the sizes differ or the new shape breaks a [shape
    /// limit](crate::layout::check_shape).
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(12);
    /// let p = a.as_ptr();
    /// let b = a.into_shape([3, 4]).unwrap();
    /// assert_eq!(b.as_ptr(), p);
    /// assert_eq!(b[[2, 1]], 9);
    /// ```
    #[track_caller]
    pub fn into_shape<Sh: IntoShape>(self, shape: Sh) -> Result<Tensor<T, Sh::Dim>> {
        let shape = shape.into_dim();
        match crate::layout::reshape::reshape_layout(&self.layout, shape.clone(), Order::RowMajor, "into_shape")? {
            Some(layout) => Ok(TensorBase {
                storage: self.storage,
                layout,
            }),
            None => Tensor::owned_from(self.to_vec(), shape, Order::RowMajor, "into_shape"),
        }
    }

    /// The underlying vector and the layout that reads it. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let (v, layout) = Tensor::<i32, _>::arange(3).into_raw_parts();
    /// assert_eq!(v, vec![0, 1, 2]);
    /// assert_eq!(layout.shape(), &[3]);
    /// ```
    pub fn into_raw_parts(self) -> (Vec<T>, Layout<D>) {
        (self.storage.into_vec(), self.layout)
    }

    /// An owned tensor from a vector and a layout over it. Never copies.
    ///
    /// # Errors
    /// If the shape breaks a [shape limit](crate::layout::check_shape), the layout
    /// reaches outside the vector, or two indices would name one element (a writable
    /// tensor must not alias).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::layout::Layout;
    /// let t = Tensor::from_raw_parts(vec![1, 2, 3, 4], Layout::new([2usize, 2], [1isize, 2], 0)).unwrap();
    /// assert_eq!(t.to_vec(), vec![1, 3, 2, 4]);
    /// assert!(Tensor::from_raw_parts(vec![1, 2], Layout::new([2usize, 2], [1isize, 1], 0)).is_err());
    /// ```
    pub fn from_raw_parts(data: Vec<T>, layout: Layout<D>) -> Result<Self> {
        crate::layout::check_no_alias(&layout, "from_raw_parts")?;
        TensorBase::from_parts(OwnedRepr(data), layout, "from_raw_parts")
    }
}

impl<T: Element, D: Dimension> TensorArc<T, D> {
    /// Converts into an owned tensor keeping the strided layout: no copy when this is
    /// the only reference, else a copy of the whole buffer (layout kept).
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2, 3]).into_shared();
    /// let b = a.clone();
    /// let owned = a.into_owned_keep_layout();   // b still shares: copies
    /// assert_ne!(owned.as_ptr(), b.as_ptr());
    /// ```
    #[track_caller]
    pub fn into_owned_keep_layout(self) -> Tensor<T, D> {
        let v = match Arc::try_unwrap(self.storage.into_arc()) {
            Ok(v) => v,
            Err(shared) => {
                let op = "into_owned_keep_layout";
                let mut v = unwrap_or_panic(try_with_capacity(shared.len(), &[shared.len()], op));
                v.extend_from_slice(&shared);
                v
            }
        };
        TensorBase {
            storage: OwnedRepr(v),
            layout: self.layout,
        }
    }

    /// A copy-on-write tensor owning this memory: no copy when this is the only
    /// reference, else a compacted copy.
    ///
    #[doc = copy_panics_doc!()]
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2]).into_shared();
    /// assert!(!a.into_cow().is_view());
    /// ```
    #[track_caller]
    pub fn into_cow(self) -> TensorCow<'static, T, D> {
        self.into_owned().into_cow()
    }
}

impl<'a, T: Element, D: Dimension> TensorView<'a, T, D> {
    /// A copy-on-write tensor borrowing the same memory. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2]);
    /// assert!(a.view().into_cow().is_view());
    /// ```
    pub fn into_cow(self) -> TensorCow<'a, T, D> {
        TensorBase {
            storage: CowRepr::View(self.storage.0),
            layout: self.layout,
        }
    }
}

impl<'a, T: Element, D: Dimension> TensorCow<'a, T, D> {
    /// True while the tensor borrows memory (before any write).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2]);
    /// let mut c = a.view().into_cow();
    /// assert!(c.is_view());
    /// c.view_mut()[[0]] = 1.0;                   // copies on write
    /// assert!(!c.is_view());
    /// ```
    pub fn is_view(&self) -> bool {
        matches!(self.storage, CowRepr::View(_))
    }

    /// Returns the tensor as it is. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2]);
    /// assert!(a.view().into_cow().into_cow().is_view());
    /// ```
    pub fn into_cow(self) -> TensorCow<'a, T, D> {
        self
    }
}
