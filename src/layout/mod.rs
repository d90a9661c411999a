//! Layouts: shape, signed strides (in elements) and offset over a buffer.
//!
//! A layout alone decides which buffer element each index names. View operations are
//! pure functions on layouts; nothing here touches data.
//!
//! ```
//! use ferrotensor::layout::Layout;
//! use ferrotensor::Order;
//! let l = Layout::new_order([2usize, 3], Order::RowMajor).unwrap();
//! assert_eq!(l.strides(), &[3, 1]);
//! assert_eq!(l.ravel(&[1, 2]).unwrap(), 5);
//! let f = Layout::new_order([2usize, 3], Order::ColMajor).unwrap();
//! assert_eq!(f.strides(), &[1, 2]);
//! assert!(f.is_f_contiguous() && !f.is_c_contiguous());
//! ```

pub mod dim;
pub mod rank;
pub mod rearrange;
pub mod reshape;
pub mod slice;
mod strides;
pub mod transform;

pub use dim::{Dimension, IntoShape, Ix0, Ix1, Ix2, Ix3, Ix4, Ix5, Ix6, IxDyn};
pub use rank::{AtLeast, DiagDim, DimMax, DotDim, InsertAxis, MatmulDim, RemoveAxis};
pub use strides::{default_strides, is_c_contiguous, is_f_contiguous};

use crate::error::{Error, Result, fmt_shape};

/// Memory order of a contiguous layout: row-major (C, NumPy's default) or column-major
/// (Fortran).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec_order(vec![1, 2, 3, 4, 5, 6], [2, 3], Order::ColMajor).unwrap();
/// assert_eq!(a.to_vec(), vec![1, 3, 5, 2, 4, 6]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// Last axis varies fastest (C order).
    #[default]
    RowMajor,
    /// First axis varies fastest (Fortran order).
    ColMajor,
}

/// Shape, signed strides in elements, and the buffer offset of the element whose
/// index is all zeros.
///
/// ```
/// use ferrotensor::layout::Layout;
/// let l = Layout::new([3usize], [-1isize], 2);
/// assert_eq!(l.ravel(&[0]).unwrap(), 2);
/// assert_eq!(l.ravel(&[2]).unwrap(), 0);
/// assert!(l.check_in_buffer(3, "view").is_ok());
/// assert!(l.check_in_buffer(2, "view").is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Layout<D: Dimension> {
    pub(crate) shape: D,
    pub(crate) strides: D::Strides,
    pub(crate) offset: usize,
}

impl<D: Dimension> std::fmt::Debug for Layout<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Layout {{ shape: {:?}, strides: {:?}, offset: {} }}",
            self.shape.slice(),
            self.strides.as_ref(),
            self.offset
        )
    }
}

impl<D: Dimension> Layout<D> {
    /// A layout from its parts, unchecked: use [`Layout::check_in_buffer`] before
    /// reading through it.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([2usize, 2], [1isize, 2], 0);
    /// assert!(l.is_f_contiguous());
    /// ```
    pub fn new(shape: D, strides: D::Strides, offset: usize) -> Self {
        Layout { shape, strides, offset }
    }

    /// A contiguous layout of `shape` in `order` at offset 0; `Err` if the element
    /// count or the byte extent overflows.
    ///
    /// ```
    /// use ferrotensor::{layout::Layout, Order};
    /// assert!(Layout::new_order([usize::MAX, 2], Order::RowMajor).is_err());
    /// ```
    pub fn new_order(shape: D, order: Order) -> Result<Self> {
        let size = shape.size_checked().ok_or_else(|| {
            Error::overflow(
                "layout",
                format!("element count of shape {} overflows usize", fmt_shape(shape.slice())),
            )
        })?;
        if size > isize::MAX as usize {
            return Err(Error::overflow(
                "layout",
                format!("element count of shape {} exceeds isize::MAX", fmt_shape(shape.slice())),
            ));
        }
        let mut strides = D::zero_strides(shape.ndim());
        default_strides(shape.slice(), order, strides.as_mut());
        Ok(Layout {
            shape,
            strides,
            offset: 0,
        })
    }

