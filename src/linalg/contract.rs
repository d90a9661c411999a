//! Building blocks shared by `tensordot`, `dot`, `trace` and `einsum`: every contraction
//! becomes one batched matrix product over permuted and reshaped views (copied only when
//! NumPy's reshape rule would copy), and every sum over axes a product with a ones vector.

use super::matmul::{dyn_view, matmul_views};
use crate::element::Num;
use crate::error::Result;
use crate::layout::dim::{DimVec, StrideVec};
use crate::layout::{IxDyn, Layout};
use crate::storage::{CowRepr, OwnedRepr, Storage, ViewRepr};
use crate::tensor::{Tensor, TensorBase, TensorCow, TensorView};

/// A view of `t` with a different layout over the same buffer. The caller guarantees
/// that `layout` stays inside the buffer (checked in debug builds).
pub(crate) fn relayout<'a, T: Num>(t: &TensorView<'a, T, IxDyn>, layout: Layout<IxDyn>) -> TensorView<'a, T, IxDyn> {
    debug_assert!(layout.check_in_buffer(t.storage.0.len(), "relayout").is_ok());
    TensorBase {
        storage: ViewRepr(t.storage.0),
        layout,
    }
}

/// The same copy-on-write tensor with another layout over its buffer.
pub(crate) fn relayout_cow<T: Num>(t: TensorCow<'_, T, IxDyn>, layout: Layout<IxDyn>) -> TensorCow<'_, T, IxDyn> {
    debug_assert!(layout.check_in_buffer(t.storage.buffer().len(), "relayout").is_ok());
    TensorBase {
        storage: t.storage,
        layout,
    }
}

/// A view with axes `axes` (in that order) taken from `t`.
pub(crate) fn permuted<'a, T: Num>(t: &TensorView<'a, T, IxDyn>, axes: &[usize]) -> TensorView<'a, T, IxDyn> {
    let shape: DimVec = axes.iter().map(|&a| t.shape()[a]).collect();
    let strides: StrideVec = axes.iter().map(|&a| t.strides()[a]).collect();
    relayout(t, Layout::new(IxDyn(shape), strides, t.layout.offset))
}

/// `t` reshaped (row-major) to `shape`: a view when NumPy gives one, else a copy.
pub(crate) fn reshaped<'a, T: Num>(t: &TensorView<'a, T, IxDyn>, shape: &[usize]) -> Result<TensorCow<'a, T, IxDyn>> {
    t.reshape(shape.to_vec())
}

/// An owned tensor from a row-major vector and shape.
pub(crate) fn owned<T: Num>(data: Vec<T>, shape: &[usize]) -> Result<Tensor<T, IxDyn>> {
    let layout = Layout::new_order(IxDyn::from(shape), crate::Order::RowMajor)?;
    Ok(TensorBase {
        storage: OwnedRepr(data),
        layout,
    })
}

/// A copy-on-write tensor that owns `t`.
pub(crate) fn into_cow<T: Num>(t: Tensor<T, IxDyn>) -> TensorCow<'static, T, IxDyn> {
    TensorBase {
        storage: CowRepr::Owned(t.storage.into_vec()),
        layout: t.layout,
    }
}

/// Sums `t` over `axes`; the kept axes stay in their order. Runs as a matrix-vector
/// product with a ones vector (no reduction code of its own).
pub(crate) fn sum_axes<T: Num>(t: &TensorView<'_, T, IxDyn>, axes: &[usize]) -> Result<Tensor<T, IxDyn>> {
    let keep: Vec<usize> = (0..t.ndim()).filter(|a| !axes.contains(a)).collect();
    let keep_shape: Vec<usize> = keep.iter().map(|&a| t.shape()[a]).collect();
    if axes.is_empty() {
        return Ok(t.to_owned());
    }
    let order: Vec<usize> = keep.iter().chain(axes).copied().collect();
    let p = permuted(t, &order);
    let rows: usize = keep_shape.iter().product();
    let q: usize = axes.iter().map(|&a| t.shape()[a]).product();
    let m = reshaped(&p, &[rows, q])?;
    let ones = owned(vec![T::one(); q], &[q])?;
    let r = matmul_views(&dyn_view(&m), &dyn_view(&ones))?;
    owned(r.storage.into_vec(), &keep_shape)
}

/// The diagonal over axes `x < y` (equal lengths) as a view: the axes are replaced by
/// one axis at position `x` whose stride is the sum of theirs.
pub(crate) fn diagonal<'a, T: Num>(t: &TensorView<'a, T, IxDyn>, x: usize, y: usize) -> TensorView<'a, T, IxDyn> {
    let mut shape: DimVec = t.shape().into();
    let mut strides: StrideVec = t.strides().into();
    strides[x] += strides[y];
    shape[x] = shape[x].min(shape[y]);
    shape.remove(y);
    strides.remove(y);
    relayout(t, Layout::new(IxDyn(shape), strides, t.layout.offset))
}

/// Contracts `a` and `b` as one batched product: result axes are
/// `batch, free_a, free_b`; `contract_a[i]` pairs with `contract_b[i]` and `batch_a[i]`
/// with `batch_b[i]` (equal lengths are the caller's check).
#[allow(clippy::too_many_arguments)]
pub(crate) fn contract<T: Num>(
    a: &TensorView<'_, T, IxDyn>,
    b: &TensorView<'_, T, IxDyn>,
    batch_a: &[usize],
    batch_b: &[usize],
    free_a: &[usize],
    free_b: &[usize],
    contract_a: &[usize],
    contract_b: &[usize],
) -> Result<Tensor<T, IxDyn>> {
    let dims =
        |t: &TensorView<'_, T, IxDyn>, ax: &[usize]| -> Vec<usize> { ax.iter().map(|&i| t.shape()[i]).collect() };
    let (bd, fa, fb, kd) = (dims(a, batch_a), dims(a, free_a), dims(b, free_b), dims(a, contract_a));
    let (nb, m, n, k): (usize, usize, usize, usize) = (
        bd.iter().product(),
        fa.iter().product(),
        fb.iter().product(),
        kd.iter().product(),
    );
    let pa: Vec<usize> = batch_a.iter().chain(free_a).chain(contract_a).copied().collect();
    let pb: Vec<usize> = batch_b.iter().chain(contract_b).chain(free_b).copied().collect();
    let a3 = reshaped(&permuted(a, &pa), &[nb, m, k])?;
    let b3 = reshaped(&permuted(b, &pb), &[nb, k, n])?;
    let r = matmul_views(&dyn_view(&a3), &dyn_view(&b3))?;
    let shape: Vec<usize> = bd.iter().chain(&fa).chain(&fb).copied().collect();
    owned(r.storage.into_vec(), &shape)
}

/// `x * s` for every element, into a new row-major tensor.
pub(crate) fn scale<T: Num>(t: &TensorView<'_, T, IxDyn>, s: T, left: bool) -> Tensor<T, IxDyn> {
    let data = crate::iter::zip::map_new(t.shape(), crate::iter::Src::of(t.storage.0, &t.layout), |x: T| {
        if left { s.wmul(x) } else { x.wmul(s) }
    });
    owned(data, t.shape()).expect("shape of an existing tensor")
}
