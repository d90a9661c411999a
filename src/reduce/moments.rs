//! Variance and standard deviation (two passes, as NumPy: mean, then the pairwise sum
//! of squared deviations).

use super::Spec;
use super::engine::Reducer;
use super::pairwise::{pairwise, pairwise_mapped, pairwise_strided};
use super::sum::is_half;
use crate::element::Float;
use crate::error::Result;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Pairwise sum of `f(x, c[o])`, `c[o]` being a per-output centre (the mean for the
/// variance, the maximum for `logsumexp`), accumulated in `f`'s result type `A` (f32
/// for f16/bf16 elements).
pub(crate) struct Centered<'m, T, F>(pub &'m [T], pub F);

impl<T: Float, A: Float, F: Fn(T, T) -> A + Sync> Reducer<T> for Centered<'_, T, F> {
    type Acc = A;
    fn identity(&self) -> Option<A> {
        Some(A::zero())
    }
    // `lift` and `step` do not know the output's centre; the engine reaches them only
    // through the default `run`/`rows` (overridden here) or without an identity.
    fn lift(&self, _x: T) -> A {
        unreachable!("Centered has an identity")
    }
    fn step(&self, _acc: A, _x: T) -> A {
        unreachable!("Centered overrides run and rows")
    }
    #[inline(always)]
    fn merge(&self, a: A, b: A) -> A {
        a + b
    }
    fn run(&self, acc: A, o: usize, buf: &[T], off: isize, len: usize, stride: isize) -> A {
        let m = self.0[o];
        let g = &self.1;
        let f = move |x: T| g(x, m);
        if stride == 1 {
            acc + pairwise_mapped(&buf[off as usize..off as usize + len], &f)
        } else {
            acc + pairwise_strided(buf, off, len, stride, &f)
        }
    }
    fn rows(&self, acc: &mut [A], o: usize, os: isize, buf: &[T], off: isize, stride: isize) {
        if stride == 1 && os == 1 {
            let row = &buf[off as usize..off as usize + acc.len()];
            let ms = &self.0[o..o + row.len()];
            super::simd::dispatch(CenteredRowsK(acc, row, ms, &self.1));
        } else {
            for (j, a) in acc.iter_mut().enumerate() {
                let x = buf[(off + j as isize * stride) as usize];
                let m = self.0[(o as isize + j as isize * os) as usize];
                *a = *a + (self.1)(x, m);
            }
        }
    }
}

/// `acc[j] += f(row[j], m[j])` as a vector [`Kernel`](super::simd::Kernel).
struct CenteredRowsK<'a, T, A, F>(&'a mut [A], &'a [T], &'a [T], &'a F);
impl<T: Float, A: Float, F: Fn(T, T) -> A> super::simd::Kernel for CenteredRowsK<'_, T, A, F> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        let CenteredRowsK(acc, row, ms, f) = self;
        for ((a, &x), &m) in acc.iter_mut().zip(row).zip(ms) {
            *a = *a + f(x, m);
        }
    }
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Variances over `axes` (`None`: all), one per output in row-major order.
    fn var_raw(&self, axes: Option<&[isize]>, ddof: usize, op: &'static str) -> Result<(Vec<T>, Spec)> {
        let spec = Spec::new(self.shape(), axes, op)?;
        let n = spec.n_red;
        let dof = n.saturating_sub(ddof);
        if !is_half::<T>() {
            // Rows in cache: both passes per row (the same sums as below).
            let div = T::from_usize(dof);
            let fused = self.per_row(&spec, |row| {
                let m = T::zero().wadd(pairwise(row, &|x: T| x)) / T::from_usize(n);
                // `pairwise` with the deviation inline: the tree of `pairwise_mapped`
                // (the engine's pass), so the same sum, without the buffer.
                (T::zero() + pairwise(row, &move |x: T| (x - m) * (x - m))) / div
            });
            if let Some(v) = fused {
                return Ok((v, spec));
            }
        }
        let means = self
            .sums(&spec, |x: T| x, op)?
            .finish(|s, _| s / T::from_usize(n), |s, _| s / n as f32);
        let v = if is_half::<T>() {
            // f16/bf16: deviations and squares in the element type (as NumPy), their
            // sum in f32, rounded once.
            let sq = |x: T, m: T| ((x - m) * (x - m)).to_f32();
            let s = self.reduce_raw(&spec, &Centered(&means, sq), false, op)?;
            s.into_iter().map(|s| T::from_f32(s / dof as f32)).collect()
        } else {
            let s = self.reduce_raw(&spec, &Centered(&means, |x: T, m: T| (x - m) * (x - m)), false, op)?;
            let div = T::from_usize(dof);
            s.into_iter().map(|s| s / div).collect()
        };
        Ok((v, spec))
    }

    /// Variance of all elements with `ddof` delta degrees of freedom: the sum of squared
    /// deviations from the mean divided by `max(n − ddof, 0)` (NaN if empty; infinite
    /// or NaN when `ddof ≥ n`, as NumPy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    /// assert_eq!(a.var(0), 1.25);
    /// assert_eq!(a.var(1), 5.0 / 3.0);
    /// ```
    pub fn var(&self, ddof: usize) -> T {
        self.var_raw(None, ddof, "var").expect("var over all axes").0[0]
    }

    /// Standard deviation of all elements: `sqrt(var(ddof))`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f32, 3.0], [2]).unwrap();
    /// assert_eq!(a.std(0), 1.0);
    /// ```
    pub fn std(&self, ddof: usize) -> T {
        self.var(ddof).sqrt()
    }

    /// Variance over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 5.0], [2, 2]).unwrap();
    /// assert_eq!(a.var_axes(&[1], false, 0).unwrap().to_vec(), vec![0.25, 1.0]);
    /// ```
    pub fn var_axes(&self, axes: &[isize], keepdims: bool, ddof: usize) -> Result<Tensor<T, IxDyn>> {
        let (v, spec) = self.var_raw(Some(axes), ddof, "var")?;
        spec.finish(v, keepdims, "var")
    }

    /// Standard deviation over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 3.0, 3.0, 7.0], [2, 2]).unwrap();
    /// assert_eq!(a.std_axes(&[1], true, 0).unwrap().to_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn std_axes(&self, axes: &[isize], keepdims: bool, ddof: usize) -> Result<Tensor<T, IxDyn>> {
        let (v, spec) = self.var_raw(Some(axes), ddof, "std")?;
        spec.finish(v.into_iter().map(|x| x.sqrt()).collect(), keepdims, "std")
    }
}
