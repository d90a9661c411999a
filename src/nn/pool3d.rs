//! 3-D max and average pooling over `(N, C, D, H, W)` tensors (PyTorch's `max_pool3d`,
//! `avg_pool3d`): without indices by the depth-then-plane kernel of
//! [`super::pool3d_kernel`], with indices by the window kernel of [`super::pool_nd`].

use super::pool_geom::{PoolGeom, Window};
use super::pool_kernel::Reduce;
use super::pool_nd::Taps;
use super::pool_rows::max_with_indices;
use super::pool3d_kernel::pool3d_planes;
use super::util::{contiguous, owned_dim};
use crate::element::Float;
use crate::error::{Error, Result};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Arguments of [`max_pool3d`] and [`max_pool3d_with_indices`] (PyTorch's `max_pool3d`
/// keywords), each `[depth, rows, cols]`. [`MaxPool3dArgs::new`] gives PyTorch's
/// defaults: stride = kernel, padding 0, dilation 1, floor mode.
///
/// ```
/// let a = ferrotensor::nn::MaxPool3dArgs { ceil_mode: true, ..ferrotensor::nn::MaxPool3dArgs::new([2, 2, 2]) };
/// assert_eq!((a.stride, a.padding, a.dilation), ([2, 2, 2], [0, 0, 0], [1, 1, 1]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxPool3dArgs {
    /// Window size.
    pub kernel: [usize; 3],
    /// Step between windows.
    pub stride: [usize; 3],
    /// Implicit −∞ added on both sides (at most half the kernel).
    pub padding: [usize; 3],
    /// Spacing between the window's taps.
    pub dilation: [usize; 3],
    /// Round the output size up (the last window must start inside the input or the
    /// left padding).
    pub ceil_mode: bool,
}

impl MaxPool3dArgs {
    /// PyTorch's defaults for `kernel`: stride = kernel, padding 0, dilation 1, floor.
    pub fn new(kernel: [usize; 3]) -> Self {
        MaxPool3dArgs {
            kernel,
            stride: kernel,
            padding: [0; 3],
            dilation: [1; 3],
            ceil_mode: false,
        }
    }

    /// The window as the shared geometry check takes it.
    fn window(&self) -> Window<3> {
        Window {
            k: self.kernel,
            s: self.stride,
            p: self.padding,
            d: self.dilation,
            ceil: self.ceil_mode,
        }
    }
}

/// Arguments of [`avg_pool3d`] (PyTorch's `avg_pool3d` keywords), each
/// `[depth, rows, cols]`. [`AvgPool3dArgs::new`] gives PyTorch's defaults: stride =
/// kernel, padding 0, floor mode, padded zeros counted, no divisor override.
///
/// ```
/// let a = ferrotensor::nn::AvgPool3dArgs { divisor_override: Some(4), ..ferrotensor::nn::AvgPool3dArgs::new([2, 2, 2]) };
/// assert!(a.count_include_pad);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AvgPool3dArgs {
    /// Window size.
    pub kernel: [usize; 3],
    /// Step between windows.
    pub stride: [usize; 3],
    /// Implicit zeros added on both sides (at most half the kernel).
    pub padding: [usize; 3],
    /// Round the output size up (as [`MaxPool3dArgs::ceil_mode`]).
    pub ceil_mode: bool,
    /// Divide by the window's size including the padding (`true`, PyTorch's default)
    /// or by the number of input elements in it.
    pub count_include_pad: bool,
    /// Divide every window by this instead.
    pub divisor_override: Option<usize>,
}

impl AvgPool3dArgs {
    /// PyTorch's defaults for `kernel`.
    pub fn new(kernel: [usize; 3]) -> Self {
        AvgPool3dArgs {
            kernel,
            stride: kernel,
            padding: [0; 3],
            ceil_mode: false,
            count_include_pad: true,
            divisor_override: None,
        }
    }
}

fn out_shape(x: &[usize], g: &PoolGeom<3>) -> [usize; 5] {
    [x[0], x[1], g.out[0], g.out[1], g.out[2]]
}

