//! Axis view transforms on layouts: permute, moveaxis, flip, step, narrow, diagonal,
//! broadcast, squeeze, unsqueeze.

use super::dim::{DimVec, StrideVec};
use super::{Dimension, IxDyn, Layout};
use crate::error::{Error, Result, fmt_shape};

/// Turns a possibly negative axis into an index in `0..ndim`; `Err` (NumPy's message)
/// if out of range.
///
/// ```
/// use ferrotensor::layout::transform::normalize_axis;
/// assert_eq!(normalize_axis(-1, 3, "sum").unwrap(), 2);
/// assert!(normalize_axis(3, 3, "sum").is_err());
/// ```
pub fn normalize_axis(axis: isize, ndim: usize, op: &'static str) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::axis(
            op,
            format!("axis {axis} is out of bounds for array of dimension {ndim}"),
        ));
    }
    Ok(if axis < 0 { (axis + n) as usize } else { axis as usize })
}

/// Normalises a list of axes, rejecting duplicates and out-of-range values.
///
/// ```
/// use ferrotensor::layout::transform::normalize_axes;
/// assert_eq!(normalize_axes(&[-1, 0], 3, "sum").unwrap(), vec![2, 0]);
/// assert!(normalize_axes(&[0, -3], 3, "sum").is_err());
/// ```
pub fn normalize_axes(axes: &[isize], ndim: usize, op: &'static str) -> Result<Vec<usize>> {
    let mut seen = vec![false; ndim];
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let k = normalize_axis(a, ndim, op)?;
        if seen[k] {
            return Err(Error::axis(op, format!("repeated axis {a} in {axes:?}")));
        }
        seen[k] = true;
        out.push(k);
    }
    Ok(out)
}

/// The layout with axes reordered: new axis `i` is old axis `axes[i]`.
///
/// ```
/// use ferrotensor::layout::{Layout, transform::permute_layout};
/// let l = Layout::new([2usize, 3, 4], [12isize, 4, 1], 0);
/// let p = permute_layout(&l, &[2, 0, 1]).unwrap();
/// assert_eq!((p.shape(), p.strides()), (&[4usize, 2, 3][..], &[1isize, 12, 4][..]));
/// assert!(permute_layout(&l, &[0, 0, 1]).is_err());
/// ```
pub fn permute_layout<D: Dimension>(layout: &Layout<D>, axes: &[isize]) -> Result<Layout<D>> {
    let nd = layout.ndim();
    if axes.len() != nd {
        return Err(Error::axis(
            "permute",
            format!(
                "axes {:?} don't match array of shape {}",
                axes,
                fmt_shape(layout.shape())
            ),
        ));
    }
    let axes = normalize_axes(axes, nd, "permute")?;
    let mut out = layout.clone();
    for (i, &a) in axes.iter().enumerate() {
        out.shape.slice_mut()[i] = layout.shape()[a];
        out.strides.as_mut()[i] = layout.strides()[a];
    }
    Ok(out)
}

/// The layout with all axes reversed (transpose).
///
/// ```
/// use ferrotensor::layout::{Layout, transform::reversed_layout};
/// let t = reversed_layout(&Layout::new([2usize, 3], [3isize, 1], 0));
/// assert_eq!(t.strides(), &[1, 3]);
/// ```
pub fn reversed_layout<D: Dimension>(layout: &Layout<D>) -> Layout<D> {
    let mut out = layout.clone();
    out.shape.slice_mut().reverse();
    out.strides.as_mut().reverse();
    out
}

/// The layout with one axis reversed (negative stride).
///
/// ```
/// use ferrotensor::layout::{Layout, transform::flip_layout};
/// let f = flip_layout(&Layout::new([4usize], [1isize], 0), 0).unwrap();
/// assert_eq!((f.strides()[0], f.offset()), (-1, 3));
/// ```
pub fn flip_layout<D: Dimension>(layout: &Layout<D>, axis: isize) -> Result<Layout<D>> {
    let ax = normalize_axis(axis, layout.ndim(), "flip")?;
    let mut out = layout.clone();
    let (d, s) = (layout.shape()[ax], layout.strides()[ax]);
    if d > 0 {
        let last = layout.offset as i128 + (d as i128 - 1) * s as i128;
        out.offset = super::slice::offset_from(last, "flip")?;
    }
    // A length-1 axis may carry any stride, isize::MIN included.
    out.strides.as_mut()[ax] = if d > 1 { -s } else { s.wrapping_neg() };
    Ok(out)
}

