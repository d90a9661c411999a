//! Basic slicing (Python's `slice.indices` rules) as a layout transform, and the
//! [`SliceItem`] type the [`s!`](crate::s) macro builds.

use super::dim::{DimVec, StrideVec};
use super::{Dimension, IxDyn, Layout};
use crate::error::{Error, Result, fmt_shape};

/// One item of a slice: a strided range, an integer index (drops the axis), a new
/// length-1 axis, or an ellipsis.
///
/// ```
/// use ferrotensor::prelude::*;
/// let items = vec![SliceItem::Range { start: Some(1), stop: None, step: 2 }, SliceItem::Index(-1)];
/// let a = Tensor::from_shape_fn([4, 3], |i: &[usize]| (i[0] * 3 + i[1]) as i32);
/// assert_eq!(a.slice(&items).to_vec(), vec![5, 11]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceItem {
    /// Python's `start:stop:step`; `None` bounds take the defaults for the step's sign.
    Range {
        /// First index (negative counts from the end).
        start: Option<isize>,
        /// One past the last index (negative counts from the end).
        stop: Option<isize>,
        /// Step, nonzero.
        step: isize,
    },
    /// An integer index (negative counts from the end); removes the axis.
    Index(isize),
    /// A new axis of length 1 (stride 0).
    NewAxis,
    /// As many full ranges as needed to cover the remaining axes.
    Ellipsis,
}

/// Inserts a new length-1 axis in a slice (`np.newaxis`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::zeros([3]);
/// assert_eq!(a.slice(s![NewAxis, ..]).shape(), &[1, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NewAxis;

/// Stands for all remaining axes in a slice (`...`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::zeros([2, 3, 4]);
/// assert_eq!(a.slice(s![Ellipsis, 0]).shape(), &[2, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ellipsis;

impl From<NewAxis> for SliceItem {
    fn from(_: NewAxis) -> Self {
        SliceItem::NewAxis
    }
}
impl From<Ellipsis> for SliceItem {
    fn from(_: Ellipsis) -> Self {
        SliceItem::Ellipsis
    }
}

/// Converts one `s!` item (a range, an integer, [`NewAxis`], [`Ellipsis`]) into a
/// [`SliceItem`].
///
/// ```
/// use ferrotensor::layout::slice::IntoSliceItem;
/// use ferrotensor::SliceItem;
/// assert_eq!((2..).into_slice_item(), SliceItem::Range { start: Some(2), stop: None, step: 1 });
/// assert_eq!((-1).into_slice_item(), SliceItem::Index(-1));
/// ```
pub trait IntoSliceItem {
    /// The item.
    fn into_slice_item(self) -> SliceItem;
}

/// A range with a step (`s![a..b;step]`).
///
/// ```
/// use ferrotensor::layout::slice::StepRange;
/// use ferrotensor::SliceItem;
/// assert_eq!((8..2).with_step(-2), SliceItem::Range { start: Some(8), stop: Some(2), step: -2 });
/// ```
pub trait StepRange {
    /// The item with `step`.
    fn with_step(self, step: isize) -> SliceItem;
}

impl IntoSliceItem for SliceItem {
    fn into_slice_item(self) -> SliceItem {
        self
    }
}
impl IntoSliceItem for NewAxis {
    fn into_slice_item(self) -> SliceItem {
        SliceItem::NewAxis
    }
}
impl IntoSliceItem for Ellipsis {
    fn into_slice_item(self) -> SliceItem {
        SliceItem::Ellipsis
    }
}
impl IntoSliceItem for std::ops::RangeFull {
    fn into_slice_item(self) -> SliceItem {
        SliceItem::Range {
            start: None,
            stop: None,
            step: 1,
        }
    }
}
impl StepRange for std::ops::RangeFull {
    fn with_step(self, step: isize) -> SliceItem {
        SliceItem::Range {
            start: None,
            stop: None,
            step,
        }
    }
}

macro_rules! impl_slice_int {
    ($($t:ty),*) => {$(
        impl IntoSliceItem for $t {
            fn into_slice_item(self) -> SliceItem { SliceItem::Index(self as isize) }
        }
        impl IntoSliceItem for std::ops::Range<$t> {
            fn into_slice_item(self) -> SliceItem { self.with_step(1) }
        }
        impl StepRange for std::ops::Range<$t> {
            fn with_step(self, step: isize) -> SliceItem {
                SliceItem::Range { start: Some(self.start as isize), stop: Some(self.end as isize), step }
            }
        }
        impl IntoSliceItem for std::ops::RangeFrom<$t> {
            fn into_slice_item(self) -> SliceItem { self.with_step(1) }
        }
        impl StepRange for std::ops::RangeFrom<$t> {
            fn with_step(self, step: isize) -> SliceItem {
                SliceItem::Range { start: Some(self.start as isize), stop: None, step }
            }
        }
        impl IntoSliceItem for std::ops::RangeTo<$t> {
            fn into_slice_item(self) -> SliceItem { self.with_step(1) }
        }
        impl StepRange for std::ops::RangeTo<$t> {
            fn with_step(self, step: isize) -> SliceItem {
                SliceItem::Range { start: None, stop: Some(self.end as isize), step }
            }
        }
    )*};
}
impl_slice_int!(isize, i32, i64, usize);

