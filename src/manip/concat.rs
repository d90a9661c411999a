//! Joining tensors: `concatenate`, `stack`, `hstack`, `vstack`, `dstack`.

use super::{AsView, alloc, c_strides, copy_into, dyn_view, owned};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::normalize_axis;
use crate::layout::{AtLeast, InsertAxis};
use crate::layout::{Dimension, IxDyn};
use crate::tensor::{Tensor, TensorView};

fn shapes_of<T: Element, D: Dimension>(views: &[TensorView<'_, T, D>]) -> String {
    let s: Vec<String> = views.iter().map(|v| fmt_shape(v.shape())).collect();
    s.join(", ")
}

/// Joins views along an existing axis; the shared implementation of every function here.
fn concat_views<T: Element, D: Dimension>(
    views: &[TensorView<'_, T, D>],
    axis: isize,
    op: &'static str,
) -> Result<Tensor<T, D>> {
    let first = views
        .first()
        .ok_or_else(|| Error::value(op, "need at least one array to concatenate"))?;
    let nd = first.ndim();
    if nd == 0 {
        return Err(Error::shape(op, "zero-dimensional arrays cannot be concatenated"));
    }
    let ax = normalize_axis(axis, nd, op)?;
    let mut shape = first.shape().to_vec();
    shape[ax] = 0;
    for v in views {
        let ok = v.ndim() == nd && (0..nd).all(|k| k == ax || v.shape()[k] == first.shape()[k]);
        if !ok {
            return Err(Error::shape(
                op,
                format!(
                    "all the input array dimensions except for the concatenation axis {ax} must match exactly, got shapes {}",
                    shapes_of(views)
                ),
            ));
        }
        shape[ax] += v.shape()[ax];
    }
    let mut out = alloc::<T>(&shape, op)?;
    let strides = c_strides(&shape);
    let mut at = 0usize;
    for v in views {
        if v.size() > 0 {
            copy_into(&mut out, &strides, at * strides[ax] as usize, v);
        }
        at += v.shape()[ax];
    }
    owned(out, &shape, op)
}

/// Joins tensors along an existing axis (NumPy `concatenate`). All inputs must have
/// the same rank and the same lengths on every other axis; `Err` for an empty list,
/// 0-d inputs, an axis out of range or mismatched shapes. The result is row-major and
/// keeps the inputs' rank type.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
/// let b = Tensor::from_vec(vec![5, 6], [2, 1]).unwrap();
/// let c: Tensor<i32, Ix2> = concatenate(&[&a, &b], 1).unwrap();
/// assert_eq!(c.to_vec(), vec![1, 2, 5, 3, 4, 6]);
/// assert!(concatenate(&[&a, &b], 0).is_err());            // (2, 2) vs (2, 1) on axis 1
/// let t = concatenate(&[&a.t(), &a], -1).unwrap();        // views and owned tensors mix
/// assert_eq!(t.to_vec(), vec![1, 3, 1, 2, 2, 4, 3, 4]);
/// ```
pub fn concatenate<T: Element, D: Dimension>(inputs: &[&dyn AsView<T, D>], axis: isize) -> Result<Tensor<T, D>> {
    let views: Vec<TensorView<'_, T, D>> = inputs.iter().map(|v| v.as_view()).collect();
    concat_views(&views, axis, "concatenate")
}

/// Joins tensors of one shape along a new axis (NumPy `stack`); `axis` may be
/// `-(ndim + 1) ..= ndim`. `Err` for an empty list, differing shapes or a bad axis.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1, 2], [2]).unwrap();
/// let b = Tensor::from_vec(vec![3, 4], [2]).unwrap();
/// let s: Tensor<i32, Ix2> = stack(&[&a, &b.view()], 0).unwrap();
/// assert_eq!(s.to_vec(), vec![1, 2, 3, 4]);
/// let s = stack(&[&a, &b], -1).unwrap();
/// assert_eq!((s.shape(), s.to_vec()), (&[2usize, 2][..], vec![1, 3, 2, 4]));
/// ```
pub fn stack<T: Element, D: InsertAxis>(inputs: &[&dyn AsView<T, D>], axis: isize) -> Result<Tensor<T, D::Larger>> {
    let op = "stack";
    let views: Vec<TensorView<'_, T, D>> = inputs.iter().map(|v| v.as_view()).collect();
    let first = views
        .first()
        .ok_or_else(|| Error::value(op, "need at least one array to stack"))?;
    if views.iter().any(|v| v.shape() != first.shape()) {
        return Err(Error::shape(
            op,
            format!("all input arrays must have the same shape, got {}", shapes_of(&views)),
        ));
    }
    let ax = normalize_axis(axis, first.ndim() + 1, op)?;
    let expanded: Vec<TensorView<'_, T, IxDyn>> = views
        .iter()
        .map(|v| Ok(v.unsqueeze(ax as isize)?.into_dyn()))
        .collect::<Result<_>>()?;
    concat_views(&expanded, ax as isize, op)?.into_dim()
}

/// A view with at least `n` axes, new length-1 axes placed as NumPy's `atleast_Nd`
/// places them: 1-D `(k,)` becomes `(1, k)` and `(1, k, 1)`, 2-D `(m, k)` becomes
/// `(m, k, 1)`.
fn at_least<'a, T: Element, D: Dimension>(v: &TensorView<'a, T, D>, n: usize) -> Result<TensorView<'a, T, IxDyn>> {
    let mut v = dyn_view(v);
    match (v.ndim(), n) {
        (0, _) => {
            for _ in 0..n {
                v = v.unsqueeze(0)?;
            }
        }
        (1, 2) | (1, 3) => {
            v = v.unsqueeze(0)?;
            if n == 3 {
                v = v.unsqueeze(2)?;
            }
        }
        (2, 3) => v = v.unsqueeze(2)?,
        _ => {}
    }
    Ok(v)
}

