//! `group_norm` and `instance_norm`: per-(sample, group) statistics over `(N, C, …)`.
//!
//! Each group (`C/G` channels × the spatial size, contiguous in row-major order) is one
//! parallel task: two passes over it while it sits in cache for the mean and the
//! centred variance (accumulated in `f64`, so `f32` loses nothing to cancellation), then
//! one fused pass `y = x·scale[c] + shift[c]` with the affine parameters folded into
//! per-channel `scale`/`shift`. The loops are compiled for the CPU's vector width
//! ([`crate::cpu::dispatch`]).

use super::param::{Param, opt_param_vec};
use super::util::{contiguous, native_float, owned_dim, par_tasks};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Group normalisation (PyTorch's `group_norm(x, num_groups, weight, bias, eps)`, eps
/// default `1e-5`): the channels of `(N, C, …)` are split into `num_groups` groups and
/// each group of each sample is normalised by its own mean and biased variance, then
/// scaled by `weight[c]` and shifted by `bias[c]` (1-D of length `C`, optional). `Err`
/// for fewer than 2 axes, `num_groups` 0 or not dividing `C`, or affine vectors of the
/// wrong length.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f64, 3.0, 10.0, 30.0], [1, 2, 2])?;
/// let y = ferrotensor::nn::group_norm(&x, 2, None, None, 0.0)?;
/// assert_eq!(y.to_vec(), vec![-1.0, 1.0, -1.0, 1.0]);
/// assert!(ferrotensor::nn::group_norm(&x, 3, None, None, 1e-5).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn group_norm<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    num_groups: usize,
    weight: Option<&dyn Param<T>>,
    bias: Option<&dyn Param<T>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    const OP: &str = "group_norm";
    let c = channels(OP, x.shape())?;
    if num_groups == 0 || !c.is_multiple_of(num_groups) {
        return Err(Error::shape(
            OP,
            format!(
                "num_groups {num_groups} must be nonzero and divide the {c} channels (input {})",
                fmt_shape(x.shape())
            ),
        ));
    }
    let ctx = format!("input {}", fmt_shape(x.shape()));
    let w = opt_param_vec(OP, "weight", weight, c, &ctx)?;
    let b = opt_param_vec(OP, "bias", bias, c, &ctx)?;
    Ok(normalize(x, num_groups, w, b, eps))
}

/// Instance normalisation (PyTorch's `instance_norm`, eps default `1e-5`): every
/// channel of every sample of `(N, C, …)` normalised by its own statistics
/// (`use_input_stats = true`, PyTorch's default) or by `running_mean[c]` and
/// `running_var[c]` (`use_input_stats = false`, which requires both), then the optional
/// affine `weight[c]`, `bias[c]`. The running statistics are never updated (inference;
/// PyTorch's momentum update in training mode is not done). `Err` for fewer than 2
/// axes, parameters not 1-D of length `C`, or `use_input_stats = false` without running
/// statistics.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 3.0, 10.0, 30.0], [1, 2, 2])?;
/// let w = Tensor::from_vec(vec![1.0f32, 2.0], [2])?;
/// let y = ferrotensor::nn::instance_norm(&x, None, None, Some(&w), None, true, 0.0)?;
/// assert_eq!(y.to_vec(), vec![-1.0, 1.0, -2.0, 2.0]);
/// assert!(ferrotensor::nn::instance_norm(&x, None, None, None, None, false, 0.0).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn instance_norm<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    running_mean: Option<&dyn Param<T>>,
    running_var: Option<&dyn Param<T>>,
    weight: Option<&dyn Param<T>>,
    bias: Option<&dyn Param<T>>,
    use_input_stats: bool,
    eps: f64,
) -> Result<Tensor<T, D>> {
    const OP: &str = "instance_norm";
    let c = channels(OP, x.shape())?;
    let ctx = format!("input {}", fmt_shape(x.shape()));
    let rm = opt_param_vec(OP, "running_mean", running_mean, c, &ctx)?;
    let rv = opt_param_vec(OP, "running_var", running_var, c, &ctx)?;
    let w = opt_param_vec(OP, "weight", weight, c, &ctx)?;
    let b = opt_param_vec(OP, "bias", bias, c, &ctx)?;
    if use_input_stats {
        return Ok(normalize(x, c, w, b, eps));
    }
    let (Some(rm), Some(rv)) = (rm, rv) else {
        return Err(Error::value(
            OP,
            format!("use_input_stats = false needs running_mean and running_var ({ctx})"),
        ));
    };
    let stats: Vec<(f64, f64)> = rm
        .iter()
        .zip(&rv)
        .map(|(m, v)| (Float::to_f64(*m), Float::to_f64(*v)))
        .collect();
    let mut wv = w
        .map(|w| w.iter().map(|v| Float::to_f64(*v)).collect::<Vec<_>>())
        .unwrap_or(vec![1.0; c]);
    let mut bv = b
        .map(|b| b.iter().map(|v| Float::to_f64(*v)).collect::<Vec<_>>())
        .unwrap_or(vec![0.0; c]);
    // Fold the running statistics into the affine vectors: one pass per element.
    for ((w, b), &(m, v)) in wv.iter_mut().zip(bv.iter_mut()).zip(&stats) {
        *w /= (v + eps).sqrt();
        *b -= m * *w;
    }
    let (outer_n, hw) = (x.shape()[0], x.shape()[2..].iter().product::<usize>());
    let data = contiguous(x);
    let out = native_float(
        &data,
        |xs| affine_planes(xs, outer_n * c, hw, &cast(&wv), &cast(&bv)),
        |xs| affine_planes(xs, outer_n * c, hw, &wv, &bv),
    );
    Ok(owned_dim(out, x.shape()))
}

