//! Element access and logical-order iteration.

use super::TensorBase;
use crate::element::Element;
use crate::error::Result;
use crate::iter::{IndexedIter, Iter, IterMut};
use crate::layout::Dimension;
use crate::storage::{Storage, StorageMut};
use std::ops::{Index, IndexMut};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A reference to the element at `index`, `None` if the index has the wrong rank or
    /// is out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// assert_eq!(a.get([1, 0]), Some(&3));
    /// assert_eq!(a.get([2, 0]), None);
    /// assert_eq!(a.get(&[0usize, 1][..]), Some(&2));
    /// ```
    pub fn get<I: AsRef<[usize]>>(&self, index: I) -> Option<&T> {
        let o = self.layout.ravel_opt(index.as_ref())?;
        self.storage.buffer().get(o)
    }

    /// Iterator over the elements in logical row-major order, for any layout.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    /// let v: Vec<i32> = a.slice(s![.., ..;-2]).iter().copied().collect();
    /// assert_eq!(v, vec![3, 1, 6, 4]);
    /// ```
    pub fn iter(&self) -> Iter<'_, T> {
        Iter::new(self.storage.buffer(), self.shape(), self.strides(), self.offset())
    }

    /// Iterator over `(index, &element)` in logical row-major order.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![7, 8], [2]).unwrap();
    /// let v: Vec<_> = a.indexed_iter().collect();
    /// assert_eq!(v, vec![([0], &7), ([1], &8)]);
    /// ```
    pub fn indexed_iter(&self) -> IndexedIter<'_, T, D> {
        IndexedIter::new(self.iter(), self.layout.dim())
    }

    #[track_caller]
    fn index_panic(&self, index: &[usize]) -> ! {
        match self.layout.ravel(index) {
            Err(e) => panic!("{e}"),
            Ok(_) => unreachable!("index_panic is called for indices out of range"),
        }
    }

    /// The element at `index`, or `Err` naming the index and the shape: the fallible
    /// twin of `a[index]` (which panics with the same message). [`get`](TensorBase::get)
    /// gives an `Option` instead.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// assert_eq!(*a.try_get([1, 0]).unwrap(), 3);
    /// let e = a.try_get([2, 0]).unwrap_err();
    /// assert_eq!(e.to_string(), "index: index [2, 0] is out of bounds for shape (2, 2)");
    /// ```
    pub fn try_get<I: AsRef<[usize]>>(&self, index: I) -> Result<&T> {
        let o = self.layout.ravel(index.as_ref())?;
        Ok(&self.storage.buffer()[o])
    }
}

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A mutable reference to the element at `index`, `None` if out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([2, 2]);
    /// *a.get_mut([0, 1]).unwrap() = 5;
    /// assert_eq!(a.to_vec(), vec![0, 5, 0, 0]);
    /// assert!(a.get_mut([0, 2]).is_none());
    /// ```
    pub fn get_mut<I: AsRef<[usize]>>(&mut self, index: I) -> Option<&mut T> {
        self.storage.make_unique(&mut self.layout);
        let o = self.layout.ravel_opt(index.as_ref())?;
        self.storage.buffer_mut().get_mut(o)
    }

    /// A mutable reference to the element at `index`, or `Err` naming the index and
    /// the shape: the fallible twin of `a[index] = v`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([2]);
    /// *a.try_get_mut([1]).unwrap() = 7;
    /// assert_eq!(a.to_vec(), vec![0, 7]);
    /// assert!(a.try_get_mut([2]).is_err());
    /// ```
    pub fn try_get_mut<I: AsRef<[usize]>>(&mut self, index: I) -> Result<&mut T> {
        let index = index.as_ref();
        self.layout.ravel(index)?;
        Ok(self.get_mut(index).expect("checked above"))
    }

    /// Iterator over mutable references in logical row-major order.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([3]);
    /// a.iter_mut().enumerate().for_each(|(i, x)| *x = i as i32);
    /// assert_eq!(a.to_vec(), vec![0, 1, 2]);
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        self.storage.make_unique(&mut self.layout);
        let (shape, strides, off) = (
            self.layout.shape.clone(),
            self.layout.strides.clone(),
            self.layout.offset,
        );
        IterMut::new(self.storage.buffer_mut(), shape.slice(), strides.as_ref(), off)
    }
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension, const N: usize> Index<[usize; N]> for TensorBase<S, D> {
    type Output = T;
    /// The element at `index` (`a[[i, j]]`).
    ///
    /// # Panics
    ///
    /// If the index has the wrong rank or is out of range, at the caller's line, with
    /// the message of [`try_get`](TensorBase::try_get).
    #[inline]
    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        match self.get(index) {
            Some(x) => x,
            None => self.index_panic(&index),
        }
    }
}

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension, const N: usize> IndexMut<[usize; N]> for TensorBase<S, D> {
    /// The element at `index`, writable (`a[[i, j]] = v`).
    ///
    /// # Panics
    ///
    /// If the index has the wrong rank or is out of range, at the caller's line, with
    /// the message of [`try_get_mut`](TensorBase::try_get_mut).
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: [usize; N]) -> &mut T {
        if self.layout.ravel_opt(&index).is_none() {
            self.index_panic(&index)
        }
        self.get_mut(index).expect("checked above")
    }
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> Index<&[usize]> for TensorBase<S, D> {
    type Output = T;
    /// The element at a dynamic-rank `index` (`a[&idx[..]]`).
    ///
    /// # Panics
    ///
    /// If the index has the wrong rank or is out of range, at the caller's line, with
    /// the message of [`try_get`](TensorBase::try_get).
    #[inline]
    #[track_caller]
    fn index(&self, index: &[usize]) -> &T {
        match self.get(index) {
            Some(x) => x,
            None => self.index_panic(index),
        }
    }
}

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> IndexMut<&[usize]> for TensorBase<S, D> {
    /// The element at a dynamic-rank `index`, writable.
    ///
    /// # Panics
    ///
    /// If the index has the wrong rank or is out of range, at the caller's line, with
    /// the message of [`try_get_mut`](TensorBase::try_get_mut).
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: &[usize]) -> &mut T {
        if self.layout.ravel_opt(index).is_none() {
            self.index_panic(index)
        }
        self.get_mut(index).expect("checked above")
    }
}

impl<'a, T: Element, S: Storage<Elem = T>, D: Dimension> IntoIterator for &'a TensorBase<S, D> {
    type Item = &'a T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}
