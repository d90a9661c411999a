//! [`Sgd`]: stochastic gradient descent with momentum, Nesterov momentum, dampening
//! and L2 weight decay (PyTorch's `torch.optim.SGD`).

use super::{LearningRate, for_each_param, update1, update2};
use crate::autograd::{Grads, Var};
use crate::element::Float;
use crate::error::{Error, Result};
use std::collections::HashMap;

/// Stochastic gradient descent, PyTorch's update rule: with `g = grad + weight_decay·p`,
/// momentum keeps `b = momentum·b + (1 − dampening)·g` (`b = g` at the first step) and
/// steps along `b`, or along `g + momentum·b` with Nesterov; then `p -= lr·step`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::optim::Sgd;
/// let mut w = Var::new(Tensor::from_vec(vec![1.0f64], [1])?);
/// let mut opt = Sgd::new(0.1).momentum(0.9);
/// for expected in [0.8, 0.46] {                           // grad = 2w
///     let grads = w.square().sum().backward()?;
///     opt.step([&mut w], &grads)?;
///     assert!((w.value().to_vec()[0] - expected).abs() < 1e-12);
/// }
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub struct Sgd<T: Float> {
    lr: LearningRate,
    momentum: f64,
    dampening: f64,
    nesterov: bool,
    weight_decay: f64,
    steps: usize,
    buffers: HashMap<u64, Vec<T>>,
}

impl<T: Float> Sgd<T> {
    /// Plain SGD with learning rate `lr` (a number or a schedule closure).
    ///
    /// ```
    /// let opt = ferrotensor::optim::Sgd::<f32>::new(|step: usize| 0.1 / (1 + step) as f64);
    /// assert_eq!(opt.learning_rate().at(1), 0.05);
    /// ```
    pub fn new(lr: impl Into<LearningRate>) -> Self {
        Sgd {
            lr: lr.into(),
            momentum: 0.0,
            dampening: 0.0,
            nesterov: false,
            weight_decay: 0.0,
            steps: 0,
            buffers: HashMap::new(),
        }
    }

    /// Sets the momentum factor (0 = none).
    ///
    /// ```
    /// let opt = ferrotensor::optim::Sgd::<f64>::new(0.1).momentum(0.9);
    /// ```
    pub fn momentum(mut self, momentum: f64) -> Self {
        self.momentum = momentum;
        self
    }

    /// Sets the dampening of the momentum (PyTorch's `dampening`).
    ///
    /// ```
    /// let opt = ferrotensor::optim::Sgd::<f64>::new(0.1).momentum(0.9).dampening(0.1);
    /// ```
    pub fn dampening(mut self, dampening: f64) -> Self {
        self.dampening = dampening;
        self
    }

    /// Enables Nesterov momentum (needs momentum > 0 and zero dampening).
    ///
    /// ```
    /// let opt = ferrotensor::optim::Sgd::<f64>::new(0.1).momentum(0.9).nesterov(true);
    /// ```
    pub fn nesterov(mut self, nesterov: bool) -> Self {
        self.nesterov = nesterov;
        self
    }

    /// Sets the L2 weight decay (added to the gradient as `weight_decay·p`).
    ///
    /// ```
    /// let opt = ferrotensor::optim::Sgd::<f64>::new(0.1).weight_decay(1e-4);
    /// ```
    pub fn weight_decay(mut self, weight_decay: f64) -> Self {
        self.weight_decay = weight_decay;
        self
    }

    /// The learning rate or schedule.
    ///
    /// ```
    /// assert_eq!(ferrotensor::optim::Sgd::<f32>::new(0.5).learning_rate().at(0), 0.5);
    /// ```
    pub fn learning_rate(&self) -> &LearningRate {
        &self.lr
    }

    /// Replaces the learning rate or schedule (the step count continues).
    ///
    /// ```
    /// let mut opt = ferrotensor::optim::Sgd::<f32>::new(0.5);
    /// opt.set_learning_rate(0.25);
    /// assert_eq!(opt.learning_rate().at(0), 0.25);
    /// ```
    pub fn set_learning_rate(&mut self, lr: impl Into<LearningRate>) {
        self.lr = lr.into();
    }

    /// The number of steps taken.
    ///
    /// ```
    /// assert_eq!(ferrotensor::optim::Sgd::<f32>::new(0.5).steps(), 0);
    /// ```
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// One update of every parameter in `params` that has a gradient in `grads`.
    /// `Err` for Nesterov without momentum or with dampening, or for a parameter that
    /// is not a leaf.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::optim::Sgd;
    /// let mut w = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2])?);
    /// let grads = w.sum().backward()?;
    /// Sgd::new(0.5).step([&mut w], &grads)?;
    /// assert_eq!(w.value().to_vec(), vec![0.5, 1.5]);
    /// assert!(Sgd::new(0.5).nesterov(true).step([&mut w], &grads).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn step<'a>(&mut self, params: impl IntoIterator<Item = &'a mut Var<T>>, grads: &Grads<T>) -> Result<()> {
        const OP: &str = "Sgd::step";
        if self.nesterov && (self.momentum <= 0.0 || self.dampening != 0.0) {
            return Err(Error::value(
                OP,
                format!(
                    "Nesterov momentum needs momentum > 0 and zero dampening (momentum {}, dampening {})",
                    self.momentum, self.dampening
                ),
            ));
        }
        let lr = T::from_f64(self.lr.at(self.steps));
        let (mu, damp, wd) = (
            T::from_f64(self.momentum),
            T::one() - T::from_f64(self.dampening),
            T::from_f64(self.weight_decay),
        );
        let (use_momentum, nesterov) = (self.momentum != 0.0, self.nesterov);
        let buffers = &mut self.buffers;
        for_each_param(OP, params, grads, |id, p, g| {
            if !use_momentum {
                update1(p, g, |p, g| {
                    for (p, &g) in p.iter_mut().zip(g) {
                        *p = *p - lr * (g + wd * *p);
                    }
                });
                return Ok(());
            }
            let first = !buffers.contains_key(&id);
            let b = buffers.entry(id).or_insert_with(|| vec![T::zero(); p.len()]);
            update2(p, b, g, |p, b, g| {
                for ((p, b), &g) in p.iter_mut().zip(b.iter_mut()).zip(g) {
                    let d = g + wd * *p;
                    *b = if first { d } else { mu * *b + damp * d };
                    let step = if nesterov { d + mu * *b } else { *b };
                    *p = *p - lr * step;
                }
            });
            Ok(())
        })?;
        self.steps += 1;
        Ok(())
    }
}