    /// The lengths of the axes.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new_order([4usize, 5], Default::default()).unwrap();
    /// assert_eq!(l.shape(), &[4, 5]);
    /// ```
    #[inline]
    pub fn shape(&self) -> &[usize] {
        self.shape.slice()
    }
    /// The shape as its rank type.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new_order([4usize, 5], Default::default()).unwrap();
    /// assert_eq!(l.dim(), &[4, 5]);
    /// ```
    #[inline]
    pub fn dim(&self) -> &D {
        &self.shape
    }
    /// Signed strides in elements.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new_order([4usize, 5], Default::default()).unwrap();
    /// assert_eq!(l.strides(), &[5, 1]);
    /// ```
    #[inline]
    pub fn strides(&self) -> &[isize] {
        self.strides.as_ref()
    }
    /// Buffer index of the element whose index is all zeros.
    ///
    /// ```
    /// assert_eq!(ferrotensor::layout::Layout::new([2usize], [1isize], 7).offset(), 7);
    /// ```
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Number of axes.
    ///
    /// ```
    /// assert_eq!(ferrotensor::layout::Layout::new([2usize, 1], [1isize, 1], 0).ndim(), 2);
    /// ```
    #[inline]
    pub fn ndim(&self) -> usize {
        self.shape.ndim()
    }
    /// Number of elements (the product of the shape).
    ///
    /// ```
    /// assert_eq!(ferrotensor::layout::Layout::new([2usize, 0], [1isize, 1], 0).size(), 0);
    /// ```
    #[inline]
    pub fn size(&self) -> usize {
        self.shape.size()
    }
    /// Row-major contiguity as NumPy defines it (length-1 axes ignore their stride;
    /// empty layouts are contiguous).
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([2usize, 1, 3], [3isize, 99, 1], 0);
    /// assert!(l.is_c_contiguous());
    /// ```
    pub fn is_c_contiguous(&self) -> bool {
        is_c_contiguous(self.shape(), self.strides())
    }
    /// Column-major contiguity as NumPy defines it.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([2usize, 3], [1isize, 2], 0);
    /// assert!(l.is_f_contiguous());
    /// ```
    pub fn is_f_contiguous(&self) -> bool {
        is_f_contiguous(self.shape(), self.strides())
    }

    /// The lowest and highest buffer index the layout reaches, `None` for an empty
    /// layout; `Err` on arithmetic overflow or a negative lowest index.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([3usize, 2], [-2isize, 1], 4);
    /// assert_eq!(l.extent().unwrap(), Some((0, 5)));
    /// ```
    pub fn extent(&self) -> Result<Option<(usize, usize)>> {
        if self.size() == 0 {
            return Ok(None);
        }
        let overflow = || {
            Error::overflow(
                "layout",
                format!(
                    "extent of shape {} with strides {} overflows",
                    fmt_shape(self.shape()),
                    fmt_shape(self.strides())
                ),
            )
        };
        let mut lo = self.offset as i128;
        let mut hi = self.offset as i128;
        for (&d, &s) in self.shape().iter().zip(self.strides()) {
            let span = (d as i128 - 1) * s as i128;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        if lo < 0 {
            return Err(Error::index(
                "layout",
                format!(
                    "shape {} with strides {} and offset {} reaches below the buffer start",
                    fmt_shape(self.shape()),
                    fmt_shape(self.strides()),
                    self.offset
                ),
            ));
        }
        let lo = usize::try_from(lo).map_err(|_| overflow())?;
        let hi = usize::try_from(hi).map_err(|_| overflow())?;
        Ok(Some((lo, hi)))
    }

    /// Checks that every element the layout names lies inside a buffer of `len`
    /// elements (an empty layout always fits).
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([2usize, 3], [3isize, 1], 0);
    /// assert!(l.check_in_buffer(6, "view").is_ok());
    /// assert!(l.check_in_buffer(5, "view").is_err());
    /// ```
    pub fn check_in_buffer(&self, len: usize, op: &'static str) -> Result<()> {
        if self.shape.size_checked().is_none() {
            return Err(Error::overflow(
                op,
                format!("element count of shape {} overflows usize", fmt_shape(self.shape())),
            ));
        }
        match self.extent()? {
            None => Ok(()),
            Some((_, hi)) if hi < len => Ok(()),
            Some((_, hi)) => Err(Error::index(
                op,
                format!(
                    "shape {} with strides {} and offset {} reaches element {} of a buffer of {}",
                    fmt_shape(self.shape()),
                    fmt_shape(self.strides()),
                    self.offset,
                    hi,
                    len
                ),
            )),
        }
    }

    /// Buffer index of the element at `index`; `Err` if the index has the wrong rank
    /// or is out of range.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([2usize, 3], [3isize, 1], 0);
    /// assert_eq!(l.ravel(&[1, 1]).unwrap(), 4);
    /// assert!(l.ravel(&[2, 0]).is_err());
    /// ```
    pub fn ravel(&self, index: &[usize]) -> Result<usize> {
        self.ravel_opt(index).ok_or_else(|| {
            Error::index(
                "index",
                format!(
                    "index {:?} is out of bounds for shape {}",
                    index,
                    fmt_shape(self.shape())
                ),
            )
        })
    }

    /// Like [`Layout::ravel`] but `None` instead of an error.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([2usize], [1isize], 0);
    /// assert_eq!(l.ravel_opt(&[5]), None);
    /// ```
    #[inline]
    pub fn ravel_opt(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.ndim() {
            return None;
        }
        let mut off = self.offset as isize;
        for ((&i, &d), &s) in index.iter().zip(self.shape()).zip(self.strides()) {
            if i >= d {
                return None;
            }
            off += i as isize * s;
        }
        Some(off as usize)
    }

    /// Converts to dynamic rank.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([2usize], [1isize], 0).into_dyn();
    /// assert_eq!(l.shape(), &[2]);
    /// ```
    pub fn into_dyn(self) -> Layout<IxDyn> {
        Layout {
            shape: self.shape.to_dyn(),
            strides: dim::StrideVec::from_slice(self.strides.as_ref()),
            offset: self.offset,
        }
    }

    /// Converts to another rank type; `Err` if the rank differs.
    ///
    /// ```
    /// let l = ferrotensor::layout::Layout::new([2usize], [1isize], 0).into_dyn();
    /// assert!(l.clone().into_dim::<[usize; 1]>().is_ok());
    /// assert!(l.into_dim::<[usize; 2]>().is_err());
    /// ```
    pub fn into_dim<D2: Dimension>(self) -> Result<Layout<D2>> {
        let shape: D2 = dim::into_dimension(self.shape(), "into_dim")?;
        let strides = D2::strides_from(self.strides()).expect("same rank as shape");
        Ok(Layout {
            shape,
            strides,
            offset: self.offset,
        })
    }
}

/// Row-major unravel: the multi-index of flat position `flat` in `shape`; `Err` if
/// `flat` is past the end.
///
/// ```
/// assert_eq!(ferrotensor::layout::unravel_index(5, &[2, 3]).unwrap(), vec![1, 2]);
/// assert!(ferrotensor::layout::unravel_index(6, &[2, 3]).is_err());
/// ```
pub fn unravel_index(flat: usize, shape: &[usize]) -> Result<Vec<usize>> {
    let size: usize = shape.iter().product();
    if flat >= size {
        return Err(Error::index(
            "unravel_index",
            format!(
                "index {} is out of bounds for shape {} of size {}",
                flat,
                fmt_shape(shape),
                size
            ),
        ));
    }
    let mut idx = vec![0; shape.len()];
    let mut rest = flat;
    for ax in (0..shape.len()).rev() {
        idx[ax] = rest % shape[ax];
        rest /= shape[ax];
    }
    Ok(idx)
}

/// Row-major ravel: the flat position of `index` in `shape`; `Err` if out of range.
///
/// ```
/// assert_eq!(ferrotensor::layout::ravel_multi_index(&[1, 2], &[2, 3]).unwrap(), 5);
/// assert!(ferrotensor::layout::ravel_multi_index(&[2, 0], &[2, 3]).is_err());
/// ```
pub fn ravel_multi_index(index: &[usize], shape: &[usize]) -> Result<usize> {
    if index.len() != shape.len() || index.iter().zip(shape).any(|(&i, &d)| i >= d) {
        return Err(Error::index(
            "ravel_multi_index",
            format!("index {:?} is out of bounds for shape {}", index, fmt_shape(shape)),
        ));
    }
    Ok(index.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i))
}

