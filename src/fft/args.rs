//! Argument handling shared by the transforms: NumPy's `n`/`s`/`axes` rules, and
//! loading any strided input into a row-major buffer cropped or zero-padded to the
//! transform lengths.

use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, Layout};
use crate::storage::{OwnedRepr, Storage};
use crate::tensor::{Tensor, TensorBase};

/// Axes and lengths of a transform, in NumPy's order (`axes[i]` gets `lens[i]` points).
pub(super) struct Plan {
    pub axes: Vec<usize>,
    pub lens: Vec<usize>,
}

impl Plan {
    /// True when an axis appears twice (NumPy then transforms it twice, one after the
    /// other, each time with its own length).
    pub fn repeats(&self) -> bool {
        let mut seen = self.axes.clone();
        seen.sort_unstable();
        seen.windows(2).any(|w| w[0] == w[1])
    }

    /// The input shape with each transformed axis set to its length.
    pub fn target(&self, shape: &[usize]) -> Vec<usize> {
        let mut t = shape.to_vec();
        for (&a, &n) in self.axes.iter().zip(&self.lens) {
            t[a] = n;
        }
        t
    }
}

fn check_len(n: usize, axis: usize, op: &'static str) -> Result<usize> {
    if n == 0 {
        return Err(Error::value(
            op,
            format!("invalid number of data points (0) specified along axis {axis}"),
        ));
    }
    Ok(n)
}

/// The one-axis plan of `fft(a, n, axis)`: `n` defaults to the axis length (or, with
/// `half_input`, to `2 * (m - 1)`, the `irfft`/`hfft` default).
pub(super) fn one_axis(
    shape: &[usize],
    n: Option<usize>,
    axis: isize,
    half_input: bool,
    op: &'static str,
) -> Result<Plan> {
    if shape.is_empty() {
        return Err(Error::axis(
            op,
            format!("axis {axis} is out of bounds for array of dimension 0 (shape ())"),
        ));
    }
    let ax = normalize_axis(axis, shape.len(), op)?;
    let len = match n {
        Some(n) => n,
        None if half_input => 2 * shape[ax].saturating_sub(1),
        None => shape[ax],
    };
    Ok(Plan {
        axes: vec![ax],
        lens: vec![check_len(len, ax, op)?],
    })
}

/// NumPy's `_cook_nd_args`: without `axes`, the last `len(s)` axes (all axes when `s`
/// is also absent); without `s`, the axis lengths (with `half_input`, the last one is
/// `2 * (m - 1)`).
pub(super) fn many_axes(
    shape: &[usize],
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    half_input: bool,
    op: &'static str,
) -> Result<Plan> {
    let nd = shape.len();
    let axes: Vec<usize> = match (axes, s) {
        (Some(ax), _) => ax.iter().map(|&a| normalize_axis(a, nd, op)).collect::<Result<_>>()?,
        (None, None) => (0..nd).collect(),
        (None, Some(s)) => {
            if s.len() > nd {
                return Err(Error::shape(
                    op,
                    format!(
                        "s has {} entries but the input has shape {} ({nd} axes)",
                        s.len(),
                        fmt_shape(shape)
                    ),
                ));
            }
            (nd - s.len()..nd).collect()
        }
    };
    let lens: Vec<usize> = match s {
        Some(s) => {
            if s.len() != axes.len() {
                return Err(Error::shape(
                    op,
                    format!("shape and axes have different lengths: s {s:?} for axes {axes:?}"),
                ));
            }
            s.to_vec()
        }
        None => {
            let mut l: Vec<usize> = axes.iter().map(|&a| shape[a]).collect();
            if half_input && let (Some(last), Some(&a)) = (l.last_mut(), axes.last()) {
                *last = 2 * shape[a].saturating_sub(1);
            }
            l
        }
    };
    for (&a, &n) in axes.iter().zip(&lens) {
        check_len(n, a, op)?;
    }
    Ok(Plan { axes, lens })
}

