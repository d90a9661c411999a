//! `softmax` and `log_softmax` of a [`Var`] with the fused [`crate::nn`] kernels in the
//! forward pass; both backward rules are written with the forward output.

use super::grad::Grad;
use super::var::Var;
use crate::element::Float;
use crate::error::Result;
use crate::layout::transform::normalize_axis;
use crate::nn;

/// Softmax along `axis` (numerically stable), as [`nn::softmax`]. The backward rule
/// is `y ⊙ (g − Σ g ⊙ y)` with the saved output `y`. `Err` if `axis` is out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::new(Tensor::from_vec(vec![1.0f64, 1.0], [2])?);
/// let y = autograd::softmax(&x, -1)?;
/// assert_eq!(y.value().to_vec(), vec![0.5, 0.5]);
/// let w = Var::constant(Tensor::from_vec(vec![1.0, 0.0], [2])?);
/// let g = (&y * &w).sum().backward()?;                  // ∂y₀/∂x = y₀(δ − y)
/// assert_eq!(g.get(&x).unwrap().to_vec(), vec![0.25, -0.25]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn softmax<T: Float>(x: &Var<T>, axis: isize) -> Result<Var<T>> {
    let value = nn::softmax(&x.view(), axis)?;
    let ax = normalize_axis(axis, x.ndim(), "softmax")? as isize;
    Ok(Var::from_op(value, "softmax", &[x], move |c| {
        let y = &c.out;
        let dot = c.grad.view().try_mul(y)?.sum_axes(&[ax], true)?;
        let mut g = c.grad.zip(&dot.view(), |g, s| g - s)?;
        g.zip_map_inplace(y, |g, y| *g = *g * y)?;
        Ok(vec![Some(Grad::dense(g))])
    }))
}

/// Log-softmax along `axis` (numerically stable), as [`nn::log_softmax`]. The
/// backward rule is `g − exp(y) ⊙ Σ g` with the saved output `y`. `Err` if `axis` is
/// out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::new(Tensor::from_vec(vec![0.0f64, 0.0], [2])?);
/// let y = autograd::log_softmax(&x, 0)?;
/// let w = Var::constant(Tensor::from_vec(vec![1.0, 0.0], [2])?);
/// let g = (&y * &w).sum().backward()?;
/// assert_eq!(g.get(&x).unwrap().to_vec(), vec![0.5, -0.5]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn log_softmax<T: Float>(x: &Var<T>, axis: isize) -> Result<Var<T>> {
    let value = nn::log_softmax(&x.view(), axis)?;
    let ax = normalize_axis(axis, x.ndim(), "log_softmax")? as isize;
    Ok(Var::from_op(value, "log_softmax", &[x], move |c| {
        let total = c.grad.view().sum_axes(&[ax], true)?;
        let mut p = c.out.exp();
        p.zip_map_inplace(&total, |p, s| *p = *p * s)?;
        let g = c.grad.zip(&p.view(), |g, ps| g - ps)?;
        Ok(vec![Some(Grad::dense(g))])
    }))
}