/// NumPy broadcasting of two shapes.
///
/// # Errors
/// If the shapes are incompatible, or the result breaks a [shape
/// limit](super::check_shape).
///
/// ```
/// use ferrotensor::layout::transform::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[8, 1, 6, 1], &[7, 1, 5], "add").unwrap().as_slice(), &[8, 7, 6, 5]);
/// assert_eq!(broadcast_shapes(&[], &[0], "add").unwrap().as_slice(), &[0]);
/// assert!(broadcast_shapes(&[2], &[3], "add").is_err());
/// ```
pub fn broadcast_shapes(a: &[usize], b: &[usize], op: &'static str) -> Result<DimVec> {
    let n = a.len().max(b.len());
    let mut out = DimVec::from_elem(1, n);
    for i in 0..n {
        let x = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let y = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = if x == y || y == 1 {
            x
        } else if x == 1 {
            y
        } else {
            return Err(Error::shape(
                op,
                format!(
                    "operands could not be broadcast together with shapes {} {}",
                    fmt_shape(a),
                    fmt_shape(b)
                ),
            ));
        };
    }
    super::check_shape(&out, op)?;
    Ok(out)
}

/// The layout broadcast to `shape` (stride 0 on stretched and new axes).
///
/// # Errors
/// If the shapes are incompatible, or `shape` breaks a [shape
/// limit](super::check_shape) (NumPy: "iterator is too large").
///
/// ```
/// use ferrotensor::layout::{Layout, transform::broadcast_layout};
/// let b = broadcast_layout(&Layout::new([3usize], [1isize], 0), &[2usize, 3], "broadcast_to").unwrap();
/// assert_eq!(b.strides(), &[0, 1]);
/// let one = Layout::new([1usize], [1isize], 0);
/// assert!(broadcast_layout(&one, &[1usize << 32, 1 << 32], "broadcast_to").is_err());
/// ```
pub fn broadcast_layout<D: Dimension>(layout: &Layout<D>, shape: &[usize], op: &'static str) -> Result<Layout<IxDyn>> {
    let (old, n) = (layout.shape(), shape.len());
    let err = || {
        Error::shape(
            op,
            format!(
                "cannot broadcast an array of shape {} to shape {}",
                fmt_shape(old),
                fmt_shape(shape)
            ),
        )
    };
    if old.len() > n {
        return Err(err());
    }
    super::check_shape(shape, op)?;
    let lead = n - old.len();
    let mut strides = StrideVec::from_elem(0, n);
    for i in 0..old.len() {
        if old[i] == shape[lead + i] {
            strides[lead + i] = if old[i] == 1 { 0 } else { layout.strides()[i] };
        } else if old[i] == 1 {
            strides[lead + i] = 0;
        } else {
            return Err(err());
        }
    }
    Ok(Layout::new(IxDyn::from(shape), strides, layout.offset))
}

/// The layout without its length-1 axes.
///
/// ```
/// use ferrotensor::layout::{Layout, transform::squeeze_layout};
/// let s = squeeze_layout(&Layout::new([1usize, 3, 1], [3isize, 1, 1], 0));
/// assert_eq!(s.shape(), &[3]);
/// ```
pub fn squeeze_layout<D: Dimension>(layout: &Layout<D>) -> Layout<IxDyn> {
    let (shape, strides): (DimVec, StrideVec) = layout
        .shape()
        .iter()
        .zip(layout.strides())
        .filter(|&(&d, _)| d != 1)
        .map(|(&d, &s)| (d, s))
        .unzip();
    Layout::new(IxDyn(shape), strides, layout.offset)
}

/// The layout with a new length-1 axis at `axis` (in `-(ndim+1)..=ndim`).
///
/// # Errors
/// If `axis` is out of range or the result would exceed
/// [`MAX_NDIM`](super::MAX_NDIM) axes.
///
/// ```
/// use ferrotensor::layout::{Layout, transform::unsqueeze_layout};
/// let u = unsqueeze_layout(&Layout::new([3usize], [1isize], 0), -1).unwrap();
/// assert_eq!(u.shape(), &[3, 1]);
/// ```
pub fn unsqueeze_layout<D: Dimension>(layout: &Layout<D>, axis: isize) -> Result<Layout<IxDyn>> {
    let ax = normalize_axis(axis, layout.ndim() + 1, "unsqueeze")?;
    super::check_ndim(layout.ndim() + 1, "unsqueeze")?;
    let mut shape = DimVec::from_slice(layout.shape());
    let mut strides = StrideVec::from_slice(layout.strides());
    shape.insert(ax, 1);
    strides.insert(ax, 0);
    Ok(Layout::new(IxDyn(shape), strides, layout.offset))
}

