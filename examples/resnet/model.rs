//! ResNet-18 (torchvision's layout and `state_dict` names) on `ferrotensor::nn`'s
//! prepared layers: every convolution is a `Conv2d` with its batch norm folded in, the
//! ReLU fused, and in each block's second convolution the residual added in the same
//! pass. Generic over the element type; the configuration also builds smaller
//! networks of the same shape (used by the tests).

use ferrotensor::io::DynTensor;
use ferrotensor::nn::{self, Activation, BatchNorm2d, Conv2d, Conv2dArgs, Linear};
use ferrotensor::prelude::*;
use std::collections::BTreeMap;

/// The shape of a ResNet with basic blocks.
#[derive(Clone, Debug)]
pub struct Config {
    /// Channels of the stem and of the four stages.
    pub widths: [usize; 4],
    /// Basic blocks per stage.
    pub blocks: [usize; 4],
    /// Output classes.
    pub classes: usize,
}

impl Config {
    /// torchvision's `resnet18`.
    pub fn resnet18() -> Self {
        Config {
            widths: [64, 128, 256, 512],
            blocks: [2, 2, 2, 2],
            classes: 1000,
        }
    }
}

/// Every tensor of the network's `state_dict` (torchvision names, without
/// `num_batches_tracked`) with its shape, in order.
pub fn names_and_shapes(cfg: &Config) -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    let bn = |out: &mut Vec<(String, Vec<usize>)>, p: &str, c: usize| {
        for s in ["weight", "bias", "running_mean", "running_var"] {
            out.push((format!("{p}.{s}"), vec![c]));
        }
    };
    let w0 = cfg.widths[0];
    out.push(("conv1.weight".into(), vec![w0, 3, 7, 7]));
    bn(&mut out, "bn1", w0);
    let mut cin = w0;
    for (li, (&c, &nb)) in cfg.widths.iter().zip(&cfg.blocks).enumerate() {
        for b in 0..nb {
            let p = format!("layer{}.{b}", li + 1);
            let stride = if b == 0 && li > 0 { 2 } else { 1 };
            out.push((format!("{p}.conv1.weight"), vec![c, cin, 3, 3]));
            bn(&mut out, &format!("{p}.bn1"), c);
            out.push((format!("{p}.conv2.weight"), vec![c, c, 3, 3]));
            bn(&mut out, &format!("{p}.bn2"), c);
            if b == 0 && (stride != 1 || cin != c) {
                out.push((format!("{p}.downsample.0.weight"), vec![c, cin, 1, 1]));
                bn(&mut out, &format!("{p}.downsample.1"), c);
            }
            cin = c;
        }
    }
    out.push(("fc.weight".into(), vec![cfg.classes, cin]));
    out.push(("fc.bias".into(), vec![cfg.classes]));
    out
}

/// Random weights with torchvision's initialisation scales (Kaiming normal with fan-out
/// for convolutions, uniform ±1/√fan-in for `fc`) and running statistics away from the
/// identity (so that a wrong batch-norm formula shows), as `f32`.
pub fn random_weights(cfg: &Config, seed: u64) -> BTreeMap<String, DynTensor> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = BTreeMap::new();
    for (name, shape) in names_and_shapes(cfg) {
        let size: usize = shape.iter().product();
        let mut uniform = |lo: f32, hi: f32| -> Vec<f32> {
            (0..size).map(|_| rng.random_range(lo..hi)).collect()
        };
        let data: Vec<f32> = if name.ends_with("running_var") {
            uniform(0.5, 1.5)
        } else if name.ends_with("running_mean")
            || (name.ends_with(".bias") && !name.starts_with("fc."))
        {
            uniform(-0.2, 0.2)
        } else if name.starts_with("fc.") {
            let b = 1.0 / (cfg.widths[3] as f32).sqrt();
            uniform(-b, b)
        } else if shape.len() == 4 {
            let fan_out = (shape[0] * shape[2] * shape[3]) as f32;
            let std = (2.0 / fan_out).sqrt();
            Tensor::<f32, _>::randn([size], &mut rng)
                .to_vec()
                .into_iter()
                .map(|v| v * std)
                .collect()
        } else {
            uniform(0.5, 1.5)
        };
        let t = Tensor::from_vec(data, IxDyn::from(&shape[..])).expect("sized from the shape");
        out.insert(name, DynTensor::from(t));
    }
    out
}

