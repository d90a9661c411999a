//! How the engine's entry points name their operands: a read operand ([`Src`]) or a
//! writable one ([`Dst`]), each a whole buffer with strides broadcast to the shared
//! shape and the offset of element zero. Every entry point takes
//! `(shape, [Dst,] Src…, [cost,] f)`.

use crate::layout::dim::StrideVec;
use crate::layout::{Dimension, Layout};

/// A read operand: the whole buffer, strides already broadcast to the shared shape
/// (stride 0 on broadcast axes), and the offset of element zero.
#[derive(Clone, Copy)]
pub(crate) struct Src<'a, T> {
    pub buf: &'a [T],
    pub strides: &'a [isize],
    pub off: usize,
}

impl<'a, T> Src<'a, T> {
    pub(crate) fn new(buf: &'a [T], strides: &'a [isize], off: usize) -> Self {
        Src { buf, strides, off }
    }

    /// The elements `layout` names in `buf`.
    pub(crate) fn of<D: Dimension>(buf: &'a [T], layout: &'a Layout<D>) -> Self {
        Src::new(buf, layout.strides(), layout.offset)
    }

    /// The operand as one slice in row-major order of `shape`, if it is laid out so
    /// (length-1 axes may have any stride).
    pub(crate) fn as_c_slice(&self, shape: &[usize]) -> Option<&'a [T]> {
        let mut expect = 1usize;
        for (&d, &s) in shape.iter().zip(self.strides).rev() {
            if d != 1 && s != expect as isize {
                return None;
            }
            expect *= d;
        }
        self.buf.get(self.off..self.off.checked_add(expect)?)
    }
}

/// A writable operand: the whole buffer, strides that never make two indices alias,
/// and the offset of element zero.
pub(crate) struct Dst<'a, T> {
    pub buf: &'a mut [T],
    pub strides: &'a [isize],
    pub off: usize,
}

impl<'a, T> Dst<'a, T> {
    pub(crate) fn new(buf: &'a mut [T], strides: &'a [isize], off: usize) -> Self {
        Dst { buf, strides, off }
    }
}

/// A raw pointer that may be sent to other threads: kernels give each thread
/// disjoint runs of one buffer.
pub(crate) struct SendPtr<T>(pub *mut T);
impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}
impl<T> SendPtr<T> {
    /// The pointer (a method, so closures capture the whole `Send + Sync` wrapper).
    #[inline(always)]
    pub(crate) fn get(self) -> *mut T {
        self.0
    }
}
// SAFETY: a SendPtr is only dereferenced inside engine kernels, on runs that the
// plan hands to exactly one thread each.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above; shared access never writes the same element from two threads.
unsafe impl<T: Send> Sync for SendPtr<T> {}

/// A read-only pointer that may be shared between threads.
#[derive(Clone, Copy)]
pub(crate) struct ReadPtr<T>(pub(crate) *const T);
impl<T> ReadPtr<T> {
    #[inline(always)]
    pub(crate) fn at(self, off: isize) -> *const T {
        self.0.wrapping_offset(off)
    }
}
// SAFETY: only used to read elements of a shared slice `&[T]` with `T: Sync`.
unsafe impl<T: Sync> Send for ReadPtr<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for ReadPtr<T> {}

/// Row-major strides of `shape`.
pub(crate) fn c_strides(shape: &[usize]) -> StrideVec {
    let mut s = StrideVec::from_elem(0, shape.len());
    crate::layout::default_strides(shape, crate::Order::RowMajor, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_operands_are_seen_as_slices() {
        let buf: Vec<i32> = (0..30).collect();
        assert_eq!(Src::new(&buf, &[3, 1], 2).as_c_slice(&[4, 3]), Some(&buf[2..14]));
        // A length-1 axis may have any stride; a broadcast or transposed one may not.
        assert_eq!(
            Src::new(&buf, &[99, 1], 0).as_c_slice(&[1, 5]).map(<[i32]>::len),
            Some(5)
        );
        assert!(Src::new(&buf, &[0, 1], 0).as_c_slice(&[4, 3]).is_none());
        assert!(Src::new(&buf, &[1, 4], 0).as_c_slice(&[4, 3]).is_none());
        // Past the end of the buffer: not a slice.
        assert!(Src::new(&buf, &[3, 1], 20).as_c_slice(&[4, 3]).is_none());
    }
}