/// The layout with axis `src` moved to position `dst` (NumPy `moveaxis` with one
/// axis); the other axes keep their order.
///
/// ```
/// use ferrotensor::layout::{Layout, transform::moveaxis_layout};
/// let l = Layout::new([2usize, 3, 4], [12isize, 4, 1], 0);
/// let m = moveaxis_layout(&l, 0, -1).unwrap();
/// assert_eq!((m.shape(), m.strides()), (&[3usize, 4, 2][..], &[4isize, 1, 12][..]));
/// assert!(moveaxis_layout(&l, 3, 0).is_err());
/// ```
pub fn moveaxis_layout<D: Dimension>(layout: &Layout<D>, src: isize, dst: isize) -> Result<Layout<D>> {
    let nd = layout.ndim();
    let s = normalize_axis(src, nd, "moveaxis")?;
    let d = normalize_axis(dst, nd, "moveaxis")?;
    let mut order: Vec<isize> = (0..nd as isize).filter(|&a| a != s as isize).collect();
    order.insert(d, s as isize);
    permute_layout(layout, &order)
}

/// The layout without the listed axes, each of which must have length 1 (NumPy
/// `squeeze(axis=...)`); `Err` for an axis of another length, out of range or repeated.
///
/// ```
/// use ferrotensor::layout::{Layout, transform::squeeze_axes_layout};
/// let l = Layout::new([1usize, 3, 1], [3isize, 1, 1], 0);
/// assert_eq!(squeeze_axes_layout(&l, &[-1]).unwrap().shape(), &[1, 3]);
/// assert!(squeeze_axes_layout(&l, &[1]).is_err());
/// ```
pub fn squeeze_axes_layout<D: Dimension>(layout: &Layout<D>, axes: &[isize]) -> Result<Layout<IxDyn>> {
    let axes = normalize_axes(axes, layout.ndim(), "squeeze_axes")?;
    if let Some(&bad) = axes.iter().find(|&&a| layout.shape()[a] != 1) {
        return Err(Error::shape(
            "squeeze_axes",
            format!(
                "cannot select an axis to squeeze out which has size not equal to one: axis {} of shape {}",
                bad,
                fmt_shape(layout.shape())
            ),
        ));
    }
    let (shape, strides): (DimVec, StrideVec) = (0..layout.ndim())
        .filter(|a| !axes.contains(a))
        .map(|a| (layout.shape()[a], layout.strides()[a]))
        .unzip();
    Ok(Layout::new(IxDyn(shape), strides, layout.offset))
}

/// The layout restricted to `len` elements of `axis` starting at `start` (negative
/// counts from the end), as PyTorch's `narrow`; `Err` if the range leaves the axis.
///
/// ```
/// use ferrotensor::layout::{Layout, transform::narrow_layout};
/// let l = Layout::new([4usize, 5], [5isize, 1], 0);
/// let n = narrow_layout(&l, 1, -3, 2).unwrap();
/// assert_eq!((n.shape(), n.offset()), (&[4usize, 2][..], 2));
/// assert!(narrow_layout(&l, 0, 3, 2).is_err());
/// ```
pub fn narrow_layout<D: Dimension>(layout: &Layout<D>, axis: isize, start: isize, len: usize) -> Result<Layout<D>> {
    let ax = normalize_axis(axis, layout.ndim(), "narrow")?;
    let n = layout.shape()[ax];
    let s = if start < 0 {
        start as i128 + n as i128
    } else {
        start as i128
    };
    if s < 0 || s > n as i128 || len > n - s as usize {
        return Err(Error::index(
            "narrow",
            format!(
                "start {} and length {} exceed axis {} of length {} (shape {})",
                start,
                len,
                ax,
                n,
                fmt_shape(layout.shape())
            ),
        ));
    }
    let mut out = layout.clone();
    out.shape.slice_mut()[ax] = len;
    if len > 0 {
        let first = layout.offset as i128 + s * layout.strides()[ax] as i128;
        out.offset = super::slice::offset_from(first, "narrow")?;
    }
    Ok(out)
}

