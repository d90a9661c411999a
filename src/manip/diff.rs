//! Discrete differences: `diff`.

use super::{c_strides, need_rank, owned};
use crate::element::Num;
use crate::error::Result;
use crate::iter::Src;
use crate::layout::Dimension;
use crate::layout::transform::normalize_axis;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// The `n`-th discrete difference along `axis` (NumPy `diff`): `out[i] = a[i + 1] -
    /// a[i]`, applied `n` times, so the axis shrinks by `n` (to 0 when `n` ≥ its length).
    /// `n = 0` returns a copy. Integer differences wrap like NumPy's. `Err` for a 0-d
    /// input or an axis out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 4, 7, 0], [5]).unwrap();
    /// assert_eq!(a.diff(1, 0).unwrap().to_vec(), vec![1, 2, 3, -7]);
    /// assert_eq!(a.diff(2, -1).unwrap().to_vec(), vec![1, 1, -10]);
    /// ```
    pub fn diff(&self, n: usize, axis: isize) -> Result<Tensor<T, D>> {
        let op = "diff";
        need_rank(self.shape(), 1, op)?;
        let ax = normalize_axis(axis, self.ndim(), op)?;
        let mut shape = self.shape().to_vec();
        let mut cur: Option<Vec<T>> = None;
        for _ in 0..n {
            if shape[ax] == 0 {
                break;
            }
            let in_shape = shape.clone();
            shape[ax] -= 1;
            let (buf, strides, off): (&[T], Vec<isize>, usize) = match &cur {
                Some(v) => (v, c_strides(&in_shape), 0),
                None => (self.storage.buffer(), self.strides().to_vec(), self.offset()),
            };
            let next = (off as isize + strides[ax]) as usize;
            let out = crate::iter::zip::zip_new(
                &shape,
                Src::new(buf, &strides, next),
                Src::new(buf, &strides, off),
                |hi: T, lo: T| hi.wsub(lo),
            );
            cur = Some(out);
        }
        match cur {
            Some(v) => owned(v, &shape, op),
            None => owned(self.to_vec(), &shape, op),
        }
    }
}
