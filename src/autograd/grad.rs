//! [`Grad`]: a gradient flowing backwards through the graph, possibly a broadcast of a
//! smaller tensor (the gradient of `sum` or `mean` is never materialised), and the
//! shape helpers the backward rules share.

use crate::Order;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::IxDyn;
use crate::layout::reshape::reshape_layout;
use crate::layout::transform::permute_layout;
use crate::tensor::{Tensor, TensorBase, TensorView};

/// A gradient of a given shape: `data` itself, or `data` broadcast to `shape`.
///
/// Dense gradients own memory no one else reads, so rules may overwrite them in place.
pub(crate) struct Grad<T> {
    data: Tensor<T, IxDyn>,
    /// `Some(shape)`: `data` read broadcast to `shape` (stride 0 on stretched axes).
    expand: Option<Vec<usize>>,
}

impl<T: Float> Grad<T> {
    /// A dense gradient.
    pub fn dense(data: Tensor<T, IxDyn>) -> Self {
        Grad { data, expand: None }
    }

    /// `data` broadcast to `shape` (dense if the shapes are equal). The caller
    /// guarantees that `data` broadcasts to `shape`.
    pub fn expanded(data: Tensor<T, IxDyn>, shape: &[usize]) -> Self {
        if data.shape() == shape {
            Grad::dense(data)
        } else {
            Grad {
                data,
                expand: Some(shape.to_vec()),
            }
        }
    }

    pub fn shape(&self) -> &[usize] {
        self.expand.as_deref().unwrap_or(self.data.shape())
    }

    pub fn is_dense(&self) -> bool {
        self.expand.is_none()
    }

    /// The gradient as a view (broadcast when expanded; never copies).
    pub fn view(&self) -> TensorView<'_, T, IxDyn> {
        match &self.expand {
            None => self.data.view(),
            Some(shape) => self
                .data
                .view()
                .broadcast_to(shape.clone())
                .expect("an expanded gradient broadcasts to its shape"),
        }
    }

    /// The gradient as an owned tensor (materialised when expanded).
    pub fn into_tensor(self) -> Tensor<T, IxDyn> {
        match self.expand {
            None => self.data,
            Some(_) => self.view().to_contiguous(),
        }
    }

    /// `f(grad, other)` element-wise: in place in a dense gradient of the output's
    /// shape, else into new memory. `other` must broadcast to the gradient's shape.
    pub fn zip(self, other: &TensorView<'_, T, IxDyn>, f: impl Fn(T, T) -> T + Sync) -> Result<Tensor<T, IxDyn>> {
        if self.is_dense() && broadcasts_into(other.shape(), self.shape()) {
            let mut g = self.data;
            g.zip_map_inplace(other, |a, b| *a = f(*a, b))?;
            Ok(g)
        } else {
            self.view().zip_map(other, f)
        }
    }

    /// `f(grad)` element-wise, in place when dense.
    pub fn map(self, f: impl Fn(T) -> T + Sync) -> Tensor<T, IxDyn> {
        if self.is_dense() {
            let mut g = self.data;
            g.mapv_inplace(f);
            g
        } else {
            // Map the small tensor, then broadcast it again.
            let shape = self.expand.expect("not dense");
            Grad::expanded(self.data.mapv(f), &shape).into_tensor()
        }
    }

    /// `f(grad)` element-wise, staying a broadcast when it is one.
    pub fn map_grad(self, f: impl Fn(T) -> T + Sync) -> Grad<T> {
        match self.expand {
            None => Grad::dense(self.map(f)),
            Some(shape) => Grad::expanded(self.data.mapv(f), &shape),
        }
    }

    /// The same elements in row-major order under a new shape (same size).
    pub fn reshape(self, shape: &[usize]) -> Result<Grad<T>> {
        if self.shape() == shape {
            return Ok(self);
        }
        if !self.is_dense() && self.data.size() == 1 {
            // A broadcast scalar stays one.
            let v = self.data.iter().next().copied().unwrap_or_else(T::zero);
            return Ok(Grad::expanded(Tensor::full(Vec::new(), v), shape));
        }
        Ok(Grad::dense(reshape_owned(self.into_tensor(), shape)?))
    }

    /// Adds `other` (same shape) to this gradient: in place when this one or `other`
    /// is dense.
    pub fn accumulate(self, other: Grad<T>) -> Result<Grad<T>> {
        let (mut acc, add) = match (self.is_dense(), other.is_dense()) {
            (true, _) => (self.data, other),
            (false, true) => (other.data, self),
            (false, false) => {
                let sum = self.view().try_add(&other.view())?;
                return Ok(Grad::dense(sum));
            }
        };
        acc.zip_map_inplace(add.view(), |a, b| *a = *a + b)?;
        Ok(Grad::dense(acc))
    }

    /// Undoes broadcasting: sums this gradient over the axes that broadcasting added
    /// (leading) or stretched (length 1 in `shape`), giving a gradient of `shape`.
    pub fn sum_to(self, shape: &[usize]) -> Result<Grad<T>> {
        if self.shape() == shape {
            return Ok(self);
        }
        let g_shape = self.shape().to_vec();
        let lead = g_shape.len() - shape.len();
        let axes: Vec<isize> = (0..g_shape.len())
            .filter(|&i| i < lead || (shape[i - lead] == 1 && g_shape[i] != 1))
            .map(|i| i as isize)
            .collect();
        // Summing a broadcast over its stretched axes is a multiplication: keep it small.
        if !self.is_dense() && self.data.size() == 1 {
            let count: usize = g_shape.iter().product::<usize>() / shape.iter().product::<usize>().max(1);
            let v = self.data.iter().next().copied().unwrap_or_else(T::zero) * T::from_usize(count);
            return Ok(Grad::expanded(Tensor::full(vec![1; shape.len()], v), shape));
        }
        let summed = self.view().sum_axes(&axes, true)?;
        Ok(Grad::dense(reshape_owned(summed, shape)?))
    }
}

