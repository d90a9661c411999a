//! Pooling into a caller-owned output: the same kernels as [`super::max_pool2d_with`]
//! and [`super::avg_pool2d_with`], writing into a tensor the caller keeps from call to
//! call (as ONNX Runtime binds its output once), so that no output is allocated.

use super::pool::{AvgPool2dArgs, MaxPool2dArgs};
use super::pool_geom::{PoolGeom, Window};
use super::pool_kernel::{Reduce, pool_planes, pool_planes_into};
use super::util::contiguous;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::{Storage, StorageMut};
use crate::tensor::TensorBase;

/// [`max_pool2d_with`](super::max_pool2d_with) written into `out`, which must have the
/// output's shape `(N, C, OH, OW)` (any layout and rank type; a row-major `out` is
/// written in place, another layout through a temporary). Every element of `out` is
/// overwritten. `Err` as [`max_pool2d_with`](super::max_pool2d_with), or naming both
/// shapes if `out`'s shape is not the output's (then `out` is left unchanged).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{max_pool2d_into, MaxPool2dArgs};
/// let x = Tensor::from_vec((0..16).map(|v| v as f32).collect(), [1, 1, 4, 4])?;
/// let mut y = Tensor::<f32, _>::zeros([1, 1, 2, 2]);
/// max_pool2d_into(&x, &MaxPool2dArgs::new([2, 2]), &mut y)?;
/// assert_eq!(y.to_vec(), vec![5.0, 7.0, 13.0, 15.0]);
/// assert!(max_pool2d_into(&x, &MaxPool2dArgs::new([2, 2]), &mut Tensor::<f32, _>::zeros([1, 1, 3, 3])).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn max_pool2d_into<T: Float, S: Storage<Elem = T>, D: Dimension, S2: StorageMut<Elem = T>, D2: Dimension>(
    x: &TensorBase<S, D>,
    args: &MaxPool2dArgs,
    out: &mut TensorBase<S2, D2>,
) -> Result<()> {
    pool_into("max_pool2d_into", x, &args.window(), Reduce::Max, out)
}

/// [`avg_pool2d_with`](super::avg_pool2d_with) written into `out` (as
/// [`max_pool2d_into`]). `Err` as [`avg_pool2d_with`](super::avg_pool2d_with), or if
/// `out`'s shape is not the output's.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{avg_pool2d_into, AvgPool2dArgs};
/// let x = Tensor::<f64, _>::ones([2, 1, 2, 2]);
/// let mut y = Tensor::<f64, _>::zeros([2, 1, 1, 1]);
/// avg_pool2d_into(&x, &AvgPool2dArgs::new([2, 2]), &mut y)?;
/// assert_eq!(y.to_vec(), vec![1.0, 1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn avg_pool2d_into<T: Float, S: Storage<Elem = T>, D: Dimension, S2: StorageMut<Elem = T>, D2: Dimension>(
    x: &TensorBase<S, D>,
    args: &AvgPool2dArgs,
    out: &mut TensorBase<S2, D2>,
) -> Result<()> {
    pool_into("avg_pool2d_into", x, &args.window(), args.reduce(), out)
}

fn pool_into<T: Float, S: Storage<Elem = T>, D: Dimension, S2: StorageMut<Elem = T>, D2: Dimension>(
    op: &'static str,
    x: &TensorBase<S, D>,
    window: &Window<2>,
    reduce: Reduce,
    out: &mut TensorBase<S2, D2>,
) -> Result<()> {
    let (planes, g) = PoolGeom::check(op, x.shape(), window)?;
    if let Reduce::Avg { divisor: Some(0), .. } = reduce {
        return Err(Error::value(op, "divisor_override must be nonzero"));
    }
    let want = [x.shape()[0], x.shape()[1], g.out[0], g.out[1]];
    if out.shape() != want {
        return Err(Error::shape(
            op,
            format!(
                "output of shape {} given, the pooled shape is {} (input {})",
                fmt_shape(out.shape()),
                fmt_shape(&want),
                fmt_shape(x.shape())
            ),
        ));
    }
    let data = contiguous(x);
    match out.as_slice_mut() {
        Some(o) => pool_planes_into(&data, planes, &g, reduce, o),
        None => {
            let y = pool_planes(&data, planes, &g, reduce);
            for (o, v) in out.iter_mut().zip(y) {
                *o = v;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{avg_pool2d_with, max_pool2d_with};
    use crate::prelude::*;

    #[test]
    fn into_equals_the_allocating_form_on_any_output_layout() {
        let x = Tensor::<f32, _>::from_shape_fn([2, 3, 9, 7], |i| {
            ((i[0] * 31 + i[1] * 7 + i[2] * 5 + i[3]) % 11) as f32 - 5.0
        });
        let mut xn = x.clone();
        xn[[1, 2, 4, 4]] = f32::NAN;
        let ma = MaxPool2dArgs {
            stride: [2, 2],
            padding: [1, 1],
            ceil_mode: true,
            ..MaxPool2dArgs::new([3, 3])
        };
        let want = max_pool2d_with(&xn, &ma).unwrap();
        let mut y = Tensor::<f32, _>::full(want.shape(), 9.0);
        max_pool2d_into(&xn, &ma, &mut y).unwrap();
        assert_eq!(format!("{:?}", y.to_vec()), format!("{:?}", want.to_vec()));
        assert!(y.iter().any(|v| v.is_nan()));
        // A transposed (non-row-major) output of the right shape, and a strided input.
        let xs = x.slice(s![.., .., ..;2, ..]);
        let aa = AvgPool2dArgs {
            padding: [1, 1],
            count_include_pad: false,
            ..AvgPool2dArgs::new([2, 2])
        };
        let want = avg_pool2d_with(&xs, &aa).unwrap();
        let (n, c, oh, ow) = (want.shape()[0], want.shape()[1], want.shape()[2], want.shape()[3]);
        let mut t = Tensor::<f32, _>::zeros([ow, oh, c, n]);
        let mut tv = t.permute_mut(&[3, 2, 1, 0]).unwrap();
        assert!(tv.as_slice().is_none());
        avg_pool2d_into(&xs, &aa, &mut tv).unwrap();
        assert_eq!(tv.to_vec(), want.to_vec());
    }

    #[test]
    fn a_wrong_output_shape_is_an_error_naming_both_shapes() {
        let x = Tensor::<f64, _>::ones([1, 2, 5, 5]);
        let mut y = Tensor::<f64, _>::full([1, 2, 3, 3], 7.0);
        let e = max_pool2d_into(&x, &MaxPool2dArgs::new([2, 2]), &mut y)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("max_pool2d_into") && e.contains("(1, 2, 3, 3)") && e.contains("(1, 2, 2, 2)"),
            "{e}"
        );
        assert!(y.iter().all(|&v| v == 7.0));
        let e = avg_pool2d_into(&x, &AvgPool2dArgs::new([9, 9]), &mut y)
            .unwrap_err()
            .to_string();
        assert!(e.contains("avg_pool2d_into"), "{e}");
    }
}
