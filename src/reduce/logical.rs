//! Logical reductions: `all`, `any`, `count_nonzero` (an element is "true" when it
//! differs from zero / `false`; NaN is true, as in NumPy).

use super::engine::Reducer;
use crate::element::Element;
use crate::error::Result;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// A reduction given by a map into the accumulator and an associative operation with
/// identity `.0`.
pub(crate) struct MapFold<A, F, G>(pub A, pub F, pub G);

impl<T: Element, A: Copy + Send + Sync, F: Fn(T) -> A + Sync, G: Fn(A, A) -> A + Sync> Reducer<T> for MapFold<A, F, G> {
    type Acc = A;
    fn identity(&self) -> Option<A> {
        Some(self.0)
    }
    #[inline(always)]
    fn lift(&self, x: T) -> A {
        (self.1)(x)
    }
    #[inline(always)]
    fn step(&self, acc: A, x: T) -> A {
        (self.2)(acc, (self.1)(x))
    }
    #[inline(always)]
    fn merge(&self, a: A, b: A) -> A {
        (self.2)(a, b)
    }
}

#[inline(always)]
fn truthy<T: Element>(x: T) -> bool {
    x != T::default()
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// True if every element is nonzero (true for an empty tensor).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert!(Tensor::from_vec(vec![1, 2, 3], [3]).unwrap().all());
    /// assert!(!Tensor::from_vec(vec![true, false], [2]).unwrap().all());
    /// ```
    pub fn all(&self) -> bool {
        self.reduce_all(&MapFold(true, truthy::<T>, |a, b| a & b), "all", |a, _| a)
            .expect("all has an identity")
    }

    /// [`TensorBase::all`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 0, 1, 1], [2, 2]).unwrap();
    /// assert_eq!(a.all_axes(&[1], false).unwrap().to_vec(), vec![false, true]);
    /// ```
    pub fn all_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<bool, IxDyn>> {
        self.reduce_map(
            Some(axes),
            keepdims,
            &MapFold(true, truthy::<T>, |a, b| a & b),
            "all",
            |a, _| a,
        )
    }

    /// True if any element is nonzero (false for an empty tensor).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert!(Tensor::from_vec(vec![0.0, f64::NAN], [2]).unwrap().any());
    /// assert!(!Tensor::<i32, _>::zeros([3]).any());
    /// ```
    pub fn any(&self) -> bool {
        self.reduce_all(&MapFold(false, truthy::<T>, |a, b| a | b), "any", |a, _| a)
            .expect("any has an identity")
    }

    /// [`TensorBase::any`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 0, 0, 0], [2, 2]).unwrap();
    /// assert_eq!(a.any_axes(&[0], false).unwrap().to_vec(), vec![true, false]);
    /// ```
    pub fn any_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<bool, IxDyn>> {
        self.reduce_map(
            Some(axes),
            keepdims,
            &MapFold(false, truthy::<T>, |a, b| a | b),
            "any",
            |a, _| a,
        )
    }

    /// Number of nonzero elements.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::from_vec(vec![0, 5, 0, 7], [4]).unwrap().count_nonzero(), 2);
    /// ```
    pub fn count_nonzero(&self) -> usize {
        self.reduce_all(
            &MapFold(0, |x| usize::from(truthy(x)), |a, b| a + b),
            "count_nonzero",
            |a, _| a,
        )
        .expect("count_nonzero has an identity")
    }

    /// [`TensorBase::count_nonzero`] over `axes`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0, 5, 3, 7], [2, 2]).unwrap();
    /// assert_eq!(a.count_nonzero_axes(&[1], false).unwrap().to_vec(), vec![1, 2]);
    /// ```
    pub fn count_nonzero_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<usize, IxDyn>> {
        self.reduce_map(
            Some(axes),
            keepdims,
            &MapFold(0, |x| usize::from(truthy(x)), |a, b| a + b),
            "count_nonzero",
            |a, _| a,
        )
    }
}
