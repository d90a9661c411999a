//! Running extrema with their indices: PyTorch's `cummax` and `cummin`.

use crate::error::Result;
use crate::layout::Dimension;
use crate::layout::transform::normalize_axis;
use crate::manip::{axis_last, lane_offsets, restore_axis};
use crate::ops::Real;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Values and indices of a running extremum.
type Running<T, D> = (Tensor<T, D>, Tensor<usize, D>);

impl<T: Real, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// `replace(best, x)`: whether `x` becomes the running value.
    fn running(&self, axis: isize, op: &'static str, replace: impl Fn(T, T) -> bool) -> Result<Running<T, D>> {
        let ax = normalize_axis(axis, self.ndim().max(1), op)?;
        if self.ndim() == 0 {
            // A 0-d input is its own running extremum (PyTorch treats it as one element).
            let v = self.iter().copied().collect();
            return Ok((crate::manip::owned(v, &[], op)?, crate::manip::owned(vec![0], &[], op)?));
        }
        let view = self.view();
        let moved = axis_last(&view, ax);
        let n = moved.shape()[moved.ndim() - 1];
        let stride = moved.strides()[moved.ndim() - 1];
        let buf = moved.buffer();
        let mut vals = Vec::with_capacity(moved.size());
        let mut idx = Vec::with_capacity(moved.size());
        if n > 0 {
            for off in lane_offsets(moved.shape(), moved.strides(), moved.offset()) {
                let mut best = buf[off as usize];
                let mut at = 0usize;
                for i in 0..n {
                    let x = buf[(off + i as isize * stride) as usize];
                    if i == 0 || replace(best, x) {
                        best = x;
                        at = i;
                    }
                    vals.push(best);
                    idx.push(at);
                }
            }
        }
        Ok((
            restore_axis(vals, moved.shape(), ax, op)?,
            restore_axis(idx, moved.shape(), ax, op)?,
        ))
    }

    /// The running maximum along `axis` and where it was found (PyTorch's
    /// `cummax(input, dim)`): ties take the later index; a NaN becomes the running
    /// value from there on, each later NaN taking over the index. `Err` for an axis
    /// out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f64, 3.0, 3.0, 2.0, f64::NAN, 5.0], [6]).unwrap();
    /// let (v, i) = a.cummax(0).unwrap();
    /// assert_eq!(v.to_vec()[..4], [1.0, 3.0, 3.0, 3.0]);
    /// assert!(v.to_vec()[4..].iter().all(|x| x.is_nan()));
    /// assert_eq!(i.to_vec(), vec![0, 1, 2, 2, 4, 4]);
    /// ```
    pub fn cummax(&self, axis: isize) -> Result<Running<T, D>> {
        self.running(axis, "cummax", |best, x| {
            x.r_is_nan() || (!best.r_is_nan() && x >= best)
        })
    }

    /// The running minimum along `axis` and where it was found (PyTorch's
    /// `cummin(input, dim)`; ties and NaN as [`TensorBase::cummax`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![2, 1, 1, 3, 0], [5]).unwrap();
    /// let (v, i) = a.cummin(-1).unwrap();
    /// assert_eq!((v.to_vec(), i.to_vec()), (vec![2, 1, 1, 1, 0], vec![0, 1, 2, 2, 4]));
    /// ```
    pub fn cummin(&self, axis: isize) -> Result<Running<T, D>> {
        self.running(axis, "cummin", |best, x| {
            x.r_is_nan() || (!best.r_is_nan() && x <= best)
        })
    }
}
