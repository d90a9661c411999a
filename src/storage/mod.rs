//! Storage: the memory behind a tensor, in five ownership kinds.
//!
//! | kind | storage | tensor alias | writes |
//! |---|---|---|---|
//! | owned | [`OwnedRepr`] (`Vec<T>`) | [`Tensor`](crate::Tensor) | in place |
//! | view | [`ViewRepr`] (`&[T]`) | [`TensorView`](crate::TensorView) | never |
//! | mutable view | [`ViewMutRepr`] (`&mut [T]`) | [`TensorMut`](crate::TensorMut) | in place |
//! | copy-on-write | [`CowRepr`] | [`TensorCow`](crate::TensorCow) | copies a borrowed view first |
//! | shared | [`ArcRepr`] (`Arc<Vec<T>>`) | [`TensorArc`](crate::TensorArc) | copies first only when shared |
//!
//! Every storage holds a whole buffer; the tensor's layout picks the elements. A layout
//! is checked against its buffer when it is built, so no view reaches outside.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f32, _>::ones([2, 2]);
//! let shared = a.into_shared();
//! let b = shared.clone();                      // cheap: one more reference
//! assert_eq!(shared.as_ptr(), b.as_ptr());
//! ```

use crate::layout::{Dimension, Layout};
use std::sync::Arc;

pub(crate) mod alloc;

/// Storage that can be read: the whole underlying buffer as a slice.
///
/// ```
/// use ferrotensor::storage::{Storage, OwnedRepr};
/// let s = OwnedRepr(vec![1, 2, 3]);
/// assert_eq!(s.buffer(), &[1, 2, 3]);
/// ```
pub trait Storage {
    /// The element type.
    type Elem;
    /// The whole buffer.
    fn buffer(&self) -> &[Self::Elem];
    /// Converts into an owned vector and the layout that reads it. Owned vectors (and
    /// unique shared ones) are moved with their layout; borrowed memory is copied and
    /// compacted to the viewed elements in row-major order.
    fn into_vec_parts<D: Dimension>(self, layout: Layout<D>) -> (Vec<Self::Elem>, Layout<D>)
    where
        Self::Elem: crate::Element;
    /// Converts into a shared buffer and its layout: a shared buffer is kept, an owned
    /// vector is moved into an `Arc`, borrowed memory is copied and compacted.
    fn into_arc_parts<D: Dimension>(self, layout: Layout<D>) -> (Arc<Vec<Self::Elem>>, Layout<D>)
    where
        Self: Sized,
        Self::Elem: crate::Element,
    {
        let (v, l) = self.into_vec_parts(layout);
        (Arc::new(v), l)
    }
}

fn compact<T: crate::Element, D: Dimension>(buf: &[T], layout: Layout<D>) -> (Vec<T>, Layout<D>) {
    let v = crate::iter::gather_c_order(buf, &layout);
    let l = Layout::new_order(layout.shape, crate::Order::RowMajor).expect("a valid layout's shape stays valid");
    (v, l)
}

/// Storage that can be written in place (after [`StorageMut::make_unique`]).
///
/// ```
/// use ferrotensor::storage::{StorageMut, OwnedRepr};
/// let mut s = OwnedRepr(vec![1, 2, 3]);
/// s.buffer_mut()[0] = 7;
/// assert_eq!(s.0, vec![7, 2, 3]);
/// ```
pub trait StorageMut: Storage {
    /// Makes the storage exclusively writable: a borrowed copy-on-write view is copied
    /// (compacted, so `layout` becomes row-major contiguous), a shared buffer is cloned
    /// if other references exist. Owned and mutable views do nothing.
    ///
    /// # Panics
    /// If the copy cannot be allocated (never an abort).
    fn make_unique<D: Dimension>(&mut self, layout: &mut Layout<D>);
    /// The whole buffer, writable. Callers must call [`StorageMut::make_unique`] first.
    fn buffer_mut(&mut self) -> &mut [Self::Elem];
}

