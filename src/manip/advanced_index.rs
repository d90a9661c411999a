//! NumPy advanced (integer-array) indexing of the leading axes: `x[i0, i1, …]` with
//! index tensors, the read twin of [`index_put`](crate::TensorBase::index_put). Both
//! share the offset computation here.

use super::AsView;
use super::gather::walk;
use super::index::{IndexElement, resolve};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::{broadcast_layout, broadcast_shapes};
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};

/// The broadcast shape `B` of `k` index tensors and, for every position of `B` in
/// row-major order, the buffer offset `base + Σ_j idx_j · strides[j]` of the element they
/// select in an array of shape `shape`. Negative indices count from the end; `Err` for
/// an index out of range, index shapes that do not broadcast, or `k` outside `1..=ndim`.
pub(super) fn index_offsets<I: IndexElement, D2: Dimension>(
    shape: &[usize],
    strides: &[isize],
    base: usize,
    views: &[TensorView<'_, I, D2>],
    op: &'static str,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let k = views.len();
    if k == 0 || k > shape.len() {
        return Err(Error::index(
            op,
            format!(
                "{k} index tensors given for a tensor of shape {} (need 1 to {})",
                fmt_shape(shape),
                shape.len()
            ),
        ));
    }
    let mut b: Vec<usize> = views[0].shape().to_vec();
    for v in &views[1..] {
        b = broadcast_shapes(&b, v.shape(), op)
            .map_err(|_| {
                let s: Vec<String> = views.iter().map(|v| fmt_shape(v.shape())).collect();
                Error::shape(
                    op,
                    format!(
                        "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                        s.join(", ")
                    ),
                )
            })?
            .to_vec();
    }
    let nb: usize = b.iter().product();
    let mut offsets = vec![base as isize; nb];
    for (j, v) in views.iter().enumerate() {
        let l = broadcast_layout(v.layout(), &b, op)?;
        let idx = crate::iter::gather_c_order(v.storage.0, &l);
        for (t, &i) in offsets.iter_mut().zip(&idx) {
            *t += resolve(i, shape[j], true, j, op)? as isize * strides[j];
        }
    }
    Ok((b, offsets.into_iter().map(|o| o as usize).collect()))
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// NumPy advanced indexing `x[i0, i1, …]` of the first `k` axes by `k` integer index
    /// tensors: they broadcast together to a shape `B`, and the result has shape `B`
    /// followed by the remaining axes, `out[b, r…] = x[i0[b], i1[b], …, r…]`. Negative
    /// indices count from the end. A copy; `Err` for an index out of range, index shapes
    /// that do not broadcast, or no index tensor / more than `ndim`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32>::arange(12).into_shape([3, 4]).unwrap();
    /// let rows = Tensor::from_vec(vec![0i64, 2, -1], [3]).unwrap();
    /// let cols = Tensor::from_vec(vec![1i64, 3, 0], [3]).unwrap();
    /// assert_eq!(x.advanced_index(&[&rows, &cols]).unwrap().to_vec(), vec![1, 11, 8]);
    /// let picked = x.advanced_index(&[&Tensor::from_vec(vec![2i64, 0], [2, 1]).unwrap()]).unwrap();
    /// assert_eq!(picked.shape(), &[2, 1, 4]);                     // whole rows
    /// assert!(x.advanced_index(&[&Tensor::scalar(3i64)]).is_err()); // out of range
    /// ```
    pub fn advanced_index<I: IndexElement, D2: Dimension, V: AsView<I, D2>>(
        &self,
        indices: &[V],
    ) -> Result<Tensor<T, IxDyn>> {
        let op = "advanced_index";
        let shape = self.shape();
        let views: Vec<TensorView<'_, I, D2>> = indices.iter().map(|v| v.as_view()).collect();
        let (b, offsets) = index_offsets(shape, self.strides(), self.offset(), &views, op)?;
        let k = indices.len();
        let rest = &shape[k..];
        let rest_strides = &self.strides()[k..];
        let mut out = Vec::with_capacity(offsets.len() * rest.iter().product::<usize>());
        let buf = self.storage.buffer();
        for &o in &offsets {
            walk(rest, [rest_strides], [o], |[p]| {
                out.push(buf[p]);
                Ok(())
            })?;
        }
        let mut rshape = b;
        rshape.extend_from_slice(rest);
        super::owned(out, &rshape, op)
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn strided_and_flipped_sources() {
        let x = Tensor::<i64>::arange(24).into_shape([2, 3, 4]).unwrap();
        let v = x.slice(s![..;-1, .., 1..;2]); // (2, 3, 2), negative stride on axis 0
        let i = Tensor::from_vec(vec![0i32, 1, 1], [3]).unwrap();
        let j = Tensor::from_vec(vec![2i32], [1]).unwrap();
        let r = v.advanced_index(&[&i, &j]).unwrap();
        assert_eq!(r.shape(), &[3, 2]);
        assert_eq!(r.to_vec(), vec![21, 23, 9, 11, 9, 11]);
        let all = v
            .advanced_index(&[&i, &j, &Tensor::from_vec(vec![-1i32], [1]).unwrap()])
            .unwrap();
        assert_eq!(all.to_vec(), vec![23, 11, 11]);
    }

    #[test]
    fn empty_and_broadcast_indices() {
        let x = Tensor::<f32>::arange(6).into_shape([2, 3]).unwrap();
        let none = Tensor::<i64, _>::zeros([0]);
        assert_eq!(x.advanced_index(&[&none]).unwrap().shape(), &[0, 3]);
        let r = Tensor::from_vec(vec![0i64, 1], vec![2, 1]).unwrap();
        let c = Tensor::from_vec(vec![0i64, 1, 2], vec![3]).unwrap();
        let g = x.advanced_index(&[&r, &c]).unwrap();
        assert_eq!(g.shape(), &[2, 3]);
        assert_eq!(g.to_vec(), x.to_vec());
        let empty = Tensor::<f32, _>::zeros([0, 3]);
        assert!(empty.advanced_index(&[&Tensor::scalar(0i64)]).is_err());
    }

    #[test]
    fn errors_name_the_operation() {
        let x = Tensor::<u8, _>::zeros([2, 2]);
        let a = Tensor::from_vec(vec![0i64, 1], [2]).unwrap();
        let b = Tensor::from_vec(vec![0i64, 1, 0], [3]).unwrap();
        let e = x.advanced_index(&[&a, &b]).unwrap_err().to_string();
        assert!(e.starts_with("advanced_index: shape mismatch"), "{e}");
        let e = x.advanced_index(&[&a, &a, &a]).unwrap_err().to_string();
        assert!(e.starts_with("advanced_index: 3 index tensors"), "{e}");
    }
}
