//! The array API standard's `linalg` functions that NumPy's `numpy.linalg` adds on top
//! of the classic ones: `vecdot`, `cross`, `diagonal`, `matrix_transpose`, `trace` (last
//! two axes, with an offset) and the 1-D-only `outer`.

use super::BatchDim;
use crate::element::Num;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::normalize_axis;
use crate::layout::{DimMax, Dimension, Ix2, IxDyn, RemoveAxis};
use crate::manip::{axis_last, restore_axis};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};

/// The rank type of [`vecdot`]: the broadcast rank less the reduced axis.
type VecdotDim<D, D2> = <<D as DimMax<D2>>::Output as RemoveAxis>::Smaller;

/// Two views with a shared shape and the length of their last axis.
type Paired<'a, T> = (TensorView<'a, T, IxDyn>, TensorView<'a, T, IxDyn>, usize);

/// Both operands with `axis` moved last and their other axes broadcast together; `Err`
/// if the lengths along `axis` differ (a core dimension does not broadcast) or `want`
/// is given and differs.
fn paired<'a, T: Num>(
    a: &TensorView<'a, T, IxDyn>,
    b: &TensorView<'a, T, IxDyn>,
    axis: isize,
    want: Option<usize>,
    op: &'static str,
) -> Result<Paired<'a, T>> {
    for v in [a, b] {
        if v.ndim() == 0 {
            return Err(Error::shape(op, "0-d inputs have no axis to work along"));
        }
    }
    let (xa, xb) = (normalize_axis(axis, a.ndim(), op)?, normalize_axis(axis, b.ndim(), op)?);
    let (ma, mb) = (axis_last(a, xa), axis_last(b, xb));
    let (na, nb) = (ma.shape()[ma.ndim() - 1], mb.shape()[mb.ndim() - 1]);
    if na != nb || want.is_some_and(|w| w != na) {
        return Err(Error::shape(
            op,
            format!(
                "shapes {} and {} have lengths {na} and {nb} along axis {axis}{}",
                fmt_shape(a.shape()),
                fmt_shape(b.shape()),
                want.map_or(String::new(), |w| format!("; {w} needed"))
            ),
        ));
    }
    let (la, lb) = (&ma.shape()[..ma.ndim() - 1], &mb.shape()[..mb.ndim() - 1]);
    let mut full = crate::layout::transform::broadcast_shapes(la, lb, op)?.to_vec();
    full.push(na);
    Ok((ma.broadcast_to(full.clone())?, mb.broadcast_to(full)?, na))
}

/// `Σ conj(x1)·x2` along `axis` after broadcasting the other axes (NumPy's and the array
/// API's `vecdot(x1, x2, axis=-1)`). `Err` for a 0-d input, an axis out of range,
/// different lengths along `axis`, or other axes that do not broadcast.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::vecdot;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap();
/// let b = Tensor::from_vec(vec![1.0, 0.0, -1.0], [3]).unwrap();
/// assert_eq!(vecdot(&a, &b, -1).unwrap().to_vec(), vec![-2.0, -2.0]);
/// ```
pub fn vecdot<T: Num, S: Storage<Elem = T>, D: DimMax<D2>, S2: Storage<Elem = T>, D2: Dimension>(
    x1: &TensorBase<S, D>,
    x2: &TensorBase<S2, D2>,
    axis: isize,
) -> Result<Tensor<T, VecdotDim<D, D2>>>
where
    D::Output: RemoveAxis,
{
    let op = "vecdot";
    let (a, b, n) = paired(&x1.view().into_dyn(), &x2.view().into_dyn(), axis, None, op)?;
    let (av, bv) = (a.to_vec(), b.to_vec());
    let shape = &a.shape()[..a.ndim() - 1];
    let out: Vec<T> = if n == 0 {
        vec![T::zero(); shape.iter().product()]
    } else {
        av.chunks(n)
            .zip(bv.chunks(n))
            .map(|(p, q)| p.iter().zip(q).fold(T::zero(), |s, (&x, &y)| s.wadd(x.conj().wmul(y))))
            .collect()
    };
    Tensor::from_vec(out, shape.to_vec())?.into_dim()
}

