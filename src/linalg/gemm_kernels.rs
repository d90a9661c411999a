//! Kernel dispatch for one matrix product `C = A · B` on strided memory.
//!
//! * `f32`, `f64`, `f16`, `Complex<f32>`, `Complex<f64>` go to the `gemm` crate, which
//!   takes arbitrary (also negative and zero) row and column strides and selects its
//!   SIMD kernels (AVX-512 included, through its `x86-v4` feature) at run time.
//! * every other [`Num`] type (integers, `bf16`) goes to the cache-blocked generic kernel
//!   in [`super::generic_kernel`].
//!   Large f32/f64 products on several threads may be split into one independent
//!   one-thread call per thread ([`gemm_crate`], measured per CPU vendor).
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
        unsafe { gemm_crate(true, m, n, k, a, b, c, threads) };
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

/// `C = A·B`, or `C += A·B` with `accumulate`, through the gemm crate on `threads`
/// threads: split by [`split_columns`] into independent one-thread products where that
/// was measured faster, else one call with the crate's own threading.
///
/// # Safety
/// `T` is one of the types of [`uses_gemm_crate`]; otherwise as [`gemm_into`].
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_crate<T: Num>(
    accumulate: bool,
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    threads: usize,
) {
    if let Some(width) = split_columns::<T>(m, n, k, c.rs, c.cs, threads) {
        // Blocks of C's unit-stride index (columns; after transposing the problem when
        // C is column-major): the direction of the crate's 64-wide micro-tiles, so each
        // thread packs its own panels of one operand and reads all of the other.
        let (m, n, a, b, c) = if c.cs.unsigned_abs() <= c.rs.unsigned_abs() {
            (m, n, a, b, c)
        } else {
            (n, m, b.t(), a.t(), c.t())
        };
        let starts: Vec<usize> = (0..n).step_by(width).collect();
        rayon::scope(|s| {
            for &j in &starts {
                let w = width.min(n - j);
                let (bj, cj) = (b.shifted(j as isize * b.cs), c.shifted(j as isize * c.cs));
                // SAFETY: the block is columns j..j + w of the caller's product: its
                // elements are readable / writable by the caller's contract, and distinct
                // blocks write disjoint columns of C.
                s.spawn(move |_| unsafe { gemm_crate_call(accumulate, m, w, k, a, bj, cj, 1) });
            }
        });
        return;
    }
    // SAFETY: forwarded.
    unsafe { gemm_crate_call(accumulate, m, n, k, a, b, c, threads) }
}

/// The width of the blocks of C's unit-stride index that a product on
/// `threads` threads is split into, one independent one-thread gemm-crate call each, or
/// `None` for one call with the crate's own threading.
///
/// Measured on AMD EPYC Zen 5 (2 cores, f32 2048³ and 4096³): the split runs 3–4 %
/// faster than the crate's threading (no synchronisation between the threads; each packs
/// the shared operand itself, ~2 % of the time). On Intel the crate's threading was
/// measured at 0.96× OpenBLAS and the split was not measured, so Intel keeps it.
fn split_columns<T: Num>(m: usize, n: usize, k: usize, c_rs: isize, c_cs: isize, threads: usize) -> Option<usize> {
    let along = if c_cs.unsigned_abs() <= c_rs.unsigned_abs() {
        n
    } else {
        m
    };
    // Blocks of whole 64-wide micro-tiles, at least 256 wide; a large depth and other
    // dimension so that each block is a large product of its own.
    let width = along.div_ceil(threads.max(1)).next_multiple_of(64);
    let large = m.min(n).min(k) >= 512 && width >= 256 && along > width;
    let f32_or_f64 = is_same::<T, f32>() || is_same::<T, f64>();
    (threads > 1 && large && f32_or_f64 && crate::cpu::vendor() == crate::cpu::Vendor::Amd).then_some(width)
}

