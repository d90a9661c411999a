//! `linear`: `x @ weightᵀ + bias` as one strided GEMM per block of rows, the epilogue
//! (residual, activation) applied to each block while it is in cache; the functional
//! form and the prepared [`Linear`] layer.

use super::epilogue::{ActFloat, Activation, Epilogue};
use super::norm_layer::BatchNorm2d;
use super::param::{Param, opt_param_vec};
use super::util::{cast_slice, cast_vec, contiguous, from_f32, owned, owned_dim, to_f32};
use crate::element::{Float, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix1, Ix2};
use crate::linalg::gemm_kernels::{MatMut, MatRef, gemm_into};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// A fully connected layer (PyTorch's `linear`): `x` `(…, I)`, `weight` `(O, I)`,
/// optional `bias` of length `O` (any 1-D tensor or view, see [`Param`]); the result is
/// `(…, O)`, of the input's rank type. The weight is read through its strides (a
/// transposed or sliced view is not copied). `Err` if `x` is 0-d, the weight is not
/// 2-D, `I` differs, or the bias is not 1-D of length `O`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f32, 2.0], [1, 2])?;
/// let w = Tensor::from_vec(vec![1.0, 0.0, 1.0, 1.0, 0.0, -1.0], [3, 2])?;
/// let b = Tensor::from_vec(vec![0.5, 0.0, 0.0], [3])?;
/// let y: Tensor<f32, Ix2> = ferrotensor::nn::linear(&x, &w, Some(&b))?;
/// assert_eq!(y.to_vec(), vec![1.5, 3.0, -2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn linear<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    x: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&dyn Param<T>>,
) -> Result<Tensor<T, D1>> {
    const OP: &str = "linear";
    let (o, _) = check_weight(OP, weight.shape())?;
    check_features(OP, x.shape(), weight.shape())?;
    let b = opt_param_vec(OP, "bias", bias, o, &shapes(x.shape(), weight.shape()))?;
    Ok(run(x, weight, None, b.as_deref(), None, Activation::Identity))
}

fn shapes(x: &[usize], w: &[usize]) -> String {
    format!("input {}, weight {}", fmt_shape(x), fmt_shape(w))
}

/// `(O, I)` of a 2-D weight.
fn check_weight(op: &'static str, w: &[usize]) -> Result<(usize, usize)> {
    match *w {
        [o, i] => Ok((o, i)),
        _ => Err(Error::shape(
            op,
            format!("expected a weight (O, I), got shape {}", fmt_shape(w)),
        )),
    }
}

/// `Err` unless `x` is `(…, I)` for the weight's `I`.
fn check_features(op: &'static str, x: &[usize], w: &[usize]) -> Result<()> {
    if x.is_empty() || x[x.len() - 1] != w[1] {
        return Err(Error::shape(
            op,
            format!(
                "expected an input (..., I) with the weight's I = {} ({})",
                w[1],
                shapes(x, w)
            ),
        ));
    }
    Ok(())
}

