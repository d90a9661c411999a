//! [`BatchNorm2d`]: inference-mode batch normalisation with its running statistics
//! turned once into a per-channel scale and shift, applied (with an optional fused
//! activation) in one vectorised pass; [`super::Conv2d`] and [`super::Linear`] fold it
//! into their weights.

use super::epilogue::{ActFloat, Activation};
use super::param::{Param, opt_param_vec, param_vec};
use super::util::{cast_vec, contiguous, from_f32, owned_dim, par_chunks_rows, to_f32};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// A prepared inference-mode batch norm over axis 1 of `(N, C, …)` (PyTorch's
/// `nn.BatchNorm2d` in `eval()`): `y = (x − running_mean[c]) / √(running_var[c] + ε) ·
/// γ[c] + β[c]`, computed as `x · s[c] + t[c]` with `s`, `t` derived once in `f64`,
/// followed by an optional activation in the same pass.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{Activation, BatchNorm2d};
/// let mean = Tensor::from_vec(vec![1.0f32, 10.0], [2])?;
/// let var = Tensor::from_vec(vec![1.0f32, 100.0], [2])?;
/// let beta = Tensor::from_vec(vec![0.0f32, -5.0], [2])?;
/// let bn = BatchNorm2d::new(&mean, &var, None, Some(&beta), 0.0)?.with_activation(Activation::Relu);
/// let x = Tensor::from_vec(vec![3.0f32, 0.0, 30.0, 90.0], [1, 2, 1, 2])?;
/// assert_eq!(bn.forward(&x)?.to_vec(), vec![2.0, 0.0, 0.0, 3.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BatchNorm2d<T: Float> {
    scale: Vec<f64>,
    shift: Vec<f64>,
    activation: Activation,
    _t: std::marker::PhantomData<T>,
}

impl<T: Float> BatchNorm2d<T> {
    /// A batch norm from the running statistics, the optional affine `weight` (γ) and
    /// `bias` (β) and `eps`; every parameter any 1-D tensor or view of length `C` (the
    /// running mean's length). `Err` naming the parameter and shapes otherwise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let m = Tensor::<f64, _>::zeros([3]);
    /// let v = Tensor::<f64, _>::ones([2]);
    /// assert!(ferrotensor::nn::BatchNorm2d::new(&m, &v, None, None, 1e-5).is_err());
    /// ```
    pub fn new(
        running_mean: &dyn Param<T>,
        running_var: &dyn Param<T>,
        weight: Option<&dyn Param<T>>,
        bias: Option<&dyn Param<T>>,
        eps: f64,
    ) -> Result<Self> {
        const OP: &str = "BatchNorm2d::new";
        let mv = running_mean.param_view();
        if mv.ndim() != 1 {
            return Err(Error::shape(
                OP,
                format!("running_mean of shape {} must be 1-D", fmt_shape(mv.shape())),
            ));
        }
        let c = mv.shape()[0];
        let ctx = format!("running_mean {}", fmt_shape(mv.shape()));
        let (scale, shift) = scale_shift(OP, running_mean, running_var, weight, bias, eps, c, &ctx)?;
        Ok(BatchNorm2d {
            scale,
            shift,
            activation: Activation::Identity,
            _t: std::marker::PhantomData,
        })
    }

    /// The batch norm followed by `activation` in the same pass.
    pub fn with_activation(mut self, activation: Activation) -> Self {
        self.activation = activation;
        self
    }

    /// The activation applied after the normalisation.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Channels `C`.
    pub fn num_features(&self) -> usize {
        self.scale.len()
    }

    /// The weight and bias of a layer followed by this batch norm, folded into one
    /// layer: every output channel's row of the row-major `weight` scaled by `s`, the
    /// bias mapped to `b·s + t` (`y = x·s + t`). `Err` (named `op`) if the layer applies
    /// a non-identity `activation` before the batch norm. The caller checks that the
    /// channel counts agree.
    pub(crate) fn fold_after(
        &self,
        op: &'static str,
        weight: &[T],
        bias: Option<&Tensor<T, crate::layout::Ix1>>,
        activation: Activation,
    ) -> Result<(Vec<T>, Vec<T>)> {
        if activation != Activation::Identity {
            return Err(Error::value(
                op,
                format!("the layer applies {activation:?} before the batch norm; fold first, then add the activation"),
            ));
        }
        let (scale, shift) = (&self.scale, &self.shift);
        let per = weight.len() / scale.len().max(1);
        let w = weight
            .iter()
            .enumerate()
            .map(|(i, &v)| T::from_f64(Float::to_f64(v) * scale[i / per.max(1)]))
            .collect();
        let b = (0..scale.len())
            .map(|c| {
                let b0 = bias.map_or(0.0, |b| Float::to_f64(b[[c]]));
                T::from_f64(b0 * scale[c] + shift[c])
            })
            .collect();
        Ok((w, b))
    }

