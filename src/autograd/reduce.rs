//! Reductions of a [`Var`] (`sum`, `mean`, `max_axes`, `min_axes`, `var`, `std`) and
//! `cumsum`. The gradient of a sum or mean is the incoming gradient broadcast back over
//! the reduced axes (never materialised); extrema split it evenly among tied elements.

use super::grad::{Grad, keepdims_shape, reshape_owned};
use super::var::{Ctx, Var};
use crate::element::Float;
use crate::error::Result;
use crate::layout::IxDyn;
use crate::layout::transform::{flip_layout, normalize_axes};
use crate::reduce::Ddof;
use crate::tensor::{Tensor, TensorBase};

/// The incoming gradient of a reduction over `axes` (keepdims or not) as a gradient
/// of the keepdims shape, times `scale`.
fn keepdims_grad<T: Float>(g: Grad<T>, in_shape: &[usize], axes: &[usize], scale: T) -> Result<Grad<T>> {
    let keep = keepdims_shape(in_shape, axes);
    let g = if scale == T::one() {
        g
    } else {
        g.map_grad(|x| x * scale)
    };
    g.reshape(&keep)
}

/// Number of elements a reduction over `axes` folds into each output.
fn reduced_count(shape: &[usize], axes: &[usize]) -> usize {
    axes.iter().map(|&a| shape[a]).product()
}

/// The rule of `sum`/`mean` over `axes`: the gradient broadcast back, times `scale`.
fn spread_rule<T: Float>(axes: Vec<usize>, mean: bool) -> impl Fn(Ctx<'_, T>) -> Result<Vec<Option<Grad<T>>>> {
    move |c| {
        let shape = c.inputs[0].shape().to_vec();
        let n = reduced_count(&shape, &axes);
        let scale = if mean { T::one() / T::from_usize(n) } else { T::one() };
        let g = keepdims_grad(c.grad, &shape, &axes, scale)?;
        Ok(vec![Some(Grad::expanded(g.into_tensor(), &shape))])
    }
}

/// The rule of `max_axes`/`min_axes`: the gradient goes to the elements equal to the
/// extremum, split evenly among ties (as PyTorch's `amax`/`amin` and JAX).
fn extremum_rule<T: Float>(axes: Vec<usize>) -> impl Fn(Ctx<'_, T>) -> Result<Vec<Option<Grad<T>>>> {
    move |c| {
        let x = &c.inputs[0];
        let shape = x.shape().to_vec();
        let keep = keepdims_shape(&shape, &axes);
        let out = c.out.reshape(keep.clone())?;
        let mut hit = x.zip_map(&out, |v, m| if v == m { T::one() } else { T::zero() })?;
        let iax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
        let count = hit.sum_axes(&iax, true)?;
        let g = keepdims_grad(c.grad, &shape, &axes, T::one())?;
        let share = g.view().zip_map(&count, |g, n| g / n)?;
        hit.zip_map_inplace(&share, |h, s| *h = *h * s)?;
        Ok(vec![Some(Grad::dense(hit))])
    }
}

/// The rule of `var`/`std` over `axes` with `ddof`: `∂var/∂x = 2(x − mean)/(N − ddof)`,
/// `∂std/∂x = (x − mean)/((N − ddof)·std)`.
fn moment_rule<T: Float>(
    axes: Vec<usize>,
    ddof: f64,
    std: bool,
) -> impl Fn(Ctx<'_, T>) -> Result<Vec<Option<Grad<T>>>> {
    move |c| {
        let x = &c.inputs[0];
        let shape = x.shape().to_vec();
        let iax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
        let n = reduced_count(&shape, &axes);
        let denom = T::from_usize(n) - T::from_f64(ddof);
        let mean = x.mean_axes(&iax, true)?;
        let g = keepdims_grad(c.grad, &shape, &axes, T::one())?;
        let coef = if std {
            let keep = keepdims_shape(&shape, &axes);
            let s = c.out.reshape(keep)?;
            g.view().zip_map(&s, |g, s| g / (denom * s))?
        } else {
            let two = T::from_f64(2.0);
            g.view().mapv(|g| g * two / denom)
        };
        let mut d = x - &mean;
        d.zip_map_inplace(&coef, |d, k| *d = *d * k)?;
        Ok(vec![Some(Grad::dense(d))])
    }
}

