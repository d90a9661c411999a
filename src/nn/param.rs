//! Per-channel parameter vectors (bias, batch-norm statistics, affine weights) taken as
//! `&dyn Param<T>`: any tensor or view of any rank type, so that `Some(&b)` works for an
//! owned `Tensor<T, Ix1>`, a `TensorView` or an `IxDyn` tensor read from a file, and a
//! plain `None` needs no type annotation.

use crate::element::{Element, Float};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{TensorBase, TensorView};

/// A parameter vector of an `nn` function or layer: implemented by every tensor and view
/// ([`TensorBase`] of any storage and rank type). The functions require it to be 1-D
/// with the length they name.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{self, Param};
/// let x = Tensor::<f32, _>::ones([1, 2, 1, 1]);
/// let b = Tensor::from_vec(vec![0.0f32, 1.0, 2.0, 3.0], [4])?;
/// let w = Tensor::<f32, _>::ones([2, 2, 1, 1]);
/// // A strided view as the bias: elements 0 and 2.
/// let y = nn::conv2d(&x, &w, Some(&b.slice(s![..;2])), &Default::default())?;
/// assert_eq!(y.to_vec(), vec![2.0, 4.0]);
/// assert_eq!(b.param_view().shape(), &[4]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub trait Param<T: Element> {
    /// A view of the parameter (no copy).
    fn param_view(&self) -> TensorView<'_, T, IxDyn>;
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> Param<T> for TensorBase<S, D> {
    fn param_view(&self) -> TensorView<'_, T, IxDyn> {
        self.view().into_dyn()
    }
}

/// The elements of parameter `name` of `op`, or `Err` unless it is 1-D of length `len`
/// (`context` names the other shapes in the message).
pub(crate) fn param_vec<T: Float>(
    op: &'static str,
    name: &str,
    p: &dyn Param<T>,
    len: usize,
    context: &str,
) -> Result<Vec<T>> {
    let v = p.param_view();
    if v.shape() != [len] {
        return Err(Error::shape(
            op,
            format!(
                "{name} of shape {} must be 1-D of length {len} ({context})",
                fmt_shape(v.shape())
            ),
        ));
    }
    Ok(v.to_vec())
}

/// [`param_vec`] of an optional parameter.
pub(crate) fn opt_param_vec<T: Float>(
    op: &'static str,
    name: &str,
    p: Option<&dyn Param<T>>,
    len: usize,
    context: &str,
) -> Result<Option<Vec<T>>> {
    p.map(|p| param_vec(op, name, p, len, context)).transpose()
}