/// Looks up the network's tensors by name, checking shape and element type.
pub struct Weights<'a> {
    map: &'a BTreeMap<String, DynTensor>,
}

impl<'a> Weights<'a> {
    pub fn new(map: &'a BTreeMap<String, DynTensor>) -> Self {
        Weights { map }
    }

    /// The tensor `name` as `T`, or `Err` naming it when it is missing, has another
    /// shape than `shape`, or is not `f32` (the type torchvision exports).
    pub fn get<T: Float>(
        &self,
        name: &str,
        shape: &[usize],
    ) -> ferrotensor::Result<Tensor<T, IxDyn>> {
        let fmt = |s: &[usize]| format!("{s:?}");
        let t = self.map.get(name).ok_or_else(|| {
            ferrotensor::Error::value(
                "resnet",
                format!(
                    "weights have no tensor '{name}' (expected shape {})",
                    fmt(shape)
                ),
            )
        })?;
        if t.shape() != shape {
            return Err(ferrotensor::Error::shape(
                "resnet",
                format!(
                    "tensor '{name}' has shape {} but ResNet expects {}",
                    fmt(t.shape()),
                    fmt(shape)
                ),
            ));
        }
        let f: Tensor<f32, IxDyn> = t.clone().into_typed().map_err(|t| {
            ferrotensor::Error::value(
                "resnet",
                format!("tensor '{name}' has dtype {}, expected float32", t.dtype()),
            )
        })?;
        Ok(f.mapv(|v| T::from_f32(v)))
    }
}

/// One basic block: two 3×3 convolutions (batch norms folded, ReLU fused; the second
/// adds the shortcut before its ReLU) and an optional 1×1 downsampling shortcut.
pub struct Block<T: Float> {
    /// The `state_dict` prefix, `layer1.0` …
    name: String,
    conv1: Conv2d<T>,
    conv2: Conv2d<T>,
    down: Option<Conv2d<T>>,
}

/// The network, prepared for inference.
pub struct ResNet<T: Float> {
    stem: Conv2d<T>,
    /// The stem's convolution and max pool in one pass (`Conv2d::forward_max_pool2d`);
    /// `RESNET_STEM=unfused` runs them one after the other (for measuring).
    fused_stem: bool,
    blocks: Vec<Block<T>>,
    fc: Linear<T>,
}

/// The convolution `conv` followed by batch norm `bn` (both by `state_dict` prefix) as
/// one prepared layer.
fn conv_bn<T: Float>(
    w: &Weights<'_>,
    conv: &str,
    bn: &str,
    shape: [usize; 4],
    stride: usize,
    act: Activation,
) -> ferrotensor::Result<Conv2d<T>> {
    let weight = w.get::<T>(&format!("{conv}.weight"), &shape)?;
    let pad = shape[2] / 2;
    let args = Conv2dArgs {
        stride: [stride, stride],
        padding: [pad, pad],
        ..Default::default()
    };
    let c = [shape[0]];
    let p = |s: &str| w.get::<T>(&format!("{bn}.{s}"), &c);
    let norm = BatchNorm2d::new(
        &p("running_mean")?,
        &p("running_var")?,
        Some(&p("weight")?),
        Some(&p("bias")?),
        1e-5,
    )?;
    Ok(Conv2d::new(&weight, None, args)?
        .fold_batch_norm(&norm)?
        .with_activation(act))
}

