//! Training-step benchmarks of `ferrotensor::autograd` + `ferrotensor::optim`:
//!
//! 1. the digits MLP (64 → 128 → 10, batch 32, Adam) through `loss.backward()` against
//!    the hand-written backward pass the example used before autograd (kept below);
//! 2. an MLP 784 → 512 → 512 → 10, batch 256, f32, one step (forward, backward, Adam)
//!    against candle (`candle-core` + `candle-nn`, `AdamW` with zero weight decay);
//! 3. a small CNN (conv 3×3 1 → 16, ReLU, max pool, conv 3×3 16 → 32, ReLU, max pool,
//!    linear 1568 → 10) on a batch of 64 28×28 images, one step, against candle.
//!
//! `cargo bench -p ferrotensor-bench --bench autograd`

#[path = "../../examples/digits/data.rs"]
#[allow(dead_code)]
mod data;

use candle_core::{DType, Device, Module};
use candle_nn::{Optimizer, VarBuilder, VarMap};
use ferrotensor::autograd::{self, Var};
use ferrotensor::nn::Conv2dArgs;
use ferrotensor::optim::Adam;
use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, cpu_model, time_min};
use rand::SeedableRng;

/// The digits MLP with the hand-written backward pass and tensor-op Adam that
/// `examples/digits` used before autograd: the baseline of benchmark 1.
mod handwritten {
    use ferrotensor::prelude::*;

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

        fn adam(&mut self, g: &Tensor<f32, IxDyn>, lr: f32, t: i32) {
            let (b1, b2) = (0.9f32, 0.999f32);
            self.m = &self.m * b1 + g * (1.0 - b1);
            self.v = &self.v * b2 + &g.square() * (1.0 - b2);
            let m_hat = &self.m / (1.0 - b1.powi(t));
            let v_hat = &self.v / (1.0 - b2.powi(t));
            self.w -= &(&m_hat * lr / &(v_hat.sqrt() + 1e-8));
        }
    }

    pub struct Mlp {
        w1: Param,
        b1: Param,
        w2: Param,
        b2: Param,
        step: i32,
    }

    impl Mlp {
        pub fn new(w1: Tensor<f32, IxDyn>, w2: Tensor<f32, IxDyn>) -> Self {
            let (h, o) = (w1.shape()[1], w2.shape()[1]);
            Mlp {
                w1: Param::new(w1),
                b1: Param::new(Tensor::zeros(vec![h])),
                w2: Param::new(w2),
                b2: Param::new(Tensor::zeros(vec![o])),
                step: 0,
            }
        }

        /// One mini-batch step of softmax cross-entropy with Adam; returns the loss.
        pub fn train_step(
            &mut self,
            x: &Tensor<f32, IxDyn>,
            y1h: &Tensor<f32, IxDyn>,
            lr: f32,
        ) -> f32 {
            let n = x.shape()[0] as f32;
            let z1 = &(x % &self.w1.w) + &self.b1.w;
            let h = z1.relu();
            let logits = &(&h % &self.w2.w) + &self.b2.w;
            let logp = ferrotensor::nn::log_softmax(&logits, 1).expect("rank 2");
            let loss = -(&logp * y1h).sum() / n;
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
    }
}

/// The same digits MLP through autograd.
struct AutogradMlp {
    params: Vec<Var<f32>>,
    opt: Adam<f32>,
}

impl AutogradMlp {
    fn train_step(&mut self, x: &Var<f32>, y: &Tensor<i64, Ix1>) -> f32 {
        let [w1, b1, w2, b2] = &self.params[..] else {
            unreachable!()
        };
        let h = (&x.matmul(w1).unwrap() + b1).relu();
        let logits = &h.matmul(w2).unwrap() + b2;
        let loss = autograd::cross_entropy(&logits, y).unwrap();
        let value = loss.value().to_scalar().unwrap();
        let grads = loss.backward().unwrap();
        drop((loss, logits, h));
        self.opt.step(self.params.iter_mut(), &grads).unwrap();
        value
    }
}

