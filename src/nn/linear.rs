//! `linear`: `x @ weightᵀ + bias` as one strided GEMM.

use super::gemm_call::{Mat, gemm};
use super::util::{contiguous, owned};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix1, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// A fully connected layer (PyTorch's `linear`): `x` `(…, I)`, `weight` `(O, I)`,
/// optional `bias` `(O,)`; the result is `(…, O)`. The weight is read through its
/// strides (a transposed or sliced view is not copied). `Err` if `x` is 0-d, the weight
/// is not 2-D, `I` differs, or the bias length is not `O`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 2.0], [1, 2])?;
/// let w = Tensor::from_vec(vec![1.0, 0.0, 1.0, 1.0, 0.0, -1.0], [3, 2])?;
/// let b = Tensor::from_vec(vec![0.5, 0.0, 0.0], [3])?;
/// let y = ferrotensor::nn::linear(&x, &w, Some(&b))?;
/// assert_eq!(y.shape(), &[1, 3]);
/// assert_eq!(y.to_vec(), vec![1.5, 3.0, -2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn linear<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    x: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&Tensor<T, Ix1>>,
) -> Result<Tensor<T, IxDyn>> {
    const OP: &str = "linear";
    let shapes = || format!("input {}, weight {}", fmt_shape(x.shape()), fmt_shape(weight.shape()));
    if x.ndim() == 0 || weight.ndim() != 2 {
        return Err(Error::shape(
            OP,
            format!("expected input (..., I) and weight (O, I), got {}", shapes()),
        ));
    }
    let (o, i) = (weight.shape()[0], weight.shape()[1]);
    if x.shape()[x.ndim() - 1] != i {
        return Err(Error::shape(
            OP,
            format!(
                "input features {} differ from weight's {i} ({})",
                x.shape()[x.ndim() - 1],
                shapes()
            ),
        ));
    }
    if let Some(b) = bias
        && b.size() != o
    {
        return Err(Error::shape(
            OP,
            format!(
                "bias of shape {} does not match {o} output features ({})",
                fmt_shape(b.shape()),
                shapes()
            ),
        ));
    }
    let mut out_shape = x.shape().to_vec();
    *out_shape.last_mut().unwrap() = o;
    let m = x.size() / i.max(1);
    let xs = contiguous(x);
    let mut out = vec![T::zero(); m * o];
    if let Some(b) = bias {
        let b = b.to_vec();
        for row in out.chunks_exact_mut(o.max(1)) {
            row.copy_from_slice(&b[..row.len()]);
        }
    }
    if m > 0 && o > 0 {
        let ws = weight.strides();
        let wt = Mat {
            ptr: weight.as_ptr(),
            rs: ws[1],
            cs: ws[0],
        };
        // SAFETY: `out` is a fresh m × o row-major buffer; `xs` is m × i row-major
        // (checked by `row_major`); the weight view's layout was checked to lie in its
        // buffer when it was built, so every (r, c) with r < o, c < i at
        // `as_ptr + r·strides[0] + c·strides[1]` is readable; read as its transpose (i × o).
        unsafe {
            gemm(
                m,
                o,
                i,
                out.as_mut_ptr(),
                o as isize,
                1,
                bias.is_some(),
                Mat::row_major(&xs, 0, m, i),
                wt,
                crate::threads::num_threads(),
            )
        };
    }
    Ok(owned(out, out_shape))
}
