//! [`LearningRate`]: a constant or a schedule closure of the step number.

use std::fmt;

/// The learning rate of an optimiser: a constant, or a schedule — any closure
/// `Fn(step) -> f64` of the number of steps taken before this one (0 at the first).
///
/// ```
/// use ferrotensor::optim::LearningRate;
/// let constant: LearningRate = 0.1.into();
/// assert_eq!(constant.at(1000), 0.1);
/// let decay: LearningRate = (|step: usize| 0.1 * 0.5f64.powi((step / 10) as i32)).into();
/// assert_eq!(decay.at(0), 0.1);
/// assert_eq!(decay.at(25), 0.025);
/// let warmup = LearningRate::from(|step: usize| 1e-3 * ((step + 1) as f64 / 100.0).min(1.0));
/// assert_eq!(warmup.at(49), 5e-4);
/// ```
pub enum LearningRate {
    /// The same rate at every step.
    Constant(f64),
    /// `f(step)`.
    Schedule(Box<dyn Fn(usize) -> f64 + Send + Sync>),
}

impl LearningRate {
    /// The rate for step `step` (counted from 0).
    ///
    /// ```
    /// assert_eq!(ferrotensor::optim::LearningRate::Constant(0.5).at(3), 0.5);
    /// ```
    pub fn at(&self, step: usize) -> f64 {
        match self {
            LearningRate::Constant(v) => *v,
            LearningRate::Schedule(f) => f(step),
        }
    }
}

impl fmt::Debug for LearningRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LearningRate::Constant(v) => write!(f, "LearningRate::Constant({v})"),
            LearningRate::Schedule(_) => write!(f, "LearningRate::Schedule(..)"),
        }
    }
}

impl From<f64> for LearningRate {
    fn from(v: f64) -> Self {
        LearningRate::Constant(v)
    }
}

impl From<f32> for LearningRate {
    fn from(v: f32) -> Self {
        LearningRate::Constant(v as f64)
    }
}

impl<F: Fn(usize) -> f64 + Send + Sync + 'static> From<F> for LearningRate {
    fn from(f: F) -> Self {
        LearningRate::Schedule(Box::new(f))
    }
}