/// The layout of every `step`-th element along `axis` (Python's `[::step]`; a
/// negative step walks backwards from the last element); `Err` for step 0.
///
/// ```
/// use ferrotensor::layout::{Layout, transform::step_layout};
/// let l = Layout::new([10usize], [1isize], 0);
/// let s = step_layout(&l, 0, -3).unwrap();
/// assert_eq!((s.shape(), s.strides(), s.offset()), (&[4usize][..], &[-3isize][..], 9));
/// assert!(step_layout(&l, 0, 0).is_err());
/// ```
pub fn step_layout<D: Dimension>(layout: &Layout<D>, axis: isize, step: isize) -> Result<Layout<D>> {
    let ax = normalize_axis(axis, layout.ndim(), "step_by")?;
    if step == 0 {
        return Err(Error::value("step_by", "step cannot be zero"));
    }
    let a = super::slice::step_axis(layout.shape()[ax], layout.strides()[ax], (None, None, step), "step_by")?;
    let mut out = layout.clone();
    out.shape.slice_mut()[ax] = a.len;
    out.strides.as_mut()[ax] = a.stride;
    out.offset = super::slice::offset_from(layout.offset as i128 + a.shift, "step_by")?;
    Ok(out)
}

/// NumPy's `diagonal(offset, axis1, axis2)` as a view: both axes are removed and the
/// diagonal is appended as the last axis (stride = sum of the two strides). A positive
/// `offset` selects a diagonal above the main one (along `axis2`), a negative one below.
///
/// ```
/// use ferrotensor::layout::{Layout, transform::diagonal_layout};
/// let l = Layout::new([3usize, 4], [4isize, 1], 0);
/// let d = diagonal_layout(&l, 1, 0, 1).unwrap();
/// assert_eq!((d.shape(), d.strides(), d.offset()), (&[3usize][..], &[5isize][..], 1));
/// assert!(diagonal_layout(&l, 0, 1, 1).is_err());
/// ```
pub fn diagonal_layout<D: Dimension>(
    layout: &Layout<D>,
    offset: isize,
    axis1: isize,
    axis2: isize,
) -> Result<Layout<IxDyn>> {
    let nd = layout.ndim();
    if nd < 2 {
        return Err(Error::shape(
            "diagonal",
            format!(
                "diag requires an array of at least two dimensions, got shape {}",
                fmt_shape(layout.shape())
            ),
        ));
    }
    let a1 = normalize_axis(axis1, nd, "diagonal")?;
    let a2 = normalize_axis(axis2, nd, "diagonal")?;
    if a1 == a2 {
        return Err(Error::axis(
            "diagonal",
            format!("axis1 and axis2 cannot be the same (both are axis {a1})"),
        ));
    }
    // Exact arithmetic: `offset` may be any isize, the lengths any valid usize.
    let (n1, n2, k) = (layout.shape()[a1] as i128, layout.shape()[a2] as i128, offset as i128);
    let (s1, s2) = (layout.strides()[a1], layout.strides()[a2]);
    let (len, shift) = if k >= 0 {
        (n1.min(n2 - k).max(0), k * s2 as i128)
    } else {
        ((n1 + k).min(n2).max(0), -k * s1 as i128)
    };
    let (mut shape, mut strides): (DimVec, StrideVec) = (0..nd)
        .filter(|&a| a != a1 && a != a2)
        .map(|a| (layout.shape()[a], layout.strides()[a]))
        .unzip();
    shape.push(len as usize);
    // Inside a valid layout the sum overflows only for a diagonal of at most one element,
    // where any stride names the same element.
    strides.push(match s1.checked_add(s2) {
        Some(s) => s,
        None if len <= 1 => 0,
        None => {
            return Err(Error::overflow(
                "diagonal",
                format!("strides {s1} and {s2} add past isize"),
            ));
        }
    });
    let empty = len == 0 || shape.contains(&0);
    let off = if empty {
        layout.offset
    } else {
        super::slice::offset_from(layout.offset as i128 + shift, "diagonal")?
    };
    Ok(Layout::new(IxDyn(shape), strides, off))
}
