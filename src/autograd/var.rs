//! [`Var`]: a tensor that remembers how it was computed, and the graph node behind it.
//!
//! A `Var` is a cheap handle (`Arc`) to a node holding the forward value and, for the
//! result of an operation, the operation's inputs and its backward rule. View
//! operations (slice, permute, broadcast, …) share their input's memory: the node keeps
//! the input's buffer and its own layout, so no data is copied in the forward pass.

use super::grad::Grad;
use crate::element::Float;
use crate::error::Result;
use crate::layout::{Dimension, IxDyn, Layout};
use crate::storage::ViewRepr;
use crate::tensor::{Tensor, TensorBase, TensorView};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Source of node ids: a counter (no memory behind it). Ids key [`super::Grads`].
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// What a backward rule sees: the gradient of the loss with respect to the node's
/// output, the output itself, the inputs' values and which inputs need a gradient.
pub(crate) struct Ctx<'a, T> {
    pub grad: Grad<T>,
    pub out: TensorView<'a, T, IxDyn>,
    pub inputs: Vec<TensorView<'a, T, IxDyn>>,
    pub needs: Vec<bool>,
}

/// A backward rule: one optional gradient per input, each of that input's shape (or
/// broadcast to it, see [`Grad`]).
pub(crate) type Rule<T> = Box<dyn Fn(Ctx<'_, T>) -> Result<Vec<Option<Grad<T>>>> + Send + Sync>;

/// How a node came to be.
pub(crate) enum Origin<T: Float> {
    /// Made by [`Var::new`] (`tracked`) or [`Var::constant`], or an operation none of
    /// whose inputs needs a gradient.
    Leaf { tracked: bool },
    /// The output of an operation.
    Op {
        name: &'static str,
        parents: Vec<Var<T>>,
        rule: Rule<T>,
    },
}

pub(crate) struct Node<T: Float> {
    pub(crate) id: u64,
    /// Owner of the memory the value lives in (shared by view nodes).
    data: Arc<Tensor<T, IxDyn>>,
    /// This node's layout over `data`'s buffer.
    layout: Layout<IxDyn>,
    /// The value as an owned tensor, built on the first [`Var::value`] of a view node.
    materialised: OnceLock<Tensor<T, IxDyn>>,
    pub(crate) origin: Origin<T>,
}

impl<T: Float> Drop for Node<T> {
    /// Frees long chains iteratively: dropping the loss of a 100 000-step graph must not
    /// recurse 100 000 frames deep.
    fn drop(&mut self) {
        let Origin::Op { parents, .. } = &mut self.origin else {
            return;
        };
        let mut stack = std::mem::take(parents);
        while let Some(var) = stack.pop() {
            if let Ok(mut node) = Arc::try_unwrap(var.node)
                && let Origin::Op { parents, .. } = &mut node.origin
            {
                stack.append(parents);
            }
        }
    }
}

/// A tensor in a computation graph for reverse-mode automatic differentiation.
///
/// [`Var::new`] makes a leaf whose gradient [`Var::backward`] computes;
/// [`Var::constant`] takes part without one. Operations on `Var`s (the operators
/// `+ - * /` and unary `-` with NumPy broadcasting, and methods named as on
/// [`Tensor`]) compute their value at once and record how to differentiate it.
/// Cloning a `Var` is cheap (a reference count); the graph lives as long as a `Var`
/// that depends on it, and is freed when the last one (usually the loss) is dropped.
///
/// Values are `Tensor<T, IxDyn>` with `T` = `f32` or `f64`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3])?);
/// let y = (&x * &x).sum();                      // Σ x²
/// let grads = y.backward()?;
/// assert_eq!(grads.get(&x).unwrap().to_vec(), vec![2.0, 4.0, 6.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub struct Var<T: Float> {
    pub(crate) node: Arc<Node<T>>,
}

impl<T: Float> Clone for Var<T> {
    fn clone(&self) -> Self {
        Var {
            node: Arc::clone(&self.node),
        }
    }
}

impl<T: Float> std::fmt::Debug for Var<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.node.origin {
            Origin::Leaf { tracked: true } => "leaf",
            Origin::Leaf { tracked: false } => "constant",
            Origin::Op { name, .. } => name,
        };
        f.debug_struct("Var")
            .field("shape", &self.shape())
            .field("op", &kind)
            .field("requires_grad", &self.requires_grad())
            .finish()
    }
}

impl<T: Float> Var<T> {
    fn leaf(t: Tensor<T, IxDyn>, tracked: bool, id: u64) -> Self {
        let layout = t.layout().clone();
        Var {
            node: Arc::new(Node {
                id,
                data: Arc::new(t),
                layout,
                materialised: OnceLock::new(),
                origin: Origin::Leaf { tracked },
            }),
        }
    }

