//! The element-wise math kernels as [`crate::cpu::Kernel`]s.
//!
//! Every kernel is written once as an `#[inline(always)]` scalar function made
//! of IEEE-754 operations only (`+ - * /`, `mul_add`, comparisons/selects and
//! bit manipulation). The loops below run through [`crate::cpu::dispatch`], which
//! compiles them inside `#[target_feature]` wrappers so LLVM autovectorises them
//! with AVX-512 or AVX2+FMA. Because `mul_add` is a correctly rounded fused multiply-add on
//! every path (hardware FMA or the software `fma` of the C library), the
//! scalar and the vectorised code produce bit-identical results.

/// A scalar kernel as a type, so that its body is always inlined into the
/// `#[target_feature]` loops (a function pointer or `Fn` shim may not be).
pub(crate) trait Kernel<T> {
    /// Applies the function to one value; implementations are `#[inline(always)]`.
    fn apply(x: T) -> T;
}

/// `dst[i] = K(src[i])` as a [`crate::cpu::Kernel`].
struct MapK<'a, T, K>(&'a [T], &'a mut [T], std::marker::PhantomData<K>);
impl<T: Copy, K: Kernel<T>> crate::cpu::Kernel for MapK<'_, T, K> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        for (d, &s) in self.1.iter_mut().zip(self.0) {
            *d = K::apply(s);
        }
    }
}

/// `xs[i] = K(xs[i])` as a [`crate::cpu::Kernel`].
struct InplaceK<'a, T, K>(&'a mut [T], std::marker::PhantomData<K>);
impl<T: Copy, K: Kernel<T>> crate::cpu::Kernel for InplaceK<'_, T, K> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        for x in self.0.iter_mut() {
            *x = K::apply(*x);
        }
    }
}

/// `K(x)` for one value as a [`crate::cpu::Kernel`] (hardware FMA on the AVX levels).
struct ScalarK<T, K>(T, std::marker::PhantomData<K>);
impl<T: Copy, K: Kernel<T>> crate::cpu::Kernel for ScalarK<T, K> {
    type Out = T;
    #[inline(always)]
    fn call(self) -> T {
        K::apply(self.0)
    }
}

/// `dst[i] = f(src[i])` with the instruction set of [`crate::cpu::isa`].
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
    crate::cpu::dispatch(MapK::<T, K>(src, dst, std::marker::PhantomData))
}

/// `xs[i] = f(xs[i])` with the instruction set of [`crate::cpu::isa`].
#[inline]
pub(crate) fn map_inplace<T: Copy, K: Kernel<T>>(xs: &mut [T]) {
    crate::cpu::dispatch(InplaceK::<T, K>(xs, std::marker::PhantomData))
}

/// `f(x)` for a single value, using hardware FMA when available.
#[inline]
pub(crate) fn scalar<T: Copy, K: Kernel<T>>(x: T) -> T {
    if crate::cpu::isa() >= crate::cpu::Isa::Avx2 {
        return crate::cpu::dispatch(ScalarK::<T, K>(x, std::marker::PhantomData));
    }
    K::apply(x)
}
