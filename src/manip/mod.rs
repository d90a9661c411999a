//! Combining, splitting, padding, gathering and sorting tensors.
//!
//! | file | what |
//! |---|---|
//! | `concat.rs` | [`concatenate`], [`stack`], [`hstack`], [`vstack`], [`dstack`] |
//! | `split.rs` | [`split`] (NumPy `array_split`), [`chunk`], [`unstack`]: all return views |
//! | `pad.rs` | [`TensorBase::pad`] with [`PadMode`] (NumPy `np.pad`) |
//! | `repeat.rs` | [`TensorBase::repeat`], [`TensorBase::tile`], [`TensorBase::roll`] |
//! | `tri.rs` | [`TensorBase::tril`], [`TensorBase::triu`], [`TensorBase::diag`] |
//! | `grid.rs` | [`meshgrid`] with [`Indexing`] |
//! | `diff.rs` | [`TensorBase::diff`] |
//! | `gather.rs` | [`TensorBase::take_along_axis`], [`TensorBase::put_along_axis`], [`TensorBase::gather`], [`TensorBase::scatter`], [`TensorBase::scatter_add`] |
//! | `index_put.rs` | [`TensorBase::index_put`], [`TensorBase::index_put_accumulate`] |
//! | `mask.rs` | [`TensorBase::nonzero`], [`TensorBase::argwhere`], [`TensorBase::masked_fill`] |
//! | `sort.rs`, `radix.rs`, `fsort.rs` | [`TensorBase::sort`], [`TensorBase::argsort`] (stable, NaN last) |
//! | `topk.rs` | [`TensorBase::topk`] |
//! | `search.rs` | [`TensorBase::searchsorted`] with [`Side`] |
//! | `unique.rs` | [`TensorBase::unique`] |
//! | `shape_views.rs` | [`TensorView::flip_axes`], [`TensorView::flip_all`], [`TensorView::atleast_1d`] (`2d`, `3d`), [`broadcast_arrays`], [`broadcast_shapes`] (views, no copy) |
//! | `insert_delete.rs` | [`TensorBase::delete`], [`TensorBase::insert`] with [`InsertAt`], [`TensorBase::append`] |
//! | `interp.rs` | [`interp`] (NumPy `interp`) |
//! | `convolve.rs` | [`convolve`], [`correlate`] with [`ConvolveMode`] |
//! | `windows.rs` | [`TensorBase::sliding_window_view`] (a view) |
//!
//! # Passing several tensors
//!
//! Every function that takes several tensors (here [`concatenate`], [`stack`],
//! [`hstack`], [`vstack`], [`dstack`], [`meshgrid`], [`TensorBase::index_put`]; in
//! [`linalg`](crate::linalg) `einsum`) takes a slice of references, `&[&a, &b, …]`, in
//! which owned tensors, views, copy-on-write and shared tensors mix freely:
//! `concatenate(&[&a, &b.t(), &c.view()], 0)`. Functions whose result keeps the
//! inputs' rank type ([`concatenate`], [`stack`], the `*stack`s) take one rank type
//! ([`AsView`]); functions whose inputs may have different ranks ([`meshgrid`],
//! `einsum`, index tensors) take any mix of ranks ([`AsDynView`]). A `Vec` of tensors is
//! passed as `&v.iter().map(|t| t as _).collect::<Vec<_>>()`.
//!
//! Every result is a new row-major contiguous tensor, except [`split`], [`chunk`],
//! [`unstack`] and [`TensorBase::sliding_window_view`], which return views of the input.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
//! let b = Tensor::<i32, _>::full([1, 3], 9);
//! let c = concatenate(&[&a, &b.view()], 0).unwrap();
//! assert_eq!(c.shape(), &[3, 3]);
//! let parts = vec![a.clone(), a];
//! let d = concatenate(&parts.iter().map(|t| t as _).collect::<Vec<_>>(), 1).unwrap();
//! assert_eq!(d.shape(), &[2, 6]);
//! let parts = split(&c, Sections::Count(2), 0).unwrap();
//! assert_eq!(parts[1].to_vec(), vec![9, 9, 9]);
//! let (s, i) = (c.sort(-1).unwrap(), c.argsort(0).unwrap());
//! assert_eq!(s.shape(), i.shape());
//! ```

mod advanced_index;
mod concat;
mod convolve;
mod diff;
mod fsort;
mod gather;
mod grid;
mod index;
mod index_put;
mod insert_delete;
mod interp;
mod mask;
mod pad;
mod qsort;
mod radix;
mod repeat;
mod search;
mod shape_views;
mod sort;
mod sort_network;
mod split;
mod topk;
mod tri;
mod unique;
mod windows;

