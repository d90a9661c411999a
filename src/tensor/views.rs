//! View operations on tensors: each computes a new layout over the same memory.
//!
//! Each method is written once (`view_methods!`): on a [`TensorView`] it returns a view
//! with the buffer's lifetime, so chains bind to a `let`; on every other ownership kind
//! the same method borrows `self`.

use super::view_methods::view_methods;
use super::{TensorBase, TensorCow, TensorMut, TensorView};
use crate::element::Element;
use crate::error::Result;
use crate::layout::slice::{SliceItem, slice_layout};
use crate::layout::transform as tf;
use crate::layout::{Dimension, InsertAxis, IntoShape, IxDyn, Layout, Order};
use crate::storage::{CowRepr, StorageMut, ViewMutRepr, ViewRepr};

impl<'a, T: Element, D: Dimension> TensorView<'a, T, D> {
    pub(super) fn with_layout<D2: Dimension>(&self, layout: Layout<D2>) -> TensorView<'a, T, D2> {
        debug_assert!(layout.check_in_buffer(self.storage.0.len(), "view").is_ok());
        TensorBase {
            storage: ViewRepr(self.storage.0),
            layout,
        }
    }
}

view_methods! { 'a;
    /// Basic slicing with Python's rules (a view, no copy).
    ///
    /// # Panics
    /// With the message of [`TensorView::try_slice`]'s error (which names the shape and
    /// the offending item), at the caller's location: for step 0, an integer index out
    /// of range, more indices than axes, or two ellipses.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(10);
    /// assert_eq!(a.slice(s![1..;-2]).to_vec(), vec![1]);
    /// assert_eq!(a.slice(s![-100..100]).size(), 10);
    /// assert_eq!(a.view().slice(s![..;3]).to_vec(), vec![0, 3, 6, 9]);
    /// ```
    ///
    /// ```should_panic
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(10);
    /// a.slice(s![10]); // panics: "slice: index 10 is out of bounds for axis 0 with size 10"
    /// ```
    #[track_caller]
    fn slice(&self, items: impl AsRef<[SliceItem]>) -> TensorView<'a, T, IxDyn> {
        match self.try_slice(items) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    /// Basic slicing; `Err` for step 0, an integer index out of range, more indices
    /// than axes, or two ellipses.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::zeros([2, 3]);
    /// assert!(a.try_slice(s![.., 5]).is_err());
    /// assert!(a.try_slice(s![..;0]).is_err());
    /// assert_eq!(a.try_slice(s![Ellipsis, NewAxis]).unwrap().shape(), &[2, 3, 1]);
    /// ```
    fn try_slice(&self, items: impl AsRef<[SliceItem]>) -> Result<TensorView<'a, T, IxDyn>> {
        let l = slice_layout(&self.layout, items.as_ref())?;
        Ok(self.with_layout(l))
    }

    /// Reorders the axes: new axis `i` is old axis `axes[i]` (negative axes count from
    /// the end); `Err` unless `axes` is a permutation.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2, 3, 4]);
    /// assert_eq!(a.permute(&[2, 0, 1]).unwrap().shape(), &[4, 2, 3]);
    /// assert!(a.permute(&[0, 1]).is_err());
    /// ```
    fn permute(&self, axes: &[isize]) -> Result<TensorView<'a, T, D>> {
        let l = tf::permute_layout(&self.layout, axes)?;
        Ok(self.with_layout(l))
    }

    /// All axes reversed (the transpose).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    /// assert_eq!(a.t().shape(), &[3, 2]);
    /// assert_eq!(a.t()[[2, 1]], 6);
    /// ```
    fn t(&self) -> TensorView<'a, T, D> {
        let l = tf::reversed_layout(&self.layout);
        self.with_layout(l)
    }

    /// Swaps two axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2, 3, 4]);
    /// assert_eq!(a.swap_axes(0, -1).unwrap().shape(), &[4, 3, 2]);
    /// ```
    fn swap_axes(&self, a: isize, b: isize) -> Result<TensorView<'a, T, D>> {
        let nd = self.ndim();
        let (x, y) = (
            tf::normalize_axis(a, nd, "swap_axes")?,
            tf::normalize_axis(b, nd, "swap_axes")?,
        );
        let mut perm: Vec<isize> = (0..nd as isize).collect();
        perm.swap(x, y);
        self.permute(&perm)
    }

    /// Reverses one axis (negative stride, no copy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(4);
    /// let f = a.flip(0).unwrap();
    /// assert_eq!(f.to_vec(), vec![3, 2, 1, 0]);
    /// assert_eq!(f.strides(), &[-1]);
    /// ```
    fn flip(&self, axis: isize) -> Result<TensorView<'a, T, D>> {
        let l = tf::flip_layout(&self.layout, axis)?;
        Ok(self.with_layout(l))
    }

    /// A read-only view broadcast to `shape` (stride 0 on stretched axes).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(3);
    /// let b = a.broadcast_to([2, 3]).unwrap();
    /// assert_eq!(b.to_vec(), vec![0, 1, 2, 0, 1, 2]);
    /// assert_eq!(b.strides(), &[0, 1]);
    /// ```
    fn broadcast_to[Sh: IntoShape](&self, shape: Sh) -> Result<TensorView<'a, T, Sh::Dim>> {
        let shape = shape.into_dim();
        let l = tf::broadcast_layout(&self.layout, shape.slice(), "broadcast_to")?;
        Ok(self.with_layout(l.into_dim()?))
    }

    /// Removes every length-1 axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([1, 3, 1]).squeeze().shape(), &[3]);
    /// ```
    fn squeeze(&self) -> TensorView<'a, T, IxDyn> {
        let l = tf::squeeze_layout(&self.layout);
        self.with_layout(l)
    }

    /// Inserts a length-1 axis at `axis` (negative counts from the end of the result).
    /// The result has one axis more: `Ix1` gives `Ix2`, …, `Ix6` and `IxDyn` give
    /// `IxDyn` ([`InsertAxis`]). `Err` for an axis out of range or more than
    /// [`MAX_NDIM`](crate::layout::MAX_NDIM) axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([3]);
    /// let u: TensorView<'_, f32, Ix2> = a.unsqueeze(0).unwrap();
    /// assert_eq!(u.shape(), &[1, 3]);
    /// assert!(a.unsqueeze(2).is_err());
    /// ```
    fn unsqueeze(&self, axis: isize) -> Result<TensorView<'a, T, <D as InsertAxis>::Larger>>
    where D: InsertAxis
    {
        let l = tf::unsqueeze_layout(&self.layout, axis)?;
        Ok(self.with_layout(l.into_dim()?))
    }

    /// Reshapes to `shape` reading elements in row-major order: a view of the same
    /// memory when NumPy would give one, else a copy. `Err` if the sizes differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32, _>::arange(24).into_shape([2, 3, 4]).unwrap();
    /// assert!(x.slice(s![.., .., ..;2]).reshape([12]).unwrap().is_view());
    /// assert!(!x.t().reshape([12, 2]).unwrap().is_view());
    /// ```
    fn reshape[Sh: IntoShape](&self, shape: Sh) -> Result<TensorCow<'a, T, Sh::Dim>> {
        reshape_impl(self.storage.0, &self.layout, shape.into_dim(), Order::RowMajor, true)
    }

    /// Reshapes reading and writing elements in `order` (NumPy's `order='C'/'F'`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(6);
    /// let f = a.view().reshape_order([2, 3], Order::ColMajor).unwrap();
    /// assert_eq!(f.to_vec(), vec![0, 2, 4, 1, 3, 5]);
    /// ```
    fn reshape_order[Sh: IntoShape](&self, shape: Sh, order: Order) -> Result<TensorCow<'a, T, Sh::Dim>> {
        reshape_impl(self.storage.0, &self.layout, shape.into_dim(), order, true)
    }

    /// Reshapes with one length given as `-1` and inferred; `Err` for more than one
    /// `-1`, other negative lengths, or sizes that don't divide.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(12);
    /// assert_eq!(a.view().reshape_infer(&[3, -1]).unwrap().shape(), &[3, 4]);
    /// assert!(a.view().reshape_infer(&[5, -1]).is_err());
    /// ```
    fn reshape_infer(&self, shape: &[isize]) -> Result<TensorCow<'a, T, IxDyn>> {
        reshape_infer_impl(self.storage.0, &self.layout, shape)
    }
}

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A writable view of a slice (Python's rules, as [`TensorView::slice`]).
    ///
    /// # Panics
    /// With the message of [`TensorBase::try_slice_mut`]'s error, at the caller's
    /// location: for step 0, an integer index out of range, more indices than axes, or
    /// two ellipses.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([4]);
    /// a.slice_mut(s![..;2]).fill(7);
    /// assert_eq!(a.to_vec(), vec![7, 0, 7, 0]);
    /// ```
    ///
    /// ```should_panic
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([4]);
    /// a.slice_mut(s![..;0]); // panics: "slice: slice step cannot be zero"
    /// ```
    #[track_caller]
    pub fn slice_mut(&mut self, items: impl AsRef<[SliceItem]>) -> TensorMut<'_, T, IxDyn> {
        match self.try_slice_mut(items) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    /// A writable view of a slice; `Err` as [`TensorView::try_slice`]. A slice with
    /// `NewAxis` items is writable too (its new axes have length 1).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([2, 2]);
    /// assert!(a.try_slice_mut(s![2]).is_err());
    /// ```
    pub fn try_slice_mut(&mut self, items: impl AsRef<[SliceItem]>) -> Result<TensorMut<'_, T, IxDyn>> {
        self.storage.make_unique(&mut self.layout);
        let l = slice_layout(&self.layout, items.as_ref())?;
        Ok(TensorBase {
            storage: ViewMutRepr(self.storage.buffer_mut()),
            layout: l,
        })
    }

    /// Sets every element to `value`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<f32, _>::zeros([2, 2]);
    /// a.fill(1.5);
    /// assert_eq!(a.to_vec(), vec![1.5; 4]);
    /// ```
    pub fn fill(&mut self, value: T) {
        self.storage.make_unique(&mut self.layout);
        let (shape, strides, off) = (
            self.layout.shape.clone(),
            self.layout.strides.clone(),
            self.layout.offset,
        );
        let dst = crate::iter::Dst::new(self.storage.buffer_mut(), strides.as_ref(), off);
        crate::iter::for_each_mut(shape.slice(), dst, |x| *x = value);
    }
}

