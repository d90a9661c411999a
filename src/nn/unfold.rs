//! `unfold` (im2col as a public op) and its adjoint `fold` (col2im, summing overlaps):
//! PyTorch's `torch.nn.functional.unfold` / `fold` over batched `(N, C, H, W)` images,
//! through the 3-D kernels of [`super::vol2col`] with a unit depth.

use super::util::{check_nonzero, contiguous, dims, out_len, owned};
use super::vol2col::{Geom3, col2vol_add, vol2col_tile};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix3, Ix4};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Arguments of [`unfold`] and [`fold`] (PyTorch's keywords), each `[rows, cols]`.
/// [`UnfoldArgs::new`] gives PyTorch's defaults: dilation 1, padding 0, stride 1.
///
/// ```
/// let a = ferrotensor::nn::UnfoldArgs { stride: [2, 2], ..ferrotensor::nn::UnfoldArgs::new([3, 3]) };
/// assert_eq!((a.dilation, a.padding), ([1, 1], [0, 0]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnfoldArgs {
    /// The sliding block's size.
    pub kernel: [usize; 2],
    /// Spacing between the block's taps.
    pub dilation: [usize; 2],
    /// Zeros added on both sides of the image (any amount).
    pub padding: [usize; 2],
    /// Step between blocks.
    pub stride: [usize; 2],
}

impl UnfoldArgs {
    /// PyTorch's defaults for `kernel`: dilation 1, padding 0, stride 1.
    pub fn new(kernel: [usize; 2]) -> Self {
        UnfoldArgs {
            kernel,
            dilation: [1, 1],
            padding: [0, 0],
            stride: [1, 1],
        }
    }

    /// The geometry of `C` channels of an `H × W` image (as a unit-depth volume).
    fn geom(&self, op: &'static str, c: usize, [h, w]: [usize; 2], shapes: &str) -> Result<Geom3> {
        check_nonzero(op, "kernel size", &self.kernel)?;
        check_nonzero(op, "stride", &self.stride)?;
        check_nonzero(op, "dilation", &self.dilation)?;
        let len = |a: usize, n: usize| {
            let (k, s, p, d) = (self.kernel[a], self.stride[a], self.padding[a], self.dilation[a]);
            out_len(op, n, k, s, p, d, shapes)
        };
        Ok(Geom3 {
            cg: c,
            input: [1, h, w],
            kernel: [1, self.kernel[0], self.kernel[1]],
            out: [1, len(0, h)?, len(1, w)?],
            s: [1, self.stride[0], self.stride[1]],
            p: [0, self.padding[0], self.padding[1]],
            d: [1, self.dilation[0], self.dilation[1]],
        })
    }
}

/// Extracts the sliding blocks of a batched image (PyTorch's `unfold`, im2col): input
/// `(N, C, H, W)`, output `(N, C·kH·kW, L)` where column `l` holds the block at output
/// position `l` (row-major over `OH × OW`, sizes as in [`conv2d`](super::conv2d)) and row
/// `(c·kH + i)·kW + j` its tap `(i, j)` of channel `c`; taps in the padding are 0.
///
/// `Err` (naming the shapes) for a non-4-D input (PyTorch's unbatched 3-D form is not
/// taken: the output's rank type is fixed), a zero kernel, stride or dilation, or a
/// dilated kernel larger than the padded input.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{unfold, UnfoldArgs};
/// let x = Tensor::from_vec((1..=9).map(|v| v as f32).collect(), [1, 1, 3, 3])?;
/// let cols = unfold(&x, &UnfoldArgs::new([2, 2]))?;
/// assert_eq!(cols.shape(), &[1, 4, 4]);
/// assert_eq!(cols.to_vec()[..4].to_vec(), vec![1.0, 2.0, 4.0, 5.0]); // tap (0, 0) of each block
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn unfold<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    args: &UnfoldArgs,
) -> Result<Tensor<T, Ix3>> {
    const OP: &str = "unfold";
    let [n, c, h, w] = dims::<4>(x.shape(), OP, "input (N, C, H, W)")?;
    let g = args.geom(OP, c, [h, w], &format!("input {}", fmt_shape(x.shape())))?;
    let (rows, l) = (c * args.kernel[0] * args.kernel[1], g.out[1] * g.out[2]);
    let data = contiguous(x);
    let mut out = vec![T::zero(); n * rows * l];
    if !out.is_empty() {
        for (img, o) in data.chunks(c * h * w).zip(out.chunks_mut(rows * l)) {
            vol2col_tile(img, &g, 0, l, o);
        }
    }
    Ok(owned(out, [n, rows, l]))
}

/// Sums sliding blocks back into a batched image (PyTorch's `fold`, col2im, the adjoint
/// of [`unfold`]): input `(N, C·kH·kW, L)` with `L` the number of blocks of an
/// `output_size` image, output `(N, C, H, W)` where every block's taps are added at
/// their positions (overlaps add up; taps in the padding are dropped).
///
/// `Err` (naming the shapes) for a non-3-D input, a second axis not a multiple of
/// `kH·kW`, `L` not the number of blocks of `output_size`, a zero kernel, stride or
/// dilation, or a dilated kernel larger than the padded output.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{fold, unfold, UnfoldArgs};
/// let x = Tensor::<f64, _>::ones([1, 1, 3, 3]);
/// let a = UnfoldArgs::new([2, 2]);
/// // fold(unfold(x)) counts how many blocks cover each pixel.
/// let y = fold(&unfold(&x, &a)?, [3, 3], &a)?;
/// assert_eq!(y.to_vec(), vec![1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn fold<T: Float, S: Storage<Elem = T>, D: Dimension>(
    cols: &TensorBase<S, D>,
    output_size: [usize; 2],
    args: &UnfoldArgs,
) -> Result<Tensor<T, Ix4>> {
    const OP: &str = "fold";
    let [n, rows, l] = dims::<3>(cols.shape(), OP, "input (N, C·kH·kW, L)")?;
    let shapes = format!("input {}, output size {output_size:?}", fmt_shape(cols.shape()));
    let taps = args.kernel[0] * args.kernel[1];
    if taps == 0 || rows % taps != 0 {
        return Err(Error::shape(
            OP,
            format!(
                "axis 1 must be a multiple of kH·kW = {taps} ({shapes}, kernel {:?})",
                args.kernel
            ),
        ));
    }
    let c = rows / taps;
    let g = args.geom(OP, c, output_size, &shapes)?;
    if g.out[1] * g.out[2] != l {
        return Err(Error::shape(
            OP,
            format!(
                "L = {l} but an output of {output_size:?} has {} × {} = {} blocks ({shapes})",
                g.out[1],
                g.out[2],
                g.out[1] * g.out[2]
            ),
        ));
    }
    let [h, w] = output_size;
    let data = contiguous(cols);
    let mut out = vec![T::zero(); n * c * h * w];
    if !out.is_empty() && l > 0 {
        for (img, o) in data.chunks(rows * l).zip(out.chunks_mut(c * h * w)) {
            col2vol_add(img, &g, o);
        }
    }
    Ok(owned(out, [n, c, h, w]))
}
