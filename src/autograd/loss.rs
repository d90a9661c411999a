//! Losses, each the mean over the batch (PyTorch's default `reduction='mean'`), with
//! fused backward rules: [`cross_entropy`], [`nll_loss`], [`mse_loss`],
//! [`bce_with_logits`].

use super::grad::Grad;
use super::var::Var;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn};
use crate::nn;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Flat offsets, into a row-major tensor of `shape` `(N, C, d…)`, of the entries picked
/// by the class labels `targets` `(N, d…)`. `Err` naming `op` and the shapes for a
/// shape mismatch or a label outside `0..C`.
fn class_offsets<S: Storage<Elem = i64>, D: Dimension>(
    op: &'static str,
    shape: &[usize],
    targets: &TensorBase<S, D>,
) -> Result<Vec<usize>> {
    let mismatch = || {
        Error::shape(
            op,
            format!(
                "input of shape {} (N, C, ...) needs targets of shape (N, ...) without the class axis, got {}",
                fmt_shape(shape),
                fmt_shape(targets.shape())
            ),
        )
    };
    if shape.len() < 2 {
        return Err(mismatch());
    }
    let (n, c) = (shape[0], shape[1]);
    let mut want = vec![n];
    want.extend_from_slice(&shape[2..]);
    if targets.shape() != want.as_slice() {
        return Err(mismatch());
    }
    let inner: usize = shape[2..].iter().product();
    targets
        .iter()
        .enumerate()
        .map(|(p, &t)| {
            if t < 0 || t as u64 >= c as u64 {
                return Err(Error::index(
                    op,
                    format!(
                        "target {t} is out of range for {c} classes (input {}, targets {})",
                        fmt_shape(shape),
                        fmt_shape(targets.shape())
                    ),
                ));
            }
            let (b, r) = (p / inner.max(1), p % inner.max(1));
            Ok((b * c + t as usize) * inner + r)
        })
        .collect()
}

/// `−mean(logp[picked])` and its count, for the picked entries of a row-major `logp`.
fn mean_picked<T: Float>(logp: &Tensor<T, IxDyn>, offsets: &[usize]) -> (Tensor<T, IxDyn>, T) {
    let data = logp.as_slice().expect("row-major");
    let count = T::from_usize(offsets.len());
    let sum = offsets.iter().fold(T::zero(), |s, &o| s + data[o]);
    (Tensor::full(Vec::<usize>::new(), -sum / count), count)
}

/// Cross-entropy between `logits` `(N, C)` (or `(N, C, d…)`) and integer class labels
/// `targets` `(N,)` (or `(N, d…)`), averaged over all labels: PyTorch's
/// `cross_entropy(logits, targets)`. Computed as a fused log-softmax; the backward rule
/// is `(softmax − one_hot) / count`. `Err` for mismatched shapes or a label outside
/// `0..C`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let logits = Var::new(Tensor::from_vec(vec![0.0f64, 0.0, 0.0, 0.0], [2, 2])?);
/// let labels = Tensor::from_vec(vec![0i64, 1], [2])?;
/// let loss = autograd::cross_entropy(&logits, &labels)?;
/// assert!((loss.value().to_scalar()? - 2f64.ln()).abs() < 1e-15);
/// let g = loss.backward()?.get(&logits).unwrap();
/// assert_eq!(g.to_vec(), vec![-0.25, 0.25, 0.25, -0.25]);
/// assert!(autograd::cross_entropy(&logits, &Tensor::from_vec(vec![0i64, 2], [2])?).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn cross_entropy<T: Float, S: Storage<Elem = i64>, D: Dimension>(
    logits: &Var<T>,
    targets: &TensorBase<S, D>,
) -> Result<Var<T>> {
    let offsets = class_offsets("cross_entropy", logits.shape(), targets)?;
    let logp = nn::log_softmax(&logits.view(), 1)?;
    let (value, count) = mean_picked(&logp, &offsets);
    Ok(Var::from_op(value, "cross_entropy", &[logits], move |c| {
        let scale = grad_scalar(&c.grad) / count;
        let mut p = logp.exp();
        let data = p.as_slice_mut().expect("row-major");
        for v in data.iter_mut() {
            *v = *v * scale;
        }
        for &o in &offsets {
            data[o] = data[o] - scale;
        }
        Ok(vec![Some(Grad::dense(p))])
    }))
}

/// The value of a 0-d incoming gradient.
fn grad_scalar<T: Float>(g: &Grad<T>) -> T {
    g.view().iter().next().copied().unwrap_or_else(T::zero)
}