fn cast<E: Float>(v: &[f64]) -> Vec<E> {
    v.iter().map(|&x| E::from_f64(x)).collect()
}

/// The channel count of `(N, C, …)`, or `Err` for fewer than 2 axes.
fn channels(op: &'static str, shape: &[usize]) -> Result<usize> {
    if shape.len() < 2 {
        return Err(Error::shape(
            op,
            format!(
                "expected an input (N, C, ...) with at least 2 axes, got shape {}",
                fmt_shape(shape)
            ),
        ));
    }
    Ok(shape[1])
}

/// `y = x·scale[p % c] + shift[p % c]` over `planes` planes of `hw` elements.
fn affine_planes<E: Float>(x: &[E], planes: usize, hw: usize, scale: &[E], shift: &[E]) -> Vec<E> {
    let mut out = vec![E::zero(); x.len()];
    if hw == 0 {
        return out;
    }
    let c = scale.len();
    for (p, (o, xp)) in out
        .chunks_exact_mut(hw)
        .zip(x.chunks_exact(hw))
        .enumerate()
        .take(planes)
    {
        let (a, b) = (scale[p % c], shift[p % c]);
        for (o, &v) in o.iter_mut().zip(xp) {
            *o = v * a + b;
        }
    }
    out
}

/// Normalises every (sample, group) of `x` by its statistics, then the affine vectors.
fn normalize<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    groups: usize,
    w: Option<Vec<T>>,
    b: Option<Vec<T>>,
    eps: f64,
) -> Tensor<T, D> {
    let shape = x.shape();
    let (n, c) = (shape[0], shape[1]);
    let hw: usize = shape[2..].iter().product();
    let data = contiguous(x);
    let to64 = |v: &Option<Vec<T>>| {
        v.as_ref()
            .map(|v| v.iter().map(|x| Float::to_f64(*x)).collect::<Vec<f64>>())
    };
    let (w, b) = (to64(&w), to64(&b));
    let job = GroupJob {
        n,
        groups,
        cpg: c / groups,
        hw,
        eps,
    };
    let out = native_float(&data, |xs| job.run(xs, &w, &b), |xs| job.run(xs, &w, &b));
    owned_dim(out, shape)
}

struct GroupJob {
    n: usize,
    groups: usize,
    /// Channels per group.
    cpg: usize,
    hw: usize,
    eps: f64,
}

impl GroupJob {
    fn run<E: Float>(&self, x: &[E], w: &Option<Vec<f64>>, b: &Option<Vec<f64>>) -> Vec<E> {
        let glen = self.cpg * self.hw;
        let mut out = vec![E::zero(); x.len()];
        if glen == 0 || x.is_empty() {
            return out;
        }
        let optr = SendPtr(out.as_mut_ptr());
        par_tasks(
            self.n * self.groups,
            || (vec![E::zero(); self.cpg], vec![E::zero(); self.cpg]),
            |(scale, shift), t| {
                let xs = &x[t * glen..(t + 1) * glen];
                // SAFETY: group `t` of `out`, written only by this task.
                let os = unsafe { std::slice::from_raw_parts_mut(optr.get().add(t * glen), glen) };
                let (mean, var) = crate::cpu::dispatch(Stats { x: xs });
                let inv = 1.0 / (var + self.eps).sqrt();
                let c0 = (t % self.groups) * self.cpg;
                for j in 0..self.cpg {
                    let a = inv * w.as_ref().map_or(1.0, |w| w[c0 + j]);
                    scale[j] = E::from_f64(a);
                    shift[j] = E::from_f64(b.as_ref().map_or(0.0, |b| b[c0 + j]) - mean * a);
                }
                crate::cpu::dispatch(Affine {
                    x: xs,
                    out: os,
                    hw: self.hw,
                    scale,
                    shift,
                });
            },
        );
        out
    }
}