fn digits(t: &mut Table) {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/digits.csv.gz");
    let d = data::load_digits(&path).expect("digits data");
    let split = data::split(&d, 7, None);
    let x = data::standardise(&split.x_train, &[]).remove(0);
    let n = x.shape()[0];
    // (inputs, one-hot targets for the hand-written pass, labels for autograd)
    type Batch = (Tensor<f32, IxDyn>, Tensor<f32, IxDyn>, Tensor<i64, Ix1>);
    let batches: Vec<Batch> = (0..n)
        .step_by(32)
        .map(|s| {
            let rows: Vec<isize> = (s..(s + 32).min(n)).map(|i| i as isize).collect();
            let xb = x.index_select(0, &rows).unwrap();
            let yb: Vec<usize> = rows.iter().map(|&i| split.y_train[i as usize]).collect();
            let y1h = Tensor::<f32, _>::from_shape_fn([yb.len(), 10], |i| {
                (yb[i[0]] == i[1]) as u8 as f32
            })
            .into_dyn();
            (xb, y1h, data::labels(&yb))
        })
        .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let w1 = Tensor::<f32, _>::randn(vec![64, 128], &mut rng) * (2.0f32 / 64.0).sqrt();
    let w2 = Tensor::<f32, _>::randn(vec![128, 10], &mut rng) * (2.0f32 / 128.0).sqrt();
    let mut hand = handwritten::Mlp::new(w1.clone(), w2.clone());
    let mut auto = AutogradMlp {
        params: vec![
            Var::new(w1),
            Var::new(Tensor::<f32, _>::zeros([128])),
            Var::new(w2),
            Var::new(Tensor::<f32, _>::zeros([10])),
        ],
        opt: Adam::new(1e-3),
    };
    // Same data, same initial weights: the two must train alike.
    let (mut lh, mut la) = (0.0, 0.0);
    for (xb, y1h, y) in &batches {
        lh = hand.train_step(xb, y1h, 1e-3);
        la = auto.train_step(&Var::constant(xb.clone()), y);
    }
    assert!(
        (lh - la).abs() < 1e-3 * lh.abs().max(1.0),
        "hand-written {lh} vs autograd {la}"
    );
    let steps = batches.len() as f64;
    let inputs: Vec<Var<f32>> = batches.iter().map(|b| Var::constant(b.0.clone())).collect();
    let hand_t = time_min(3.0, || {
        for (xb, y1h, _) in &batches {
            std::hint::black_box(hand.train_step(xb, y1h, 1e-3));
        }
    }) / steps;
    let auto_t = time_min(3.0, || {
        for (xv, (_, _, y)) in inputs.iter().zip(&batches) {
            std::hint::black_box(auto.train_step(xv, y));
        }
    }) / steps;
    t.add(
        "digits MLP 64-128-10 step, batch 32 (fwd + bwd + Adam)",
        auto_t,
        vec![("hand-written backward", Some(hand_t))],
        format!("mean over the {} batches of an epoch", batches.len()),
    );
}

fn candle_tensor(t: &Tensor<f32, IxDyn>, dev: &Device) -> candle_core::Tensor {
    candle_core::Tensor::from_slice(t.as_slice().expect("row-major"), t.shape(), dev).unwrap()
}

fn candle_labels(labels: &[usize], dev: &Device) -> candle_core::Tensor {
    let v: Vec<u32> = labels.iter().map(|&c| c as u32).collect();
    candle_core::Tensor::from_vec(v, labels.len(), dev).unwrap()
}

/// candle's Adam: `AdamW` without weight decay over every variable of `varmap`.
fn candle_adam(varmap: &VarMap) -> candle_nn::AdamW {
    let params = candle_nn::ParamsAdamW {
        lr: 1e-3,
        weight_decay: 0.0,
        ..Default::default()
    };
    candle_nn::AdamW::new(varmap.all_vars(), params).unwrap()
}

fn mlp(t: &mut Table) {
    let (batch, sizes) = (256, [784usize, 512, 512, 10]);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let x = Tensor::<f32, _>::randn(vec![batch, sizes[0]], &mut rng);
    let labels: Vec<usize> = (0..batch).map(|i| (i * 7) % 10).collect();
    // ferrotensor: PyTorch-layout weights (out, in), as candle's Linear.
    let mut params = Vec::new();
    for l in 0..3 {
        let w = Tensor::<f32, _>::randn([sizes[l + 1], sizes[l]], &mut rng)
            * (1.0 / sizes[l] as f32).sqrt();
        params.push(Var::new(w));
        params.push(Var::new(Tensor::<f32, _>::zeros([sizes[l + 1]])));
    }
    let mut opt = Adam::new(1e-3);
    let xv = Var::constant(x.clone());
    let y = data::labels(&labels);
    let mut ours_step = || {
        let mut h = xv.clone();
        for l in 0..3 {
            h = autograd::linear(&h, &params[2 * l], Some(&params[2 * l + 1])).unwrap();
            if l < 2 {
                h = h.relu();
            }
        }
        let loss = autograd::cross_entropy(&h, &y).unwrap();
        let grads = loss.backward().unwrap();
        drop((loss, h));
        opt.step(params.iter_mut(), &grads).unwrap();
    };
    let ours = time_min(4.0, &mut ours_step);
    // candle
    let dev = Device::Cpu;
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &dev);
    let layers: Vec<candle_nn::Linear> = (0..3)
        .map(|l| candle_nn::linear(sizes[l], sizes[l + 1], vb.pp(format!("l{l}"))).unwrap())
        .collect();
    let mut copt = candle_adam(&varmap);
    let cx = candle_tensor(&x, &dev);
    let cy = candle_labels(&labels, &dev);
    let candle = time_min(4.0, || {
        let mut h = cx.clone();
        for (l, layer) in layers.iter().enumerate() {
            h = layer.forward(&h).unwrap();
            if l < 2 {
                h = h.relu().unwrap();
            }
        }
        let loss = candle_nn::loss::cross_entropy(&h, &cy).unwrap();
        copt.backward_step(&loss).unwrap();
    });
    // Forward, weight gradients and input gradients (none for the first layer's input).
    let sum: f64 = (0..3).map(|l| (sizes[l] * sizes[l + 1]) as f64).sum();
    let flops = 2.0 * batch as f64 * (3.0 * sum - (sizes[0] * sizes[1]) as f64);
    t.add(
        "MLP 784-512-512-10 step, batch 256 (fwd + bwd + Adam)",
        ours,
        vec![("candle", Some(candle))],
        format!("{:.1} GFLOP/s of matmul work", flops / ours / 1e9),
    );
}

