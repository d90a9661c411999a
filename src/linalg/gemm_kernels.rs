//! Kernel dispatch for one matrix product `C = A · B` on strided memory.
//!
//! * `f32`, `f64`, `f16`, `Complex<f32>`, `Complex<f64>` go to the `gemm` crate, which
//!   takes arbitrary (also negative and zero) row and column strides and selects its
//!   SIMD kernels (AVX-512 included, through its `x86-v4` feature) at run time.
//! * every other [`Num`] type (integers, `bf16`) goes to the cache-blocked generic kernel
//!   in [`super::generic_kernel`].
//! * products with all of `m`, `n`, `k` ≤ 16 use a direct kernel without packing
//!   or threads ([`super::small_kernel`]).

use super::generic_kernel;
pub(crate) use super::mat::{MatMut, MatRef};
use super::small_kernel::{SMALL, SmallPlan};
use crate::element::Num;
use crate::same_type::is_same;
use half::{bf16, f16};
use num_complex::Complex;

/// True if `T` runs on the `gemm` crate.
#[inline]
pub(crate) fn uses_gemm_crate<T: 'static>() -> bool {
    is_same::<T, f32>()
        || is_same::<T, f64>()
        || is_same::<T, f16>()
        || is_same::<T, Complex<f32>>()
        || is_same::<T, Complex<f64>>()
}

/// `C = A · B` (C is overwritten) for an `m × k` by `k × n` product on `threads` threads.
///
/// # Safety
/// For every `i < m`, `j < n`, `p < k`: `a` must be readable at `(i, p)`, `b` at `(p, j)`
/// and `c` writable at `(i, j)`; `c` must not alias `a` or `b`, and distinct `(i, j)`
/// must name distinct elements of `c`.
pub(crate) unsafe fn gemm<T: Num>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    threads: usize,
) {
    let small = SmallPlan::new::<T>(m, n, k, b.cs, c.cs);
    // SAFETY: forwarded caller contract; the plan is made for exactly this product.
    unsafe { gemm_with(&small, m, n, k, a, b, c, threads) }
}

/// `C += A · B` when `accumulate`, else `C = A · B` ([`gemm`]), on `threads` threads.
/// The accumulating product of the `gemm` crate's types is one call with `read_dst`
/// (for `nn`, whose outputs start as the bias); other types go through a temporary.
///
/// # Safety
/// As [`gemm`]; with `accumulate`, `c` must also be readable (and initialised) at every
/// `(i, j)`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm_into<T: Num>(
    accumulate: bool,
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    threads: usize,
) {
    if !accumulate {
        // SAFETY: forwarded caller contract.
        return unsafe { gemm(m, n, k, a, b, c, threads) };
    }
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    if uses_gemm_crate::<T>() {
        // SAFETY: as in `gemm_with`; `read_dst = true` with alpha = beta = 1 computes
        // `C = C + A·B`, reading C, which the caller guarantees readable.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                c.ptr,
                c.cs,
                c.rs,
                true,
                a.ptr,
                a.cs,
                a.rs,
                b.ptr,
                b.cs,
                b.rs,
                T::one(),
                T::one(),
                false,
                false,
                false,
                parallelism(threads, m, n, k),
            )
        };
        return;
    }
    let mut t = vec![T::zero(); m * n];
    let tm = MatMut {
        ptr: t.as_mut_ptr(),
        rs: n as isize,
        cs: 1,
    };
    // SAFETY: `t` is a fresh m × n row-major buffer; a and b as the caller guarantees.
    unsafe { gemm(m, n, k, a, b, tm, threads) };
    for (x, &v) in t.iter().enumerate() {
        let (i, j) = (x / n, x % n);
        // SAFETY: (i, j) is inside the caller's m × n output.
        unsafe {
            let p = c.ptr.offset(i as isize * c.rs + j as isize * c.cs);
            *p = *p + v;
        }
    }
}

/// The gemm crate's threading for an `m × n × k` product: one thread below 48³.
fn parallelism(threads: usize, m: usize, n: usize, k: usize) -> gemm::Parallelism {
    if threads > 1 && m * n * k >= 48 * 48 * 48 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    }
}

/// [`gemm`] with a small-product plan prepared once for many products of the same shape
/// and column strides (a batch).
///
/// # Safety
/// As [`gemm`]; `small` was made by `SmallPlan::new::<T>(m, n, k, b.cs, c.cs)`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm_with<T: Num>(
    small: &SmallPlan,
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    threads: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            for j in 0..n {
                // SAFETY: (i, j) is inside the output by the caller's contract.
                unsafe { *c.ptr.offset(i as isize * c.rs + j as isize * c.cs) = T::zero() };
            }
        }
        return;
    }
    if m <= SMALL && n <= SMALL && k <= SMALL && !is_same::<T, bf16>() && !is_same::<T, f16>() {
        // SAFETY: forwarded caller contract (the plan matches by the caller's contract).
        return unsafe { small.run(m, n, k, a, b, c) };
    }
    if uses_gemm_crate::<T>() {
        let par = parallelism(threads, m, n, k);
        // SAFETY: `T` is one of the five types the gemm crate supports (checked above, and
        // `gemm` dispatches on the same TypeIds); the pointer/stride validity for every
        // (i, p), (p, j), (i, j) is the caller's contract, which is exactly gemm's
        // requirement. `read_dst = false` so the output's old contents are ignored;
        // alpha is ignored then and beta = 1 gives `C = A·B`.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                c.ptr,
                c.cs,
                c.rs,
                false,
                a.ptr,
                a.cs,
                a.rs,
                b.ptr,
                b.cs,
                b.rs,
                T::zero(),
                T::one(),
                false,
                false,
                false,
                par,
            )
        };
        return;
    }
    if is_same::<T, bf16>() {
        // SAFETY: T is bf16, so the casts are identities; forwarded caller contract.
        return unsafe {
            generic_kernel::gemm_blocked::<bf16, generic_kernel::Bf16Acc>(
                m,
                n,
                k,
                a.cast(),
                b.cast(),
                c.cast(),
                threads,
            )
        };
    }
    // SAFETY: forwarded caller contract.
    unsafe { generic_kernel::gemm_blocked::<T, generic_kernel::Wrapping>(m, n, k, a, b, c, threads) }
}
