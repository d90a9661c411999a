//! `ferrotensor::optim` against PyTorch's optimisers (`tests/golden/optim/gen_optim.py`):
//! the same starting parameter and gradient sequence give the same trajectory, for SGD
//! (momentum, Nesterov, dampening, weight decay, a schedule), Adam and AdamW.

use ferrotensor::optim::{Adam, AdamW, Sgd};
use ferrotensor::prelude::*;
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// One optimiser as a step function.
type Step = Box<dyn FnMut(&mut Var<f64>, &Grads<f64>) -> Result<()>>;

fn optimiser(name: &str) -> Step {
    fn boxed<O: 'static>(
        mut o: O,
        f: fn(&mut O, &mut Var<f64>, &Grads<f64>) -> Result<()>,
    ) -> Step {
        Box::new(move |p, g| f(&mut o, p, g))
    }
    match name {
        "sgd" => boxed(Sgd::new(0.1), |o, p, g| o.step([p], g)),
        "sgd_momentum" => boxed(Sgd::new(0.1).momentum(0.9), |o, p, g| o.step([p], g)),
        "sgd_nesterov" => boxed(Sgd::new(0.05).momentum(0.8).nesterov(true), |o, p, g| {
            o.step([p], g)
        }),
        "sgd_dampening_weight_decay" => boxed(
            Sgd::new(0.1)
                .momentum(0.9)
                .dampening(0.3)
                .weight_decay(0.01),
            |o, p, g| o.step([p], g),
        ),
        "sgd_schedule" => boxed(
            Sgd::new(|step: usize| 0.1 * 0.5f64.powi(step as i32)),
            |o, p, g| o.step([p], g),
        ),
        "adam" => boxed(Adam::new(0.01), |o, p, g| o.step([p], g)),
        "adam_betas_eps_weight_decay" => boxed(
            Adam::new(0.02).betas(0.8, 0.95).eps(1e-6).weight_decay(0.1),
            |o, p, g| o.step([p], g),
        ),
        "adamw" => boxed(AdamW::new(0.01), |o, p, g| o.step([p], g)),
        "adamw_weight_decay_schedule" => boxed(
            AdamW::new(|step: usize| 0.03 / (1 + step) as f64).weight_decay(0.2),
            |o, p, g| o.step([p], g),
        ),
        other => panic!("unknown case {other}"),
    }
}

#[test]
fn trajectories_match_pytorch() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/optim/optim.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let grads: Vec<Tensor<f64>> = v["grads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| Tensor::from_vec(floats(g), shape.clone()).unwrap())
        .collect();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 9);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut step = optimiser(name);
        let mut p = Var::new(Tensor::from_vec(floats(&v["p0"]), shape.clone()).unwrap());
        for (t, (g, want)) in grads
            .iter()
            .zip(case["params"].as_array().unwrap())
            .enumerate()
        {
            // Σ p ⊙ g has gradient exactly g.
            let loss = (&p * &Var::constant(g.clone())).sum();
            let gr = loss.backward().unwrap();
            drop(loss);
            step(&mut p, &gr).unwrap();
            for (i, (a, b)) in p.value().to_vec().iter().zip(floats(want)).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                    "{name} step {t} [{i}]: {a} vs PyTorch {b}"
                );
            }
        }
    }
}

#[test]
fn parameters_held_by_a_live_graph_are_copied_not_lost() {
    let mut w = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2]).unwrap());
    let kept = &w * 3.0; // a graph that still reads w
    let grads = (&w * &w).sum().backward().unwrap();
    let before = w.view().as_ptr();
    Sgd::new(0.5).step([&mut w], &grads).unwrap();
    assert_ne!(
        w.view().as_ptr(),
        before,
        "w was shared: the step must copy"
    );
    assert_eq!(w.value().to_vec(), vec![0.0, 0.0]);
    assert_eq!(kept.value().to_vec(), vec![3.0, 6.0]); // the old graph keeps the old value
    // Identity is kept: the next backward's gradient finds w's optimiser state.
    let mut opt = Sgd::new(0.1).momentum(0.5);
    for _ in 0..2 {
        let g = (&w + 1.0).sum().backward().unwrap();
        opt.step([&mut w], &g).unwrap();
    }
    // buffer: 1, then 0.5 + 1 = 1.5; w: 0 − 0.1 − 0.15
    assert!((w.value().to_vec()[0] + 0.25).abs() < 1e-15);
    // With the graph dropped, the update writes in place.
    let g = (&w * 2.0).sum().backward().unwrap();
    let p = w.view().as_ptr();
    Sgd::new(0.1).step([&mut w], &g).unwrap();
    assert_eq!(w.view().as_ptr(), p);
}

#[test]
fn parameters_without_gradients_are_skipped() {
    let mut x = Var::new(Tensor::from_vec(vec![1.0f64], [1]).unwrap());
    let mut unused = Var::new(Tensor::from_vec(vec![5.0f64], [1]).unwrap());
    let mut y = &x * 2.0; // not a leaf: never in a Grads
    let g = y.sum().backward().unwrap();
    Adam::new(0.1)
        .step([&mut x, &mut unused, &mut y], &g)
        .unwrap();
    assert_eq!(unused.value().to_vec(), vec![5.0]);
    assert_eq!(y.value().to_vec(), vec![2.0]);
    assert!((x.value().to_vec()[0] - 0.9).abs() < 1e-8);
}

#[test]
fn large_parameters_update_in_parallel_chunks_like_small_ones() {
    // 300 000 elements take the multi-threaded path; compare with the same update on
    // one thread.
    let n = 300_000;
    let init = Tensor::<f32, _>::from_shape_fn([n], |i| (i[0] % 97) as f32 / 97.0 - 0.5);
    let run = |threads: usize| {
        ferrotensor::with_num_threads(threads, || {
            let mut w = Var::new(init.clone());
            let mut opt = AdamW::new(1e-2);
            for _ in 0..3 {
                let g = (&w * &w).sum().backward().unwrap();
                opt.step([&mut w], &g).unwrap();
            }
            w.value().to_vec()
        })
    };
    assert_eq!(run(1), run(2));
}
