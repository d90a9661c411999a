//! Normalisation layers of a [`Var`]: [`layer_norm`] and [`batch_norm`] (training mode
//! with batch statistics and running-statistic updates, or evaluation mode with the
//! running statistics). Forward passes keep the normalised input `x̂` and the
//! reciprocal standard deviations for the backward rules, which are the usual closed
//! forms (`dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂))`).

use super::grad::Grad;
use super::var::Var;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Ix1, IxDyn};
use crate::tensor::Tensor;
use rayon::prelude::*;

/// Runs `f(row_index, row)` over the `len`-long rows of `data`, on several threads
/// for large inputs.
fn for_rows<T: Send>(data: &mut [T], len: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    if len == 0 {
        return;
    }
    if data.len() >= crate::iter::PARALLEL_THRESHOLD && crate::threads::num_threads() > 1 {
        data.par_chunks_mut(len).enumerate().for_each(|(i, r)| f(i, r));
    } else {
        data.chunks_mut(len).enumerate().for_each(|(i, r)| f(i, r));
    }
}

/// Checks an affine parameter: `normalized` elements, shaped as `want` or flat.
fn check_affine<T: Float>(
    op: &'static str,
    name: &str,
    p: Option<&Var<T>>,
    want: &[usize],
    input: &[usize],
) -> Result<()> {
    if let Some(p) = p {
        let n: usize = want.iter().product();
        if p.shape() != want && p.shape() != [n] {
            return Err(Error::shape(
                op,
                format!(
                    "{name} of shape {} does not match {} (input {})",
                    fmt_shape(p.shape()),
                    fmt_shape(want),
                    fmt_shape(input)
                ),
            ));
        }
    }
    Ok(())
}

/// Values of an optional parameter as a row-major vector.
fn param_vec<T: Float>(p: Option<&Var<T>>) -> Option<Vec<T>> {
    p.map(|p| p.view().to_vec())
}

