//! `max_pool2d_with_indices` and its inverse `max_unpool2d` (PyTorch semantics: the
//! index of each maximum is its position `h·W + w` in the input plane; ties keep the
//! first, a NaN replaces the maximum and its index).

use super::pool::MaxPool2dArgs;
use super::pool_geom::PoolGeom;
use super::pool_nd::Taps;
use super::pool_rows::max_with_indices;
use super::util::{contiguous, dims, owned_dim};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Max pooling that also returns, for every output, the index `h·W + w` of its maximum
/// within its input plane (PyTorch's `max_pool2d(..., return_indices=True)`): ties give
/// the first element in row-major window order, NaN the last NaN. Both results have
/// the input's rank type. `Err` as [`super::max_pool2d_with`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{max_pool2d_with_indices, max_unpool2d, MaxPool2dArgs};
/// let x = Tensor::from_vec(vec![1.0f32, 5.0, 2.0, 0.0, 3.0, 4.0, 7.0, 6.0], [1, 1, 2, 4])?;
/// let (y, i) = max_pool2d_with_indices(&x, &MaxPool2dArgs::new([2, 2]))?;
/// assert_eq!(y.to_vec(), vec![5.0, 7.0]);
/// assert_eq!(i.to_vec(), vec![1, 6]);
/// let u = max_unpool2d(&y, &i, [2, 4])?;
/// assert_eq!(u.to_vec(), vec![0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 7.0, 0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn max_pool2d_with_indices<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &MaxPool2dArgs,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let (planes, g) = PoolGeom::check("max_pool2d_with_indices", x.shape(), &args.window())?;
    let (vals, idx) = max_with_indices(&contiguous(x), planes, &Taps::window(&g.lift::<3>(), true));
    let shape = [x.shape()[0], x.shape()[1], g.out[0], g.out[1]];
    Ok((owned_dim(vals, &shape), owned_dim(idx, &shape)))
}

/// The partial inverse of max pooling (PyTorch's `max_unpool2d`): an `(N, C, OH, OW)`
/// tensor of zeros with `x[n, c, i, j]` written at position `indices[n, c, i, j]` of
/// plane `(n, c)` (later writes win when indices repeat). The result has the input's
/// rank type. `Err` for non-4-D inputs, `indices` of another shape, or an index outside
/// `0..OH·OW`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![9.0f64], [1, 1, 1, 1])?;
/// let i = Tensor::from_vec(vec![3i64], [1, 1, 1, 1])?;
/// assert_eq!(ferrotensor::nn::max_unpool2d(&x, &i, [2, 2])?.to_vec(), vec![0.0, 0.0, 0.0, 9.0]);
/// assert!(ferrotensor::nn::max_unpool2d(&x, &i, [1, 3]).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn max_unpool2d<T: Float, S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = i64>, D2: Dimension>(
    x: &TensorBase<S, D>,
    indices: &TensorBase<S2, D2>,
    output_size: [usize; 2],
) -> Result<Tensor<T, D>> {
    const OP: &str = "max_unpool2d";
    let [n, c, h, w] = dims::<4>(x.shape(), OP, "input (N, C, H, W)")?;
    if indices.shape() != x.shape() {
        return Err(Error::shape(
            OP,
            format!(
                "indices of shape {} differ from the input's {}",
                fmt_shape(indices.shape()),
                fmt_shape(x.shape())
            ),
        ));
    }
    let [oh, ow] = output_size;
    let (hw, ohw) = (h * w, oh * ow);
    let xs = contiguous(x);
    let is = contiguous(indices);
    if let Some(bad) = is.iter().find(|&&i| i < 0 || i as u64 >= ohw as u64) {
        return Err(Error::value(
            OP,
            format!(
                "index {bad} is outside the output plane of {oh}×{ow} elements (input {})",
                fmt_shape(x.shape())
            ),
        ));
    }
    let mut out = vec![T::zero(); n * c * ohw];
    for pl in 0..n * c {
        let o = &mut out[pl * ohw..][..ohw];
        for (&v, &i) in xs[pl * hw..][..hw].iter().zip(&is[pl * hw..][..hw]) {
            o[i as usize] = v;
        }
    }
    Ok(owned_dim(out, &[n, c, oh, ow]))
}
