//! Splitting into views: `split` (NumPy `array_split`), `chunk` (PyTorch), `unstack`.

use super::{AsView, narrow, view_with};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::slice::slice_indices;
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, RemoveAxis};
use crate::tensor::TensorView;

/// How [`split`] cuts an axis.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<i32, _>::arange(7);
/// let p = split(&a, Sections::Count(3), 0).unwrap();   // sizes 3, 2, 2
/// assert_eq!(p[0].to_vec(), vec![0, 1, 2]);
/// let q = split(&a, Sections::Indices(&[2, -1]), 0).unwrap();
/// assert_eq!(q[2].to_vec(), vec![6]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sections<'i> {
    /// This many sections of near-equal length: with length `l` and `n` sections, the
    /// first `l % n` sections get `l / n + 1` elements, the rest `l / n`.
    Count(usize),
    /// Cut before each of these indices (Python slice bounds: negative counts from the
    /// end, out-of-range clamps, a decreasing pair gives an empty section).
    Indices(&'i [isize]),
}

/// Splits a tensor into views along `axis` (NumPy `array_split`: uneven counts are
/// allowed). Each piece keeps the input's rank; no data is copied. `Err` for
/// `Sections::Count(0)`, a 0-d input or an axis out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<i32, _>::arange(10).into_shape([2, 5]).unwrap();
/// let parts = split(&a, Sections::Count(3), 1).unwrap();
/// let shapes: Vec<&[usize]> = parts.iter().map(|p| p.shape()).collect();
/// assert_eq!(shapes, vec![&[2, 2][..], &[2, 2][..], &[2, 1][..]]);
/// assert_eq!(parts[2].as_ptr(), a.slice(s![.., 4]).as_ptr());   // a view
/// ```
pub fn split<'a, T: Element, D: Dimension, V: AsView<T, D> + ?Sized>(
    a: &'a V,
    sections: Sections<'_>,
    axis: isize,
) -> Result<Vec<TensorView<'a, T, D>>> {
    let op = "split";
    let v = a.as_view();
    let ax = normalize_axis(axis, v.ndim(), op)?;
    let n = v.shape()[ax];
    let mut bounds: Vec<(usize, usize)> = Vec::new();
    match sections {
        Sections::Count(0) => return Err(Error::value(op, "number sections must be larger than 0")),
        Sections::Count(k) => {
            let (each, extra) = (n / k, n % k);
            let mut at = 0;
            for i in 0..k {
                let len = each + usize::from(i < extra);
                bounds.push((at, len));
                at += len;
            }
        }
        Sections::Indices(idx) => {
            let mut cuts: Vec<Option<isize>> = vec![Some(0)];
            cuts.extend(idx.iter().map(|&i| Some(i)));
            cuts.push(None);
            for w in cuts.windows(2) {
                let (s, len) = slice_indices(w[0], w[1], 1, n)?;
                bounds.push((s as usize, len));
            }
        }
    }
    Ok(bounds.into_iter().map(|(s, len)| narrow(&v, ax, s, len)).collect())
}

/// Splits into at most `chunks` views of `ceil(len / chunks)` elements along `axis`
/// (PyTorch `chunk`: the last may be shorter and fewer than `chunks` may come back; a
/// zero-length axis gives `chunks` empty views). `Err` for `chunks == 0`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<i32, _>::arange(5);
/// let c = chunk(&a, 4, 0).unwrap();                  // sizes 2, 2, 1
/// assert_eq!(c.len(), 3);
/// assert_eq!(c[2].to_vec(), vec![4]);
/// ```
pub fn chunk<'a, T: Element, D: Dimension, V: AsView<T, D> + ?Sized>(
    a: &'a V,
    chunks: usize,
    axis: isize,
) -> Result<Vec<TensorView<'a, T, D>>> {
    let op = "chunk";
    if chunks == 0 {
        return Err(Error::value(op, "chunk expects `chunks` to be greater than 0, got: 0"));
    }
    let v = a.as_view();
    let ax = normalize_axis(axis, v.ndim(), op)?;
    let n = v.shape()[ax];
    if n == 0 {
        return Ok((0..chunks).map(|_| narrow(&v, ax, 0, 0)).collect());
    }
    let size = n.div_ceil(chunks);
    Ok((0..n.div_ceil(size))
        .map(|i| narrow(&v, ax, i * size, size.min(n - i * size)))
        .collect())
}

/// Views of every index along `axis`, with that axis removed (PyTorch `unbind` /
/// NumPy `unstack`): an `IxN` input gives `IxN-1` views. `Err` for a 0-d input or an
/// axis out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
/// let cols: Vec<TensorView<'_, i32, Ix1>> = unstack(&a, 1).unwrap();
/// assert_eq!(cols.len(), 3);
/// assert_eq!(cols[1].to_vec(), vec![1, 4]);
/// ```
pub fn unstack<'a, T: Element, D: RemoveAxis, V: AsView<T, D> + ?Sized>(
    a: &'a V,
    axis: isize,
) -> Result<Vec<TensorView<'a, T, D::Smaller>>> {
    let op = "unstack";
    let v = a.as_view();
    if v.ndim() == 0 {
        return Err(Error::axis(
            op,
            format!("input must be at least 1-d, got shape {}", fmt_shape(v.shape())),
        ));
    }
    let ax = normalize_axis(axis, v.ndim(), op)?;
    let base = v.layout().clone().into_dyn();
    let stride = base.strides()[ax];
    (0..v.shape()[ax])
        .map(|i| {
            let mut l = base.clone();
            l.shape.0.remove(ax);
            l.strides.remove(ax);
            l.offset = (l.offset as isize + i as isize * stride) as usize;
            Ok(view_with(v.storage.0, l.into_dim()?))
        })
        .collect()
}
