//! Pooling over NCHW tensors: `max_pool2d`, `avg_pool2d`, `adaptive_avg_pool2d`.
//!
//! Each `(n, c)` plane is a task; each output row is built from whole input row
//! segments (one strided pass per kernel tap), not one window at a time.

use super::util::{
    check_nonzero, contiguous, dims, from_f32, is_native, out_len, owned, par_tasks, to_f32, valid_range,
};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::{Dimension, Ix4};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Max,
    Avg,
}

/// Max pooling (PyTorch's `max_pool2d`, floor mode): each output is the maximum of a
/// `kernel` window moved by `stride` over the input padded with −∞ by `padding`.
/// NaN propagates. `Err` for a non-4-D input, a zero kernel or stride, padding greater
/// than half the kernel, or a kernel larger than the padded input.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 2., 3., 4., 2., 3., 4., 5., 3., 4., 5., 6., 4., 5., 6., 7.], [1, 1, 4, 4])?;
/// let y = ferrotensor::nn::max_pool2d(&x, [2, 2], [2, 2], [0, 0])?;
/// assert_eq!(y.to_vec(), vec![3.0, 5.0, 5.0, 7.0]);
/// assert!(ferrotensor::nn::max_pool2d(&x, [2, 2], [2, 2], [2, 0]).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn max_pool2d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
) -> Result<Tensor<T, Ix4>> {
    pool(x, kernel, stride, padding, Kind::Max, "max_pool2d")
}

/// Average pooling (PyTorch's `avg_pool2d`, floor mode, `count_include_pad=True`): each
/// output is the sum of a `kernel` window over the zero-padded input divided by
/// `kH·kW`. `Err` as [`max_pool2d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::<f64, _>::ones([1, 1, 2, 2]);
/// let y = ferrotensor::nn::avg_pool2d(&x, [2, 2], [1, 1], [1, 1])?;
/// assert_eq!(y.to_vec(), vec![0.25, 0.5, 0.25, 0.5, 1.0, 0.5, 0.25, 0.5, 0.25]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn avg_pool2d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
) -> Result<Tensor<T, Ix4>> {
    pool(x, kernel, stride, padding, Kind::Avg, "avg_pool2d")
}

fn pool<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    k: [usize; 2],
    s: [usize; 2],
    p: [usize; 2],
    kind: Kind,
    op: &'static str,
) -> Result<Tensor<T, Ix4>> {
    let [n, c, h, w] = dims::<4>(x.shape(), op, "input (N, C, H, W)")?;
    check_nonzero(op, "kernel size", &k)?;
    check_nonzero(op, "stride", &s)?;
    if p[0] > k[0] / 2 || p[1] > k[1] / 2 {
        return Err(Error::value(
            op,
            format!(
                "padding {p:?} must be at most half the kernel size {k:?} (input {})",
                fmt_shape(x.shape())
            ),
        ));
    }
    let shapes = format!("input {}, kernel {k:?}", fmt_shape(x.shape()));
    let oh = out_len(op, h, k[0], s[0], p[0], 1, &shapes)?;
    let ow = out_len(op, w, k[1], s[1], p[1], 1, &shapes)?;
    let data = contiguous(x);
    let g = PoolGeom { h, w, oh, ow, k, s, p };
    let out = if kind == Kind::Max || is_native::<T>() {
        pool_core(&data, n * c, &g, kind)
    } else {
        from_f32(&pool_core(&to_f32(&data), n * c, &g, kind))
    };
    Ok(owned(out, [n, c, oh, ow]))
}

struct PoolGeom {
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    k: [usize; 2],
    s: [usize; 2],
    p: [usize; 2],
}

