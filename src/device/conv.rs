//! `conv2d` of device tensors: the CPU's argument checks and output shape, then a
//! direct kernel (one thread per output element) that reads input, weight and bias
//! through their layouts.

use super::element::{DType, DeviceFloat};
use super::launch::{Kernel, Launch, Params};
use super::map::{F16_HELPERS, load_fn, store_fn};
use super::tensor::{DeviceTensor, check_same_device};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix1, Ix4};
use crate::nn::Conv2dArgs;
use crate::nn::util::{check_nonzero, dims, out_len};

const CONV2D: &str = include_str!("kernels/conv2d.wgsl");

/// 2-D convolution of device tensors with the arguments and results of
/// [`nn::conv2d`](crate::nn::conv2d): `input` `(N, C, H, W)`, `weight`
/// `(O, C / groups, kH, kW)`, optional `bias` `(O,)`, output `(N, O, OH, OW)`. `Err`
/// (naming the shapes) for the CPU's bad arguments, or operands on different devices.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::Conv2dArgs;
/// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
/// let x = Tensor::<f32, _>::ones([1, 1, 4, 4]).to_device(&dev).unwrap();
/// let w = Tensor::<f32, _>::ones([2, 1, 3, 3]).to_device(&dev).unwrap();
/// let b = Tensor::from_vec(vec![0.0f32, 100.0], [2]).unwrap().to_device(&dev).unwrap();
/// let args = Conv2dArgs { padding: [1, 1], ..Default::default() };
/// let y = ferrotensor::device::conv2d(&x, &w, Some(&b), &args).unwrap().to_host().unwrap();
/// assert_eq!((y[[0, 0, 0, 0]], y[[0, 1, 1, 1]]), (4.0, 109.0));
/// ```
pub fn conv2d<T: DeviceFloat, D1: Dimension, D2: Dimension>(
    input: &DeviceTensor<T, D1>,
    weight: &DeviceTensor<T, D2>,
    bias: Option<&DeviceTensor<T, Ix1>>,
    args: &Conv2dArgs,
) -> Result<DeviceTensor<T, Ix4>> {
    const OP: &str = "conv2d";
    let shapes = || {
        format!(
            "input {}, weight {}",
            fmt_shape(input.shape()),
            fmt_shape(weight.shape())
        )
    };
    let dev = input.device();
    let mut operands = vec![(input.device(), input.shape()), (weight.device(), weight.shape())];
    if let Some(b) = bias {
        operands.push((b.device(), b.shape()));
    }
    check_same_device(OP, dev, &operands)?;
    let [n, c, h, w] = dims::<4>(input.shape(), OP, "input (N, C, H, W)")?;
    let [o, cw, kh, kw] = dims::<4>(weight.shape(), OP, "weight (O, C / groups, kH, kW)")?;
    check_nonzero(OP, "stride", &args.stride)?;
    check_nonzero(OP, "dilation", &args.dilation)?;
    check_nonzero(OP, "groups", &[args.groups])?;
    let groups = args.groups;
    if c % groups != 0 || o % groups != 0 {
        return Err(Error::shape(
            OP,
            format!(
                "groups = {groups} must divide the input channels {c} and the output channels {o} ({})",
                shapes()
            ),
        ));
    }
    if cw != c / groups {
        return Err(Error::shape(
            OP,
            format!(
                "weight has {cw} input channels but C / groups = {c} / {groups} = {} ({})",
                c / groups,
                shapes()
            ),
        ));
    }
    if let Some(b) = bias
        && b.shape() != [o]
    {
        return Err(Error::shape(
            OP,
            format!(
                "bias of shape {} does not match {o} output channels ({})",
                fmt_shape(b.shape()),
                shapes()
            ),
        ));
    }
    if kh == 0 || kw == 0 {
        return Err(Error::shape(OP, format!("empty kernel ({})", shapes())));
    }
    let oh = out_len(OP, h, kh, args.stride[0], args.padding[0], args.dilation[0], &shapes())?;
    let ow = out_len(OP, w, kw, args.stride[1], args.padding[1], args.dilation[1], &shapes())?;
    let out = DeviceTensor::<T, Ix4>::alloc(dev, [n, o, oh, ow], OP)?;
    let total = out.size();
    if total == 0 {
        return Ok(out);
    }
    let mut params = Params::default();
    params
        .u(total)
        .us(&[n, c, h, w, o, cw, kh, kw, oh, ow])
        .us(&args.stride)
        .us(&args.padding)
        .us(&args.dilation)
        .u(o / groups)
        .u(bias.is_some() as usize)
        .u(input.offset())
        .is(input.strides())
        .u(weight.offset())
        .is(weight.strides())
        .u(bias.map_or(0, |b| b.offset()))
        .i(bias.map_or(0, |b| b.strides()[0]));
    let f16 = T::DTYPE == DType::F16;
    let kernel = Kernel {
        name: "conv2d",
        source: CONV2D,
        entry: "main",
        subst: &[
            ("T", T::DTYPE.wgsl()),
            ("LOAD", load_fn(T::DTYPE)),
            ("STORE", store_fn(T::DTYPE)),
            ("HELPERS", if f16 { F16_HELPERS } else { "" }),
        ],
        f16,
        reads: 4,
        writes: 1,
    };
    // Without a bias the input stands in for the unused binding.
    let b = bias.map_or(&input.buffer.raw, |b| &b.buffer.raw);
    let mut launch = Launch::new(dev, OP);
    launch.dispatch(
        &kernel,
        &params,
        &[&input.buffer.raw, &weight.buffer.raw, b, &out.buffer.raw],
        total.div_ceil(256),
    )?;
    launch.submit()?;
    Ok(out)
}