/// Checks that no two indices of `layout` name the same buffer element (required
/// for writable tensors). The test is sufficient, not exact: after sorting axes by
/// |stride|, each stride must exceed the span of all smaller axes.
///
/// ```
/// use ferrotensor::layout::{Layout, check_no_alias};
/// assert!(check_no_alias(&Layout::new([2usize, 3], [3isize, 1], 0), "op").is_ok());
/// assert!(check_no_alias(&Layout::new([2usize, 3], [0isize, 1], 0), "op").is_err());
/// ```
pub fn check_no_alias<D: Dimension>(layout: &Layout<D>, op: &'static str) -> Result<()> {
    if layout.size() <= 1 {
        return Ok(());
    }
    let mut axes: Vec<(usize, usize)> = layout
        .shape()
        .iter()
        .zip(layout.strides())
        .filter(|&(&d, _)| d > 1)
        .map(|(&d, &s)| (d, s.unsigned_abs()))
        .collect();
    axes.sort_by_key(|&(_, s)| s);
    let mut span: u128 = 0;
    for (d, s) in axes {
        if (s as u128) <= span {
            return Err(Error::shape(
                op,
                format!(
                    "layout with shape {} and strides {} names some elements twice; writable tensors must not alias",
                    fmt_shape(layout.shape()),
                    fmt_shape(layout.strides())
                ),
            ));
        }
        span += (d as u128 - 1) * s as u128;
    }
    Ok(())
}

/// Size in bytes of `count` elements of `T`; `Err` on overflow.
///
/// ```
/// assert_eq!(ferrotensor::layout::byte_size::<f32>(4).unwrap(), 16);
/// assert!(ferrotensor::layout::byte_size::<f64>(usize::MAX).is_err());
/// ```
pub fn byte_size<T>(count: usize) -> Result<usize> {
    count
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::overflow(
                "byte_size",
                format!("{} elements of {} bytes overflow", count, std::mem::size_of::<T>()),
            )
        })
}

/// Checked element count of a shape.
///
/// ```
/// assert_eq!(ferrotensor::layout::checked_size(&[2, 3], "zeros").unwrap(), 6);
/// assert!(ferrotensor::layout::checked_size(&[usize::MAX, 3], "zeros").is_err());
/// ```
pub fn checked_size(shape: &[usize], op: &'static str) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| Error::overflow(op, format!("element count of shape {} overflows", fmt_shape(shape))))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_views;