fn pool_core<T: Float>(x: &[T], planes: usize, g: &PoolGeom, kind: Kind) -> Vec<T> {
    let (hw, ohw) = (g.h * g.w, g.oh * g.ow);
    let mut out = vec![T::zero(); planes * ohw];
    let optr = SendPtr(out.as_mut_ptr());
    let init = if kind == Kind::Max {
        T::neg_infinity()
    } else {
        T::zero()
    };
    let inv = T::one() / T::from_usize(g.k[0] * g.k[1]);
    // Valid output columns per kernel column: iw = ow·s − p + kj ∈ [0, W).
    let cols: Vec<(usize, usize)> = (0..g.k[1])
        .map(|kj| valid_range(kj as isize - g.p[1] as isize, g.s[1], g.w, g.ow))
        .collect();
    par_tasks(
        planes,
        || (),
        |_, pl| {
            let xp = &x[pl * hw..(pl + 1) * hw];
            // SAFETY: plane `pl` of `out`, written only by this task.
            let op = unsafe { std::slice::from_raw_parts_mut(optr.get().add(pl * ohw), ohw) };
            for (oh, orow) in op.chunks_exact_mut(g.ow).enumerate() {
                orow.fill(init);
                for ki in 0..g.k[0] {
                    let ih = (oh * g.s[0] + ki) as isize - g.p[0] as isize;
                    if ih < 0 || ih >= g.h as isize {
                        continue;
                    }
                    let xrow = &xp[ih as usize * g.w..(ih as usize + 1) * g.w];
                    for (kj, &(lo, hi)) in cols.iter().enumerate() {
                        if lo >= hi {
                            continue;
                        }
                        let first = lo * g.s[1] + kj - g.p[1];
                        let src = xrow[first..].iter().step_by(g.s[1]);
                        let dst = &mut orow[lo..hi];
                        match kind {
                            Kind::Max => {
                                for (o, &v) in dst.iter_mut().zip(src) {
                                    if v > *o || v.is_nan() {
                                        *o = v;
                                    }
                                }
                            }
                            Kind::Avg => {
                                for (o, &v) in dst.iter_mut().zip(src) {
                                    *o = *o + v;
                                }
                            }
                        }
                    }
                }
                if kind == Kind::Avg {
                    orow.iter_mut().for_each(|o| *o = *o * inv);
                }
            }
        },
    );
    out
}

/// Adaptive average pooling (PyTorch's `adaptive_avg_pool2d`): output cell `(i, j)`
/// averages input rows `floor(i·H/OH) .. ceil((i+1)·H/OH)` and the columns likewise.
/// `Err` for a non-4-D input or an empty input plane with a nonempty output.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec((1..=9).map(|v| v as f32).collect(), [1, 1, 3, 3])?;
/// let y = ferrotensor::nn::adaptive_avg_pool2d(&x, [2, 2])?;
/// assert_eq!(y.to_vec(), vec![3.0, 4.0, 6.0, 7.0]);
/// let g = ferrotensor::nn::adaptive_avg_pool2d(&x, [1, 1])?;
/// assert_eq!(g.to_vec(), vec![5.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn adaptive_avg_pool2d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    output_size: [usize; 2],
) -> Result<Tensor<T, Ix4>> {
    const OP: &str = "adaptive_avg_pool2d";
    let [n, c, h, w] = dims::<4>(x.shape(), OP, "input (N, C, H, W)")?;
    let [oh, ow] = output_size;
    if (h == 0 || w == 0) && oh * ow > 0 {
        return Err(Error::shape(
            OP,
            format!(
                "empty input plane {} for output size {output_size:?}",
                fmt_shape(x.shape())
            ),
        ));
    }
    let data = contiguous(x);
    let xs: Vec<f64> = data.iter().map(|&v| Float::to_f64(v)).collect();
    let ranges = |o: usize, len: usize| -> Vec<(usize, usize)> {
        (0..o).map(|i| (i * len / o, ((i + 1) * len).div_ceil(o))).collect()
    };
    let (rr, cr) = (ranges(oh, h), ranges(ow, w));
    let mut out = vec![T::zero(); n * c * oh * ow];
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        n * c,
        || (),
        |_, pl| {
            let xp = &xs[pl * h * w..(pl + 1) * h * w];
            // SAFETY: plane `pl` of `out`, written only by this task.
            let op = unsafe { std::slice::from_raw_parts_mut(optr.get().add(pl * oh * ow), oh * ow) };
            for (i, &(r0, r1)) in rr.iter().enumerate() {
                for (j, &(c0, c1)) in cr.iter().enumerate() {
                    let sum: f64 = (r0..r1).map(|r| xp[r * w + c0..r * w + c1].iter().sum::<f64>()).sum();
                    op[i * ow + j] = T::from_f64(sum / ((r1 - r0) * (c1 - c0)) as f64);
                }
            }
        },
    );
    Ok(owned(out, [n, c, oh, ow]))
}
