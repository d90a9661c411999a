//! The digit classifier of `examples/digits` and its test: a 64 → hidden → 10 MLP
//! whose gradients come from `loss.backward()` (ferrotensor's autograd), trained with
//! softmax cross-entropy and Adam.

use ferrotensor::autograd::{self, Var};
use ferrotensor::optim::Adam;
use ferrotensor::prelude::*;
use rand::SeedableRng;

/// Training hyper-parameters.
#[derive(Clone, Debug)]
pub struct Config {
    pub epochs: usize,
    pub hidden: usize,
    pub batch: usize,
    pub lr: f64,
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            epochs: 30,
            hidden: 128,
            batch: 32,
            lr: 1e-3,
            seed: 7,
        }
    }
}

/// The 64 → hidden → 10 MLP and its optimiser.
pub struct Mlp {
    w1: Var<f32>,
    b1: Var<f32>,
    w2: Var<f32>,
    b2: Var<f32>,
    opt: Adam<f32>,
}

/// What one epoch measured.
pub struct EpochStats {
    pub loss: f32,
    pub train_accuracy: f32,
}

impl Mlp {
    /// He-initialised weights from `seed`.
    pub fn new(hidden: usize, lr: f64, seed: u64) -> Self {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let w1 = Tensor::<f32, _>::randn([64, hidden], &mut rng) * (2.0f32 / 64.0).sqrt();
        let w2 = Tensor::<f32, _>::randn([hidden, 10], &mut rng) * (2.0f32 / hidden as f32).sqrt();
        Mlp {
            w1: Var::new(w1),
            b1: Var::new(Tensor::<f32, _>::zeros([hidden])),
            w2: Var::new(w2),
            b2: Var::new(Tensor::<f32, _>::zeros([10])),
            opt: Adam::new(lr),
        }
    }

    /// Logits of a batch.
    pub fn forward(&self, x: &Var<f32>) -> Result<Var<f32>> {
        let h = (&x.matmul(&self.w1)? + &self.b1).relu();
        Ok(&h.matmul(&self.w2)? + &self.b2)
    }

    /// Predicted classes.
    pub fn predict(&self, x: &Tensor<f32, IxDyn>) -> Vec<usize> {
        let logits = self.forward(&Var::constant(x.clone())).expect("shapes fit");
        logits.value().argmax_axis(1).expect("rank 2").to_vec()
    }

    /// One mini-batch step: forward, `backward()`, Adam; returns the batch loss.
    pub fn train_step(&mut self, x: &Tensor<f32, IxDyn>, y: &Tensor<i64, Ix1>) -> Result<f32> {
        let logits = self.forward(&Var::constant(x.clone()))?;
        let loss = autograd::cross_entropy(&logits, y)?;
        let value = loss.value().to_scalar()?;
        let grads = loss.backward()?;
        drop((loss, logits)); // free the graph so Adam updates the weights in place
        self.opt.step(
            [&mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2],
            &grads,
        )?;
        Ok(value)
    }

    /// One epoch over `x`/`y` in shuffled mini-batches.
    pub fn epoch(
        &mut self,
        x: &Tensor<f32, IxDyn>,
        y: &[usize],
        cfg: &Config,
        rng: &mut rand::rngs::StdRng,
        on_batch: impl FnMut(usize, usize),
    ) -> Result<EpochStats> {
        let loss = super::data::shuffled_epoch(
            x,
            y,
            cfg.batch,
            rng,
            |xb, yb| self.train_step(xb, yb),
            on_batch,
        )?;
        Ok(EpochStats {
            loss,
            train_accuracy: super::data::accuracy(&self.predict(x), y),
        })
    }
}
