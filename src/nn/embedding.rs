//! Index lookups: `embedding` (rows of a weight table) and `one_hot` (PyTorch
//! semantics: no negative indices, `Err` naming the bad index).

use super::util::owned_dim;
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, InsertAxis};
use crate::manip::IndexElement;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Row lookup (PyTorch's `embedding(input, weight, padding_idx)`): the result has shape
/// `indices.shape + [D]` for a weight table `(V, D)`, row `weight[i]` for every index
/// `i`. `padding_idx` (negative counts from the end) only changes gradients in PyTorch,
/// so here it is validated and otherwise leaves the output unchanged. `Err` if the
/// weight is not 2-D, an index is negative or `≥ V`, or `padding_idx` is outside
/// `[−V, V)`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let w = Tensor::from_vec(vec![0.0f32, 0.0, 1.0, 1.0, 2.0, 2.0], [3, 2])?;
/// let idx = Tensor::from_vec(vec![2i64, 0, 1, 2], [2, 2])?;
/// let y = ferrotensor::nn::embedding(&idx, &w, None)?;
/// assert_eq!(y.shape(), &[2, 2, 2]);
/// assert_eq!(y.to_vec(), vec![2., 2., 0., 0., 1., 1., 2., 2.]);
/// assert!(ferrotensor::nn::embedding(&Tensor::from_vec(vec![3i64], [1])?, &w, None).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn embedding<I, T, S, D, S2, D2>(
    indices: &TensorBase<S, D>,
    weight: &TensorBase<S2, D2>,
    padding_idx: Option<isize>,
) -> Result<Tensor<T, D::Larger>>
where
    I: IndexElement,
    T: Element,
    S: Storage<Elem = I>,
    D: Dimension + InsertAxis,
    S2: Storage<Elem = T>,
    D2: Dimension,
{
    const OP: &str = "embedding";
    let ctx = || {
        format!(
            "indices {}, weight {}",
            fmt_shape(indices.shape()),
            fmt_shape(weight.shape())
        )
    };
    let &[v, d] = weight.shape() else {
        return Err(Error::shape(
            OP,
            format!("weight must be 2-D (num_embeddings, embedding_dim) ({})", ctx()),
        ));
    };
    if let Some(p) = padding_idx
        && !(-(v as isize)..v as isize).contains(&p)
    {
        return Err(Error::index(
            OP,
            format!("padding_idx {p} must be within [-{v}, {v}) ({})", ctx()),
        ));
    }
    let rows = checked_indices(OP, indices, v, ctx)?;
    let w = super::util::contiguous(weight);
    let mut out = Vec::with_capacity(rows.len() * d);
    for r in rows {
        out.extend_from_slice(&w[r * d..(r + 1) * d]);
    }
    let mut shape = indices.shape().to_vec();
    shape.push(d);
    Ok(owned_dim(out, &shape))
}

/// The indices as `usize`, or `Err` naming the first one outside `[0, n)`.
fn checked_indices<I: IndexElement, S: Storage<Elem = I>, D: Dimension>(
    op: &'static str,
    indices: &TensorBase<S, D>,
    n: usize,
    ctx: impl Fn() -> String,
) -> Result<Vec<usize>> {
    indices
        .iter()
        .map(|&i| {
            let v = i.to_i128();
            if v < 0 || v >= n as i128 {
                Err(Error::index(
                    op,
                    format!("index {v} is out of range [0, {n}) ({})", ctx()),
                ))
            } else {
                Ok(v as usize)
            }
        })
        .collect()
}

/// One-hot encoding (PyTorch's `one_hot(tensor, num_classes=-1)`): an `i64` tensor of
/// shape `indices.shape + [K]` with 1 at each index and 0 elsewhere. `K` is
/// `num_classes`, or `max(indices) + 1` for `None` (PyTorch's `-1`; `Err` for an empty
/// input, as PyTorch). `Err` for a negative index or one `≥ K`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let idx = Tensor::from_vec(vec![0i64, 2], [2])?;
/// let y = ferrotensor::nn::one_hot(&idx, None)?;
/// assert_eq!(y.shape(), &[2, 3]);
/// assert_eq!(y.to_vec(), vec![1i64, 0, 0, 0, 0, 1]);
/// assert!(ferrotensor::nn::one_hot(&idx, Some(2)).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn one_hot<I, S, D>(indices: &TensorBase<S, D>, num_classes: Option<usize>) -> Result<Tensor<i64, D::Larger>>
where
    I: IndexElement,
    S: Storage<Elem = I>,
    D: Dimension + InsertAxis,
{
    const OP: &str = "one_hot";
    let ctx = || format!("indices {}, num_classes {num_classes:?}", fmt_shape(indices.shape()));
    let k = match num_classes {
        Some(k) => k,
        None => {
            if indices.size() == 0 {
                return Err(Error::value(
                    OP,
                    format!("cannot infer the class count from an empty input ({})", ctx()),
                ));
            }
            let max = indices.iter().map(|&i| i.to_i128()).max().unwrap_or(0);
            if max < 0 {
                return Err(Error::index(
                    OP,
                    format!("class values must be non-negative ({})", ctx()),
                ));
            }
            max as usize + 1
        }
    };
    let hot = checked_indices(OP, indices, k, ctx)?;
    let total = hot
        .len()
        .checked_mul(k)
        .ok_or_else(|| Error::overflow(OP, format!("output size overflows ({})", ctx())))?;
    let mut out = vec![0i64; total];
    for (row, &c) in hot.iter().enumerate() {
        out[row * k + c] = 1;
    }
    let mut shape = indices.shape().to_vec();
    shape.push(k);
    Ok(owned_dim(out, &shape))
}
