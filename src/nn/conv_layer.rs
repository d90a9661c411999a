//! [`Conv2d`]: a 2-D convolution prepared once — weights checked, copied and packed for
//! the kernel that runs the layer — with an epilogue fused into the pass that writes
//! its output (bias, folded batch norm, residual, activation).

use super::conv::Conv2dArgs;
use super::conv_block::Level;
use super::conv_plan::{ConvCall, Packed, as_f32, check_input, check_weight, run_conv, run_conv_max_pool};
use super::epilogue::Activation;
use super::norm_layer::BatchNorm2d;
use super::param::{Param, opt_param_vec};
use super::util::{contiguous, owned, owned_dim};
use super::{PoolGeom, PoolWindow};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix1, Ix4};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// A prepared 2-D convolution layer (PyTorch's `nn.Conv2d` in inference): the weights
/// are checked and packed once, for the kernel that suits the layer on this CPU
/// (Winograd for 3×3 stride-1 `f32` layers: F(4×4, 3×3) for calls of many tiles,
/// F(2×2, 3×3) for fewer, each transform packed on the first call that uses it; the
/// direct block kernel for
/// other `f32` layers, im2col + GEMM otherwise), and each call fuses into the pass that
/// writes the output: the bias (which holds a folded batch norm, see
/// [`Conv2d::fold_batch_norm`]), an optional residual added before the activation
/// ([`Conv2d::forward_add`]), and the activation ([`Conv2d::with_activation`]).
///
/// The results equal [`super::conv2d`] followed by the separate operations up to
/// rounding (the Winograd path sums in a different order; F(4×4, 3×3)'s error is about
/// 1e-5 of the largest output at 512 channels).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{self, Activation, Conv2d, Conv2dArgs};
/// let w = Tensor::<f32, _>::ones([2, 1, 3, 3]);
/// let b = Tensor::from_vec(vec![-10.0f32, 0.0], [2])?;
/// let conv = Conv2d::new(&w, Some(&b), Conv2dArgs { padding: [1, 1], ..Default::default() })?
///     .with_activation(Activation::Relu);
/// let x = Tensor::<f32, _>::ones([1, 1, 4, 4]);
/// let y = conv.forward(&x)?;
/// assert_eq!(y.shape(), &[1, 2, 4, 4]);
/// assert_eq!(y[[0, 0, 0, 0]], 0.0); // relu(4 − 10)
/// assert_eq!(y[[0, 1, 1, 1]], 9.0);
/// // The same as the functional composition.
/// let z = nn::relu(&nn::conv2d(&x, &w, Some(&b), conv.args())?);
/// assert_eq!(y.to_vec(), z.to_vec());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[derive(Clone)]
pub struct Conv2d<T: Float> {
    weight: Tensor<T, Ix4>,
    bias: Option<Tensor<T, Ix1>>,
    args: Conv2dArgs,
    activation: Activation,
    level: Level,
    packed: Packed,
    /// The weights as `f32` for `f16`/`bf16` layers (the GEMM fallback reads them).
    weight32: Option<Vec<f32>>,
}

