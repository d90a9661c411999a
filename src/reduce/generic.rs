//! The generic reduction: any element type, any accumulator, any closure.

use super::Spec;
use super::engine::Reducer;
use crate::element::Element;
use crate::error::Result;
use crate::layout::{Dimension, IxDyn, RemoveAxis};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// A user fold: sequential, in row-major order of the reduced elements.
struct UserFold<A, F>(A, F);

impl<T: Element, A: Element, F: Fn(A, T) -> A + Sync> Reducer<T> for UserFold<A, F> {
    type Acc = A;
    fn identity(&self) -> Option<A> {
        Some(self.0)
    }
    fn lift(&self, x: T) -> A {
        (self.1)(self.0, x)
    }
    #[inline(always)]
    fn step(&self, acc: A, x: T) -> A {
        (self.1)(acc, x)
    }
    fn merge(&self, _a: A, _b: A) -> A {
        unreachable!("a user fold is not mergeable, so the engine never splits it")
    }
    fn mergeable(&self) -> bool {
        false
    }
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Folds the elements over `axes` with `f`, starting from `init` for every output.
    /// The reduced elements of each output are visited in row-major order; outputs
    /// may be computed on several threads. Only the viewed elements are read.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec((0..12).collect::<Vec<i64>>(), [3, 4]).unwrap();
    /// let v = a.slice(s![.., 1..;2]);                       // columns 1 and 3
    /// let s = v.reduce_axes(&[1], false, 0i64, |acc, x| acc + x).unwrap();
    /// assert_eq!(s.to_vec(), vec![4, 12, 20]);
    /// // Order-dependent folds see row-major order:
    /// let digits = a.reduce_axes(&[1], false, 0i64, |acc, x| acc * 10 + x % 10).unwrap();
    /// assert_eq!(digits.to_vec()[0], 123);
    /// ```
    pub fn reduce_axes<A: Element>(
        &self,
        axes: &[isize],
        keepdims: bool,
        init: A,
        f: impl Fn(A, T) -> A + Sync,
    ) -> Result<Tensor<A, IxDyn>> {
        let op = "reduce_axes";
        let spec = Spec::new(self.shape(), Some(axes), op)?;
        let acc = self.reduce_raw(&spec, &UserFold(init, f), true, op)?;
        spec.finish(acc, keepdims, op)
    }

    /// Folds along one `axis` (the axis is removed: `IxN` gives `IxN-1`), like ndarray's
    /// `fold_axis`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 5, 3, 2], [2, 2]).unwrap();
    /// let m: Tensor<i32, Ix1> = a.fold_axis(0, i32::MIN, |acc, x| acc.max(x)).unwrap();
    /// assert_eq!(m.to_vec(), vec![3, 5]);
    /// ```
    pub fn fold_axis<A: Element>(
        &self,
        axis: isize,
        init: A,
        f: impl Fn(A, T) -> A + Sync,
    ) -> Result<Tensor<A, D::Smaller>>
    where
        D: RemoveAxis,
    {
        self.reduce_axes(&[axis], false, init, f)?.into_dim()
    }
}
