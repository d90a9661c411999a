//! View operations on tensors: each computes a new layout over the same memory.
//!
//! On a [`TensorView`] the methods take the view by value and return a view with the
//! same lifetime, so chains bind to a `let`; on every other ownership kind they borrow.

use super::{Tensor, TensorArc, TensorBase, TensorCow, TensorMut, TensorView};
use crate::element::Element;
use crate::error::Result;
use crate::layout::slice::{SliceItem, slice_layout};
use crate::layout::transform as tf;
use crate::layout::{Dimension, IntoShape, IxDyn, Layout, Order};
use crate::storage::{CowRepr, Storage, StorageMut, ViewMutRepr, ViewRepr};

impl<'a, T: Element, D: Dimension> TensorView<'a, T, D> {
    pub(super) fn with_layout<D2: Dimension>(&self, layout: Layout<D2>) -> TensorView<'a, T, D2> {
        debug_assert!(layout.check_in_buffer(self.storage.0.len(), "view").is_ok());
        TensorBase {
            storage: ViewRepr(self.storage.0),
            layout,
        }
    }

    /// Basic slicing with Python's rules; panics on error (see [`TensorView::try_slice`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(10);
    /// assert_eq!(a.slice(s![1..;-2]).to_vec(), vec![1]);
    /// assert_eq!(a.slice(s![-100..100]).size(), 10);
    /// ```
    pub fn slice(&self, items: impl AsRef<[SliceItem]>) -> TensorView<'a, T, IxDyn> {
        self.try_slice(items).unwrap_or_else(|e| panic!("{e}"))
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
    pub fn try_slice(&self, items: impl AsRef<[SliceItem]>) -> Result<TensorView<'a, T, IxDyn>> {
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
    pub fn permute(&self, axes: &[isize]) -> Result<TensorView<'a, T, D>> {
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
    pub fn t(&self) -> TensorView<'a, T, D> {
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
    pub fn swap_axes(&self, a: isize, b: isize) -> Result<TensorView<'a, T, D>> {
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
    pub fn flip(&self, axis: isize) -> Result<TensorView<'a, T, D>> {
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
    pub fn broadcast_to<Sh: IntoShape>(self, shape: Sh) -> Result<TensorView<'a, T, Sh::Dim>> {
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
    pub fn squeeze(&self) -> TensorView<'a, T, IxDyn> {
        let l = tf::squeeze_layout(&self.layout);
        self.with_layout(l)
    }

    /// Inserts a length-1 axis at `axis` (negative counts from the end of the result).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([3]).unsqueeze(0).unwrap().shape(), &[1, 3]);
    /// ```
    pub fn unsqueeze(&self, axis: isize) -> Result<TensorView<'a, T, IxDyn>> {
        let l = tf::unsqueeze_layout(&self.layout, axis)?;
        Ok(self.with_layout(l))
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
    pub fn reshape<Sh: IntoShape>(&self, shape: Sh) -> Result<TensorCow<'a, T, Sh::Dim>> {
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
    pub fn reshape_order<Sh: IntoShape>(&self, shape: Sh, order: Order) -> Result<TensorCow<'a, T, Sh::Dim>> {
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
    pub fn reshape_infer(&self, shape: &[isize]) -> Result<TensorCow<'a, T, IxDyn>> {
        reshape_infer_impl(self.storage.0, &self.layout, shape)
    }
}

