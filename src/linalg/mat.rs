//! Strided matrix operands of the product kernels: a pointer and two strides, shared by
//! the dispatch ([`super::gemm_kernels`]) and every kernel it calls.

/// A read-only strided matrix operand: element `(i, j)` is at `ptr + i*rs + j*cs`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatRef<T> {
    pub ptr: *const T,
    pub rs: isize,
    pub cs: isize,
}

/// A writable strided matrix: element `(i, j)` is at `ptr + i*rs + j*cs`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatMut<T> {
    pub ptr: *mut T,
    pub rs: isize,
    pub cs: isize,
}

// SAFETY: these are plain pointer bundles; every user hands disjoint output matrices to
// different threads and only reads through `MatRef`.
unsafe impl<T: Send> Send for MatRef<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for MatRef<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for MatMut<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for MatMut<T> {}

impl<T> MatRef<T> {
    /// The same matrix starting `off` elements further (a whole-struct method, so
    /// closures capture the `Send + Sync` wrapper rather than the raw pointer).
    #[inline(always)]
    pub fn shifted(self, off: isize) -> Self {
        MatRef {
            ptr: self.ptr.wrapping_offset(off),
            ..self
        }
    }
    #[inline(always)]
    pub(crate) fn cast<U>(self) -> MatRef<U> {
        MatRef {
            ptr: self.ptr as *const U,
            rs: self.rs,
            cs: self.cs,
        }
    }
}
impl<T> MatRef<T> {
    /// A row-major contiguous `rows × cols` matrix starting at `s[off]`.
    ///
    /// Panics if the matrix does not fit inside `s` (so that the pointer arithmetic of
    /// a product stays inside one allocation).
    pub(crate) fn row_major(s: &[T], off: usize, rows: usize, cols: usize) -> Self {
        assert!(
            rows * cols == 0 || off + rows * cols <= s.len(),
            "gemm operand outside its buffer"
        );
        MatRef {
            ptr: s.as_ptr().wrapping_add(off),
            rs: cols as isize,
            cs: 1,
        }
    }
    /// The transpose (same memory, strides swapped).
    pub(crate) fn t(self) -> Self {
        MatRef {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }
}

impl<T> MatMut<T> {
    /// The same matrix starting `off` elements further (as [`MatRef::shifted`]).
    #[inline(always)]
    pub(crate) fn shifted(self, off: isize) -> Self {
        MatMut {
            ptr: self.ptr.wrapping_offset(off),
            ..self
        }
    }
    /// The transpose (same memory, strides swapped).
    pub(crate) fn t(self) -> Self {
        MatMut {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }
    #[inline(always)]
    pub(crate) fn cast<U>(self) -> MatMut<U> {
        MatMut {
            ptr: self.ptr as *mut U,
            rs: self.rs,
            cs: self.cs,
        }
    }
}
