//! Direct kernel for products with every dimension ≤ [`SMALL`]: no packing beyond a
//! stack copy of `B`, no threads. Each output row accumulates in a fixed-width register
//! array (8 or 16 lanes); `f32`/`f64` use fused multiply-add in AVX-512 / AVX2+FMA builds
//! picked at run time, other types their own (wrapping) arithmetic.

use super::gemm_kernels::{MatMut, MatRef};
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
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F (checked); forwarded caller contract.
                return unsafe { float_avx512(m, n, k, a, b, c) };
            }
            if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU has AVX2 and FMA (checked); forwarded caller contract.
                return unsafe { float_avx2(m, n, k, a, b, c) };
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
    // SAFETY (all arms): `T` is exactly the type cast to, so the pointer casts are identities.
    unsafe {
        if TypeId::of::<T>() == TypeId::of::<f32>() {
            by_width::<f32, Fused>(m, n, k, a.cast(), b.cast(), c.cast())
        } else {
            by_width::<f64, Fused>(m, n, k, a.cast(), b.cast(), c.cast())
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn float_avx512<T: Num>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    // SAFETY: forwarded caller contract.
    unsafe { fused(m, n, k, a, b, c) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn float_avx2<T: Num>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    // SAFETY: forwarded caller contract.
    unsafe { fused(m, n, k, a, b, c) }
}

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