/// Generates the borrowing twins of `TensorView`'s by-value view methods for the other
/// ownership kinds.
macro_rules! borrowing_views {
    ($($ty:ident),*) => {$(
        impl<T: Element, D: Dimension> $ty<T, D> {
            /// Basic slicing with Python's rules; panics on error. See [`TensorView::slice`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let a = Tensor::<i32, _>::arange(6);
            /// assert_eq!(a.slice(s![..;2]).to_vec(), vec![0, 2, 4]);
            /// ```
            pub fn slice(&self, items: impl AsRef<[SliceItem]>) -> TensorView<'_, T, IxDyn> {
                self.view().slice(items)
            }
            /// Basic slicing, `Err` on bad items. See [`TensorView::try_slice`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert!(Tensor::<i32, _>::arange(6).try_slice(s![9]).is_err());
            /// ```
            pub fn try_slice(&self, items: impl AsRef<[SliceItem]>) -> Result<TensorView<'_, T, IxDyn>> {
                self.view().try_slice(items)
            }
            /// Reorders the axes. See [`TensorView::permute`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).permute(&[1, 0]).unwrap().shape(), &[3, 2]);
            /// ```
            pub fn permute(&self, axes: &[isize]) -> Result<TensorView<'_, T, D>> {
                self.view().permute(axes)
            }
            /// The transpose (all axes reversed). See [`TensorView::t`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).t().shape(), &[3, 2]);
            /// ```
            pub fn t(&self) -> TensorView<'_, T, D> {
                self.view().t()
            }
            /// Swaps two axes. See [`TensorView::swap_axes`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).swap_axes(0, 1).unwrap().shape(), &[3, 2]);
            /// ```
            pub fn swap_axes(&self, a: isize, b: isize) -> Result<TensorView<'_, T, D>> {
                self.view().swap_axes(a, b)
            }
            /// Reverses one axis. See [`TensorView::flip`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<i32, _>::arange(3).flip(0).unwrap().to_vec(), vec![2, 1, 0]);
            /// ```
            pub fn flip(&self, axis: isize) -> Result<TensorView<'_, T, D>> {
                self.view().flip(axis)
            }
            /// A read-only broadcast view. See [`TensorView::broadcast_to`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<i32, _>::arange(2).broadcast_to([3, 2]).unwrap().shape(), &[3, 2]);
            /// ```
            pub fn broadcast_to<Sh: IntoShape>(&self, shape: Sh) -> Result<TensorView<'_, T, Sh::Dim>> {
                self.view().broadcast_to(shape)
            }
            /// Removes length-1 axes. See [`TensorView::squeeze`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<f32, _>::zeros([1, 2]).squeeze().shape(), &[2]);
            /// ```
            pub fn squeeze(&self) -> TensorView<'_, T, IxDyn> {
                self.view().squeeze()
            }
            /// Inserts a length-1 axis. See [`TensorView::unsqueeze`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<f32, _>::zeros([2]).unsqueeze(1).unwrap().shape(), &[2, 1]);
            /// ```
            pub fn unsqueeze(&self, axis: isize) -> Result<TensorView<'_, T, IxDyn>> {
                self.view().unsqueeze(axis)
            }
            /// Reshapes (row-major): a view when possible, else a copy. See [`TensorView::reshape`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let a = Tensor::<i32, _>::arange(6);
            /// assert_eq!(a.reshape([2, 3]).unwrap().shape(), &[2, 3]);
            /// ```
            pub fn reshape<Sh: IntoShape>(&self, shape: Sh) -> Result<TensorCow<'_, T, Sh::Dim>> {
                reshape_impl(self.storage.buffer(), &self.layout, shape.into_dim(), Order::RowMajor, true)
            }
            /// Reshapes in `order`. See [`TensorView::reshape_order`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let a = Tensor::<i32, _>::arange(6);
            /// assert_eq!(a.reshape_order([2, 3], Order::ColMajor).unwrap().to_vec(), vec![0, 2, 4, 1, 3, 5]);
            /// ```
            pub fn reshape_order<Sh: IntoShape>(&self, shape: Sh, order: Order) -> Result<TensorCow<'_, T, Sh::Dim>> {
                reshape_impl(self.storage.buffer(), &self.layout, shape.into_dim(), order, true)
            }
            /// Reshapes with one inferred `-1` length. See [`TensorView::reshape_infer`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<i32, _>::arange(6).reshape_infer(&[-1, 2]).unwrap().shape(), &[3, 2]);
            /// ```
            pub fn reshape_infer(&self, shape: &[isize]) -> Result<TensorCow<'_, T, IxDyn>> {
                reshape_infer_impl(self.storage.buffer(), &self.layout, shape)
            }
        }
    )*};
}

borrowing_views!(Tensor, TensorArc);