impl<T: Float> ResNet<T> {
    /// The network from torchvision-named weights. `Err` naming the tensor for a
    /// missing tensor, a wrong shape or a wrong element type.
    pub fn new(w: &Weights<'_>, cfg: &Config) -> ferrotensor::Result<Self> {
        let w0 = cfg.widths[0];
        let stem = conv_bn(w, "conv1", "bn1", [w0, 3, 7, 7], 2, Activation::Relu)?;
        let mut blocks = Vec::new();
        let mut cin = w0;
        for (li, (&c, &nb)) in cfg.widths.iter().zip(&cfg.blocks).enumerate() {
            for b in 0..nb {
                let p = format!("layer{}.{b}", li + 1);
                let stride = if b == 0 && li > 0 { 2 } else { 1 };
                let conv1 = conv_bn(
                    w,
                    &format!("{p}.conv1"),
                    &format!("{p}.bn1"),
                    [c, cin, 3, 3],
                    stride,
                    Activation::Relu,
                )?;
                let conv2 = conv_bn(
                    w,
                    &format!("{p}.conv2"),
                    &format!("{p}.bn2"),
                    [c, c, 3, 3],
                    1,
                    Activation::Relu,
                )?;
                let down = if b == 0 && (stride != 1 || cin != c) {
                    let (dc, db) = (format!("{p}.downsample.0"), format!("{p}.downsample.1"));
                    Some(conv_bn(
                        w,
                        &dc,
                        &db,
                        [c, cin, 1, 1],
                        stride,
                        Activation::Identity,
                    )?)
                } else {
                    None
                };
                blocks.push(Block {
                    name: p,
                    conv1,
                    conv2,
                    down,
                });
                cin = c;
            }
        }
        let fc_w = w.get::<T>("fc.weight", &[cfg.classes, cin])?;
        let fc_b = w.get::<T>("fc.bias", &[cfg.classes])?;
        let fc = Linear::new(&fc_w, Some(&fc_b))?;
        let fused_stem = std::env::var("RESNET_STEM").map_or(true, |v| v != "unfused");
        Ok(ResNet {
            stem,
            fused_stem,
            blocks,
            fc,
        })
    }

    /// The forward pass with the time of each layer (for profiling): `(name, seconds)`.
    #[allow(dead_code)]
    pub fn forward_timed(
        &self,
        x: &Tensor<T, IxDyn>,
        times: &mut Vec<(String, f64)>,
    ) -> ferrotensor::Result<Tensor<T, IxDyn>> {
        let mut t = std::time::Instant::now();
        let mut lap = |name: String, times: &mut Vec<(String, f64)>| {
            times.push((name, t.elapsed().as_secs_f64()));
            t = std::time::Instant::now();
        };
        let mut h = if self.fused_stem {
            let h = self.stem.forward_max_pool2d(x, [3, 3], [2, 2], [1, 1])?;
            lap("conv1+maxpool".into(), times);
            h
        } else {
            let h = self.stem.forward(x)?;
            lap("conv1".into(), times);
            let h = nn::max_pool2d(&h, [3, 3], [2, 2], [1, 1])?;
            lap("maxpool".into(), times);
            h
        };
        for b in &self.blocks {
            let y = b.conv1.forward(&h)?;
            lap(
                format!("{}.conv1 {:?} {}", b.name, h.shape(), b.conv1.kernel()),
                times,
            );
            let s = match &b.down {
                Some(d) => {
                    let s = d.forward(&h)?;
                    lap(format!("{}.downsample {}", b.name, d.kernel()), times);
                    Some(s)
                }
                None => None,
            };
            h = b.conv2.forward_add(&y, s.as_ref().unwrap_or(&h))?;
            lap(
                format!("{}.conv2 {:?} {}", b.name, y.shape(), b.conv2.kernel()),
                times,
            );
        }
        let pooled = nn::global_avg_pool2d(&h)?;
        let out = self.fc.forward(&nn::flatten(&pooled, 1)?)?;
        lap("avgpool+fc".into(), times);
        Ok(out)
    }

    /// The logits `(N, classes)` of an `(N, 3, H, W)` batch (any layout).
    pub fn forward<S: ferrotensor::storage::Storage<Elem = T>, D: Dimension>(
        &self,
        x: &TensorBase<S, D>,
    ) -> ferrotensor::Result<Tensor<T, IxDyn>> {
        let x = x.view().into_dyn();
        let mut h = if self.fused_stem {
            self.stem.forward_max_pool2d(&x, [3, 3], [2, 2], [1, 1])?
        } else {
            nn::max_pool2d(&self.stem.forward(&x)?, [3, 3], [2, 2], [1, 1])?
        };
        for b in &self.blocks {
            h = match &b.down {
                Some(d) => b
                    .conv2
                    .forward_add(&b.conv1.forward(&h)?, &d.forward(&h)?)?,
                None => b.conv2.forward_add(&b.conv1.forward(&h)?, &h)?,
            };
        }
        let pooled = nn::global_avg_pool2d(&h)?;
        self.fc.forward(&nn::flatten(&pooled, 1)?)
    }
}