/// A row-major buffer of shape `target` holding `f` of `a`'s elements, cropped to
/// `target` where `a` is longer and zero-padded (`U::default()`) where it is shorter.
pub(super) fn load<T, U, S, D>(
    a: &TensorBase<S, D>,
    target: &[usize],
    op: &'static str,
    f: impl Fn(T) -> U + Sync,
) -> Result<Vec<U>>
where
    T: Element,
    U: Copy + Default + Send + Sync,
    S: Storage<Elem = T>,
    D: Dimension,
{
    let n = crate::layout::checked_size(target, op)?;
    crate::layout::byte_size::<U>(n)?;
    let copy: Vec<usize> = a.shape().iter().zip(target).map(|(&x, &t)| x.min(t)).collect();
    let strides = crate::manip::c_strides(target);
    let mut out = crate::memory::alloc::uninit_vec::<U>(n);
    if copy != target {
        out.iter_mut().for_each(|x| _ = x.write(U::default()));
    }
    if copy.iter().product::<usize>() > 0 {
        crate::iter::zip_into(
            &copy,
            crate::iter::Dst::new(&mut out, &strides, 0),
            crate::iter::Src::new(a.buffer(), a.strides(), a.offset()),
            |o, x| _ = o.write(f(x)),
        );
    }
    // SAFETY: every element was written: all of them by the fill above when the copy
    // region is smaller than `target`, else by `zip_into`, whose region (`copy ==
    // target`, row-major strides) names every index of the buffer once.
    Ok(unsafe { crate::memory::alloc::assume_init_vec(out) })
}

/// `data` (row-major, `shape[axis]` along `axis`) cropped or zero-padded to `n` along
/// `axis`.
pub(super) fn resize_axis<U: Copy + Default + Send + Sync>(
    data: &[U],
    shape: &[usize],
    axis: usize,
    n: usize,
    op: &'static str,
) -> Result<Vec<U>> {
    let mut target = shape.to_vec();
    target[axis] = n;
    let mut copy = shape.to_vec();
    copy[axis] = shape[axis].min(n);
    let size = crate::layout::checked_size(&target, op)?;
    crate::layout::byte_size::<U>(size)?;
    let mut out = vec![U::default(); size];
    if copy.iter().product::<usize>() > 0 {
        let (so, si) = (crate::manip::c_strides(&target), crate::manip::c_strides(shape));
        crate::iter::zip_into(
            &copy,
            crate::iter::Dst::new(&mut out, &so, 0),
            crate::iter::Src::new(data, &si, 0),
            |o, x| *o = x,
        );
    }
    Ok(out)
}

/// The owned row-major tensor of `shape` over `data`.
pub(super) fn tensor<U, D: Dimension>(data: Vec<U>, shape: &[usize], op: &'static str) -> Result<Tensor<U, D>> {
    let dim: D = crate::layout::dim::into_dimension(shape, op)?;
    let layout = Layout::new_order(dim, crate::Order::RowMajor)?;
    debug_assert_eq!(layout.size(), data.len());
    Ok(TensorBase {
        storage: OwnedRepr(data),
        layout,
    })
}

#[cfg(test)]
mod tests {
    //! Small enough for Miri: `cargo +nightly miri test --lib fft::args`.
    use super::*;
    use crate::Tensor;

    #[test]
    fn load_crops_pads_and_reads_strided_input() {
        let a = Tensor::from_vec((0..12).collect::<Vec<i64>>(), [3, 4]).unwrap();
        let t = a.t(); // (4, 3), strides (1, 4)
        let exact: Vec<i64> = load(&t, &[4, 3], "test", |x| x * 10).unwrap();
        assert_eq!(exact, t.to_vec().iter().map(|x| x * 10).collect::<Vec<_>>());
        let cropped_padded: Vec<i64> = load(&t, &[2, 5], "test", |x| x).unwrap();
        assert_eq!(cropped_padded, vec![0, 4, 8, 0, 0, 1, 5, 9, 0, 0]);
        let from_empty: Vec<i64> = load(&Tensor::<i64, _>::zeros([0, 3]), &[2, 3], "test", |x| x + 1).unwrap();
        assert_eq!(from_empty, vec![0; 6]);
        let r = resize_axis(&cropped_padded, &[2, 5], 1, 2, "test").unwrap();
        assert_eq!(r, vec![0, 4, 1, 5]);
        assert!(load(&a, &[usize::MAX, 2], "test", |x| x).is_err());
    }
}
