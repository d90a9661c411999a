//! 1-D max and average pooling over `(N, C, L)` tensors (PyTorch's `max_pool1d`,
//! `avg_pool1d`): checked as 1-D, then run by the 2-D kernels on the same data seen
//! with height 1 (no copy for a row-major input).

use super::pool_geom::{PoolGeom, Window};
use super::pool_kernel::{Reduce, pool_planes};
use super::pool_nd::Taps;
use super::pool_rows::max_with_indices;
use super::util::{contiguous, owned_dim};
use crate::element::Float;
use crate::error::Result;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Arguments of [`max_pool1d`] and [`max_pool1d_with_indices`] (PyTorch's `max_pool1d`
/// keywords). [`MaxPool1dArgs::new`] gives PyTorch's defaults: stride = kernel,
/// padding 0, dilation 1, floor mode.
///
/// ```
/// let a = ferrotensor::nn::MaxPool1dArgs { padding: 1, ..ferrotensor::nn::MaxPool1dArgs::new(3) };
/// assert_eq!((a.stride, a.dilation, a.ceil_mode), (3, 1, false));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxPool1dArgs {
    /// Window size.
    pub kernel: usize,
    /// Step between windows.
    pub stride: usize,
    /// Implicit −∞ added on both sides (at most half the kernel).
    pub padding: usize,
    /// Spacing between the window's taps.
    pub dilation: usize,
    /// Round the output length up (the last window must start inside the input or the
    /// left padding).
    pub ceil_mode: bool,
}

impl MaxPool1dArgs {
    /// PyTorch's defaults for `kernel`: stride = kernel, padding 0, dilation 1, floor.
    pub fn new(kernel: usize) -> Self {
        MaxPool1dArgs {
            kernel,
            stride: kernel,
            padding: 0,
            dilation: 1,
            ceil_mode: false,
        }
    }

    fn window(&self) -> Window<1> {
        Window {
            k: [self.kernel],
            s: [self.stride],
            p: [self.padding],
            d: [self.dilation],
            ceil: self.ceil_mode,
        }
    }
}

/// Arguments of [`avg_pool1d`] (PyTorch's `avg_pool1d` keywords; PyTorch has no divisor
/// override in 1-D). [`AvgPool1dArgs::new`] gives PyTorch's defaults: stride = kernel,
/// padding 0, floor mode, padded zeros counted.
///
/// ```
/// let a = ferrotensor::nn::AvgPool1dArgs { count_include_pad: false, ..ferrotensor::nn::AvgPool1dArgs::new(2) };
/// assert_eq!((a.stride, a.padding, a.ceil_mode), (2, 0, false));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AvgPool1dArgs {
    /// Window size.
    pub kernel: usize,
    /// Step between windows.
    pub stride: usize,
    /// Implicit zeros added on both sides (at most half the kernel).
    pub padding: usize,
    /// Round the output length up (as [`MaxPool1dArgs::ceil_mode`]).
    pub ceil_mode: bool,
    /// Divide by the window's length including the padding (`true`, PyTorch's default)
    /// or by the number of input elements in it.
    pub count_include_pad: bool,
}

impl AvgPool1dArgs {
    /// PyTorch's defaults for `kernel`.
    pub fn new(kernel: usize) -> Self {
        AvgPool1dArgs {
            kernel,
            stride: kernel,
            padding: 0,
            ceil_mode: false,
            count_include_pad: true,
        }
    }
}

/// Checks `x` `(N, C, L)` and pools it with the 2-D kernel (height 1).
fn pool1d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    op: &'static str,
    x: &TensorBase<S, D>,
    window: &Window<1>,
    reduce: Reduce,
) -> Result<Tensor<T, D>> {
    let (planes, g) = PoolGeom::<1>::check(op, x.shape(), window)?;
    let out = pool_planes(&contiguous(x), planes, &g.lift::<2>(), reduce);
    Ok(owned_dim(out, &[x.shape()[0], x.shape()[1], g.out[0]]))
}