/// f64 accumulator lanes (independent, so the sums vectorise).
const LANES: usize = 16;

/// Mean and biased variance of a slice (two passes, `f64` accumulation).
struct Stats<'a, E> {
    x: &'a [E],
}

impl<E: Float> crate::cpu::Kernel for Stats<'_, E> {
    type Out = (f64, f64);
    #[inline(always)]
    fn call(self) -> (f64, f64) {
        let x = self.x;
        let mean = sum_lanes(x, |v| v) / x.len() as f64;
        let var = sum_lanes(x, |v| (v - mean) * (v - mean)) / x.len() as f64;
        (mean, var)
    }
}

/// `Σ f(x_i)` in `f64` over [`LANES`] independent accumulators.
#[inline(always)]
fn sum_lanes<E: Float>(x: &[E], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = x.chunks_exact(LANES);
    let rem = chunks.remainder();
    for ch in chunks {
        for (a, &v) in acc.iter_mut().zip(ch) {
            *a += f(v.to_f64());
        }
    }
    acc.iter().sum::<f64>() + rem.iter().map(|&v| f(v.to_f64())).sum::<f64>()
}

/// `out = x·scale[j] + shift[j]` for the `j`-th plane of `hw` elements.
struct Affine<'a, E> {
    x: &'a [E],
    out: &'a mut [E],
    hw: usize,
    scale: &'a [E],
    shift: &'a [E],
}

impl<E: Float> crate::cpu::Kernel for Affine<'_, E> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        for ((o, xp), (&a, &b)) in self
            .out
            .chunks_exact_mut(self.hw)
            .zip(self.x.chunks_exact(self.hw))
            .zip(self.scale.iter().zip(self.shift))
        {
            for (o, &v) in o.iter_mut().zip(xp) {
                *o = v * a + b;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    /// Group and instance norm on a small batch against the definition, f32 and f64
    /// (small enough for Miri, which runs the portable statistics and affine passes).
    #[test]
    fn group_and_instance_norm_match_the_definition() {
        let (n, c, hw, groups) = (2, 6, 5, 3);
        let data: Vec<f64> = (0..n * c * hw).map(|i| ((i * 37 % 23) as f64 - 11.0) / 4.0).collect();
        let w: Vec<f64> = (0..c).map(|i| 0.5 + i as f64 / 4.0).collect();
        let b: Vec<f64> = (0..c).map(|i| i as f64 - 2.0).collect();
        let naive = |groups: usize| -> Vec<f64> {
            let gl = c / groups * hw;
            let mut out = data.clone();
            for (gi, grp) in out.chunks_mut(gl).enumerate() {
                let mean = grp.iter().sum::<f64>() / gl as f64;
                let var = grp.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / gl as f64;
                for (k, v) in grp.iter_mut().enumerate() {
                    let ch = (gi % groups) * (c / groups) + k / hw;
                    *v = (*v - mean) / (var + 1e-5).sqrt() * w[ch] + b[ch];
                }
            }
            out
        };
        let x = Tensor::from_vec(data.clone(), [n, c, 1, hw]).unwrap();
        let (wt, bt) = (
            Tensor::from_vec(w.clone(), [c]).unwrap(),
            Tensor::from_vec(b.clone(), [c]).unwrap(),
        );
        let y = crate::nn::group_norm(&x, groups, Some(&wt), Some(&bt), 1e-5).unwrap();
        let inst = crate::nn::instance_norm(&x, None, None, Some(&wt), Some(&bt), true, 1e-5).unwrap();
        for (got, want) in [(y.to_vec(), naive(groups)), (inst.to_vec(), naive(c))] {
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-12, "{g} vs {w}");
            }
        }
        let y32 = crate::nn::group_norm(&x.mapv(|v| v as f32), groups, None, None, 1e-5).unwrap();
        let y64 = crate::nn::group_norm(&x, groups, None, None, 1e-5).unwrap();
        for (a, b) in y32.iter().zip(y64.iter()) {
            assert!((f64::from(*a) - b).abs() < 1e-5, "{a} vs {b}");
        }
    }
}