fn cnn(t: &mut Table) {
    let batch = 64;
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let x = Tensor::<f32, _>::randn(vec![batch, 1, 28, 28], &mut rng);
    let labels: Vec<usize> = (0..batch).map(|i| (i * 3) % 10).collect();
    let mut params = [
        Var::new(Tensor::<f32, _>::randn([16, 1, 3, 3], &mut rng) * (1.0f32 / 3.0)),
        Var::new(Tensor::<f32, _>::zeros([16])),
        Var::new(Tensor::<f32, _>::randn([32, 16, 3, 3], &mut rng) * (1.0f32 / 12.0)),
        Var::new(Tensor::<f32, _>::zeros([32])),
        Var::new(Tensor::<f32, _>::randn([10, 32 * 7 * 7], &mut rng) * (1.0f32 / 40.0)),
        Var::new(Tensor::<f32, _>::zeros([10])),
    ];
    let mut opt = Adam::new(1e-3);
    let xv = Var::constant(x.clone());
    let y = data::labels(&labels);
    let args = Conv2dArgs {
        padding: [1, 1],
        ..Default::default()
    };
    let ours = time_min(4.0, || {
        let h = autograd::conv2d(&xv, &params[0], Some(&params[1]), &args)
            .unwrap()
            .relu();
        let h = autograd::max_pool2d(&h, [2, 2], [2, 2], [0, 0]).unwrap();
        let h = autograd::conv2d(&h, &params[2], Some(&params[3]), &args)
            .unwrap()
            .relu();
        let h = autograd::max_pool2d(&h, [2, 2], [2, 2], [0, 0]).unwrap();
        let h = h.reshape([batch, 32 * 7 * 7]).unwrap();
        let logits = autograd::linear(&h, &params[4], Some(&params[5])).unwrap();
        let loss = autograd::cross_entropy(&logits, &y).unwrap();
        let grads = loss.backward().unwrap();
        drop((loss, logits, h));
        opt.step(params.iter_mut(), &grads).unwrap();
    });
    let dev = Device::Cpu;
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &dev);
    let cfg = candle_nn::Conv2dConfig {
        padding: 1,
        ..Default::default()
    };
    let c1 = candle_nn::conv2d(1, 16, 3, cfg, vb.pp("c1")).unwrap();
    let c2 = candle_nn::conv2d(16, 32, 3, cfg, vb.pp("c2")).unwrap();
    let fc = candle_nn::linear(32 * 7 * 7, 10, vb.pp("fc")).unwrap();
    let mut copt = candle_adam(&varmap);
    let cx = candle_tensor(&x, &dev);
    let cy = candle_labels(&labels, &dev);
    let candle = time_min(4.0, || {
        let h = c1
            .forward(&cx)
            .unwrap()
            .relu()
            .unwrap()
            .max_pool2d(2)
            .unwrap();
        let h = c2
            .forward(&h)
            .unwrap()
            .relu()
            .unwrap()
            .max_pool2d(2)
            .unwrap();
        let logits = fc.forward(&h.flatten_from(1).unwrap()).unwrap();
        let loss = candle_nn::loss::cross_entropy(&logits, &cy).unwrap();
        copt.backward_step(&loss).unwrap();
    });
    t.add(
        "CNN conv16-pool-conv32-pool-linear step, batch 64×1×28×28",
        ours,
        vec![("candle", Some(candle))],
        String::new(),
    );
}

fn main() {
    println!("CPU: {}", cpu_model());
    let mut t = Table::default();
    digits(&mut t);
    mlp(&mut t);
    cnn(&mut t);
    t.print("autograd training steps, f32");
}
