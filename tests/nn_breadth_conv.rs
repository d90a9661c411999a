//! 1-D/3-D convolution and pooling, transposed convolutions, adaptive pooling and
//! unfold/fold against PyTorch (`tests/golden/nn_breadth_conv/gen_nn_breadth_conv.py`):
//! every case on contiguous, all-axes-flipped and transposed (column-major) views, f32
//! and f64; the argument sets PyTorch refuses give `Err` naming the operation; and
//! fold(unfold(x)) = x · (blocks covering each pixel).

use crate::golden_file;
use ferrotensor::nn::{self, Param};
use ferrotensor::prelude::*;
use half::f16;
use serde_json::Value;

fn tensor<T: Float>(v: &Value) -> Tensor<T> {
    let data: Vec<T> = golden_file::floats(&v["data"])
        .into_iter()
        .map(T::from_f64)
        .collect();
    Tensor::from_vec(data, golden_file::usizes(&v["shape"])).unwrap()
}

fn arr<const N: usize>(v: &Value) -> [usize; N] {
    golden_file::usizes(v).try_into().unwrap()
}

/// The layouts every case runs on.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Contiguous,
    Flipped,
    Transposed,
}

/// How to view the buffer of [`relayout`] so that it shows the original values.
type ViewFn<T> = fn(&Tensor<T>) -> TensorView<'_, T, IxDyn>;

/// `x`'s values in `layout`, as an owned buffer and the view into it.
fn relayout<T: Float>(x: &Tensor<T>, layout: Layout) -> (Tensor<T>, ViewFn<T>) {
    match layout {
        Layout::Contiguous => (x.clone(), |t| t.view()),
        Layout::Flipped => (x.flip_all().to_owned(), |t| t.flip_all()),
        Layout::Transposed => (x.t().to_owned(), |t| t.t()),
    }
}

type Output<T> = (Tensor<T>, Option<Vec<i64>>);

/// Values of `a` and `b` equal bit for bit (NaN included).
fn same_bits<T: Float>(a: &Tensor<T>, b: &Tensor<T>) -> bool {
    let bits = |t: &Tensor<T>| {
        t.iter()
            .map(|v| <T as Float>::to_f64(*v).to_bits())
            .collect::<Vec<_>>()
    };
    a.shape() == b.shape() && bits(a) == bits(b)
}

