//! The digit classifier used by `examples/digits` and its test: data loading, a
//! 64 → hidden → 10 MLP written with ferrotensor operations, and Adam.

use ferrotensor::prelude::*;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use std::io::Read;

/// The digits data set: `x` is (n, 64) pixels, `y` the labels 0..9.
pub struct Digits {
    pub x: Tensor<f32, Ix2>,
    pub y: Vec<usize>,
}

/// Reads the gzip CSV (64 pixel columns then the label).
pub fn load_digits(path: &std::path::Path) -> Result<Digits, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    let (mut pixels, mut y) = (Vec::new(), Vec::new());
    for (row, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != 65 {
            return Err(format!(
                "row {row}: expected 65 columns, got {}",
                fields.len()
            ));
        }
        for f in &fields[..64] {
            pixels.push(
                f.trim()
                    .parse::<f32>()
                    .map_err(|e| format!("row {row}: {e}"))?,
            );
        }
        y.push(
            fields[64]
                .trim()
                .parse::<usize>()
                .map_err(|e| format!("row {row}: {e}"))?,
        );
    }
    let n = y.len();
    let x = Tensor::from_vec(pixels, [n, 64]).map_err(|e| e.to_string())?;
    Ok(Digits { x, y })
}

/// A stratified split: `test_per_class` of every class go to the test set, picked with `seed`.
pub fn stratified_split(y: &[usize], test_fraction: f64, seed: u64) -> (Vec<isize>, Vec<isize>) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for class in 0..10 {
        let mut idx: Vec<isize> = (0..y.len())
            .filter(|&i| y[i] == class)
            .map(|i| i as isize)
            .collect();
        idx.shuffle(&mut rng);
        let n_test = (idx.len() as f64 * test_fraction).round() as usize;
        test.extend_from_slice(&idx[..n_test]);
        train.extend_from_slice(&idx[n_test..]);
    }
    train.shuffle(&mut rng);
    (train, test)
}

/// One-hot rows for the labels.
pub fn one_hot(y: &[usize]) -> Tensor<f32, Ix2> {
    Tensor::from_shape_fn(
        [y.len(), 10],
        |i: &[usize]| if y[i[0]] == i[1] { 1.0 } else { 0.0 },
    )
}

/// Training hyper-parameters.
#[derive(Clone, Debug)]
pub struct Config {
    pub epochs: usize,
    pub hidden: usize,
    pub batch: usize,
    pub lr: f32,
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

/// A parameter with its Adam moments.
struct Param {
    w: Tensor<f32, IxDyn>,
    m: Tensor<f32, IxDyn>,
    v: Tensor<f32, IxDyn>,
}

impl Param {
    fn new(w: Tensor<f32, IxDyn>) -> Self {
        let m = Tensor::zeros_like(&w);
        let v = Tensor::zeros_like(&w);
        Param { w, m, v }
    }

    /// One Adam step (β₁ = 0.9, β₂ = 0.999, ε = 1e-8), all as tensor operations.
    fn adam(&mut self, g: &Tensor<f32, IxDyn>, lr: f32, t: i32) {
        let (b1, b2) = (0.9f32, 0.999f32);
        self.m = &self.m * b1 + g * (1.0 - b1);
        self.v = &self.v * b2 + &g.square() * (1.0 - b2);
        let m_hat = &self.m / (1.0 - b1.powi(t));
        let v_hat = &self.v / (1.0 - b2.powi(t));
        self.w -= &(&m_hat * lr / &(v_hat.sqrt() + 1e-8));
    }
}

/// The 64 → hidden → 10 MLP.
pub struct Mlp {
    w1: Param,
    b1: Param,
    w2: Param,
    b2: Param,
    step: i32,
}

/// What one epoch measured.
pub struct EpochStats {
    pub loss: f32,
    pub train_accuracy: f32,
}

impl Mlp {
    /// He-initialised weights from `seed`.
    pub fn new(hidden: usize, seed: u64) -> Self {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let w1 = Tensor::<f32, _>::randn(vec![64, hidden], &mut rng) * (2.0f32 / 64.0).sqrt();
        let w2 =
            Tensor::<f32, _>::randn(vec![hidden, 10], &mut rng) * (2.0f32 / hidden as f32).sqrt();
        Mlp {
            w1: Param::new(w1),
            b1: Param::new(Tensor::zeros(vec![hidden])),
            w2: Param::new(w2),
            b2: Param::new(Tensor::zeros(vec![10])),
            step: 0,
        }
    }

