//! Runtime CPU-feature dispatch for the element-wise kernels.
//!
//! Every kernel is written once as an `#[inline(always)]` scalar function made
//! of IEEE-754 operations only (`+ - * /`, `mul_add`, comparisons/selects and
//! bit manipulation). The generic loops below are instantiated inside
//! `#[target_feature]` wrappers so LLVM autovectorises them with AVX-512 or
//! AVX2+FMA. Because `mul_add` is a correctly rounded fused multiply-add on
//! every path (hardware FMA or the software `fma` of the C library), the
//! scalar and the vectorised code produce bit-identical results.

#[cfg(target_arch = "x86_64")]
use std::sync::atomic::{AtomicU8, Ordering};

/// Instruction-set level selected at runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// Baseline code (SSE2 on x86-64, NEON on aarch64, whatever elsewhere).
    Portable,
    /// x86-64 with AVX2 and FMA.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2,
    /// x86-64 with AVX-512F/VL, AVX2 and FMA.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx512,
}

#[cfg(target_arch = "x86_64")]
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// Returns the best instruction-set level supported by the running CPU.
#[inline]
pub(crate) fn level() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        match LEVEL.load(Ordering::Relaxed) {
            1 => Level::Portable,
            2 => Level::Avx2,
            3 => Level::Avx512,
            _ => detect(),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Level::Portable
    }
}

#[cfg(target_arch = "x86_64")]
#[cold]
fn detect() -> Level {
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    let avx512 = avx2 && is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl");
    let (lvl, code) = if avx512 {
        (Level::Avx512, 3)
    } else if avx2 {
        (Level::Avx2, 2)
    } else {
        (Level::Portable, 1)
    };
    LEVEL.store(code, Ordering::Relaxed);
    lvl
}

/// A scalar kernel as a type, so that its body is always inlined into the
/// `#[target_feature]` loops (a function pointer or `Fn` shim may not be).
pub(crate) trait Kernel<T> {
    /// Applies the function to one value; implementations are `#[inline(always)]`.
    fn apply(x: T) -> T;
}

#[inline(always)]
fn map_body<T: Copy, K: Kernel<T>>(src: &[T], dst: &mut [T]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = K::apply(s);
    }
}

#[inline(always)]
fn inplace_body<T: Copy, K: Kernel<T>>(xs: &mut [T]) {
    for x in xs.iter_mut() {
        *x = K::apply(*x);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Kernel;

    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn map_avx512<T: Copy, K: Kernel<T>>(src: &[T], dst: &mut [T]) {
        super::map_body::<T, K>(src, dst);
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn map_avx2<T: Copy, K: Kernel<T>>(src: &[T], dst: &mut [T]) {
        super::map_body::<T, K>(src, dst);
    }

    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn inplace_avx512<T: Copy, K: Kernel<T>>(xs: &mut [T]) {
        super::inplace_body::<T, K>(xs);
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn inplace_avx2<T: Copy, K: Kernel<T>>(xs: &mut [T]) {
        super::inplace_body::<T, K>(xs);
    }

    #[target_feature(enable = "fma")]
    pub(super) unsafe fn scalar_fma<T: Copy, K: Kernel<T>>(x: T) -> T {
        K::apply(x)
    }
}

/// `dst[i] = f(src[i])` with the best available instruction set.
///
/// # Panics
/// If `src.len() != dst.len()`.
#[inline]
pub(crate) fn map<T: Copy, K: Kernel<T>>(src: &[T], dst: &mut [T]) {
    assert_eq!(
        src.len(),
        dst.len(),
        "vmath: source and destination slices must have the same length"
    );
    #[cfg(target_arch = "x86_64")]
    match level() {
        Level::Avx512 => {
            // SAFETY: `level()` verified at runtime that the CPU supports
            // avx512f, avx512vl, avx2 and fma, the features enabled on the callee.
            unsafe { x86::map_avx512::<T, K>(src, dst) };
            return;
        }
        Level::Avx2 => {
            // SAFETY: `level()` verified at runtime that avx2 and fma are available.
            unsafe { x86::map_avx2::<T, K>(src, dst) };
            return;
        }
        Level::Portable => {}
    }
    map_body::<T, K>(src, dst);
}

/// `xs[i] = f(xs[i])` with the best available instruction set.
#[inline]
pub(crate) fn map_inplace<T: Copy, K: Kernel<T>>(xs: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    match level() {
        Level::Avx512 => {
            // SAFETY: `level()` verified at runtime that the CPU supports
            // avx512f, avx512vl, avx2 and fma, the features enabled on the callee.
            unsafe { x86::inplace_avx512::<T, K>(xs) };
            return;
        }
        Level::Avx2 => {
            // SAFETY: `level()` verified at runtime that avx2 and fma are available.
            unsafe { x86::inplace_avx2::<T, K>(xs) };
            return;
        }
        Level::Portable => {}
    }
    inplace_body::<T, K>(xs);
}

/// `f(x)` for a single value, using hardware FMA when available.
#[inline]
pub(crate) fn scalar<T: Copy, K: Kernel<T>>(x: T) -> T {
    #[cfg(target_arch = "x86_64")]
    if level() >= Level::Avx2 {
        // SAFETY: `level()` verified at runtime that fma is available.
        return unsafe { x86::scalar_fma::<T, K>(x) };
    }
    K::apply(x)
}