/// Layer normalisation over the trailing axes `normalized_shape` (PyTorch's
/// `layer_norm`, as [`crate::nn::layer_norm`]): `(x − mean)/sqrt(var + eps)·weight +
/// bias` with the biased variance; `weight` and `bias` have shape `normalized_shape`
/// (or are flat with as many elements). `Err` if `normalized_shape` does not end the
/// input's shape or an affine parameter has the wrong shape.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0], [1, 2])?);
/// let w = Var::new(Tensor::from_vec(vec![1.0f64, 1.0], [2])?);
/// let y = autograd::layer_norm(&x, &[2], Some(&w), None, 0.0)?;
/// assert_eq!(y.value().to_vec(), vec![-1.0, 1.0]);
/// let g = (&y * &Var::constant(Tensor::from_vec(vec![0.0, 1.0], [1, 2])?)).sum().backward()?;
/// assert_eq!(g.get(&w).unwrap().to_vec(), vec![0.0, 1.0]);
/// assert!(autograd::layer_norm(&x, &[3], None, None, 1e-5).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn layer_norm<T: Float>(
    x: &Var<T>,
    normalized_shape: &[usize],
    weight: Option<&Var<T>>,
    bias: Option<&Var<T>>,
    eps: f64,
) -> Result<Var<T>> {
    const OP: &str = "layer_norm";
    let shape = x.shape().to_vec();
    let k = normalized_shape.len();
    if k > shape.len() || shape[shape.len() - k..] != *normalized_shape {
        return Err(Error::shape(
            OP,
            format!(
                "normalized_shape {} does not end the input shape {}",
                fmt_shape(normalized_shape),
                fmt_shape(&shape)
            ),
        ));
    }
    check_affine(OP, "weight", weight, normalized_shape, &shape)?;
    check_affine(OP, "bias", bias, normalized_shape, &shape)?;
    let n: usize = normalized_shape.iter().product();
    let (w, b) = (param_vec(weight), param_vec(bias));
    let mut xhat = x.view().to_contiguous();
    let rows = xhat.size().checked_div(n).unwrap_or(0);
    let mut rstd = vec![T::zero(); rows];
    {
        let data = xhat.as_slice_mut().expect("row-major");
        let eps = T::from_f64(eps);
        let nn = T::from_usize(n);
        let stats: Vec<T> = if n == 0 {
            Vec::new()
        } else {
            data.par_chunks_mut(n)
                .with_min_len((crate::iter::PARALLEL_THRESHOLD / n).max(1))
                .map(|r| {
                    let mean = r.iter().fold(T::zero(), |s, &v| s + v) / nn;
                    let var = r.iter().fold(T::zero(), |s, &v| s + (v - mean) * (v - mean)) / nn;
                    let inv = T::one() / (var + eps).sqrt();
                    r.iter_mut().for_each(|v| *v = (*v - mean) * inv);
                    inv
                })
                .collect()
        };
        rstd.copy_from_slice(&stats);
    }
    let mut y = xhat.clone();
    if w.is_some() || b.is_some() {
        for_rows(y.as_slice_mut().expect("row-major"), n, |_, r| {
            for (j, v) in r.iter_mut().enumerate() {
                let s = w.as_ref().map_or(*v, |w| *v * w[j]);
                *v = b.as_ref().map_or(s, |b| s + b[j]);
            }
        });
    }
    let mut parents = vec![x];
    parents.extend(weight);
    parents.extend(bias);
    let (has_w, has_b) = (weight.is_some(), bias.is_some());
    Ok(Var::from_op(y, "layer_norm", &parents, move |c| {
        let g = c.grad.into_tensor().to_contiguous();
        let gs = g.as_slice().expect("row-major");
        let xs = xhat.as_slice().expect("row-major");
        let wv: Option<Vec<T>> = if has_w { Some(c.inputs[1].to_vec()) } else { None };
        let mut out = Vec::with_capacity(3);
        // dx
        out.push(if c.needs[0] {
            let mut dx = Tensor::<T, IxDyn>::zeros(c.inputs[0].shape().to_vec());
            let nn = T::from_usize(n);
            for_rows(dx.as_slice_mut().expect("row-major"), n, |i, r| {
                let (gr, xr) = (&gs[i * n..(i + 1) * n], &xs[i * n..(i + 1) * n]);
                let dxh = |j: usize| wv.as_ref().map_or(gr[j], |w| gr[j] * w[j]);
                let (mut s1, mut s2) = (T::zero(), T::zero());
                for (j, &xv) in xr.iter().enumerate() {
                    let d = dxh(j);
                    s1 = s1 + d;
                    s2 = s2 + d * xv;
                }
                let (m1, m2) = (s1 / nn, s2 / nn);
                for (j, v) in r.iter_mut().enumerate() {
                    *v = rstd[i] * (dxh(j) - m1 - xr[j] * m2);
                }
            });
            Some(Grad::dense(dx))
        } else {
            None
        });
        // Column sums over the rows for the affine parameters.
        let column_sum = |f: &dyn Fn(usize, usize) -> T| -> Vec<T> {
            let mut acc = vec![T::zero(); n];
            for i in 0..rows {
                for (j, a) in acc.iter_mut().enumerate() {
                    *a = *a + f(i, j);
                }
            }
            acc
        };
        if has_w {
            let idx = 1;
            out.push(if c.needs[idx] {
                let dw = column_sum(&|i, j| gs[i * n + j] * xs[i * n + j]);
                Some(Grad::dense(Tensor::from_vec(dw, c.inputs[idx].shape().to_vec())?))
            } else {
                None
            });
        }
        if has_b {
            let idx = 1 + usize::from(has_w);
            out.push(if c.needs[idx] {
                let db = column_sum(&|i, j| gs[i * n + j]);
                Some(Grad::dense(Tensor::from_vec(db, c.inputs[idx].shape().to_vec())?))
            } else {
                None
            });
        }
        Ok(out)
    }))
}

/// Arguments of [`batch_norm`]: `training` (batch statistics, running statistics
/// updated) or evaluation (running statistics used), the running-average `momentum`
/// and `eps`. `Default` is PyTorch's: training, momentum 0.1, eps 1e-5.
///
/// ```
/// let a = ferrotensor::autograd::BatchNormArgs::default();
/// assert!(a.training);
/// assert_eq!((a.momentum, a.eps), (0.1, 1e-5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchNormArgs {
    /// Normalise with the batch's statistics and update the running ones.
    pub training: bool,
    /// Weight of the batch statistic in the running average.
    pub momentum: f64,
    /// Added to the variance before the square root.
    pub eps: f64,
}

