//! Reshape as a layout transform: NumPy's `_attempt_nocopy_reshape`.

use super::{Dimension, Layout, Order};
use crate::error::{Error, Result, fmt_shape};

/// The layout of `layout` reshaped to `new_shape` read in `order`, if NumPy would give
/// a view (`Ok(Some(..))`); `Ok(None)` if the reshape needs a copy; `Err` if the sizes
/// differ.
///
/// ```
/// use ferrotensor::layout::{Layout, reshape::reshape_layout};
/// use ferrotensor::Order;
/// let x = Layout::new([2usize, 3, 4], [12isize, 4, 1], 0);
/// let t = Layout::new([4usize, 3, 2], [1isize, 4, 12], 0);       // x.T
/// assert!(reshape_layout(&x, [12usize, 2], Order::RowMajor, "reshape").unwrap().is_some());
/// assert!(reshape_layout(&t, [12usize, 2], Order::RowMajor, "reshape").unwrap().is_none());
/// assert!(reshape_layout(&x, [5usize], Order::RowMajor, "reshape").is_err());
/// ```
pub fn reshape_layout<D: Dimension, D2: Dimension>(
    layout: &Layout<D>,
    new_shape: D2,
    order: Order,
    op: &'static str,
) -> Result<Option<Layout<D2>>> {
    let new_size = super::checked_size(new_shape.slice(), op)?;
    if new_size != layout.size() {
        return Err(Error::shape(
            op,
            format!(
                "cannot reshape array of size {} into shape {}",
                layout.size(),
                fmt_shape(new_shape.slice())
            ),
        ));
    }
    let mut strides = D2::zero_strides(new_shape.ndim());
    if new_shape.slice() == layout.shape() {
        strides.as_mut().copy_from_slice(layout.strides());
        return Ok(Some(Layout::new(new_shape, strides, layout.offset)));
    }
    let contiguous = match order {
        Order::RowMajor => layout.is_c_contiguous(),
        Order::ColMajor => layout.is_f_contiguous(),
    };
    if contiguous {
        super::default_strides(new_shape.slice(), order, strides.as_mut());
        return Ok(Some(Layout::new(new_shape, strides, layout.offset)));
    }
    if nocopy_strides(
        layout.shape(),
        layout.strides(),
        new_shape.slice(),
        order,
        strides.as_mut(),
    ) {
        Ok(Some(Layout::new(new_shape, strides, layout.offset)))
    } else {
        Ok(None)
    }
}

/// NumPy's `_attempt_nocopy_reshape` (numpy/_core/src/multiarray/shape.c): fills
/// `out` with strides that read `old` (shape, strides) as `new_dims` in `order`, or
/// returns false when no such strides exist.
///
/// ```
/// use ferrotensor::{layout::reshape::nocopy_strides, Order};
/// let mut out = [0isize; 1];
/// // x[:, :, ::2] of arange(24).reshape(2, 3, 4): strides (12, 4, 2), shape (2, 3, 2)
/// assert!(nocopy_strides(&[2, 3, 2], &[12, 4, 2], &[12], Order::RowMajor, &mut out));
/// assert_eq!(out, [2]);
/// let mut out2 = [0isize; 2];
/// assert!(nocopy_strides(&[2, 2, 4], &[12, 4, 1], &[2, 8], Order::RowMajor, &mut out2));
/// assert_eq!(out2, [12, 1]);
/// ```
pub fn nocopy_strides(
    old_dims: &[usize],
    old_strides: &[isize],
    new_dims: &[usize],
    order: Order,
    out: &mut [isize],
) -> bool {
    let (od, os): (Vec<usize>, Vec<isize>) = old_dims
        .iter()
        .zip(old_strides)
        .filter(|&(&d, _)| d != 1)
        .map(|(&d, &s)| (d, s))
        .unzip();
    let (oldnd, newnd) = (od.len(), new_dims.len());
    let f_order = order == Order::ColMajor;
    let (mut oi, mut oj, mut ni, mut nj) = (0usize, 1usize, 0usize, 1usize);
    while ni < newnd && oi < oldnd {
        let mut np = new_dims[ni];
        let mut op = od[oi];
        while np != op {
            if np < op {
                if nj >= newnd {
                    return false;
                }
                np *= new_dims[nj];
                nj += 1;
            } else {
                if oj >= oldnd {
                    return false;
                }
                op *= od[oj];
                oj += 1;
            }
        }
        for ok in oi..oj - 1 {
            let ok_ = if f_order {
                os[ok + 1] != od[ok] as isize * os[ok]
            } else {
                os[ok] != od[ok + 1] as isize * os[ok + 1]
            };
            if ok_ {
                return false;
            }
        }
        if f_order {
            out[ni] = os[oi];
            for nk in ni + 1..nj {
                out[nk] = out[nk - 1] * new_dims[nk - 1] as isize;
            }
        } else {
            out[nj - 1] = os[oj - 1];
            for nk in (ni + 1..nj).rev() {
                out[nk - 1] = out[nk] * new_dims[nk] as isize;
            }
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
    }
    let mut last = if ni >= 1 { out[ni - 1] } else { 1 };
    if f_order && ni >= 1 {
        last *= new_dims[ni - 1] as isize;
    }
    for s in out.iter_mut().take(newnd).skip(ni) {
        *s = last;
    }
    true
}