fn stack_along<T: Element, D: Dimension, Out: Dimension>(
    inputs: &[&dyn AsView<T, D>],
    rank: usize,
    axis: Option<isize>,
    op: &'static str,
) -> Result<Tensor<T, Out>> {
    let views: Vec<TensorView<'_, T, IxDyn>> = inputs
        .iter()
        .map(|v| at_least(&v.as_view(), rank))
        .collect::<Result<_>>()?;
    if views.is_empty() {
        return Err(Error::value(op, "need at least one array to concatenate"));
    }
    // hstack: 1-D inputs join along axis 0, others along axis 1.
    let axis = axis.unwrap_or(if views[0].ndim() == 1 { 0 } else { 1 });
    concat_views(&views, axis, op)?.into_dim()
}

/// Joins tensors column-wise (NumPy `hstack`): along axis 0 for 1-D inputs, else along
/// axis 1 (0-d inputs count as 1-D).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1, 2], [2]).unwrap();
/// let b = Tensor::from_vec(vec![3], [1]).unwrap();
/// let h: Tensor<i32, Ix1> = hstack(&[&a, &b]).unwrap();
/// assert_eq!(h.to_vec(), vec![1, 2, 3]);
/// ```
pub fn hstack<T: Element, D: AtLeast<1>>(inputs: &[&dyn AsView<T, D>]) -> Result<Tensor<T, D::Output>> {
    stack_along(inputs, 1, None, "hstack")
}

/// Joins tensors row-wise (NumPy `vstack`): inputs are made at least 2-D (`(k,)` →
/// `(1, k)`) and joined along axis 0.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1, 2], [2]).unwrap();
/// let v: Tensor<i32, Ix2> = vstack(&[&a, &a.view()]).unwrap();
/// assert_eq!((v.shape(), v.to_vec()), (&[2usize, 2][..], vec![1, 2, 1, 2]));
/// ```
pub fn vstack<T: Element, D: AtLeast<2>>(inputs: &[&dyn AsView<T, D>]) -> Result<Tensor<T, D::Output>> {
    stack_along(inputs, 2, Some(0), "vstack")
}

/// Joins tensors depth-wise (NumPy `dstack`): inputs are made at least 3-D (`(k,)` →
/// `(1, k, 1)`, `(m, k)` → `(m, k, 1)`) and joined along axis 2.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1, 2], [2]).unwrap();
/// let d: Tensor<i32, Ix3> = dstack(&[&a, &a]).unwrap();
/// assert_eq!((d.shape(), d.to_vec()), (&[1usize, 2, 2][..], vec![1, 1, 2, 2]));
/// ```
pub fn dstack<T: Element, D: AtLeast<3>>(inputs: &[&dyn AsView<T, D>]) -> Result<Tensor<T, D::Output>> {
    stack_along(inputs, 3, Some(2), "dstack")
}