impl Default for BatchNormArgs {
    fn default() -> Self {
        BatchNormArgs {
            training: true,
            momentum: 0.1,
            eps: 1e-5,
        }
    }
}

/// Batch normalisation over axis 1 of `(N, C, …)` (PyTorch's `batch_norm`).
///
/// In training mode the mean and biased variance of each channel over the batch and
/// spatial axes normalise the input, and `running_mean`/`running_var` (when given)
/// become `(1 − momentum)·running + momentum·batch` (the variance unbiased, as
/// PyTorch). In evaluation mode the running statistics normalise (they must be given).
/// `weight` and `bias` have shape `(C,)`. `Err` for fewer than 2 axes, a
/// per-channel tensor of the wrong length, evaluation without running statistics, or
/// training on a single value per channel.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd::{self, BatchNormArgs};
/// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0], [2, 1])?);
/// let (mut rm, mut rv) = (Tensor::<f64, _>::zeros([1]), Tensor::<f64, _>::ones([1]));
/// let args = BatchNormArgs { eps: 0.0, ..Default::default() };
/// let y = autograd::batch_norm(&x, Some(&mut rm), Some(&mut rv), None, None, &args)?;
/// assert_eq!(y.value().to_vec(), vec![-1.0, 1.0]);
/// assert_eq!(rm.to_vec(), vec![0.2]);                   // 0.9·0 + 0.1·2
/// assert!((rv.to_vec()[0] - 1.1).abs() < 1e-12);        // 0.9·1 + 0.1·2 (unbiased)
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn batch_norm<T: Float>(
    x: &Var<T>,
    running_mean: Option<&mut Tensor<T, Ix1>>,
    running_var: Option<&mut Tensor<T, Ix1>>,
    weight: Option<&Var<T>>,
    bias: Option<&Var<T>>,
    args: &BatchNormArgs,
) -> Result<Var<T>> {
    const OP: &str = "batch_norm";
    let shape = x.shape().to_vec();
    if shape.len() < 2 {
        return Err(Error::shape(
            OP,
            format!(
                "expected an input (N, C, ...) with at least 2 axes, got shape {}",
                fmt_shape(&shape)
            ),
        ));
    }
    let (nb, ch) = (shape[0], shape[1]);
    let inner: usize = shape[2..].iter().product();
    let count = nb * inner;
    for (name, len) in [
        ("running_mean", running_mean.as_ref().map(|t| t.shape().to_vec())),
        ("running_var", running_var.as_ref().map(|t| t.shape().to_vec())),
        ("weight", weight.map(|w| w.shape().to_vec())),
        ("bias", bias.map(|b| b.shape().to_vec())),
    ] {
        if let Some(s) = len
            && s != [ch]
        {
            return Err(Error::shape(
                OP,
                format!(
                    "{name} of shape {} does not match the {ch} channels of input {}",
                    fmt_shape(&s),
                    fmt_shape(&shape)
                ),
            ));
        }
    }
    let eps = T::from_f64(args.eps);
    let xc = x.view().to_contiguous();
    let xs = xc.as_slice().expect("row-major");
    // Per-channel sums over the (n, inner) rows of channel c.
    let channel_fold = |f: &(dyn Fn(usize, T) -> T + Sync)| -> Vec<T> {
        (0..ch)
            .into_par_iter()
            .with_min_len((crate::iter::PARALLEL_THRESHOLD / count.max(1)).max(1))
            .map(|c| {
                let mut acc = T::zero();
                for n in 0..nb {
                    let row = &xs[(n * ch + c) * inner..(n * ch + c + 1) * inner];
                    acc = row.iter().fold(acc, |a, &v| a + f(c, v));
                }
                acc
            })
            .collect()
    };
    let (mean, rstd): (Vec<T>, Vec<T>) = if args.training {
        if count <= 1 {
            return Err(Error::value(
                OP,
                format!(
                    "expected more than 1 value per channel when training, got input of shape {}",
                    fmt_shape(&shape)
                ),
            ));
        }
        let cnt = T::from_usize(count);
        let mean: Vec<T> = channel_fold(&|_, v| v).into_iter().map(|s| s / cnt).collect();
        let sq = channel_fold(&|c, v| (v - mean[c]) * (v - mean[c]));
        let m = T::from_f64(args.momentum);
        if let Some(rm) = running_mean {
            let upd = Tensor::from_vec(mean.clone(), [ch])?;
            *rm = &(&*rm * (T::one() - m)) + &(upd * m);
        }
        if let Some(rv) = running_var {
            let unbiased: Vec<T> = sq.iter().map(|&s| s / T::from_usize(count - 1)).collect();
            *rv = &(&*rv * (T::one() - m)) + &(Tensor::from_vec(unbiased, [ch])? * m);
        }
        let rstd = sq.iter().map(|&s| T::one() / (s / cnt + eps).sqrt()).collect();
        (mean, rstd)
    } else {
        let (Some(rm), Some(rv)) = (running_mean, running_var) else {
            return Err(Error::value(
                OP,
                format!(
                    "evaluation mode needs running_mean and running_var (input {})",
                    fmt_shape(&shape)
                ),
            ));
        };
        let rstd = rv.iter().map(|&v| T::one() / (v + eps).sqrt()).collect();
        (rm.to_vec(), rstd)
    };
    let (w, b) = (param_vec(weight), param_vec(bias));
    let mut xhat = xc.clone();
    for_rows(xhat.as_slice_mut().expect("row-major"), inner, |r, row| {
        let c = r % ch;
        row.iter_mut().for_each(|v| *v = (*v - mean[c]) * rstd[c]);
    });
    let mut y = xhat.clone();
    if w.is_some() || b.is_some() {
        for_rows(y.as_slice_mut().expect("row-major"), inner, |r, row| {
            let c = r % ch;
            let (wc, bc) = (
                w.as_ref().map_or(T::one(), |w| w[c]),
                b.as_ref().map_or(T::zero(), |b| b[c]),
            );
            row.iter_mut().for_each(|v| *v = *v * wc + bc);
        });
    }
    let mut parents = vec![x];
    parents.extend(weight);
    parents.extend(bias);
    let (has_w, has_b, training) = (weight.is_some(), bias.is_some(), args.training);
    Ok(Var::from_op(y, "batch_norm", &parents, move |c| {
        let g = c.grad.into_tensor().to_contiguous();
        let gs = g.as_slice().expect("row-major");
        let hs = xhat.as_slice().expect("row-major");
        let wv: Vec<T> = if has_w {
            c.inputs[1].to_vec()
        } else {
            vec![T::one(); ch]
        };
        // Per channel: Σ g and Σ g·x̂.
        let sums: Vec<(T, T)> = (0..ch)
            .into_par_iter()
            .map(|k| {
                let (mut s1, mut s2) = (T::zero(), T::zero());
                for n in 0..nb {
                    let o = (n * ch + k) * inner;
                    for j in o..o + inner {
                        s1 = s1 + gs[j];
                        s2 = s2 + gs[j] * hs[j];
                    }
                }
                (s1, s2)
            })
            .collect();
        let mut out = Vec::with_capacity(3);
        out.push(if c.needs[0] {
            let mut dx = Tensor::<T, IxDyn>::zeros(c.inputs[0].shape().to_vec());
            let cnt = T::from_usize(count);
            for_rows(dx.as_slice_mut().expect("row-major"), inner, |r, row| {
                let k = r % ch;
                let (gr, hr) = (&gs[r * inner..(r + 1) * inner], &hs[r * inner..(r + 1) * inner]);
                let scale = wv[k] * rstd[k];
                if training {
                    let (m1, m2) = (sums[k].0 / cnt, sums[k].1 / cnt);
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = scale * (gr[j] - m1 - hr[j] * m2);
                    }
                } else {
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = scale * gr[j];
                    }
                }
            });
            Some(Grad::dense(dx))
        } else {
            None
        });
        if has_w {
            out.push(if c.needs[1] {
                Some(Grad::dense(Tensor::from_vec(
                    sums.iter().map(|s| s.1).collect(),
                    vec![ch],
                )?))
            } else {
                None
            });
        }
        if has_b {
            let idx = 1 + usize::from(has_w);
            out.push(if c.needs[idx] {
                Some(Grad::dense(Tensor::from_vec(
                    sums.iter().map(|s| s.0).collect(),
                    vec![ch],
                )?))
            } else {
                None
            });
        }
        Ok(out)
    }))
}
