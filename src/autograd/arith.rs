//! Element-wise arithmetic on [`Var`]s with NumPy broadcasting: `add`, `sub`, `mul`,
//! `div` between two `Var`s or with a scalar, and negation. Backward rules undo the
//! broadcasting by summing over the stretched and added axes.

use super::grad::Grad;
use super::var::{Ctx, Var};
use crate::element::Float;
use crate::error::Result;

/// The gradient `g` of a broadcast binary result handed to both operands unchanged
/// (`add`, and `sub` before negation): summed to each operand's shape, copied only when
/// both operands need the full-shape gradient.
/// Optional gradients of the two operands of a binary operation.
type GradPair<T> = (Option<Grad<T>>, Option<Grad<T>>);

fn split_to_both<T: Float>(c: Ctx<'_, T>) -> Result<GradPair<T>> {
    let (sa, sb) = (c.inputs[0].shape().to_vec(), c.inputs[1].shape().to_vec());
    let g = c.grad;
    let gb = if !c.needs[1] {
        None
    } else if !c.needs[0] {
        return Ok((None, Some(g.sum_to(&sb)?)));
    } else if sb == g.shape() {
        Some(Grad::dense(g.view().to_owned()))
    } else {
        Some(Grad::dense(g.view().sum_axes(&reduced_axes(g.shape(), &sb), true)?).reshape(&sb)?)
    };
    let ga = if c.needs[0] { Some(g.sum_to(&sa)?) } else { None };
    Ok((ga, gb))
}

/// The axes of `from` that summing down to `to` removes or collapses (broadcasting in
/// reverse); with `keepdims`, the result then reshapes to `to`.
pub(crate) fn reduced_axes(from: &[usize], to: &[usize]) -> Vec<isize> {
    let lead = from.len() - to.len();
    (0..from.len())
        .filter(|&i| i < lead || (to[i - lead] == 1 && from[i] != 1))
        .map(|i| i as isize)
        .collect()
}

