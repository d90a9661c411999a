//! The tensor-level glue between operations and the engine: broadcasting two operands,
//! building result tensors, and reusing an owned operand's buffer.

use super::{DimMax, Operand};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::zip::{self, Dst, Src};
use crate::layout::transform::{broadcast_layout, broadcast_shapes};
use crate::layout::{Dimension, IxDyn, Layout, Order};
use crate::storage::{ArcRepr, CowRepr, OwnedRepr, Storage, StorageMut, ViewMutRepr, ViewRepr};
use crate::tensor::{Tensor, TensorBase};
use std::sync::Arc;

/// A row-major tensor of rank type `D` from a vector the engine filled.
pub(crate) fn from_c_vec<T, D: Dimension>(data: Vec<T>, shape: &[usize]) -> Tensor<T, D> {
    let dim = D::from_dims(shape).expect("result rank matches its rank type");
    let layout = Layout::new_order(dim, Order::RowMajor).expect("a broadcast shape of valid tensors is valid");
    TensorBase {
        storage: OwnedRepr(data),
        layout,
    }
}

/// The layout of `t` broadcast to `shape` (which must be a broadcast of its shape).
pub(crate) fn layout_to<S: Storage, D: Dimension>(
    t: &TensorBase<S, D>,
    shape: &[usize],
    op: &'static str,
) -> Result<Layout<IxDyn>> {
    if t.shape() == shape {
        Ok(t.layout.clone().into_dyn())
    } else {
        broadcast_layout(&t.layout, shape, op)
    }
}

/// `Err` when `a` and `b` do not broadcast together; free when the shapes are equal
/// (the common case, checked before any broadcast shape is built).
pub(crate) fn check_broadcast(a: &[usize], b: &[usize], op: &'static str) -> Result<()> {
    if a == b {
        return Ok(());
    }
    broadcast_shapes(a, b, op).map(|_| ())
}

/// A read operand over a tensor's buffer with the given (broadcast) layout.
pub(crate) fn src<'a, T, S: Storage<Elem = T>>(
    t: &'a TensorBase<S, impl Dimension>,
    l: &'a Layout<IxDyn>,
) -> Src<'a, T> {
    Src::new(t.storage.buffer(), l.strides(), l.offset)
}

/// `f(a, b)` element-wise with NumPy broadcasting, into a new row-major tensor.
pub(crate) fn zip_with<A, B, O, S1, S2, D1, D2>(
    a: &TensorBase<S1, D1>,
    b: &TensorBase<S2, D2>,
    op: &'static str,
    f: impl Fn(A, B) -> O + Sync,
) -> Result<Tensor<O, D1::Output>>
where
    A: Element,
    B: Element,
    O: Send,
    S1: Storage<Elem = A>,
    S2: Storage<Elem = B>,
    D1: DimMax<D2>,
    D2: Dimension,
{
    zip_to(a, b, op, f)
}

/// [`zip_with`] into a result of rank type `Out` (the broadcast rank of the operands).
pub(crate) fn zip_to<Out, A, B, O, S1, S2, D1, D2>(
    a: &TensorBase<S1, D1>,
    b: &TensorBase<S2, D2>,
    op: &'static str,
    f: impl Fn(A, B) -> O + Sync,
) -> Result<Tensor<O, Out>>
where
    Out: Dimension,
    A: Element,
    B: Element,
    O: Send,
    S1: Storage<Elem = A>,
    S2: Storage<Elem = B>,
    D1: Dimension,
    D2: Dimension,
{
    // Same-shape contiguous operands first: no broadcast shape to build (measurable on
    // 64×64 tensors, where this call's overhead is a tenth of the time).
    if a.shape() == b.shape()
        && let (Some(x), Some(y)) = (a.as_slice(), b.as_slice())
    {
        let data = zip::zip_new(a.shape(), Src::new(x, a.strides(), 0), Src::new(y, b.strides(), 0), f);
        return Ok(from_c_vec(data, a.shape()));
    }
    let shape = broadcast_shapes(a.shape(), b.shape(), op)?;
    let (la, lb) = (layout_to(a, &shape, op)?, layout_to(b, &shape, op)?);
    let data = zip::zip_new(&shape, src(a, &la), src(b, &lb), f);
    Ok(from_c_vec(data, &shape))
}

/// `f(a, rhs)` element-wise for any [`Operand`]: a scalar is passed to the kernel
/// directly (no broadcast), a tensor is zipped with broadcasting.
pub(crate) fn zip_operand<A, B, O, S, D, R>(
    a: &TensorBase<S, D>,
    rhs: &R,
    op: &'static str,
    f: impl Fn(A, B) -> O + Sync,
) -> Result<Tensor<O, R::Output>>
where
    A: Element,
    B: Element,
    O: Send,
    S: Storage<Elem = A>,
    D: Dimension,
    R: Operand<B, D>,
{
    match rhs.scalar() {
        Some(y) => Ok(retype(map_with(a, 1, move |x| f(x, y)))),
        None => zip_to(a, &rhs.operand_view(), op, f),
    }
}