/// Negative log-likelihood of log-probabilities `log_probs` `(N, C)` (or
/// `(N, C, d…)`) at integer class labels `targets` `(N,)` (or `(N, d…)`), averaged:
/// PyTorch's `nll_loss`. `Err` for mismatched shapes or a label outside `0..C`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let lp = Var::new(Tensor::from_vec(vec![-1.0f64, -2.0, -3.0, -4.0], [2, 2])?);
/// let loss = autograd::nll_loss(&lp, &Tensor::from_vec(vec![1i64, 0], [2])?)?;
/// assert_eq!(loss.value().to_scalar()?, 2.5);
/// assert_eq!(loss.backward()?.get(&lp).unwrap().to_vec(), vec![0.0, -0.5, -0.5, 0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn nll_loss<T: Float, S: Storage<Elem = i64>, D: Dimension>(
    log_probs: &Var<T>,
    targets: &TensorBase<S, D>,
) -> Result<Var<T>> {
    let offsets = class_offsets("nll_loss", log_probs.shape(), targets)?;
    let lp = log_probs.view().to_contiguous();
    let (value, count) = mean_picked(&lp, &offsets);
    Ok(Var::from_op(value, "nll_loss", &[log_probs], move |c| {
        let scale = grad_scalar(&c.grad) / count;
        let mut z = Tensor::<T, IxDyn>::zeros(c.inputs[0].shape().to_vec());
        let data = z.as_slice_mut().expect("row-major");
        for &o in &offsets {
            data[o] = data[o] - scale;
        }
        Ok(vec![Some(Grad::dense(z))])
    }))
}

/// Mean squared error `mean((input − target)²)` (PyTorch's `mse_loss`), with NumPy
/// broadcasting between the two; both may need gradients. `Err` if the shapes do not
/// broadcast.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::new(Tensor::from_vec(vec![1.0f64, 3.0], [2])?);
/// let y = Var::constant(Tensor::from_vec(vec![0.0f64, 0.0], [2])?);
/// let loss = autograd::mse_loss(&x, &y)?;
/// assert_eq!(loss.value().to_scalar()?, 5.0);
/// assert_eq!(loss.backward()?.get(&x).unwrap().to_vec(), vec![1.0, 3.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn mse_loss<T: Float>(input: &Var<T>, target: &Var<T>) -> Result<Var<T>> {
    let diff = input.view().try_sub(&target.view())?;
    let count = T::from_usize(diff.size());
    let sq = diff.iter().fold(T::zero(), |s, &d| s + d * d);
    let value = Tensor::full(Vec::<usize>::new(), sq / count);
    Ok(Var::from_op(value, "mse_loss", &[input, target], move |c| {
        let k = T::from_f64(2.0) * grad_scalar(&c.grad) / count;
        let full = diff.mapv(|d| d * k);
        let ga = if c.needs[0] {
            Some(Grad::dense(full.clone()).sum_to(c.inputs[0].shape())?)
        } else {
            None
        };
        let gb = if c.needs[1] {
            Some(Grad::dense(full).map_grad(|x| -x).sum_to(c.inputs[1].shape())?)
        } else {
            None
        };
        Ok(vec![ga, gb])
    }))
}

/// Binary cross-entropy of `logits` against probabilities `target` (PyTorch's
/// `binary_cross_entropy_with_logits`): `mean(max(x, 0) − x·y + ln(1 + e^−|x|))`,
/// computed stably; with NumPy broadcasting. `Err` if the shapes do not broadcast.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
/// let y = Var::constant(Tensor::from_vec(vec![1.0f64], [1])?);
/// let loss = autograd::bce_with_logits(&x, &y)?;
/// assert!((loss.value().to_scalar()? - 2f64.ln()).abs() < 1e-15);
/// assert_eq!(loss.backward()?.get(&x).unwrap().to_vec(), vec![-0.5]);   // σ(0) − 1
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn bce_with_logits<T: Float>(logits: &Var<T>, target: &Var<T>) -> Result<Var<T>> {
    let terms = logits.view().zip_map(&target.view(), |x, y| {
        x.max(T::zero()) - x * y + (-x.abs()).exp().ln_1p()
    })?;
    let count = T::from_usize(terms.size());
    let value = Tensor::full(Vec::<usize>::new(), terms.iter().fold(T::zero(), |s, &t| s + t) / count);
    Ok(Var::from_op(value, "bce_with_logits", &[logits, target], move |c| {
        let (x, y) = (&c.inputs[0], &c.inputs[1]);
        let k = grad_scalar(&c.grad) / count;
        let ga = if c.needs[0] {
            let full = x.zip_map(y, |x, y| (sigmoid(x) - y) * k)?;
            Some(Grad::dense(full).sum_to(x.shape())?)
        } else {
            None
        };
        let gb = if c.needs[1] {
            let full = x.zip_map(y, |x, _| -x * k)?;
            Some(Grad::dense(full).sum_to(y.shape())?)
        } else {
            None
        };
        Ok(vec![ga, gb])
    }))
}

fn sigmoid<T: Float>(x: T) -> T {
    if x >= T::zero() {
        T::one() / (T::one() + (-x).exp())
    } else {
        let e = x.exp();
        e / (T::one() + e)
    }
}
