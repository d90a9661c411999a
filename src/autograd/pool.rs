//! `max_pool2d` and `avg_pool2d` of a [`Var`]: forward with [`nn`], backward by
//! scattering each output's gradient into its window, one `(n, c)` plane per task.
//! Max pooling sends it to the window's first maximum (NaN counts as the maximum), as
//! PyTorch; average pooling spreads it evenly over the `kH·kW` taps (padding included).

use super::grad::Grad;
use super::var::Var;
use crate::element::Float;
use crate::error::Result;
use crate::layout::IxDyn;
use crate::nn;
use crate::nn::{PoolGeom, PoolWindow as Window};
use crate::tensor::Tensor;
use rayon::prelude::*;

/// Runs `f(plane_index, dx_plane)` over the `(n, c)` planes of a new zero gradient
/// shaped like `x`.
fn per_plane<T: Float>(shape: &[usize], f: impl Fn(usize, &mut [T]) + Sync) -> Result<Tensor<T, IxDyn>> {
    let mut dx = Tensor::<T, IxDyn>::zeros(shape.to_vec());
    let plane = shape[2] * shape[3];
    if plane > 0 {
        let data = dx.as_slice_mut().expect("row-major");
        if data.len() >= crate::iter::PARALLEL_THRESHOLD / 4 && crate::threads::num_threads() > 1 {
            data.par_chunks_mut(plane).enumerate().for_each(|(i, d)| f(i, d));
        } else {
            data.chunks_mut(plane).enumerate().for_each(|(i, d)| f(i, d));
        }
    }
    Ok(dx)
}

/// The checked geometry of a floor-mode, undilated pooling of `x`'s shape.
fn geometry(op: &'static str, shape: &[usize], k: [usize; 2], s: [usize; 2], p: [usize; 2]) -> Result<PoolGeom> {
    let window = Window {
        k,
        s,
        p,
        d: [1, 1],
        ceil: false,
    };
    Ok(PoolGeom::check(op, shape, &window)?.1)
}

/// Max pooling (PyTorch's `max_pool2d`, floor mode, as [`nn::max_pool2d`]); the
/// gradient of each output goes to the first maximum of its window. `Err` as
/// [`nn::max_pool2d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::new(Tensor::from_vec(vec![1.0f64, 4.0, 3.0, 2.0], [1, 1, 2, 2])?);
/// let y = autograd::max_pool2d(&x, [2, 2], [2, 2], [0, 0])?;
/// assert_eq!(y.value().to_vec(), vec![4.0]);
/// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![0.0, 1.0, 0.0, 0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn max_pool2d<T: Float>(x: &Var<T>, kernel: [usize; 2], stride: [usize; 2], padding: [usize; 2]) -> Result<Var<T>> {
    let value = nn::max_pool2d(&x.view(), kernel, stride, padding)?.into_dyn();
    let geo = geometry("max_pool2d", x.value().shape(), kernel, stride, padding)?;
    Ok(Var::from_op(value, "max_pool2d", &[x], move |c| {
        let xv = c.inputs[0].as_standard_layout();
        let xs = xv.as_slice().expect("row-major");
        let g = c.grad.into_tensor();
        let g = if g.is_contiguous() { g } else { g.to_contiguous() };
        let gs = g.as_slice().expect("row-major");
        let dx = per_plane(c.inputs[0].shape(), |pi, d| {
            let xp = &xs[pi * geo.in_plane()..(pi + 1) * geo.in_plane()];
            let gp = &gs[pi * geo.out_plane()..(pi + 1) * geo.out_plane()];
            for oy in 0..geo.out[0] {
                for ox in 0..geo.out[1] {
                    let mut best: Option<(usize, T)> = None;
                    for iy in geo.taps(0, oy) {
                        for ix in geo.taps(1, ox) {
                            let i = iy * geo.input[1] + ix;
                            let v = xp[i];
                            if best.is_none_or(|(_, m)| v > m || v.is_nan()) {
                                best = Some((i, v));
                            }
                        }
                    }
                    if let Some((i, _)) = best {
                        d[i] = d[i] + gp[oy * geo.out[1] + ox];
                    }
                }
            }
        })?;
        Ok(vec![Some(Grad::dense(dx))])
    }))
}

/// Average pooling (PyTorch's `avg_pool2d`, floor mode, padded zeros counted, as
/// [`nn::avg_pool2d`]); each output's gradient is spread evenly over its `kH·kW` taps.
/// `Err` as [`nn::avg_pool2d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::new(Tensor::<f64, _>::ones([1, 1, 2, 2]));
/// let y = autograd::avg_pool2d(&x, [2, 2], [2, 2], [0, 0])?;
/// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![0.25; 4]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn avg_pool2d<T: Float>(x: &Var<T>, kernel: [usize; 2], stride: [usize; 2], padding: [usize; 2]) -> Result<Var<T>> {
    let value = nn::avg_pool2d(&x.view(), kernel, stride, padding)?.into_dyn();
    let geo = geometry("avg_pool2d", x.value().shape(), kernel, stride, padding)?;
    Ok(Var::from_op(value, "avg_pool2d", &[x], move |c| {
        let g = c.grad.into_tensor();
        let g = if g.is_contiguous() { g } else { g.to_contiguous() };
        let gs = g.as_slice().expect("row-major");
        let inv = T::one() / T::from_usize(kernel[0] * kernel[1]);
        let dx = per_plane(c.inputs[0].shape(), |pi, d| {
            let gp = &gs[pi * geo.out_plane()..(pi + 1) * geo.out_plane()];
            for oy in 0..geo.out[0] {
                for ox in 0..geo.out[1] {
                    let share = gp[oy * geo.out[1] + ox] * inv;
                    for iy in geo.taps(0, oy) {
                        for ix in geo.taps(1, ox) {
                            d[iy * geo.input[1] + ix] = d[iy * geo.input[1] + ix] + share;
                        }
                    }
                }
            }
        })?;
        Ok(vec![Some(Grad::dense(dx))])
    }))
}
