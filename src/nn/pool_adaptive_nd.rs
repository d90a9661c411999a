//! Adaptive pooling over 1 and 3 spatial axes (average) and 1, 2 and 3 (maximum, with
//! indices): PyTorch's bands (output `i` of `o` reads `⌊i·L/o⌋ .. ⌈(i+1)·L/o⌉`) reduced
//! by the kernel of [`super::pool_rows`] (bands that tile the input evenly: 1-D by
//! [`super::pool_band1d`], the 3-D average by the window kernels; one band covering the
//! whole plane by [`super::pool_global_arg`]). The 2-D average is [`super::adaptive_avg_pool2d`].

use super::pool_adaptive::global_planes;
use super::pool_band1d::{band_argmax, band_means};
use super::pool_geom::PoolGeom;
use super::pool_kernel::Reduce;
use super::pool_nd::Taps;
use super::pool_rows::{average, max_with_indices};
use super::pool3d_kernel::pool3d_planes;
use super::util::{contiguous, owned_dim};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Checks `(N, C, spatial…)` of rank `N + 2` against `out`; returns the planes, the
/// bands lifted to 3 axes and the output shape.
fn bands<const N: usize>(op: &'static str, shape: &[usize], out: [usize; N]) -> Result<(usize, Taps, Vec<usize>)> {
    if shape.len() != N + 2 {
        return Err(Error::shape(
            op,
            format!("expected a {}-D input (N, C, …), got shape {}", N + 2, fmt_shape(shape)),
        ));
    }
    let input = &shape[2..];
    if input.contains(&0) && out.iter().product::<usize>() > 0 {
        return Err(Error::shape(
            op,
            format!("empty input {} for output size {out:?}", fmt_shape(shape)),
        ));
    }
    let (mut i3, mut o3) = ([1; 3], [1; 3]);
    i3[3 - N..].copy_from_slice(input);
    o3[3 - N..].copy_from_slice(&out);
    let mut oshape = shape[..2].to_vec();
    oshape.extend_from_slice(&out);
    Ok((shape[0] * shape[1], Taps::adaptive(i3, o3), oshape))
}

fn adaptive_avg<T: Float, S: Storage<Elem = T>, D: Dimension, const N: usize>(
    op: &'static str,
    x: &TensorBase<S, D>,
    out: [usize; N],
) -> Result<Tensor<T, D>> {
    let (planes, taps, shape) = bands(op, x.shape(), out)?;
    let input: [usize; N] = std::array::from_fn(|a| x.shape()[2 + a]);
    let data = contiguous(x);
    // One band per plane: a flat sum per plane.
    if out.iter().all(|&o| o == 1) {
        return Ok(owned_dim(global_planes(&data, planes, input.iter().product()), &shape));
    }
    if N == 1 && out[0] > 0 && input[0].is_multiple_of(out[0]) {
        return Ok(owned_dim(band_means(&data, input[0], input[0] / out[0]), &shape));
    }
    // 3-D bands that tile the input evenly are windows (kernel = stride = L / O, no
    // padding): the vectorised 3-D window kernel takes them.
    if N == 3 && (0..N).all(|a| out[a] > 0 && input[a].is_multiple_of(out[a])) {
        let k: [usize; N] = std::array::from_fn(|a| input[a] / out[a]);
        let g = PoolGeom::<N> {
            input,
            out,
            k,
            s: k,
            p: [0; N],
            d: [1; N],
        };
        let r = Reduce::Avg {
            count_include_pad: true,
            divisor: None,
        };
        return Ok(owned_dim(pool3d_planes(&data, planes, &g.lift::<3>(), r), &shape));
    }
    Ok(owned_dim(average(&data, planes, &taps, None), &shape))
}

#[allow(clippy::type_complexity)]
fn adaptive_max<T: Float, S: Storage<Elem = T>, D: Dimension, const N: usize>(
    op: &'static str,
    x: &TensorBase<S, D>,
    out: [usize; N],
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let (planes, taps, shape) = bands(op, x.shape(), out)?;
    let l = x.shape()[2];
    let (v, i) = if N == 1 && out[0] > 0 && l.is_multiple_of(out[0]) {
        band_argmax(&contiguous(x), l, l / out[0])
    } else {
        max_with_indices(&contiguous(x), planes, &taps)
    };
    Ok((owned_dim(v, &shape), owned_dim(i, &shape)))
}

