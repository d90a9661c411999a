//! Element-wise choices between [`Var`]s: `maximum`, `minimum` (ties split as
//! PyTorch does), `clip` and `where_`, each accepting a `Var` or a scalar operand
//! ([`IntoVar`]).

use super::grad::Grad;
use super::var::Var;
use crate::element::Float;
use crate::error::Result;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};

/// An operand of a `Var` operation: a `Var` (owned or borrowed) or a scalar, which
/// becomes a 0-d constant.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![-1.0f64, 2.0], [2])?);
/// assert_eq!(x.maximum(0.0)?.value().to_vec(), vec![0.0, 2.0]);      // a scalar
/// assert_eq!(x.maximum(&x.neg())?.value().to_vec(), vec![1.0, 2.0]); // a Var
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub trait IntoVar<T: Float> {
    /// The operand as a `Var`.
    fn into_var(self) -> Var<T>;
}

impl<T: Float> IntoVar<T> for Var<T> {
    fn into_var(self) -> Var<T> {
        self
    }
}

impl<T: Float> IntoVar<T> for &Var<T> {
    fn into_var(self) -> Var<T> {
        self.clone()
    }
}

impl IntoVar<f32> for f32 {
    fn into_var(self) -> Var<f32> {
        Var::constant(Tensor::full(Vec::<usize>::new(), self))
    }
}

impl IntoVar<f64> for f64 {
    fn into_var(self) -> Var<f64> {
        Var::constant(Tensor::full(Vec::<usize>::new(), self))
    }
}

/// Weights `(w_a, w_b)` of the incoming gradient for each operand of `maximum`
/// (`larger` = true) or `minimum`: 1 to the winner, ½ each at a tie, and — as PyTorch,
/// where NaN compares false both ways — 1 to both when either is NaN.
fn choice_weights<T: Float>(
    a: &TensorView<'_, T, IxDyn>,
    b: &TensorView<'_, T, IxDyn>,
    larger: bool,
    for_a: bool,
) -> Result<Tensor<T, IxDyn>> {
    let half = T::from_f64(0.5);
    a.zip_map(b, move |x, y| {
        let loses = if larger == for_a { x < y } else { x > y };
        if x == y {
            half
        } else if loses {
            T::zero()
        } else {
            T::one()
        }
    })
}

fn choose<T: Float>(a: &Var<T>, b: &Var<T>, larger: bool, name: &'static str) -> Result<Var<T>> {
    let value = if larger {
        a.view().maximum(&b.view())?
    } else {
        a.view().minimum(&b.view())?
    };
    Ok(Var::from_op(value, name, &[a, b], move |c| {
        let (x, y) = (&c.inputs[0], &c.inputs[1]);
        let gv = c.grad.view();
        let mut out = Vec::with_capacity(2);
        for (i, input) in [x, y].into_iter().enumerate() {
            out.push(if c.needs[i] {
                let w = choice_weights(x, y, larger, i == 0)?;
                let full = gv.try_mul(&w)?;
                Some(Grad::dense(full).sum_to(input.shape())?)
            } else {
                None
            });
        }
        Ok(out)
    }))
}