impl<T: Float> Var<T> {
    /// `self + rhs` with NumPy broadcasting; `Err` (as [`crate::TensorBase::try_add`])
    /// if the shapes do not broadcast. The operator `+` panics instead.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Var::new(Tensor::<f64, _>::ones([2, 3]));
    /// let b = Var::new(Tensor::<f64, _>::ones([3]));
    /// let grads = a.try_add(&b)?.sum().backward()?;
    /// assert_eq!(grads.get(&b).unwrap().to_vec(), vec![2.0, 2.0, 2.0]);   // summed over the broadcast axis
    /// assert!(a.try_add(&Var::new(Tensor::<f64, _>::ones([4]))).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn try_add(&self, rhs: &Var<T>) -> Result<Var<T>> {
        let value = self.view().try_add(&rhs.view())?;
        Ok(Var::from_op(value, "add", &[self, rhs], |c| {
            let (ga, gb) = split_to_both(c)?;
            Ok(vec![ga, gb])
        }))
    }

    /// `self - rhs` with NumPy broadcasting; `Err` if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Var::new(Tensor::<f64, _>::ones([2]));
    /// let b = Var::new(Tensor::<f64, _>::ones([2, 2]));
    /// let grads = a.try_sub(&b)?.sum().backward()?;
    /// assert_eq!(grads.get(&a).unwrap().to_vec(), vec![2.0, 2.0]);
    /// assert_eq!(grads.get(&b).unwrap().to_vec(), vec![-1.0; 4]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn try_sub(&self, rhs: &Var<T>) -> Result<Var<T>> {
        let value = self.view().try_sub(&rhs.view())?;
        Ok(Var::from_op(value, "sub", &[self, rhs], |c| {
            let (ga, gb) = split_to_both(c)?;
            Ok(vec![ga, gb.map(|g| g.map_grad(|x| -x))])
        }))
    }

    /// `self * rhs` with NumPy broadcasting; `Err` if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2])?);
    /// let b = Var::new(Tensor::from_vec(vec![3.0f64, 4.0], [2])?);
    /// let grads = a.try_mul(&b)?.sum().backward()?;
    /// assert_eq!(grads.get(&a).unwrap().to_vec(), vec![3.0, 4.0]);
    /// assert_eq!(grads.get(&b).unwrap().to_vec(), vec![1.0, 2.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn try_mul(&self, rhs: &Var<T>) -> Result<Var<T>> {
        let value = self.view().try_mul(&rhs.view())?;
        Ok(Var::from_op(value, "mul", &[self, rhs], |c| {
            let (a, b) = (&c.inputs[0], &c.inputs[1]);
            let gb = if c.needs[1] {
                let full = c.grad.view().try_mul(a)?;
                Some(Grad::dense(full).sum_to(b.shape())?)
            } else {
                None
            };
            let ga = if c.needs[0] {
                Some(Grad::dense(c.grad.zip(b, |g, y| g * y)?).sum_to(a.shape())?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        }))
    }

    /// `self / rhs` with NumPy broadcasting (IEEE division by zero); `Err` if the
    /// shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Var::new(Tensor::from_vec(vec![1.0f64], [1])?);
    /// let b = Var::new(Tensor::from_vec(vec![4.0f64], [1])?);
    /// let grads = a.try_div(&b)?.sum().backward()?;
    /// assert_eq!(grads.get(&a).unwrap().to_vec(), vec![0.25]);
    /// assert_eq!(grads.get(&b).unwrap().to_vec(), vec![-1.0 / 16.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn try_div(&self, rhs: &Var<T>) -> Result<Var<T>> {
        let value = self.view().try_div(&rhs.view())?;
        Ok(Var::from_op(value, "div", &[self, rhs], |c| {
            let (a, b) = (&c.inputs[0], &c.inputs[1]);
            // q = g / b serves both: ∂/∂a = q, ∂/∂b = -g·a/b² = -q · out.
            let q = c.grad.zip(b, |g, y| g / y)?;
            let gb = if c.needs[1] {
                let t = q.zip_map(&c.out, |q, o| -q * o)?;
                Some(Grad::dense(t).sum_to(b.shape())?)
            } else {
                None
            };
            let ga = if c.needs[0] {
                Some(Grad::dense(q).sum_to(a.shape())?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        }))
    }

    /// `self + s` for a scalar `s` (also the operator `&x + s` and `s + &x`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f32], [1])?);
    /// assert_eq!(x.add_scalar(2.0).value().to_vec(), vec![3.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn add_scalar(&self, s: T) -> Var<T> {
        let value = &self.view() + s;
        Var::from_op(value, "add", &[self], |c| Ok(vec![Some(c.grad)]))
    }

    /// `self * s` for a scalar `s` (also the operator `&x * s` and `s * &x`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2])?);
    /// let grads = x.mul_scalar(3.0).sum().backward()?;
    /// assert_eq!(grads.get(&x).unwrap().to_vec(), vec![3.0, 3.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn mul_scalar(&self, s: T) -> Var<T> {
        let value = &self.view() * s;
        Var::from_op(value, "mul", &[self], move |c| {
            Ok(vec![Some(c.grad.map_grad(|g| g * s))])
        })
    }

    /// `s - self` for a scalar `s` (the operator `s - &x`; `&x - s` is
    /// `x.add_scalar(-s)`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64], [1])?);
    /// let y = x.rsub_scalar(5.0);
    /// assert_eq!(y.value().to_vec(), vec![4.0]);
    /// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![-1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn rsub_scalar(&self, s: T) -> Var<T> {
        let value = (-&self.view()) + s;
        Var::from_op(value, "sub", &[self], |c| Ok(vec![Some(c.grad.map_grad(|g| -g))]))
    }

    /// `s / self` for a scalar `s` (the operator `s / &x`; `&x / s` is
    /// `x.mul_scalar(1 / s)`-like but divides exactly).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![2.0f64], [1])?);
    /// let y = x.rdiv_scalar(1.0);
    /// assert_eq!(y.value().to_vec(), vec![0.5]);
    /// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![-0.25]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn rdiv_scalar(&self, s: T) -> Var<T> {
        let value = self.view().mapv(|x| s / x);
        Var::from_op(value, "div", &[self], |c| {
            // ∂(s/x)/∂x = -s/x² = -out/x
            let mut g = c.grad.zip(&c.out, |g, o| -g * o)?;
            g.zip_map_inplace(&c.inputs[0], |g, x| *g = *g / x)?;
            Ok(vec![Some(Grad::dense(g))])
        })
    }

    /// `self / s` for a scalar `s` (the operator `&x / s`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![3.0f64], [1])?);
    /// let grads = x.div_scalar(2.0).sum().backward()?;
    /// assert_eq!(grads.get(&x).unwrap().to_vec(), vec![0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn div_scalar(&self, s: T) -> Var<T> {
        let value = &self.view() / s;
        Var::from_op(value, "div", &[self], move |c| {
            Ok(vec![Some(c.grad.map_grad(|g| g / s))])
        })
    }

    /// `-self` (also the operator `-&x`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![3.0f64], [1])?);
    /// let grads = x.neg().sum().backward()?;
    /// assert_eq!(grads.get(&x).unwrap().to_vec(), vec![-1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub fn neg(&self) -> Var<T> {
        let value = -&self.view();
        Var::from_op(value, "neg", &[self], |c| Ok(vec![Some(c.grad.map_grad(|g| -g))]))
    }
}
