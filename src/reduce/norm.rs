//! Vector norms (L1, L2, ∞) and the numerically stable `logsumexp`.

use super::Spec;
use super::engine::Reducer;
use super::logical::MapFold;
use super::minmax::Ext;
use super::moments::Centered;
use super::pairwise::pairwise_mapped;
use super::sum::{SumOf, is_half};
use crate::element::Float;
use crate::error::Result;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// The order of a vector norm.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::reduce::NormOrd;
/// let a = Tensor::from_vec(vec![3.0, -4.0], [2]).unwrap();
/// assert_eq!(a.norm(NormOrd::L1), 7.0);
/// assert_eq!(a.norm(NormOrd::L2), 5.0);
/// assert_eq!(a.norm(NormOrd::Inf), 4.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NormOrd {
    /// Sum of absolute values.
    L1,
    /// Square root of the sum of squares (Euclidean).
    L2,
    /// Largest absolute value (0 for an empty range).
    Inf,
}

#[inline(always)]
fn max_nan<T: Float>(a: T, b: T) -> T {
    if b > a || b.is_nan() { b } else { a }
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    fn norm_impl(&self, ord: NormOrd, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        let op = "norm";
        match ord {
            NormOrd::L1 => self.sum_map(axes, keepdims, |x: T| x.abs(), op, |a, _| a, |a, _| a),
            NormOrd::L2 if is_half::<T>() => {
                // f16/bf16: squares and their sum in f32 (NumPy's float16 `dot`
                // multiplies and accumulates in float), rounded once.
                let sq = SumOf::new(|x: T| x.to_f32() * x.to_f32());
                self.reduce_map(axes, keepdims, &sq, op, |a: f32, _| T::from_f32(a.sqrt()))
            }
            NormOrd::L2 => self.sum_map(axes, keepdims, |x: T| x * x, op, |a: T, _| a.sqrt(), |a, _| a.sqrt()),
            NormOrd::Inf => self.reduce_map(
                axes,
                keepdims,
                &MapFold(T::zero(), |x: T| x.abs(), max_nan::<T>),
                op,
                |a, _| a,
            ),
        }
    }

    /// Vector norm of all elements (the tensor read as one flat vector, as
    /// `numpy.linalg.norm(a.ravel(), ord)`); NaN propagates; 0 for an empty tensor.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::NormOrd;
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 2.0, 4.0], [2, 2]).unwrap();
    /// assert_eq!(a.norm(NormOrd::L2), 5.0);
    /// ```
    pub fn norm(&self, ord: NormOrd) -> T {
        self.norm_impl(ord, None, false).expect("norm over all axes").to_vec()[0]
    }

    /// Vector norm over `axes` (each output is the norm of the vector of its reduced
    /// elements, like `torch.linalg.vector_norm`; for one axis this is
    /// `numpy.linalg.norm(a, ord, axis)`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::NormOrd;
    /// let a = Tensor::from_vec(vec![3.0, 4.0, -1.0, 0.0], [2, 2]).unwrap();
    /// assert_eq!(a.norm_axes(NormOrd::L2, &[1], false).unwrap().to_vec(), vec![5.0, 1.0]);
    /// assert_eq!(a.norm_axes(NormOrd::Inf, &[0], false).unwrap().to_vec(), vec![3.0, 4.0]);
    /// ```
    pub fn norm_axes(&self, ord: NormOrd, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.norm_impl(ord, Some(axes), keepdims)
    }

    fn logsumexp_impl(&self, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        let op = "logsumexp";
        let spec = Spec::new(self.shape(), axes, op)?;
        if spec.n_red == 0 {
            return spec.finish(vec![T::neg_infinity(); spec.n_out()], keepdims, op);
        }
        let kept: Vec<usize> = (0..spec.mask.len()).filter(|&k| !spec.mask[k]).collect();
        if kept.len() == 1 && kept[0] + 1 == spec.mask.len() && !self.is_contiguous() && self.is_f_contiguous() {
            // F-contiguous (e.g. `a.t()`) reduced over every axis but the last: each
            // output reduces one contiguous memory row of the transpose, in the same
            // order, so the transpose's fused rows below give the engine's sums here
            // (the same trees over the same runs, the same `exp`) from one read.
            let view = self.view();
            let t = view.t();
            let last = spec.mask.len() as isize - 1;
            let axes: Vec<isize> = (0..last).map(|k| last - k).collect();
            return spec.finish(t.logsumexp_impl(Some(&axes), false)?.to_vec(), keepdims, op);
        }
        if !is_half::<T>() {
            // Rows in cache: maximum and exponentials per row (as the passes below).
            let fused = self.per_row(&spec, |row| {
                let m = Ext::<true, false>.run(row[0], 0, row, 0, row.len(), 1);
                if let (true, Some(r), Some(mf)) = (
                    m.is_finite(),
                    crate::same_type::slice::<T, f32>(row),
                    crate::same_type::value::<T, f32>(m),
                ) {
                    // f32 with a finite maximum: the same sum with the leaner `exp`
                    // and the next row prefetched (`exp_sum_below_f32`).
                    return T::from_f32((0.0f32 + super::rowwise::exp_sum_below_f32(r, mf)).ln() + mf);
                }
                let m = if m.is_finite() { m } else { T::zero() };
                // `move`: a captured reference to `m` keeps the loop from vectorising.
                let e = move |x: T| super::simd::fast_exp(x - m);
                (T::zero() + pairwise_mapped(row, &e)).ln() + m
            });
            if let Some(v) = fused {
                return spec.finish(v, keepdims, op);
            }
        }
        let m: Vec<T> = self
            .reduce_raw(&spec, &Ext::<true, false>, false, op)?
            .into_iter()
            .map(|m| if m.is_finite() { m } else { T::zero() })
            .collect();
        let data = if is_half::<T>() {
            // f16/bf16: the sum of exponentials in f32, the result rounded once.
            let e = |x: T, m: T| super::simd::fast_exp(x - m).to_f32();
            let s = self.reduce_raw(&spec, &Centered(&m, e), false, op)?;
            s.into_iter()
                .zip(&m)
                .map(|(s, &m)| T::from_f32(s.ln() + m.to_f32()))
                .collect()
        } else {
            let e = |x: T, m: T| super::simd::fast_exp(x - m);
            let s = self.reduce_raw(&spec, &Centered(&m, e), false, op)?;
            s.into_iter().zip(&m).map(|(s, &m)| s.ln() + m).collect()
        };
        spec.finish(data, keepdims, op)
    }

    /// `ln(Σ exp(x))` of all elements, computed stably as `m + ln(Σ exp(x − m))` with
    /// `m` the maximum (SciPy's `logsumexp`): −∞ for an empty tensor or all −∞, +∞ if
    /// any +∞, NaN if any NaN.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1000.0, 1000.0], [2]).unwrap();
    /// assert!((a.logsumexp() - (1000.0 + 2f64.ln())).abs() < 1e-12);
    /// ```
    pub fn logsumexp(&self) -> T {
        self.logsumexp_impl(None, false)
            .expect("logsumexp over all axes")
            .to_vec()[0]
    }

    /// [`TensorBase::logsumexp`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0.0, 0.0, 1.0, f64::NEG_INFINITY], [2, 2]).unwrap();
    /// let r = a.logsumexp_axes(&[1], false).unwrap().to_vec();
    /// assert!((r[0] - 2f64.ln()).abs() < 1e-15 && r[1] == 1.0);
    /// ```
    pub fn logsumexp_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.logsumexp_impl(Some(axes), keepdims)
    }
}
