//! One `f32`/`f64` product through faer's matmul on the calling thread (faer picks
//! nano-gemm or its x86 kernels, `private-gemm-x86`, at run time): the per-matrix
//! kernel of batches of medium products, where its lower fixed cost per call than the
//! `gemm` crate's shows.

use super::mat::{MatMut, MatRef};
use crate::element::Num;
use crate::same_type::is_same;

/// True if `T` runs on [`gemm_faer`].
#[inline]
pub(crate) fn supported<T: 'static>() -> bool {
    is_same::<T, f32>() || is_same::<T, f64>()
}

/// `C = A · B` on this thread for `T` in [`supported`]; `m, n, k > 0`.
///
/// # Safety
/// As [`super::gemm_kernels::gemm`]; `T` is `f32` or `f64`.
pub(crate) unsafe fn gemm_faer<T: Num>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    debug_assert!(supported::<T>() && m > 0 && n > 0 && k > 0);
    // SAFETY: T is exactly the type cast to (checked), so the casts are identities.
    unsafe {
        if is_same::<T, f32>() {
            run::<f32>(m, n, k, a.cast(), b.cast(), c.cast(), 1.0)
        } else {
            run::<f64>(m, n, k, a.cast(), b.cast(), c.cast(), 1.0)
        }
    }
}

/// # Safety
/// As [`gemm_faer`].
unsafe fn run<T: faer::traits::ComplexField>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    one: T,
) {
    // SAFETY: every (i, p), (p, j) and (i, j) in range names an element of A, B, C by
    // the caller's contract (faer reads and writes only those), C aliases neither A
    // nor B, and distinct (i, j) name distinct elements of C; `Accum::Replace` never
    // reads C.
    unsafe {
        let (a, b) = (
            faer::MatRef::from_raw_parts(a.ptr, m, k, a.rs, a.cs),
            faer::MatRef::from_raw_parts(b.ptr, k, n, b.rs, b.cs),
        );
        let c = faer::MatMut::from_raw_parts_mut(c.ptr, m, n, c.rs, c.cs);
        faer::linalg::matmul::matmul(c, faer::Accum::Replace, a, b, one, faer::Par::Seq);
    }
}
