//! Logical-order (row-major index order) iterators over any layout.

use super::Plan;
use crate::layout::Dimension;
use smallvec::SmallVec;
use std::marker::PhantomData;

/// Cursor over a plan's runs in logical order.
#[derive(Clone)]
struct Cursor {
    plan: Plan<1>,
    idx: SmallVec<[usize; 8]>,
    run_off: isize,
    pos: usize,
    remaining: usize,
}

impl Cursor {
    fn new(shape: &[usize], strides: &[isize], offset: usize) -> Self {
        let plan = Plan::<1>::new(shape, [strides], [offset], false);
        let remaining = plan.len();
        let idx = SmallVec::from_elem(0, plan.outer.len());
        let run_off = plan.base[0];
        Cursor {
            plan,
            idx,
            run_off,
            pos: 0,
            remaining,
        }
    }

    #[inline]
    fn next_offset(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        if self.pos == self.plan.inner_len {
            self.pos = 0;
            let nd = self.idx.len();
            let mut ax = nd;
            while ax > 0 {
                ax -= 1;
                self.idx[ax] += 1;
                self.run_off += self.plan.outer_strides[0][ax];
                if self.idx[ax] < self.plan.outer[ax] {
                    break;
                }
                self.run_off -= self.plan.outer_strides[0][ax] * self.plan.outer[ax] as isize;
                self.idx[ax] = 0;
            }
        }
        let off = self.run_off + self.pos as isize * self.plan.inner[0];
        self.pos += 1;
        self.remaining -= 1;
        Some(off as usize)
    }
}

/// Iterator over references to a tensor's elements in logical row-major order.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
/// let v: Vec<i32> = a.t().iter().copied().collect();
/// assert_eq!(v, vec![1, 3, 2, 4]);
/// ```
#[derive(Clone)]
pub struct Iter<'a, T> {
    buf: &'a [T],
    cur: Cursor,
}

impl<'a, T> Iter<'a, T> {
    pub(crate) fn new(buf: &'a [T], shape: &[usize], strides: &[isize], offset: usize) -> Self {
        Iter {
            buf,
            cur: Cursor::new(shape, strides, offset),
        }
    }
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;
    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        self.cur.next_offset().map(|o| &self.buf[o])
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.cur.remaining, Some(self.cur.remaining))
    }
}
impl<T> ExactSizeIterator for Iter<'_, T> {}

/// Iterator over mutable references in logical row-major order.
///
/// ```
/// use ferrotensor::prelude::*;
/// let mut a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
/// for (k, x) in a.iter_mut().enumerate() { *x += k as i32 * 10; }
/// assert_eq!(a.to_vec(), vec![1, 12, 23, 34]);
/// ```
pub struct IterMut<'a, T> {
    ptr: *mut T,
    len: usize,
    cur: Cursor,
    _marker: PhantomData<&'a mut T>,
}

impl<'a, T> IterMut<'a, T> {
    /// `strides` must not alias (writable tensors never do).
    pub(crate) fn new(buf: &'a mut [T], shape: &[usize], strides: &[isize], offset: usize) -> Self {
        IterMut {
            ptr: buf.as_mut_ptr(),
            len: buf.len(),
            cur: Cursor::new(shape, strides, offset),
            _marker: PhantomData,
        }
    }
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = &'a mut T;
    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        let o = self.cur.next_offset()?;
        assert!(o < self.len, "iter_mut: offset outside buffer");
        // SAFETY: `o` is inside the buffer (checked above); the layout of a writable
        // tensor never maps two indices to one element, so each element is yielded once
        // and the references never alias. The buffer is borrowed mutably for 'a.
        Some(unsafe { &mut *self.ptr.add(o) })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.cur.remaining, Some(self.cur.remaining))
    }
}
impl<T> ExactSizeIterator for IterMut<'_, T> {}
// SAFETY: IterMut is a unique borrow of T's, like &mut [T].
unsafe impl<T: Send> Send for IterMut<'_, T> {}

/// Iterator over `(index, &element)` pairs in logical row-major order.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![5, 6], [1, 2]).unwrap();
/// let v: Vec<([usize; 2], i32)> = a.indexed_iter().map(|(i, &x)| (i, x)).collect();
/// assert_eq!(v, vec![([0, 0], 5), ([0, 1], 6)]);
/// ```
pub struct IndexedIter<'a, T, D: Dimension> {
    inner: Iter<'a, T>,
    index: D,
    shape: D,
    first: bool,
}

impl<'a, T, D: Dimension> IndexedIter<'a, T, D> {
    pub(crate) fn new(inner: Iter<'a, T>, shape: &D) -> Self {
        IndexedIter {
            inner,
            index: D::zeros(shape.ndim()),
            shape: shape.clone(),
            first: true,
        }
    }
}

impl<'a, T, D: Dimension> Iterator for IndexedIter<'a, T, D> {
    type Item = (D, &'a T);
    fn next(&mut self) -> Option<(D, &'a T)> {
        let x = self.inner.next()?;
        if self.first {
            self.first = false;
        } else {
            let idx = self.index.slice_mut();
            let shape = self.shape.slice();
            let mut ax = idx.len();
            while ax > 0 {
                ax -= 1;
                idx[ax] += 1;
                if idx[ax] < shape[ax] {
                    break;
                }
                idx[ax] = 0;
            }
        }
        Some((self.index.clone(), x))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}
impl<T, D: Dimension> ExactSizeIterator for IndexedIter<'_, T, D> {}
