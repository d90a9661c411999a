//! [`Grads`]: the gradients that one [`Var::backward`] call computed, keyed by leaf.

use super::var::Var;
use crate::element::Float;
use crate::layout::IxDyn;
use crate::tensor::Tensor;
use std::collections::HashMap;

/// The gradients of a loss with respect to the leaves ([`Var::new`]) it depends on,
/// as computed by [`Var::backward`]. Each gradient has its leaf's shape and is a
/// row-major tensor.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2])?);
/// let unused = Var::new(Tensor::<f64, _>::zeros([3]));
/// let grads = x.square().sum().backward()?;
/// assert_eq!(grads.len(), 1);
/// assert_eq!(grads.get(&x).unwrap().to_vec(), vec![2.0, 4.0]);
/// assert!(grads.get(&unused).is_none());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub struct Grads<T: Float> {
    map: HashMap<u64, Tensor<T, IxDyn>>,
}

impl<T: Float> Default for Grads<T> {
    fn default() -> Self {
        Grads { map: HashMap::new() }
    }
}

impl<T: Float> std::fmt::Debug for Grads<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grads").field("len", &self.map.len()).finish()
    }
}

impl<T: Float> Grads<T> {
    pub(crate) fn insert(&mut self, id: u64, g: Tensor<T, IxDyn>) {
        self.map.insert(id, g);
    }

    /// The gradient of the loss with respect to `x` (a copy, of `x`'s shape), or `None`
    /// if `x` is not a tracked leaf the loss depends on.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![3.0f64], [1])?);
    /// let g = (&x * 2.0).sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![2.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn get(&self, x: &Var<T>) -> Option<Tensor<T, IxDyn>> {
        self.get_ref(x).cloned()
    }

    /// The gradient with respect to `x` by reference (no copy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![3.0f64], [1])?);
    /// let g = (&x * 2.0).sum().backward()?;
    /// assert_eq!(g.get_ref(&x).unwrap().shape(), &[1]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn get_ref(&self, x: &Var<T>) -> Option<&Tensor<T, IxDyn>> {
        self.map.get(&x.node.id)
    }

    /// Removes and returns the gradient with respect to `x` (no copy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![3.0f64], [1])?);
    /// let mut g = (&x * 2.0).sum().backward()?;
    /// assert!(g.remove(&x).is_some());
    /// assert!(g.is_empty());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn remove(&mut self, x: &Var<T>) -> Option<Tensor<T, IxDyn>> {
        self.map.remove(&x.node.id)
    }

    /// The number of leaves with a gradient.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::<f64, _>::ones([2]));
    /// assert_eq!(x.sum().backward()?.len(), 1);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True if no leaf got a gradient (the loss depends on no tracked leaf).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let c = Var::constant(Tensor::<f64, _>::ones([2]));
    /// assert!(c.sum().backward()?.is_empty());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}