    /// A leaf that tracks gradients: after `loss.backward()`, `grads.get(&x)` holds
    /// `∂loss/∂x`. Any rank type is accepted; the value is stored as `IxDyn`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let w = Var::new(Tensor::<f32, _>::zeros([2, 3]));
    /// assert!(w.requires_grad());
    /// assert_eq!(w.shape(), &[2, 3]);
    /// ```
    pub fn new<D: Dimension>(t: Tensor<T, D>) -> Self {
        Self::leaf(t.into_dyn(), true, next_id())
    }

    /// A value that takes part in the graph but gets no gradient (inputs, targets,
    /// masks). Operations whose inputs are all constants are constants too.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::constant(Tensor::from_vec(vec![1.0f64, 2.0], [2])?);
    /// let w = Var::new(Tensor::from_vec(vec![3.0f64, 4.0], [2])?);
    /// let grads = (&x * &w).sum().backward()?;
    /// assert!(grads.get(&x).is_none());
    /// assert_eq!(grads.get(&w).unwrap().to_vec(), vec![1.0, 2.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn constant<D: Dimension>(t: Tensor<T, D>) -> Self {
        Self::leaf(t.into_dyn(), false, next_id())
    }

    /// The forward value. For the result of a view operation (slice, permute,
    /// broadcast, …) the value is copied into an owned tensor on the first call; use
    /// [`Var::view`] to read it without a copy.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f32, 4.0, 9.0], [3])?);
    /// assert_eq!(x.sqrt().value().to_vec(), vec![1.0, 2.0, 3.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn value(&self) -> &Tensor<T, IxDyn> {
        let node = &*self.node;
        if node.layout == *node.data.layout() {
            &node.data
        } else {
            node.materialised.get_or_init(|| self.view().to_owned())
        }
    }

    /// The forward value as a view (never copies).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2])?);
    /// let t = x.t();
    /// assert_eq!(t.view().to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
    /// assert_eq!(t.view().as_ptr(), x.view().as_ptr());   // shares x's memory
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn view(&self) -> TensorView<'_, T, IxDyn> {
        TensorBase {
            storage: ViewRepr(self.node.data.buffer()),
            layout: self.node.layout.clone(),
        }
    }

    /// The shape of the value.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Var::new(Tensor::<f64, _>::zeros([4, 5])).shape(), &[4, 5]);
    /// ```
    pub fn shape(&self) -> &[usize] {
        self.node.layout.shape()
    }

    /// The number of axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Var::new(Tensor::<f64, _>::zeros([4, 5])).ndim(), 2);
    /// ```
    pub fn ndim(&self) -> usize {
        self.node.layout.ndim()
    }

    /// The number of elements.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Var::new(Tensor::<f64, _>::zeros([4, 5])).size(), 20);
    /// ```
    pub fn size(&self) -> usize {
        self.node.layout.size()
    }

    /// True if a gradient flows into this value: it is a [`Var::new`] leaf or depends
    /// on one.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let c = Var::constant(Tensor::<f64, _>::ones([2]));
    /// assert!(!c.exp().requires_grad());
    /// assert!(Var::new(Tensor::<f64, _>::ones([2])).exp().requires_grad());
    /// ```
    pub fn requires_grad(&self) -> bool {
        match self.node.origin {
            Origin::Leaf { tracked } => tracked,
            Origin::Op { .. } => true,
        }
    }

    /// True for values made by [`Var::new`] or [`Var::constant`] (not by an operation
    /// on tracked values).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([2]));
    /// assert!(x.is_leaf());
    /// assert!(!x.exp().is_leaf());
    /// ```
    pub fn is_leaf(&self) -> bool {
        matches!(self.node.origin, Origin::Leaf { .. })
    }

    /// A constant with the same value, cut off from the graph (no copy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![2.0f64], [1])?);
    /// let y = &x * &x.detach();           // the detached factor counts as a constant
    /// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec(), vec![2.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn detach(&self) -> Var<T> {
        Var {
            node: Arc::new(Node {
                id: next_id(),
                data: Arc::clone(&self.node.data),
                layout: self.node.layout.clone(),
                materialised: OnceLock::new(),
                origin: Origin::Leaf { tracked: false },
            }),
        }
    }

    /// The name of the operation that made this value (`"leaf"` or `"constant"` for
    /// leaves), for debugging graphs.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([2]));
    /// assert_eq!((&x + 1.0).op_name(), "add");
    /// assert_eq!(x.op_name(), "leaf");
    /// ```
    pub fn op_name(&self) -> &'static str {
        match &self.node.origin {
            Origin::Leaf { tracked: true } => "leaf",
            Origin::Leaf { tracked: false } => "constant",
            Origin::Op { name, .. } => name,
        }
    }

    /// Records an operation whose forward value is `value` (new memory).
    pub(crate) fn from_op<F>(value: Tensor<T, IxDyn>, name: &'static str, parents: &[&Var<T>], rule: F) -> Var<T>
    where
        F: Fn(Ctx<'_, T>) -> Result<Vec<Option<Grad<T>>>> + Send + Sync + 'static,
    {
        let layout = value.layout().clone();
        Self::record(Arc::new(value), layout, name, parents, rule)
    }

    /// Records a view operation: the result reads `parent`'s memory through `layout`.
    pub(crate) fn view_op<F>(parent: &Var<T>, layout: Layout<IxDyn>, name: &'static str, rule: F) -> Var<T>
    where
        F: Fn(Ctx<'_, T>) -> Result<Vec<Option<Grad<T>>>> + Send + Sync + 'static,
    {
        Self::record(Arc::clone(&parent.node.data), layout, name, &[parent], rule)
    }

    fn record<F>(
        data: Arc<Tensor<T, IxDyn>>,
        layout: Layout<IxDyn>,
        name: &'static str,
        parents: &[&Var<T>],
        rule: F,
    ) -> Var<T>
    where
        F: Fn(Ctx<'_, T>) -> Result<Vec<Option<Grad<T>>>> + Send + Sync + 'static,
    {
        let origin = if parents.iter().any(|p| p.requires_grad()) {
            Origin::Op {
                name,
                parents: parents.iter().map(|p| (*p).clone()).collect(),
                rule: Box::new(rule),
            }
        } else {
            Origin::Leaf { tracked: false }
        };
        Var {
            node: Arc::new(Node {
                id: next_id(),
                data,
                layout,
                materialised: OnceLock::new(),
                origin,
            }),
        }
    }

    /// The parents of an operation's node (none for a leaf).
    pub(crate) fn parents(&self) -> &[Var<T>] {
        match &self.node.origin {
            Origin::Op { parents, .. } => parents,
            Origin::Leaf { .. } => &[],
        }
    }

    /// Updates a leaf's value in place with `f` (optimisers). The memory is written
    /// directly when no graph still holds this leaf; otherwise the leaf gets a fresh
    /// copy (the old graph keeps the old value) with the same identity, so gradients
    /// and optimiser state keyed by it still find it.
    pub(crate) fn update_leaf(
        &mut self,
        op: &'static str,
        f: impl FnOnce(&mut Tensor<T, IxDyn>) -> Result<()>,
    ) -> Result<()> {
        let tracked = match self.node.origin {
            Origin::Leaf { tracked } => tracked,
            Origin::Op { name, .. } => {
                return Err(crate::Error::value(
                    op,
                    format!(
                        "only leaves (Var::new) can be updated in place; this value of shape {} is the output of `{name}`",
                        crate::error::fmt_shape(self.shape())
                    ),
                ));
            }
        };
        if let Some(node) = Arc::get_mut(&mut self.node)
            && node.layout == *node.data.layout()
            && let Some(t) = Arc::get_mut(&mut node.data)
        {
            f(t)?;
            node.layout = t.layout().clone();
            node.materialised = OnceLock::new();
            return Ok(());
        }
        let mut t = self.view().to_contiguous();
        f(&mut t)?;
        *self = Self::leaf(t, tracked, self.node.id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Var;
    use crate::prelude::*;

    #[test]
    fn vars_and_grads_cross_threads() {
        fn send_sync<X: Send + Sync>() {}
        send_sync::<Var<f32>>();
        send_sync::<crate::autograd::Grads<f64>>();
        let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2]).unwrap());
        let y = std::thread::spawn({
            let x = x.clone();
            move || (&x * &x).sum()
        })
        .join()
        .unwrap();
        assert_eq!(y.backward().unwrap().get(&x).unwrap().to_vec(), vec![2.0, 4.0]);
    }

    #[test]
    fn value_of_a_view_is_materialised_once() {
        let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2]).unwrap());
        assert_eq!(x.value().as_ptr(), x.view().as_ptr()); // a leaf's value is its memory
        let t = x.t();
        let first = t.value().as_ptr();
        assert_eq!(t.value().to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
        assert!(t.value().is_contiguous());
        assert_eq!(t.value().as_ptr(), first); // the same copy on the second call
        assert_ne!(first, x.view().as_ptr());
        assert_eq!(
            format!("{t:?}"),
            "Var { shape: [2, 2], op: \"t\", requires_grad: true }"
        );
    }
}