/// `f(a, b, c)` element-wise with the three operands broadcast together, into a result
/// of rank type `Out`; the error names all three shapes.
pub(crate) fn zip3_to<Out, A, B, C, O, S1, S2, S3, D1, D2, D3>(
    a: &TensorBase<S1, D1>,
    b: &TensorBase<S2, D2>,
    c: &TensorBase<S3, D3>,
    op: &'static str,
    f: impl Fn(A, B, C) -> O + Sync,
) -> Result<Tensor<O, Out>>
where
    Out: Dimension,
    A: Element,
    B: Element,
    C: Element,
    O: Send,
    S1: Storage<Elem = A>,
    S2: Storage<Elem = B>,
    S3: Storage<Elem = C>,
    D1: Dimension,
    D2: Dimension,
    D3: Dimension,
{
    let shape = broadcast_shapes(a.shape(), b.shape(), op)
        .and_then(|s| broadcast_shapes(&s, c.shape(), op))
        .map_err(|_| {
            Error::shape(
                op,
                format!(
                    "operands could not be broadcast together with shapes {} {} {}",
                    fmt_shape(a.shape()),
                    fmt_shape(b.shape()),
                    fmt_shape(c.shape())
                ),
            )
        })?;
    let (la, lb, lc) = (
        layout_to(a, &shape, op)?,
        layout_to(b, &shape, op)?,
        layout_to(c, &shape, op)?,
    );
    let data = zip::zip3_new(&shape, src(a, &la), src(b, &lb), src(c, &lc), f);
    Ok(from_c_vec(data, &shape))
}

/// `f(a)` element-wise into a new row-major tensor of the same rank type.
pub(crate) fn map_with<A: Element, O: Send, S: Storage<Elem = A>, D: Dimension>(
    a: &TensorBase<S, D>,
    cost: usize,
    f: impl Fn(A) -> O + Sync,
) -> Tensor<O, D> {
    let data = zip::map_new_cost(
        a.shape(),
        Src::new(a.storage.buffer(), a.strides(), a.offset()),
        cost,
        f,
    );
    TensorBase {
        storage: OwnedRepr(data),
        layout: Layout::new_order(a.layout.shape.clone(), Order::RowMajor).expect("valid shape"),
    }
}

/// The error of an in-place operation whose right side does not broadcast to the left.
pub(crate) fn non_broadcastable(op: &'static str, out: &[usize], rhs: &[usize]) -> Error {
    Error::shape(
        op,
        format!(
            "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
            fmt_shape(out),
            fmt_shape(rhs)
        ),
    )
}

/// `f(&mut x, y)` for every element `x` of `a` with `b` broadcast to `a`'s shape
/// (`Err` "non-broadcastable output" otherwise). Copy-on-write and shared storage are
/// made unique first.
pub(crate) fn zip_assign<A, B, S1, S2, D1, D2>(
    a: &mut TensorBase<S1, D1>,
    b: &TensorBase<S2, D2>,
    op: &'static str,
    f: impl Fn(&mut A, B) + Sync,
) -> Result<()>
where
    A: Element,
    B: Element,
    S1: StorageMut<Elem = A>,
    S2: Storage<Elem = B>,
    D1: Dimension,
    D2: Dimension,
{
    let shape = broadcast_shapes(a.shape(), b.shape(), op)?;
    if shape.as_slice() != a.shape() {
        return Err(non_broadcastable(op, a.shape(), &shape));
    }
    let lb = layout_to(b, a.shape(), op)?;
    a.storage.make_unique(&mut a.layout);
    let TensorBase { storage, layout } = a;
    let dst = Dst::new(storage.buffer_mut(), layout.strides(), layout.offset);
    crate::iter::zip_into(layout.shape(), dst, src(b, &lb), f);
    Ok(())
}

/// `f(&mut x)` for every element of a writable tensor.
pub(crate) fn map_assign<A: Element, S: StorageMut<Elem = A>, D: Dimension>(
    a: &mut TensorBase<S, D>,
    f: impl Fn(&mut A) + Sync,
) {
    a.storage.make_unique(&mut a.layout);
    let TensorBase { storage, layout } = a;
    let dst = Dst::new(storage.buffer_mut(), layout.strides(), layout.offset);
    crate::iter::for_each_mut(layout.shape(), dst, f);
}

