//! Direct kernels for products with every dimension ≤ [`SMALL`], without packing or
//! threads.
//!
//! * `f32`/`f64` with unit-stride rows of `B` (and of the output, always ours) go to
//!   nano-gemm's unpacked kernels ([`SmallPlan`], prepared once per batch): the product
//!   `C = A·B` is computed as the column-major `Cᵀ = Bᵀ·Aᵀ`.
//! * everything else runs [`small_gemm`]: a stack copy of `B` and a fixed-width register
//!   array per output row (8 or 16 lanes); `f32`/`f64` use fused multiply-add in
//!   AVX-512 / AVX2+FMA builds picked at run time, other types their own (wrapping)
//!   arithmetic.

use super::mat::{MatMut, MatRef};
use crate::element::Num;
use std::any::TypeId;

/// Largest `m`, `n`, `k` handled here.
pub(crate) const SMALL: usize = 16;

/// Multiply-add used by the row accumulator.
trait MulAdd: Num {
    fn mul_add_to(acc: Self, a: Self, b: Self) -> Self;
}

/// Fused for floats.
#[derive(Clone, Copy)]
struct Fused;
/// The element type's own arithmetic.
#[derive(Clone, Copy)]
struct Plain;

trait Arith<T>: Copy {
    fn mul_add(acc: T, a: T, b: T) -> T;
}
impl<T: Num> Arith<T> for Plain {
    #[inline(always)]
    fn mul_add(acc: T, a: T, b: T) -> T {
        acc.wadd(a.wmul(b))
    }
}
impl<T: MulAdd> Arith<T> for Fused {
    #[inline(always)]
    fn mul_add(acc: T, a: T, b: T) -> T {
        T::mul_add_to(acc, a, b)
    }
}
impl MulAdd for f32 {
    #[inline(always)]
    fn mul_add_to(acc: f32, a: f32, b: f32) -> f32 {
        a.mul_add(b, acc)
    }
}
impl MulAdd for f64 {
    #[inline(always)]
    fn mul_add_to(acc: f64, a: f64, b: f64) -> f64 {
        a.mul_add(b, acc)
    }
}

/// A small product prepared for a fixed shape and stride pattern: nano-gemm plans when
/// they apply.
pub(crate) struct SmallPlan {
    nano32: Option<nano_gemm::Plan<f32>>,
    nano64: Option<nano_gemm::Plan<f64>>,
}

impl SmallPlan {
    /// Prepares `m × k` by `k × n` products whose `B` and `C` have column strides
    /// `b_cs` and `c_cs` (the same for every product the plan runs).
    pub(crate) fn new<T: 'static>(m: usize, n: usize, k: usize, b_cs: isize, c_cs: isize) -> Self {
        let mut p = SmallPlan {
            nano32: None,
            nano64: None,
        };
        let dims_ok = m > 0 && n > 0 && k > 0 && m <= SMALL && n <= SMALL && k <= SMALL;
        if dims_ok && b_cs == 1 && c_cs == 1 {
            // Cᵀ (n × m) = Bᵀ (n × k) · Aᵀ (k × m), with Cᵀ and Bᵀ column-major.
            if TypeId::of::<T>() == TypeId::of::<f32>() {
                p.nano32 = Some(nano_gemm::Plan::new_colmajor_lhs_and_dst_f32(n, m, k));
            } else if TypeId::of::<T>() == TypeId::of::<f64>() {
                p.nano64 = Some(nano_gemm::Plan::new_colmajor_lhs_and_dst_f64(n, m, k));
            }
        }
        p
    }

    /// `C = A · B` for the shape and strides the plan was made for.
    ///
    /// # Safety
    /// As [`super::gemm_kernels::gemm`], with the `m`, `n`, `k`, `b.cs` and `c.cs` given
    /// to [`SmallPlan::new`] and all dimensions ≤ [`SMALL`].
    #[inline]
    pub(crate) unsafe fn run<T: Num>(&self, m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
        if let Some(p) = &self.nano32 {
            let (a, b, c) = (a.cast::<f32>(), b.cast::<f32>(), c.cast::<f32>());
            // SAFETY: the plan exists only for T = f32 (so the casts are identities), for
            // exactly this (n, m, k), with b.cs == c.cs == 1 as its column-major lhs and
            // dst need; every element it reads or writes is one of A, B, C's in-range
            // elements (caller's contract); alpha = 0 means dst is written, never read.
            return unsafe {
                p.execute_unchecked(
                    n, m, k, c.ptr, 1, c.rs, b.ptr, 1, b.rs, a.ptr, a.cs, a.rs, 0.0, 1.0, false, false,
                )
            };
        }
        if let Some(p) = &self.nano64 {
            let (a, b, c) = (a.cast::<f64>(), b.cast::<f64>(), c.cast::<f64>());
            // SAFETY: as above, for T = f64.
            return unsafe {
                p.execute_unchecked(
                    n, m, k, c.ptr, 1, c.rs, b.ptr, 1, b.rs, a.ptr, a.cs, a.rs, 0.0, 1.0, false, false,
                )
            };
        }
        // SAFETY: forwarded caller contract.
        unsafe { small_gemm(m, n, k, a, b, c) }
    }
}

