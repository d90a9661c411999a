//! Seeing a generic `T` as a concrete type `U` when they are the same type: the one
//! helper behind every fast path that specialises a generic kernel for `f32`, `f64` or
//! a half type at run time (the checks compile to constants).

use std::any::TypeId;

/// True when `T` and `U` are the same type.
#[inline(always)]
pub(crate) fn is_same<T: 'static, U: 'static>() -> bool {
    TypeId::of::<T>() == TypeId::of::<U>()
}

/// `s` as a slice of `U` if `T` is `U`.
#[inline(always)]
pub(crate) fn slice<T: 'static, U: 'static>(s: &[T]) -> Option<&[U]> {
    // SAFETY: `T` and `U` are the same type (checked), so this reinterprets the slice as
    // itself: same pointer, length, layout, validity and lifetime.
    is_same::<T, U>().then(|| unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<U>(), s.len()) })
}

/// `s` as a mutable slice of `U` if `T` is `U`.
#[inline(always)]
pub(crate) fn slice_mut<T: 'static, U: 'static>(s: &mut [T]) -> Option<&mut [U]> {
    // SAFETY: as in `slice`; the unique borrow of `s` moves into the result.
    is_same::<T, U>().then(|| unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<U>(), s.len()) })
}

/// `v` as a vector of `U` if `T` is `U` (no copy), else `v` back.
#[inline(always)]
pub(crate) fn vec<T: 'static, U: 'static>(v: Vec<T>) -> Result<Vec<U>, Vec<T>> {
    if !is_same::<T, U>() {
        return Err(v);
    }
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: `T` and `U` are the same type, so pointer, length and capacity describe a
    // valid `Vec<U>` from the same allocator; `v` is not dropped, so ownership moves.
    Ok(unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<U>(), v.len(), v.capacity()) })
}

/// `x` as a `U` if `T` is `U`.
#[inline(always)]
pub(crate) fn value<T: 'static, U: 'static + Copy>(x: T) -> Option<U> {
    slice::<T, U>(std::slice::from_ref(&x)).map(|s| s[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_type_converts() {
        let mut xs = [1.0f32, 2.0];
        assert_eq!(slice::<f32, f32>(&xs), Some(&[1.0f32, 2.0][..]));
        assert_eq!(slice::<f32, u32>(&xs), None);
        slice_mut::<f32, f32>(&mut xs).unwrap()[1] = 5.0;
        assert_eq!(xs, [1.0, 5.0]);
        assert!(slice_mut::<f32, f64>(&mut xs).is_none());
        let v: Vec<u8> = vec::<u8, u8>(vec![3, 4]).unwrap();
        assert_eq!(v, vec![3, 4]);
        assert_eq!(vec::<u8, i8>(vec![7]).unwrap_err(), vec![7u8]);
        assert_eq!(value::<i64, i64>(-3), Some(-3));
        assert_eq!(value::<i64, u64>(3), None);
        assert!(is_same::<String, String>() && !is_same::<String, &str>());
    }
}