/// Storage whose buffer an operator may take over for its result: owned vectors,
/// owned copy-on-write tensors and unique shared buffers. Views give themselves back.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::ones([1024]);
/// let p = a.as_ptr();
/// let b = a + 1.0;                 // the owned operand's buffer is reused
/// assert_eq!(b.as_ptr(), p);
/// ```
pub trait OperandStorage: Storage + Sized {
    /// The owned vector, without copying, or the storage itself.
    fn try_into_vec(self) -> std::result::Result<Vec<Self::Elem>, Self>;
}

impl<T> OperandStorage for OwnedRepr<T> {
    fn try_into_vec(self) -> std::result::Result<Vec<T>, Self> {
        Ok(self.into_vec())
    }
}
impl<T> OperandStorage for ViewRepr<'_, T> {
    fn try_into_vec(self) -> std::result::Result<Vec<T>, Self> {
        Err(self)
    }
}
impl<T> OperandStorage for ViewMutRepr<'_, T> {
    fn try_into_vec(self) -> std::result::Result<Vec<T>, Self> {
        Err(self)
    }
}
impl<T> OperandStorage for CowRepr<'_, T> {
    fn try_into_vec(self) -> std::result::Result<Vec<T>, Self> {
        match self {
            CowRepr::Owned(v) => Ok(v),
            view => Err(view),
        }
    }
}
impl<T> OperandStorage for ArcRepr<T> {
    fn try_into_vec(self) -> std::result::Result<Vec<T>, Self> {
        Arc::try_unwrap(self.into_arc()).map_err(ArcRepr)
    }
}

/// Takes `t`'s buffer as an owned tensor if it is reusable for a result of `shape`:
/// same shape, dense (row- or column-major contiguous over the whole buffer), and
/// ownable without a copy. Otherwise gives `t` back.
pub(crate) fn take_reusable<T, S: OperandStorage<Elem = T>, D: Dimension>(
    t: TensorBase<S, D>,
    shape: &[usize],
) -> std::result::Result<Tensor<T, D>, TensorBase<S, D>> {
    let dense = t.shape() == shape
        && t.storage.buffer().len() == t.size()
        && t.offset() == 0
        && (t.is_contiguous() || t.is_f_contiguous());
    if !dense {
        return Err(t);
    }
    let TensorBase { storage, layout } = t;
    match storage.try_into_vec() {
        Ok(v) => Ok(TensorBase {
            storage: OwnedRepr(v),
            layout,
        }),
        Err(storage) => Err(TensorBase { storage, layout }),
    }
}

/// Converts a result's rank type (same rank by construction).
pub(crate) fn retype<T, D: Dimension, D2: Dimension>(t: Tensor<T, D>) -> Tensor<T, D2> {
    let TensorBase { storage, layout } = t;
    let layout = layout.into_dim::<D2>().expect("result rank matches its rank type");
    TensorBase { storage, layout }
}

/// `f(a, b)` for two operands taken by value: the result reuses `a`'s buffer, else
/// `b`'s, when possible (see [`take_reusable`]), else is a new tensor.
pub(crate) fn zip_owned<T, S1, S2, D1, D2>(
    a: TensorBase<S1, D1>,
    b: TensorBase<S2, D2>,
    op: &'static str,
    f: impl Fn(T, T) -> T + Sync,
) -> Result<Tensor<T, D1::Output>>
where
    T: Element,
    S1: OperandStorage<Elem = T>,
    S2: OperandStorage<Elem = T>,
    D1: DimMax<D2>,
    D2: Dimension,
{
    let shape = broadcast_shapes(a.shape(), b.shape(), op)?;
    let a = match take_reusable(a, &shape) {
        Ok(mut a) => {
            zip_assign(&mut a, &b, op, |x, y| *x = f(*x, y))?;
            return Ok(retype(a));
        }
        Err(a) => a,
    };
    match take_reusable(b, &shape) {
        Ok(mut b) => {
            zip_assign(&mut b, &a, op, |y, x| *y = f(x, *y))?;
            Ok(retype(b))
        }
        Err(b) => zip_with(&a, &b, op, f),
    }
}

/// `f(a)` for an operand taken by value, in place when its buffer is reusable.
pub(crate) fn map_owned<T: Element, S: OperandStorage<Elem = T>, D: Dimension>(
    a: TensorBase<S, D>,
    f: impl Fn(T) -> T + Sync,
) -> Tensor<T, D> {
    let shape = crate::layout::dim::DimVec::from_slice(a.shape());
    match take_reusable(a, &shape) {
        Ok(mut a) => {
            map_assign(&mut a, |x| *x = f(*x));
            a
        }
        Err(a) => map_with(&a, 1, f),
    }
}
