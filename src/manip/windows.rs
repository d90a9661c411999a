//! Sliding windows as a zero-copy view: `sliding_window_view` (NumPy's
//! `lib.stride_tricks.sliding_window_view`, ndarray's `windows`).

use super::view_with;
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::dim::StrideVec;
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, IxDyn, Layout};
use crate::storage::Storage;
use crate::tensor::{TensorBase, TensorView};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Every window of `window_shape` as a view, never a copy (NumPy
    /// `sliding_window_view(x, window_shape, axis)`, ndarray `windows`).
    ///
    /// With `axes = None` the window covers every axis (`window_shape` has one length
    /// per axis); otherwise `window_shape[i]` slides along `axes[i]` (an axis may repeat,
    /// as in NumPy). Each windowed axis of length `n` becomes `n − w + 1` window
    /// positions, and the window's own axes are appended at the end, so the result has
    /// `ndim + window_shape.len()` axes. The windows overlap in memory: the view is
    /// read-only. `Err` for a window longer than its axis, a length mismatch or an axis
    /// out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32, _>::arange(6);
    /// let w = x.sliding_window_view(&[3], None).unwrap();
    /// assert_eq!(w.shape(), &[4, 3]);
    /// assert_eq!(w.to_vec(), vec![0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5]);
    /// assert_eq!(w.as_ptr(), x.as_ptr());                       // no copy
    /// let m = x.into_shape([2, 3]).unwrap();
    /// let cols = m.sliding_window_view(&[2], Some(&[-1])).unwrap();   // along the last axis
    /// assert_eq!(cols.shape(), &[2, 2, 2]);
    /// assert_eq!(cols.sum_axes(&[-1], false).unwrap().to_vec(), vec![1, 3, 7, 9]); // moving sums
    /// assert!(m.sliding_window_view(&[4], Some(&[1])).is_err());
    /// ```
    pub fn sliding_window_view(
        &self,
        window_shape: &[usize],
        axes: Option<&[isize]>,
    ) -> Result<TensorView<'_, T, IxDyn>> {
        let op = "sliding_window_view";
        let nd = self.ndim();
        let axes: Vec<usize> = match axes {
            None if window_shape.len() == nd => (0..nd).collect(),
            None => {
                return Err(Error::shape(
                    op,
                    format!(
                        "without axes, window_shape needs one length per axis of shape {}, got {:?}",
                        fmt_shape(self.shape()),
                        window_shape
                    ),
                ));
            }
            Some(a) if a.len() != window_shape.len() => {
                return Err(Error::shape(
                    op,
                    format!("window_shape {window_shape:?} and axes {a:?} must have the same length"),
                ));
            }
            Some(a) => a.iter().map(|&x| normalize_axis(x, nd, op)).collect::<Result<_>>()?,
        };
        let mut shape: Vec<usize> = self.shape().to_vec();
        let mut strides: StrideVec = StrideVec::from_slice(self.strides());
        for (&w, &ax) in window_shape.iter().zip(&axes) {
            if w > shape[ax] {
                return Err(Error::shape(
                    op,
                    format!(
                        "window_shape {window_shape:?} cannot be larger than the input shape {} on axis {ax}",
                        fmt_shape(self.shape())
                    ),
                ));
            }
            shape[ax] = shape[ax] + 1 - w;
            shape.push(w);
            strides.push(self.strides()[ax]);
        }
        let layout = Layout::new(IxDyn::from(shape), strides, self.offset());
        Ok(view_with(self.buffer(), layout))
    }
}