    /// Logits of a batch (and the hidden pre-activation, kept for the backward pass).
    fn forward(
        &self,
        x: &Tensor<f32, IxDyn>,
    ) -> (Tensor<f32, IxDyn>, Tensor<f32, IxDyn>, Tensor<f32, IxDyn>) {
        let z1 = &(x % &self.w1.w) + &self.b1.w;
        let h = z1.relu();
        let logits = &(&h % &self.w2.w) + &self.b2.w;
        (z1, h, logits)
    }

    /// Predicted classes.
    pub fn predict(&self, x: &Tensor<f32, IxDyn>) -> Vec<usize> {
        let (_, _, logits) = self.forward(x);
        logits.argmax_axis(1).expect("rank 2").to_vec()
    }

    /// One mini-batch step of softmax cross-entropy with Adam; returns the batch loss.
    fn train_step(&mut self, x: &Tensor<f32, IxDyn>, y1h: &Tensor<f32, IxDyn>, lr: f32) -> f32 {
        let n = x.shape()[0] as f32;
        let (z1, h, logits) = self.forward(x);
        let logp = ferrotensor::nn::log_softmax(&logits, 1).expect("rank 2");
        let loss = -(&logp * y1h).sum() / n;
        // d loss / d logits = (softmax - onehot) / n
        let dlogits = (&logp.exp() - y1h) / n;
        let gw2 = &h.t() % &dlogits;
        let gb2 = dlogits.sum_axes(&[0], false).expect("axis 0");
        let dh = &dlogits % &self.w2.w.t();
        let dz1 = dh
            .zip_map(&z1, |g, z| if z > 0.0 { g } else { 0.0 })
            .expect("same shape");
        let gw1 = &x.t() % &dz1;
        let gb1 = dz1.sum_axes(&[0], false).expect("axis 0");
        self.step += 1;
        let t = self.step;
        self.w1.adam(&gw1, lr, t);
        self.b1.adam(&gb1, lr, t);
        self.w2.adam(&gw2, lr, t);
        self.b2.adam(&gb2, lr, t);
        loss
    }

    /// One epoch over `x`/`y1h` in shuffled mini-batches.
    pub fn epoch(
        &mut self,
        x: &Tensor<f32, IxDyn>,
        y1h: &Tensor<f32, IxDyn>,
        cfg: &Config,
        rng: &mut rand::rngs::StdRng,
        mut on_batch: impl FnMut(usize, usize),
    ) -> EpochStats {
        let n = x.shape()[0];
        let mut order: Vec<isize> = (0..n as isize).collect();
        order.shuffle(rng);
        let (mut loss_sum, mut batches) = (0.0f32, 0usize);
        let total = n.div_ceil(cfg.batch);
        for (b, chunk) in order.chunks(cfg.batch).enumerate() {
            let xb = x.index_select(0, chunk).expect("rows in range");
            let yb = y1h.index_select(0, chunk).expect("rows in range");
            loss_sum += self.train_step(&xb, &yb, cfg.lr);
            batches += 1;
            on_batch(b + 1, total);
        }
        let pred = self.predict(x);
        let truth = y1h.argmax_axis(1).expect("rank 2").to_vec();
        let correct = pred.iter().zip(&truth).filter(|(p, t)| p == t).count();
        EpochStats {
            loss: loss_sum / batches as f32,
            train_accuracy: correct as f32 / n as f32,
        }
    }
}

/// Standardises columns with the training set's mean and standard deviation (a zero
/// deviation becomes 1, so constant pixels stay 0).
pub fn standardise(
    train: &Tensor<f32, IxDyn>,
    others: &[&Tensor<f32, IxDyn>],
) -> Vec<Tensor<f32, IxDyn>> {
    let mean = train.mean_axes(&[0], false).expect("axis 0");
    let std = train
        .std_axes(&[0], false, 0)
        .expect("axis 0")
        .mapv(|s| if s > 0.0 { s } else { 1.0 });
    std::iter::once(train)
        .chain(others.iter().copied())
        .map(|t| &(t - &mean) / &std)
        .collect()
}
