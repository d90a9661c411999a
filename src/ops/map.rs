//! Closures over elements: `map`, `mapv`, `map_inplace`, `mapv_inplace`, `zip_map`,
//! `zip_map_inplace`.

use super::Operand;
use super::core::{map_assign, map_with, zip_assign, zip_operand};
use crate::element::Element;
use crate::error::Result;
use crate::iter::zip::{Src, map_new};
use crate::layout::{Dimension, Layout, Order};
use crate::storage::{OwnedRepr, Storage, StorageMut};
use crate::tensor::{Tensor, TensorBase};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// `f(&x)` of every element, as a new row-major tensor of the same shape.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let b: Tensor<f64, Ix2> = a.t().map(|&x| x as f64 * 0.5);
    /// assert_eq!(b.to_vec(), vec![0.5, 1.5, 1.0, 2.0]);
    /// ```
    pub fn map<U: Send>(&self, f: impl Fn(&T) -> U + Sync) -> Tensor<U, D> {
        let data = map_new(
            self.shape(),
            Src::new(self.storage.buffer(), self.strides(), self.offset()),
            |x: T| f(&x),
        );
        TensorBase {
            storage: OwnedRepr(data),
            layout: Layout::new_order(self.layout.shape.clone(), Order::RowMajor).expect("valid shape"),
        }
    }

    /// `f(x)` of every element (by value), as a new row-major tensor of the same shape.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f32, -2.0], [2]).unwrap();
    /// assert_eq!(a.mapv(|x| x > 0.0).to_vec(), vec![true, false]);
    /// ```
    pub fn mapv<U: Send>(&self, f: impl Fn(T) -> U + Sync) -> Tensor<U, D> {
        map_with(self, 1, f)
    }

    /// `f(a, b)` element-wise with NumPy broadcasting, `other` a scalar or any tensor
    /// ([`Operand`]); the output element type may differ. `Err` if the shapes do not
    /// broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3], [3, 1]).unwrap();
    /// let b = Tensor::from_vec(vec![10.0, 20.0], [2]).unwrap();
    /// let c = a.zip_map(&b, |x, y| x as f64 + y).unwrap();
    /// assert_eq!(c.shape(), &[3, 2]);
    /// assert_eq!(c.to_vec(), vec![11.0, 21.0, 12.0, 22.0, 13.0, 23.0]);
    /// assert!(a.zip_map(&Tensor::<f64, _>::zeros([4]), |x, y| x as f64 + y).is_ok());
    /// assert!(a.zip_map(&Tensor::<f64, _>::zeros([2, 4]), |x, y| x as f64 + y).is_err());
    /// assert_eq!(a.zip_map(0.5, |x, y| x as f64 * y).unwrap().to_vec(), vec![0.5, 1.0, 1.5]);
    /// ```
    pub fn zip_map<B: Element, U: Send, O: Operand<B, D>>(
        &self,
        other: O,
        f: impl Fn(T, B) -> U + Sync,
    ) -> Result<Tensor<U, O::Output>> {
        zip_operand(self, &other, "zip_map", f)
    }
}

impl<T: Element, S: StorageMut<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Calls `f(&mut x)` on every element in place.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
    /// a.map_inplace(|x| *x *= 10);
    /// assert_eq!(a.to_vec(), vec![10, 20, 30]);
    /// ```
    pub fn map_inplace(&mut self, f: impl Fn(&mut T) + Sync) {
        map_assign(self, f)
    }

    /// Replaces every element `x` by `f(x)` in place.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::from_vec(vec![1.0, 4.0], [2]).unwrap();
    /// a.mapv_inplace(f64::sqrt);
    /// assert_eq!(a.to_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn mapv_inplace(&mut self, f: impl Fn(T) -> T + Sync) {
        map_assign(self, |x| *x = f(*x))
    }

    /// Calls `f(&mut x, y)` for every element `x` with `other` (a scalar or any tensor)
    /// broadcast to this tensor's shape; `Err` ("non-broadcastable output") if it does
    /// not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::<i32, _>::zeros([2, 3]);
    /// let row = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
    /// a.zip_map_inplace(&row, |x, y| *x += y).unwrap();
    /// assert_eq!(a.to_vec(), vec![1, 2, 3, 1, 2, 3]);
    /// assert!(row.clone().zip_map_inplace(&a, |x, y| *x += y).is_err());
    /// ```
    pub fn zip_map_inplace<B: Element, O: Operand<B, D>>(
        &mut self,
        other: O,
        f: impl Fn(&mut T, B) + Sync,
    ) -> Result<()> {
        match other.scalar() {
            Some(y) => {
                map_assign(self, move |x| f(x, y));
                Ok(())
            }
            None => zip_assign(self, &other.operand_view(), "zip_map_inplace", f),
        }
    }
}
