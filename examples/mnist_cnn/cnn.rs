//! The convolutional digit classifier of `examples/mnist_cnn` and its test:
//! conv 3×3 (1 → channels, padding 1) → ReLU → 2×2 max pool → linear, on 8×8 images,
//! trained through `loss.backward()` with softmax cross-entropy and Adam.

use ferrotensor::autograd::{self, Var};
use ferrotensor::nn::Conv2dArgs;
use ferrotensor::optim::Adam;
use ferrotensor::prelude::*;
use rand::SeedableRng;

/// Training hyper-parameters.
#[derive(Clone, Debug)]
pub struct Config {
    pub epochs: usize,
    pub channels: usize,
    pub batch: usize,
    pub lr: f64,
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            epochs: 25,
            channels: 32,
            batch: 32,
            lr: 2e-3,
            seed: 7,
        }
    }
}

/// The network's parameters and optimiser.
pub struct Cnn {
    conv_w: Var<f32>,
    conv_b: Var<f32>,
    fc_w: Var<f32>,
    fc_b: Var<f32>,
    opt: Adam<f32>,
}

impl Cnn {
    /// He-initialised weights from `seed`.
    /// `steps_per_epoch` sizes the learning-rate schedule: a cosine decay from `cfg.lr`
    /// to 0 over the whole run.
    pub fn new(cfg: &Config, steps_per_epoch: usize) -> Self {
        let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed);
        let c = cfg.channels;
        let features = c * 4 * 4;
        let conv_w = Tensor::<f32, _>::randn([c, 1, 3, 3], &mut rng) * (2.0f32 / 9.0).sqrt();
        let fc_w =
            Tensor::<f32, _>::randn([10, features], &mut rng) * (1.0f32 / features as f32).sqrt();
        Cnn {
            conv_w: Var::new(conv_w),
            conv_b: Var::new(Tensor::<f32, _>::zeros([c])),
            fc_w: Var::new(fc_w),
            fc_b: Var::new(Tensor::<f32, _>::zeros([10])),
            opt: Adam::new(cosine(cfg.lr, cfg.epochs * steps_per_epoch)),
        }
    }

    /// Logits of a batch of images `(N, 1, 8, 8)`.
    pub fn forward(&self, x: &Var<f32>) -> Result<Var<f32>> {
        let args = Conv2dArgs {
            padding: [1, 1],
            ..Default::default()
        };
        let h = autograd::conv2d(x, &self.conv_w, Some(&self.conv_b), &args)?.relu();
        let h = autograd::max_pool2d(&h, [2, 2], [2, 2], [0, 0])?;
        let n = h.shape()[0];
        let flat = h.reshape(vec![n, h.size() / n.max(1)])?;
        autograd::linear(&flat, &self.fc_w, Some(&self.fc_b))
    }

    /// Predicted classes of images `(N, 1, 8, 8)`.
    pub fn predict(&self, x: &Tensor<f32, IxDyn>) -> Vec<usize> {
        let logits = self.forward(&Var::constant(x.clone())).expect("shapes fit");
        logits.value().argmax_axis(1).expect("rank 2").to_vec()
    }

    /// One mini-batch step; returns the batch loss.
    pub fn train_step(&mut self, x: &Tensor<f32, IxDyn>, y: &Tensor<i64, Ix1>) -> Result<f32> {
        let loss = autograd::cross_entropy(&self.forward(&Var::constant(x.clone()))?, y)?;
        let value = loss.value().to_scalar()?;
        let grads = loss.backward()?;
        drop(loss);
        self.opt.step(
            [
                &mut self.conv_w,
                &mut self.conv_b,
                &mut self.fc_w,
                &mut self.fc_b,
            ],
            &grads,
        )?;
        Ok(value)
    }

    /// One epoch in shuffled mini-batches; returns the mean batch loss.
    pub fn epoch(
        &mut self,
        x: &Tensor<f32, IxDyn>,
        y: &[usize],
        cfg: &Config,
        rng: &mut rand::rngs::StdRng,
    ) -> Result<f32> {
        super::data::shuffled_epoch(
            x,
            y,
            cfg.batch,
            rng,
            |xb, yb| self.train_step(xb, yb),
            |_, _| {},
        )
    }
}

/// A cosine decay from `lr` to 0 over `total` steps, as a schedule closure.
pub fn cosine(lr: f64, total: usize) -> impl Fn(usize) -> f64 + Send + Sync + 'static {
    move |step| {
        0.5 * lr
            * (1.0 + (std::f64::consts::PI * step.min(total) as f64 / total.max(1) as f64).cos())
    }
}

/// Rows of 64 pixels as `(N, 1, 8, 8)` images.
pub fn images(rows: &Tensor<f32, IxDyn>) -> Tensor<f32, IxDyn> {
    let n = rows.shape()[0];
    rows.reshape(vec![n, 1, 8, 8])
        .expect("64 pixels per row")
        .into_owned()
}
