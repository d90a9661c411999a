//! [`Adam`] (L2 weight decay added to the gradient) and [`AdamW`] (decoupled weight
//! decay), with PyTorch's update rules.

use super::{LearningRate, for_each_param, update3};
use crate::autograd::{Grads, Var};
use crate::element::Float;
use crate::error::Result;
use std::collections::HashMap;

/// First and second moments of one parameter, and its step count.
struct Moments<T> {
    t: i32,
    m: Vec<T>,
    v: Vec<T>,
}

/// The shared state and update of [`Adam`] and [`AdamW`].
struct AdamCore<T: Float> {
    lr: LearningRate,
    betas: (f64, f64),
    eps: f64,
    weight_decay: f64,
    decoupled: bool,
    steps: usize,
    state: HashMap<u64, Moments<T>>,
}

impl<T: Float> AdamCore<T> {
    fn new(lr: LearningRate, weight_decay: f64, decoupled: bool) -> Self {
        AdamCore {
            lr,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay,
            decoupled,
            steps: 0,
            state: HashMap::new(),
        }
    }

    fn step<'a>(
        &mut self,
        op: &'static str,
        params: impl IntoIterator<Item = &'a mut Var<T>>,
        grads: &Grads<T>,
    ) -> Result<()> {
        let lr = self.lr.at(self.steps);
        let (b1, b2) = self.betas;
        let (tb1, tb2, eps) = (T::from_f64(b1), T::from_f64(b2), T::from_f64(self.eps));
        let (wd, decoupled) = (self.weight_decay, self.decoupled);
        let state = &mut self.state;
        for_each_param(op, params, grads, |id, p, g| {
            let s = state.entry(id).or_insert_with(|| Moments {
                t: 0,
                m: vec![T::zero(); p.len()],
                v: vec![T::zero(); p.len()],
            });
            s.t += 1;
            // PyTorch: p -= lr / bc1 · m / (sqrt(v) / sqrt(bc2) + eps).
            let (bc1, bc2) = (1.0 - b1.powi(s.t), 1.0 - b2.powi(s.t));
            let step_size = T::from_f64(lr / bc1);
            let rbc2 = T::from_f64(1.0 / bc2.sqrt());
            let (l2, shrink) = if decoupled {
                (T::zero(), T::from_f64(1.0 - lr * wd))
            } else {
                (T::from_f64(wd), T::one())
            };
            let (one_b1, one_b2) = (T::one() - tb1, T::one() - tb2);
            update3(p, &mut s.m, &mut s.v, g, |p, m, v, g| {
                for (((p, m), v), &g) in p.iter_mut().zip(m.iter_mut()).zip(v.iter_mut()).zip(g) {
                    let g = g + l2 * *p;
                    *m = tb1 * *m + one_b1 * g;
                    *v = tb2 * *v + one_b2 * g * g;
                    let denom = v.sqrt() * rbc2 + eps;
                    *p = *p * shrink - step_size * *m / denom;
                }
            });
            Ok(())
        })?;
        self.steps += 1;
        Ok(())
    }
}