/// `C = A · B` for `m, n, k ≤ SMALL`.
///
/// # Safety
/// As [`super::gemm_kernels::gemm`].
#[inline]
pub(crate) unsafe fn small_gemm<T: Num>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    debug_assert!(m <= SMALL && n <= SMALL && k <= SMALL);
    #[cfg(target_arch = "x86_64")]
    {
        let id = TypeId::of::<T>();
        if id == TypeId::of::<f32>() || id == TypeId::of::<f64>() {
            match crate::cpu::isa() {
                // SAFETY: the CPU has the AVX-512 level (`isa`); forwarded caller contract.
                crate::cpu::Isa::Avx512 => return unsafe { float_avx512(m, n, k, a, b, c) },
                // SAFETY: the CPU has AVX2 and FMA (`isa`); forwarded caller contract.
                crate::cpu::Isa::Avx2 => return unsafe { float_avx2(m, n, k, a, b, c) },
                crate::cpu::Isa::Portable => {}
            }
        }
    }
    // SAFETY: forwarded caller contract.
    unsafe { by_width::<T, Plain>(m, n, k, a, b, c) }
}

/// Runs the f32/f64 kernel with fused multiply-add.
///
/// # Safety
/// `T` is `f32` or `f64`; forwarded caller contract.
#[inline(always)]
unsafe fn fused<T: Num>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    // SAFETY: (all arms) `T` is exactly the type cast to, so the pointer casts are identities.
    unsafe {
        if TypeId::of::<T>() == TypeId::of::<f32>() {
            by_width::<f32, Fused>(m, n, k, a.cast(), b.cast(), c.cast())
        } else {
            by_width::<f64, Fused>(m, n, k, a.cast(), b.cast(), c.cast())
        }
    }
}

/// [`fused`] compiled for the AVX-512 level.
///
/// # Safety
/// `crate::cpu::isa()` is `Avx512`; the contract of [`fused`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
unsafe fn float_avx512<T: Num>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    // SAFETY: forwarded caller contract.
    unsafe { fused(m, n, k, a, b, c) }
}

/// [`fused`] compiled for the AVX2 level.
///
/// # Safety
/// `crate::cpu::isa()` is at least `Avx2`; the contract of [`fused`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn float_avx2<T: Num>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    // SAFETY: forwarded caller contract.
    unsafe { fused(m, n, k, a, b, c) }
}

/// [`rows`] with the accumulator width for `n`.
///
/// # Safety
/// As [`super::gemm_kernels::gemm`], with all dimensions ≤ [`SMALL`].
#[inline(always)]
unsafe fn by_width<T: Num, A: Arith<T>>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    // SAFETY: forwarded caller contract.
    unsafe {
        if n <= 8 {
            rows::<T, A, 8>(m, n, k, a, b, c)
        } else {
            rows::<T, A, SMALL>(m, n, k, a, b, c)
        }
    }
}

/// The kernel proper: each row of `C` accumulates in a `[T; W]` array the compiler keeps
/// in registers. Rows of `B` are read in place when they are contiguous and exactly `W`
/// wide, else copied row-major into a zero-padded `k × W` stack buffer first.
///
/// # Safety
/// As [`super::gemm_kernels::gemm`], with `m, k ≤ SMALL` and `n ≤ W`.
#[inline(always)]
unsafe fn rows<T: Num, A: Arith<T>, const W: usize>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
) {
    if b.cs == 1 && n == W {
        // SAFETY: row p of `b` holds n == W contiguous elements inside `b`, so it can be
        // read as one `[T; W]` (T is Copy; the array has T's alignment).
        let brow = |p: usize| unsafe { &*(b.ptr.offset(p as isize * b.rs) as *const [T; W]) };
        // SAFETY: forwarded caller contract.
        return unsafe { accumulate::<T, A, W>(m, n, k, a, c, brow) };
    }
    let mut bp = [[T::zero(); W]; SMALL];
    for (p, row) in bp.iter_mut().enumerate().take(k) {
        for (j, x) in row.iter_mut().enumerate().take(n) {
            // SAFETY: (p, j) is inside `b` by the caller's contract.
            *x = unsafe { *b.ptr.offset(p as isize * b.rs + j as isize * b.cs) };
        }
    }
    // SAFETY: forwarded caller contract.
    unsafe { accumulate::<T, A, W>(m, n, k, a, c, |p| &bp[p]) }
}

/// `C = A · B` with row `p` of `B` given by `brow(p)` (its first `n` entries).
///
/// # Safety
/// Every `(i, p)` of `a` readable and `(i, j)` of `c` writable, for `i < m`, `p < k`,
/// `j < n ≤ W`, distinct `(i, j)` naming distinct elements of `c`, which aliases
/// neither `a` nor the rows `brow` returns.
#[inline(always)]
unsafe fn accumulate<'b, T: Num, A: Arith<T>, const W: usize>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    c: MatMut<T>,
    brow: impl Fn(usize) -> &'b [T; W],
) {
    for i in 0..m {
        let mut acc = [T::zero(); W];
        for p in 0..k {
            // SAFETY: (i, p) is inside `a` by the caller's contract.
            let av = unsafe { *a.ptr.offset(i as isize * a.rs + p as isize * a.cs) };
            for (x, &y) in acc.iter_mut().zip(brow(p)) {
                *x = A::mul_add(*x, av, y);
            }
        }
        if c.cs == 1 {
            // SAFETY: the n elements of output row i are distinct and inside `c`.
            let out = unsafe { std::slice::from_raw_parts_mut(c.ptr.offset(i as isize * c.rs), n) };
            out.copy_from_slice(&acc[..n]);
        } else {
            for (j, &v) in acc[..n].iter().enumerate() {
                // SAFETY: (i, j) is inside `c` by the caller's contract.
                unsafe { *c.ptr.offset(i as isize * c.rs + j as isize * c.cs) = v };
            }
        }
    }
}
