//! View operations on [`Var`]: `reshape`, `permute`, `t`, `slice`, `broadcast_to`,
//! `squeeze`, `unsqueeze`, `flip`. Each computes a new layout over its input's memory
//! (no copy; `reshape` copies only where NumPy would) and maps the gradient back
//! element for element: permutations and flips as layouts over the gradient's buffer,
//! slices by writing into zeros, broadcasts by summing.

use super::grad::{Grad, inverse_permutation, permute_owned};
use super::var::{Ctx, Var};
use crate::element::Float;
use crate::error::Result;
use crate::layout::reshape::reshape_layout;
use crate::layout::slice::slice_layout;
use crate::layout::transform::{
    broadcast_layout, flip_layout, permute_layout, reversed_layout, squeeze_layout, unsqueeze_layout,
};
use crate::layout::{Dimension, IntoShape, IxDyn, Layout};
use crate::tensor::{Tensor, TensorBase};
use crate::{Order, SliceItem};

/// Rule of every view that only regroups elements in row-major order (`reshape`,
/// `squeeze`, `unsqueeze`): the gradient reshaped back.
fn reshape_back<T: Float>(c: Ctx<'_, T>) -> Result<Vec<Option<Grad<T>>>> {
    let shape = c.inputs[0].shape().to_vec();
    Ok(vec![Some(c.grad.reshape(&shape)?)])
}

