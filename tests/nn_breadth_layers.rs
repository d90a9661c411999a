//! The `nn` breadth layers of issue 21 against PyTorch's own outputs
//! (`tests/golden/nn_breadth_layers/gen.py`, which needs torch): every case in f32 and
//! f64 on a contiguous input, a transposed-memory (strided) view and a flipped
//! (negative-stride) view of the same values; plus the error cases, each `Err` naming
//! the operation and the shapes.

use crate::golden_file::{cases, float, floats, i64s, usizes};
use ferrotensor::nn::{self, AttnMask, GridPadding, GridSampleMode, InterpolateMode};
use ferrotensor::prelude::*;
use ferrotensor::storage::Storage;
use serde_json::Value;

fn tensor<T: Float>(v: &Value) -> Tensor<T> {
    let data = floats(&v["data"]).into_iter().map(T::from_f64).collect();
    Tensor::from_vec(data, usizes(&v["shape"])).unwrap()
}

fn ints(v: &Value) -> Tensor<i64> {
    Tensor::from_vec(i64s(&v["data"]), usizes(&v["shape"])).unwrap()
}

fn par<T: Float>(p: &Option<Tensor<T>>) -> Option<&dyn nn::Param<T>> {
    p.as_ref().map(|p| p as &dyn nn::Param<T>)
}

/// Runs case `c` with `x` (its main input, in some layout); the result as f64.
fn run<T: Float, S: Storage<Elem = T>>(c: &Value, x: &TensorBase<S, IxDyn>) -> Tensor<f64> {
    let p = &c["params"];
    let inp = &c["inputs"];
    let opt = |k: &str| inp.get(k).map(|v| tensor::<T>(v));
    let f = |k: &str| p[k].as_f64().unwrap();
    let b = |k: &str| p[k].as_bool().unwrap();
    let op = c["op"].as_str().unwrap();
    let y: Tensor<T> = match op {
        "selu" => nn::selu(x),
        "mish" => nn::mish(x),
        "softsign" => nn::softsign(x),
        "tanhshrink" => nn::tanhshrink(x),
        "log_sigmoid" => nn::log_sigmoid(x),
        "celu" => nn::celu(x, f("alpha")).unwrap(),
        "softplus" => nn::softplus(x, f("beta"), f("threshold")),
        "threshold" => nn::threshold(x, f("threshold"), f("value")),
        "hardtanh" => nn::hardtanh(x, f("min"), f("max")),
        "hardshrink" => nn::hardshrink(x, f("lambda")),
        "softshrink" => nn::softshrink(x, f("lambda")).unwrap(),
        "softmin" => nn::softmin(x, p["axis"].as_i64().unwrap() as isize).unwrap(),
        "glu" => nn::glu(x, p["axis"].as_i64().unwrap() as isize).unwrap(),
        "prelu" => nn::prelu(x, &opt("w").unwrap()).unwrap(),
        "group_norm" => nn::group_norm(
            x,
            p["groups"].as_u64().unwrap() as usize,
            par(&opt("w")),
            par(&opt("b")),
            f("eps"),
        )
        .unwrap(),
        "instance_norm" => nn::instance_norm(
            x,
            par(&opt("rm")),
            par(&opt("rv")),
            par(&opt("w")),
            par(&opt("b")),
            b("use_input_stats"),
            f("eps"),
        )
        .unwrap(),
        "sdpa" => {
            let (k, v) = (opt("k").unwrap(), opt("v").unwrap());
            let bm = inp.get("bool_mask").map(|m| ints(m).mapv(|v| v != 0));
            let am = opt("add_mask");
            let mask = match (&bm, &am) {
                (Some(m), _) => Some(AttnMask::boolean(m)),
                (_, Some(m)) => Some(AttnMask::additive(m)),
                _ => None,
            };
            let scale = p.get("scale").map(|s| s.as_f64().unwrap());
            nn::scaled_dot_product_attention(x, &k, &v, mask, b("causal"), scale).unwrap()
        }
        "interpolate" => {
            let mode = match p["mode"].as_str().unwrap() {
                "bicubic" => InterpolateMode::Bicubic,
                _ => InterpolateMode::Bilinear,
            };
            let size: nn::Resize = match p.get("size") {
                Some(s) => <[usize; 2]>::try_from(usizes(s)).unwrap().into(),
                None => <[f64; 2]>::try_from(floats(&p["scale"])).unwrap().into(),
            };
            nn::interpolate(x, size, mode, b("align"), b("antialias")).unwrap()
        }
        "grid_sample" => {
            let mode = match p["mode"].as_str().unwrap() {
                "nearest" => GridSampleMode::Nearest,
                _ => GridSampleMode::Bilinear,
            };
            let pad = match p["padding"].as_str().unwrap() {
                "zeros" => GridPadding::Zeros,
                "border" => GridPadding::Border,
                _ => GridPadding::Reflection,
            };
            nn::grid_sample(x, &opt("grid").unwrap(), mode, pad, b("align")).unwrap()
        }
        "affine_grid" => nn::affine_grid(x, &usizes(&p["size"]), b("align")).unwrap(),
        other => panic!("unknown op {other}"),
    };
    y.mapv(|v| Float::to_f64(v))
}

