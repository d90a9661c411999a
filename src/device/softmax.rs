//! `softmax` and `log_softmax` along one axis of a device tensor: one fused kernel
//! (maximum, sum of exponentials, write) per row, reading any layout.

use super::element::{DType, DeviceFloat};
use super::launch::{Kernel, Launch, Params};
use super::map::{F16_HELPERS, load_fn, store_fn};
use super::tensor::DeviceTensor;
use super::unary::EXP_F;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::plan::Plan;
use crate::layout::{Dimension, IxDyn, default_strides};

const SOFTMAX: &str = include_str!("kernels/softmax.wgsl");
/// Rows at most this long run one thread per row.
const SHORT: usize = 32;

impl<T: DeviceFloat, D: Dimension> DeviceTensor<T, D> {
    /// Softmax along `axis` (negative counts from the end): `exp(x − max) / Σ exp(x −
    /// max)`, stable for large inputs; a row holding NaN gives NaN (the CPU's
    /// `nn::softmax`). `Err` if the axis is out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![100.0f32, 101.0, 0.0, 0.0], [2, 2]).unwrap().to_device(&dev).unwrap();
    /// let y = g.softmax(-1).unwrap().to_host().unwrap().to_vec();
    /// assert!((y[1] - 0.7310586).abs() < 1e-6 && y[2] == 0.5);
    /// assert!(g.softmax(2).is_err());
    /// ```
    pub fn softmax(&self, axis: isize) -> Result<DeviceTensor<T, D>> {
        run(self, axis, false, "softmax")
    }

    /// Log-softmax along `axis`: `x − max − ln Σ exp(x − max)`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![100.0f32, 101.0], [2]).unwrap().to_device(&dev).unwrap();
    /// let y = g.log_softmax(0).unwrap().to_host().unwrap().to_vec();
    /// assert!((y[1] - (-0.31326169)).abs() < 1e-6);
    /// ```
    pub fn log_softmax(&self, axis: isize) -> Result<DeviceTensor<T, D>> {
        run(self, axis, true, "log_softmax")
    }
}

fn run<T: DeviceFloat, D: Dimension>(
    x: &DeviceTensor<T, D>,
    axis: isize,
    log: bool,
    op: &'static str,
) -> Result<DeviceTensor<T, D>> {
    let ax = crate::layout::transform::normalize_axis(axis, x.ndim(), op)
        .map_err(|e| Error::axis(op, format!("{e} (input shape {})", fmt_shape(x.shape()))))?;
    let dev = x.device();
    let out = DeviceTensor::<T, IxDyn>::alloc(dev, IxDyn::from(x.shape()), op)?;
    if out.size() == 0 {
        return out.into_dim();
    }
    let mut ostr = vec![0isize; x.ndim()];
    default_strides(x.shape(), crate::Order::RowMajor, &mut ostr);
    let l = x.shape()[ax];
    let kept: Vec<usize> = (0..x.ndim()).filter(|&a| a != ax).collect();
    let kshape: Vec<usize> = kept.iter().map(|&a| x.shape()[a]).collect();
    let kin: Vec<isize> = kept.iter().map(|&a| x.strides()[a]).collect();
    let kout: Vec<isize> = kept.iter().map(|&a| ostr[a]).collect();
    let plan = Plan::<2>::new(&kshape, [&kin, &kout], [0, 0], false);
    let mut shape: Vec<usize> = plan.outer.to_vec();
    shape.push(plan.inner_len);
    let strides = |q: usize| {
        let mut s: Vec<isize> = plan.outer_strides[q].to_vec();
        s.push(plan.inner[q]);
        s
    };
    let rows = out.size() / l;
    let mut params = Params::default();
    params
        .u(rows)
        .u(l)
        .u(shape.len())
        .u(x.offset())
        .i(x.strides()[ax])
        .i(ostr[ax])
        .u(log as usize)
        .us(&shape)
        .is(&strides(0))
        .is(&strides(1));
    let f16 = T::DTYPE == DType::F16;
    let thread = l <= SHORT;
    let kernel = Kernel {
        name: "softmax",
        source: SOFTMAX,
        entry: if thread { "main_thread" } else { "main_group" },
        subst: &[
            ("T", T::DTYPE.wgsl()),
            ("LOAD", load_fn(T::DTYPE)),
            ("STORE", store_fn(T::DTYPE)),
            ("HELPERS", if f16 { F16_HELPERS } else { "" }),
            ("EXP", EXP_F),
        ],
        f16,
        reads: 2,
        writes: 1,
    };
    let mut launch = Launch::new(dev, op);
    let groups = if thread { rows.div_ceil(256) } else { rows };
    launch.dispatch(&kernel, &params, &[&x.buffer.raw, &out.buffer.raw], groups)?;
    launch.submit()?;
    out.into_dim()
}