/// Builds an array of [`SliceItem`]s with Python's slice syntax: `a..b`, `a..`, `..b`,
/// `..`, each optionally `;step`; an integer index; [`NewAxis`]; [`Ellipsis`].
/// `a..b;s` is Python's `a:b:s`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<i32, _>::arange(10);
/// assert_eq!(a.slice(s![8..2;-2]).to_vec(), vec![8, 6, 4]);
/// assert_eq!(a.slice(s![..;-3]).to_vec(), vec![9, 6, 3, 0]);
/// ```
#[macro_export]
macro_rules! s {
    () => {{
        let items: [$crate::SliceItem; 0] = [];
        items
    }};
    ($($item:expr $(; $step:expr)?),+ $(,)?) => {
        [$($crate::__slice_item!($item $(; $step)?)),+]
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __slice_item {
    ($item:expr ; $step:expr) => {{
        // `8..2;-2` is Python's `8:2:-2`, not an empty Rust range.
        #[allow(clippy::reversed_empty_ranges)]
        let item = $item;
        $crate::layout::slice::StepRange::with_step(item, $step as isize)
    }};
    ($item:expr) => {
        $crate::layout::slice::IntoSliceItem::into_slice_item($item)
    };
}

/// Python's `slice.indices` for one axis of length `n`: the start index and the
/// number of selected elements, exact for every `isize` start, stop and step (the
/// arithmetic is done in `i128`, so `isize::MIN` and `isize::MAX` steps select what
/// NumPy selects).
///
/// # Errors
/// If `step` is 0, or if `n` exceeds `isize::MAX` (no valid shape has such an axis).
///
/// ```
/// use ferrotensor::layout::slice::slice_indices;
/// assert_eq!(slice_indices(Some(8), Some(2), -2, 10).unwrap(), (8, 3));
/// assert_eq!(slice_indices(Some(-100), None, -1, 10).unwrap().1, 0);
/// assert_eq!(slice_indices(Some(100), None, -1, 10).unwrap(), (9, 10));
/// assert_eq!(slice_indices(None, None, isize::MIN, 10).unwrap(), (9, 1));
/// assert_eq!(slice_indices(None, None, isize::MAX, 10).unwrap(), (0, 1));
/// ```
pub fn slice_indices(start: Option<isize>, stop: Option<isize>, step: isize, n: usize) -> Result<(isize, usize)> {
    let (s, len) = indices_exact(start, stop, step, n, "slice")?;
    // `s` lies in -1..=n, and n <= isize::MAX was checked.
    Ok((s as isize, len))
}

/// [`slice_indices`] with the start as `i128` and the error naming `op`.
fn indices_exact(
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    n: usize,
    op: &'static str,
) -> Result<(i128, usize)> {
    if step == 0 {
        return Err(Error::value(op, "slice step cannot be zero"));
    }
    if n > isize::MAX as usize {
        return Err(Error::overflow(op, format!("axis length {n} exceeds isize::MAX")));
    }
    let (n, step) = (n as i128, step as i128);
    let (s, e) = if step > 0 {
        let clamp = |v: isize| {
            let v = v as i128;
            if v < 0 { (v + n).max(0) } else { v.min(n) }
        };
        (start.map_or(0, clamp), stop.map_or(n, clamp))
    } else {
        let clamp = |v: isize| {
            let v = v as i128;
            if v < 0 { (v + n).max(-1) } else { v.min(n - 1) }
        };
        (start.map_or(n - 1, clamp), stop.map_or(-1, clamp))
    };
    // |e - s| <= n + 1 and |step| <= 2^63: every intermediate fits i128.
    let len = if step > 0 && e > s {
        (e - s + step - 1) / step
    } else if step < 0 && s > e {
        (s - e - step - 1) / -step
    } else {
        0
    };
    Ok((s, len as usize))
}

/// One axis after a strided selection: its length, its stride, and how far the
/// offset moves (in elements).
pub(crate) struct SteppedAxis {
    pub(crate) len: usize,
    pub(crate) stride: isize,
    pub(crate) shift: i128,
}

/// Selects `start:stop:step` of an axis of length `n` and stride `stride`. A selection
/// of at most one element whose new stride would overflow gets stride 0 (any stride
/// names the same element); a longer one cannot overflow inside a valid layout, and
/// gives `Err` outside one.
pub(crate) fn step_axis(
    n: usize,
    stride: isize,
    (start, stop, step): (Option<isize>, Option<isize>, isize),
    op: &'static str,
) -> Result<SteppedAxis> {
    let (s, len) = indices_exact(start, stop, step, n, op)?;
    let new_stride = match stride.checked_mul(step) {
        Some(v) => v,
        None if len <= 1 => 0,
        None => {
            return Err(Error::overflow(
                op,
                format!("stride {stride} times step {step} overflows isize"),
            ));
        }
    };
    let shift = if len > 0 { s * stride as i128 } else { 0 };
    Ok(SteppedAxis {
        len,
        stride: new_stride,
        shift,
    })
}

/// Converts an offset computed in `i128` back to a buffer index.
pub(crate) fn offset_from(off: i128, op: &'static str) -> Result<usize> {
    usize::try_from(off)
        .ok()
        .filter(|&o| o <= isize::MAX as usize)
        .ok_or_else(|| Error::index(op, format!("view offset {off} lies outside any buffer")))
}

/// The layout of `layout` sliced by `items` (NumPy basic indexing).
///
/// # Errors
/// For a zero step, an index out of range, more than one ellipsis, more indices than
/// axes, or a result of more than [`MAX_NDIM`](super::MAX_NDIM) axes (from
/// [`NewAxis`] items).
///
/// ```
/// use ferrotensor::layout::{Layout, slice::slice_layout};
/// use ferrotensor::{s, Order};
/// let l = Layout::new_order([10usize], Order::RowMajor).unwrap();
/// let v = slice_layout(&l, &s![8..2;-2]).unwrap();
/// assert_eq!((v.shape(), v.strides(), v.offset()), (&[3usize][..], &[-2isize][..], 8));
/// let v = slice_layout(&l, &s![..;isize::MIN]).unwrap();
/// assert_eq!((v.shape(), v.offset()), (&[1usize][..], 9));
/// ```
pub fn slice_layout<D: Dimension>(layout: &Layout<D>, items: &[SliceItem]) -> Result<Layout<IxDyn>> {
    let ndim = layout.ndim();
    let ellipses = items.iter().filter(|i| matches!(i, SliceItem::Ellipsis)).count();
    if ellipses > 1 {
        return Err(Error::index(
            "slice",
            "an index can only have a single ellipsis ('...')",
        ));
    }
    let consuming = items
        .iter()
        .filter(|i| matches!(i, SliceItem::Range { .. } | SliceItem::Index(_)))
        .count();
    if consuming > ndim {
        return Err(Error::index(
            "slice",
            format!(
                "too many indices for array: array of shape {} is {}-dimensional, but {} were indexed",
                fmt_shape(layout.shape()),
                ndim,
                consuming
            ),
        ));
    }
    let indices = items.iter().filter(|i| matches!(i, SliceItem::Index(_))).count();
    let new_axes = items.iter().filter(|i| matches!(i, SliceItem::NewAxis)).count();
    super::check_ndim(ndim - indices + new_axes, "slice")?;
    let mut shape = DimVec::new();
    let mut strides = StrideVec::new();
    let mut offset = layout.offset as i128;
    let mut ax = 0usize;
    let full = SliceItem::Range {
        start: None,
        stop: None,
        step: 1,
    };
    let expanded = items.iter().flat_map(|it| {
        let reps = if matches!(it, SliceItem::Ellipsis) {
            ndim - consuming
        } else {
            1
        };
        std::iter::repeat_n(if matches!(it, SliceItem::Ellipsis) { full } else { *it }, reps)
    });
    let tail = ndim - consuming - if ellipses == 1 { ndim - consuming } else { 0 };
    for it in expanded.chain(std::iter::repeat_n(full, tail)) {
        match it {
            SliceItem::NewAxis => {
                shape.push(1);
                strides.push(0);
            }
            SliceItem::Index(i) => {
                let n = layout.shape()[ax];
                let j = if i < 0 { i as i128 + n as i128 } else { i as i128 };
                if j < 0 || j >= n as i128 {
                    return Err(Error::index(
                        "slice",
                        format!("index {} is out of bounds for axis {} with size {}", i, ax, n),
                    ));
                }
                offset += j * layout.strides()[ax] as i128;
                ax += 1;
            }
            SliceItem::Range { start, stop, step } => {
                let a = step_axis(layout.shape()[ax], layout.strides()[ax], (start, stop, step), "slice")?;
                offset += a.shift;
                shape.push(a.len);
                strides.push(a.stride);
                ax += 1;
            }
            SliceItem::Ellipsis => unreachable!("expanded above"),
        }
    }
    Ok(Layout::new(IxDyn(shape), strides, offset_from(offset, "slice")?))
}