/// Owned storage: a `Vec<T>`.
///
/// ```
/// let s = ferrotensor::storage::OwnedRepr(vec![0u8; 4]);
/// assert_eq!(s.0.len(), 4);
/// ```
///
/// Dropping it hands a buffer of 4 MiB or more to ferrotensor's short-lived cache of
/// large buffers (see [`crate::memory`]), so that the next output of that size skips
/// the page faults of fresh memory.
#[derive(Clone, Debug)]
pub struct OwnedRepr<T>(pub Vec<T>);

impl<T> OwnedRepr<T> {
    /// Takes the vector out (this storage is left empty).
    ///
    /// ```
    /// let s = ferrotensor::storage::OwnedRepr(vec![1, 2]);
    /// assert_eq!(s.into_vec(), vec![1, 2]);
    /// ```
    pub fn into_vec(mut self) -> Vec<T> {
        std::mem::take(&mut self.0)
    }
}

impl<T> Drop for OwnedRepr<T> {
    fn drop(&mut self) {
        crate::memory::recycle(std::mem::take(&mut self.0));
    }
}

/// Borrowed read-only storage.
///
/// ```
/// let v = [1, 2];
/// let s = ferrotensor::storage::ViewRepr(&v[..]);
/// assert_eq!(s.0, &[1, 2]);
/// ```
#[derive(Debug)]
pub struct ViewRepr<'a, T>(pub &'a [T]);

impl<T> Clone for ViewRepr<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ViewRepr<'_, T> {}

/// Borrowed writable storage.
///
/// ```
/// let mut v = [1, 2];
/// let s = ferrotensor::storage::ViewMutRepr(&mut v[..]);
/// s.0[0] = 5;
/// assert_eq!(v, [5, 2]);
/// ```
#[derive(Debug)]
pub struct ViewMutRepr<'a, T>(pub &'a mut [T]);

/// Copy-on-write storage: a borrowed view or an owned vector.
///
/// ```
/// let v = [1, 2];
/// let s = ferrotensor::storage::CowRepr::View(&v[..]);
/// assert!(matches!(s, ferrotensor::storage::CowRepr::View(_)));
/// ```
#[derive(Debug, Clone)]
pub enum CowRepr<'a, T> {
    /// Borrowed.
    View(&'a [T]),
    /// Owned.
    Owned(Vec<T>),
}

/// Shared storage: an `Arc<Vec<T>>`, cloned on write only when other references exist.
///
/// ```
/// let s = ferrotensor::storage::ArcRepr(std::sync::Arc::new(vec![1.0]));
/// assert_eq!(std::sync::Arc::strong_count(&s.0), 1);
/// ```
#[derive(Debug, Clone)]
pub struct ArcRepr<T>(pub Arc<Vec<T>>);

impl<T> ArcRepr<T> {
    /// Takes the `Arc` out (without the buffer going back to the memory cache).
    ///
    /// ```
    /// let s = ferrotensor::storage::ArcRepr(std::sync::Arc::new(vec![1, 2]));
    /// assert_eq!(*s.into_arc(), vec![1, 2]);
    /// ```
    pub fn into_arc(self) -> Arc<Vec<T>> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: `me` is never dropped, so its `Arc` is moved out exactly once and its
        // reference count stays balanced.
        unsafe { std::ptr::read(&me.0) }
    }
}

impl<T> Drop for ArcRepr<T> {
    /// The last owner of a shared buffer gives it to the memory cache as an owned
    /// tensor's drop does (see [`crate::memory`]): outputs wrapped in shared tensors, as
    /// a language binding holds them, are reused the same way.
    fn drop(&mut self) {
        if let Some(v) = Arc::get_mut(&mut self.0) {
            crate::memory::recycle(std::mem::take(v));
        }
    }
}

