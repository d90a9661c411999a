//! Max and average pooling over NCHW tensors (PyTorch's `max_pool2d`, `avg_pool2d`):
//! the argument structs, the output-size rule and the public functions. The kernels are
//! in [`super::pool_kernel`] (vectorised, parallel over `N·C` planes), the returned
//! indices and `max_unpool2d` in [`super::pool_indices`].

use super::pool_geom::{PoolGeom, Window};
use super::pool_kernel::{Reduce, pool_planes};
use super::util::{contiguous, owned_dim};
use crate::element::Float;
use crate::error::{Error, Result};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Arguments of [`max_pool2d_with`] and [`super::max_pool2d_with_indices`] (PyTorch's
/// `max_pool2d` keywords), each `[rows, cols]`. [`MaxPool2dArgs::new`] gives PyTorch's
/// defaults: stride = kernel, padding 0, dilation 1, floor mode.
///
/// ```
/// let a = ferrotensor::nn::MaxPool2dArgs { ceil_mode: true, ..ferrotensor::nn::MaxPool2dArgs::new([3, 3]) };
/// assert_eq!((a.stride, a.padding, a.dilation), ([3, 3], [0, 0], [1, 1]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxPool2dArgs {
    /// Window size.
    pub kernel: [usize; 2],
    /// Step between windows.
    pub stride: [usize; 2],
    /// Implicit −∞ added on both sides (at most half the kernel).
    pub padding: [usize; 2],
    /// Spacing between the window's taps.
    pub dilation: [usize; 2],
    /// Round the output size up (windows may start in the right padding's place as long
    /// as they start inside the input or the left padding).
    pub ceil_mode: bool,
}

impl MaxPool2dArgs {
    /// PyTorch's defaults for `kernel`: stride = kernel, padding 0, dilation 1, floor.
    pub fn new(kernel: [usize; 2]) -> Self {
        MaxPool2dArgs {
            kernel,
            stride: kernel,
            padding: [0, 0],
            dilation: [1, 1],
            ceil_mode: false,
        }
    }
}

/// Arguments of [`avg_pool2d_with`] (PyTorch's `avg_pool2d` keywords).
/// [`AvgPool2dArgs::new`] gives PyTorch's defaults: stride = kernel, padding 0, floor
/// mode, padded zeros counted, no divisor override.
///
/// ```
/// let a = ferrotensor::nn::AvgPool2dArgs { count_include_pad: false, ..ferrotensor::nn::AvgPool2dArgs::new([2, 2]) };
/// assert_eq!(a.stride, [2, 2]);
/// assert_eq!(a.divisor_override, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AvgPool2dArgs {
    /// Window size.
    pub kernel: [usize; 2],
    /// Step between windows.
    pub stride: [usize; 2],
    /// Implicit zeros added on both sides (at most half the kernel).
    pub padding: [usize; 2],
    /// Round the output size up (as [`MaxPool2dArgs::ceil_mode`]).
    pub ceil_mode: bool,
    /// Divide by the window's size including the padding (`true`, PyTorch's default)
    /// or by the number of input elements in it.
    pub count_include_pad: bool,
    /// Divide every window by this instead.
    pub divisor_override: Option<usize>,
}

impl AvgPool2dArgs {
    /// PyTorch's defaults for `kernel`.
    pub fn new(kernel: [usize; 2]) -> Self {
        AvgPool2dArgs {
            kernel,
            stride: kernel,
            padding: [0, 0],
            ceil_mode: false,
            count_include_pad: true,
            divisor_override: None,
        }
    }
}

impl MaxPool2dArgs {
    /// The window as the shared geometry check takes it.
    pub(crate) fn window(&self) -> Window<2> {
        Window {
            k: self.kernel,
            s: self.stride,
            p: self.padding,
            d: self.dilation,
            ceil: self.ceil_mode,
        }
    }
}

/// Max pooling (PyTorch's `max_pool2d`, floor mode, dilation 1): each output is the
/// maximum of a `kernel` window moved by `stride` over the input padded with −∞ by
/// `padding`. NaN propagates. The result has the input's rank type. `Err` for a non-4-D
/// input, a zero kernel or stride, padding greater than half the kernel, or a kernel
/// larger than the padded input. [`max_pool2d_with`] takes dilation and ceil mode.
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
) -> Result<Tensor<T, D>> {
    let args = MaxPool2dArgs {
        stride,
        padding,
        ..MaxPool2dArgs::new(kernel)
    };
    pool("max_pool2d", x, &args.window(), Reduce::Max)
}