impl<T: Float> Conv2d<T> {
    /// A layer from `weight` `(O, C / groups, kH, kW)` (any view; copied), an optional
    /// `bias` of length `O` and `args`. `Err` (naming the shapes) for a weight that is
    /// not 4-D or empty, zero stride, dilation or groups, `groups` not dividing `O`, or a
    /// bias that is not 1-D of length `O`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let w = Tensor::<f64, _>::zeros([4, 3, 1, 1]);
    /// let conv = ferrotensor::nn::Conv2d::new(&w, None, Default::default())?;
    /// assert_eq!((conv.out_channels(), conv.in_channels()), (4, 3));
    /// assert!(ferrotensor::nn::Conv2d::new(&w, Some(&Tensor::<f64, _>::zeros([3])), Default::default()).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn new<S: Storage<Elem = T>, D: Dimension>(
        weight: &TensorBase<S, D>,
        bias: Option<&dyn Param<T>>,
        args: Conv2dArgs,
    ) -> Result<Self> {
        const OP: &str = "Conv2d::new";
        let wshape = check_weight(OP, weight.shape(), &args)?;
        let b = opt_param_vec(
            OP,
            "bias",
            bias,
            wshape[0],
            &format!("weight {}", fmt_shape(weight.shape())),
        )?;
        let w = owned(contiguous(weight).into_owned(), wshape);
        Ok(Self::from_parts(
            w,
            b.map(|b| owned(b, [wshape[0]])),
            args,
            Activation::Identity,
        ))
    }

    /// Packs checked parts.
    fn from_parts(
        weight: Tensor<T, Ix4>,
        bias: Option<Tensor<T, Ix1>>,
        args: Conv2dArgs,
        activation: Activation,
    ) -> Self {
        let level = Level::detect();
        let wshape: [usize; 4] = weight.shape().try_into().expect("4-D weight");
        let ws = weight.as_slice().expect("row-major weight");
        let w32 = as_f32(ws);
        let packed = match &w32 {
            Some(w32) => {
                let b32 = bias
                    .as_ref()
                    .and_then(|b| as_f32(b.as_slice().expect("row-major bias")).map(|c| c.into_owned()));
                Packed::new(level, w32, b32.as_deref(), wshape, &args, None)
            }
            None => Packed::None,
        };
        let weight32 = match (&w32, cast_is_f32::<T>()) {
            (Some(w), false) => Some(w.to_vec()),
            _ => None,
        };
        Conv2d {
            weight,
            bias,
            args,
            activation,
            level,
            packed,
            weight32,
        }
    }

    /// The layer with `activation` applied to its output (after the bias and any
    /// residual).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::nn::{Activation, Conv2d};
    /// let conv = Conv2d::new(&Tensor::<f32, _>::ones([1, 1, 1, 1]), None, Default::default())?;
    /// let conv = conv.with_activation(Activation::Tanh);
    /// assert_eq!(conv.activation(), Activation::Tanh);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn with_activation(mut self, activation: Activation) -> Self {
        self.activation = activation;
        self
    }

    /// This layer followed by the inference-mode batch norm `bn`, as one layer: the
    /// weights of output channel `o` scaled by `s = γ / √(var + ε)` and the bias
    /// `(b − mean)·s + β` (computed in `f64`). `Err` if `bn` has a different number of
    /// channels than the layer's outputs, or if the layer already has an activation
    /// (the batch norm would follow it).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::nn::{BatchNorm2d, Conv2d};
    /// let w = Tensor::<f64, _>::ones([2, 1, 1, 1]);
    /// let conv = Conv2d::new(&w, None, Default::default())?;
    /// let mean = Tensor::from_vec(vec![1.0, 0.0], [2])?;
    /// let var = Tensor::from_vec(vec![4.0, 1.0], [2])?;
    /// let bn = BatchNorm2d::new(&mean, &var, None, None, 0.0)?;
    /// let fused = conv.fold_batch_norm(&bn)?;
    /// let x = Tensor::<f64, _>::full([1, 1, 1, 1], 3.0);
    /// assert_eq!(fused.forward(&x)?.to_vec(), vec![1.0, 3.0]); // (3 − 1) / 2, 3 / 1
    /// assert_eq!(fused.forward(&x)?.to_vec(), bn.forward(&conv.forward(&x)?)?.to_vec());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn fold_batch_norm(&self, bn: &BatchNorm2d<T>) -> Result<Self> {
        const OP: &str = "Conv2d::fold_batch_norm";
        let o = self.out_channels();
        if bn.num_features() != o {
            return Err(Error::shape(
                OP,
                format!(
                    "batch norm over {} channels after a convolution with {o} output channels (weight {})",
                    bn.num_features(),
                    fmt_shape(self.weight.shape())
                ),
            ));
        }
        let ws = self.weight.as_slice().expect("row-major weight");
        let (w, b) = bn.fold_after(OP, ws, self.bias.as_ref(), self.activation)?;
        let wshape: [usize; 4] = self.weight.shape().try_into().expect("4-D weight");
        Ok(Self::from_parts(
            owned(w, wshape),
            Some(owned(b, [o])),
            self.args,
            self.activation,
        ))
    }

    /// The convolution of `input` `(N, C, H, W)` (any layout and ownership, views
    /// included), with the layer's bias and activation, as a row-major `(N, O, OH, OW)`
    /// tensor of the input's rank type. `Err` (naming the shapes) for a non-4-D input,
    /// input channels ≠ `C / groups · groups` of the weight, or a kernel larger than
    /// the padded input.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let conv = ferrotensor::nn::Conv2d::new(&Tensor::<f32, _>::ones([1, 2, 1, 1]), None, Default::default())?;
    /// let x = Tensor::<f32, _>::ones([1, 3, 2, 2]);
    /// // A view: channels 1 and 2.
    /// let y = conv.forward(&x.slice(s![.., 1..]))?;
    /// assert_eq!(y.to_vec(), vec![2.0; 4]);
    /// assert!(conv.forward(&x).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn forward<S: Storage<Elem = T>, D: Dimension>(&self, input: &TensorBase<S, D>) -> Result<Tensor<T, D>> {
        self.run("Conv2d::forward", input, None)
    }

    /// `activation(conv(input) + bias + residual)` in one pass: the residual (the
    /// output's shape, any layout) is added as each output span is written. `Err` as
    /// [`Conv2d::forward`], or if the residual's shape is not the output's.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::nn::{Activation, Conv2d};
    /// let conv = Conv2d::new(&Tensor::<f32, _>::full([1, 1, 1, 1], 2.0), None, Default::default())?
    ///     .with_activation(Activation::Relu);
    /// let x = Tensor::from_vec(vec![1.0f32, 2.0], [1, 1, 1, 2])?;
    /// let r = Tensor::from_vec(vec![-5.0f32, 1.0], [1, 1, 1, 2])?;
    /// assert_eq!(conv.forward_add(&x, &r)?.to_vec(), vec![0.0, 5.0]);
    /// assert!(conv.forward_add(&x, &x.t()).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn forward_add<S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        input: &TensorBase<S, D>,
        residual: &TensorBase<S2, D2>,
    ) -> Result<Tensor<T, D>> {
        self.run("Conv2d::forward_add", input, Some(&residual.view().into_dyn()))
    }

    /// `max_pool2d(self.forward(input), kernel, stride, padding)` (see
    /// [`super::max_pool2d`]: NaN propagates, padding is ignored by the maximum) in one
    /// pass where the layer runs the channel-vectorised kernel (`f32`, as ResNet's
    /// stem, a 7×7 stride-2 convolution followed by a 3×3 stride-2 pool): each band of
    /// output rows is pooled while it is in cache, and the convolution's full output is
    /// never stored. Other layers run the two operations one after the other. The
    /// result equals the composition exactly. `Err` as [`Conv2d::forward`], and as
    /// [`super::max_pool2d`] for the pooling window on the convolution's output.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::nn::{self, Conv2d, Conv2dArgs};
    /// let w = Tensor::<f32, _>::ones([16, 3, 3, 3]);
    /// let args = Conv2dArgs { stride: [2, 2], padding: [1, 1], ..Default::default() };
    /// let conv = Conv2d::new(&w, None, args)?;
    /// let x = Tensor::<f32, _>::ones([1, 3, 8, 8]);
    /// let y = conv.forward_max_pool2d(&x, [3, 3], [2, 2], [1, 1])?;
    /// let z = nn::max_pool2d(&conv.forward(&x)?, [3, 3], [2, 2], [1, 1])?;
    /// assert_eq!(y.shape(), &[1, 16, 2, 2]);
    /// assert_eq!(y.to_vec(), z.to_vec());
    /// assert!(conv.forward_max_pool2d(&x, [3, 3], [2, 2], [2, 2]).is_err()); // padding > kernel / 2
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn forward_max_pool2d<S: Storage<Elem = T>, D: Dimension>(
        &self,
        input: &TensorBase<S, D>,
        kernel: [usize; 2],
        stride: [usize; 2],
        padding: [usize; 2],
    ) -> Result<Tensor<T, D>> {
        const OP: &str = "Conv2d::forward_max_pool2d";
        let wshape: [usize; 4] = self.weight.shape().try_into().expect("4-D weight");
        let (n, g) = check_input(OP, input.shape(), wshape, &self.args)?;
        let window = PoolWindow {
            k: kernel,
            s: stride,
            p: padding,
            d: [1, 1],
            ceil: false,
        };
        let (_, pg) = PoolGeom::check(OP, &[n, wshape[0], g.oh, g.ow], &window)?;
        let x = contiguous(input);
        if let Some(out) = run_conv_max_pool(&x, n, &g, &self.call(None), &pg) {
            return Ok(owned_dim(out, &[n, wshape[0], pg.out[0], pg.out[1]]));
        }
        let y = self.run(OP, input, None)?;
        super::max_pool2d(&y, kernel, stride, padding)
    }

    /// One call's parameters besides the input.
    fn call<'a>(&'a self, residual: Option<&'a [T]>) -> ConvCall<'a, T> {
        ConvCall {
            weight: self.weight.as_slice().expect("row-major weight"),
            weight32: self.weight32.as_deref(),
            bias: self.bias.as_ref().map(|b| b.as_slice().expect("row-major bias")),
            o: self.out_channels(),
            groups: self.args.groups,
            packed: &self.packed,
            level: self.level,
            residual,
            act: self.activation,
        }
    }

    fn run<S: Storage<Elem = T>, D: Dimension>(
        &self,
        op: &'static str,
        input: &TensorBase<S, D>,
        residual: Option<&crate::TensorView<'_, T, crate::IxDyn>>,
    ) -> Result<Tensor<T, D>> {
        let wshape: [usize; 4] = self.weight.shape().try_into().expect("4-D weight");
        let (n, g) = check_input(op, input.shape(), wshape, &self.args)?;
        let o = wshape[0];
        let out_shape = [n, o, g.oh, g.ow];
        let res = match residual {
            Some(r) if r.shape() != out_shape => {
                return Err(Error::shape(
                    op,
                    format!(
                        "residual of shape {} differs from the output shape {} (input {}, weight {})",
                        fmt_shape(r.shape()),
                        fmt_shape(&out_shape),
                        fmt_shape(input.shape()),
                        fmt_shape(&wshape)
                    ),
                ));
            }
            Some(r) => Some(contiguous(r)),
            None => None,
        };
        let x = contiguous(input);
        let out = run_conv(&x, n, &g, &self.call(res.as_deref()));
        Ok(owned_dim(out, &out_shape))
    }

    /// The weights `(O, C / groups, kH, kW)` (after any folded batch norm).
    pub fn weight(&self) -> &Tensor<T, Ix4> {
        &self.weight
    }

    /// The bias (after any folded batch norm).
    pub fn bias(&self) -> Option<&Tensor<T, Ix1>> {
        self.bias.as_ref()
    }

    /// Stride, padding, dilation and groups.
    pub fn args(&self) -> &Conv2dArgs {
        &self.args
    }

    /// The activation applied to the output.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Output channels `O`.
    pub fn out_channels(&self) -> usize {
        self.weight.shape()[0]
    }

    /// Input channels `C` (the weight's `C / groups` times the groups).
    pub fn in_channels(&self) -> usize {
        self.weight.shape()[1] * self.args.groups
    }

    /// The kernel the layer runs on this CPU: `"winograd"`, `"direct"`,
    /// `"direct_chvec"` (vectorised over output channels, for strided layers) or `"gemm"`
    /// (the direct layers fall back to `"gemm"` for images too narrow for their blocks,
    /// and the Winograd layers run `"direct_chvec"` for calls of at most 256 output
    /// positions, such as a 14×14 image at batch 1).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let conv = ferrotensor::nn::Conv2d::new(&Tensor::<f64, _>::ones([8, 8, 3, 3]), None, Default::default())?;
    /// assert_eq!(conv.kernel(), "gemm"); // f64 layers run on the GEMM
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn kernel(&self) -> &'static str {
        match self.packed {
            Packed::Winograd(..) => "winograd",
            Packed::Direct(_) => "direct",
            Packed::Chvec(_) => "direct_chvec",
            Packed::None => "gemm",
        }
    }
}

impl<T: Float> std::fmt::Debug for Conv2d<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conv2d")
            .field("weight", &self.weight.shape())
            .field("bias", &self.bias.is_some())
            .field("args", &self.args)
            .field("activation", &self.activation)
            .field("kernel", &self.kernel())
            .finish()
    }
}

/// True when `T` is `f32`.
fn cast_is_f32<T: 'static>() -> bool {
    std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
}