pub use concat::{concatenate, dstack, hstack, stack, vstack};
pub use convolve::{ConvolveMode, convolve, correlate};
pub use grid::{Indexing, meshgrid};
pub use index::IndexElement;
pub use insert_delete::InsertAt;
pub use interp::interp;
pub use pad::PadMode;
pub use search::Side;
pub use shape_views::{broadcast_arrays, broadcast_shapes};
pub use sort::SortElement;
pub use split::{Sections, chunk, split, unstack};
pub use unique::Unique;

use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn, Layout};
use crate::storage::{OwnedRepr, Storage, ViewRepr};
use crate::tensor::{Tensor, TensorBase, TensorView};

/// Anything that can lend a read-only view of itself with rank type `D`: every
/// ownership kind of [`TensorBase`] and references to them. The combining functions
/// that keep the inputs' rank type ([`concatenate`], [`stack`], …) take a slice of
/// `&dyn AsView<T, D>`, so `&[&a, &b.view()]` mixes ownership kinds.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::ones([2]);
/// let v: TensorView<'_, f32, Ix1> = (&a).as_view();
/// assert_eq!(v.as_ptr(), a.as_ptr());
/// let list: [&dyn AsView<f32, Ix1>; 2] = [&a, &v];
/// assert_eq!(concatenate(&list, 0).unwrap().size(), 4);
/// ```
pub trait AsView<T: Element, D: Dimension> {
    /// A view of the whole tensor (never copies).
    fn as_view(&self) -> TensorView<'_, T, D>;
}

/// Anything that can lend a read-only view of itself, of any rank type: the
/// functions whose inputs may differ in rank ([`meshgrid`], `einsum`, index tensors)
/// take a slice of `&dyn AsDynView<T>`, so `&[&matrix, &vector.view()]` mixes ranks
/// and ownership kinds.
///
/// ```
/// use ferrotensor::prelude::*;
/// let m = Tensor::<f64, _>::eye(2);
/// let v = Tensor::from_vec(vec![1.0, 2.0], [2]).unwrap();
/// let mv = ferrotensor::linalg::einsum("ij,j->i", &[&m, &v.view()]).unwrap();
/// assert_eq!(mv.to_vec(), vec![1.0, 2.0]);
/// assert_eq!((&v).as_dyn_view().shape(), &[2]);
/// ```
pub trait AsDynView<T: Element> {
    /// A dynamic-rank view of the whole tensor (never copies).
    fn as_dyn_view(&self) -> TensorView<'_, T, IxDyn>;
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> AsDynView<T> for TensorBase<S, D> {
    fn as_dyn_view(&self) -> TensorView<'_, T, IxDyn> {
        dyn_view(&self.view())
    }
}

impl<T: Element, X: AsDynView<T> + ?Sized> AsDynView<T> for &X {
    fn as_dyn_view(&self) -> TensorView<'_, T, IxDyn> {
        (**self).as_dyn_view()
    }
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> AsView<T, D> for TensorBase<S, D> {
    fn as_view(&self) -> TensorView<'_, T, D> {
        self.view()
    }
}

impl<T: Element, D: Dimension, X: AsView<T, D> + ?Sized> AsView<T, D> for &X {
    fn as_view(&self) -> TensorView<'_, T, D> {
        (**self).as_view()
    }
}

/// A view over `buf` with `layout` (the layout comes from a checked parent layout).
pub(crate) fn view_with<T, D: Dimension>(buf: &[T], layout: Layout<D>) -> TensorView<'_, T, D> {
    debug_assert!(layout.check_in_buffer(buf.len(), "view").is_ok());
    TensorBase {
        storage: ViewRepr(buf),
        layout,
    }
}

/// A view of `v` restricted to `start .. start + len` along `axis`.
pub(crate) fn narrow<'a, T: Element, D: Dimension>(
    v: &TensorView<'a, T, D>,
    axis: usize,
    start: usize,
    len: usize,
) -> TensorView<'a, T, D> {
    let mut l: Layout<D> = v.layout().clone();
    l.shape.slice_mut()[axis] = len;
    if len > 0 {
        l.offset = (l.offset as isize + start as isize * l.strides.as_ref()[axis]) as usize;
    }
    view_with(v.storage.0, l)
}

/// An owned row-major tensor of `shape` from `data` (whose length is the shape's size).
pub(crate) fn owned<T: Element, D: Dimension>(data: Vec<T>, shape: &[usize], op: &'static str) -> Result<Tensor<T, D>> {
    let dim: D = crate::layout::dim::into_dimension(shape, op)?;
    let layout = Layout::new_order(dim, crate::Order::RowMajor)?;
    debug_assert_eq!(layout.size(), data.len());
    Ok(TensorBase {
        storage: OwnedRepr(data),
        layout,
    })
}

