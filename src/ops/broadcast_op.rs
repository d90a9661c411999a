//! Corresponding-dimension broadcasting (the easytensor seed): pair axes of two tensors
//! explicitly; the result has `self`'s axes followed by `other`'s unpaired axes.

use super::core::from_c_vec;
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::zip::{Src, zip_new};
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// `f(a, b)` over `self`'s axes followed by `other`'s unpaired axes, where each pair
    /// `(self_axis, other_axis)` makes the two axes one (lengths equal, or one of them
    /// 1 and broadcast). With no pairs this is the outer product. `Err` for an axis out
    /// of range, an axis paired twice, or lengths that differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// // matmul rebuilt: pair a's columns with b's rows, then sum over the middle axis.
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    /// let b = Tensor::from_vec(vec![5.0, 6.0, 7.0, 8.0], [2, 2]).unwrap();
    /// let p = a.broadcast_op(&b, &[(1, 0)], |x, y| x * y).unwrap();   // (i, k, j)
    /// assert_eq!(p.shape(), &[2, 2, 2]);
    /// let v = p.to_vec();
    /// let c: Vec<f64> = (0..4).map(|ij| { let (i, j) = (ij / 2, ij % 2); v[i * 4 + j] + v[i * 4 + 2 + j] }).collect();
    /// assert_eq!(c, vec![19.0, 22.0, 43.0, 50.0]);
    /// let outer = Tensor::from_vec(vec![1, 2], [2]).unwrap()
    ///     .broadcast_op(&Tensor::from_vec(vec![10, 20, 30], [3]).unwrap(), &[], |x, y| x * y).unwrap();
    /// assert_eq!(outer.shape(), &[2, 3]);
    /// ```
    pub fn broadcast_op<B: Element, U: Send, S2: Storage<Elem = B>, D2: Dimension>(
        &self,
        other: &TensorBase<S2, D2>,
        pairs: &[(isize, isize)],
        f: impl Fn(T, B) -> U + Sync,
    ) -> Result<Tensor<U, IxDyn>> {
        let op = "broadcast_op";
        let (na, nb) = (self.ndim(), other.ndim());
        let mut partner: Vec<Option<usize>> = vec![None; na];
        let mut paired_b = vec![false; nb];
        let mut shape: Vec<usize> = self.shape().to_vec();
        let mut a_strides: Vec<isize> = self.strides().to_vec();
        for &(x, y) in pairs {
            let (i, j) = (normalize_axis(x, na, op)?, normalize_axis(y, nb, op)?);
            if partner[i].is_some() || paired_b[j] {
                return Err(Error::axis(op, format!("axis paired twice in {pairs:?}")));
            }
            let (la, lb) = (self.shape()[i], other.shape()[j]);
            if la != lb && la != 1 && lb != 1 {
                return Err(Error::shape(
                    op,
                    format!(
                        "paired axes {x} and {y} of shapes {} and {} have lengths {la} and {lb}",
                        fmt_shape(self.shape()),
                        fmt_shape(other.shape())
                    ),
                ));
            }
            if la == 1 && lb != 1 {
                shape[i] = lb;
                a_strides[i] = 0;
            }
            partner[i] = Some(j);
            paired_b[j] = true;
        }
        let b_of = |j: usize| if other.shape()[j] == 1 { 0 } else { other.strides()[j] };
        let mut b_strides: Vec<isize> = partner.iter().map(|p| p.map_or(0, b_of)).collect();
        for j in (0..nb).filter(|&j| !paired_b[j]) {
            shape.push(other.shape()[j]);
            a_strides.push(0);
            b_strides.push(other.strides()[j]);
        }
        crate::layout::checked_size(&shape, op)?;
        let data = zip_new(
            &shape,
            Src::new(self.storage.buffer(), &a_strides, self.offset()),
            Src::new(other.storage.buffer(), &b_strides, other.offset()),
            f,
        );
        Ok(from_c_vec(data, &shape))
    }
}
