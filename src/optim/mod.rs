//! Optimisers that update [`Var`] parameters in place from the
//! [`Grads`] of one `backward` call: [`Sgd`] (momentum,
//! Nesterov, weight decay), [`Adam`] and [`AdamW`], with PyTorch's update rules. A
//! learning rate is a number or a schedule, any closure `Fn(step) -> f64`
//! ([`LearningRate`]).
//!
//! ```
//! use ferrotensor::prelude::*;
//! use ferrotensor::optim::Sgd;
//! // Minimise (w − 3)² by gradient descent.
//! let mut w = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
//! let mut opt = Sgd::new(0.1);
//! for _ in 0..100 {
//!     let loss = (&w - 3.0).square().sum();
//!     let grads = loss.backward()?;
//!     drop(loss);                        // frees the graph: w is updated without a copy
//!     opt.step([&mut w], &grads)?;
//! }
//! assert!((w.value().to_vec()[0] - 3.0).abs() < 1e-6);
//! # Ok::<(), ferrotensor::Error>(())
//! ```
//!
//! A parameter is updated in place when no graph still holds it (drop the loss before
//! `step`, as above); otherwise it receives a fresh copy with the same identity, so the
//! old graph keeps the old value and nothing is lost but the copy. Parameters with no
//! gradient in `grads` are skipped, as PyTorch skips those whose `.grad` is `None`.
//! Optimiser state (momentum, moments) is kept per parameter identity.

mod adam;
mod schedule;
mod sgd;

pub use adam::{Adam, AdamW};
pub use schedule::LearningRate;
pub use sgd::Sgd;

use crate::autograd::{Grads, Var};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use rayon::prelude::*;

/// Elements per task when an update runs on several threads.
const CHUNK: usize = 1 << 14;

/// Calls `update(param, grad)` on each parameter that has a gradient, with the
/// parameter's memory as one row-major slice (made contiguous first if needed).
pub(crate) fn for_each_param<'a, T: Float>(
    op: &'static str,
    params: impl IntoIterator<Item = &'a mut Var<T>>,
    grads: &Grads<T>,
    mut update: impl FnMut(u64, &mut [T], &[T]) -> Result<()>,
) -> Result<()> {
    for p in params {
        let Some(g) = grads.get_ref(p) else { continue };
        if g.shape() != p.shape() {
            return Err(Error::shape(
                op,
                format!(
                    "gradient of shape {} for a parameter of shape {}",
                    fmt_shape(g.shape()),
                    fmt_shape(p.shape())
                ),
            ));
        }
        let gc = g.as_standard_layout();
        let gs = gc.as_slice().expect("row-major");
        let id = p.node.id;
        p.update_leaf(op, |t| {
            if !t.is_contiguous() {
                *t = t.to_contiguous();
            }
            let ps = t.as_slice_mut().expect("row-major");
            update(id, ps, gs)
        })?;
    }
    Ok(())
}

fn parallel(len: usize) -> bool {
    len >= 4 * CHUNK && crate::threads::num_threads() > 1
}

/// `f(param, grad)` over matching chunks (several threads for large parameters).
pub(crate) fn update1<T: Float>(p: &mut [T], g: &[T], f: impl Fn(&mut [T], &[T]) + Sync) {
    if parallel(p.len()) {
        p.par_chunks_mut(CHUNK)
            .zip(g.par_chunks(CHUNK))
            .for_each(|(p, g)| f(p, g));
    } else {
        f(p, g);
    }
}

/// `f(param, state, grad)` over matching chunks.
pub(crate) fn update2<T: Float>(p: &mut [T], s: &mut [T], g: &[T], f: impl Fn(&mut [T], &mut [T], &[T]) + Sync) {
    if parallel(p.len()) {
        p.par_chunks_mut(CHUNK)
            .zip(s.par_chunks_mut(CHUNK))
            .zip(g.par_chunks(CHUNK))
            .for_each(|((p, s), g)| f(p, s, g));
    } else {
        f(p, s, g);
    }
}

/// `f(param, state1, state2, grad)` over matching chunks.
pub(crate) fn update3<T: Float>(
    p: &mut [T],
    s1: &mut [T],
    s2: &mut [T],
    g: &[T],
    f: impl Fn(&mut [T], &mut [T], &mut [T], &[T]) + Sync,
) {
    if parallel(p.len()) {
        p.par_chunks_mut(CHUNK)
            .zip(s1.par_chunks_mut(CHUNK))
            .zip(s2.par_chunks_mut(CHUNK))
            .zip(g.par_chunks(CHUNK))
            .for_each(|(((p, a), b), g)| f(p, a, b, g));
    } else {
        f(p, s1, s2, g);
    }
}