impl<T: Float> Var<T> {
    /// Element-wise maximum with NumPy broadcasting (NaN if either is NaN), of a `Var`
    /// or a scalar. At a tie each operand gets half the gradient (as PyTorch). `Err`
    /// if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Var::new(Tensor::from_vec(vec![1.0f64, 5.0, 3.0], [3])?);
    /// let b = Var::new(Tensor::from_vec(vec![2.0f64, 4.0, 3.0], [3])?);
    /// let g = a.maximum(&b)?.sum().backward()?;
    /// assert_eq!(g.get(&a).unwrap().to_vec(), vec![0.0, 1.0, 0.5]);
    /// assert_eq!(g.get(&b).unwrap().to_vec(), vec![1.0, 0.0, 0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn maximum(&self, other: impl IntoVar<T>) -> Result<Var<T>> {
        choose(self, &other.into_var(), true, "maximum")
    }

    /// Element-wise minimum with NumPy broadcasting, of a `Var` or a scalar; ties split
    /// the gradient half and half. `Err` if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Var::new(Tensor::from_vec(vec![1.0f64, 5.0], [2])?);
    /// let g = a.minimum(2.0)?.sum().backward()?;
    /// assert_eq!(g.get(&a).unwrap().to_vec(), vec![1.0, 0.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn minimum(&self, other: impl IntoVar<T>) -> Result<Var<T>> {
        choose(self, &other.into_var(), false, "minimum")
    }
    /// Clamps every element into `[min, max]` (NumPy `clip` = `minimum(maximum(x, min),
    /// max)`); `min` and `max` are `Var`s or scalars, broadcast with `self`. As PyTorch's
    /// `clamp`, the gradient goes to `x` where `min ≤ x ≤ max`, to `min` where
    /// `x < min`, to `max` where the result is `max`. `Err` if the shapes do not
    /// broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![-2.0f64, 0.5, 3.0], [3])?);
    /// let y = x.clip(0.0, 1.0)?;
    /// assert_eq!(y.value().to_vec(), vec![0.0, 0.5, 1.0]);
    /// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![0.0, 1.0, 0.0]);
    /// let hi = Var::new(Tensor::from_vec(vec![2.0f64], [1])?);
    /// let g = x.clip(0.0, &hi)?.sum().backward()?;
    /// assert_eq!(g.get(&hi).unwrap().to_vec(), vec![1.0]);      // from x = 3.0
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn clip(&self, min: impl IntoVar<T>, max: impl IntoVar<T>) -> Result<Var<T>> {
        let (lo, hi) = (min.into_var(), max.into_var());
        let value = self.view().clip(&lo.view(), &hi.view())?;
        Ok(Var::from_op(value, "clip", &[self, &lo, &hi], |c| {
            let (x, lo, hi) = (&c.inputs[0], &c.inputs[1], &c.inputs[2]);
            // `min` is taken where x < min; `max` where that result exceeds `max`. NaN
            // compares false, so its gradient stays with `x`, which supplied it.
            let lo_taken = x.zip_map(lo, |x, l| x < l)?;
            let raised = x.zip_map(lo, |x, l| if x < l { l } else { x })?;
            let hi_taken = raised.zip_map(hi, |r, h| r > h)?;
            let below = c.grad.view().zip_map(&hi_taken, |g, t| if t { T::zero() } else { g })?;
            let mut out = Vec::with_capacity(3);
            for (i, input) in [x, lo, hi].into_iter().enumerate() {
                out.push(if c.needs[i] {
                    let full = match i {
                        0 => below.zip_map(&lo_taken, |g, t| if t { T::zero() } else { g })?,
                        1 => below.zip_map(&lo_taken, |g, t| if t { g } else { T::zero() })?,
                        _ => c.grad.view().zip_map(&hi_taken, |g, t| if t { g } else { T::zero() })?,
                    };
                    Some(Grad::dense(full).sum_to(input.shape())?)
                } else {
                    None
                });
            }
            Ok(out)
        }))
    }
}

/// `a` where `cond` is true, else `b` (NumPy `where`), broadcasting all three; `a` and
/// `b` are `Var`s or scalars. Each receives the gradient where it was chosen. `Err` if
/// the shapes do not broadcast.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::new(Tensor::from_vec(vec![-1.0f64, 2.0], [2])?);
/// let cond = x.value().mapv(|v| v > 0.0);
/// let y = autograd::where_(&cond, &x, 0.0)?;            // relu by hand
/// assert_eq!(y.value().to_vec(), vec![0.0, 2.0]);
/// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![0.0, 1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn where_<T: Float, S: Storage<Elem = bool>, D: Dimension>(
    cond: &TensorBase<S, D>,
    a: impl IntoVar<T>,
    b: impl IntoVar<T>,
) -> Result<Var<T>> {
    let (a, b) = (a.into_var(), b.into_var());
    let cond = cond.view().into_dyn().to_owned();
    let value = crate::where_(&cond, &a.view(), &b.view())?;
    Ok(Var::from_op(value, "where", &[&a, &b], move |c| {
        let gv = c.grad.view();
        let mut out = Vec::with_capacity(2);
        for (i, input) in c.inputs.iter().enumerate() {
            out.push(if c.needs[i] {
                let pick = i == 0;
                let full = gv.zip_map(&cond, move |g, k| if k == pick { g } else { T::zero() })?;
                Some(Grad::dense(full).sum_to(input.shape())?)
            } else {
                None
            });
        }
        Ok(out)
    }))
}