/// The main input of a case: `q` for attention, `theta` for affine_grid, else `x`.
fn main_input(c: &Value) -> &Value {
    let inp = &c["inputs"];
    inp.get("x").or(inp.get("q")).or(inp.get("theta")).unwrap()
}

fn compare(c: &Value, i: usize, layout: &str, got: &Tensor<f64>, tol: f64) {
    let want = &c["expected"];
    assert_eq!(
        got.shape(),
        usizes(&want["shape"]).as_slice(),
        "case {i} ({}) shape",
        c["op"]
    );
    for (k, (g, w)) in got.iter().zip(want["data"].as_array().unwrap()).enumerate() {
        let w = float(w);
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            *g == w
        } else {
            (g - w).abs() <= tol * (1.0 + w.abs())
        };
        assert!(
            ok,
            "case {i} ({} {} {layout}), element {k}: got {g}, want {w}",
            c["op"], c["params"]
        );
    }
}

/// The elements' bit patterns (equal views compare equal even with NaN).
fn bits<T: Float, S: Storage<Elem = T>>(x: &TensorBase<S, IxDyn>) -> Vec<u64> {
    x.iter().map(|v| Float::to_f64(*v).to_bits()).collect()
}

fn check<T: Float>(c: &Value, i: usize, tol: f64) {
    let x = tensor::<T>(main_input(c));
    compare(c, i, "contiguous", &run(c, &x), tol);
    let moved = x.t().to_owned();
    let strided = moved.t();
    assert_eq!(bits(&strided), bits(&x));
    compare(c, i, "strided", &run(c, &strided), tol);
    if x.ndim() > 0 {
        let flipped_mem = x.flip(-1).unwrap().to_owned();
        let flipped = flipped_mem.flip(-1).unwrap();
        assert_eq!(bits(&flipped), bits(&x));
        compare(c, i, "flipped", &run(c, &flipped), tol);
    }
}

fn float_cases() -> Vec<Value> {
    cases("nn_breadth_layers/cases.json")
}

#[test]
fn golden_float_cases_in_every_layout() {
    let cs = float_cases();
    let mut ran = 0;
    for (i, c) in cs.iter().enumerate() {
        let op = c["op"].as_str().unwrap();
        if matches!(op, "embedding" | "one_hot") {
            continue;
        }
        // f32: PyTorch computes in f32 with its own summation orders.
        let tol32 = if op == "sdpa" { 2e-5 } else { 1e-5 };
        match c["dtype"].as_str().unwrap() {
            "float64" => check::<f64>(c, i, 1e-12),
            "float32" => check::<f32>(c, i, tol32),
            d => panic!("dtype {d}"),
        }
        ran += 1;
    }
    assert!(ran >= 170, "only {ran} float cases");
}

#[test]
fn golden_embedding_and_one_hot() {
    let mut ran = 0;
    for (i, c) in float_cases().iter().enumerate() {
        let inp = &c["inputs"];
        let got: Tensor<f64> = match c["op"].as_str().unwrap() {
            "embedding" => {
                let idx = ints(&inp["idx"]);
                let pad = c["params"]
                    .get("padding_idx")
                    .map(|p| p.as_i64().unwrap() as isize);
                let w64 = tensor::<f64>(&inp["w"]);
                let y64 = nn::embedding(&idx, &w64, pad).unwrap();
                // Through a flipped view of the table and a strided index view, too.
                let wf = w64.flip(0).unwrap().to_owned();
                let yf = nn::embedding(&idx.t().to_owned().t(), &wf.flip(0).unwrap(), pad).unwrap();
                assert_eq!(yf.to_vec(), y64.to_vec());
                let y32 = nn::embedding(&idx, &tensor::<f32>(&inp["w"]), pad).unwrap();
                assert_eq!(y32.to_vec(), y64.mapv(|v| v as f32).to_vec());
                y64
            }
            "one_hot" => {
                let idx = ints(&inp["idx"]);
                let k = c["params"]["num_classes"].as_u64().map(|k| k as usize);
                nn::one_hot(&idx, k).unwrap().mapv(|v| v as f64)
            }
            _ => continue,
        };
        compare(c, i, "contiguous", &got, 0.0);
        ran += 1;
    }
    assert_eq!(ran, 8);
}