/// The cross product of 3-element vectors along `axis`, other axes broadcast (NumPy's
/// and the array API's `linalg.cross(x1, x2, axis=-1)`); the result keeps the vectors
/// along `axis`. `Err` unless both have length 3 there, or if the rest does not
/// broadcast.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::cross;
/// let x = Tensor::from_vec(vec![1, 0, 0], [3]).unwrap();
/// let y = Tensor::from_vec(vec![0, 1, 0, 0, 0, 1], [2, 3]).unwrap();
/// assert_eq!(cross(&x, &y, -1).unwrap().to_vec(), vec![0, 0, 1, 0, -1, 0]);
/// ```
pub fn cross<T: Num, S: Storage<Elem = T>, D: DimMax<D2>, S2: Storage<Elem = T>, D2: Dimension>(
    x1: &TensorBase<S, D>,
    x2: &TensorBase<S2, D2>,
    axis: isize,
) -> Result<Tensor<T, D::Output>> {
    let op = "cross";
    let (a, b, _) = paired(&x1.view().into_dyn(), &x2.view().into_dyn(), axis, Some(3), op)?;
    let (av, bv) = (a.to_vec(), b.to_vec());
    let mut out = Vec::with_capacity(av.len());
    for (p, q) in av.chunks(3).zip(bv.chunks(3)) {
        out.push(p[1].wmul(q[2]).wsub(p[2].wmul(q[1])));
        out.push(p[2].wmul(q[0]).wsub(p[0].wmul(q[2])));
        out.push(p[0].wmul(q[1]).wsub(p[1].wmul(q[0])));
    }
    // The result's axis goes where NumPy puts it: `axis` of the broadcast result.
    let moved = a.shape().to_vec();
    let ax = normalize_axis(axis, moved.len(), op)?;
    restore_axis::<T, IxDyn>(out, &moved, ax, op)?.into_dim()
}

/// The diagonals of the last two axes, offset `offset` (NumPy's and the array API's
/// `linalg.diagonal(x, offset=0)`; a view). `Err` below two axes.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::diagonal;
/// let a = Tensor::from_vec((0..8).collect(), [2, 2, 2]).unwrap();
/// assert_eq!(diagonal(&a, 0).unwrap().to_vec(), vec![0, 3, 4, 7]);
/// ```
pub fn diagonal<T: Num, S: Storage<Elem = T>, D: RemoveAxis>(
    x: &TensorBase<S, D>,
    offset: isize,
) -> Result<TensorView<'_, T, D::Smaller>> {
    at_least_2d(x.shape(), "diagonal")?;
    x.view().diagonal(offset, -2, -1)?.into_dim()
}

/// The last two axes swapped (NumPy's and the array API's `matrix_transpose(x)`; a
/// view). `Err` below two axes.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::matrix_transpose;
/// let a = Tensor::<f32, _>::zeros([4, 2, 3]);
/// assert_eq!(matrix_transpose(&a).unwrap().shape(), &[4, 3, 2]);
/// ```
pub fn matrix_transpose<T: Num, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
) -> Result<TensorView<'_, T, D>> {
    at_least_2d(x.shape(), "matrix_transpose")?;
    x.view().swap_axes(-1, -2)
}

/// The sums of the diagonals of the last two axes, offset `offset` (NumPy's and the
/// array API's `linalg.trace(x, offset=0)`; batched, unlike the method
/// [`TensorBase::trace`], which uses the first two axes). `Err` below two axes.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::trace;
/// let a = Tensor::from_vec((0..8).collect(), [2, 2, 2]).unwrap();
/// assert_eq!(trace(&a, 0).unwrap().to_vec(), vec![3, 11]);
/// assert_eq!(trace(&a, 1).unwrap().to_vec(), vec![1, 5]);
/// ```
pub fn trace<T: Num, S: Storage<Elem = T>, D: RemoveAxis>(
    x: &TensorBase<S, D>,
    offset: isize,
) -> Result<Tensor<T, BatchDim<D>>>
where
    D::Smaller: RemoveAxis,
{
    let d = diagonal(x, offset).map_err(|e| match e {
        Error::Shape { msg, .. } => Error::shape("trace", msg),
        other => other,
    })?;
    d.sum_axes(&[-1], false)?.into_dim()
}

/// The outer product of two 1-D tensors (the array API's `linalg.outer(x1, x2)`;
/// NumPy's `np.outer`, the method [`TensorBase::outer`], flattens other shapes). `Err`
/// unless both are 1-D.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::outer;
/// let a = Tensor::from_vec(vec![1, 2], [2]).unwrap();
/// assert_eq!(outer(&a, &a).unwrap().to_vec(), vec![1, 2, 2, 4]);
/// assert!(outer(&Tensor::<i32, _>::zeros([2, 2]), &a).is_err());
/// ```
pub fn outer<T: Num, S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    x1: &TensorBase<S, D>,
    x2: &TensorBase<S2, D2>,
) -> Result<Tensor<T, Ix2>> {
    if x1.ndim() != 1 || x2.ndim() != 1 {
        return Err(Error::shape(
            "outer",
            format!(
                "input arrays must be one-dimensional, got shapes {} and {}",
                fmt_shape(x1.shape()),
                fmt_shape(x2.shape())
            ),
        ));
    }
    x1.outer(x2)
}

fn at_least_2d(shape: &[usize], op: &'static str) -> Result<()> {
    if shape.len() < 2 {
        return Err(Error::shape(
            op,
            format!("needs at least two axes, got shape {}", fmt_shape(shape)),
        ));
    }
    Ok(())
}