/// Max pooling with all of PyTorch's options ([`MaxPool2dArgs`]: dilation, ceil mode).
/// `Err` as [`max_pool2d`], also for a zero dilation.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{max_pool2d_with, MaxPool2dArgs};
/// let x = Tensor::from_vec((0..25).map(|v| v as f32).collect(), [1, 1, 5, 5])?;
/// // Ceil mode: a last, partial window per axis (3 outputs instead of 2).
/// let y = max_pool2d_with(&x, &MaxPool2dArgs { ceil_mode: true, ..MaxPool2dArgs::new([2, 2]) })?;
/// assert_eq!(y.to_vec(), vec![6., 8., 9., 16., 18., 19., 21., 23., 24.]);
/// // Dilation 2: taps two apart.
/// let z = max_pool2d_with(&x, &MaxPool2dArgs { dilation: [2, 2], stride: [1, 1], ..MaxPool2dArgs::new([2, 2]) })?;
/// assert_eq!(z.shape(), &[1, 1, 3, 3]);
/// assert_eq!(z[[0, 0, 0, 0]], 12.0);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn max_pool2d_with<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &MaxPool2dArgs,
) -> Result<Tensor<T, D>> {
    pool("max_pool2d", x, &args.window(), Reduce::Max)
}

/// Pools `x` `(N, C, H, W)` over `window` with `reduce`, as a new tensor of `x`'s rank type.
fn pool<T: Float, S: Storage<Elem = T>, D: Dimension>(
    op: &'static str,
    x: &TensorBase<S, D>,
    window: &Window<2>,
    reduce: Reduce,
) -> Result<Tensor<T, D>> {
    let (planes, g) = PoolGeom::check(op, x.shape(), window)?;
    if let Reduce::Avg { divisor: Some(0), .. } = reduce {
        return Err(Error::value(op, "divisor_override must be nonzero"));
    }
    let data = contiguous(x);
    let out = pool_planes(&data, planes, &g, reduce);
    Ok(owned_dim(out, &[x.shape()[0], x.shape()[1], g.out[0], g.out[1]]))
}

/// Average pooling (PyTorch's `avg_pool2d`, floor mode, `count_include_pad=True`): each
/// output is the sum of a `kernel` window over the zero-padded input divided by
/// `kH·kW`. The result has the input's rank type. `Err` as [`max_pool2d`].
/// [`avg_pool2d_with`] takes ceil mode, `count_include_pad` and a divisor override.
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
) -> Result<Tensor<T, D>> {
    let args = AvgPool2dArgs {
        stride,
        padding,
        ..AvgPool2dArgs::new(kernel)
    };
    avg_pool("avg_pool2d", x, &args)
}

/// Average pooling with all of PyTorch's options ([`AvgPool2dArgs`]). A window is
/// divided by `divisor_override` if given, else by its size clipped to the padded input
/// (`count_include_pad`) or by the number of input elements in it. `Err` as
/// [`max_pool2d`], also for a zero divisor override.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{avg_pool2d_with, AvgPool2dArgs};
/// let x = Tensor::<f32, _>::ones([1, 1, 2, 2]);
/// let a = AvgPool2dArgs { stride: [1, 1], padding: [1, 1], count_include_pad: false, ..AvgPool2dArgs::new([2, 2]) };
/// assert_eq!(avg_pool2d_with(&x, &a)?.to_vec(), vec![1.0; 9]);
/// let s = AvgPool2dArgs { divisor_override: Some(1), ..AvgPool2dArgs::new([2, 2]) };
/// assert_eq!(avg_pool2d_with(&x, &s)?.to_vec(), vec![4.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn avg_pool2d_with<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &AvgPool2dArgs,
) -> Result<Tensor<T, D>> {
    avg_pool("avg_pool2d", x, args)
}

fn avg_pool<T: Float, S: Storage<Elem = T>, D: Dimension>(
    op: &'static str,
    x: &TensorBase<S, D>,
    a: &AvgPool2dArgs,
) -> Result<Tensor<T, D>> {
    pool(op, x, &a.window(), a.reduce())
}

impl AvgPool2dArgs {
    /// The window as the shared geometry check takes it.
    pub(crate) fn window(&self) -> Window<2> {
        Window {
            k: self.kernel,
            s: self.stride,
            p: self.padding,
            d: [1, 1],
            ceil: self.ceil_mode,
        }
    }

    /// The reduction the kernels run.
    pub(crate) fn reduce(&self) -> Reduce {
        Reduce::Avg {
            count_include_pad: self.count_include_pad,
            divisor: self.divisor_override,
        }
    }
}
