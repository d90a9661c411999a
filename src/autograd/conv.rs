//! `conv2d` of [`Var`]s. The forward pass is [`nn::conv2d`]; the gradient with respect
//! to the input is the transposed convolution of the incoming gradient
//! ([`nn::conv_transpose2d`] with the same stride, padding, dilation and groups, and the
//! output padding that restores the input size); the gradient with respect to the
//! weight is one GEMM per group, `dW = G · colsᵀ`, over the im2col matrix of the padded
//! input (built as a strided view and copied once) and the incoming gradient with its
//! batch and channel axes swapped.

use super::grad::Grad;
use super::var::Var;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Ix1, Ix6, IxDyn, Layout};
use crate::manip::PadMode;
use crate::nn::{self, Conv2dArgs, ConvTranspose2dArgs};
use crate::storage::ViewRepr;
use crate::tensor::{Tensor, TensorBase, TensorView};

/// The bias as the owned 1-D tensor [`nn::conv2d`] takes; `Err` unless it is 1-D.
fn bias_tensor<T: Float>(bias: Option<&Var<T>>, input: &[usize], weight: &[usize]) -> Result<Option<Tensor<T, Ix1>>> {
    match bias {
        None => Ok(None),
        Some(b) if b.ndim() == 1 => Ok(Some(b.view().to_owned().into_dim::<Ix1>()?)),
        Some(b) => Err(Error::shape(
            "conv2d",
            format!(
                "bias of shape {} must be 1-D (input {}, weight {})",
                fmt_shape(b.shape()),
                fmt_shape(input),
                fmt_shape(weight)
            ),
        )),
    }
}

/// The im2col matrix `(C·kH·kW, N·OH·OW)` of `x` `(N, C, H, W)` for `args` (zero padding).
fn im2col<T: Float>(
    x: &TensorView<'_, T, IxDyn>,
    k: [usize; 2],
    out: [usize; 2],
    args: &Conv2dArgs,
) -> Result<Tensor<T, IxDyn>> {
    let [p0, p1] = args.padding;
    let xp = x.pad(&[(0, 0), (0, 0), (p0, p0), (p1, p1)], PadMode::Constant(T::zero()))?;
    let s = xp.shape().to_vec();
    let wp = s[3] as isize;
    let (sn, sc) = ((s[1] * s[2] * s[3]) as isize, (s[2] * s[3]) as isize);
    let (st, d) = (args.stride, args.dilation);
    // (C, kH, kW, N, OH, OW) over the padded input's buffer.
    let layout = Layout::<Ix6>::new(
        [s[1], k[0], k[1], s[0], out[0], out[1]],
        [
            sc,
            d[0] as isize * wp,
            d[1] as isize,
            sn,
            st[0] as isize * wp,
            st[1] as isize,
        ],
        0,
    );
    layout.check_in_buffer(xp.buffer().len(), "conv2d")?;
    let windows: TensorView<'_, T, Ix6> = TensorBase {
        storage: ViewRepr(xp.buffer()),
        layout,
    };
    windows
        .to_contiguous()
        .into_shape(vec![s[1] * k[0] * k[1], s[0] * out[0] * out[1]])
}

/// 2-D convolution (PyTorch's `conv2d`, as [`nn::conv2d`]) of `input` `(N, C, H, W)`
/// with `weight` `(O, C / groups, kH, kW)` and an optional `bias` `(O,)`; all three may
/// need gradients. `Err` as [`nn::conv2d`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::autograd;
/// use ferrotensor::nn::Conv2dArgs;
/// let x = Var::new(Tensor::<f64, _>::ones([1, 1, 3, 3]));
/// let w = Var::new(Tensor::<f64, _>::ones([1, 1, 2, 2]));
/// let b = Var::new(Tensor::<f64, _>::zeros([1]));
/// let y = autograd::conv2d(&x, &w, Some(&b), &Conv2dArgs::default())?;
/// assert_eq!(y.value().to_vec(), vec![4.0; 4]);
/// let g = y.sum().backward()?;
/// assert_eq!(g.get(&x).unwrap().to_vec(), vec![1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]);
/// assert_eq!(g.get(&w).unwrap().to_vec(), vec![4.0; 4]);
/// assert_eq!(g.get(&b).unwrap().to_vec(), vec![4.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn conv2d<T: Float>(input: &Var<T>, weight: &Var<T>, bias: Option<&Var<T>>, args: &Conv2dArgs) -> Result<Var<T>> {
    let b = bias_tensor(bias, input.shape(), weight.shape())?;
    let value = nn::conv2d(&input.view(), &weight.view(), b.as_ref(), args)?.into_dyn();
    let args = *args;
    let mut parents = vec![input, weight];
    parents.extend(bias);
    Ok(Var::from_op(value, "conv2d", &parents, move |c| {
        let (x, w) = (&c.inputs[0], &c.inputs[1]);
        let g = c.grad.into_tensor();
        let g = if g.is_contiguous() { g } else { g.to_contiguous() };
        let (xs, ws, gs) = (x.shape(), w.shape(), g.shape().to_vec());
        let (n, cin, o) = (xs[0], xs[1], ws[0]);
        let (k, out) = ([ws[2], ws[3]], [gs[2], gs[3]]);
        let groups = args.groups;
        let mut grads = Vec::with_capacity(3);
        // ∂/∂input: transposed convolution back to the input's size.
        grads.push(if c.needs[0] {
            if g.is_empty() || x.is_empty() {
                Some(Grad::dense(Tensor::zeros(xs.to_vec())))
            } else {
                let mut op = [0; 2];
                for a in 0..2 {
                    let reach = (out[a] - 1) * args.stride[a] + args.dilation[a] * (k[a] - 1) + 1;
                    op[a] = xs[2 + a] + 2 * args.padding[a] - reach;
                }
                let targs = ConvTranspose2dArgs {
                    stride: args.stride,
                    padding: args.padding,
                    output_padding: op,
                    dilation: args.dilation,
                    groups,
                };
                let dx = nn::conv_transpose2d(&g, w, None, &targs)?;
                Some(Grad::dense(dx.into_dyn()))
            }
        } else {
            None
        });
        // ∂/∂weight: per group, G_g (O/g, N·P) · cols_g (C/g·kk, N·P)ᵀ.
        grads.push(if c.needs[1] {
            let cols = im2col(x, k, out, &args)?;
            let gt = g
                .view()
                .permute(&[1, 0, 2, 3])?
                .to_contiguous()
                .into_shape(vec![o, n * out[0] * out[1]])?;
            let (og, ckg) = (o / groups, cin / groups * k[0] * k[1]);
            let mut parts = Vec::with_capacity(groups);
            for gi in 0..groups {
                let gg = gt.slice(crate::s![gi * og..(gi + 1) * og, ..]);
                let cg = cols.slice(crate::s![gi * ckg..(gi + 1) * ckg, ..]);
                parts.push(gg.matmul(&cg.t())?);
            }
            let dw = if groups == 1 {
                parts.pop().expect("one group")
            } else {
                let refs: Vec<&dyn crate::manip::AsView<T, IxDyn>> = parts.iter().map(|p| p as _).collect();
                crate::manip::concatenate(&refs, 0)?
            };
            Some(Grad::dense(dw.into_shape(ws.to_vec())?))
        } else {
            None
        });
        if c.inputs.len() == 3 {
            grads.push(if c.needs[2] {
                Some(Grad::dense(g.sum_axes(&[0, 2, 3], false)?))
            } else {
                None
            });
        }
        Ok(grads)
    }))
}
