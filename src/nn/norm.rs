//! Normalisations: `layer_norm`, `rms_norm` and inference-mode `batch_norm`.
//!
//! Statistics are accumulated in `f64` (two passes: mean, then the centred variance),
//! so `f32` and half-precision inputs lose nothing to cancellation.

use super::epilogue::Activation;
use super::norm_layer::{apply, scale_shift};
use super::param::Param;
use super::util::{contiguous, owned_dim, par_tasks};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Checks that `normalized_shape` ends `shape` and that the optional affine vectors have
/// its element count; returns that count.
fn check_trailing<T: Float>(
    op: &'static str,
    shape: &[usize],
    normalized_shape: &[usize],
    vecs: &[(&str, Option<&dyn Param<T>>)],
) -> Result<usize> {
    let k = normalized_shape.len();
    if k == 0 || k > shape.len() || shape[shape.len() - k..] != *normalized_shape {
        return Err(Error::shape(
            op,
            format!(
                "normalized_shape {} must be non-empty and end the input shape {}",
                fmt_shape(normalized_shape),
                fmt_shape(shape)
            ),
        ));
    }
    let n: usize = normalized_shape.iter().product();
    for (name, v) in vecs {
        if let Some(v) = v.map(|v| v.param_view())
            && v.size() != n
        {
            return Err(Error::shape(
                op,
                format!(
                    "{name} of shape {} does not have the {n} elements of normalized_shape {} (input {})",
                    fmt_shape(v.shape()),
                    fmt_shape(normalized_shape),
                    fmt_shape(shape)
                ),
            ));
        }
    }
    Ok(n)
}

/// Applies `f(row index, row, out_row)` to every row of `n` elements, in parallel.
fn per_row<T: Float>(x: &[T], n: usize, f: impl Fn(usize, &[T], &mut [T]) + Sync) -> Vec<T> {
    let mut out = vec![T::zero(); x.len()];
    if n == 0 || x.is_empty() {
        return out;
    }
    let rows = x.len() / n;
    let per = ((1 << 14) / n).max(1);
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        rows.div_ceil(per),
        || (),
        |_, t| {
            let (a, b) = (t * per, ((t + 1) * per).min(rows));
            // SAFETY: rows a..b of `out`, disjoint between tasks.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().add(a * n), (b - a) * n) };
            for (i, (xr, or)) in x[a * n..b * n].chunks_exact(n).zip(o.chunks_exact_mut(n)).enumerate() {
                f(a + i, xr, or);
            }
        },
    );
    out
}

fn vec_f64<T: Float>(v: Option<&dyn Param<T>>) -> Option<Vec<f64>> {
    v.map(|v| v.param_view().iter().map(|&x| Float::to_f64(x)).collect())
}

/// Layer normalisation over the trailing axes `normalized_shape` (PyTorch's
/// `layer_norm`): `(x − mean) / sqrt(var + eps) · weight + bias`, with the biased
/// variance. `weight` and `bias` hold the `prod(normalized_shape)` elements in row-major
/// order (any tensor or view with that many elements). The result has the input's rank
/// type. `Err` if `normalized_shape` does not end the input's shape or the affine
/// vectors have the wrong length.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2])?;
/// let y = ferrotensor::nn::layer_norm(&x, &[2], None, None, 0.0)?;
/// assert_eq!(y.to_vec(), vec![-1.0, 1.0, -1.0, 1.0]);
/// assert!(ferrotensor::nn::layer_norm(&x, &[3], None, None, 1e-5).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn layer_norm<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    normalized_shape: &[usize],
    weight: Option<&dyn Param<T>>,
    bias: Option<&dyn Param<T>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let n = check_trailing(
        "layer_norm",
        x.shape(),
        normalized_shape,
        &[("weight", weight), ("bias", bias)],
    )?;
    let (w, b) = (vec_f64(weight), vec_f64(bias));
    let data = contiguous(x);
    let out = per_row(&data, n, |_, xr, or| {
        let mean = xr.iter().map(|&v| Float::to_f64(v)).sum::<f64>() / n as f64;
        let var = xr.iter().map(|&v| (Float::to_f64(v) - mean).powi(2)).sum::<f64>() / n as f64;
        let inv = 1.0 / (var + eps).sqrt();
        for (j, (o, v)) in or.iter_mut().zip(xr).enumerate() {
            let mut y = (Float::to_f64(*v) - mean) * inv;
            if let Some(w) = &w {
                y *= w[j];
            }
            if let Some(b) = &b {
                y += b[j];
            }
            *o = T::from_f64(y);
        }
    });
    Ok(owned_dim(out, x.shape()))
}

/// RMS normalisation over the trailing axes `normalized_shape` (PyTorch's `rms_norm`):
/// `x / sqrt(mean(x²) + eps) · weight`, of the input's rank type. `Err` as [`layer_norm`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![3.0f32, 4.0], [1, 2])?;
/// let y = ferrotensor::nn::rms_norm(&x, &[2], None, 0.0)?;
/// let r = (12.5f32).sqrt();
/// assert_eq!(y.to_vec(), vec![3.0 / r, 4.0 / r]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn rms_norm<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    normalized_shape: &[usize],
    weight: Option<&dyn Param<T>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let n = check_trailing("rms_norm", x.shape(), normalized_shape, &[("weight", weight)])?;
    let w = vec_f64(weight);
    let data = contiguous(x);
    let out = per_row(&data, n, |_, xr, or| {
        let ms = xr.iter().map(|&v| Float::to_f64(v).powi(2)).sum::<f64>() / n as f64;
        let inv = 1.0 / (ms + eps).sqrt();
        for (j, (o, v)) in or.iter_mut().zip(xr).enumerate() {
            let y = Float::to_f64(*v) * inv;
            *o = T::from_f64(w.as_ref().map_or(y, |w| y * w[j]));
        }
    });
    Ok(owned_dim(out, x.shape()))
}

/// Batch normalisation in inference mode over axis 1 of `(N, C, …)`:
/// `(x − running_mean[c]) / sqrt(running_var[c] + eps) · weight[c] + bias[c]`, every
/// parameter any 1-D tensor or view of length `C`. The result has the input's rank type.
/// `Err` if the input has fewer than 2 axes or a parameter is not 1-D of length `C`.
/// [`super::BatchNorm2d`] prepares the parameters once (and can be folded into a
/// convolution).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 2.0, 10.0, 20.0], [1, 2, 2])?;
/// let mean = Tensor::from_vec(vec![1.0, 10.0], [2])?;
/// let var = Tensor::from_vec(vec![1.0, 100.0], [2])?;
/// let y = ferrotensor::nn::batch_norm(&x, &mean, &var, None, None, 0.0)?;
/// assert_eq!(y.to_vec(), vec![0.0, 1.0, 0.0, 1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn batch_norm<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    running_mean: &dyn Param<T>,
    running_var: &dyn Param<T>,
    weight: Option<&dyn Param<T>>,
    bias: Option<&dyn Param<T>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    const OP: &str = "batch_norm";
    let shape = x.shape();
    if shape.len() < 2 {
        return Err(Error::shape(
            OP,
            format!(
                "expected an input (N, C, ...) with at least 2 axes, got shape {}",
                fmt_shape(shape)
            ),
        ));
    }
    let ctx = format!("input {}", fmt_shape(shape));
    let (scale, shift) = scale_shift(OP, running_mean, running_var, weight, bias, eps, shape[1], &ctx)?;
    Ok(apply(x, &scale, &shift, Activation::Identity))
}
