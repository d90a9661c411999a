//! `flatten`: the axes from `start_axis` on merged into one (PyTorch's `flatten(x,
//! start_dim)`), the step between the convolutional body and the fully connected head.

use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{TensorBase, TensorCow};

/// `x` with the axes `start_axis..` merged into one (negative `start_axis` counts from the
/// end; a 0-d tensor becomes 1-D): a view when the merged axes can be walked with one
/// stride (as `reshape`), else a row-major copy. The rank depends on `start_axis`, so the
/// result is [`IxDyn`]. `Err` if `start_axis` is out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::<f32, _>::zeros([8, 512, 1, 1]);
/// let f = ferrotensor::nn::flatten(&x, 1)?;
/// assert_eq!(f.shape(), &[8, 512]);
/// assert!(f.is_view());
/// assert_eq!(ferrotensor::nn::flatten(&x, -2)?.shape(), &[8, 512, 1]);
/// assert!(ferrotensor::nn::flatten(&x, 4).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn flatten<T: Element, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    start_axis: isize,
) -> Result<TensorCow<'_, T, IxDyn>> {
    const OP: &str = "flatten";
    let shape = x.shape();
    let nd = shape.len().max(1) as isize;
    let ax = if start_axis < 0 { start_axis + nd } else { start_axis };
    if !(0..nd).contains(&ax) {
        return Err(Error::axis(
            OP,
            format!("start_axis {start_axis} is out of range for shape {}", fmt_shape(shape)),
        ));
    }
    let ax = ax as usize;
    let mut new: Vec<usize> = shape[..ax.min(shape.len())].to_vec();
    new.push(shape[ax.min(shape.len())..].iter().product());
    x.view().into_dyn().reshape(new)
}
