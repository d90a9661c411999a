//! Conversions between ferrotensor and [`ndarray`](https://docs.rs/ndarray) (feature
//! `ndarray`). Both libraries describe memory by shape, signed strides in elements and
//! a pointer to the first element, so views convert without copying:
//!
//! | from | to | copies? |
//! |---|---|---|
//! | any tensor (`&TensorBase`), via [`TensorBase::as_ndarray`] | `ArrayView<T, IxDyn>` | never, any layout (negative, zero strides too) |
//! | `TensorView<'a>` (`From`) | `ArrayView<'a, T, IxDyn>` | never |
//! | `Tensor` (`From`) | `Array<T, IxDyn>` | no, unless elements precede the lowest-addressed one (then a row-major copy) |
//! | `ArrayView<'a>` (`From`) | `TensorCow<'a, T>` | no when the elements are contiguous in memory in any axis order and sign; gapped views (e.g. every 2nd column) are copied |
//! | `ArrayView<'a>` (`TryFrom`) | `TensorView<'a, T>` | never; `Err` for gapped views |
//! | `Array` (`From`) | `Tensor<T>` | never, any layout |
//!
//! Gapped ndarray views are copied because a ferrotensor view borrows a whole slice,
//! and the memory between an ndarray view's elements is not guaranteed to hold valid
//! values (a view may be built over raw memory).
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
//! let v = a.slice(s![.., ..;-1]);                  // negative stride
//! let nd: ndarray::ArrayView<'_, i32, ndarray::IxDyn> = v.clone().into();
//! assert_eq!(nd.as_ptr(), v.as_ptr());              // same memory
//! assert_eq!(nd[[1, 0]], 5);
//!
//! let back: TensorCow<'_, i32> = nd.into();
//! assert!(back.is_view());
//! assert_eq!(back.to_vec(), vec![2, 1, 0, 5, 4, 3]);
//! ```

use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::dim::StrideVec;
use crate::layout::{Dimension, IxDyn, Layout};
use crate::storage::{Storage, ViewRepr};
use crate::tensor::{Tensor, TensorBase, TensorCow, TensorView};
use ndarray::ShapeBuilder;

/// An ndarray view of `buf` through `layout` (checked in-buffer when it was built).
fn nd_view<'a, T, D: Dimension>(buf: &'a [T], layout: &Layout<D>) -> ndarray::ArrayView<'a, T, ndarray::IxDyn> {
    let shape = ndarray::IxDyn(layout.shape());
    match layout.extent() {
        Ok(Some((lo, hi))) => {
            let strides: Vec<usize> = layout.strides().iter().map(|&s| s as usize).collect();
            ndarray::ArrayView::from_shape(shape.strides(ndarray::IxDyn(&strides)), &buf[lo..=hi])
                .expect("a tensor's layout lies inside its buffer, so ndarray accepts it")
        }
        _ => ndarray::ArrayView::from_shape(shape, &[]).expect("an empty shape fits an empty slice"),
    }
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A zero-copy `ndarray` view of this tensor, for any layout.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([2, 3]);
    /// let nd = a.t().as_ndarray().to_owned();
    /// assert_eq!(nd.shape(), &[3, 2]);
    /// assert_eq!(a.t().as_ndarray().strides(), &[1, 3]);
    /// ```
    pub fn as_ndarray(&self) -> ndarray::ArrayView<'_, T, ndarray::IxDyn> {
        nd_view(self.storage.buffer(), &self.layout)
    }
}

impl<'a, T: Element, D: Dimension> From<TensorView<'a, T, D>> for ndarray::ArrayView<'a, T, ndarray::IxDyn> {
    /// Zero-copy, any layout.
    fn from(v: TensorView<'a, T, D>) -> Self {
        nd_view(v.storage.0, &v.layout)
    }
}

impl<T: Element, D: Dimension> From<Tensor<T, D>> for ndarray::Array<T, ndarray::IxDyn> {
    /// Moves the buffer without copying when its first element is the tensor's
    /// lowest-addressed element (every tensor that was not sliced from the front);
    /// otherwise copies in row-major order.
    fn from(t: Tensor<T, D>) -> Self {
        let shape = ndarray::IxDyn(t.shape());
        if let Ok(Some((0, _))) = t.layout.extent() {
            let strides: Vec<usize> = t.strides().iter().map(|&s| s as usize).collect();
            let (v, layout) = t.into_raw_parts();
            match ndarray::Array::from_shape_vec(shape.clone().strides(ndarray::IxDyn(&strides)), v) {
                Ok(a) => return a,
                Err(_) => {
                    unreachable!("an owned tensor's layout (in bounds, not aliasing) is valid for ndarray: {layout:?}")
                }
            }
        }
        ndarray::Array::from_shape_vec(shape, t.to_vec()).expect("row-major data fits its shape")
    }
}

fn layout_of<T, D: ndarray::Dimension>(
    a: &ndarray::ArrayBase<impl ndarray::RawData<Elem = T>, D>,
    offset: usize,
) -> Layout<IxDyn> {
    Layout::new(IxDyn::from(a.shape()), StrideVec::from_slice(a.strides()), offset)
}

impl<'a, T: Element, D: ndarray::Dimension> From<ndarray::ArrayView<'a, T, D>> for TensorCow<'a, T, IxDyn> {
    /// A view when the elements are contiguous in memory (any axis order, any stride
    /// signs), else a row-major copy.
    fn from(a: ndarray::ArrayView<'a, T, D>) -> Self {
        match TensorView::try_from(a.clone()) {
            Ok(v) => v.into_cow(),
            Err(_) => Tensor::from_vec(a.iter().copied().collect(), a.shape().to_vec())
                .expect("ndarray's element count fits its shape")
                .into_cow(),
        }
    }
}

impl<'a, T: Element, D: ndarray::Dimension> TryFrom<ndarray::ArrayView<'a, T, D>> for TensorView<'a, T, IxDyn> {
    type Error = Error;
    /// Zero-copy; `Err` when the view's elements have gaps between them in memory.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let nd = ndarray::Array2::<f64>::zeros((3, 4));
    /// let v = TensorView::try_from(nd.t()).unwrap();
    /// assert_eq!((v.shape(), v.strides()), (&[4usize, 3][..], &[1isize, 4][..]));
    /// assert!(TensorView::try_from(nd.slice(ndarray::s![.., ..;2])).is_err());
    /// ```
    fn try_from(a: ndarray::ArrayView<'a, T, D>) -> Result<Self> {
        let slice = a.to_slice_memory_order().ok_or_else(|| {
            Error::value(
                "from_ndarray",
                format!(
                    "ndarray view with shape {:?} and strides {:?} has gaps in memory; convert to TensorCow to copy",
                    a.shape(),
                    a.strides()
                ),
            )
        })?;
        let offset = (a.as_ptr() as usize - slice.as_ptr() as usize) / std::mem::size_of::<T>().max(1);
        TensorBase::from_parts(ViewRepr(slice), layout_of(&a, offset), "from_ndarray")
    }
}

impl<T: Element, D: ndarray::Dimension> From<ndarray::Array<T, D>> for Tensor<T, IxDyn> {
    /// Moves the buffer without copying, keeping the strides (any layout).
    fn from(a: ndarray::Array<T, D>) -> Self {
        let (shape, strides) = (a.shape().to_vec(), a.strides().to_vec());
        let (v, offset) = a.into_raw_vec_and_offset();
        let layout = Layout::new(IxDyn::from(shape), StrideVec::from_slice(&strides), offset.unwrap_or(0));
        Tensor::from_raw_parts(v, layout).expect("an owned ndarray layout is in bounds and does not alias")
    }
}
