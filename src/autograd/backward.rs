//! The reverse pass: one topological order of the graph, gradients pushed from the
//! loss to the leaves, each node's gradient accumulated (in place) from all its uses
//! and freed as soon as its rule has run.

use super::grad::{Grad, wrong_grad_shape};
use super::grads::Grads;
use super::var::{Ctx, Node, Origin, Var};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::tensor::Tensor;
use std::collections::HashMap;

impl<T: Float> Var<T> {
    /// Computes the gradient of this value (the loss, a 0-d tensor) with respect to
    /// every tracked leaf it depends on. `Err` if the loss is not 0-d (naming its
    /// shape), or if an operation's backward rule fails.
    ///
    /// The graph is kept, so `backward` may be called again; it is freed when the last
    /// `Var` that depends on it is dropped. Gradients are plain tensors, not `Var`s:
    /// this is first-order differentiation only (no gradients of gradients).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3])?);
    /// let loss = (&x * &x).mean();                 // (1 + 4 + 9) / 3
    /// let grads = loss.backward()?;
    /// assert_eq!(grads.get(&x).unwrap().to_vec(), vec![2.0 / 3.0, 4.0 / 3.0, 2.0]);
    /// assert!(x.exp().backward().is_err());        // not a scalar
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn backward(&self) -> Result<Grads<T>> {
        if self.ndim() != 0 {
            return Err(Error::shape(
                "backward",
                format!(
                    "the loss must be a 0-d tensor (a scalar), got shape {}; reduce it first (e.g. .sum() or .mean())",
                    fmt_shape(self.shape())
                ),
            ));
        }
        let mut grads = Grads::default();
        if !self.requires_grad() {
            return Ok(grads);
        }
        let order = topological_order(self);
        let index: HashMap<*const Node<T>, usize> = order
            .iter()
            .enumerate()
            .map(|(i, v)| (std::sync::Arc::as_ptr(&v.node), i))
            .collect();
        let mut pending: Vec<Option<Grad<T>>> = (0..order.len()).map(|_| None).collect();
        let last = order.len() - 1;
        pending[last] = Some(Grad::dense(Tensor::ones(Vec::new())));
        for i in (0..order.len()).rev() {
            let Some(g) = pending[i].take() else {
                continue;
            };
            let var = order[i];
            match &var.node.origin {
                Origin::Leaf { tracked } => {
                    if *tracked {
                        let t = g.into_tensor();
                        let t = if t.is_contiguous() { t } else { t.to_contiguous() };
                        grads.insert(var.node.id, t);
                    }
                }
                Origin::Op { name, parents, rule } => {
                    let needs: Vec<bool> = parents.iter().map(|p| p.requires_grad()).collect();
                    let ctx = Ctx {
                        grad: g,
                        out: var.view(),
                        inputs: parents.iter().map(|p| p.view()).collect(),
                        needs,
                    };
                    let outs = rule(ctx)?;
                    for (p, og) in parents.iter().zip(outs) {
                        let Some(og) = og else { continue };
                        if !p.requires_grad() {
                            continue;
                        }
                        if og.shape() != p.shape() {
                            return Err(wrong_grad_shape(name, og.shape(), p.shape()));
                        }
                        let slot = &mut pending[index[&std::sync::Arc::as_ptr(&p.node)]];
                        *slot = Some(match slot.take() {
                            None => og,
                            Some(acc) => acc.accumulate(og)?,
                        });
                    }
                }
            }
        }
        Ok(grads)
    }
}

/// The nodes that need a gradient, each after all of its inputs (post-order of a
/// depth-first walk from `root`, iterative so deep graphs cannot overflow the stack).
fn topological_order<T: Float>(root: &Var<T>) -> Vec<&Var<T>> {
    let mut order = Vec::new();
    let mut seen = std::collections::HashSet::new();
    seen.insert(std::sync::Arc::as_ptr(&root.node));
    let mut stack: Vec<(&Var<T>, usize)> = vec![(root, 0)];
    while let Some(&(var, next)) = stack.last() {
        let parents = var.parents();
        if next < parents.len() {
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            let p = &parents[next];
            if p.requires_grad() && seen.insert(std::sync::Arc::as_ptr(&p.node)) {
                stack.push((p, 0));
            }
        } else {
            order.push(var);
            stack.pop();
        }
    }
    order
}
