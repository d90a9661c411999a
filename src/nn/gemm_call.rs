//! The one place `nn` calls the `gemm` crate: a strided `dst (=|+=) lhs @ rhs`.
//!
//! `f32` and `f64` go to `gemm` directly with the operands' row and column strides;
//! other float types (`f16`, `bf16`) are gathered into `f32` matrices, multiplied, and
//! rounded back.

use crate::element::Float;
use gemm::Parallelism;
use std::any::TypeId;

/// A read-only strided matrix operand: element `(i, j)` is at `ptr + i·rs + j·cs`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mat<T> {
    /// The element `(0, 0)`.
    pub ptr: *const T,
    /// Row stride in elements.
    pub rs: isize,
    /// Column stride in elements.
    pub cs: isize,
}

impl<T> Mat<T> {
    /// A row-major contiguous `rows × cols` matrix starting at `s[off]`.
    ///
    /// Panics if the matrix does not fit inside `s` (so that the pointer arithmetic in
    /// [`gemm`] stays inside one allocation).
    pub(crate) fn row_major(s: &[T], off: usize, rows: usize, cols: usize) -> Self {
        assert!(
            rows * cols == 0 || off + rows * cols <= s.len(),
            "gemm operand outside its buffer"
        );
        Mat {
            ptr: s.as_ptr().wrapping_add(off),
            rs: cols as isize,
            cs: 1,
        }
    }
    /// The transpose (same memory, strides swapped).
    pub(crate) fn t(self) -> Self {
        Mat {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }
}

/// `dst = lhs @ rhs` (or `dst += lhs @ rhs` when `accumulate`), `dst` being `m × n`
/// at `dst` with strides `(dst_rs, dst_cs)`, `lhs` `m × k`, `rhs` `k × n`, using up to
/// `threads` threads.
///
/// # Safety
/// For every `i < m`, `j < n`, `l < k`: `dst + i·dst_rs + j·dst_cs` is valid for reads and
/// writes and no two `(i, j)` name the same element; `lhs` at `(i, l)` and `rhs` at `(l, j)`
/// are valid for reads; `dst` does not overlap `lhs` or `rhs`; nothing else accesses
/// `dst` during the call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm<T: Float>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_rs: isize,
    dst_cs: isize,
    accumulate: bool,
    lhs: Mat<T>,
    rhs: Mat<T>,
    threads: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let par = if threads > 1 {
        Parallelism::Rayon(threads)
    } else {
        Parallelism::None
    };
    let native = TypeId::of::<T>() == TypeId::of::<f32>() || TypeId::of::<T>() == TypeId::of::<f64>();
    if native && k > 0 {
        // SAFETY: `T` is f32 or f64, which `gemm` supports; the caller guarantees every
        // pointer/stride combination the m×n×k product touches is valid and that `dst`
        // does not alias the operands. `alpha = 1` with `read_dst` accumulates.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                dst,
                dst_cs,
                dst_rs,
                accumulate,
                lhs.ptr,
                lhs.cs,
                lhs.rs,
                rhs.ptr,
                rhs.cs,
                rhs.rs,
                T::one(),
                T::one(),
                false,
                false,
                false,
                par,
            )
        };
        return;
    }
    // Through f32 (or the k = 0 case): gather, multiply, scatter.
    // SAFETY: each read/write below is one of the (i, l), (l, j), (i, j) positions the
    // caller guarantees valid.
    let at = |p: Mat<T>, i: usize, j: usize| unsafe { *p.ptr.offset(i as isize * p.rs + j as isize * p.cs) };
    let a: Vec<f32> = (0..m * k).map(|x| at(lhs, x / k, x % k).to_f32()).collect();
    let b: Vec<f32> = (0..k * n).map(|x| at(rhs, x / n, x % n).to_f32()).collect();
    let mut c = vec![0f32; m * n];
    if k > 0 {
        // SAFETY: a, b, c are contiguous row-major buffers of exactly m×k, k×n, m×n.
        unsafe {
            gemm(
                m,
                n,
                k,
                c.as_mut_ptr(),
                n as isize,
                1,
                false,
                Mat::row_major(&a, 0, m, k),
                Mat::row_major(&b, 0, k, n),
                threads,
            )
        };
    }
    for (x, &v) in c.iter().enumerate() {
        let (i, j) = (x / n, x % n);
        // SAFETY: (i, j) is inside the caller's m×n destination.
        let d = unsafe { &mut *dst.offset(i as isize * dst_rs + j as isize * dst_cs) };
        *d = if accumulate {
            T::from_f32(d.to_f32() + v)
        } else {
            T::from_f32(v)
        };
    }
}
