//! Advanced-index assignment: PyTorch `index_put` (out of place).

use super::advanced_index::index_offsets;
use super::gather::walk;
use super::index::IndexElement;
use super::{AsView, c_strides, owned};
use crate::element::{Element, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::broadcast_layout;
use crate::layout::{Dimension, Layout};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Shared body: validates, then calls `f(target, value)` for each assignment in
    /// row-major order of the indexed shape.
    fn index_put_with<I: IndexElement, D2: Dimension, V: AsView<I, D2>, S3: Storage<Elem = T>, D3: Dimension>(
        &self,
        indices: &[V],
        values: &TensorBase<S3, D3>,
        op: &'static str,
        f: impl Fn(&mut T, T),
    ) -> Result<Tensor<T, D>> {
        let shape = self.shape().to_vec();
        let k = indices.len();
        let cs = c_strides(&shape);
        // offsets into the row-major copy `out` below
        let (b, base) = index_offsets(&shape, &cs, 0, indices, op)?;
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
    /// shapes that don't broadcast.
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
    pub fn index_put<I: IndexElement, D2: Dimension, V: AsView<I, D2>, S3: Storage<Elem = T>, D3: Dimension>(
        &self,
        indices: &[V],
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
    pub fn index_put_accumulate<
        I: IndexElement,
        D2: Dimension,
        V: AsView<I, D2>,
        S3: Storage<Elem = T>,
        D3: Dimension,
    >(
        &self,
        indices: &[V],
        values: &TensorBase<S3, D3>,
    ) -> Result<Tensor<T, D>> {
        self.index_put_with(indices, values, "index_put_accumulate", |o, v| *o = o.wadd(v))
    }
}