/// 3-D max pooling (PyTorch's `max_pool3d`) of `x` `(N, C, D, H, W)` with all of
/// PyTorch's options; NaN propagates. The result has the input's rank type. `Err`
/// (naming the shapes) for a non-5-D input, a zero kernel, stride or dilation, padding
/// greater than half the kernel, or a kernel larger than the padded input.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{max_pool3d, MaxPool3dArgs};
/// let x = Tensor::from_vec((0..8).map(|v| v as f32).collect(), [1, 1, 2, 2, 2])?;
/// assert_eq!(max_pool3d(&x, &MaxPool3dArgs::new([2, 2, 2]))?.to_vec(), vec![7.0]);
/// assert!(max_pool3d(&x, &MaxPool3dArgs::new([3, 3, 3])).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn max_pool3d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &MaxPool3dArgs,
) -> Result<Tensor<T, D>> {
    let (planes, g) = PoolGeom::<3>::check("max_pool3d", x.shape(), &args.window())?;
    let out = pool3d_planes(&contiguous(x), planes, &g, Reduce::Max);
    Ok(owned_dim(out, &out_shape(x.shape(), &g)))
}

/// [`max_pool3d`] that also returns the flat position `(d·H + h)·W + w` of each maximum
/// in its input plane (PyTorch's `return_indices=True`: ties give the first in window
/// order, NaN the last NaN). Both results have the input's rank type. `Err` as
/// [`max_pool3d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{max_pool3d_with_indices, MaxPool3dArgs};
/// let x = Tensor::from_vec(vec![1.0f64, 9.0, 2.0, 3.0], [1, 1, 2, 1, 2])?;
/// let (y, i) = max_pool3d_with_indices(&x, &MaxPool3dArgs::new([2, 1, 2]))?;
/// assert_eq!((y.to_vec(), i.to_vec()), (vec![9.0], vec![1]));
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn max_pool3d_with_indices<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &MaxPool3dArgs,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    max3d("max_pool3d_with_indices", x, args)
}

#[allow(clippy::type_complexity)]
fn max3d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    op: &'static str,
    x: &TensorBase<S, D>,
    a: &MaxPool3dArgs,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let (planes, g) = PoolGeom::<3>::check(op, x.shape(), &a.window())?;
    let (vals, idx) = max_with_indices(&contiguous(x), planes, &Taps::window(&g, true));
    let shape = out_shape(x.shape(), &g);
    Ok((owned_dim(vals, &shape), owned_dim(idx, &shape)))
}

/// 3-D average pooling (PyTorch's `avg_pool3d`) of `x` `(N, C, D, H, W)`: each window's
/// sum divided by `divisor_override` if given, else by its size clipped to the padded
/// input (`count_include_pad`) or by the number of input elements in it. The result
/// has the input's rank type. `Err` as [`max_pool3d`], also for a zero divisor override.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{avg_pool3d, AvgPool3dArgs};
/// let x = Tensor::<f32, _>::ones([1, 1, 2, 2, 2]);
/// assert_eq!(avg_pool3d(&x, &AvgPool3dArgs::new([2, 2, 2]))?.to_vec(), vec![1.0]);
/// let s = AvgPool3dArgs { divisor_override: Some(2), ..AvgPool3dArgs::new([2, 2, 2]) };
/// assert_eq!(avg_pool3d(&x, &s)?.to_vec(), vec![4.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn avg_pool3d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &AvgPool3dArgs,
) -> Result<Tensor<T, D>> {
    const OP: &str = "avg_pool3d";
    let window = Window {
        k: args.kernel,
        s: args.stride,
        p: args.padding,
        d: [1; 3],
        ceil: args.ceil_mode,
    };
    let (planes, g) = PoolGeom::<3>::check(OP, x.shape(), &window)?;
    if args.divisor_override == Some(0) {
        return Err(Error::value(OP, "divisor_override must be nonzero"));
    }
    let r = Reduce::Avg {
        count_include_pad: args.count_include_pad,
        divisor: args.divisor_override,
    };
    let out = pool3d_planes(&contiguous(x), planes, &g, r);
    Ok(owned_dim(out, &out_shape(x.shape(), &g)))
}