macro_rules! adam_api {
    ($Name:ident, $doc_default:literal) => {
        impl<T: Float> $Name<T> {
            /// Sets `(β₁, β₂)`, the decay rates of the moment averages (default `(0.9, 0.999)`).
            ///
            /// ```
            #[doc = concat!("let opt = ferrotensor::optim::", stringify!($Name), "::<f32>::new(1e-3).betas(0.8, 0.99);")]
            /// ```
            pub fn betas(mut self, beta1: f64, beta2: f64) -> Self {
                self.0.betas = (beta1, beta2);
                self
            }

            /// Sets `eps`, added to the root of the second moment (default `1e-8`).
            ///
            /// ```
            #[doc = concat!("let opt = ferrotensor::optim::", stringify!($Name), "::<f32>::new(1e-3).eps(1e-6);")]
            /// ```
            pub fn eps(mut self, eps: f64) -> Self {
                self.0.eps = eps;
                self
            }

            #[doc = concat!("Sets the weight decay (default ", $doc_default, ").")]
            ///
            /// ```
            #[doc = concat!("let opt = ferrotensor::optim::", stringify!($Name), "::<f32>::new(1e-3).weight_decay(0.05);")]
            /// ```
            pub fn weight_decay(mut self, weight_decay: f64) -> Self {
                self.0.weight_decay = weight_decay;
                self
            }

            /// The learning rate or schedule.
            ///
            /// ```
            #[doc = concat!("let opt = ferrotensor::optim::", stringify!($Name), "::<f32>::new(1e-3);")]
            /// assert_eq!(opt.learning_rate().at(5), 1e-3);
            /// ```
            pub fn learning_rate(&self) -> &LearningRate {
                &self.0.lr
            }

            /// Replaces the learning rate or schedule (the step count continues).
            ///
            /// ```
            #[doc = concat!("let mut opt = ferrotensor::optim::", stringify!($Name), "::<f32>::new(1e-3);")]
            /// opt.set_learning_rate(|step: usize| 1e-3 * 0.99f64.powi(step as i32));
            /// assert!(opt.learning_rate().at(10) < 1e-3);
            /// ```
            pub fn set_learning_rate(&mut self, lr: impl Into<LearningRate>) {
                self.0.lr = lr.into();
            }

            /// The number of steps taken.
            ///
            /// ```
            #[doc = concat!("assert_eq!(ferrotensor::optim::", stringify!($Name), "::<f64>::new(1e-3).steps(), 0);")]
            /// ```
            pub fn steps(&self) -> usize {
                self.0.steps
            }

            /// One update of every parameter in `params` that has a gradient in
            /// `grads`; `Err` for a parameter that is not a leaf.
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// let mut w = Var::new(Tensor::from_vec(vec![1.0f64], [1])?);
            #[doc = concat!("let mut opt = ferrotensor::optim::", stringify!($Name), "::new(0.1).weight_decay(0.0);")]
            /// let grads = w.sum().backward()?;
            /// opt.step([&mut w], &grads)?;
            /// assert!((w.value().to_vec()[0] - 0.9).abs() < 1e-6);   // the first step moves by lr
            /// # Ok::<(), ferrotensor::Error>(())
            /// ```
            pub fn step<'a>(&mut self, params: impl IntoIterator<Item = &'a mut Var<T>>, grads: &Grads<T>) -> Result<()> {
                self.0.step(concat!(stringify!($Name), "::step"), params, grads)
            }
        }
    };
}

/// Adam (Kingma & Ba), PyTorch's `torch.optim.Adam`: moments `m`, `v` of the gradient
/// `g = grad + weight_decay·p` (L2 decay, default 0), bias-corrected, and
/// `p -= lr·m̂ / (√v̂ + eps)`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::optim::Adam;
/// let mut w = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
/// let mut opt = Adam::new(0.1);
/// for _ in 0..200 {
///     let grads = (&w - 1.0).square().sum().backward()?;
///     opt.step([&mut w], &grads)?;
/// }
/// assert!((w.value().to_vec()[0] - 1.0).abs() < 1e-2);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub struct Adam<T: Float>(AdamCore<T>);

impl<T: Float> Adam<T> {
    /// Adam with learning rate `lr` (a number or a schedule closure), betas
    /// `(0.9, 0.999)`, eps `1e-8`, no weight decay.
    ///
    /// ```
    /// let opt = ferrotensor::optim::Adam::<f32>::new(1e-3);
    /// ```
    pub fn new(lr: impl Into<LearningRate>) -> Self {
        Adam(AdamCore::new(lr.into(), 0.0, false))
    }
}

adam_api!(Adam, "0");

/// AdamW (Loshchilov & Hutter), PyTorch's `torch.optim.AdamW`: Adam with decoupled
/// weight decay, `p ← p·(1 − lr·weight_decay)` before the Adam step (default decay
/// 0.01).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::optim::AdamW;
/// let mut w = Var::new(Tensor::from_vec(vec![2.0f64], [1])?);
/// let zero = (&w * 0.0).sum().backward()?;        // a zero gradient: only the decay acts
/// AdamW::new(0.1).weight_decay(0.5).step([&mut w], &zero)?;
/// assert!((w.value().to_vec()[0] - 1.9).abs() < 1e-12);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub struct AdamW<T: Float>(AdamCore<T>);

impl<T: Float> AdamW<T> {
    /// AdamW with learning rate `lr`, betas `(0.9, 0.999)`, eps `1e-8`, weight decay
    /// 0.01.
    ///
    /// ```
    /// let opt = ferrotensor::optim::AdamW::<f32>::new(1e-3);
    /// ```
    pub fn new(lr: impl Into<LearningRate>) -> Self {
        AdamW(AdamCore::new(lr.into(), 0.01, true))
    }
}

adam_api!(AdamW, "0.01");