/// `act(x @ weightᵀ + bias + residual)` (shapes checked by the caller).
fn run<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    x: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    packed: Option<&[T]>,
    bias: Option<&[T]>,
    residual: Option<&[T]>,
    act: Activation,
) -> Tensor<T, D1> {
    let (o, i) = (weight.shape()[0], weight.shape()[1]);
    let mut out_shape = x.shape().to_vec();
    *out_shape.last_mut().expect("x is not 0-d") = o;
    let m: usize = x.shape()[..x.ndim() - 1].iter().product();
    let xs = contiguous(x);
    let ws = weight.strides();
    // The weight view's layout was checked to lie in its buffer when it was built, so
    // every (r, c) with r < o, c < i at `as_ptr + r·strides[0] + c·strides[1]` is
    // readable; read as its transpose (i × o).
    let wt = MatRef {
        ptr: weight.as_ptr(),
        rs: ws[1],
        cs: ws[0],
    };
    // A row-major weight is what the few-rows kernel reads in place.
    let wrows = weight.as_slice();
    let out: Vec<T> = if let Some(x32) = cast_slice::<T, f32>(&xs) {
        let c = |s: &[T]| cast_slice::<T, f32>(s).expect("T is f32").to_vec();
        let (b, r) = (bias.map(c), residual.map(c));
        let epi = Epilogue {
            residual: r.as_deref(),
            act,
        };
        let w32 = wrows.map(|w| cast_slice::<T, f32>(w).expect("T is f32"));
        let out = match packed.map(|p| cast_slice::<T, f32>(p).expect("T is f32")) {
            // A weight packed by the prepared layer: its few-rows kernel.
            Some(p) if m > 0 && o > 0 && m <= super::linear_small::SMALL_ROWS => {
                let mut out = vec![0.0f32; m * o];
                super::linear_packed::product(x32, p, b.as_deref(), m, o, i, &mut out);
                epi.apply(&mut out, 0);
                out
            }
            // SAFETY: as said above; T is f32.
            _ => unsafe { product(x32, wt.cast(), w32, b.as_deref(), m, o, i, &epi) },
        };
        cast_vec(out).unwrap_or_else(|_| unreachable!("T is f32"))
    } else if let Some(x64) = cast_slice::<T, f64>(&xs) {
        let c = |s: &[T]| cast_slice::<T, f64>(s).expect("T is f64").to_vec();
        let (b, r) = (bias.map(c), residual.map(c));
        let epi = Epilogue {
            residual: r.as_deref(),
            act,
        };
        let w64 = wrows.map(|w| cast_slice::<T, f64>(w).expect("T is f64"));
        // SAFETY: as said above; T is f64.
        let out = unsafe { product(x64, wt.cast(), w64, b.as_deref(), m, o, i, &epi) };
        cast_vec(out).unwrap_or_else(|_| unreachable!("T is f64"))
    } else {
        // f16/bf16 through f32: one rounding of the finished output.
        let w32 = to_f32(&contiguous(weight));
        let wt = MatRef::row_major(&w32, 0, o, i).t();
        let (b, r) = (bias.map(to_f32), residual.map(to_f32));
        let epi = Epilogue {
            residual: r.as_deref(),
            act,
        };
        // SAFETY: `wt` is the transpose of the row-major o × i copy `w32`.
        from_f32(&unsafe { product(&to_f32(&xs), wt, Some(&w32), b.as_deref(), m, o, i, &epi) })
    };
    owned_dim(out, &out_shape)
}

/// Rows of output per GEMM call, so that the epilogue finds each block in L2.
const BLOCK_BYTES: usize = 1 << 19;

/// `act(bias + xs @ wt + residual)` for the row-major `m × i` input `xs` and the `i × o`
/// weight `wt`, as a row-major `m × o` vector: for at most
/// [`SMALL_ROWS`](super::linear_small::SMALL_ROWS) rows and a row-major weight `wrows`
/// (`o × i`, the same matrix as `wt`) the dot-product kernel of
/// [`super::linear_small`], which reads the weight in place; otherwise per block of rows
/// one GEMM accumulating onto the bias rows. Then the epilogue on each block.
///
/// # Safety
/// `wt` is readable at every `(c, r)`, `c < i`, `r < o`.
#[allow(clippy::too_many_arguments)]
unsafe fn product<F: ActFloat + Num>(
    xs: &[F],
    wt: MatRef<F>,
    wrows: Option<&[F]>,
    bias: Option<&[F]>,
    m: usize,
    o: usize,
    i: usize,
    epi: &Epilogue<F>,
) -> Vec<F> {
    let mut out = vec![F::zero(); m * o];
    if m == 0 || o == 0 {
        return out;
    }
    if let Some(w) = wrows.filter(|_| m <= super::linear_small::SMALL_ROWS)
        && super::linear_small::product(xs, w, bias, m, o, i, &mut out)
    {
        epi.apply(&mut out, 0);
        return out;
    }
    if let Some(b) = bias {
        for row in out.chunks_exact_mut(o) {
            row.copy_from_slice(&b[..o]);
        }
    }
    let rows = if epi.is_identity() {
        m
    } else {
        (BLOCK_BYTES / (o * size_of::<F>())).clamp(1, m)
    };
    for (bi, block) in out.chunks_mut(rows * o).enumerate() {
        let r0 = bi * rows;
        let mb = block.len() / o;
        if i > 0 {
            let c = MatMut {
                ptr: block.as_mut_ptr(),
                rs: o as isize,
                cs: 1,
            };
            // SAFETY: `block` is an initialised mb × o row-major part of `out`; the
            // rows r0.. of `xs` are mb × i row-major (checked by `row_major`); `wt` is
            // the caller's contract.
            unsafe {
                gemm_into(
                    bias.is_some(),
                    mb,
                    o,
                    i,
                    MatRef::row_major(xs, r0 * i, mb, i),
                    wt,
                    c,
                    crate::threads::num_threads(),
                )
            };
        }
        epi.apply(block, r0 * o);
    }
    out
}

