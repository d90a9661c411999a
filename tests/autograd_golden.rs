//! Compositions — an MLP with softmax cross-entropy, conv → pool → linear (two
//! variants), attention `softmax(q·kᵀ/√d)·v` and a transformer block — against the
//! gradients JAX computes (`tests/golden/autograd/gen_autograd.py`, float64) and against
//! central finite differences.

mod autograd_support;

use autograd_support::gradcheck;
use ferrotensor::autograd::{self, Var};
use ferrotensor::nn::Conv2dArgs;
use ferrotensor::prelude::*;
use serde_json::Value;

type Composition = fn(&[Var<f64>], &Tensor<i64>) -> Result<Var<f64>>;

/// Input names of each case, in the order the composition reads them.
fn case(name: &str) -> (&'static [&'static str], Composition) {
    match name {
        "mlp_softmax_cross_entropy" => (&["x", "w1", "b1", "w2", "b2", "w3", "b3"], mlp),
        "conv_relu_maxpool_linear" => (&["x", "wc", "bc", "wl", "bl"], conv_max_linear),
        "conv_groups_silu_avgpool_linear" => (&["x", "wc", "bc", "wl", "bl"], conv_avg_linear),
        "attention_softmax_qk_v" => (&["q", "k", "v", "r"], attention),
        "transformer_block" => (
            &["x", "ln_w", "ln_b", "wq", "wk", "wv", "wo", "w1", "w2"],
            block,
        ),
        other => panic!("unknown golden case {other}"),
    }
}

fn mlp(p: &[Var<f64>], labels: &Tensor<i64>) -> Result<Var<f64>> {
    let h = (&p[0].matmul(&p[1])? + &p[2]).relu();
    let h = (&h.matmul(&p[3])? + &p[4]).tanh();
    autograd::cross_entropy(&(&h.matmul(&p[5])? + &p[6]), labels)
}

fn flatten(h: &Var<f64>) -> Result<Var<f64>> {
    let n = h.shape()[0];
    h.reshape(vec![n, h.size() / n.max(1)])
}

fn conv_max_linear(p: &[Var<f64>], labels: &Tensor<i64>) -> Result<Var<f64>> {
    let args = Conv2dArgs {
        padding: [1, 1],
        ..Default::default()
    };
    let h = autograd::conv2d(&p[0], &p[1], Some(&p[2]), &args)?.relu();
    let h = autograd::max_pool2d(&h, [2, 2], [2, 2], [0, 0])?;
    autograd::cross_entropy(
        &autograd::linear(&flatten(&h)?, &p[3], Some(&p[4]))?,
        labels,
    )
}

fn conv_avg_linear(p: &[Var<f64>], labels: &Tensor<i64>) -> Result<Var<f64>> {
    let args = Conv2dArgs {
        stride: [2, 1],
        padding: [1, 2],
        dilation: [1, 2],
        groups: 2,
    };
    let h = autograd::conv2d(&p[0], &p[1], Some(&p[2]), &args)?.silu();
    let h = autograd::avg_pool2d(&h, [2, 2], [1, 2], [0, 0])?;
    autograd::cross_entropy(
        &autograd::linear(&flatten(&h)?, &p[3], Some(&p[4]))?,
        labels,
    )
}

fn attend(q: &Var<f64>, k: &Var<f64>, v: &Var<f64>) -> Result<Var<f64>> {
    let d = *q.shape().last().expect("q has axes") as f64;
    let scores = &q.matmul(&k.permute(&[0, 2, 1])?)? / d.sqrt();
    autograd::softmax(&scores, -1)?.matmul(v)
}

fn attention(p: &[Var<f64>], _: &Tensor<i64>) -> Result<Var<f64>> {
    Ok((&attend(&p[0], &p[1], &p[2])? * &p[3]).sum())
}

fn block(p: &[Var<f64>], _: &Tensor<i64>) -> Result<Var<f64>> {
    let x = &p[0];
    let h = autograd::layer_norm(x, &[8], Some(&p[1]), Some(&p[2]), 1e-5)?;
    let a = attend(&h.matmul(&p[3])?, &h.matmul(&p[4])?, &h.matmul(&p[5])?)?;
    let y = x + &a.matmul(&p[6])?;
    let z = &y.matmul(&p[7])?.gelu().matmul(&p[8])? + &y;
    Ok(z.square().mean())
}

fn tensor(v: &Value) -> Tensor<f64> {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dim") as usize)
        .collect();
    let data: Vec<f64> = v["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|x| x.as_f64().expect("f64"))
        .collect();
    Tensor::from_vec(data, shape).expect("shape and data agree")
}

/// The case's class labels (empty for the cases without a classification loss).
fn labels(c: &Value) -> Tensor<i64> {
    let l: Vec<i64> = c["labels"]
        .as_array()
        .expect("labels")
        .iter()
        .map(|l| l.as_i64().expect("i64"))
        .collect();
    Tensor::from_vec(l.clone(), [l.len()])
        .expect("1-D")
        .into_dyn()
}

fn golden() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/autograd/autograd.json"
    );
    let text = std::fs::read_to_string(path).expect("golden file");
    let v: Value = serde_json::from_str(&text).expect("JSON");
    v["cases"].as_array().expect("cases").clone()
}

fn close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let err = (g - w).abs() / w.abs().max(1e-3);
        assert!(
            err < 1e-10,
            "{what}[{i}]: ferrotensor {g}, JAX {w} (rel. error {err:e})"
        );
    }
}

#[test]
fn compositions_match_jax() {
    let cases = golden();
    assert_eq!(cases.len(), 5);
    for c in &cases {
        let name = c["name"].as_str().expect("name");
        let (names, f) = case(name);
        let labels = labels(c);
        let vars: Vec<Var<f64>> = names
            .iter()
            .map(|n| Var::new(tensor(&c["inputs"][*n])))
            .collect();
        let loss = f(&vars, &labels).unwrap();
        close(
            &[loss.value().to_scalar().unwrap()],
            &[c["loss"].as_f64().unwrap()],
            &format!("{name} loss"),
        );
        let grads = loss.backward().unwrap();
        for (n, v) in names.iter().zip(&vars) {
            let want = tensor(&c["grads"][*n]);
            let got = grads
                .get(v)
                .unwrap_or_else(|| panic!("{name}: no gradient for {n}"));
            assert_eq!(got.shape(), want.shape(), "{name}: {n}");
            close(&got.to_vec(), &want.to_vec(), &format!("{name} ∂/∂{n}"));
        }
    }
}

#[test]
fn compositions_match_finite_differences() {
    for c in &golden() {
        let name = c["name"].as_str().expect("name");
        let (names, f) = case(name);
        let labels = labels(c);
        let inputs: Vec<Tensor<f64>> = names.iter().map(|n| tensor(&c["inputs"][*n])).collect();
        gradcheck(name, &inputs, |v| f(v, &labels));
    }
}
