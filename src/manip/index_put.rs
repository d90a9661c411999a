//! Advanced-index assignment: PyTorch `index_put` (out of place) and NumPy's in-place
//! unbuffered `add.at` along one axis (PyTorch `index_add_`).

use super::gather::walk;
use super::index::{IndexElement, resolve};
use super::{AsDynView, c_strides, owned};
use crate::element::{Element, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::{broadcast_layout, normalize_axis};
use crate::layout::{Dimension, IxDyn, Layout};
use crate::storage::{Storage, StorageMut};
use crate::tensor::Operand;
use crate::tensor::{Tensor, TensorBase, TensorView};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Shared body: validates, then calls `f(target, value)` for each assignment in
    /// row-major order of the indexed shape.
    fn index_put_with<I: IndexElement, S3: Storage<Elem = T>, D3: Dimension>(
        &self,
        indices: &[&dyn AsDynView<I>],
        values: &TensorBase<S3, D3>,
        op: &'static str,
        f: impl Fn(&mut T, T),
    ) -> Result<Tensor<T, D>> {
        let shape = self.shape().to_vec();
        let k = indices.len();
        let views: Vec<TensorView<'_, I, IxDyn>> = indices.iter().map(|v| v.as_dyn_view()).collect();
        let cs = c_strides(&shape);
        let (b, base) = super::advanced_index::index_offsets(&shape, &cs, 0, &views, op)?;
        let mut rshape = b.clone();
        rshape.extend_from_slice(&shape[k..]);
        let vl: Layout<_> = broadcast_layout(&values.layout, &rshape, op).map_err(|_| {
            Error::shape(
                op,
                format!(
                    "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
                    fmt_shape(values.shape()),
                    fmt_shape(&rshape)
                ),
            )
        })?;
        let mut tst = vec![0isize; b.len()];
        tst.extend_from_slice(&cs[k..]);
        let tsize: usize = shape[k..].iter().product();
        let mut out = self.to_vec();
        let vbuf = values.storage.buffer();
        let mut r = 0usize;
        walk(&rshape, [vl.strides(), &tst], [vl.offset(), 0], |[vo, to]| {
            f(&mut out[base[r / tsize] + to], vbuf[vo]);
            r += 1;
            Ok(())
        })?;
        owned(out, &shape, op)
    }

    /// PyTorch `index_put` (out of place, `accumulate=False`): a copy with
    /// `out[indices[0][p], indices[1][p], …] = values[p]`. The `k` index tensors (for
    /// the first `k` axes) broadcast together to a shape `B`; `values` broadcasts to `B`
    /// followed by the remaining axes. Negative indices count from the end; repeated
    /// targets keep the last write in row-major order. `Err` for indices out of range or
    /// shapes that don't broadcast. The index tensors may mix ranks and ownership kinds
    /// ([`AsDynView`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::zeros([2, 3]);
    /// let rows = Tensor::from_vec(vec![0i64, 1], [2]).unwrap();
    /// let cols = Tensor::from_vec(vec![2i64, -3], [2]).unwrap();
    /// let b = a.index_put(&[&rows, &cols], &Tensor::from_vec(vec![5, 6], [2]).unwrap()).unwrap();
    /// assert_eq!(b.to_vec(), vec![0, 0, 5, 6, 0, 0]);
    /// let r = a.index_put(&[&rows], &Tensor::scalar(1)).unwrap();   // whole rows
    /// assert_eq!(r.to_vec(), vec![1; 6]);
    /// ```
    pub fn index_put<I: IndexElement, S3: Storage<Elem = T>, D3: Dimension>(
        &self,
        indices: &[&dyn AsDynView<I>],
        values: &TensorBase<S3, D3>,
    ) -> Result<Tensor<T, D>> {
        self.index_put_with(indices, values, "index_put", |o, v| *o = v)
    }
}

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// PyTorch `index_put` with `accumulate=True`: like [`TensorBase::index_put`] but
    /// adds the values, so repeated targets accumulate.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::zeros([3]);
    /// let i = Tensor::from_vec(vec![0i64, 0, 2], [3]).unwrap();
    /// let b = a.index_put_accumulate(&[&i], &Tensor::scalar(1)).unwrap();
    /// assert_eq!(b.to_vec(), vec![2, 0, 1]);
    /// ```
    pub fn index_put_accumulate<I: IndexElement, S3: Storage<Elem = T>, D3: Dimension>(
        &self,
        indices: &[&dyn AsDynView<I>],
        values: &TensorBase<S3, D3>,
    ) -> Result<Tensor<T, D>> {
        self.index_put_with(indices, values, "index_put_accumulate", |o, v| *o = o.wadd(v))
    }
}

