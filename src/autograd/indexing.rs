//! Copying selections of a [`Var`]: `index_select`, `gather`, `pad` and
//! [`concatenate`]. Their gradients scatter back with accumulation, so an element
//! picked (or padded from) several times receives the sum of its uses.

use super::grad::{Grad, permute_owned};
use super::var::Var;
use crate::element::Float;
use crate::error::Result;
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, IxDyn};
use crate::manip::{IndexElement, PadMode};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};
use std::borrow::Borrow;

/// `out[.., idx[k], ..] += g[.., k, ..]` along `axis` into zeros of length `len`
/// (indices may repeat and be negative, counting from the end).
fn index_add_axis<T: Float>(
    g: &TensorView<'_, T, IxDyn>,
    axis: usize,
    idx: &[isize],
    len: usize,
) -> Result<Tensor<T, IxDyn>> {
    let front = g.moveaxis(axis as isize, 0)?;
    let mut shape = front.shape().to_vec();
    shape[0] = len;
    let ix = Tensor::from_vec(idx.to_vec(), [idx.len()])?;
    let sum = Tensor::<T, IxDyn>::zeros(shape).index_put_accumulate(&[&ix], &front)?;
    // Move the axis back with a layout over the new buffer.
    let n = g.ndim();
    let mut perm: Vec<isize> = (1..n as isize).collect();
    perm.insert(axis, 0);
    permute_owned(sum, &perm)
}

impl<T: Float> Var<T> {
    /// Picks the entries `indices` along `axis` (NumPy `take(…, axis)`); repeated
    /// indices add their gradients. `Err` for an axis or index out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3])?);
    /// let y = x.index_select(0, &[2, 0, 2])?;
    /// assert_eq!(y.value().to_vec(), vec![3.0, 1.0, 3.0]);
    /// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![1.0, 0.0, 2.0]);
    /// assert!(x.index_select(0, &[3]).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn index_select(&self, axis: isize, indices: &[isize]) -> Result<Var<T>> {
        let value = self.view().index_select(axis, indices)?;
        let ax = normalize_axis(axis, self.ndim(), "index_select")?;
        let idx = indices.to_vec();
        Ok(Var::from_op(value, "index_select", &[self], move |c| {
            let len = c.inputs[0].shape()[ax];
            Ok(vec![Some(Grad::dense(index_add_axis(&c.grad.view(), ax, &idx, len)?))])
        }))
    }

    /// PyTorch `gather`: `out[p] = x[p with p[axis] replaced by index[p]]`; the
    /// gradient scatters back with accumulation. `Err` as
    /// [`crate::TensorBase::gather`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2])?);
    /// let idx = Tensor::from_vec(vec![1i64, 1, 0, 1], [2, 2])?;
    /// let y = x.gather(1, &idx)?;
    /// assert_eq!(y.value().to_vec(), vec![2.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![0.0, 2.0, 1.0, 1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn gather<I: IndexElement, S: Storage<Elem = I>, D: Dimension>(
        &self,
        axis: isize,
        index: &TensorBase<S, D>,
    ) -> Result<Var<T>> {
        let value = self.view().gather(axis, index)?;
        let index = index.view().into_dyn().to_owned();
        Ok(Var::from_op(value, "gather", &[self], move |c| {
            let z = Tensor::<T, IxDyn>::zeros(c.inputs[0].shape().to_vec());
            Ok(vec![Some(Grad::dense(z.scatter_add(axis, &index, &c.grad.view())?))])
        }))
    }

    /// Pads every axis with `(before, after)` elements (NumPy `pad`, any [`PadMode`]);
    /// elements copied into the padding (edge, reflect, symmetric, wrap) add their
    /// gradients to their source. `Err` as [`crate::TensorBase::pad`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2])?);
    /// let y = x.pad(&[(2, 1)], PadMode::Edge)?;
    /// assert_eq!(y.value().to_vec(), vec![1.0, 1.0, 1.0, 2.0, 2.0]);
    /// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![3.0, 2.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn pad(&self, widths: &[(usize, usize)], mode: PadMode<T>) -> Result<Var<T>> {
        let value = self.view().pad(widths, mode)?;
        let nd = self.ndim();
        let widths: Vec<(usize, usize)> = if widths.len() == 1 && nd != 1 {
            vec![widths[0]; nd]
        } else {
            widths.to_vec()
        };
        // Per axis, the source index of every output position (−1: the constant).
        let index_mode = match mode {
            PadMode::Constant(_) => PadMode::Constant(-1isize),
            PadMode::Edge => PadMode::Edge,
            PadMode::Reflect => PadMode::Reflect,
            PadMode::Symmetric => PadMode::Symmetric,
            PadMode::Wrap => PadMode::Wrap,
        };
        let mut maps = Vec::with_capacity(nd);
        for (k, &w) in widths.iter().enumerate() {
            let n = self.shape()[k];
            let src = Tensor::<isize, _>::from_shape_fn([n], |i| i[0] as isize);
            maps.push(src.pad(&[w], index_mode)?.to_vec());
        }
        Ok(Var::from_op(value, "pad", &[self], move |c| {
            let shape = c.inputs[0].shape().to_vec();
            let mut g = c.grad.into_tensor();
            for (k, map) in maps.iter().enumerate() {
                if widths[k] == (0, 0) {
                    continue;
                }
                g = if map.iter().all(|&s| s >= 0) {
                    index_add_axis(&g.view(), k, map, shape[k])?
                } else {
                    // Constant padding: the original elements are one slice.
                    let (b, n) = (widths[k].0, shape[k]);
                    let v = g.view();
                    let axis_slice = narrow(&v, k, b, n)?;
                    axis_slice.to_owned()
                };
            }
            Ok(vec![Some(Grad::dense(g))])
        }))
    }
}