impl<T> Storage for OwnedRepr<T> {
    type Elem = T;
    #[inline(always)]
    fn buffer(&self) -> &[T] {
        &self.0
    }
    fn into_vec_parts<D: Dimension>(self, layout: Layout<D>) -> (Vec<T>, Layout<D>) {
        (self.into_vec(), layout)
    }
}
impl<T> Storage for ViewRepr<'_, T> {
    type Elem = T;
    #[inline(always)]
    fn buffer(&self) -> &[T] {
        self.0
    }
    fn into_vec_parts<D: Dimension>(self, layout: Layout<D>) -> (Vec<T>, Layout<D>)
    where
        T: crate::Element,
    {
        compact(self.0, layout)
    }
}
impl<T> Storage for ViewMutRepr<'_, T> {
    type Elem = T;
    #[inline(always)]
    fn buffer(&self) -> &[T] {
        self.0
    }
    fn into_vec_parts<D: Dimension>(self, layout: Layout<D>) -> (Vec<T>, Layout<D>)
    where
        T: crate::Element,
    {
        compact(self.0, layout)
    }
}
impl<T> Storage for CowRepr<'_, T> {
    type Elem = T;
    #[inline(always)]
    fn buffer(&self) -> &[T] {
        match self {
            CowRepr::View(s) => s,
            CowRepr::Owned(v) => v,
        }
    }
    fn into_vec_parts<D: Dimension>(self, layout: Layout<D>) -> (Vec<T>, Layout<D>)
    where
        T: crate::Element,
    {
        match self {
            CowRepr::View(s) => compact(s, layout),
            CowRepr::Owned(v) => (v, layout),
        }
    }
}
impl<T> Storage for ArcRepr<T> {
    type Elem = T;
    #[inline(always)]
    fn buffer(&self) -> &[T] {
        &self.0
    }
    fn into_vec_parts<D: Dimension>(self, layout: Layout<D>) -> (Vec<T>, Layout<D>)
    where
        T: crate::Element,
    {
        match Arc::try_unwrap(self.into_arc()) {
            Ok(v) => (v, layout),
            Err(shared) => compact(&shared, layout),
        }
    }
    fn into_arc_parts<D: Dimension>(self, layout: Layout<D>) -> (Arc<Vec<T>>, Layout<D>) {
        (self.into_arc(), layout)
    }
}

impl<T> StorageMut for OwnedRepr<T> {
    fn make_unique<D: Dimension>(&mut self, _layout: &mut Layout<D>) {}
    #[inline(always)]
    fn buffer_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}
impl<T> StorageMut for ViewMutRepr<'_, T> {
    fn make_unique<D: Dimension>(&mut self, _layout: &mut Layout<D>) {}
    #[inline(always)]
    fn buffer_mut(&mut self) -> &mut [T] {
        self.0
    }
}
impl<T: crate::Element> StorageMut for CowRepr<'_, T> {
    fn make_unique<D: Dimension>(&mut self, layout: &mut Layout<D>) {
        if let CowRepr::View(buf) = self {
            let compact = crate::iter::gather_c_order(buf, layout);
            *layout = Layout::new_order(layout.shape.clone(), crate::Order::RowMajor)
                .expect("a valid layout's shape stays valid");
            *self = CowRepr::Owned(compact);
        }
    }
    fn buffer_mut(&mut self) -> &mut [T] {
        match self {
            CowRepr::Owned(v) => v,
            CowRepr::View(_) => panic!("copy-on-write storage written before make_unique"),
        }
    }
}
impl<T: Clone> StorageMut for ArcRepr<T> {
    #[track_caller]
    fn make_unique<D: Dimension>(&mut self, _layout: &mut Layout<D>) {
        if Arc::get_mut(&mut self.0).is_none() {
            // The copy `Arc::make_mut` would make, but a panic instead of an abort when
            // the allocator refuses it.
            let mut copy = Vec::new();
            if copy.try_reserve_exact(self.0.len()).is_err() {
                panic!(
                    "make_unique: cannot copy a shared buffer of {} elements: the allocator refused",
                    self.0.len()
                );
            }
            copy.extend_from_slice(&self.0);
            self.0 = Arc::new(copy);
        }
    }
    fn buffer_mut(&mut self) -> &mut [T] {
        Arc::get_mut(&mut self.0).expect("shared storage written before make_unique")
    }
}