/// `f` must fail, with a message naming `op` and containing every one of `parts`.
fn err_names<R: std::fmt::Debug>(r: ferrotensor::Result<R>, op: &str, parts: &[&str]) {
    let e = r.expect_err("expected an error").to_string();
    assert!(e.contains(op), "{e:?} does not name {op}");
    for p in parts {
        assert!(e.contains(p), "{e:?} does not contain {p:?}");
    }
}

#[test]
fn errors_name_operation_and_shapes() {
    let x = Tensor::<f32, _>::ones([2, 3, 4]);
    err_names(nn::glu(&x, 1), "glu", &["(2, 3, 4)"]);
    err_names(nn::glu(&x, 3), "glu", &["(2, 3, 4)"]);
    err_names(
        nn::prelu(&x, &Tensor::<f32, _>::ones([2])),
        "prelu",
        &["(2,)", "(2, 3, 4)"],
    );
    err_names(nn::softmin(&x, -4), "softmin", &["(2, 3, 4)"]);
    err_names(nn::softshrink(&x, -0.5), "softshrink", &["(2, 3, 4)"]);
    err_names(nn::celu(&x, 0.0), "celu", &["(2, 3, 4)"]);
    err_names(
        nn::group_norm(&x, 2, None, None, 1e-5),
        "group_norm",
        &["(2, 3, 4)"],
    );
    err_names(
        nn::group_norm(&x, 0, None, None, 1e-5),
        "group_norm",
        &["(2, 3, 4)"],
    );
    let w2 = Tensor::<f32, _>::ones([2]);
    err_names(
        nn::group_norm(&x, 3, Some(&w2), None, 1e-5),
        "group_norm",
        &["(2,)", "(2, 3, 4)"],
    );
    err_names(
        nn::group_norm(&Tensor::<f32, _>::ones([3]), 1, None, None, 1e-5),
        "group_norm",
        &["(3,)"],
    );
    err_names(
        nn::instance_norm(&x, None, None, None, None, false, 1e-5),
        "instance_norm",
        &["(2, 3, 4)"],
    );
    err_names(
        nn::instance_norm(&x, Some(&w2), Some(&w2), None, None, false, 1e-5),
        "instance_norm",
        &["(2,)", "(2, 3, 4)"],
    );
    let table = Tensor::<f32, _>::ones([5, 2]);
    let bad = Tensor::from_vec(vec![0i64, 5], [2]).unwrap();
    err_names(
        nn::embedding(&bad, &table, None),
        "embedding",
        &["5", "(2,)", "(5, 2)"],
    );
    let neg = Tensor::from_vec(vec![-1i64], [1]).unwrap();
    err_names(nn::embedding(&neg, &table, None), "embedding", &["-1"]);
    let ok = Tensor::from_vec(vec![1i64], [1]).unwrap();
    err_names(
        nn::embedding(&ok, &table, Some(5)),
        "embedding",
        &["padding_idx"],
    );
    err_names(
        nn::embedding(&ok, &Tensor::<f32, _>::ones([5]), None),
        "embedding",
        &["(5,)"],
    );
    err_names(nn::one_hot(&neg, None), "one_hot", &["(1,)"]);
    err_names(nn::one_hot(&bad, Some(5)), "one_hot", &["5", "(2,)"]);
    err_names(
        nn::one_hot(&Tensor::<i64, _>::zeros([0]), None),
        "one_hot",
        &["(0,)"],
    );

    let q = Tensor::<f32, _>::ones([2, 3, 4]);
    let k = Tensor::<f32, _>::ones([2, 5, 4]);
    let v = Tensor::<f32, _>::ones([2, 5, 6]);
    let sdpa = "scaled_dot_product_attention";
    err_names(
        nn::scaled_dot_product_attention(
            &q,
            &Tensor::<f32, _>::ones([2, 5, 3]),
            &v,
            None,
            false,
            None,
        ),
        sdpa,
        &["(2, 3, 4)", "(2, 5, 3)"],
    );
    err_names(
        nn::scaled_dot_product_attention(
            &q,
            &k,
            &Tensor::<f32, _>::ones([2, 4, 6]),
            None,
            false,
            None,
        ),
        sdpa,
        &["(2, 4, 6)"],
    );
    err_names(
        nn::scaled_dot_product_attention(
            &q,
            &Tensor::<f32, _>::ones([3, 5, 4]),
            &v,
            None,
            false,
            None,
        ),
        sdpa,
        &["(3, 5, 4)"],
    );
    let m = Tensor::full([4, 5], true);
    err_names(
        nn::scaled_dot_product_attention(&q, &k, &v, Some(AttnMask::boolean(&m)), false, None),
        sdpa,
        &["(4, 5)", "(2, 3, 4)"],
    );
    let m = Tensor::full([3, 5], true);
    err_names(
        nn::scaled_dot_product_attention(&q, &k, &v, Some(AttnMask::boolean(&m)), true, None),
        sdpa,
        &["is_causal"],
    );

    let img = Tensor::<f64, _>::ones([1, 2, 4, 4]);
    err_names(
        nn::interpolate(
            &Tensor::<f64, _>::ones([2, 4, 4]),
            [2usize, 2],
            InterpolateMode::Bicubic,
            false,
            false,
        ),
        "interpolate",
        &["(2, 4, 4)"],
    );
    err_names(
        nn::interpolate(&img, [0usize, 2], InterpolateMode::Bicubic, false, false),
        "interpolate",
        &["(1, 2, 4, 4)"],
    );
    err_names(
        nn::interpolate(&img, [-1.0, 2.0], InterpolateMode::Bilinear, false, true),
        "interpolate",
        &["(1, 2, 4, 4)"],
    );
    err_names(
        nn::interpolate(&img, [2usize, 2], InterpolateMode::Nearest, true, false),
        "interpolate",
        &["(1, 2, 4, 4)"],
    );
    let g = Tensor::<f64, _>::zeros([2, 3, 3, 2]);
    err_names(
        nn::grid_sample(
            &img,
            &g,
            GridSampleMode::Bilinear,
            GridPadding::Zeros,
            false,
        ),
        "grid_sample",
        &["(2, 3, 3, 2)", "(1, 2, 4, 4)"],
    );
    let g = Tensor::<f64, _>::zeros([1, 3, 3, 3]);
    err_names(
        nn::grid_sample(
            &img,
            &g,
            GridSampleMode::Nearest,
            GridPadding::Border,
            false,
        ),
        "grid_sample",
        &["(1, 3, 3, 3)"],
    );
    let th = Tensor::<f64, _>::zeros([1, 2, 3]);
    err_names(
        nn::affine_grid(&th, &[2, 1, 4, 4], false),
        "affine_grid",
        &["(1, 2, 3)", "(2, 1, 4, 4)"],
    );
    err_names(
        nn::affine_grid(&th, &[1, 1, 4, 4, 4], false),
        "affine_grid",
        &["(1, 2, 3)"],
    );
}