fn run<T: Float>(
    c: &Value,
    x: &TensorView<'_, T, IxDyn>,
    w: Option<&TensorView<'_, T, IxDyn>>,
    b: Option<&Tensor<T>>,
) -> ferrotensor::Result<Output<T>> {
    let p = &c["params"];
    let bias = b.map(|b| b as &dyn Param<T>);
    let op = c["op"].as_str().unwrap();
    let flag = |k: &str| p[k].as_bool().unwrap();
    let num = |k: &str| p[k].as_u64().unwrap() as usize;
    let one = |k: &str| golden_file::usizes(&p[k])[0];
    Ok(match op {
        "conv3d" => {
            let a = nn::Conv3dArgs {
                stride: arr(&p["stride"]),
                padding: arr(&p["padding"]),
                dilation: arr(&p["dilation"]),
                groups: num("groups"),
            };
            (nn::conv3d(x, w.unwrap(), bias, &a)?, None)
        }
        "conv_transpose1d" => {
            let a = nn::ConvTranspose1dArgs {
                stride: one("stride"),
                padding: one("padding"),
                output_padding: one("output_padding"),
                dilation: one("dilation"),
                groups: num("groups"),
            };
            (nn::conv_transpose1d(x, w.unwrap(), bias, &a)?, None)
        }
        "conv_transpose3d" => {
            let a = nn::ConvTranspose3dArgs {
                stride: arr(&p["stride"]),
                padding: arr(&p["padding"]),
                output_padding: arr(&p["output_padding"]),
                dilation: arr(&p["dilation"]),
                groups: num("groups"),
            };
            (nn::conv_transpose3d(x, w.unwrap(), bias, &a)?, None)
        }
        "max_pool1d" => {
            let a = nn::MaxPool1dArgs {
                kernel: one("kernel"),
                stride: one("stride"),
                padding: one("padding"),
                dilation: one("dilation"),
                ceil_mode: flag("ceil_mode"),
            };
            let (y, i) = nn::max_pool1d_with_indices(x, &a)?;
            assert!(
                same_bits(&y, &nn::max_pool1d(x, &a)?),
                "max_pool1d: both entry points agree"
            );
            (y, Some(i.to_vec()))
        }
        "max_pool2d" => {
            let a = nn::MaxPool2dArgs {
                kernel: arr(&p["kernel"]),
                stride: arr(&p["stride"]),
                padding: arr(&p["padding"]),
                dilation: arr(&p["dilation"]),
                ceil_mode: flag("ceil_mode"),
            };
            let (y, i) = nn::max_pool2d_with_indices(x, &a)?;
            assert!(
                same_bits(&y, &nn::max_pool2d_with(x, &a)?),
                "max_pool2d: both entry points agree"
            );
            (y, Some(i.to_vec()))
        }
        "max_pool3d" => {
            let a = nn::MaxPool3dArgs {
                kernel: arr(&p["kernel"]),
                stride: arr(&p["stride"]),
                padding: arr(&p["padding"]),
                dilation: arr(&p["dilation"]),
                ceil_mode: flag("ceil_mode"),
            };
            let (y, i) = nn::max_pool3d_with_indices(x, &a)?;
            assert!(
                same_bits(&y, &nn::max_pool3d(x, &a)?),
                "max_pool3d: both entry points agree"
            );
            (y, Some(i.to_vec()))
        }
        "avg_pool1d" => {
            let a = nn::AvgPool1dArgs {
                kernel: one("kernel"),
                stride: one("stride"),
                padding: one("padding"),
                ceil_mode: flag("ceil_mode"),
                count_include_pad: flag("count_include_pad"),
            };
            (nn::avg_pool1d(x, &a)?, None)
        }
        "avg_pool2d" => {
            let a = nn::AvgPool2dArgs {
                kernel: arr(&p["kernel"]),
                stride: arr(&p["stride"]),
                padding: arr(&p["padding"]),
                ceil_mode: flag("ceil_mode"),
                count_include_pad: flag("count_include_pad"),
                divisor_override: p["divisor_override"].as_u64().map(|d| d as usize),
            };
            (nn::avg_pool2d_with(x, &a)?, None)
        }
        "avg_pool3d" => {
            let a = nn::AvgPool3dArgs {
                kernel: arr(&p["kernel"]),
                stride: arr(&p["stride"]),
                padding: arr(&p["padding"]),
                ceil_mode: flag("ceil_mode"),
                count_include_pad: flag("count_include_pad"),
                divisor_override: p["divisor_override"].as_u64().map(|d| d as usize),
            };
            (nn::avg_pool3d(x, &a)?, None)
        }
        "adaptive_avg_pool1d" => (nn::adaptive_avg_pool1d(x, one("output_size"))?, None),
        "adaptive_avg_pool3d" => (nn::adaptive_avg_pool3d(x, arr(&p["output_size"]))?, None),
        "adaptive_max_pool1d" => {
            let (y, i) = nn::adaptive_max_pool1d(x, one("output_size"))?;
            (y, Some(i.to_vec()))
        }
        "adaptive_max_pool2d" => {
            let (y, i) = nn::adaptive_max_pool2d(x, arr(&p["output_size"]))?;
            (y, Some(i.to_vec()))
        }
        "adaptive_max_pool3d" => {
            let (y, i) = nn::adaptive_max_pool3d(x, arr(&p["output_size"]))?;
            (y, Some(i.to_vec()))
        }
        "unfold" | "fold" => {
            let a = nn::UnfoldArgs {
                kernel: arr(&p["kernel"]),
                dilation: arr(&p["dilation"]),
                padding: arr(&p["padding"]),
                stride: arr(&p["stride"]),
            };
            let y = if op == "unfold" {
                nn::unfold(x, &a)?.into_dyn()
            } else {
                nn::fold(x, arr(&p["output_size"]), &a)?.into_dyn()
            };
            (y, None)
        }
        other => panic!("unknown op {other}"),
    })
}

