//! [`Operand`]: the second (third, …) argument of a named element-wise operation — a
//! scalar or any tensor, as NumPy takes either.

use super::{TensorBase, TensorView};
use crate::element::Element;
use crate::layout::{DimMax, Dimension, Ix0, Layout};
use crate::storage::{Storage, ViewRepr};

/// A value that a named element-wise operation combines with a tensor of element type
/// `T` and rank type `D`: a scalar `T`, or any tensor of element type `T` by reference
/// or by value (owned, view, copy-on-write, shared). `a.gt(5.0)`, `a.gt(&b)`,
/// `a.maximum(b.t())` and `where_(&c, &a, 0.0)` all take one.
///
/// A scalar acts as a 0-d tensor (it broadcasts to anything) without allocating: the
/// operation reads the value directly. The result's rank type is [`Output`](Self::Output):
/// `D` for a scalar, the broadcast rank ([`DimMax`]) for a tensor.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1.0, 5.0, 3.0], [3]).unwrap();
/// let b = Tensor::from_vec(vec![2.0, 2.0, 4.0], [3]).unwrap();
/// assert_eq!(a.gt(2.5).unwrap().to_vec(), vec![false, true, true]);
/// assert_eq!(a.gt(&b).unwrap().to_vec(), vec![false, true, false]);
/// assert_eq!(a.maximum(b.view()).unwrap().to_vec(), vec![2.0, 5.0, 4.0]);
/// // Generic code names the trait: the scalar case needs no rank bound.
/// fn relu<D: Dimension>(x: &Tensor<f64, D>) -> Tensor<f64, D> {
///     x.maximum(0.0).unwrap()
/// }
/// assert_eq!(relu(&(&a - 3.0)).to_vec(), vec![0.0, 2.0, 0.0]);
/// ```
pub trait Operand<T: Element, D: Dimension> {
    /// The rank type of the result of combining with a tensor of rank type `D`.
    type Output: Dimension;
    /// The operand's own rank type ([`Ix0`] for a scalar).
    type Dim: Dimension;
    /// The operand as a view; a scalar is a 0-d view of itself (no allocation).
    fn operand_view(&self) -> TensorView<'_, T, Self::Dim>;
    /// The value of a scalar operand (`None` for tensors), so kernels can skip
    /// broadcasting.
    #[inline]
    fn scalar(&self) -> Option<T> {
        None
    }
}

impl<T: Element, D: Dimension> Operand<T, D> for T {
    type Output = D;
    type Dim = Ix0;
    #[inline]
    fn operand_view(&self) -> TensorView<'_, T, Ix0> {
        TensorBase {
            storage: ViewRepr(std::slice::from_ref(self)),
            layout: Layout::new([], [], 0),
        }
    }
    #[inline]
    fn scalar(&self) -> Option<T> {
        Some(*self)
    }
}

impl<T: Element, S: Storage<Elem = T>, D: DimMax<D2>, D2: Dimension> Operand<T, D> for &TensorBase<S, D2> {
    type Output = D::Output;
    type Dim = D2;
    #[inline]
    fn operand_view(&self) -> TensorView<'_, T, D2> {
        self.view()
    }
}

impl<T: Element, S: Storage<Elem = T>, D: DimMax<D2>, D2: Dimension> Operand<T, D> for TensorBase<S, D2> {
    type Output = D::Output;
    type Dim = D2;
    #[inline]
    fn operand_view(&self) -> TensorView<'_, T, D2> {
        self.view()
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn scalar_is_a_zero_d_view_of_itself() {
        let x = 2.5f32;
        let v = <f32 as Operand<f32, Ix2>>::operand_view(&x);
        assert_eq!(v.shape(), &[] as &[usize]);
        assert_eq!(v.as_ptr(), &x as *const f32);
        assert_eq!(<f32 as Operand<f32, Ix2>>::scalar(&x), Some(2.5));
    }

    #[test]
    fn tensor_operands_view_without_copying() {
        let a = Tensor::<i32, _>::ones([2, 3]);
        assert_eq!(
            <&Tensor<i32, Ix2> as Operand<i32, Ix1>>::operand_view(&&a).as_ptr(),
            a.as_ptr()
        );
        assert_eq!(<&Tensor<i32, Ix2> as Operand<i32, Ix1>>::scalar(&&a), None);
    }
}