impl<T: Float> Var<T> {
    /// The sum of all elements, a 0-d `Var` (NumPy `sum()`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([2, 3]));
    /// let s = x.sum();
    /// assert_eq!(s.value().to_scalar()?, 6.0);
    /// assert_eq!(s.backward()?.get(&x).unwrap().to_vec(), vec![1.0; 6]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn sum(&self) -> Var<T> {
        let all: Vec<usize> = (0..self.ndim()).collect();
        let value = Tensor::full(Vec::<usize>::new(), self.view().sum());
        Var::from_op(value, "sum", &[self], spread_rule(all, false))
    }

    /// The mean of all elements, a 0-d `Var` (NaN for an empty tensor, as NumPy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([4]));
    /// assert_eq!(x.mean().backward()?.get(&x).unwrap().to_vec(), vec![0.25; 4]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn mean(&self) -> Var<T> {
        let all: Vec<usize> = (0..self.ndim()).collect();
        let value = Tensor::full(Vec::<usize>::new(), self.view().mean());
        Var::from_op(value, "mean", &[self], spread_rule(all, true))
    }

    /// Sum over `axes` (NumPy `sum(axis=…, keepdims=…)`); `Err` as
    /// [`crate::TensorBase::sum_axes`] for an axis out of range or repeated.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([2, 3]));
    /// let s = x.sum_axes(&[1], false)?;
    /// assert_eq!(s.shape(), &[2]);
    /// let w = Var::constant(Tensor::from_vec(vec![1.0, 2.0], [2])?);
    /// let g = (&s * &w).sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn sum_axes(&self, axes: &[isize], keepdims: bool) -> Result<Var<T>> {
        let value = self.view().sum_axes(axes, keepdims)?;
        let ax = normalize_axes(axes, self.ndim(), "sum_axes")?;
        Ok(Var::from_op(value, "sum_axes", &[self], spread_rule(ax, false)))
    }

    /// Mean over `axes` (NumPy `mean(axis=…, keepdims=…)`); `Err` as
    /// [`crate::TensorBase::mean_axes`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([2, 4]));
    /// let g = x.mean_axes(&[1], true)?.sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![0.25; 8]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn mean_axes(&self, axes: &[isize], keepdims: bool) -> Result<Var<T>> {
        let value = self.view().mean_axes(axes, keepdims)?;
        let ax = normalize_axes(axes, self.ndim(), "mean_axes")?;
        Ok(Var::from_op(value, "mean_axes", &[self], spread_rule(ax, true)))
    }

    /// Maximum over `axes` (NumPy `amax`); the gradient is split evenly among the
    /// elements equal to the maximum. `Err` as [`crate::TensorBase::max_axes`] (also for
    /// reducing a zero-length axis).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0, 3.0, 2.0], [2, 2])?);
    /// let m = x.max_axes(&[1], false)?;
    /// assert_eq!(m.value().to_vec(), vec![3.0, 3.0]);
    /// let g = m.sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![0.0, 1.0, 1.0, 0.0]);
    /// let tie = Var::new(Tensor::from_vec(vec![5.0f64, 5.0], [2])?);
    /// let g = tie.max_axes(&[0], false)?.sum().backward()?;
    /// assert_eq!(g.get(&tie).unwrap().to_vec(), vec![0.5, 0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn max_axes(&self, axes: &[isize], keepdims: bool) -> Result<Var<T>> {
        let value = self.view().max_axes(axes, keepdims)?;
        let ax = normalize_axes(axes, self.ndim(), "max_axes")?;
        Ok(Var::from_op(value, "max_axes", &[self], extremum_rule(ax)))
    }

    /// Minimum over `axes` (NumPy `amin`); ties split the gradient evenly.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0], [2])?);
    /// let g = x.min_axes(&[0], false)?.sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![1.0, 0.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn min_axes(&self, axes: &[isize], keepdims: bool) -> Result<Var<T>> {
        let value = self.view().min_axes(axes, keepdims)?;
        let ax = normalize_axes(axes, self.ndim(), "min_axes")?;
        Ok(Var::from_op(value, "min_axes", &[self], extremum_rule(ax)))
    }

    /// Variance of all elements with `ddof` delta degrees of freedom (an integer or a
    /// fractional value, [`Ddof`]), a 0-d `Var`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0], [2])?);
    /// let v = x.var(0);
    /// assert_eq!(v.value().to_scalar()?, 1.0);
    /// assert_eq!(x.var(0.5).value().to_scalar()?, 2.0 / 1.5);
    /// assert_eq!(v.backward()?.get(&x).unwrap().to_vec(), vec![-1.0, 1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn var(&self, ddof: impl Ddof) -> Var<T> {
        let all: Vec<usize> = (0..self.ndim()).collect();
        let value = Tensor::full(Vec::<usize>::new(), self.view().var(ddof));
        Var::from_op(value, "var", &[self], moment_rule(all, ddof.ddof(), false))
    }

    /// Standard deviation of all elements with `ddof`, a 0-d `Var`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0], [2])?);
    /// let g = x.std(0).backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![-0.5, 0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn std(&self, ddof: impl Ddof) -> Var<T> {
        let all: Vec<usize> = (0..self.ndim()).collect();
        let value = Tensor::full(Vec::<usize>::new(), self.view().std(ddof));
        Var::from_op(value, "std", &[self], moment_rule(all, ddof.ddof(), true))
    }

    /// Variance over `axes` with `ddof` (NumPy `var(axis=…, keepdims=…, ddof=…)`);
    /// `Err` as [`crate::TensorBase::var_axes`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0, 0.0, 0.0], [2, 2])?);
    /// let g = x.var_axes(&[1], false, 1)?.sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![-2.0, 2.0, 0.0, 0.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn var_axes(&self, axes: &[isize], keepdims: bool, ddof: impl Ddof) -> Result<Var<T>> {
        let value = self.view().var_axes(axes, keepdims, ddof)?;
        let ax = normalize_axes(axes, self.ndim(), "var_axes")?;
        Ok(Var::from_op(
            value,
            "var_axes",
            &[self],
            moment_rule(ax, ddof.ddof(), false),
        ))
    }

    /// Standard deviation over `axes` with `ddof`; `Err` as
    /// [`crate::TensorBase::std_axes`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0], [1, 2])?);
    /// let g = x.std_axes(&[1], false, 0)?.sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![-0.5, 0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn std_axes(&self, axes: &[isize], keepdims: bool, ddof: impl Ddof) -> Result<Var<T>> {
        let value = self.view().std_axes(axes, keepdims, ddof)?;
        let ax = normalize_axes(axes, self.ndim(), "std_axes")?;
        Ok(Var::from_op(
            value,
            "std_axes",
            &[self],
            moment_rule(ax, ddof.ddof(), true),
        ))
    }

    /// Cumulative sum along `axis` (NumPy `cumsum`); the gradient is the reversed
    /// cumulative sum of the incoming one. `Err` as [`crate::TensorBase::cumsum`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3])?);
    /// let c = x.cumsum(0)?;
    /// assert_eq!(c.value().to_vec(), vec![1.0, 3.0, 6.0]);
    /// assert_eq!(c.sum().backward()?.get(&x).unwrap().to_vec(), vec![3.0, 2.0, 1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn cumsum(&self, axis: isize) -> Result<Var<T>> {
        let value = self.view().cumsum(axis)?;
        Ok(Var::from_op(value, "cumsum", &[self], move |c| {
            let g = c.grad.view();
            let rev = g.flip(axis)?.cumsum(axis)?;
            // Flip back as a layout over the new buffer (no copy).
            let layout = flip_layout(rev.layout(), axis)?;
            let back: Tensor<T, IxDyn> = TensorBase {
                storage: rev.storage,
                layout,
            };
            Ok(vec![Some(Grad::dense(reshape_owned(back, c.inputs[0].shape())?))])
        }))
    }
}
