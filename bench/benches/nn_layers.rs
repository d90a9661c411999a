//! `group_norm` and `scaled_dot_product_attention` (f32) against NumPy compositions
//! (`bench/py/nn_layers.py`) and candle (candle-nn's `GroupNorm`; matmul, softmax,
//! matmul for attention), medians of at least 8 runs each (after a warm-up), same inputs.
//!
//! `cargo bench -p ferrotensor-bench --bench nn_layers` (`FT_BENCH_FILTER=sdpa` or
//! `group_norm` selects one).

use candle_core::{Device, Tensor as CTensor};
use candle_nn::Module;
use ferrotensor::nn;
use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, cpu_line, numpy_times, selected, time_median};

/// Seconds of timing per library and case: ≥ 8 runs for anything under 125 ms.
const BUDGET: f64 = 1.0;

fn median(f: impl FnMut()) -> f64 {
    time_median(BUDGET, f)
}

/// `((i·a + b) mod 17)·0.1 − 0.8` over the flat index, as the NumPy side builds it.
fn pattern(shape: &[usize], a: usize, b: usize) -> Tensor<f32, IxDyn> {
    let n: usize = shape.iter().product();
    let v = (0..n)
        .map(|i| ((i * a + b) % 17) as f32 * 0.1 - 0.8)
        .collect();
    Tensor::from_vec(v, shape.to_vec()).unwrap()
}

fn candle(x: &Tensor<f32, IxDyn>) -> CTensor {
    CTensor::from_slice(x.as_slice().unwrap(), x.shape(), &Device::Cpu).unwrap()
}

fn max_diff(a: &Tensor<f32, IxDyn>, c: &CTensor) -> f32 {
    let cv: Vec<f32> = c.flatten_all().unwrap().to_vec1().unwrap();
    a.iter()
        .zip(&cv)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn main() {
    println!("{}", cpu_line());
    let np = numpy_times("nn_layers.py");
    let mut t = Table::default();
    if selected("group_norm") {
        let (n, c, h, w, g) = (16, 128, 64, 64, 32);
        let x = pattern(&[n, c, h, w], 7, 3);
        let wt = pattern(&[c], 5, 1).mapv(|v| v + 1.0);
        let b = pattern(&[c], 3, 2);
        let y = nn::group_norm(&x, g, Some(&wt), Some(&b), 1e-5).unwrap();
        let ours = median(|| {
            std::hint::black_box(nn::group_norm(&x, g, Some(&wt), Some(&b), 1e-5).unwrap());
        });
        let gn = candle_nn::GroupNorm::new(candle(&wt), candle(&b), c, g, 1e-5).unwrap();
        let cx = candle(&x);
        let d = max_diff(&y, &gn.forward(&cx).unwrap());
        assert!(d < 1e-3, "candle group_norm differs by {d}");
        let cand = median(|| {
            std::hint::black_box(gn.forward(&cx).unwrap());
        });
        t.add(
            "group_norm f32 (16,128,64,64) 32 groups, affine",
            ours,
            vec![
                ("candle", Some(cand)),
                ("numpy", np.get("group_norm").copied()),
            ],
            format!(
                "{:.1} GB/s (read + write)",
                2.0 * (x.size() * 4) as f64 / ours / 1e9
            ),
        );
    }
    if selected("sdpa") {
        let (b, hd, l, e) = (8, 8, 512, 64);
        let q = pattern(&[b, hd, l, e], 7, 1);
        let k = pattern(&[b, hd, l, e], 5, 2);
        let v = pattern(&[b, hd, l, e], 3, 4);
        let y = nn::scaled_dot_product_attention(&q, &k, &v, None, false, None).unwrap();
        let ours = median(|| {
            std::hint::black_box(
                nn::scaled_dot_product_attention(&q, &k, &v, None, false, None).unwrap(),
            );
        });
        let (cq, ck, cv) = (candle(&q), candle(&k), candle(&v));
        let scale = 1.0 / (e as f64).sqrt();
        let csdpa = || {
            let kt = ck.t().unwrap().contiguous().unwrap();
            let s = (cq.matmul(&kt).unwrap() * scale).unwrap();
            let p = candle_nn::ops::softmax_last_dim(&s).unwrap();
            p.matmul(&cv).unwrap()
        };
        let d = max_diff(&y, &csdpa());
        assert!(d < 1e-4, "candle attention differs by {d}");
        let cand = median(|| {
            std::hint::black_box(csdpa());
        });
        let flops = 4.0 * (b * hd * l * l * e) as f64;
        t.add(
            "sdpa f32 (8,8,512,64) no mask",
            ours,
            vec![("candle", Some(cand)), ("numpy", np.get("sdpa").copied())],
            format!("{:.1} GFLOP/s", flops / ours / 1e9),
        );
    }
    t.print("nn layers, f32, medians");
}