fn check<T: Float>(c: &Value, idx: usize, layout: Layout) {
    let what = format!("case {idx} ({}, {}, {layout:?})", c["op"], c["dtype"]);
    let x = tensor::<T>(&c["inputs"]["x"]);
    let w = c["inputs"].get("w").map(tensor::<T>);
    let b = c["inputs"].get("b").map(tensor::<T>);
    let (xo, xv) = relayout(&x, layout);
    let wo = w.as_ref().map(|w| relayout(w, layout));
    let xview = xv(&xo);
    let wview = wo.as_ref().map(|(t, v)| v(t));
    let got = run(c, &xview, wview.as_ref(), b.as_ref());
    if c.get("error").is_some() {
        let Err(e) = got else {
            panic!(
                "{what}: PyTorch refuses ({}), we accept",
                c["torch_message"]
            );
        };
        let op = c["op"].as_str().unwrap();
        assert!(
            e.to_string().contains(op),
            "{what}: error {e} does not name {op}"
        );
        return;
    }
    let (got, indices) = got.unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = tensor::<T>(&c["expected"]);
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    // Convolutions sum up to a few hundred products.
    let tol = if size_of::<T>() == 4 { 2e-5 } else { 1e-12 };
    for (k, (g, w)) in got.iter().zip(want.iter()).enumerate() {
        let (g, w) = (<T as Float>::to_f64(*g), <T as Float>::to_f64(*w));
        let ok = if w.is_nan() {
            g.is_nan()
        } else {
            (g - w).abs() <= tol * (1.0 + w.abs())
        };
        assert!(ok, "{what}: element {k}: got {g}, PyTorch {w}");
    }
    if let Some(want) = c.get("indices") {
        assert_eq!(
            indices.expect("indices"),
            golden_file::i64s(want),
            "{what}: indices"
        );
    }
}

fn all_cases<T: Float>(dtype: &str) -> usize {
    let mut n = 0;
    for (i, c) in golden_file::cases("nn_breadth_conv/nn_breadth_conv.json")
        .iter()
        .enumerate()
    {
        if c["dtype"] != dtype {
            continue;
        }
        for layout in [Layout::Contiguous, Layout::Flipped, Layout::Transposed] {
            check::<T>(c, i, layout);
        }
        n += 1;
    }
    n
}

#[test]
fn golden_f32() {
    assert!(all_cases::<f32>("float32") >= 60);
}

#[test]
fn golden_f64() {
    assert!(all_cases::<f64>("float64") >= 60);
}

#[test]
fn f16_goes_through_f32() {
    // f16 conv3d and avg_pool3d agree with the f32 results rounded.
    let x = Tensor::<f32, _>::from_shape_fn([1, 2, 3, 4, 5], |i| {
        ((i[2] * 7 + i[3] * 3 + i[4]) % 5) as f32 - 2.0
    });
    let w = Tensor::<f32, _>::from_shape_fn([2, 2, 2, 2, 2], |i| (i[0] + i[1] + i[4]) as f32 * 0.5);
    let a = nn::Conv3dArgs::default();
    let want = nn::conv3d(&x, &w, None, &a).unwrap();
    let got = nn::conv3d(&x.mapv(f16::from_f32), &w.mapv(f16::from_f32), None, &a).unwrap();
    assert_eq!(got.mapv(|v| v.to_f32()).to_vec(), want.to_vec());
    let p = nn::avg_pool3d(&x.mapv(f16::from_f32), &nn::AvgPool3dArgs::new([1, 2, 2])).unwrap();
    let q = nn::avg_pool3d(&x, &nn::AvgPool3dArgs::new([1, 2, 2])).unwrap();
    assert_eq!(p.mapv(|v| v.to_f32()).to_vec(), q.to_vec());
}

