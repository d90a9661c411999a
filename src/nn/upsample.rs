//! Resizing NCHW tensors: `upsample_nearest2d` and `upsample_bilinear2d` with PyTorch's
//! index rules (`F.interpolate`), for a target size or (fractional) scale factors.
//!
//! Source coordinates are computed in the element type (`f32` for `f32`, `f16` and
//! `bf16`; `f64` for `f64`), as PyTorch's CPU kernels compute them in `opmath_t`.

use super::util::{cast_slice, cast_vec, contiguous, dims, from_f32, owned_dim, par_tasks, to_f32};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// The target of a resize: an explicit output size `[OH, OW]`, or scale factors
/// `[sh, sw]` giving `OH = floor(H·sh)` and mapping output to input with `1 / s`
/// (PyTorch's `scale_factor` with `recompute_scale_factor=None`).
///
/// ```
/// use ferrotensor::nn::Resize;
/// assert_eq!(Resize::from([4usize, 6]), Resize::Size([4, 6]));
/// assert_eq!(Resize::from([1.5, 2.0]), Resize::Scale([1.5, 2.0]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Resize {
    /// Output height and width.
    Size([usize; 2]),
    /// Scale factors for height and width.
    Scale([f64; 2]),
}

impl From<[usize; 2]> for Resize {
    fn from(s: [usize; 2]) -> Self {
        Resize::Size(s)
    }
}
impl From<[f64; 2]> for Resize {
    fn from(s: [f64; 2]) -> Self {
        Resize::Scale(s)
    }
}

/// Nearest-neighbour upsampling (PyTorch's `mode='nearest'`): output index `i` reads
/// input index `min(floor(i·scale), in − 1)` with `scale = in / out` (or `1 / factor`).
/// `Err` for a non-4-D input, an empty input or output, or a non-positive scale.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], [1, 1, 2, 2])?;
/// let y = ferrotensor::nn::upsample_nearest2d(&x, [2.0, 1.5])?;
/// assert_eq!(y.shape(), &[1, 1, 4, 3]);
/// assert_eq!(y.to_vec(), vec![1., 1., 2., 1., 1., 2., 3., 3., 4., 3., 3., 4.]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn upsample_nearest2d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    size: impl Into<Resize>,
) -> Result<Tensor<T, D>> {
    run(x, size.into(), None, "upsample_nearest2d")
}

/// Bilinear upsampling (PyTorch's `mode='bilinear'`). With `align_corners` the corner
/// pixels of input and output coincide (`src = i·(in − 1)/(out − 1)`); without, pixel
/// centres are aligned (`src = max((i + ½)·scale − ½, 0)`, `scale = in / out` or
/// `1 / factor`). `Err` as [`upsample_nearest2d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![0.0f64, 1.0, 2.0, 3.0], [1, 1, 2, 2])?;
/// let y = ferrotensor::nn::upsample_bilinear2d(&x, [3usize, 3], true)?;
/// assert_eq!(y.to_vec(), vec![0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.5, 3.0]);
/// let z = ferrotensor::nn::upsample_bilinear2d(&x, [4usize, 4], false)?;
/// assert_eq!(z.to_vec()[..4].to_vec(), vec![0.0, 0.25, 0.75, 1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn upsample_bilinear2d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    size: impl Into<Resize>,
    align_corners: bool,
) -> Result<Tensor<T, D>> {
    run(x, size.into(), Some(align_corners), "upsample_bilinear2d")
}

fn run<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    size: Resize,
    bilinear: Option<bool>,
    op: &'static str,
) -> Result<Tensor<T, D>> {
    let [n, c, h, w] = dims::<4>(x.shape(), op, "input (N, C, H, W)")?;
    let (out, scales) = resolve(size, x.shape(), op)?;
    let data = contiguous(x);
    let job = Job {
        planes: n * c,
        inp: [h, w],
        out,
        scales,
        bilinear,
    };
    let res: Vec<T> = if let Some(xs) = cast_slice::<T, f64>(&data) {
        cast_vec(job.run(xs)).unwrap_or_else(|_| unreachable!())
    } else if let Some(xs) = cast_slice::<T, f32>(&data) {
        cast_vec(job.run(xs)).unwrap_or_else(|_| unreachable!())
    } else {
        from_f32(&job.run(&to_f32(&data)))
    };
    Ok(owned_dim(res, &[n, c, out[0], out[1]]))
}

/// The output size and the scale factors (when given) of a resize of a 4-D input, or
/// `Err` for a non-positive scale or an empty input or output.
pub(super) fn resolve(size: Resize, shape: &[usize], op: &'static str) -> Result<([usize; 2], [Option<f64>; 2])> {
    let (h, w) = (shape[2], shape[3]);
    let (out, scales) = match size {
        Resize::Size(s) => (s, [None, None]),
        Resize::Scale(f) => {
            if !f.iter().all(|v| v.is_finite() && *v > 0.0) {
                return Err(Error::value(
                    op,
                    format!(
                        "scale factors must be positive and finite, got {f:?} (input {})",
                        fmt_shape(shape)
                    ),
                ));
            }
            (
                [(h as f64 * f[0]).floor() as usize, (w as f64 * f[1]).floor() as usize],
                [Some(f[0]), Some(f[1])],
            )
        }
    };
    if h == 0 || w == 0 || out.contains(&0) {
        return Err(Error::shape(
            op,
            format!("input {} and output size {out:?} must be nonempty", fmt_shape(shape)),
        ));
    }
    Ok((out, scales))
}

