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
use crate::tensor::{Tensor, TensorView};
use rayon::prelude::*;

#[derive(Clone, Copy)]
struct Geometry {
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    k: [usize; 2],
    s: [usize; 2],
    p: [usize; 2],
}

impl Geometry {
    /// The in-bounds input rows (or columns, `axis` 1) of output position `o`'s window.
    fn taps(&self, axis: usize, o: usize) -> impl Iterator<Item = usize> {
        let limit = if axis == 0 { self.h } else { self.w };
        let start = (o * self.s[axis]) as isize - self.p[axis] as isize;
        (0..self.k[axis] as isize)
            .map(move |i| start + i)
            .filter(move |&i| i >= 0 && (i as usize) < limit)
            .map(|i| i as usize)
    }
}

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

fn geometry(
    x: &TensorView<'_, impl Copy, IxDyn>,
    out: &[usize],
    k: [usize; 2],
    s: [usize; 2],
    p: [usize; 2],
) -> Geometry {
    Geometry {
        h: x.shape()[2],
        w: x.shape()[3],
        oh: out[2],
        ow: out[3],
        k,
        s,
        p,
    }
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
    Ok(Var::from_op(value, "max_pool2d", &[x], move |c| {
        let xv = c.inputs[0].as_standard_layout();
        let xs = xv.as_slice().expect("row-major");
        let g = c.grad.into_tensor();
        let g = if g.is_contiguous() { g } else { g.to_contiguous() };
        let gs = g.as_slice().expect("row-major");
        let geo = geometry(&c.inputs[0], g.shape(), kernel, stride, padding);
        let dx = per_plane(c.inputs[0].shape(), |pi, d| {
            let xp = &xs[pi * geo.h * geo.w..(pi + 1) * geo.h * geo.w];
            let gp = &gs[pi * geo.oh * geo.ow..(pi + 1) * geo.oh * geo.ow];
            for oy in 0..geo.oh {
                for ox in 0..geo.ow {
                    let mut best: Option<(usize, T)> = None;
                    for iy in geo.taps(0, oy) {
                        for ix in geo.taps(1, ox) {
                            let i = iy * geo.w + ix;
                            let v = xp[i];
                            if best.is_none_or(|(_, m)| v > m || v.is_nan()) {
                                best = Some((i, v));
                            }
                        }
                    }
                    if let Some((i, _)) = best {
                        d[i] = d[i] + gp[oy * geo.ow + ox];
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
    Ok(Var::from_op(value, "avg_pool2d", &[x], move |c| {
        let g = c.grad.into_tensor();
        let g = if g.is_contiguous() { g } else { g.to_contiguous() };
        let gs = g.as_slice().expect("row-major");
        let geo = geometry(&c.inputs[0], g.shape(), kernel, stride, padding);
        let inv = T::one() / T::from_usize(kernel[0] * kernel[1]);
        let dx = per_plane(c.inputs[0].shape(), |pi, d| {
            let gp = &gs[pi * geo.oh * geo.ow..(pi + 1) * geo.oh * geo.ow];
            for oy in 0..geo.oh {
                for ox in 0..geo.ow {
                    let share = gp[oy * geo.ow + ox] * inv;
                    for iy in geo.taps(0, oy) {
                        for ix in geo.taps(1, ox) {
                            d[iy * geo.w + ix] = d[iy * geo.w + ix] + share;
                        }
                    }
                }
            }
        })?;
        Ok(vec![Some(Grad::dense(dx))])
    }))
}
