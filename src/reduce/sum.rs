//! Sums, products and means (plain, NaN-skipping, and in a wider accumulator type).

use super::engine::{Reducer, lanes};
use super::pairwise::{pairwise, pairwise_par, pairwise_strided};
use crate::element::{Float, Num};
use crate::error::Result;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
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
    fn run_par(&self, acc: U, o: usize, buf: &[T], off: isize, len: usize, stride: isize) -> U {
        if stride == 1 {
            acc.wadd(pairwise_par(&buf[off as usize..off as usize + len], &self.0))
        } else {
            self.run(acc, o, buf, off, len, stride)
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
#[inline(always)]
fn not_nan<T: Float>(x: T) -> usize {
    usize::from(!x.is_nan())
}

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
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
        self.reduce_all(&SumOf::new(id::<T>), "sum", |a, _| a)
            .expect("sum has an identity")
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
        self.reduce_map(Some(axes), keepdims, &SumOf::new(id::<T>), "sum", |a, _| a)
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
        self.reduce_all(&SumOf::new(|x: T| x.as_()), "sum", |a, _| a)
            .expect("sum has an identity")
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
        self.reduce_map(Some(axes), keepdims, &SumOf::new(|x: T| x.as_()), "sum", |a, _| a)
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
        self.reduce_all(&SumOf::new(|x: T| x.as_()), "mean", |a: A, n| a / A::from_usize(n))
            .expect("mean has an identity")
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
        self.reduce_map(Some(axes), keepdims, &SumOf::new(|x: T| x.as_()), "mean", |a: A, n| {
            a / A::from_usize(n)
        })
    }
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Mean of all elements (the pairwise sum divided by the count; NaN if empty).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 6.0], [2, 2]).unwrap();
    /// assert_eq!(a.mean(), 3.0);
    /// assert!(Tensor::<f64, _>::zeros([0]).mean().is_nan());
    /// ```
    pub fn mean(&self) -> T {
        self.reduce_all(&SumOf::new(id::<T>), "mean", |a, n| a / T::from_usize(n))
            .expect("mean has an identity")
    }

    /// Mean over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 6.0], [2, 2]).unwrap();
    /// assert_eq!(a.mean_axes(&[0], false).unwrap().to_vec(), vec![2.0, 4.0]);
    /// ```
    pub fn mean_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.reduce_map(Some(axes), keepdims, &SumOf::new(id::<T>), "mean", |a, n| {
            a / T::from_usize(n)
        })
    }

    /// Sum treating NaN as zero (NumPy's `nansum`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 2.0], [3]).unwrap();
    /// assert_eq!(a.nansum(), 3.0);
    /// ```
    pub fn nansum(&self) -> T {
        self.reduce_all(&SumOf::new(zero_nan::<T>), "nansum", |a, _| a)
            .expect("nansum has an identity")
    }

    /// [`TensorBase::nansum`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, f64::NAN, 2.0], [2, 2]).unwrap();
    /// assert_eq!(a.nansum_axes(&[1], false).unwrap().to_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn nansum_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.reduce_map(Some(axes), keepdims, &SumOf::new(zero_nan::<T>), "nansum", |a, _| a)
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
        let s = self.nansum();
        let n = self
            .reduce_all(&SumOf::new(not_nan::<T>), "nanmean", |a, _| a)
            .expect("count has an identity");
        s / T::from_usize(n)
    }

    /// [`TensorBase::nanmean`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 4.0, 2.0], [2, 2]).unwrap();
    /// assert_eq!(a.nanmean_axes(&[0], false).unwrap().to_vec(), vec![2.5, 2.0]);
    /// ```
    pub fn nanmean_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        let s = self.nansum_axes(axes, keepdims)?;
        let n = self.reduce_map(Some(axes), keepdims, &SumOf::new(not_nan::<T>), "nanmean", |a, _| a)?;
        let data = s.iter().zip(n.iter()).map(|(&s, &n)| s / T::from_usize(n)).collect();
        Tensor::from_vec(data, s.shape().to_vec())
    }
}
