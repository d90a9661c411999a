//! Pooling against PyTorch's CPU kernels (`tests/golden/gen_nn_pool.py`): max pooling
//! with indices, average pooling (padding counted or not, ceil mode, divisor override),
//! adaptive and global average pooling; NaN and −∞ inputs; f32 and f64; contiguous,
//! flipped and single-threaded runs.

use ferrotensor::nn::{self, AvgPool2dArgs, MaxPool2dArgs};
use ferrotensor::prelude::*;
use serde_json::Value;

fn cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/nn_pool.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn value(d: &Value) -> f64 {
    match d.as_str() {
        Some("nan") => f64::NAN,
        Some("inf") => f64::INFINITY,
        Some("-inf") => f64::NEG_INFINITY,
        Some(other) => panic!("unknown value {other}"),
        None => d.as_f64().unwrap(),
    }
}

fn tensor<T: Float>(v: &Value) -> Tensor<T> {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let data: Vec<T> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| T::from_f64(value(d)))
        .collect();
    Tensor::from_vec(data, shape).unwrap()
}

fn pair(v: &Value) -> [usize; 2] {
    [
        v[0].as_u64().unwrap() as usize,
        v[1].as_u64().unwrap() as usize,
    ]
}

/// The op of case `c` on `x`: the values and, for max pooling, the indices.
fn run<T: Float>(c: &Value, x: &TensorView<'_, T, IxDyn>) -> (Tensor<T>, Option<Vec<i64>>) {
    let p = &c["params"];
    match c["op"].as_str().unwrap() {
        "max_pool2d" => {
            let a = MaxPool2dArgs {
                kernel: pair(&p["kernel"]),
                stride: pair(&p["stride"]),
                padding: pair(&p["padding"]),
                dilation: pair(&p["dilation"]),
                ceil_mode: p["ceil_mode"].as_bool().unwrap(),
            };
            let y = nn::max_pool2d_with(x, &a).unwrap();
            let (y2, i) = nn::max_pool2d_with_indices(x, &a).unwrap();
            // Both entry points give the same values (bit for bit, NaN included).
            let bits = |t: &Tensor<T>| {
                t.to_vec()
                    .iter()
                    .map(|v| <T as Float>::to_f64(*v).to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&y), bits(&y2));
            (y, Some(i.to_vec()))
        }
        "avg_pool2d" => {
            let a = AvgPool2dArgs {
                kernel: pair(&p["kernel"]),
                stride: pair(&p["stride"]),
                padding: pair(&p["padding"]),
                ceil_mode: p["ceil_mode"].as_bool().unwrap(),
                count_include_pad: p["count_include_pad"].as_bool().unwrap(),
                divisor_override: p["divisor_override"].as_u64().map(|d| d as usize),
            };
            (nn::avg_pool2d_with(x, &a).unwrap(), None)
        }
        "adaptive_avg_pool2d" => {
            let out = pair(&p["output_size"]);
            let y = nn::adaptive_avg_pool2d(x, out).unwrap();
            if out == [1, 1] {
                let g = nn::global_avg_pool2d(x).unwrap();
                let (a, b) = (y.to_vec(), g.to_vec());
                let tol = if size_of::<T>() == 4 { 1e-6 } else { 1e-14 };
                for (u, v) in a.iter().zip(&b) {
                    let (u, v) = (<T as Float>::to_f64(*u), <T as Float>::to_f64(*v));
                    assert!(
                        u.is_nan() && v.is_nan() || (u - v).abs() <= tol * (1.0 + v.abs()),
                        "global {v} vs adaptive {u}"
                    );
                }
            }
            (y, None)
        }
        other => panic!("unknown op {other}"),
    }
}

fn check<T: Float>(c: &Value, idx: usize, flipped: bool) {
    let x = tensor::<T>(&c["x"]);
    let want = tensor::<T>(&c["expected"]);
    let (got, indices) = if flipped {
        // The same values in a reversed-memory layout: flip the columns twice.
        let rev = x.slice(s![.., .., .., ..;-1]).to_owned();
        let v = rev.slice(s![.., .., .., ..;-1]);
        assert!(!v.is_contiguous());
        run(c, &v)
    } else {
        run(c, &x.view())
    };
    let what = format!(
        "case {idx} ({}, {}, flipped {flipped})",
        c["op"], c["dtype"]
    );
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let tol = if size_of::<T>() == 4 { 2e-6 } else { 1e-13 };
    for (k, (g, w)) in got.to_vec().iter().zip(want.to_vec()).enumerate() {
        let (g, w) = (<T as Float>::to_f64(*g), <T as Float>::to_f64(w));
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= tol * (1.0 + w.abs())
        };
        assert!(ok, "{what}: element {k}: got {g}, PyTorch {w}");
    }
    if let (Some(i), Some(want)) = (indices, c.get("indices")) {
        let want: Vec<i64> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(i, want, "{what}: indices");
    }
}

#[test]
fn pooling_matches_pytorch_contiguous_and_flipped() {
    let cs = cases();
    assert!(cs.len() >= 30);
    for (i, c) in cs.iter().enumerate() {
        for flipped in [false, true] {
            match c["dtype"].as_str().unwrap() {
                "float64" => check::<f64>(c, i, flipped),
                _ => check::<f32>(c, i, flipped),
            }
        }
    }
}

#[test]
fn pooling_matches_pytorch_single_threaded() {
    let before = ferrotensor::num_threads();
    ferrotensor::set_num_threads(1);
    for (i, c) in cases().iter().enumerate() {
        match c["dtype"].as_str().unwrap() {
            "float64" => check::<f64>(c, i, false),
            _ => check::<f32>(c, i, false),
        }
    }
    ferrotensor::set_num_threads(before);
}