/// 1-D max pooling (PyTorch's `max_pool1d`) of `x` `(N, C, L)` with all of PyTorch's
/// options ([`MaxPool1dArgs`]); NaN propagates. The result has the input's rank type.
/// `Err` (naming the shapes) for a non-3-D input, a zero kernel, stride or dilation,
/// padding greater than half the kernel, or a kernel larger than the padded input.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{max_pool1d, MaxPool1dArgs};
/// let x = Tensor::from_vec(vec![1.0f32, 3.0, 2.0, 5.0, 4.0], [1, 1, 5])?;
/// assert_eq!(max_pool1d(&x, &MaxPool1dArgs::new(2))?.to_vec(), vec![3.0, 5.0]);
/// let ceil = MaxPool1dArgs { ceil_mode: true, ..MaxPool1dArgs::new(2) };
/// assert_eq!(max_pool1d(&x, &ceil)?.to_vec(), vec![3.0, 5.0, 4.0]);
/// assert!(max_pool1d(&x, &MaxPool1dArgs::new(6)).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn max_pool1d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &MaxPool1dArgs,
) -> Result<Tensor<T, D>> {
    pool1d("max_pool1d", x, &args.window(), Reduce::Max)
}

/// [`max_pool1d`] that also returns the position `l` of each maximum in its input row
/// (PyTorch's `return_indices=True`: ties give the first, NaN the last NaN). Both
/// results have the input's rank type. `Err` as [`max_pool1d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{max_pool1d_with_indices, MaxPool1dArgs};
/// let x = Tensor::from_vec(vec![1.0f64, 3.0, 2.0, 5.0, 4.0], [1, 1, 5])?;
/// let (y, i) = max_pool1d_with_indices(&x, &MaxPool1dArgs { stride: 1, ..MaxPool1dArgs::new(3) })?;
/// assert_eq!(y.to_vec(), vec![3.0, 5.0, 5.0]);
/// assert_eq!(i.to_vec(), vec![1, 3, 3]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn max_pool1d_with_indices<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &MaxPool1dArgs,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let (planes, g) = PoolGeom::<1>::check("max_pool1d_with_indices", x.shape(), &args.window())?;
    let (vals, idx) = max_with_indices(&contiguous(x), planes, &Taps::window(&g.lift::<3>(), true));
    let shape = [x.shape()[0], x.shape()[1], g.out[0]];
    Ok((owned_dim(vals, &shape), owned_dim(idx, &shape)))
}

/// 1-D average pooling (PyTorch's `avg_pool1d`) of `x` `(N, C, L)`: each window's sum
/// divided by its length clipped to the padded input (`count_include_pad`) or by the
/// number of input elements in it. The result has the input's rank type. `Err` as
/// [`max_pool1d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{avg_pool1d, AvgPool1dArgs};
/// let x = Tensor::from_vec(vec![2.0f32, 4.0, 6.0], [1, 1, 3])?;
/// let a = AvgPool1dArgs { stride: 1, padding: 1, ..AvgPool1dArgs::new(2) };
/// assert_eq!(avg_pool1d(&x, &a)?.to_vec(), vec![1.0, 3.0, 5.0, 3.0]);
/// let b = AvgPool1dArgs { count_include_pad: false, ..a };
/// assert_eq!(avg_pool1d(&x, &b)?.to_vec(), vec![2.0, 3.0, 5.0, 6.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn avg_pool1d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &AvgPool1dArgs,
) -> Result<Tensor<T, D>> {
    let window = Window {
        k: [args.kernel],
        s: [args.stride],
        p: [args.padding],
        d: [1],
        ceil: args.ceil_mode,
    };
    let reduce = Reduce::Avg {
        count_include_pad: args.count_include_pad,
        divisor: None,
    };
    pool1d("avg_pool1d", x, &window, reduce)
}
