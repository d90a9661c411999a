//! `ferrotensor::nn` against the NumPy reference implementations of
//! `tests/golden/gen_nn.py` (conv as explicit sums, PyTorch's pooling and interpolation
//! index rules, norms, softmax, linear), on contiguous and non-contiguous inputs.

use ferrotensor::nn;
use ferrotensor::prelude::*;
use ferrotensor::storage::Storage;
use serde_json::Value;

fn cases() -> Vec<Value> {
    crate::golden_file::cases("nn.json")
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
        .map(|d| T::from_f64(d.as_f64().unwrap()))
        .collect();
    Tensor::from_vec(data, shape).unwrap()
}

fn usizes<const N: usize>(v: &Value) -> [usize; N] {
    let a: Vec<usize> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    a.try_into().unwrap()
}

/// An optional parameter as the `nn` functions take it.
fn par<T: Float>(p: &Option<Tensor<T>>) -> Option<&dyn nn::Param<T>> {
    p.as_ref().map(|p| p as &dyn nn::Param<T>)
}

fn run<T: Float, S: Storage<Elem = T>>(c: &Value, x: &TensorBase<S, IxDyn>) -> Tensor<T> {
    let p = &c["params"];
    let inp = &c["inputs"];
    let opt = |k: &str| inp.get(k).map(|v| tensor::<T>(v));
    let b = opt("b");
    let w = opt("w");
    let op = c["op"].as_str().unwrap();
    match op {
        "conv2d" => {
            let args = nn::Conv2dArgs {
                stride: usizes(&p["stride"]),
                padding: usizes(&p["padding"]),
                dilation: usizes(&p["dilation"]),
                groups: p["groups"].as_u64().unwrap() as usize,
            };
            nn::conv2d(x, &tensor::<T>(&inp["w"]), par(&b), &args)
                .unwrap()
                .into_dyn()
        }
        "conv1d" => {
            let u = |k: &str| p[k].as_u64().unwrap() as usize;
            let args = nn::Conv1dArgs {
                stride: u("stride"),
                padding: u("padding"),
                dilation: u("dilation"),
                groups: u("groups"),
            };
            nn::conv1d(x, &tensor::<T>(&inp["w"]), par(&b), &args)
                .unwrap()
                .into_dyn()
        }
        "conv_transpose2d" => {
            let args = nn::ConvTranspose2dArgs {
                stride: usizes(&p["stride"]),
                padding: usizes(&p["padding"]),
                output_padding: usizes(&p["output_padding"]),
                dilation: usizes(&p["dilation"]),
                groups: p["groups"].as_u64().unwrap() as usize,
            };
            nn::conv_transpose2d(x, &tensor::<T>(&inp["w"]), par(&b), &args)
                .unwrap()
                .into_dyn()
        }
        "max_pool2d" | "avg_pool2d" => {
            let (k, s, pd) = (
                usizes(&p["kernel"]),
                usizes(&p["stride"]),
                usizes(&p["padding"]),
            );
            let y = if op == "max_pool2d" {
                nn::max_pool2d(x, k, s, pd)
            } else {
                nn::avg_pool2d(x, k, s, pd)
            };
            y.unwrap().into_dyn()
        }
        "adaptive_avg_pool2d" => nn::adaptive_avg_pool2d(x, usizes(&p["output_size"]))
            .unwrap()
            .into_dyn(),
        "upsample" => {
            let size: nn::Resize = match p.get("size") {
                Some(s) => usizes::<2>(s).into(),
                None => {
                    let s: Vec<f64> = p["scale"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_f64().unwrap())
                        .collect();
                    [s[0], s[1]].into()
                }
            };
            let y = if p["mode"] == "nearest" {
                nn::upsample_nearest2d(x, size)
            } else {
                nn::upsample_bilinear2d(x, size, p["align_corners"].as_bool().unwrap())
            };
            y.unwrap().into_dyn()
        }
        "layer_norm" | "rms_norm" => {
            let ns: Vec<usize> = p["normalized_shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            let eps = p["eps"].as_f64().unwrap();
            if op == "layer_norm" {
                nn::layer_norm(x, &ns, par(&w), par(&b), eps).unwrap()
            } else {
                nn::rms_norm(x, &ns, par(&w), eps).unwrap()
            }
        }
        "batch_norm" => nn::batch_norm(
            x,
            &opt("mean").unwrap(),
            &opt("var").unwrap(),
            par(&w),
            par(&b),
            p["eps"].as_f64().unwrap(),
        )
        .unwrap(),
        "softmax" => nn::softmax(x, p["axis"].as_i64().unwrap() as isize).unwrap(),
        "log_softmax" => nn::log_softmax(x, p["axis"].as_i64().unwrap() as isize).unwrap(),
        "linear" => nn::linear(x, &tensor::<T>(&inp["w"]), par(&b)).unwrap(),
        other => panic!("unknown op {other}"),
    }
}

fn check<T: Float>(c: &Value, idx: usize, tol: f64, strided_input: bool) {
    let x = tensor::<T>(&c["inputs"]["x"]);
    let got = if strided_input {
        // The same values in a non-contiguous layout: the transpose's memory, transposed back.
        let moved = x.t().to_owned();
        let v = moved.t();
        assert!(x.shape().iter().filter(|&&d| d > 1).count() < 2 || !v.is_contiguous());
        assert_eq!(v.to_vec(), x.to_vec());
        run(c, &v)
    } else {
        run(c, &x)
    };
    let want = tensor::<f64>(&c["expected"]);
    assert_eq!(got.shape(), want.shape(), "case {idx} ({}) shape", c["op"]);
    for (k, (g, w)) in got.iter().zip(want.iter()).enumerate() {
        let g = Float::to_f64(*g);
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "case {idx} ({}, {}), element {k}: got {g}, want {w}",
            c["op"],
            c["params"]
        );
    }
}

#[test]
fn golden_cases_contiguous_and_strided() {
    let cs = cases();
    assert!(cs.len() >= 45);
    for (i, c) in cs.iter().enumerate() {
        for strided_input in [false, true] {
            match c["dtype"].as_str().unwrap() {
                "float64" => check::<f64>(c, i, 1e-10, strided_input),
                "float32" => check::<f32>(c, i, 2e-5, strided_input),
                d => panic!("dtype {d}"),
            }
        }
    }
}

#[test]
fn golden_cases_in_half_precision_through_f32() {
    // f16/bf16 compute through f32; results agree with the reference to their precision.
    for (i, c) in cases().iter().enumerate() {
        let op = c["op"].as_str().unwrap();
        if matches!(
            op,
            "conv2d" | "max_pool2d" | "avg_pool2d" | "softmax" | "linear"
        ) {
            check::<half::f16>(c, i, 3e-2, false);
        }
    }
}

#[test]
fn golden_cases_single_threaded_agree() {
    for (i, c) in cases()
        .iter()
        .enumerate()
        .filter(|(_, c)| c["op"] == "conv2d" && c["dtype"] == "float64")
    {
        ferrotensor::with_num_threads(1, || check::<f64>(c, i, 1e-10, false));
    }
}
