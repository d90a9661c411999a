//! Sums, products and means (plain, NaN-skipping, and in a wider accumulator type).

use super::Spec;
use super::engine::{ROW_GROUP, Reducer, lanes, rows_group_default};
use super::pairwise::{pairwise, pairwise_par, pairwise_strided};
use crate::element::{Float, Num};
use crate::error::Result;
use crate::layout::{Dimension, IxDyn};
use crate::same_type;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use half::{bf16, f16};
use num_traits::AsPrimitive;
use std::marker::PhantomData;

/// Pairwise sum of `f(x)`: the reducer behind every float sum.
pub(crate) struct SumOf<T, U, F>(pub F, pub PhantomData<fn(T) -> U>);

impl<T: Num, U: Num, F: Fn(T) -> U + Sync> SumOf<T, U, F> {
    pub(crate) fn new(f: F) -> Self {
        SumOf(f, PhantomData)
    }
}

impl<T: Num, U: Num, F: Fn(T) -> U + Sync> Reducer<T> for SumOf<T, U, F> {
    type Acc = U;
    fn identity(&self) -> Option<U> {
        Some(U::zero())
    }
    #[inline(always)]
    fn lift(&self, x: T) -> U {
        (self.0)(x)
    }
    #[inline(always)]
    fn step(&self, acc: U, x: T) -> U {
        acc.wadd((self.0)(x))
    }
    #[inline(always)]
    fn merge(&self, a: U, b: U) -> U {
        a.wadd(b)
    }
    #[inline]
    fn run(&self, acc: U, _o: usize, buf: &[T], off: isize, len: usize, stride: isize) -> U {
        if stride == 1 {
            acc.wadd(pairwise(&buf[off as usize..off as usize + len], &self.0))
        } else {
            acc.wadd(pairwise_strided(buf, off, len, stride, &self.0))
        }
    }
    #[inline]
    fn rows_group(&self, acc: &mut [U], o: usize, os: isize, buf: &[T], off: isize, stride: isize, rs: isize) {
        if !rows_group_default(self, acc, buf, off, stride, rs) {
            for k in 0..ROW_GROUP as isize {
                self.rows(acc, o, os, buf, off + k * rs, stride);
            }
        }
    }
    fn run_par(&self, acc: U, o: usize, buf: &[T], off: isize, len: usize, stride: isize) -> U {
        if stride == 1 {
            acc.wadd(pairwise_par(&buf[off as usize..off as usize + len], &self.0))
        } else {
            self.run(acc, o, buf, off, len, stride)
        }
    }
}

/// `u` as f32 if `U` is f16 or bf16.
#[inline(always)]
pub(crate) fn half_to_f32<U: 'static + Copy>(u: U) -> Option<f32> {
    same_type::value::<U, f16>(u)
        .map(f16::to_f32)
        .or_else(|| same_type::value::<U, bf16>(u).map(bf16::to_f32))
}

/// True for f16 and bf16: their sums accumulate in f32 (see [`Sums`]).
#[inline(always)]
pub(crate) fn is_half<U: 'static>() -> bool {
    same_type::is_same::<U, f16>() || same_type::is_same::<U, bf16>()
}

/// `x` rounded to `U`, which must be f16 or bf16.
#[inline(always)]
fn f32_to_half<U: 'static + Copy>(x: f32) -> U {
    same_type::value::<f16, U>(f16::from_f32(x))
        .or_else(|| same_type::value::<bf16, U>(bf16::from_f32(x)))
        .expect("f32_to_half is only called for f16 and bf16")
}

/// Per-output sums: in the element type, or in f32 for f16/bf16 results (NumPy's
/// float16 loops accumulate in float); each is rounded once, by [`Sums::finish`].
pub(crate) enum Sums<U> {
    Plain(Vec<U>),
    Wide(Vec<f32>),
}

impl<U: Num> Sums<U> {
    /// Output `o` is `fin(sum, o)`, or for f16/bf16 `fin32(sum, o)` rounded to `U`.
    pub(crate) fn finish(self, fin: impl Fn(U, usize) -> U, fin32: impl Fn(f32, usize) -> f32) -> Vec<U> {
        match self {
            Sums::Plain(v) => v.into_iter().enumerate().map(|(o, s)| fin(s, o)).collect(),
            Sums::Wide(v) => v
                .into_iter()
                .enumerate()
                .map(|(o, s)| f32_to_half(fin32(s, o)))
                .collect(),
        }
    }
}