    /// The normalisation of `x` `(N, C, …)` (at least 2 axes; any layout and ownership)
    /// as a row-major tensor of its shape and rank type. `Err` if `x` has fewer than 2
    /// axes or `C` differs from the batch norm's channels.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let bn = ferrotensor::nn::BatchNorm2d::new(&Tensor::<f32, _>::zeros([2]), &Tensor::<f32, _>::ones([2]), None, None, 0.0)?;
    /// assert!(bn.forward(&Tensor::<f32, _>::ones([1, 3, 2, 2])).is_err());
    /// assert_eq!(bn.forward(&Tensor::<f32, _>::ones([4, 2]))?.shape(), &[4, 2]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn forward<S: Storage<Elem = T>, D: Dimension>(&self, x: &TensorBase<S, D>) -> Result<Tensor<T, D>> {
        check_channels("BatchNorm2d::forward", x.shape(), self.num_features())?;
        Ok(apply(x, &self.scale, &self.shift, self.activation))
    }
}

/// `Err` unless `shape` is `(N, C, …)` with `C = c`.
pub(crate) fn check_channels(op: &'static str, shape: &[usize], c: usize) -> Result<()> {
    if shape.len() < 2 || shape[1] != c {
        return Err(Error::shape(
            op,
            format!(
                "expected an input (N, C, ...) with C = {c} channels, got shape {}",
                fmt_shape(shape)
            ),
        ));
    }
    Ok(())
}

/// The `(s, t)` of `y = x·s + t` from batch-norm parameters of length `c`, in `f64`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scale_shift<T: Float>(
    op: &'static str,
    running_mean: &dyn Param<T>,
    running_var: &dyn Param<T>,
    weight: Option<&dyn Param<T>>,
    bias: Option<&dyn Param<T>>,
    eps: f64,
    c: usize,
    ctx: &str,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let f = |v: Vec<T>| v.into_iter().map(Float::to_f64).collect::<Vec<f64>>();
    let m = f(param_vec(op, "running_mean", running_mean, c, ctx)?);
    let v = f(param_vec(op, "running_var", running_var, c, ctx)?);
    let w = opt_param_vec(op, "weight", weight, c, ctx)?.map(f);
    let b = opt_param_vec(op, "bias", bias, c, ctx)?.map(f);
    let scale: Vec<f64> = (0..c)
        .map(|i| w.as_ref().map_or(1.0, |w| w[i]) / (v[i] + eps).sqrt())
        .collect();
    let shift = (0..c)
        .map(|i| b.as_ref().map_or(0.0, |b| b[i]) - m[i] * scale[i])
        .collect();
    Ok((scale, shift))
}

/// `activation(x · s[c] + t[c])` over axis 1 of `x` (shape checked by the caller).
pub(crate) fn apply<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    scale: &[f64],
    shift: &[f64],
    act: Activation,
) -> Tensor<T, D> {
    let shape = x.shape().to_vec();
    let c = shape[1];
    let inner: usize = shape[2..].iter().product();
    let data = contiguous(x).into_owned();
    let data: Vec<T> = match cast_vec::<T, f64>(data) {
        Ok(mut v) => {
            affine(&mut v, inner, c, scale, shift, act);
            cast_vec(v).unwrap_or_else(|_| unreachable!("T is f64"))
        }
        Err(data) => match cast_vec::<T, f32>(data) {
            Ok(mut v) => {
                affine(&mut v, inner, c, scale, shift, act);
                cast_vec(v).unwrap_or_else(|_| unreachable!("T is f32"))
            }
            Err(v) => {
                let mut w = to_f32(&v);
                affine(&mut w, inner, c, scale, shift, act);
                from_f32(&w)
            }
        },
    };
    owned_dim(data, &shape)
}

/// In place: every row `r` (of `inner` elements; rows are the `(n, c)` pairs in order)
/// becomes `activation(row · scale[r mod c] + shift[r mod c])`.
fn affine<F: ActFloat>(v: &mut [F], inner: usize, c: usize, scale: &[f64], shift: &[f64], act: Activation) {
    if inner == 0 || c == 0 {
        return;
    }
    par_chunks_rows(v, inner, |first_row, rows| {
        for (i, row) in rows.chunks_exact_mut(inner).enumerate() {
            let ch = (first_row + i) % c;
            let (s, t) = (F::from_f64(scale[ch]), F::from_f64(shift[ch]));
            for e in row.iter_mut() {
                *e = *e * s + t;
            }
            act.run(row);
        }
    });
}