/// Elements `start..start + len` of `axis` (a view).
fn narrow<'a, T: Float>(
    v: &TensorView<'a, T, IxDyn>,
    axis: usize,
    start: usize,
    len: usize,
) -> Result<TensorView<'a, T, IxDyn>> {
    let l = crate::layout::transform::narrow_layout(v.layout(), axis as isize, start as isize, len)?;
    Ok(TensorBase {
        storage: crate::storage::ViewRepr(v.storage.0),
        layout: l,
    })
}

/// Joins `Var`s along an existing axis (NumPy `concatenate`, as
/// [`crate::manip::concatenate`]); each input receives its slice of the gradient.
/// `Err` for no inputs, mismatched shapes or an axis out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let a = Var::new(Tensor::<f64, _>::ones([2, 2]));
/// let b = Var::new(Tensor::<f64, _>::ones([1, 2]));
/// let c = autograd::concatenate(&[&a, &b], 0)?;
/// assert_eq!(c.shape(), &[3, 2]);
/// let w = Var::constant(Tensor::from_vec(vec![1.0, 1.0, 2.0, 2.0, 3.0, 3.0], [3, 2])?);
/// let g = (&c * &w).sum().backward()?;
/// assert_eq!(g.get(&b).unwrap().to_vec(), vec![3.0, 3.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn concatenate<T: Float, V: Borrow<Var<T>>>(inputs: &[V], axis: isize) -> Result<Var<T>> {
    let vars: Vec<&Var<T>> = inputs.iter().map(|v| v.borrow()).collect();
    let views: Vec<TensorView<'_, T, IxDyn>> = vars.iter().map(|v| v.view()).collect();
    let refs: Vec<&dyn crate::manip::AsView<T, IxDyn>> = views.iter().map(|v| v as _).collect();
    let value = crate::manip::concatenate(&refs, axis)?;
    let ax = normalize_axis(axis, value.ndim(), "concatenate")?;
    Ok(Var::from_op(value, "concatenate", &vars, move |c| {
        let g = c.grad.view();
        let mut start = 0;
        let mut out = Vec::with_capacity(c.inputs.len());
        for (input, &need) in c.inputs.iter().zip(&c.needs) {
            let len = input.shape()[ax];
            out.push(if need {
                Some(Grad::dense(narrow(&g, ax, start, len)?.to_owned()))
            } else {
                None
            });
            start += len;
        }
        Ok(out)
    }))
}
