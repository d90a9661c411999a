//! NumPy's `dot`, `vdot`, `inner`, `outer`, `kron` and `trace`, each mapped onto the
//! batched product in [`super::contract`].

use super::contract::{contract, diagonal, owned, permuted, scale, sum_axes};
use super::matmul::{dyn_view, matmul_views};
use crate::element::Num;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{DimMax, Dimension, DotDim, Ix2, IxDyn, RemoveAxis};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};
use num_complex::Complex;
use std::any::Any;

/// The complex conjugate for complex element types, the value itself otherwise.
pub(crate) fn conj<T: Num>(x: T) -> T {
    let mut y = x;
    let any = &mut y as &mut dyn Any;
    if let Some(c) = any.downcast_mut::<Complex<f32>>() {
        *c = c.conj();
    } else if let Some(c) = any.downcast_mut::<Complex<f64>>() {
        *c = c.conj();
    }
    y
}

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// NumPy `dot`: a 0-d operand multiplies element-wise; 1-D with 1-D is the inner
    /// product (a 0-d result); N-D with 1-D sums over the last axes; N-D with M-D
    /// (M ≥ 2) sums over the last axis of `self` and the second-to-last of `rhs`, giving
    /// shape `self.shape[..-1] + rhs.shape[..-2] + rhs.shape[-1..]`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i64, _>::arange(24).into_shape([2, 3, 4]).unwrap();
    /// let b = Tensor::<i64, _>::arange(40).into_shape([5, 4, 2]).unwrap();
    /// let d: Tensor<i64, Ix4> = a.dot(&b).unwrap();
    /// assert_eq!(d.shape(), &[2, 3, 5, 2]);
    /// assert_eq!(d[[0, 1, 0, 0]], 4 * 0 + 5 * 2 + 6 * 4 + 7 * 6);
    /// assert!(a.dot(&a).is_err());
    /// ```
    pub fn dot<S2: Storage<Elem = T>, D2: Dimension>(&self, rhs: &TensorBase<S2, D2>) -> Result<Tensor<T, D::Output>>
    where
        D: DotDim<D2>,
    {
        self.dot_dyn(rhs)?.into_dim()
    }

    /// [`dot`](TensorBase::dot) with a dynamic-rank result.
    fn dot_dyn<S2: Storage<Elem = T>, D2: Dimension>(&self, rhs: &TensorBase<S2, D2>) -> Result<Tensor<T, IxDyn>> {
        let (a, b) = (dyn_view(self), dyn_view(rhs));
        let (na, nb) = (a.ndim(), b.ndim());
        if na == 0 || nb == 0 {
            return Ok(scalar_times(&a, &b));
        }
        let (ka, kb) = (a.shape()[na - 1], b.shape()[if nb == 1 { 0 } else { nb - 2 }]);
        if ka != kb {
            return Err(Error::shape(
                "dot",
                format!(
                    "shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
                    fmt_shape(a.shape()),
                    fmt_shape(b.shape()),
                    ka,
                    na - 1,
                    kb,
                    if nb == 1 { 0 } else { nb - 2 }
                ),
            ));
        }
        if nb == 1 {
            return matmul_views(&a, &b);
        }
        let free_a: Vec<usize> = (0..na - 1).collect();
        let free_b: Vec<usize> = (0..nb).filter(|&i| i != nb - 2).collect();
        contract(&a, &b, &[], &[], &free_a, &free_b, &[na - 1], &[nb - 2])
    }

    /// NumPy `vdot`: the sum of `conj(self) * rhs` over both tensors flattened in
    /// row-major order; `Err` unless the sizes are equal.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let b = Tensor::from_vec(vec![5, 6, 7, 8], [4]).unwrap();
    /// assert_eq!(a.vdot(&b).unwrap(), 70);
    /// ```
    pub fn vdot<S2: Storage<Elem = T>, D2: Dimension>(&self, rhs: &TensorBase<S2, D2>) -> Result<T> {
        if self.size() != rhs.size() {
            return Err(Error::shape(
                "vdot",
                format!(
                    "shapes {} and {} have different sizes {} and {}",
                    fmt_shape(self.shape()),
                    fmt_shape(rhs.shape()),
                    self.size(),
                    rhs.size()
                ),
            ));
        }
        let a = owned(self.iter().map(|&x| conj(x)).collect(), &[self.size()])?;
        let b = dyn_view(rhs);
        let b = b.reshape(vec![rhs.size()])?;
        matmul_views(&dyn_view(&a), &dyn_view(&b))?.to_scalar()
    }

    /// NumPy `inner`: sums over the last axes of both operands (a 0-d operand
    /// multiplies); result shape `self.shape[..-1] + rhs.shape[..-1]`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
    /// let r: Tensor<i32, Ix2> = a.inner(&a).unwrap();
    /// assert_eq!(r.to_vec(), vec![5, 14, 14, 50]);
    /// ```
    pub fn inner<S2: Storage<Elem = T>, D2: Dimension>(&self, rhs: &TensorBase<S2, D2>) -> Result<Tensor<T, D::Output>>
    where
        D: DotDim<D2>,
    {
        self.inner_dyn(rhs)?.into_dim()
    }

    /// [`inner`](TensorBase::inner) with a dynamic-rank result.
    fn inner_dyn<S2: Storage<Elem = T>, D2: Dimension>(&self, rhs: &TensorBase<S2, D2>) -> Result<Tensor<T, IxDyn>> {
        let (a, b) = (dyn_view(self), dyn_view(rhs));
        let (na, nb) = (a.ndim(), b.ndim());
        if na == 0 || nb == 0 {
            return Ok(scalar_times(&a, &b));
        }
        if a.shape()[na - 1] != b.shape()[nb - 1] {
            return Err(Error::shape(
                "inner",
                format!(
                    "shapes {} and {}: last dimensions {} and {} differ",
                    fmt_shape(a.shape()),
                    fmt_shape(b.shape()),
                    a.shape()[na - 1],
                    b.shape()[nb - 1]
                ),
            ));
        }
        let free_a: Vec<usize> = (0..na - 1).collect();
        let free_b: Vec<usize> = (0..nb - 1).collect();
        contract(&a, &b, &[], &[], &free_a, &free_b, &[na - 1], &[nb - 1])
    }

    /// NumPy `outer`: both operands flattened, `out[i, j] = self[i] * rhs[j]`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2], [2]).unwrap();
    /// let b = Tensor::from_vec(vec![3, 4, 5], [3]).unwrap();
    /// let o: Tensor<i32, Ix2> = a.outer(&b).unwrap();
    /// assert_eq!(o.to_vec(), vec![3, 4, 5, 6, 8, 10]);
    /// ```
    pub fn outer<S2: Storage<Elem = T>, D2: Dimension>(&self, rhs: &TensorBase<S2, D2>) -> Result<Tensor<T, Ix2>> {
        let (m, n) = (self.size(), rhs.size());
        let a = dyn_view(self);
        let a = a.reshape(vec![m, 1])?;
        let b = dyn_view(rhs);
        let b = b.reshape(vec![1, n])?;
        matmul_views(&dyn_view(&a), &dyn_view(&b))?.into_dim()
    }

    /// NumPy `kron`: the Kronecker product; ranks are aligned by prepending length-1
    /// axes, and axis `i` of the result has length `self.shape[i] * rhs.shape[i]`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::eye(2);
    /// let b = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let k: Tensor<i32, Ix2> = a.kron(&b).unwrap();
    /// assert_eq!(k.shape(), &[4, 4]);
    /// assert_eq!(k.to_vec(), vec![1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4]);
    /// ```
    pub fn kron<S2: Storage<Elem = T>, D2: Dimension>(&self, rhs: &TensorBase<S2, D2>) -> Result<Tensor<T, D::Output>>
    where
        D: DimMax<D2>,
    {
        let nd = self.ndim().max(rhs.ndim());
        let pad =
            |s: &[usize]| -> Vec<usize> { std::iter::repeat_n(1, nd - s.len()).chain(s.iter().copied()).collect() };
        let (sa, sb) = (pad(self.shape()), pad(rhs.shape()));
        let o = self.outer(rhs)?;
        let grid: Vec<usize> = sa.iter().chain(&sb).copied().collect();
        let o = owned(o.storage.into_vec(), &grid)?;
        let order: Vec<usize> = (0..nd).flat_map(|i| [i, nd + i]).collect();
        let inter = permuted(&dyn_view(&o), &order).to_owned();
        let shape: Vec<usize> = sa.iter().zip(&sb).map(|(x, y)| x * y).collect();
        owned(inter.storage.into_vec(), &shape)?.into_dim()
    }

    /// NumPy `trace`: the sum of the main diagonal over the first two axes; the other
    /// axes remain (a 0-d result for a matrix). `Err` for fewer than two axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(9).into_shape([3, 3]).unwrap();
    /// let t: Tensor<i32, Ix0> = a.trace().unwrap();
    /// assert_eq!(t.to_scalar().unwrap(), 12);
    /// ```
    pub fn trace(&self) -> Result<Tensor<T, super::BatchDim<D>>>
    where
        D: RemoveAxis,
        D::Smaller: RemoveAxis,
    {
        if self.ndim() < 2 {
            return Err(Error::shape(
                "trace",
                format!(
                    "diag requires an array of at least two dimensions, got shape {}",
                    fmt_shape(self.shape())
                ),
            ));
        }
        let v = dyn_view(self);
        let d = diagonal(&v, 0, 1);
        sum_axes(&d, &[0])?.into_dim()
    }
}

/// `dot`/`inner` with a 0-d operand: the other operand scaled.
fn scalar_times<T: Num>(a: &TensorView<'_, T, IxDyn>, b: &TensorView<'_, T, IxDyn>) -> Tensor<T, IxDyn> {
    if a.ndim() == 0 {
        let s = a.iter().next().copied().expect("a 0-d tensor has one element");
        scale(b, s, true)
    } else {
        let s = b.iter().next().copied().expect("a 0-d tensor has one element");
        scale(a, s, false)
    }
}