/// Adaptive average pooling of `x` `(N, C, L)` to length `output_size` (PyTorch's
/// `adaptive_avg_pool1d`). The result has the input's rank type. `Err` for a non-3-D
/// input or an empty input with a nonempty output.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0], [1, 1, 5])?;
/// assert_eq!(ferrotensor::nn::adaptive_avg_pool1d(&x, 3)?.to_vec(), vec![1.5, 3.0, 4.5]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn adaptive_avg_pool1d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    output_size: usize,
) -> Result<Tensor<T, D>> {
    adaptive_avg("adaptive_avg_pool1d", x, [output_size])
}

/// Adaptive average pooling of `x` `(N, C, D, H, W)` to `output_size` (PyTorch's
/// `adaptive_avg_pool3d`). The result has the input's rank type. `Err` for a non-5-D
/// input or an empty input with a nonempty output.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec((0..8).map(|v| v as f64).collect(), [1, 1, 2, 2, 2])?;
/// assert_eq!(ferrotensor::nn::adaptive_avg_pool3d(&x, [1, 1, 1])?.to_vec(), vec![3.5]);
/// assert_eq!(ferrotensor::nn::adaptive_avg_pool3d(&x, [2, 1, 1])?.to_vec(), vec![1.5, 5.5]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn adaptive_avg_pool3d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    output_size: [usize; 3],
) -> Result<Tensor<T, D>> {
    adaptive_avg("adaptive_avg_pool3d", x, output_size)
}

/// Adaptive max pooling of `x` `(N, C, L)` (PyTorch's `adaptive_max_pool1d` with
/// `return_indices=True`): the maximum of each band and its position `l` (ties give
/// the first, NaN the last NaN). Both results have the input's rank type. `Err` as
/// [`adaptive_avg_pool1d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 4.0, 3.0, 2.0, 5.0], [1, 1, 5])?;
/// let (y, i) = ferrotensor::nn::adaptive_max_pool1d(&x, 2)?;
/// assert_eq!((y.to_vec(), i.to_vec()), (vec![4.0, 5.0], vec![1, 4]));
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn adaptive_max_pool1d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    output_size: usize,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    adaptive_max("adaptive_max_pool1d", x, [output_size])
}

/// Adaptive max pooling of `x` `(N, C, H, W)` (PyTorch's `adaptive_max_pool2d` with
/// `return_indices=True`): the maximum of each cell and its position `h·W + w` in the
/// plane. Both results have the input's rank type. `Err` for a non-4-D input or an
/// empty input with a nonempty output.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec((1..=9).map(|v| v as f32).collect(), [1, 1, 3, 3])?;
/// let (y, i) = ferrotensor::nn::adaptive_max_pool2d(&x, [2, 2])?;
/// assert_eq!((y.to_vec(), i.to_vec()), (vec![5.0, 6.0, 8.0, 9.0], vec![4, 5, 7, 8]));
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn adaptive_max_pool2d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    output_size: [usize; 2],
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    adaptive_max("adaptive_max_pool2d", x, output_size)
}

/// Adaptive max pooling of `x` `(N, C, D, H, W)` (PyTorch's `adaptive_max_pool3d` with
/// `return_indices=True`): the maximum of each cell and its position
/// `(d·H + h)·W + w` in the plane. Both results have the input's rank type. `Err` for a
/// non-5-D input or an empty input with a nonempty output.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec((0..8).map(|v| v as f64).collect(), [1, 1, 2, 2, 2])?;
/// let (y, i) = ferrotensor::nn::adaptive_max_pool3d(&x, [1, 1, 2])?;
/// assert_eq!((y.to_vec(), i.to_vec()), (vec![6.0, 7.0], vec![6, 7]));
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn adaptive_max_pool3d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    output_size: [usize; 3],
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    adaptive_max("adaptive_max_pool3d", x, output_size)
}