/// Product (wrapping for integers).
struct Prod;
impl<T: Num> Reducer<T> for Prod {
    type Acc = T;
    fn identity(&self) -> Option<T> {
        Some(T::one())
    }
    #[inline(always)]
    fn lift(&self, x: T) -> T {
        x
    }
    #[inline(always)]
    fn step(&self, acc: T, x: T) -> T {
        acc.wmul(x)
    }
    #[inline(always)]
    fn merge(&self, a: T, b: T) -> T {
        a.wmul(b)
    }
    fn run(&self, acc: T, _o: usize, buf: &[T], off: isize, len: usize, stride: isize) -> T {
        if stride == 1 {
            lanes(self, acc, &buf[off as usize..off as usize + len])
        } else {
            (0..len).fold(acc, |a, i| a.wmul(buf[(off + i as isize * stride) as usize]))
        }
    }
}

#[inline(always)]
fn id<T>(x: T) -> T {
    x
}
#[inline(always)]
fn zero_nan<T: Float>(x: T) -> T {
    if x.is_nan() { T::zero() } else { x }
}
/// The mean from an f32 sum (for f16/bf16, as NumPy's `mean` of float16: sum and divide
/// in float32, then round once).
#[inline(always)]
fn mean32(s: f32, n: usize) -> f32 {
    s / n as f32
}
#[inline(always)]
fn not_nan<T: Float>(x: T) -> usize {
    usize::from(!x.is_nan())
}

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Pairwise sums of `f(x)` per output of `spec` ([`Sums`]: in f32 for f16/bf16).
    pub(crate) fn sums<U: Num>(&self, spec: &Spec, f: impl Fn(T) -> U + Sync, op: &'static str) -> Result<Sums<U>> {
        if is_half::<U>() {
            let wide = move |x: T| half_to_f32(f(x)).unwrap_or(0.0);
            return Ok(Sums::Wide(self.reduce_raw(spec, &SumOf::new(wide), false, op)?));
        }
        Ok(Sums::Plain(self.reduce_raw(spec, &SumOf::new(f), false, op)?))
    }

    /// [`TensorBase::sums`] over `axes` (`None`: all), finished per output by `fin` /
    /// `fin32` from the sum and the reduced count.
    pub(crate) fn sum_map<U: Num>(
        &self,
        axes: Option<&[isize]>,
        keepdims: bool,
        f: impl Fn(T) -> U + Sync,
        op: &'static str,
        fin: impl Fn(U, usize) -> U,
        fin32: impl Fn(f32, usize) -> f32,
    ) -> Result<Tensor<U, IxDyn>> {
        let spec = Spec::new(self.shape(), axes, op)?;
        let n = spec.n_red;
        let v = self.sums(&spec, f, op)?.finish(|s, _| fin(s, n), |s, _| fin32(s, n));
        spec.finish(v, keepdims, op)
    }

    /// [`TensorBase::sum_map`] over all axes: the single result.
    pub(crate) fn sum_all<U: Num>(
        &self,
        f: impl Fn(T) -> U + Sync,
        op: &'static str,
        fin: impl Fn(U, usize) -> U,
        fin32: impl Fn(f32, usize) -> f32,
    ) -> U {
        let spec = Spec::new(self.shape(), None, op).expect("no axes to check");
        let n = spec.n_red;
        let v = self.sums(&spec, f, op).expect("sums have an identity");
        v.finish(|s, _| fin(s, n), |s, _| fin32(s, n))[0]
    }

    /// Sum of all elements (0 for an empty tensor). Integers keep their type and wrap
    /// (NumPy's `a.sum(dtype=a.dtype)`); floats are summed pairwise like NumPy.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// assert_eq!(a.sum(), 10);
    /// assert_eq!(Tensor::from_vec(vec![i8::MAX, 1], [2]).unwrap().sum(), i8::MIN);
    /// ```
    pub fn sum(&self) -> T {
        self.sum_all(id::<T>, "sum", |a, _| a, |a, _| a)
    }

    /// Sum over `axes` (negative axes count from the end; `&[]` reduces nothing).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect(), [2, 3]).unwrap();
    /// assert_eq!(a.sum_axes(&[1], false).unwrap().to_vec(), vec![3, 12]);
    /// assert_eq!(a.sum_axes(&[-2], true).unwrap().shape(), &[1, 3]);
    /// assert!(a.sum_axes(&[0, 0], false).is_err());
    /// ```
    pub fn sum_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.sum_map(Some(axes), keepdims, id::<T>, "sum", |a, _| a, |a, _| a)
    }

    /// Sum of all elements accumulated in type `A` (each element converted with `as`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![i32::MAX, 1], [2]).unwrap();
    /// assert_eq!(a.sum_as::<i64>(), 2147483648);
    /// ```
    pub fn sum_as<A: Num>(&self) -> A
    where
        T: AsPrimitive<A>,
    {
        self.sum_all(|x: T| x.as_(), "sum", |a, _| a, |a, _| a)
    }

    /// Sum over `axes` accumulated in type `A`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![200u8, 100, 1, 2], [2, 2]).unwrap();
    /// assert_eq!(a.sum_axes_as::<u32>(&[0], false).unwrap().to_vec(), vec![201, 102]);
    /// ```
    pub fn sum_axes_as<A: Num>(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<A, IxDyn>>
    where
        T: AsPrimitive<A>,
    {
        self.sum_map(Some(axes), keepdims, |x: T| x.as_(), "sum", |a, _| a, |a, _| a)
    }

    /// Product of all elements (1 for an empty tensor; integers wrap).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::from_vec(vec![2, 3, 4], [3]).unwrap().prod(), 24);
    /// assert_eq!(Tensor::<f64, _>::zeros([0]).prod(), 1.0);
    /// ```
    pub fn prod(&self) -> T {
        self.reduce_all(&Prod, "prod", |a, _| a).expect("prod has an identity")
    }

    /// Product over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// assert_eq!(a.prod_axes(&[0], false).unwrap().to_vec(), vec![3, 8]);
    /// ```
    pub fn prod_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.reduce_map(Some(axes), keepdims, &Prod, "prod", |a, _| a)
    }

    /// Mean of all elements in the float type `A` (elements converted with `as`, summed
    /// pairwise in `A`): the mean of an integer tensor, as NumPy's `mean` gives float64.
    /// NaN for an empty tensor.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [4]).unwrap();
    /// assert_eq!(a.mean_as::<f64>(), 2.5);
    /// ```
    pub fn mean_as<A: Float>(&self) -> A
    where
        T: AsPrimitive<A>,
    {
        self.sum_all(|x: T| x.as_(), "mean", |a: A, n| a / A::from_usize(n), mean32)
    }

    /// Mean over `axes` in the float type `A`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// assert_eq!(a.mean_axes_as::<f64>(&[1], false).unwrap().to_vec(), vec![1.5, 3.5]);
    /// ```
    pub fn mean_axes_as<A: Float>(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<A, IxDyn>>
    where
        T: AsPrimitive<A>,
    {
        self.sum_map(
            Some(axes),
            keepdims,
            |x: T| x.as_(),
            "mean",
            |a: A, n| a / A::from_usize(n),
            mean32,
        )
    }
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Means of the non-NaN elements over `axes` (`None`: all), one per output.
    fn nanmean_raw(&self, axes: Option<&[isize]>, op: &'static str) -> Result<(Vec<T>, Spec)> {
        let spec = Spec::new(self.shape(), axes, op)?;
        let counts = self.reduce_raw(&spec, &SumOf::new(not_nan::<T>), false, op)?;
        let sums = self.sums(&spec, zero_nan::<T>, op)?;
        let v = sums.finish(|s, o| s / T::from_usize(counts[o]), |s, o| s / counts[o] as f32);
        Ok((v, spec))
    }

    /// Mean of all elements (the pairwise sum divided by the count; NaN if empty).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 6.0], [2, 2]).unwrap();
    /// assert_eq!(a.mean(), 3.0);
    /// assert!(Tensor::<f64, _>::zeros([0]).mean().is_nan());
    /// ```
    pub fn mean(&self) -> T {
        self.sum_all(id::<T>, "mean", |a, n| a / T::from_usize(n), mean32)
    }

    /// Mean over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 6.0], [2, 2]).unwrap();
    /// assert_eq!(a.mean_axes(&[0], false).unwrap().to_vec(), vec![2.0, 4.0]);
    /// ```
    pub fn mean_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.sum_map(
            Some(axes),
            keepdims,
            id::<T>,
            "mean",
            |a, n| a / T::from_usize(n),
            mean32,
        )
    }

    /// Sum treating NaN as zero (NumPy's `nansum`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 2.0], [3]).unwrap();
    /// assert_eq!(a.nansum(), 3.0);
    /// ```
    pub fn nansum(&self) -> T {
        self.sum_all(zero_nan::<T>, "nansum", |a, _| a, |a, _| a)
    }

    /// [`TensorBase::nansum`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, f64::NAN, 2.0], [2, 2]).unwrap();
    /// assert_eq!(a.nansum_axes(&[1], false).unwrap().to_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn nansum_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.sum_map(Some(axes), keepdims, zero_nan::<T>, "nansum", |a, _| a, |a, _| a)
    }

    /// Mean of the non-NaN elements (NaN if there are none, as NumPy's `nanmean`, which
    /// also warns).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 2.0], [3]).unwrap();
    /// assert_eq!(a.nanmean(), 1.5);
    /// ```
    pub fn nanmean(&self) -> T {
        self.nanmean_raw(None, "nanmean").expect("no axes to check").0[0]
    }

    /// [`TensorBase::nanmean`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 4.0, 2.0], [2, 2]).unwrap();
    /// assert_eq!(a.nanmean_axes(&[0], false).unwrap().to_vec(), vec![2.5, 2.0]);
    /// ```
    pub fn nanmean_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        let (v, spec) = self.nanmean_raw(Some(axes), "nanmean")?;
        spec.finish(v, keepdims, "nanmean")
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use half::{bf16, f16};

    /// Column sums and maxima (the row-accumulate loop, rows taken four at a time and
    /// long row pieces per thread) against a sequential fold down each column — the
    /// order NumPy adds rows in, so the results are bit for bit — for row counts
    /// around the group of 4, contiguous, strided and flipped inputs (and transposed ones,
    /// whose columns are contiguous: pairwise like rows), NaN
    /// in the maxima, f32 and f64.
    #[test]
    fn column_reductions_follow_row_order() {
        use crate::storage::Storage;
        fn check<T: crate::element::Float, S: Storage<Elem = T>, D: crate::layout::Dimension>(
            x: &TensorBase<S, D>,
            tag: &str,
        ) {
            let (r, c) = (x.shape()[0], x.shape()[1]);
            let v = x.to_vec();
            let got = x.sum_axes(&[0], false).unwrap().to_vec();
            let got_max = x.max_axes(&[0], false).unwrap().to_vec();
            let mut vn = v.clone();
            vn[r / 2 * c + c / 3] = T::from_f64(f64::NAN);
            let got_nan = Tensor::from_vec(vn, [r, c])
                .unwrap()
                .max_axes(&[0], false)
                .unwrap()
                .to_vec();
            for j in 0..c {
                let want = (0..r).fold(T::zero(), |acc, i| acc + v[i * c + j]);
                assert_eq!(
                    got[j].to_f64().to_bits(),
                    want.to_f64().to_bits(),
                    "sum {tag} {r}x{c} column {j}"
                );
                let m = (0..r).fold(v[j], |acc, i| if v[i * c + j] > acc { v[i * c + j] } else { acc });
                assert!(got_max[j] == m, "max {tag} {r}x{c} column {j}");
                assert_eq!(got_nan[j].is_nan(), j == c / 3, "NaN max {tag} column {j}");
                assert!(j == c / 3 || got_nan[j] == m);
            }
        }
        fn one<T: crate::element::Float>() {
            let sizes: &[(usize, usize)] = if cfg!(miri) {
                &[(5, 3), (9, 20)]
            } else {
                &[(1, 300), (3, 130), (4, 129), (7, 1000), (33, 4100)]
            };
            for &(r, c) in sizes {
                let v: Vec<T> = (0..(r + 1) * (2 * c + 1))
                    .map(|i| T::from_f64(((i * 7919) % 1013) as f64 * 0.37 - 150.0))
                    .collect();
                let base = Tensor::from_vec(v, [r + 1, 2 * c + 1]).unwrap();
                check(&base.slice(s![..r, ..c]).to_owned(), "contiguous");
                check(&base.slice(s![1.., 1..c + 1]), "offset rows");
                check(&base.slice(s![..;-1, ..2 * c;2]), "flipped, strided");
                let tt = base.slice(s![..r, ..c]).t().to_owned();
                // Down a transpose the columns are contiguous: pairwise, as rows of `tt`.
                let bits =
                    |t: Tensor<T, IxDyn>| t.to_vec().into_iter().map(|v| v.to_f64().to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(tt.t().sum_axes(&[0], false).unwrap()),
                    bits(tt.sum_axes(&[1], false).unwrap())
                );
                assert_eq!(
                    bits(tt.t().max_axes(&[0], false).unwrap()),
                    bits(tt.max_axes(&[1], false).unwrap())
                );
            }
        }
        one::<f32>();
        one::<f64>();
    }

    #[test]
    fn half_sums_use_f32() {
        // 300 · f16(0.1) in f32 is 29.99..., rounded once: 30. An f16 accumulator
        // along a column (as NumPy's axis-0 loop) would drift.
        let a = Tensor::<f16, _>::full([300], f16::from_f32(0.1));
        assert_eq!(a.sum(), f16::from_f32(30.0));
        assert_eq!(a.mean(), f16::from_f32(0.1));
        let b = a.reshape([100, 3]).unwrap();
        let col = f16::from_f32(100.0 * f16::from_f32(0.1).to_f32());
        assert_eq!(b.sum_axes(&[0], false).unwrap().to_vec(), vec![col; 3]);
        assert_eq!(b.var_axes(&[0], false, 0).unwrap().to_vec(), vec![f16::ZERO; 3]);
        let c = Tensor::<bf16, _>::full([300], bf16::from_f32(0.1));
        assert_eq!(c.sum(), bf16::from_f32(300.0 * bf16::from_f32(0.1).to_f32()));
        assert_eq!(Tensor::from_vec(vec![1.0f32, 2.0], [2]).unwrap().sum(), 3.0);
    }
}
