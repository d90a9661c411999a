//! The limits every shape obeys, NumPy's: at most [`MAX_NDIM`] axes, and the product of
//! the nonzero axis lengths fits `isize`. They are checked wherever a shape enters the
//! crate (constructors, reshape, broadcast, slicing, file headers), so every later size
//! computation (of the whole shape or of any subset of its axes) fits `usize` without a
//! check.
//!
//! A zero-length axis makes a tensor empty but does not make its other lengths
//! harmless: reducing `(0, 2³², 2³²)` over axis 0 gives `2⁶⁴` elements. NumPy refuses
//! such a shape whatever the axis order, and so does ferrotensor.
//!
//! ```
//! use ferrotensor::layout::{check_shape, MAX_NDIM};
//! assert_eq!(check_shape(&[2, 3], "zeros").unwrap(), 6);
//! assert_eq!(check_shape(&[0, 1 << 32], "zeros").unwrap(), 0);
//! let e = check_shape(&[0, 1 << 32, 1 << 32], "zeros").unwrap_err();
//! assert_eq!(
//!     e.to_string(),
//!     "zeros: shape (0, 4294967296, 4294967296) overflows: the product of its nonzero axis lengths exceeds isize::MAX"
//! );
//! assert_eq!(
//!     check_shape(&vec![1; MAX_NDIM + 1], "zeros").unwrap_err().to_string(),
//!     "zeros: shape (1, 1, 1, 1, 1, 1, 1, 1, …) has 65 axes, more than the limit of 64 axes"
//! );
//! ```

use crate::error::{Error, Result, fmt_shape};

/// The most axes a tensor may have: 64, NumPy's `NPY_MAXDIMS`. The same limit holds on
/// every path: constructors, reshape, broadcast, slicing with [`NewAxis`], `unsqueeze`,
/// and the `.npy` and safetensors readers.
///
/// [`NewAxis`]: crate::NewAxis
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::zeros(vec![1; 64]);
/// assert!(a.try_slice(s![NewAxis]).is_err());
/// ```
pub const MAX_NDIM: usize = 64;

/// `Err` if a tensor of `ndim` axes would exceed [`MAX_NDIM`].
///
/// ```
/// use ferrotensor::layout::check_ndim;
/// assert!(check_ndim(64, "slice").is_ok());
/// assert_eq!(
///     check_ndim(65, "slice").unwrap_err().to_string(),
///     "slice: a result of 65 axes exceeds the limit of 64 axes"
/// );
/// ```
pub fn check_ndim(ndim: usize, op: &'static str) -> Result<()> {
    if ndim > MAX_NDIM {
        return Err(Error::shape(
            op,
            format!("a result of {ndim} axes exceeds the limit of {MAX_NDIM} axes"),
        ));
    }
    Ok(())
}

/// Checks a shape against both limits and returns its element count: `Err` if it has
/// more than [`MAX_NDIM`] axes or if the product of its nonzero lengths exceeds
/// `isize::MAX` (even when another axis is zero).
///
/// ```
/// use ferrotensor::layout::check_shape;
/// assert_eq!(check_shape(&[], "zeros").unwrap(), 1);
/// assert_eq!(check_shape(&[usize::MAX, 0], "zeros").unwrap_err().to_string(),
///     "zeros: shape (18446744073709551615, 0) overflows: the product of its nonzero axis lengths exceeds isize::MAX");
/// ```
pub fn check_shape(shape: &[usize], op: &'static str) -> Result<usize> {
    if shape.len() > MAX_NDIM {
        // A file header may claim a million axes: the message shows the first few.
        let shown = fmt_shape(&shape[..8]);
        return Err(Error::shape(
            op,
            format!(
                "shape {}, …) has {} axes, more than the limit of {MAX_NDIM} axes",
                &shown[..shown.len() - 1],
                shape.len()
            ),
        ));
    }
    let mut nonzero = 1usize;
    let mut empty = false;
    for &d in shape {
        if d == 0 {
            empty = true;
            continue;
        }
        nonzero = nonzero
            .checked_mul(d)
            .filter(|&p| p <= isize::MAX as usize)
            .ok_or_else(|| shape_too_large(shape, op))?;
    }
    Ok(if empty { 0 } else { nonzero })
}

/// The error of a shape whose nonzero lengths multiply past `isize::MAX`.
fn shape_too_large(shape: &[usize], op: &'static str) -> Error {
    Error::overflow(
        op,
        format!(
            "shape {} overflows: the product of its nonzero axis lengths exceeds isize::MAX",
            fmt_shape(shape)
        ),
    )
}

/// The element count of a shape, checked as [`check_shape`] does (the same function
/// under the name the crate used first).
///
/// ```
/// assert_eq!(ferrotensor::layout::checked_size(&[2, 3], "zeros").unwrap(), 6);
/// assert!(ferrotensor::layout::checked_size(&[usize::MAX, 3], "zeros").is_err());
/// assert!(ferrotensor::layout::checked_size(&[0, usize::MAX], "zeros").is_err());
/// ```
pub fn checked_size(shape: &[usize], op: &'static str) -> Result<usize> {
    check_shape(shape, op)
}

/// Size in bytes of `count` elements of `T`; `Err` if it exceeds `isize::MAX` (the
/// most any allocation may hold).
///
/// ```
/// assert_eq!(ferrotensor::layout::byte_size::<f32>(4).unwrap(), 16);
/// assert!(ferrotensor::layout::byte_size::<f64>(usize::MAX).is_err());
/// assert!(ferrotensor::layout::byte_size::<f64>(1 << 61).is_err());
/// ```
pub fn byte_size<T>(count: usize) -> Result<usize> {
    count
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::overflow(
                "byte_size",
                format!(
                    "{} elements of {} bytes exceed isize::MAX bytes",
                    count,
                    std::mem::size_of::<T>()
                ),
            )
        })
}