macro_rules! borrowing_views_lt {
    ($($ty:ident),*) => {$(
        impl<'b, T: Element, D: Dimension> $ty<'b, T, D> {
            /// Basic slicing with Python's rules; panics on error. See [`TensorView::slice`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<i32, _>::arange(6);
            /// assert_eq!(a.view_mut().slice(s![..;3]).to_vec(), vec![0, 3]);
            /// ```
            pub fn slice(&self, items: impl AsRef<[SliceItem]>) -> TensorView<'_, T, IxDyn> {
                self.view().slice(items)
            }
            /// Basic slicing, `Err` on bad items. See [`TensorView::try_slice`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<i32, _>::arange(6);
            /// assert!(a.view_mut().try_slice(s![9]).is_err());
            /// ```
            pub fn try_slice(&self, items: impl AsRef<[SliceItem]>) -> Result<TensorView<'_, T, IxDyn>> {
                self.view().try_slice(items)
            }
            /// Reorders the axes. See [`TensorView::permute`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<f32, _>::zeros([2, 3]);
            /// assert_eq!(a.view_mut().permute(&[1, 0]).unwrap().shape(), &[3, 2]);
            /// ```
            pub fn permute(&self, axes: &[isize]) -> Result<TensorView<'_, T, D>> {
                self.view().permute(axes)
            }
            /// The transpose. See [`TensorView::t`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<f32, _>::zeros([2, 3]);
            /// assert_eq!(a.view_mut().t().shape(), &[3, 2]);
            /// ```
            pub fn t(&self) -> TensorView<'_, T, D> {
                self.view().t()
            }
            /// Swaps two axes. See [`TensorView::swap_axes`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<f32, _>::zeros([2, 3]);
            /// assert_eq!(a.view_mut().swap_axes(0, 1).unwrap().shape(), &[3, 2]);
            /// ```
            pub fn swap_axes(&self, a: isize, b: isize) -> Result<TensorView<'_, T, D>> {
                self.view().swap_axes(a, b)
            }
            /// Reverses one axis. See [`TensorView::flip`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<i32, _>::arange(3);
            /// assert_eq!(a.view_mut().flip(0).unwrap().to_vec(), vec![2, 1, 0]);
            /// ```
            pub fn flip(&self, axis: isize) -> Result<TensorView<'_, T, D>> {
                self.view().flip(axis)
            }
            /// A read-only broadcast view. See [`TensorView::broadcast_to`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<i32, _>::arange(2);
            /// assert_eq!(a.view_mut().broadcast_to([3, 2]).unwrap().shape(), &[3, 2]);
            /// ```
            pub fn broadcast_to<Sh: IntoShape>(&self, shape: Sh) -> Result<TensorView<'_, T, Sh::Dim>> {
                self.view().broadcast_to(shape)
            }
            /// Removes length-1 axes. See [`TensorView::squeeze`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<f32, _>::zeros([1, 2]);
            /// assert_eq!(a.view_mut().squeeze().shape(), &[2]);
            /// ```
            pub fn squeeze(&self) -> TensorView<'_, T, IxDyn> {
                self.view().squeeze()
            }
            /// Inserts a length-1 axis. See [`TensorView::unsqueeze`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut a = Tensor::<f32, _>::zeros([2]);
            /// assert_eq!(a.view_mut().unsqueeze(1).unwrap().shape(), &[2, 1]);
            /// ```
            pub fn unsqueeze(&self, axis: isize) -> Result<TensorView<'_, T, IxDyn>> {
                self.view().unsqueeze(axis)
            }
            /// Reshapes (row-major): a view when possible, else a copy. See [`TensorView::reshape`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let a = Tensor::<i32, _>::arange(6);
            /// assert_eq!(a.reshape([2, 3]).unwrap().shape(), &[2, 3]);
            /// ```
            pub fn reshape<Sh: IntoShape>(&self, shape: Sh) -> Result<TensorCow<'_, T, Sh::Dim>> {
                reshape_impl(self.storage.buffer(), &self.layout, shape.into_dim(), Order::RowMajor, true)
            }
            /// Reshapes in `order`. See [`TensorView::reshape_order`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let a = Tensor::<i32, _>::arange(6);
            /// assert_eq!(a.reshape_order([2, 3], Order::ColMajor).unwrap().to_vec(), vec![0, 2, 4, 1, 3, 5]);
            /// ```
            pub fn reshape_order<Sh: IntoShape>(&self, shape: Sh, order: Order) -> Result<TensorCow<'_, T, Sh::Dim>> {
                reshape_impl(self.storage.buffer(), &self.layout, shape.into_dim(), order, true)
            }
            /// Reshapes with one inferred `-1` length. See [`TensorView::reshape_infer`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::<i32, _>::arange(6).reshape_infer(&[-1, 2]).unwrap().shape(), &[3, 2]);
            /// ```
            pub fn reshape_infer(&self, shape: &[isize]) -> Result<TensorCow<'_, T, IxDyn>> {
                reshape_infer_impl(self.storage.buffer(), &self.layout, shape)
            }
        }
    )*};
}
borrowing_views_lt!(TensorMut, TensorCow);

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A writable view of a slice; panics on error (see [`TensorBase::try_slice_mut`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([4]);
    /// a.slice_mut(s![..;2]).fill(7);
    /// assert_eq!(a.to_vec(), vec![7, 0, 7, 0]);
    /// ```
    pub fn slice_mut(&mut self, items: impl AsRef<[SliceItem]>) -> TensorMut<'_, T, IxDyn> {
        self.try_slice_mut(items).unwrap_or_else(|e| panic!("{e}"))
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