impl<T: Float> Var<T> {
    /// Reshapes to `shape` in row-major order (NumPy `reshape`): a view of the same
    /// memory when NumPy would give one, else a copy. `Err` if the sizes differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([2, 3]));
    /// let r = x.reshape([3, 2])?;
    /// assert_eq!(r.shape(), &[3, 2]);
    /// assert_eq!(r.sum().backward()?.get(&x).unwrap().shape(), &[2, 3]);
    /// assert!(x.reshape([4]).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn reshape<Sh: IntoShape>(&self, shape: Sh) -> Result<Var<T>> {
        let shape = IxDyn::from(shape.into_dim().slice());
        let layout: Layout<IxDyn> = self.node_layout();
        match reshape_layout(&layout, shape.clone(), Order::RowMajor, "reshape")? {
            Some(l) => Ok(Var::view_op(self, l, "reshape", reshape_back)),
            None => {
                let value = self.view().to_contiguous().into_shape(shape)?;
                Ok(Var::from_op(value, "reshape", &[self], reshape_back))
            }
        }
    }

    /// Reorders the axes: new axis `i` is old axis `axes[i]` (a view). `Err` unless
    /// `axes` is a permutation.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::from_shape_fn([2, 3], |i| i[1] as f64));
    /// let p = x.permute(&[1, 0])?;
    /// let w = Var::constant(Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 2])?);
    /// let g = (&p * &w).sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn permute(&self, axes: &[isize]) -> Result<Var<T>> {
        let l = permute_layout(&self.node_layout(), axes)?;
        let inv = inverse_permutation(axes, self.ndim());
        Ok(Var::view_op(self, l, "permute", move |c| {
            Ok(vec![Some(Grad::dense(permute_owned(c.grad.into_tensor(), &inv)?))])
        }))
    }

    /// All axes reversed (the transpose, a view).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::zeros([2, 3]));
    /// assert_eq!(x.t().shape(), &[3, 2]);
    /// ```
    pub fn t(&self) -> Var<T> {
        let l = reversed_layout(&self.node_layout());
        Var::view_op(self, l, "t", |c| {
            let g = c.grad.into_tensor();
            let layout = reversed_layout(g.layout());
            Ok(vec![Some(Grad::dense(TensorBase {
                storage: g.storage,
                layout,
            }))])
        })
    }

    /// Basic slicing with Python's rules (`s![..]` items: ranges with any step,
    /// indices, `NewAxis`, `Ellipsis`), a view; the gradient lands in the selected
    /// elements, zeros elsewhere.
    ///
    /// # Panics
    /// For a zero step, an index out of range, more indices than axes or two ellipses
    /// (the message of [`Var::try_slice`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([4]));
    /// let g = x.slice(s![..;-2]).sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![0.0, 1.0, 0.0, 1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    #[track_caller]
    pub fn slice(&self, items: impl AsRef<[SliceItem]>) -> Var<T> {
        self.try_slice(items).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Basic slicing; `Err` as [`crate::TensorView::try_slice`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([2, 3]));
    /// assert_eq!(x.try_slice(s![.., 1..;1, NewAxis])?.shape(), &[2, 2, 1]);
    /// assert!(x.try_slice(s![5]).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn try_slice(&self, items: impl AsRef<[SliceItem]>) -> Result<Var<T>> {
        let items: Vec<SliceItem> = items.as_ref().to_vec();
        let l = slice_layout(&self.node_layout(), &items)?;
        Ok(Var::view_op(self, l, "slice", move |c| {
            let mut z = Tensor::<T, IxDyn>::zeros(c.inputs[0].shape().to_vec());
            z.try_slice_mut(&items)?.assign(c.grad.view())?;
            Ok(vec![Some(Grad::dense(z))])
        }))
    }

    /// A view broadcast to `shape` (NumPy `broadcast_to`, stride 0 on stretched axes:
    /// nothing is copied); the gradient is summed back over the broadcast axes. `Err`
    /// if the shape is not a broadcast of this one.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([3]));
    /// let b = x.broadcast_to([2, 3])?;
    /// assert_eq!(b.sum().backward()?.get(&x).unwrap().to_vec(), vec![2.0; 3]);
    /// assert!(x.broadcast_to([2]).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn broadcast_to<Sh: IntoShape>(&self, shape: Sh) -> Result<Var<T>> {
        let shape = shape.into_dim();
        let l = broadcast_layout(&self.node_layout(), shape.slice(), "broadcast_to")?;
        Ok(Var::view_op(self, l, "broadcast_to", |c| {
            let shape = c.inputs[0].shape().to_vec();
            Ok(vec![Some(c.grad.sum_to(&shape)?)])
        }))
    }

    /// Removes every length-1 axis (a view).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([1, 3, 1]));
    /// assert_eq!(x.squeeze().shape(), &[3]);
    /// ```
    pub fn squeeze(&self) -> Var<T> {
        let l = squeeze_layout(&self.node_layout());
        Var::view_op(self, l, "squeeze", reshape_back)
    }

    /// Inserts a length-1 axis at `axis` (a view); `Err` if `axis` is out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([3]));
    /// assert_eq!(x.unsqueeze(-1)?.shape(), &[3, 1]);
    /// assert!(x.unsqueeze(3).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn unsqueeze(&self, axis: isize) -> Result<Var<T>> {
        let l = unsqueeze_layout(&self.node_layout(), axis)?;
        Ok(Var::view_op(self, l, "unsqueeze", reshape_back))
    }

    /// Reverses one axis (a view with a negative stride); `Err` if `axis` is out of
    /// range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3])?);
    /// let w = Var::constant(Tensor::from_vec(vec![1.0, 10.0, 100.0], [3])?);
    /// let g = (&x.flip(0)? * &w).sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![100.0, 10.0, 1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn flip(&self, axis: isize) -> Result<Var<T>> {
        let l = flip_layout(&self.node_layout(), axis)?;
        Ok(Var::view_op(self, l, "flip", move |c| {
            let g = c.grad.into_tensor();
            let layout = flip_layout(g.layout(), axis)?;
            Ok(vec![Some(Grad::dense(TensorBase {
                storage: g.storage,
                layout,
            }))])
        }))
    }

    /// The layout of this value over its node's buffer.
    fn node_layout(&self) -> Layout<IxDyn> {
        self.view().layout().clone()
    }
}

#[cfg(test)]
mod tests {
    use crate::autograd::Var;
    use crate::prelude::*;

    #[test]
    fn views_share_memory_and_reshape_copies_only_when_numpy_does() {
        let x = Var::new(Tensor::<f64, _>::from_shape_fn([2, 3], |i| (i[0] * 3 + i[1]) as f64));
        let p = x.view().as_ptr();
        assert_eq!(x.t().view().as_ptr(), p.wrapping_add(5).wrapping_sub(5));
        assert!(x.t().reshape([6]).unwrap().view().is_contiguous());
        assert_eq!(x.reshape([3, 2]).unwrap().view().as_ptr(), p);
        let r = x.t().reshape([6]).unwrap();
        assert_eq!(r.value().to_vec(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        let w = Var::constant(Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [6]).unwrap());
        let g = (&r * &w).sum().backward().unwrap();
        assert_eq!(g.get(&x).unwrap().to_vec(), vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0]);
    }
}
