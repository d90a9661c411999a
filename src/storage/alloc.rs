//! Fallible allocation of owned buffers: a size past `isize::MAX` bytes or a refusal of
//! the allocator becomes an [`Error::Alloc`] naming the operation and the shape, never
//! an abort. The panicking constructors turn that error into a panic with the same
//! message.

use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use std::any::TypeId;

/// The error for `n` elements of `T` in `shape` that cannot be allocated; `refused`
/// tells an allocator refusal from a size past `isize::MAX` bytes.
fn alloc_error<T: Element>(n: usize, shape: &[usize], op: &'static str, refused: bool) -> Error {
    let bytes = n as u128 * std::mem::size_of::<T>() as u128;
    let why = if refused {
        format!("the allocator refused {bytes} bytes")
    } else {
        format!("{bytes} bytes exceed isize::MAX")
    };
    Error::alloc(
        op,
        format!("cannot allocate shape {} of {}: {why}", fmt_shape(shape), T::NAME),
    )
}

/// `Err` if `n` elements of `T` (the elements of `shape`) exceed `isize::MAX` bytes.
pub(crate) fn check_bytes<T: Element>(n: usize, shape: &[usize], op: &'static str) -> Result<()> {
    match n.checked_mul(std::mem::size_of::<T>()) {
        Some(b) if b <= isize::MAX as usize => Ok(()),
        _ => Err(alloc_error::<T>(n, shape, op, false)),
    }
}

/// An empty vector with room for exactly `n` elements of `shape`.
pub(crate) fn try_with_capacity<T: Element>(n: usize, shape: &[usize], op: &'static str) -> Result<Vec<T>> {
    check_bytes::<T>(n, shape, op)?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| alloc_error::<T>(n, shape, op, true))?;
    Ok(v)
}

/// `n` copies of `value` (the elements of `shape`). `T::default()` of the crate's
/// number types comes from zeroed memory (`calloc`), which the system hands out
/// without writing it.
pub(crate) fn try_filled<T: Element>(n: usize, value: T, shape: &[usize], op: &'static str) -> Result<Vec<T>> {
    if is_zero_bits(value) {
        return try_zeroed(n, shape, op);
    }
    let mut v = try_with_capacity(n, shape, op)?;
    v.resize(n, value);
    Ok(v)
}

/// True for the element types whose `Default` value is the all-zero bit pattern (the
/// crate's own types; a user's `Element` type is never assumed to be one).
fn default_is_zero_bits<T: 'static>() -> bool {
    use half::{bf16, f16};
    use num_complex::Complex;
    let t = TypeId::of::<T>();
    [
        TypeId::of::<bool>(),
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<isize>(),
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<f16>(),
        TypeId::of::<bf16>(),
        TypeId::of::<f32>(),
        TypeId::of::<f64>(),
        TypeId::of::<Complex<f32>>(),
        TypeId::of::<Complex<f64>>(),
    ]
    .contains(&t)
}

/// True if `T` is one of the types of [`default_is_zero_bits`] and `value` is all zero
/// bits (`-0.0` is not).
fn is_zero_bits<T: Element>(value: T) -> bool {
    if !default_is_zero_bits::<T>() {
        return false;
    }
    let size = std::mem::size_of::<T>();
    // SAFETY: `T` is one of the types of `default_is_zero_bits`: plain numbers, `bool`
    // and pairs of floats, none with padding, so all `size` bytes of `value` are
    // initialised and may be read as `u8`.
    let bytes = unsafe { std::slice::from_raw_parts(&value as *const T as *const u8, size) };
    bytes.iter().all(|&b| b == 0)
}

/// `n` elements of value `T::default()` from zeroed memory. Only for the types of
/// [`default_is_zero_bits`].
fn try_zeroed<T: Element>(n: usize, shape: &[usize], op: &'static str) -> Result<Vec<T>> {
    debug_assert!(default_is_zero_bits::<T>());
    check_bytes::<T>(n, shape, op)?;
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| alloc_error::<T>(n, shape, op, false))?;
    if layout.size() == 0 {
        return Ok(vec![T::default(); n]);
    }
    // SAFETY: the layout has a nonzero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return Err(alloc_error::<T>(n, shape, op, true));
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `[T; n]`, which
    // is what a `Vec<T>` of capacity `n` owns; all `n` elements are initialised, since
    // all-zero bits are `T::default()` for the types of `default_is_zero_bits`.
    Ok(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_vectors_hold_the_value() {
        assert_eq!(try_filled(3, 0.0f32, &[3], "t").unwrap(), vec![0.0; 3]);
        let neg = try_filled(2, -0.0f64, &[2], "t").unwrap();
        assert!(neg.iter().all(|x| x.to_bits() == (-0.0f64).to_bits()));
        assert_eq!(try_filled(4, 7u8, &[4], "t").unwrap(), vec![7; 4]);
        assert_eq!(try_filled(2, false, &[2], "t").unwrap(), vec![false; 2]);
        let c = num_complex::Complex::new(0.0f32, 0.0);
        assert_eq!(try_filled(5, c, &[5], "t").unwrap(), vec![c; 5]);
        assert!(try_filled::<i64>(0, 0, &[0], "t").unwrap().is_empty());
        let z = try_filled(1000, half::f16::ZERO, &[10, 100], "t").unwrap();
        assert_eq!((z.len(), z.capacity()), (1000, 1000));
    }

    #[test]
    fn zero_bits_only_for_the_crates_types() {
        assert!(default_is_zero_bits::<f64>() && default_is_zero_bits::<bool>());
        assert!(!default_is_zero_bits::<char>() && !default_is_zero_bits::<(u8, u16)>());
        assert!(is_zero_bits(0.0f32) && !is_zero_bits(-0.0f32) && !is_zero_bits(1u8));
    }

    #[test]
    fn sizes_past_isize_max_are_errors() {
        let e = try_filled(1usize << 61, 1.0f64, &[1 << 61], "full").unwrap_err();
        assert!(matches!(e, Error::Alloc { .. }));
        assert_eq!(
            e.to_string(),
            "full: cannot allocate shape (2305843009213693952,) of float64: 18446744073709551616 bytes exceed isize::MAX"
        );
        assert!(try_with_capacity::<u8>(usize::MAX, &[usize::MAX], "t").is_err());
        assert!(check_bytes::<u8>(isize::MAX as usize, &[1], "t").is_ok());
    }

    // Miri stops at an allocation it cannot make instead of returning null.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn refused_allocations_are_errors() {
        // 2^62 bytes: under isize::MAX but past any x86-64 or AArch64 address space, so
        // the allocator refuses it even with unlimited overcommit.
        let e = try_filled(1usize << 59, 0.0f64, &[1 << 59], "zeros").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("the allocator refused 4611686018427387904 bytes"),
            "{e}"
        );
        let e = try_filled(1usize << 59, 1.0f64, &[1 << 59], "full").unwrap_err();
        assert!(matches!(e, Error::Alloc { .. }), "{e}");
    }
}
