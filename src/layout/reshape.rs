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
    reshape_layout_with(layout, new_shape, order, op, true)
}

/// Like [`reshape_layout`] for a shape that was given with a `-1`: NumPy compares the
/// requested shape with the old one before inferring the `-1`, so its "same shape, keep
/// the strides" shortcut never applies and length-1 axes get NumPy's reshape strides.
///
/// ```
/// use ferrotensor::layout::{Layout, reshape::{reshape_layout, reshape_layout_inferred}};
/// use ferrotensor::Order;
/// let l = Layout::new([1usize, 1], [-2isize, 6], 9);
/// let kept = reshape_layout(&l, [1usize, 1], Order::RowMajor, "reshape").unwrap().unwrap();
/// assert_eq!(kept.strides(), &[-2, 6]);
/// let fresh = reshape_layout_inferred(&l, [1usize, 1], Order::RowMajor, "reshape").unwrap().unwrap();
/// assert_eq!(fresh.strides(), &[1, 1]);
/// ```
pub fn reshape_layout_inferred<D: Dimension, D2: Dimension>(
    layout: &Layout<D>,
    new_shape: D2,
    order: Order,
    op: &'static str,
) -> Result<Option<Layout<D2>>> {
    reshape_layout_with(layout, new_shape, order, op, false)
}

