//! Matrix products of [`Var`]s: `matmul` with NumPy's semantics (1-D promotion, batch
//! broadcasting) and `linear`. The backward products read transposes as strided views
//! (no copies) and skip the gradient of an input that does not need one (the data
//! matrix of a first layer).

use super::grad::Grad;
use super::var::Var;
use crate::element::Float;
use crate::error::Result;
use crate::layout::IxDyn;
use crate::tensor::TensorView;

/// The last two axes swapped (a view).
fn mt<'a, T: Float>(v: &TensorView<'a, T, IxDyn>) -> Result<TensorView<'a, T, IxDyn>> {
    v.swap_axes(-1, -2)
}

/// `v` with a length-1 axis inserted at `axis` (a view).
fn promote<'a, T: Float>(v: &TensorView<'a, T, IxDyn>, axis: isize) -> Result<TensorView<'a, T, IxDyn>> {
    v.unsqueeze(axis)
}

impl<T: Float> Var<T> {
    /// Matrix product with NumPy `matmul` semantics (the fallible twin of `%` on
    /// tensors): 1-D operands are promoted (and the added axis removed), leading axes
    /// are batch axes and broadcast. `Err` (as [`crate::TensorBase::matmul`]) for 0-d
    /// operands or mismatched shapes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2])?);
    /// let b = Var::new(Tensor::from_vec(vec![1.0f64, 1.0], [2])?);
    /// let y = a.matmul(&b)?;                      // (2, 2) @ (2,) -> (2,)
    /// assert_eq!(y.value().to_vec(), vec![3.0, 7.0]);
    /// let g = y.sum().backward()?;
    /// assert_eq!(g.get(&a).unwrap().to_vec(), vec![1.0, 1.0, 1.0, 1.0]);
    /// assert_eq!(g.get(&b).unwrap().to_vec(), vec![4.0, 6.0]);
    /// assert_eq!(a.matmul(&Var::new(Tensor::<f64, _>::ones([3]))).unwrap_err().to_string(),
    ///            "matmul: shapes (2, 2) and (3,) are not aligned: 2 != 3");
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn matmul(&self, rhs: &Var<T>) -> Result<Var<T>> {
        let value = self.view().matmul(&rhs.view())?;
        Ok(Var::from_op(value, "matmul", &[self, rhs], |c| {
            let (a, b) = (&c.inputs[0], &c.inputs[1]);
            let (a1, b1) = (a.ndim() == 1, b.ndim() == 1);
            // Work with the promoted matrices: a (.., m, k), b (.., k, n), g (.., m, n).
            let am = if a1 { promote(a, 0)? } else { a.clone() };
            let bm = if b1 { promote(b, -1)? } else { b.clone() };
            let gv = c.grad.view();
            let mut gm = gv;
            if a1 {
                gm = promote(&gm, if b1 { -1 } else { -2 })?;
            }
            if b1 {
                gm = promote(&gm, -1)?;
            }
            let ga = if c.needs[0] {
                let full = gm.matmul(&mt(&bm)?)?; // (.., m, k)
                Some(Grad::dense(full).sum_to(am.shape())?.reshape(a.shape())?)
            } else {
                None
            };
            let gb = if c.needs[1] {
                let full = mt(&am)?.matmul(&gm)?; // (.., k, n)
                Some(Grad::dense(full).sum_to(bm.shape())?.reshape(b.shape())?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        }))
    }
}

/// A fully connected layer `x · weightᵀ + bias` with PyTorch's weight layout
/// `(out_features, in_features)`, as [`crate::nn::linear`] (whose fused GEMM computes
/// the forward pass). `x` is `(…, in)`; the weight gradient `gᵀ·x` comes out in the
/// weight's own layout. `Err` as [`crate::nn::linear`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// let x = Var::constant(Tensor::<f64, _>::ones([4, 3]));
/// let w = Var::new(Tensor::<f64, _>::ones([2, 3]));
/// let b = Var::new(Tensor::<f64, _>::zeros([2]));
/// let y = autograd::linear(&x, &w, Some(&b))?;
/// assert_eq!(y.shape(), &[4, 2]);
/// let g = y.sum().backward()?;
/// assert_eq!(g.get(&w).unwrap().to_vec(), vec![4.0; 6]);
/// assert_eq!(g.get(&b).unwrap().to_vec(), vec![4.0, 4.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn linear<T: Float>(x: &Var<T>, weight: &Var<T>, bias: Option<&Var<T>>) -> Result<Var<T>> {
    let b = match bias {
        Some(b) if b.ndim() != 1 => {
            return Err(crate::Error::shape(
                "linear",
                format!(
                    "bias of shape {} must be 1-D (input {}, weight {})",
                    crate::error::fmt_shape(b.shape()),
                    crate::error::fmt_shape(x.shape()),
                    crate::error::fmt_shape(weight.shape())
                ),
            ));
        }
        Some(b) => Some(b.view().to_owned().into_dim::<crate::layout::Ix1>()?),
        None => None,
    };
    let value = crate::nn::linear(&x.view(), &weight.view(), b.as_ref())?;
    let mut parents = vec![x, weight];
    parents.extend(bias);
    Ok(Var::from_op(value, "linear", &parents, |c| {
        let (x, w) = (&c.inputs[0], &c.inputs[1]);
        let (o, i) = (w.shape()[0], w.shape()[1]);
        let g = c.grad.into_tensor();
        let m = g.size() / o.max(1);
        // Rows of the batch: (m, out) and (m, in), views when contiguous.
        let g2 = super::grad::reshape_owned(g, &[m, o])?;
        let mut out = Vec::with_capacity(3);
        out.push(if c.needs[0] {
            let dx = g2.matmul(w)?;
            Some(Grad::dense(super::grad::reshape_owned(dx, x.shape())?))
        } else {
            None
        });
        out.push(if c.needs[1] {
            let x2 = x.reshape(vec![m, i])?;
            Some(Grad::dense(g2.t().matmul(&x2)?))
        } else {
            None
        });
        if c.inputs.len() == 3 {
            out.push(if c.needs[2] {
                Some(Grad::dense(g2.sum_axes(&[0], false)?))
            } else {
                None
            });
        }
        Ok(out)
    }))
}