/// Reshapes an owned tensor, keeping its buffer when NumPy's rules allow a view.
pub(crate) fn reshape_owned<T: Float>(t: Tensor<T, IxDyn>, shape: &[usize]) -> Result<Tensor<T, IxDyn>> {
    if t.shape() == shape {
        return Ok(t);
    }
    match reshape_layout(t.layout(), IxDyn::from(shape), Order::RowMajor, "reshape")? {
        Some(layout) => Ok(TensorBase {
            storage: t.storage,
            layout,
        }),
        None => t.into_shape(shape.to_vec()),
    }
}

/// Permutes an owned tensor's axes without copying (a new layout over its buffer).
pub(crate) fn permute_owned<T: Float>(t: Tensor<T, IxDyn>, axes: &[isize]) -> Result<Tensor<T, IxDyn>> {
    let layout = permute_layout(t.layout(), axes)?;
    Ok(TensorBase {
        storage: t.storage,
        layout,
    })
}

/// The inverse of a permutation given as (possibly negative) axes of an `n`-axis tensor.
pub(crate) fn inverse_permutation(axes: &[isize], n: usize) -> Vec<isize> {
    let mut inv = vec![0isize; n];
    for (i, &a) in axes.iter().enumerate() {
        let a = if a < 0 { a + n as isize } else { a } as usize;
        inv[a] = i as isize;
    }
    inv
}

/// The shape `shape` with length-1 axes at `axes` (sorted, non-negative, of the full
/// rank): the keepdims shape of a reduction.
pub(crate) fn keepdims_shape(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &d)| if axes.contains(&i) { 1 } else { d })
        .collect()
}

/// `Err` naming a backward rule that returned a gradient of the wrong shape (a bug in
/// the rule, never the user's input).
pub(crate) fn wrong_grad_shape(op: &'static str, got: &[usize], want: &[usize]) -> Error {
    Error::shape(
        "backward",
        format!(
            "the rule of `{op}` gave a gradient of shape {} for an input of shape {}",
            fmt_shape(got),
            fmt_shape(want)
        ),
    )
}

/// True if `small` broadcasts to `big` without changing it (NumPy's rules).
pub(crate) fn broadcasts_into(small: &[usize], big: &[usize]) -> bool {
    small.len() <= big.len()
        && small
            .iter()
            .rev()
            .zip(big.iter().rev())
            .all(|(&s, &b)| s == b || s == 1)
}