impl<T: Num, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// In place, along `axis`: `self[…, indices[i], …] += values[…, i, …]` for every `i`
    /// (NumPy `np.add.at(a, (slice(None),) * axis + (indices,), values)`, PyTorch
    /// `index_add_(axis, indices, values)`). Unbuffered: a repeated index accumulates
    /// every addition. `indices` is 1-D (negative entries count from the end); `values`
    /// is a scalar or a tensor that broadcasts to `self`'s shape with axis `axis` of
    /// length `indices.len()`. Integers wrap. `Err` (and nothing written) for an index
    /// out of range, an axis out of range, a non-1-D `indices` or `values` that do not
    /// broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([3, 2]);
    /// let rows = Tensor::from_vec(vec![0i64, 2, 0], [3]).unwrap();
    /// let v = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [3, 2]).unwrap();
    /// a.add_at(0, &rows, &v).unwrap();
    /// assert_eq!(a.to_vec(), vec![6, 8, 0, 0, 3, 4]);           // row 0 got rows 0 and 2 of v
    /// a.add_at(-1, &Tensor::from_vec(vec![1i64], [1]).unwrap(), 10).unwrap();
    /// assert_eq!(a.to_vec(), vec![6, 18, 0, 10, 3, 14]);
    /// let e = a.add_at(0, &Tensor::from_vec(vec![3i64], [1]).unwrap(), 1).unwrap_err();
    /// assert_eq!(e.to_string(), "add_at: index 3 is out of bounds for axis 0 with size 3");
    /// ```
    #[doc(alias = "index_add")]
    #[doc(alias = "index_add_")]
    pub fn add_at<I: IndexElement, S2: Storage<Elem = I>, D2: Dimension, O: Operand<T, D>>(
        &mut self,
        axis: isize,
        indices: &TensorBase<S2, D2>,
        values: O,
    ) -> Result<()> {
        let op = "add_at";
        let ax = normalize_axis(axis, self.ndim(), op)?;
        if indices.ndim() != 1 {
            return Err(Error::index(
                op,
                format!("indices must be 1-D, got shape {}", fmt_shape(indices.shape())),
            ));
        }
        let n = self.shape()[ax];
        let idx: Vec<usize> = indices
            .iter()
            .map(|&i| resolve(i, n, true, ax, op))
            .collect::<Result<_>>()?;
        let mut target = self.shape().to_vec();
        target[ax] = idx.len();
        let values = values.operand_view();
        let vl = broadcast_layout(&values.layout, &target, op).map_err(|_| {
            Error::shape(
                op,
                format!(
                    "values of shape {} cannot be broadcast to the indexed shape {}",
                    fmt_shape(values.shape()),
                    fmt_shape(&target)
                ),
            )
        })?;
        // `vl` has `self`'s rank (that of `target`): a view of rank type `D`.
        let vals: TensorView<'_, T, D> = super::view_with(values.storage.0, vl.into_dim()?);
        for (i, &row) in idx.iter().enumerate() {
            let src = vals.narrow(ax as isize, i as isize, 1)?;
            self.narrow_mut(ax as isize, row as isize, 1)?.try_add_assign(&src)?;
        }
        Ok(())
    }
}
