//! `max_pool2d_with_indices` and its inverse `max_unpool2d` (PyTorch semantics: the
//! index of each maximum is its position `h·W + w` in the input plane; ties keep the
//! first, a NaN replaces the maximum and its index).

use super::pool::{MaxPool2dArgs, check_pool};
use super::util::{contiguous, dims, owned_dim, par_tasks};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
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
    let a = args;
    let (planes, g) = check_pool(
        "max_pool2d_with_indices",
        x.shape(),
        a.kernel,
        a.stride,
        a.padding,
        a.dilation,
        a.ceil_mode,
    )?;
    let data = contiguous(x);
    let (hw, ohw) = (g.h * g.w, g.oh * g.ow);
    let mut vals = vec![T::zero(); planes * ohw];
    let mut idx = vec![0i64; planes * ohw];
    let (vp, ip) = (SendPtr(vals.as_mut_ptr()), SendPtr(idx.as_mut_ptr()));
    // The valid taps of each window along one axis.
    let taps = |o: usize, axis: usize, len: usize| -> Vec<usize> {
        let start = (o * g.s[axis]) as isize - g.p[axis] as isize;
        (0..g.k[axis])
            .map(|i| start + (i * g.d[axis]) as isize)
            .filter(|&v| (0..len as isize).contains(&v))
            .map(|v| v as usize)
            .collect()
    };
    let rows: Vec<Vec<usize>> = (0..g.oh).map(|o| taps(o, 0, g.h)).collect();
    let cols: Vec<Vec<usize>> = (0..g.ow).map(|o| taps(o, 1, g.w)).collect();
    par_tasks(
        planes,
        || (),
        |_, pl| {
            let xp = &data[pl * hw..][..hw];
            // SAFETY: plane `pl` of both outputs, written only by this task.
            let (vo, io) = unsafe {
                (
                    std::slice::from_raw_parts_mut(vp.get().add(pl * ohw), ohw),
                    std::slice::from_raw_parts_mut(ip.get().add(pl * ohw), ohw),
                )
            };
            for (oh, rs) in rows.iter().enumerate() {
                for (ow, cs) in cols.iter().enumerate() {
                    let (mut best, mut at) = (T::neg_infinity(), 0usize);
                    if let (Some(&r), Some(&c)) = (rs.first(), cs.first()) {
                        at = r * g.w + c;
                    }
                    for &r in rs {
                        for &c in cs {
                            let v = xp[r * g.w + c];
                            if v > best || v.is_nan() {
                                best = v;
                                at = r * g.w + c;
                            }
                        }
                    }
                    vo[oh * g.ow + ow] = best;
                    io[oh * g.ow + ow] = at as i64;
                }
            }
        },
    );
    let shape = [x.shape()[0], x.shape()[1], g.oh, g.ow];
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