#[test]
fn fold_of_unfold_counts_covering_blocks() {
    // fold(unfold(x)) = x · fold(unfold(1)), and unfold/fold are adjoint:
    // <unfold(x), y> = <x, fold(y)>.
    let x = Tensor::<f64, _>::from_shape_fn([2, 3, 7, 6], |i| {
        (i[0] * 5 + i[1] * 3 + i[2] * 11 + i[3]) as f64 * 0.25 - 4.0
    });
    for a in [
        nn::UnfoldArgs::new([2, 3]),
        nn::UnfoldArgs {
            kernel: [3, 2],
            dilation: [2, 1],
            padding: [1, 2],
            stride: [2, 3],
        },
    ] {
        let cols = nn::unfold(&x, &a).unwrap();
        let back = nn::fold(&cols, [7, 6], &a).unwrap();
        let ones = Tensor::<f64, _>::ones([2, 3, 7, 6]);
        let count = nn::fold(&nn::unfold(&ones, &a).unwrap(), [7, 6], &a).unwrap();
        for ((b, v), n) in back.iter().zip(x.iter()).zip(count.iter()) {
            assert!((b - v * n).abs() < 1e-12, "fold(unfold(x)) {b} vs {v}·{n}");
        }
        let y = cols.mapv(|v| (v * 3.0).sin());
        let lhs: f64 = cols.iter().zip(y.iter()).map(|(a, b)| a * b).sum();
        let rhs: f64 = x
            .iter()
            .zip(nn::fold(&y, [7, 6], &a).unwrap().iter())
            .map(|(a, b)| a * b)
            .sum();
        assert!(
            (lhs - rhs).abs() < 1e-9 * (1.0 + lhs.abs()),
            "adjoint: {lhs} vs {rhs}"
        );
    }
}

#[test]
fn errors_name_the_op_and_shapes() {
    let x5 = Tensor::<f32, _>::ones([1, 4, 3, 3, 3]);
    let w5 = Tensor::<f32, _>::ones([2, 3, 2, 2, 2]);
    let e = nn::conv3d(&x5, &w5, None, &nn::Conv3dArgs::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("conv3d") && e.contains("(1, 4, 3, 3, 3)") && e.contains("(2, 3, 2, 2, 2)"),
        "{e}"
    );
    let bad_groups = nn::Conv3dArgs {
        groups: 3,
        ..Default::default()
    };
    let e = nn::conv3d(
        &x5,
        &Tensor::<f32, _>::ones([3, 1, 1, 1, 1]),
        None,
        &bad_groups,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("groups = 3") && e.contains("4"), "{e}");
    let b = Tensor::<f32, _>::ones([5]);
    assert!(
        nn::conv3d(
            &x5,
            &Tensor::<f32, _>::ones([2, 4, 1, 1, 1]),
            Some(&b),
            &Default::default()
        )
        .is_err()
    );
    let e = nn::max_pool1d(&Tensor::<f32, _>::ones([2, 3]), &nn::MaxPool1dArgs::new(2))
        .unwrap_err()
        .to_string();
    assert!(e.contains("max_pool1d") && e.contains("(2, 3)"), "{e}");
    let e = nn::avg_pool3d(
        &x5,
        &nn::AvgPool3dArgs {
            divisor_override: Some(0),
            ..nn::AvgPool3dArgs::new([2, 2, 2])
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("avg_pool3d") && e.contains("divisor"), "{e}");
    let e = nn::adaptive_avg_pool3d(&Tensor::<f32, _>::ones([1, 1, 0, 2, 2]), [1, 1, 1])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("adaptive_avg_pool3d") && e.contains("(1, 1, 0, 2, 2)"),
        "{e}"
    );
    let e = nn::unfold(
        &Tensor::<f32, _>::ones([1, 1, 2, 2]),
        &nn::UnfoldArgs::new([3, 3]),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("unfold") && e.contains("(1, 1, 2, 2)"), "{e}");
    let e = nn::fold(
        &Tensor::<f32, _>::ones([1, 6, 4]),
        [3, 3],
        &nn::UnfoldArgs::new([2, 2]),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("fold") && e.contains("(1, 6, 4)"), "{e}");
    let e = nn::conv_transpose3d(
        &x5,
        &Tensor::<f32, _>::ones([3, 1, 1, 1, 1]),
        None,
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("conv_transpose3d") && e.contains("(1, 4, 3, 3, 3)"),
        "{e}"
    );
    let e = nn::conv_transpose1d(
        &Tensor::<f32, _>::ones([1, 2, 3, 3]),
        &Tensor::<f32, _>::ones([2, 1, 1]),
        None,
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("conv_transpose1d") && e.contains("(1, 2, 3, 3)"),
        "{e}"
    );
}