fn reshape_impl<'b, T: Element, D: Dimension, D2: Dimension>(
    buf: &'b [T],
    layout: &Layout<D>,
    shape: D2,
    order: Order,
    same_shape_shortcut: bool,
) -> Result<TensorCow<'b, T, D2>> {
    let planned = if same_shape_shortcut {
        crate::layout::reshape::reshape_layout(layout, shape.clone(), order, "reshape")?
    } else {
        crate::layout::reshape::reshape_layout_inferred(layout, shape.clone(), order, "reshape")?
    };
    match planned {
        Some(layout) => Ok(TensorBase {
            storage: CowRepr::View(buf),
            layout,
        }),
        None => {
            crate::storage::alloc::check_bytes::<T>(layout.size(), layout.shape(), "reshape")?;
            let data = match order {
                Order::RowMajor => crate::iter::gather_c_order(buf, layout),
                Order::ColMajor => crate::iter::gather_c_order(buf, &tf::reversed_layout(layout)),
            };
            let layout = Layout::new_order(shape, order)?;
            Ok(TensorBase {
                storage: CowRepr::Owned(data),
                layout,
            })
        }
    }
}

/// `reshape_infer`: resolves the `-1`, then reshapes as NumPy does for a shape given
/// with `-1` (no same-shape shortcut; see `reshape_layout_inferred`).
fn reshape_infer_impl<'b, T: Element, D: Dimension>(
    buf: &'b [T],
    layout: &Layout<D>,
    shape: &[isize],
) -> Result<TensorCow<'b, T, IxDyn>> {
    let dims = infer_shape(shape, layout.size(), layout.shape(), "reshape_infer")?;
    reshape_impl(
        buf,
        layout,
        IxDyn::from(&dims[..]),
        Order::RowMajor,
        !shape.contains(&-1),
    )
}

/// Resolves one `-1` in a requested shape against an element count.
pub(crate) fn infer_shape(shape: &[isize], size: usize, old: &[usize], op: &'static str) -> Result<Vec<usize>> {
    crate::layout::reshape::infer_sizes(shape, size, op, || {
        format!(
            "cannot reshape array of size {} (shape {}) into shape {:?}",
            size,
            crate::error::fmt_shape(old),
            shape
        )
    })
}