#[test]
fn activations_keep_the_rank_type_and_half_precision_goes_through_f32() {
    let x =
        Tensor::<half::f16, _>::from_shape_fn([2, 3], |i| half::f16::from_f32(i[1] as f32 - 1.0));
    let y: Tensor<half::f16, Ix2> = nn::mish(&x);
    let want = nn::mish(&x.mapv(|v| v.to_f32()));
    for (a, b) in y.iter().zip(want.iter()) {
        assert!((a.to_f32() - b).abs() < 2e-3);
    }
    let g: Tensor<half::f16, Ix2> =
        nn::glu(&x.slice(s![.., ..2]).into_dim::<Ix2>().unwrap(), 1).unwrap();
    assert_eq!(g.shape(), &[2, 1]);
}

#[test]
fn attention_matches_a_plain_composition_on_a_larger_case() {
    // Several row blocks per batch matrix (L = 300 > one block for S = 200).
    let (b, l, s, e) = (2, 300, 200, 16);
    let q = Tensor::<f64, _>::from_shape_fn([b, l, e], |i| {
        ((i[0] * 7 + i[1] * 3 + i[2]) % 11) as f64 * 0.1 - 0.5
    });
    let k = Tensor::<f64, _>::from_shape_fn([b, s, e], |i| {
        ((i[0] + i[1] * 5 + i[2] * 2) % 13) as f64 * 0.1 - 0.6
    });
    let v = Tensor::<f64, _>::from_shape_fn([b, s, 3], |i| ((i[1] + i[2]) % 5) as f64);
    let y = nn::scaled_dot_product_attention(&q, &k, &v, None, true, None).unwrap();
    let scale = 1.0 / (e as f64).sqrt();
    for bi in 0..b {
        for i in [0, 1, 150, 199, 200, 299] {
            let sc: Vec<f64> = (0..s)
                .map(|j| {
                    if j > i {
                        f64::NEG_INFINITY
                    } else {
                        (0..e).map(|t| q[[bi, i, t]] * k[[bi, j, t]]).sum::<f64>() * scale
                    }
                })
                .collect();
            let m = sc.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = sc.iter().map(|x| (x - m).exp()).collect();
            let z: f64 = w.iter().sum();
            for c in 0..3 {
                let want = (0..s).map(|j| w[j] * v[[bi, j, c]]).sum::<f64>() / z;
                assert!((y[[bi, i, c]] - want).abs() < 1e-12, "({bi}, {i}, {c})");
            }
        }
    }
}