/// One call of the gemm crate: `C = A·B`, or `C += A·B` with `accumulate`.
///
/// # Safety
/// As [`gemm_crate`].
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_crate_call<T: Num>(
    accumulate: bool,
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    threads: usize,
) {
    // SAFETY: `T` is one of the five types the gemm crate supports (the caller's
    // contract; `gemm` dispatches on the same TypeIds); the pointer/stride validity for
    // every (i, p), (p, j), (i, j) is the caller's contract, which is exactly gemm's
    // requirement. With `read_dst = false` the output's old contents are ignored
    // (alpha is ignored then and beta = 1 gives `C = A·B`); with `read_dst = true`,
    // alpha = beta = 1 computes `C = C + A·B`, reading C, which the caller guarantees
    // readable.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.ptr,
            c.cs,
            c.rs,
            accumulate,
            a.ptr,
            a.cs,
            a.rs,
            b.ptr,
            b.cs,
            b.rs,
            if accumulate { T::one() } else { T::zero() },
            T::one(),
            false,
            false,
            false,
            parallelism(threads, m, n, k),
        )
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
        // SAFETY: `T` is one of the gemm crate's types (checked); forwarded caller contract.
        unsafe { gemm_crate(false, m, n, k, a, b, c, threads) };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Small integer values: every product and sum below is exact in f32 and f64, so the
    /// results must equal the reference exactly.
    fn value(i: usize, salt: usize) -> f64 {
        ((i * 7 + salt * 3) % 13) as f64 - 6.0
    }

    /// `C (+)= A·B` through `gemm_into` on `threads` threads against a naive f64 product
    /// on every 5th row (and every column, so every column block of a split).
    /// `a_flip` reads A with negative strides, `c_col_major` stores C column-major.
    fn check<T: Num + Into<f64>>(m: usize, n: usize, k: usize, a_flip: bool, c_col_major: bool, acc: bool) {
        let a: Vec<f64> = (0..m * k).map(|i| value(i, 1)).collect();
        let b: Vec<f64> = (0..k * n).map(|i| value(i, 2)).collect();
        let c0: Vec<f64> = (0..m * n).map(|i| value(i, 3)).collect();
        let conv = |v: &[f64]| v.iter().map(|&x| T::from_f64(x)).collect::<Vec<T>>();
        let (ta, tb, mut tc) = (conv(&a), conv(&b), conv(&c0));
        // A stored row-major; viewed flipped along both axes it reads the same matrix
        // from its last element with negative strides when `a_flip`.
        let (ta, a_view) = if a_flip {
            let rev: Vec<T> = ta.iter().rev().copied().collect();
            let p = rev.as_ptr().wrapping_add(m * k - 1);
            let v = MatRef {
                ptr: p,
                rs: -(k as isize),
                cs: -1,
            };
            (rev, v)
        } else {
            let v = MatRef::row_major(&ta, 0, m, k);
            (ta, v)
        };
        let (c_rs, c_cs) = if c_col_major { (1, m as isize) } else { (n as isize, 1) };
        if c_col_major {
            tc = (0..m * n).map(|x| tc[(x % m) * n + x / m]).collect();
        }
        let c_view = MatMut {
            ptr: tc.as_mut_ptr(),
            rs: c_rs,
            cs: c_cs,
        };
        // SAFETY: the views describe the m×k, k×n and m×n buffers above, C distinct.
        unsafe { gemm_into(acc, m, n, k, a_view, MatRef::row_major(&tb, 0, k, n), c_view, 2) };
        drop(ta);
        for i in (0..m).step_by(5) {
            for j in 0..n {
                let dot: f64 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                let want = if acc { c0[i * n + j] + dot } else { dot };
                let got: f64 = tc[(i as isize * c_rs + j as isize * c_cs) as usize].into();
                assert_eq!(got, want, "({m}, {n}, {k}) at ({i}, {j})");
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn split_products_equal_the_reference() {
        // Around the split's edges: the smallest split shape, block widths that are and
        // are not multiples of the 64-wide tiles, C column-major (split along m),
        // A with negative strides, and the accumulating form.
        check::<f32>(512, 512, 512, false, false, false);
        check::<f64>(512, 1025, 512, true, false, false);
        check::<f32>(700, 513, 512, false, true, true);
        check::<f64>(511, 1100, 600, false, false, true);
        check::<f32>(600, 600, 513, true, true, false);
    }

    #[test]
    fn split_rule() {
        let amd = crate::cpu::vendor() == crate::cpu::Vendor::Amd;
        let want = |w: usize| amd.then_some(w);
        assert_eq!(split_columns::<f32>(1024, 1024, 1024, 1024, 1, 2), want(512));
        assert_eq!(split_columns::<f64>(600, 1025, 512, 1024, 1, 2), want(576));
        assert_eq!(split_columns::<f32>(1024, 1024, 1024, 1024, 1, 1), None);
        assert_eq!(split_columns::<f32>(1024, 1024, 511, 1024, 1, 2), None);
        assert_eq!(split_columns::<f32>(4096, 400, 4096, 1024, 1, 2), None);
        assert_eq!(split_columns::<i32>(1024, 1024, 1024, 1024, 1, 2), None);
        assert_eq!(split_columns::<f32>(2048, 600, 4096, 1, 2048, 2), want(1024));
    }
}