/// Row-major strides of `shape`.
pub(crate) fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut s = vec![0isize; shape.len()];
    crate::layout::default_strides(shape, crate::Order::RowMajor, &mut s);
    s
}

/// A zero-filled (`T::default()`) row-major buffer of `shape`'s size from
/// [`crate::memory`]; `Err` if the size overflows.
pub(crate) fn alloc<T: Element>(shape: &[usize], op: &'static str) -> Result<Vec<T>> {
    let n = crate::layout::checked_size(shape, op)?;
    crate::layout::byte_size::<T>(n)?;
    Ok(crate::memory::alloc::default_vec(n))
}

/// Copies `src` into the region of `out` given by `strides` and `offset` (which must
/// have `src`'s shape and not alias), through the engine.
pub(crate) fn copy_into<T: Element, D: Dimension>(
    out: &mut [T],
    strides: &[isize],
    offset: usize,
    src: &TensorView<'_, T, D>,
) {
    use crate::iter::{Dst, Src};
    crate::iter::zip_into(
        src.shape(),
        Dst::new(out, strides, offset),
        Src::of(src.storage.0, &src.layout),
        |o, x| *o = x,
    );
}

/// The view `v` with a different layout rank: `IxDyn`.
pub(crate) fn dyn_view<'a, T, D: Dimension>(v: &TensorView<'a, T, D>) -> TensorView<'a, T, IxDyn> {
    TensorBase {
        storage: ViewRepr(v.storage.0),
        layout: v.layout.clone().into_dyn(),
    }
}

/// The view `v` with axis `axis` moved to the end.
pub(crate) fn axis_last<'a, T, D: Dimension>(v: &TensorView<'a, T, D>, axis: usize) -> TensorView<'a, T, IxDyn> {
    let mut l = v.layout.clone().into_dyn();
    let (d, s) = (l.shape.0.remove(axis), l.strides.remove(axis));
    l.shape.0.push(d);
    l.strides.push(s);
    TensorBase {
        storage: ViewRepr(v.storage.0),
        layout: l,
    }
}

/// Undoes [`axis_last`] on a row-major result: the data of shape `moved` (the input's
/// shape with `axis` moved last) rearranged into a row-major tensor of the original
/// order. Returns `data` unchanged when `axis` already is last.
pub(crate) fn restore_axis<T: Element, D: Dimension>(
    data: Vec<T>,
    moved: &[usize],
    axis: usize,
    op: &'static str,
) -> Result<Tensor<T, D>> {
    let nd = moved.len();
    let mut shape = moved.to_vec();
    let last = shape.pop().expect("restore_axis needs at least one axis");
    shape.insert(axis, last);
    if axis + 1 == nd {
        return owned(data, &shape, op);
    }
    let ms = c_strides(moved);
    let mut strides = ms.clone();
    let ls = strides.pop().expect("non-empty");
    strides.insert(axis, ls);
    let layout = Layout::new(
        IxDyn::from(&shape[..]),
        crate::layout::dim::StrideVec::from_slice(&strides),
        0,
    );
    let v = view_with(&data, layout);
    let out = crate::iter::gather_c_order(&data, &v.layout);
    owned(out, &shape, op)
}

/// `Err` naming `op` when `a` is 0-d.
pub(crate) fn need_rank(shape: &[usize], min: usize, op: &'static str) -> Result<()> {
    if shape.len() < min {
        return Err(Error::axis(
            op,
            format!(
                "needs an input with at least {min} dimension(s), got shape {}",
                fmt_shape(shape)
            ),
        ));
    }
    Ok(())
}

/// Offsets of every lane's first element for a view whose last axis is the lane axis,
/// in row-major order of the other axes.
pub(crate) fn lane_offsets(shape: &[usize], strides: &[isize], offset: usize) -> Vec<isize> {
    let nd = shape.len();
    let outer = &shape[..nd.saturating_sub(1)];
    let n: usize = outer.iter().product();
    let mut offs = Vec::with_capacity(n);
    if n == 0 {
        return offs;
    }
    let mut idx = vec![0usize; outer.len()];
    let mut off = offset as isize;
    for _ in 0..n {
        offs.push(off);
        let mut ax = outer.len();
        while ax > 0 {
            ax -= 1;
            idx[ax] += 1;
            off += strides[ax];
            if idx[ax] < outer[ax] {
                break;
            }
            off -= strides[ax] * outer[ax] as isize;
            idx[ax] = 0;
        }
    }
    offs
}
