//! `linear`: `x @ weightᵀ + bias` as one strided GEMM.

use super::util::{contiguous, from_f32, is_native, owned, to_f32};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix1, IxDyn};
use crate::linalg::gemm_kernels::{MatMut, MatRef, gemm_into};
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
    let b = bias.map(|b| b.to_vec());
    let out = if is_native::<T>() {
        let ws = weight.strides();
        // The weight view's layout was checked to lie in its buffer when it was built,
        // so every (r, c) with r < o, c < i at `as_ptr + r·strides[0] + c·strides[1]` is
        // readable; read as its transpose (i × o).
        let wt = MatRef {
            ptr: weight.as_ptr(),
            rs: ws[1],
            cs: ws[0],
        };
        // SAFETY: as just said; `xs` is the row-major m × i input.
        unsafe { product(&xs, wt, b.as_deref(), m, o, i) }
    } else {
        // f16/bf16 through f32: one rounding of `bias + x @ weightᵀ`.
        let w32 = to_f32(&contiguous(weight));
        let wt = MatRef::row_major(&w32, 0, o, i).t();
        let b32 = b.as_deref().map(to_f32);
        // SAFETY: `wt` is the transpose of the row-major o × i copy `w32`.
        from_f32(&unsafe { product(&to_f32(&xs), wt, b32.as_deref(), m, o, i) })
    };
    Ok(owned(out, out_shape))
}

/// `bias + xs @ wt` for the row-major `m × i` input `xs` and the `i × o` weight `wt`, as a
/// row-major `m × o` vector (one GEMM accumulating onto the bias rows).
///
/// # Safety
/// `wt` is readable at every `(c, r)`, `c < i`, `r < o`.
unsafe fn product<T: Float>(xs: &[T], wt: MatRef<T>, bias: Option<&[T]>, m: usize, o: usize, i: usize) -> Vec<T> {
    let mut out = vec![T::zero(); m * o];
    if let Some(b) = bias {
        for row in out.chunks_exact_mut(o.max(1)) {
            row.copy_from_slice(&b[..row.len()]);
        }
    }
    if m > 0 && o > 0 {
        let c = MatMut {
            ptr: out.as_mut_ptr(),
            rs: o as isize,
            cs: 1,
        };
        // SAFETY: `out` is a fresh, initialised m × o row-major buffer; `xs` is m × i
        // row-major (checked by `row_major`); `wt` is the caller's contract.
        unsafe {
            gemm_into(
                bias.is_some(),
                m,
                o,
                i,
                MatRef::row_major(xs, 0, m, i),
                wt,
                c,
                crate::threads::num_threads(),
            )
        };
    }
    out
}
