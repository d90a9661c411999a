//! Activations that mix elements or take per-channel parameters (PyTorch semantics):
//! `glu` (halves along an axis), `prelu` (a learned slope per channel) and `softmin`.

use super::softmax::softmax;
use super::util::{contiguous, map_float, native_float, owned_dim, split_at_axis};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::kernels::vmath::VMath;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Gated linear unit along `axis` (PyTorch's `glu(x, dim=-1)`): the axis is split into
/// halves `a` and `b` and the result is `a · sigmoid(b)`, of half the length along
/// `axis` (vectorised `sigmoid`). `Err` if the axis is out of range or its length is odd.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 2.0, 0.0, 100.0], [1, 4])?;
/// let y = ferrotensor::nn::glu(&x, -1)?;
/// assert_eq!(y.shape(), &[1, 2]);
/// assert_eq!(y.to_vec(), vec![0.5, 2.0]);
/// assert!(ferrotensor::nn::glu(&x, 0).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn glu<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>, axis: isize) -> Result<Tensor<T, D>> {
    const OP: &str = "glu";
    let ax = crate::layout::transform::normalize_axis(axis, x.ndim(), OP)
        .map_err(|e| Error::axis(OP, format!("{e} (input shape {})", fmt_shape(x.shape()))))?;
    let shape = x.shape().to_vec();
    if !shape[ax].is_multiple_of(2) {
        return Err(Error::shape(
            OP,
            format!(
                "halving axis {ax} needs an even length, got {} (input shape {})",
                shape[ax],
                fmt_shape(&shape)
            ),
        ));
    }
    let (outer, n, inner) = split_at_axis(&shape, ax);
    let half = n / 2 * inner;
    let data = contiguous(x);
    let out = native_float(&data, |xs| glu_rows(xs, outer, half), |xs| glu_rows(xs, outer, half));
    let mut out_shape = shape;
    out_shape[ax] /= 2;
    Ok(owned_dim(out, &out_shape))
}

/// `a · sigmoid(b)` for each of `outer` slabs `[a | b]` of `2·half` elements.
fn glu_rows<E: Float + VMath>(x: &[E], outer: usize, half: usize) -> Vec<E> {
    let mut out = vec![E::zero(); outer * half];
    for (o, slab) in out
        .chunks_exact_mut(half.max(1))
        .zip(x.chunks_exact((2 * half).max(1)))
        .take(outer)
    {
        let (a, b) = slab.split_at(half);
        E::sigmoid_slice(b, o);
        for (o, &a) in o.iter_mut().zip(a) {
            *o = a * *o;
        }
    }
    out
}

/// Parametric ReLU (PyTorch's `prelu(x, weight)`): `x` where `x > 0`, else
/// `weight[c] · x` with `c` the index along axis 1 (the channel axis of `(N, C, …)`).
/// `weight` holds one element (shared by all channels) or `C`; inputs with fewer than 2
/// axes have one channel. `Err` if the weight's element count fits neither.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![-1.0f32, 2.0, -1.0, 2.0], [1, 2, 2])?;
/// let w = Tensor::from_vec(vec![0.1f32, 0.5], [2])?;
/// assert_eq!(ferrotensor::nn::prelu(&x, &w)?.to_vec(), vec![-0.1, 2.0, -0.5, 2.0]);
/// assert!(ferrotensor::nn::prelu(&x, &Tensor::<f32, _>::ones([3])).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn prelu<T: Float, S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    x: &TensorBase<S, D>,
    weight: &TensorBase<S2, D2>,
) -> Result<Tensor<T, D>> {
    let shape = x.shape();
    let channels = if shape.len() >= 2 { shape[1] } else { 1 };
    let nw = weight.size();
    if nw != 1 && nw != channels {
        return Err(Error::shape(
            "prelu",
            format!(
                "weight of shape {} must have 1 or {channels} (channel count) elements (input {})",
                fmt_shape(weight.shape()),
                fmt_shape(shape)
            ),
        ));
    }
    let w: Vec<f64> = weight.iter().map(|&v| Float::to_f64(v)).collect();
    if nw == 1 {
        let (a32, a64) = (w[0] as f32, w[0]);
        return Ok(map_float(
            x,
            |s: &mut [f32]| s.iter_mut().for_each(|e| *e = if *e > 0.0 { *e } else { a32 * *e }),
            |s: &mut [f64]| s.iter_mut().for_each(|e| *e = if *e > 0.0 { *e } else { a64 * *e }),
        ));
    }
    let (outer, c, inner) = split_at_axis(shape, 1);
    let data = contiguous(x);
    let w32: Vec<f32> = w.iter().map(|&v| v as f32).collect();
    let out = native_float(
        &data,
        |xs| prelu_channels(xs, outer, c, inner, &w32),
        |xs| prelu_channels(xs, outer, c, inner, &w),
    );
    Ok(owned_dim(out, shape))
}

fn prelu_channels<E: Float>(x: &[E], outer: usize, c: usize, inner: usize, w: &[E]) -> Vec<E> {
    let mut out = x.to_vec();
    if inner == 0 {
        return out;
    }
    for (i, plane) in out.chunks_exact_mut(inner).enumerate().take(outer * c) {
        let a = w[i % c];
        plane
            .iter_mut()
            .for_each(|e| *e = if *e > E::zero() { *e } else { a * *e });
    }
    out
}

/// Softmin along `axis` (PyTorch's `softmin`): `softmax(−x)`, stable for large inputs.
/// `Err` if the axis is out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![0.0f64, 0.0, 1.0, 5.0], [2, 2])?;
/// let y = ferrotensor::nn::softmin(&x, 1)?;
/// assert_eq!(y[[0, 0]], 0.5);
/// assert!((y[[1, 0]] - 0.9820137900379085).abs() < 1e-15);
/// assert!(ferrotensor::nn::softmin(&x, 2).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn softmin<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    axis: isize,
) -> Result<Tensor<T, D>> {
    const OP: &str = "softmin";
    crate::layout::transform::normalize_axis(axis, x.ndim(), OP)
        .map_err(|e| Error::axis(OP, format!("{e} (input shape {})", fmt_shape(x.shape()))))?;
    let neg = map_float(
        x,
        |s: &mut [f32]| s.iter_mut().for_each(|e| *e = -*e),
        |s: &mut [f64]| s.iter_mut().for_each(|e| *e = -*e),
    );
    softmax(&neg, axis)
}