struct Job {
    planes: usize,
    inp: [usize; 2],
    out: [usize; 2],
    scales: [Option<f64>; 2],
    bilinear: Option<bool>,
}

/// PyTorch's `compute_scales_value`: `1 / factor` if given, else `in / out`.
pub(super) fn scale_value<E: Float>(factor: Option<f64>, inp: usize, out: usize) -> E {
    match factor {
        Some(f) => E::from_f64(1.0 / f),
        None => E::from_usize(inp) / E::from_usize(out),
    }
}

/// Nearest source index per output index (PyTorch's `nearest_idx`).
fn nearest<E: Float>(inp: usize, out: usize, factor: Option<f64>) -> Vec<usize> {
    (0..out)
        .map(|i| {
            if out == inp {
                i
            } else if out == 2 * inp {
                i >> 1
            } else {
                let s: E = scale_value(factor, inp, out);
                ((E::from_usize(i) * s).floor().to_f64() as usize).min(inp - 1)
            }
        })
        .collect()
}

/// Linear source indices and weights per output index (PyTorch's
/// `compute_indices_weights_linear`): `(i0, i1, λ0, λ1)`.
fn linear<E: Float>(inp: usize, out: usize, factor: Option<f64>, align: bool) -> Vec<(usize, usize, E, E)> {
    let scale: E = if align {
        if out > 1 {
            E::from_usize(inp - 1) / E::from_usize(out - 1)
        } else {
            E::zero()
        }
    } else {
        scale_value(factor, inp, out)
    };
    let half = E::from_f64(0.5);
    (0..out)
        .map(|i| {
            let src = if align {
                scale * E::from_usize(i)
            } else {
                let s = scale * (E::from_usize(i) + half) - half;
                if s < E::zero() { E::zero() } else { s }
            };
            let i0 = (src.to_f64() as usize).min(inp - 1);
            let l1 = (src - E::from_usize(i0)).max(E::zero()).min(E::one());
            let i1 = if i0 < inp - 1 { i0 + 1 } else { i0 };
            (i0, i1, E::one() - l1, l1)
        })
        .collect()
}

impl Job {
    fn run<E: Float>(&self, x: &[E]) -> Vec<E> {
        let ([h, w], [oh, ow]) = (self.inp, self.out);
        let mut out = vec![E::zero(); self.planes * oh * ow];
        let optr = SendPtr(out.as_mut_ptr());
        match self.bilinear {
            None => {
                let (ri, ci) = (nearest::<E>(h, oh, self.scales[0]), nearest::<E>(w, ow, self.scales[1]));
                par_tasks(
                    self.planes,
                    || (),
                    |_, p| {
                        let xp = &x[p * h * w..(p + 1) * h * w];
                        // SAFETY: plane `p` of `out`, written only by this task.
                        let op = unsafe { std::slice::from_raw_parts_mut(optr.get().add(p * oh * ow), oh * ow) };
                        for (orow, &r) in op.chunks_exact_mut(ow).zip(&ri) {
                            let xr = &xp[r * w..(r + 1) * w];
                            for (o, &c) in orow.iter_mut().zip(&ci) {
                                *o = xr[c];
                            }
                        }
                    },
                );
            }
            Some(align) => {
                let rl = linear::<E>(h, oh, self.scales[0], align);
                let cl = linear::<E>(w, ow, self.scales[1], align);
                par_tasks(
                    self.planes,
                    || vec![E::zero(); 2 * ow],
                    |tmp, p| {
                        let xp = &x[p * h * w..(p + 1) * h * w];
                        // SAFETY: plane `p` of `out`, written only by this task.
                        let op = unsafe { std::slice::from_raw_parts_mut(optr.get().add(p * oh * ow), oh * ow) };
                        let (t0, t1) = tmp.split_at_mut(ow);
                        for (orow, &(r0, r1, a0, a1)) in op.chunks_exact_mut(ow).zip(&rl) {
                            let (x0, x1) = (&xp[r0 * w..(r0 + 1) * w], &xp[r1 * w..(r1 + 1) * w]);
                            for (j, &(c0, c1, b0, b1)) in cl.iter().enumerate() {
                                t0[j] = b0 * x0[c0] + b1 * x0[c1];
                                t1[j] = b0 * x1[c0] + b1 * x1[c1];
                            }
                            for ((o, &u), &v) in orow.iter_mut().zip(t0.iter()).zip(t1.iter()) {
                                *o = a0 * u + a1 * v;
                            }
                        }
                    },
                );
            }
        }
        out
    }
}