/// A prepared fully connected layer (PyTorch's `nn.Linear` in inference): the weights
/// copied and checked once; the bias (which may hold a folded batch norm), a residual
/// ([`Linear::forward_add`]) and an activation applied to each block of output rows in
/// the pass that computes it. An `f32` layer also keeps its weight packed for the
/// kernel of inputs with at most 8 rows (a second copy of the weight).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{Activation, Linear};
/// let w = Tensor::from_vec(vec![1.0f32, -1.0, 2.0, 0.0], [2, 2])?;
/// let fc = Linear::new(&w, None)?.with_activation(Activation::Relu);
/// let x = Tensor::from_vec(vec![1.0f32, 3.0], [1, 2])?;
/// assert_eq!(fc.forward(&x)?.to_vec(), vec![0.0, 2.0]);
/// // Any view: the transposed weight of a (2, 2) tensor, and a 1-D input.
/// let fct = Linear::new(&w.t(), None)?;
/// assert_eq!(fct.forward(&Tensor::from_vec(vec![1.0f32, 0.0], [2])?)?.to_vec(), vec![1.0, -1.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[derive(Clone)]
pub struct Linear<T: Float> {
    weight: Tensor<T, Ix2>,
    /// The f32 weight packed for the few-rows kernel of [`super::linear_packed`]
    /// (`None` for other types).
    packed: Option<Vec<T>>,
    bias: Option<Tensor<T, Ix1>>,
    activation: Activation,
}

