//! Maximum, minimum (NaN-propagating and NaN-skipping) and peak-to-peak.

use super::engine::{ROW_GROUP, Reducer, rows_default, rows_group_default, run_default};
use super::kernels;
use crate::element::{Element, Num};
use crate::error::Result;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Extremum reducer: `MAX` picks the larger value; `SKIP` ignores NaN (NumPy's
/// `nanmax`), otherwise NaN wins (NumPy's `max`).
pub(crate) struct Ext<const MAX: bool, const SKIP: bool>;

impl<const MAX: bool, const SKIP: bool> Ext<MAX, SKIP> {
    /// `x` replaces `acc`.
    #[inline(always)]
    pub(crate) fn takes<T: PartialOrd>(acc: T, x: T) -> bool {
        #[allow(clippy::eq_op)]
        let (x_nan, acc_nan) = (x != x, acc != acc);
        let better = if MAX { x > acc } else { x < acc };
        if SKIP { better || acc_nan } else { better || x_nan }
    }
}

impl<T: Element + PartialOrd, const MAX: bool, const SKIP: bool> Reducer<T> for Ext<MAX, SKIP> {
    type Acc = T;
    fn identity(&self) -> Option<T> {
        None
    }
    #[inline(always)]
    fn lift(&self, x: T) -> T {
        x
    }
    #[inline(always)]
    fn step(&self, acc: T, x: T) -> T {
        if Self::takes(acc, x) { x } else { acc }
    }
    #[inline(always)]
    fn merge(&self, a: T, b: T) -> T {
        self.step(a, b)
    }
    #[inline]
    fn run(&self, acc: T, _o: usize, buf: &[T], off: isize, len: usize, stride: isize) -> T {
        if stride == 1 {
            let x = &buf[off as usize..off as usize + len];
            if let Some(m) = kernels::ext::<T, MAX, SKIP>(x) {
                return self.merge(acc, m);
            }
        }
        run_default(self, acc, buf, off, len, stride)
    }
    #[inline]
    fn rows(&self, acc: &mut [T], _o: usize, _os: isize, buf: &[T], off: isize, stride: isize) {
        if stride == 1 && kernels::rows::<T, MAX, SKIP>(acc, &buf[off as usize..off as usize + acc.len()]) {
            return;
        }
        rows_default(self, acc, buf, off, stride)
    }
    #[inline]
    fn rows_group(&self, acc: &mut [T], o: usize, os: isize, buf: &[T], off: isize, stride: isize, rs: isize) {
        if stride == 1 && ROW_GROUP == 4 {
            let n = acc.len();
            let rows: [&[T]; 4] = std::array::from_fn(|k| {
                let s = (off + k as isize * rs) as usize;
                &buf[s..s + n]
            });
            if kernels::rows4::<T, MAX, SKIP>(acc, rows) {
                return;
            }
        }
        if !rows_group_default(self, acc, buf, off, stride, rs) {
            for k in 0..ROW_GROUP as isize {
                self.rows(acc, o, os, buf, off + k * rs, stride);
            }
        }
    }
}

/// Maximum and minimum together (for `ptp`).
struct Range2;
impl<T: Element + PartialOrd> Reducer<T> for Range2 {
    type Acc = (T, T);
    fn identity(&self) -> Option<(T, T)> {
        None
    }
    #[inline(always)]
    fn lift(&self, x: T) -> (T, T) {
        (x, x)
    }
    #[inline(always)]
    fn step(&self, (hi, lo): (T, T), x: T) -> (T, T) {
        (Ext::<true, false>.step(hi, x), Ext::<false, false>.step(lo, x))
    }
    #[inline(always)]
    fn merge(&self, a: (T, T), b: (T, T)) -> (T, T) {
        (Ext::<true, false>.step(a.0, b.0), Ext::<false, false>.step(a.1, b.1))
    }
}

macro_rules! extremum {
    ($(#[$doc:meta])* $name:ident, $(#[$doc_axes:meta])* $name_axes:ident, $max:literal, $skip:literal, $op:literal) => {
        $(#[$doc])*
        pub fn $name(&self) -> Result<T> {
            self.reduce_all(&Ext::<$max, $skip>, $op, |a, _| a)
        }
        $(#[$doc_axes])*
        pub fn $name_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
            self.reduce_map(Some(axes), keepdims, &Ext::<$max, $skip>, $op, |a, _| a)
        }
    };
}

impl<T: Element + PartialOrd, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    extremum!(
        /// Largest element; NaN if any element is NaN; `Err` if the tensor is empty.
        ///
        /// ```
        /// use ferrotensor::prelude::*;
        /// let a = Tensor::from_vec(vec![3, 9, 2], [3]).unwrap();
        /// assert_eq!(a.max().unwrap(), 9);
        /// assert!(Tensor::<f32, _>::zeros([0]).max().is_err());
        /// assert!(Tensor::from_vec(vec![1.0, f64::NAN], [2]).unwrap().max().unwrap().is_nan());
        /// ```
        max,
        /// Largest element over `axes`; `Err` exactly when the reduced size is 0.
        ///
        /// ```
        /// use ferrotensor::prelude::*;
        /// let a = Tensor::from_vec(vec![3, 9, 2, 4], [2, 2]).unwrap();
        /// assert_eq!(a.max_axes(&[0], false).unwrap().to_vec(), vec![3, 9]);
        /// let e = Tensor::<f64, _>::zeros([0, 3]);
        /// assert_eq!(e.max_axes(&[1], false).unwrap().shape(), &[0]);
        /// assert!(e.max_axes(&[0], false).is_err());
        /// ```
        max_axes, true, false, "max"
    );
    extremum!(
        /// Smallest element; NaN if any element is NaN; `Err` if the tensor is empty.
        ///
        /// ```
        /// use ferrotensor::prelude::*;
        /// assert_eq!(Tensor::from_vec(vec![3, 9, 2], [3]).unwrap().min().unwrap(), 2);
        /// ```
        min,
        /// Smallest element over `axes` (see [`TensorBase::max_axes`]).
        ///
        /// ```
        /// use ferrotensor::prelude::*;
        /// let a = Tensor::from_vec(vec![3, 9, 2, 4], [2, 2]).unwrap();
        /// assert_eq!(a.min_axes(&[1], true).unwrap().to_vec(), vec![3, 2]);
        /// ```
        min_axes, false, false, "min"
    );
    extremum!(
        /// Largest non-NaN element; NaN if all are NaN (NumPy warns); `Err` if empty.
        ///
        /// ```
        /// use ferrotensor::prelude::*;
        /// let a = Tensor::from_vec(vec![f64::NAN, 1.0, 3.0], [3]).unwrap();
        /// assert_eq!(a.nanmax().unwrap(), 3.0);
        /// ```
        nanmax,
        /// [`TensorBase::nanmax`] over `axes`.
        ///
        /// ```
        /// use ferrotensor::prelude::*;
        /// let a = Tensor::from_vec(vec![f64::NAN, 1.0, f64::NAN, f64::NAN], [2, 2]).unwrap();
        /// let m = a.nanmax_axes(&[1], false).unwrap().to_vec();
        /// assert!(m[0] == 1.0 && m[1].is_nan());
        /// ```
        nanmax_axes, true, true, "nanmax"
    );
    extremum!(
        /// Smallest non-NaN element; NaN if all are NaN; `Err` if empty.
        ///
        /// ```
        /// use ferrotensor::prelude::*;
        /// let a = Tensor::from_vec(vec![f64::NAN, 1.0, 3.0], [3]).unwrap();
        /// assert_eq!(a.nanmin().unwrap(), 1.0);
        /// ```
        nanmin,
        /// [`TensorBase::nanmin`] over `axes`.
        ///
        /// ```
        /// use ferrotensor::prelude::*;
        /// let a = Tensor::from_vec(vec![f64::NAN, 1.0, 0.5, f64::NAN], [2, 2]).unwrap();
        /// assert_eq!(a.nanmin_axes(&[0], false).unwrap().to_vec(), vec![0.5, 1.0]);
        /// ```
        nanmin_axes, false, true, "nanmin"
    );
}

impl<T: Num + PartialOrd, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Peak to peak: `max − min` (NaN if any NaN; integers wrap; `Err` if empty).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::from_vec(vec![3, 9, 2], [3]).unwrap().ptp().unwrap(), 7);
    /// ```
    pub fn ptp(&self) -> Result<T> {
        self.reduce_all(&Range2, "ptp", |(hi, lo), _| hi.wsub(lo))
    }

    /// [`TensorBase::ptp`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3, 9, 2, 4], [2, 2]).unwrap();
    /// assert_eq!(a.ptp_axes(&[0], false).unwrap().to_vec(), vec![1, 5]);
    /// ```
    pub fn ptp_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.reduce_map(Some(axes), keepdims, &Range2, "ptp", |(hi, lo), _| hi.wsub(lo))
    }
}