fn reshape_layout_with<D: Dimension, D2: Dimension>(
    layout: &Layout<D>,
    new_shape: D2,
    order: Order,
    op: &'static str,
    same_shape_shortcut: bool,
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
    if same_shape_shortcut && new_shape.slice() == layout.shape() {
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

/// The layout with axes `start..=end` merged into one (PyTorch `flatten(start_dim,
/// end_dim)`; negative axes count from the end), or `Err` when the merged axes cannot
/// be read as one strided axis (a copy would be needed), never a wrong view. A 0-d
/// layout merges `(0, 0)`, `(0, -1)` or `(-1, -1)` into shape `[1]` as PyTorch does.
///
/// ```
/// use ferrotensor::layout::{Layout, reshape::merge_axes_layout};
/// let l = Layout::new([2usize, 3, 4], [12isize, 4, 1], 0);
/// let m = merge_axes_layout(&l, 1, -1).unwrap();
/// assert_eq!((m.shape(), m.strides()), (&[2usize, 12][..], &[12isize, 1][..]));
/// let t = Layout::new([4usize, 3, 2], [1isize, 4, 12], 0);   // a transpose
/// assert!(merge_axes_layout(&t, 0, 1).is_err());
/// ```
pub fn merge_axes_layout<D: Dimension>(layout: &Layout<D>, start: isize, end: isize) -> Result<Layout<super::IxDyn>> {
    use super::transform::normalize_axis;
    let nd = layout.ndim();
    if nd == 0 {
        normalize_axis(start, 1, "merge_axes")?;
        normalize_axis(end, 1, "merge_axes")?;
        return Ok(Layout::new(
            super::IxDyn::from(&[1usize][..]),
            [1isize].into_iter().collect(),
            layout.offset,
        ));
    }
    let s = normalize_axis(start, nd, "merge_axes")?;
    let e = normalize_axis(end, nd, "merge_axes")?;
    if s > e {
        return Err(Error::axis(
            "merge_axes",
            format!(
                "start axis {start} comes after end axis {end} for shape {}",
                fmt_shape(layout.shape())
            ),
        ));
    }
    let mut dims: Vec<usize> = layout.shape()[..s].to_vec();
    dims.push(layout.shape()[s..=e].iter().product());
    dims.extend_from_slice(&layout.shape()[e + 1..]);
    reshape_layout(layout, super::IxDyn::from(&dims[..]), Order::RowMajor, "merge_axes")?.ok_or_else(|| {
        Error::shape(
            "merge_axes",
            format!(
                "axes {}..={} of shape {} with strides {} cannot be merged without a copy",
                s,
                e,
                fmt_shape(layout.shape()),
                fmt_shape(layout.strides())
            ),
        )
    })
}

/// The layout with `axis` split into `sizes` (PyTorch `unflatten`); one size may be
/// `-1` and is inferred. Splitting one axis is always a view; `Err` if the sizes don't
/// multiply to the axis length, more than one is `-1`, or one is below `-1`.
///
/// ```
/// use ferrotensor::layout::{Layout, reshape::split_axis_layout};
/// let l = Layout::new([2usize, 12], [1isize, 2], 0);           // column-major (2, 12)
/// let s = split_axis_layout(&l, 1, &[3, -1]).unwrap();
/// assert_eq!((s.shape(), s.strides()), (&[2usize, 3, 4][..], &[1isize, 8, 2][..]));
/// assert!(split_axis_layout(&l, 1, &[5, -1]).is_err());
/// ```
pub fn split_axis_layout<D: Dimension>(
    layout: &Layout<D>,
    axis: isize,
    sizes: &[isize],
) -> Result<Layout<super::IxDyn>> {
    let nd = layout.ndim();
    let ax = super::transform::normalize_axis(axis, nd, "split_axis")?;
    let n = layout.shape()[ax];
    let parts = infer_sizes(sizes, n, "split_axis", || {
        format!(
            "cannot split axis {} of length {} (shape {}) into {:?}",
            ax,
            n,
            fmt_shape(layout.shape()),
            sizes
        )
    })?;
    let mut dims: Vec<usize> = layout.shape()[..ax].to_vec();
    dims.extend_from_slice(&parts);
    dims.extend_from_slice(&layout.shape()[ax + 1..]);
    let dims = super::IxDyn::from(&dims[..]);
    // NumPy's rule gives the same view with NumPy's strides on length-1 axes.
    if let Some(l) = reshape_layout(layout, dims.clone(), Order::RowMajor, "split_axis")? {
        return Ok(l);
    }
    let mut strides: Vec<isize> = layout.strides()[..ax].to_vec();
    let mut acc = layout.strides()[ax];
    let mut split = vec![0isize; parts.len()];
    for (k, &p) in parts.iter().enumerate().rev() {
        split[k] = acc;
        acc = acc.wrapping_mul(p as isize);
    }
    strides.extend_from_slice(&split);
    strides.extend_from_slice(&layout.strides()[ax + 1..]);
    Ok(Layout::new(dims, strides.into_iter().collect(), layout.offset))
}

/// Resolves one `-1` in `sizes` so that their product is `total`; `Err` (with the
/// message `msg`) if impossible.
///
/// ```
/// use ferrotensor::layout::reshape::infer_sizes;
/// assert_eq!(infer_sizes(&[2, -1, 3], 12, "op", || String::new()).unwrap(), vec![2, 2, 3]);
/// assert!(infer_sizes(&[-1, -1], 4, "op", || String::new()).is_err());
/// assert!(infer_sizes(&[0, -1], 0, "op", || String::new()).is_err());
/// ```
pub fn infer_sizes(sizes: &[isize], total: usize, op: &'static str, msg: impl Fn() -> String) -> Result<Vec<usize>> {
    if sizes.iter().filter(|&&d| d == -1).count() > 1 {
        return Err(Error::value(
            op,
            format!("can only specify one unknown dimension, got {sizes:?}"),
        ));
    }
    if let Some(&bad) = sizes.iter().find(|&&d| d < -1) {
        return Err(Error::value(op, format!("negative dimension {bad} in {sizes:?}")));
    }
    let known = sizes
        .iter()
        .filter(|&&d| d >= 0)
        .try_fold(1usize, |a, &d| a.checked_mul(d as usize))
        .ok_or_else(|| Error::overflow(op, format!("product of {sizes:?} overflows")))?;
    let mut out: Vec<usize> = sizes.iter().map(|&d| d.max(0) as usize).collect();
    match sizes.iter().position(|&d| d == -1) {
        Some(u) => {
            if known == 0 || !total.is_multiple_of(known) {
                return Err(Error::shape(op, msg()));
            }
            out[u] = total / known;
        }
        None if known != total => return Err(Error::shape(op, msg())),
        None => {}
    }
    Ok(out)
}

/// A range of axes for `merge_axes`: `a..=b` (inclusive, PyTorch's `flatten(a, b)`),
/// `a..b` (exclusive), `a..` (to the last axis, PyTorch's `flatten(a)`), `..=b`, `..`.
/// Axes are `usize`: Rust ranges with a negative end such as `1..=-1` are flagged as
/// empty by clippy, so "to the end" is written `a..`.
///
/// ```
/// use ferrotensor::layout::reshape::AxisRange;
/// assert_eq!((1..=2).axis_bounds(4), (1, 2));
/// assert_eq!((1..3).axis_bounds(4), (1, 2));
/// assert_eq!((1..).axis_bounds(4), (1, 3));
/// assert_eq!((..).axis_bounds(4), (0, 3));
/// ```
pub trait AxisRange {
    /// The first and last axis (inclusive) for a tensor of `ndim` axes, as `isize` so
    /// that an empty range (`end < start`) and `..` on a 0-d tensor (`(0, -1)`) can be
    /// reported.
    fn axis_bounds(&self, ndim: usize) -> (isize, isize);
}
impl AxisRange for std::ops::RangeInclusive<usize> {
    fn axis_bounds(&self, _: usize) -> (isize, isize) {
        (*self.start() as isize, *self.end() as isize)
    }
}
impl AxisRange for std::ops::Range<usize> {
    fn axis_bounds(&self, _: usize) -> (isize, isize) {
        (self.start as isize, self.end as isize - 1)
    }
}
impl AxisRange for std::ops::RangeFrom<usize> {
    fn axis_bounds(&self, ndim: usize) -> (isize, isize) {
        (self.start as isize, ndim as isize - 1)
    }
}
impl AxisRange for std::ops::RangeToInclusive<usize> {
    fn axis_bounds(&self, _: usize) -> (isize, isize) {
        (0, self.end as isize)
    }
}
impl AxisRange for std::ops::RangeFull {
    fn axis_bounds(&self, ndim: usize) -> (isize, isize) {
        (0, ndim as isize - 1)
    }
}