impl<T: Float> Linear<T> {
    /// A layer from `weight` `(O, I)` (any view; copied) and an optional bias of length
    /// `O`. `Err` for a weight that is not 2-D or a bias that is not 1-D of length `O`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let w = Tensor::<f64, _>::zeros([3, 4]);
    /// let fc = ferrotensor::nn::Linear::new(&w, None)?;
    /// assert_eq!((fc.out_features(), fc.in_features()), (3, 4));
    /// assert!(ferrotensor::nn::Linear::new(&w, Some(&Tensor::<f64, _>::zeros([4]))).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn new<S: Storage<Elem = T>, D: Dimension>(
        weight: &TensorBase<S, D>,
        bias: Option<&dyn Param<T>>,
    ) -> Result<Self> {
        const OP: &str = "Linear::new";
        let (o, i) = check_weight(OP, weight.shape())?;
        let b = opt_param_vec(OP, "bias", bias, o, &format!("weight {}", fmt_shape(weight.shape())))?;
        let w = contiguous(weight).into_owned();
        Ok(Linear {
            packed: packed_f32(&w, o, i),
            weight: owned(w, [o, i]),
            bias: b.map(|b| owned(b, [o])),
            activation: Activation::Identity,
        })
    }

    /// The layer with `activation` applied to its output.
    pub fn with_activation(mut self, activation: Activation) -> Self {
        self.activation = activation;
        self
    }

    /// This layer followed by the inference-mode batch norm `bn` over its `O` output
    /// features, as one layer (as [`super::Conv2d::fold_batch_norm`]). `Err` if `bn`'s
    /// channels differ from `O` or the layer already has an activation.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::nn::{BatchNorm2d, Linear};
    /// let fc = Linear::new(&Tensor::from_vec(vec![2.0f64, 4.0], [2, 1])?, None)?;
    /// let bn = BatchNorm2d::new(&Tensor::from_vec(vec![0.0, 1.0], [2])?, &Tensor::<f64, _>::ones([2]), None, None, 0.0)?;
    /// let x = Tensor::from_vec(vec![1.0f64], [1, 1])?;
    /// assert_eq!(fc.fold_batch_norm(&bn)?.forward(&x)?.to_vec(), vec![2.0, 3.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn fold_batch_norm(&self, bn: &BatchNorm2d<T>) -> Result<Self> {
        const OP: &str = "Linear::fold_batch_norm";
        let (o, i) = (self.out_features(), self.in_features());
        if bn.num_features() != o {
            return Err(Error::shape(
                OP,
                format!(
                    "batch norm over {} features after a linear layer with {o} outputs (weight {})",
                    bn.num_features(),
                    fmt_shape(self.weight.shape())
                ),
            ));
        }
        let ws = self.weight.as_slice().expect("row-major weight");
        let (w, b) = bn.fold_after(OP, ws, self.bias.as_ref(), self.activation)?;
        Ok(Linear {
            packed: packed_f32(&w, o, i),
            weight: owned(w, [o, i]),
            bias: Some(owned(b, [o])),
            activation: self.activation,
        })
    }

    /// `activation(x @ weightᵀ + bias)` for `x` `(…, I)` (any layout and ownership), a
    /// row-major `(…, O)` tensor of the input's rank type. `Err` if `x` is 0-d or its
    /// last axis is not `I`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let fc = ferrotensor::nn::Linear::new(&Tensor::<f32, _>::ones([2, 3]), None)?;
    /// assert_eq!(fc.forward(&Tensor::<f32, _>::ones([4, 5, 3]))?.shape(), &[4, 5, 2]);
    /// assert!(fc.forward(&Tensor::<f32, _>::ones([4, 2])).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn forward<S: Storage<Elem = T>, D: Dimension>(&self, x: &TensorBase<S, D>) -> Result<Tensor<T, D>> {
        check_features("Linear::forward", x.shape(), self.weight.shape())?;
        Ok(run(
            x,
            &self.weight,
            self.packed.as_deref(),
            self.bias_slice(),
            None,
            self.activation,
        ))
    }

    /// `activation(x @ weightᵀ + bias + residual)` with the residual (the output's
    /// shape, any layout) added as each block is finished. `Err` as
    /// [`Linear::forward`], or if the residual's shape is not the output's.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let fc = ferrotensor::nn::Linear::new(&Tensor::<f32, _>::ones([2, 1]), None)?;
    /// let x = Tensor::from_vec(vec![1.0f32], [1, 1])?;
    /// let r = Tensor::from_vec(vec![10.0f32, 20.0], [1, 2])?;
    /// assert_eq!(fc.forward_add(&x, &r)?.to_vec(), vec![11.0, 21.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn forward_add<S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        x: &TensorBase<S, D>,
        residual: &TensorBase<S2, D2>,
    ) -> Result<Tensor<T, D>> {
        const OP: &str = "Linear::forward_add";
        check_features(OP, x.shape(), self.weight.shape())?;
        let mut want = x.shape().to_vec();
        *want.last_mut().expect("checked: not 0-d") = self.out_features();
        if residual.shape() != want.as_slice() {
            return Err(Error::shape(
                OP,
                format!(
                    "residual of shape {} differs from the output shape {} ({})",
                    fmt_shape(residual.shape()),
                    fmt_shape(&want),
                    shapes(x.shape(), self.weight.shape())
                ),
            ));
        }
        let r = contiguous(residual);
        Ok(run(
            x,
            &self.weight,
            self.packed.as_deref(),
            self.bias_slice(),
            Some(&r),
            self.activation,
        ))
    }

    fn bias_slice(&self) -> Option<&[T]> {
        self.bias.as_ref().map(|b| b.as_slice().expect("row-major bias"))
    }

    /// The weights `(O, I)` (after any folded batch norm).
    pub fn weight(&self) -> &Tensor<T, Ix2> {
        &self.weight
    }

    /// The bias (after any folded batch norm).
    pub fn bias(&self) -> Option<&Tensor<T, Ix1>> {
        self.bias.as_ref()
    }

    /// The activation applied to the output.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Input features `I`.
    pub fn in_features(&self) -> usize {
        self.weight.shape()[1]
    }

    /// Output features `O`.
    pub fn out_features(&self) -> usize {
        self.weight.shape()[0]
    }
}

/// The row-major `o × i` weight `w` packed for [`super::linear_packed`] when `T` is
/// `f32` (the only type that kernel takes).
fn packed_f32<T: Float>(w: &[T], o: usize, i: usize) -> Option<Vec<T>> {
    cast_slice::<T, f32>(w).map(|_| super::linear_packed::pack(w, o, i))
}

impl<T: Float> std::fmt::Debug for Linear<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Linear")
            .field("weight", &self.weight.shape())
            .field("bias", &self.bias.is_some())
            .field("activation", &self.activation)
            .finish()
    }
}
