//! Prepared layers (`Conv2d`, `Linear`, `BatchNorm2d`): every fused variant equals the
//! unfused composition of the functional API, the batch-norm fold equals the layer
//! followed by the batch norm, and a small ResNet built from the prepared, fused layers
//! (the `resnet` example's model) equals the same network written with the functions.

#[path = "../examples/resnet/model.rs"]
#[allow(dead_code)]
mod model;

use ferrotensor::io::DynTensor;
use ferrotensor::nn::{self, Activation, BatchNorm2d, Conv2d, Conv2dArgs, Linear};
use ferrotensor::prelude::*;
use rand::SeedableRng;
use std::collections::BTreeMap;

/// A normal random tensor of `shape` in `T` (drawn in f64, so f32 and f64 see the same values).
fn randn<T: Float>(shape: &[usize], seed: u64) -> Tensor<T, IxDyn> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    Tensor::<f64, _>::randn(IxDyn::from(shape), &mut rng).mapv(|v| T::from_f64(v))
}

/// Uniform in `[lo, hi)`.
fn uniform<T: Float>(len: usize, lo: f64, hi: f64, seed: u64) -> Tensor<T, IxDyn> {
    randn::<f64>(&[len], seed)
        .mapv(|v| T::from_f64(lo + (hi - lo) * (0.5 + 0.5 * (v / 3.0).tanh())))
}

/// `v` as f64 (`Float`'s conversion, not `ToPrimitive`'s).
fn f64_of<T: Float>(v: T) -> f64 {
    <T as Float>::to_f64(v)
}

/// `max |a − b| ≤ tol · max(1, max |b|)`, with the shapes equal.
fn assert_close<T: Float>(a: &Tensor<T, IxDyn>, b: &Tensor<T, IxDyn>, tol: f64, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}: shapes");
    let (av, bv) = (a.to_vec(), b.to_vec());
    let scale = bv.iter().fold(1.0f64, |m, v| m.max(f64_of(*v).abs()));
    let err = av
        .iter()
        .zip(&bv)
        .map(|(x, y)| (f64_of(*x) - f64_of(*y)).abs())
        .fold(0.0, f64::max);
    assert!(
        err <= tol * scale,
        "{what}: max error {err:e} > {tol:e} · {scale}"
    );
    assert!(
        av.iter().all(|v| f64_of(*v).is_finite()),
        "{what}: non-finite output"
    );
}

/// The activation by the public element-wise functions (not the epilogue's code).
fn activate<T: Float>(x: &Tensor<T, IxDyn>, a: Activation) -> Tensor<T, IxDyn> {
    match a {
        Activation::Identity => x.clone(),
        Activation::Relu => nn::relu(x),
        Activation::Relu6 => nn::relu6(x),
        Activation::LeakyRelu(s) => nn::leaky_relu(x, T::from_f64(s)),
        Activation::Silu => nn::silu(x),
        Activation::Gelu => nn::gelu(x),
        Activation::Sigmoid => nn::sigmoid(x),
        Activation::Tanh => nn::tanh(x),
    }
}

const ACTIVATIONS: [Activation; 8] = [
    Activation::Identity,
    Activation::Relu,
    Activation::Relu6,
    Activation::LeakyRelu(0.1),
    Activation::Silu,
    Activation::Gelu,
    Activation::Sigmoid,
    Activation::Tanh,
];

/// A batch norm over `c` channels with statistics away from the identity.
fn batch_norm_params<T: Float>(c: usize, seed: u64) -> [Tensor<T, IxDyn>; 4] {
    [
        randn::<T>(&[c], seed).mapv(|v| v * T::from_f64(0.3)),
        uniform::<T>(c, 0.5, 1.5, seed + 1),
        uniform::<T>(c, 0.5, 1.5, seed + 2),
        randn::<T>(&[c], seed + 3).mapv(|v| v * T::from_f64(0.2)),
    ]
}

/// One convolution geometry: input `(n, c, h, w)`, `o` outputs, kernel, stride,
/// padding, dilation, groups.
struct Case {
    x: [usize; 4],
    o: usize,
    k: [usize; 2],
    args: Conv2dArgs,
}

fn cases() -> Vec<Case> {
    let a = |s: usize, p: usize, d: usize, g: usize| Conv2dArgs {
        stride: [s, s],
        padding: [p, p],
        dilation: [d, d],
        groups: g,
    };
    vec![
        // 3×3 stride 1 (the Winograd candidate), odd sizes, batch 2.
        Case {
            x: [2, 5, 9, 11],
            o: 7,
            k: [3, 3],
            args: a(1, 1, 1, 1),
        },
        // Enough channels for the direct and Winograd block kernels.
        Case {
            x: [2, 16, 10, 13],
            o: 24,
            k: [3, 3],
            args: a(1, 1, 1, 1),
        },
        // Stride 2, 3×3 and 1×1 (ResNet's downsampling).
        Case {
            x: [3, 8, 11, 9],
            o: 16,
            k: [3, 3],
            args: a(2, 1, 1, 1),
        },
        Case {
            x: [2, 8, 11, 9],
            o: 16,
            k: [1, 1],
            args: a(2, 0, 1, 1),
        },
        // The stem's 7×7 stride 2 padding 3, groups, dilation, rectangular kernel.
        Case {
            x: [1, 3, 19, 17],
            o: 8,
            k: [7, 7],
            args: a(2, 3, 1, 1),
        },
        Case {
            x: [2, 6, 8, 8],
            o: 9,
            k: [3, 3],
            args: a(1, 1, 1, 3),
        },
        Case {
            x: [1, 4, 12, 10],
            o: 6,
            k: [3, 2],
            args: a(1, 2, 2, 2),
        },
    ]
}

/// The input as a strided view: every second row of a taller tensor, reversed columns.
fn strided<T: Float>(shape: [usize; 4], seed: u64) -> Tensor<T, IxDyn> {
    let [n, c, h, w] = shape;
    randn::<T>(&[n, c, 2 * h, w], seed)
}

fn fused_conv_equals_composition<T: Float>(tol: f64) {
    for (ci, case) in cases().into_iter().enumerate() {
        let seed = 100 * ci as u64;
        let [n, c, h, w] = case.x;
        let cg = c / case.args.groups;
        let weight =
            randn::<T>(&[case.o, cg, case.k[0], case.k[1]], seed).mapv(|v| v * T::from_f64(0.3));
        let bias = randn::<T>(&[case.o], seed + 1);
        let tall = strided::<T>(case.x, seed + 2);
        let x = tall.slice(s![.., .., ..;2, ..;-1]);
        assert_eq!(x.shape(), &[n, c, h, w]);
        assert!(!x.is_contiguous());
        let conv = Conv2d::new(&weight, Some(&bias), case.args).unwrap();
        let plain = nn::conv2d(&x, &weight, Some(&bias), &case.args).unwrap();
        assert_close(
            &conv.forward(&x).unwrap(),
            &plain,
            tol,
            &format!("case {ci}: Conv2d::forward"),
        );
        let residual = randn::<T>(plain.shape(), seed + 3);
        let [m, v, g, b] = batch_norm_params::<T>(case.o, seed + 4);
        let bn = BatchNorm2d::new(&m, &v, Some(&g), Some(&b), 1e-5).unwrap();
        let folded = conv.fold_batch_norm(&bn).unwrap();
        let normed = nn::batch_norm(&plain, &m, &v, Some(&g), Some(&b), 1e-5).unwrap();
        assert_close(
            &folded.forward(&x).unwrap(),
            &normed,
            tol,
            &format!("case {ci}: fold"),
        );
        assert_close(
            &bn.forward(&plain).unwrap(),
            &normed,
            tol,
            &format!("case {ci}: BatchNorm2d"),
        );
        for act in ACTIVATIONS {
            let what = format!("case {ci}, {act:?}");
            let fused = conv.clone().with_activation(act);
            assert_close(
                &fused.forward(&x).unwrap(),
                &activate(&plain, act),
                tol,
                &format!("{what}: bias"),
            );
            let fused_bn = folded.clone().with_activation(act);
            assert_close(
                &fused_bn.forward(&x).unwrap(),
                &activate(&normed, act),
                tol,
                &format!("{what}: bn"),
            );
            let sum = &normed + &residual;
            // The residual as a view of another layout (transposed memory).
            let res_t = residual.t().to_owned();
            let res_view = res_t.t();
            assert!(!res_view.is_contiguous() || residual.size() <= 1);
            let got = fused_bn.forward_add(&x, &res_view).unwrap();
            assert_close(
                &got,
                &activate(&sum, act),
                tol,
                &format!("{what}: bn + residual"),
            );
        }
        // A residual of another shape is an error naming the operation.
        let bad = Tensor::<T, _>::zeros([n, case.o + 1, 1, 1]);
        let e = folded.forward_add(&x, &bad).err().unwrap().to_string();
        assert!(e.contains("Conv2d::forward_add"), "{e}");
    }
}

#[test]
fn fused_conv2d_equals_the_composition_f32() {
    fused_conv_equals_composition::<f32>(2e-5);
}

#[test]
fn fused_conv2d_equals_the_composition_f64() {
    fused_conv_equals_composition::<f64>(1e-12);
}

fn fused_linear_equals_composition<T: Float>(tol: f64) {
    for (bi, (batch, fin, fout)) in [(1, 7, 5), (5, 33, 17), (3, 64, 40)]
        .into_iter()
        .enumerate()
    {
        let seed = 10 * bi as u64;
        let weight = randn::<T>(&[fout, fin], seed);
        let bias = randn::<T>(&[fout], seed + 1);
        // The input as a transposed view.
        let xt = randn::<T>(&[fin, batch], seed + 2);
        let x = xt.t();
        let fc = Linear::new(&weight, Some(&bias)).unwrap();
        let plain = nn::linear(&x, &weight, Some(&bias)).unwrap();
        assert_close(&fc.forward(&x).unwrap(), &plain, tol, "Linear::forward");
        let [m, v, g, b] = batch_norm_params::<T>(fout, seed + 3);
        let bn = BatchNorm2d::new(&m, &v, Some(&g), Some(&b), 1e-3).unwrap();
        let folded = fc.fold_batch_norm(&bn).unwrap();
        let normed = nn::batch_norm(&plain, &m, &v, Some(&g), Some(&b), 1e-3).unwrap();
        assert_close(&folded.forward(&x).unwrap(), &normed, tol, "Linear fold");
        let residual = randn::<T>(&[batch, fout], seed + 4);
        for act in ACTIVATIONS {
            let f = folded.clone().with_activation(act);
            assert_close(
                &f.forward(&x).unwrap(),
                &activate(&normed, act),
                tol,
                &format!("Linear {act:?}"),
            );
            let got = f.forward_add(&x, &residual).unwrap();
            let sum = &normed + &residual;
            assert_close(
                &got,
                &activate(&sum, act),
                tol,
                &format!("Linear {act:?} + residual"),
            );
        }
    }
}

#[test]
fn fused_linear_equals_the_composition_f32() {
    fused_linear_equals_composition::<f32>(2e-5);
}

#[test]
fn fused_linear_equals_the_composition_f64() {
    fused_linear_equals_composition::<f64>(1e-12);
}

#[test]
fn fold_rejects_a_batch_norm_of_another_width() {
    let conv = Conv2d::new(&randn::<f64>(&[4, 2, 3, 3], 0), None, Conv2dArgs::default()).unwrap();
    let [m, v, g, b] = batch_norm_params::<f64>(5, 1);
    let bn = BatchNorm2d::new(&m, &v, Some(&g), Some(&b), 1e-5).unwrap();
    let e = conv.fold_batch_norm(&bn).err().unwrap().to_string();
    assert!(
        e.contains("Conv2d::fold_batch_norm") && e.contains('5') && e.contains('4'),
        "{e}"
    );
}

// ------------------------------------------------------------- small ResNet, end to end

/// The tensor `name` of the weights as `T`.
fn param<T: Float>(map: &BTreeMap<String, DynTensor>, name: &str) -> Tensor<T, IxDyn> {
    let t: Tensor<f32, IxDyn> = map[name].clone().into_typed().expect("f32 weights");
    t.mapv(|v| T::from_f32(v))
}

/// Convolution then batch norm (then ReLU), all with the plain functions.
fn conv_bn<T: Float>(
    map: &BTreeMap<String, DynTensor>,
    x: &Tensor<T, IxDyn>,
    conv: &str,
    bn: &str,
    stride: usize,
    relu: bool,
) -> Tensor<T, IxDyn> {
    let w = param::<T>(map, &format!("{conv}.weight"));
    let pad = w.shape()[2] / 2;
    let args = Conv2dArgs {
        stride: [stride, stride],
        padding: [pad, pad],
        ..Default::default()
    };
    let y = nn::conv2d(x, &w, None, &args).unwrap();
    let p = |s: &str| param::<T>(map, &format!("{bn}.{s}"));
    let y = nn::batch_norm(
        &y,
        &p("running_mean"),
        &p("running_var"),
        Some(&p("weight")),
        Some(&p("bias")),
        1e-5,
    )
    .unwrap();
    if relu { nn::relu(&y) } else { y }
}

/// The ResNet of `cfg` written with the functional API only.
fn functional_resnet<T: Float>(
    map: &BTreeMap<String, DynTensor>,
    cfg: &model::Config,
    x: &Tensor<T, IxDyn>,
) -> Tensor<T, IxDyn> {
    let mut h = conv_bn(map, x, "conv1", "bn1", 2, true);
    h = nn::max_pool2d(&h, [3, 3], [2, 2], [1, 1]).unwrap();
    let mut cin = cfg.widths[0];
    for (li, (&c, &nb)) in cfg.widths.iter().zip(&cfg.blocks).enumerate() {
        for b in 0..nb {
            let p = format!("layer{}.{b}", li + 1);
            let stride = if b == 0 && li > 0 { 2 } else { 1 };
            let y = conv_bn(
                map,
                &h,
                &format!("{p}.conv1"),
                &format!("{p}.bn1"),
                stride,
                true,
            );
            let y = conv_bn(
                map,
                &y,
                &format!("{p}.conv2"),
                &format!("{p}.bn2"),
                1,
                false,
            );
            let shortcut = if b == 0 && (stride != 1 || cin != c) {
                conv_bn(
                    map,
                    &h,
                    &format!("{p}.downsample.0"),
                    &format!("{p}.downsample.1"),
                    stride,
                    false,
                )
            } else {
                h.clone()
            };
            h = nn::relu(&(&y + &shortcut));
            cin = c;
        }
    }
    let pooled = nn::adaptive_avg_pool2d(&h, [1, 1]).unwrap();
    let flat = pooled
        .reshape([pooled.shape()[0], cin])
        .unwrap()
        .to_owned()
        .into_dyn();
    nn::linear(
        &flat,
        &param::<T>(map, "fc.weight"),
        Some(&param::<T>(map, "fc.bias")),
    )
    .unwrap()
}

fn small_resnet_prepared_equals_functional<T: Float>(tol: f64) {
    let cfg = model::Config {
        widths: [8, 16, 16, 24],
        blocks: [2, 1, 2, 1],
        classes: 10,
    };
    let map = model::random_weights(&cfg, 7);
    let net = model::ResNet::<T>::new(&model::Weights::new(&map), &cfg).unwrap();
    // Batch 3 of 40×36 images, given as a strided view.
    let tall = randn::<T>(&[3, 3, 40, 72], 9);
    let x = tall.slice(s![.., .., .., ..;2]);
    let got = net.forward(&x).unwrap();
    let want = functional_resnet(&map, &cfg, &x.to_owned());
    assert_eq!(got.shape(), &[3, 10]);
    assert_close(&got, &want, tol, "small ResNet: prepared vs functional");
    // The logits differ between images (the network is not degenerate).
    let v = got.to_vec();
    assert!(v[..10].iter().zip(&v[10..20]).any(|(a, b)| a != b));
}

#[test]
fn small_resnet_prepared_equals_functional_f32() {
    small_resnet_prepared_equals_functional::<f32>(1e-4);
}

#[test]
fn small_resnet_prepared_equals_functional_f64() {
    small_resnet_prepared_equals_functional::<f64>(1e-10);
}

#[test]
fn resnet_weights_errors_name_the_tensor() {
    let cfg = model::Config {
        widths: [4, 4, 8, 8],
        blocks: [1, 1, 1, 1],
        classes: 3,
    };
    let full = model::random_weights(&cfg, 1);
    let mut missing = full.clone();
    missing.remove("layer3.0.downsample.1.running_var");
    let e = model::ResNet::<f32>::new(&model::Weights::new(&missing), &cfg)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("layer3.0.downsample.1.running_var") && e.contains("[8]"),
        "{e}"
    );
    let mut reshaped = full.clone();
    reshaped.insert(
        "fc.weight".into(),
        DynTensor::from(Tensor::<f32, _>::zeros([3, 7]).into_dyn()),
    );
    let e = model::ResNet::<f32>::new(&model::Weights::new(&reshaped), &cfg)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("fc.weight") && e.contains("[3, 7]") && e.contains("[3, 8]"),
        "{e}"
    );
    let mut retyped = full;
    retyped.insert(
        "conv1.weight".into(),
        DynTensor::from(Tensor::<f64, _>::zeros([4, 3, 7, 7]).into_dyn()),
    );
    let e = model::ResNet::<f32>::new(&model::Weights::new(&retyped), &cfg)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("conv1.weight") && e.contains("float64"), "{e}");
}

/// `Conv2d::forward_max_pool2d` equals `max_pool2d` of `Conv2d::forward`, exactly (the
/// same convolution tiles; a maximum does not round): the stem's shape scaled down and
/// odd sizes, a strided input, batch 2, pool padding, a NaN in the input, ReLU and an
/// activation applied outside the stores; `f32` (the one-pass kernel) and `f64` (the
/// composition); and the pool's errors name the method.
fn conv_max_pool_equals_composition<T: Float>() {
    // (input, output channels, kernel, stride, padding, activation, pool k, s, p)
    type PoolCase = (
        [usize; 4],
        usize,
        usize,
        usize,
        usize,
        Activation,
        [[usize; 2]; 3],
    );
    let stem = [[3, 3], [2, 2], [1, 1]];
    let cases: [PoolCase; 4] = [
        ([1, 3, 37, 30], 64, 7, 2, 3, Activation::Relu, stem),
        ([2, 5, 15, 17], 20, 3, 2, 1, Activation::Identity, stem),
        (
            [1, 4, 13, 11],
            32,
            3,
            1,
            1,
            Activation::Tanh,
            [[2, 3], [2, 1], [0, 1]],
        ),
        (
            [2, 3, 21, 19],
            16,
            5,
            2,
            2,
            Activation::Relu,
            [[3, 3], [2, 2], [0, 0]],
        ),
    ];
    for (ci, (shape, o, k, s, p, act, [pk, ps, pp])) in cases.into_iter().enumerate() {
        let seed = 700 + 10 * ci as u64;
        let weight = randn::<T>(&[o, shape[1], k, k], seed).mapv(|v| v * T::from_f64(0.2));
        let bias = randn::<T>(&[o], seed + 1);
        let args = Conv2dArgs {
            stride: [s, s],
            padding: [p, p],
            ..Default::default()
        };
        let conv = Conv2d::new(&weight, Some(&bias), args)
            .unwrap()
            .with_activation(act);
        let mut tall = strided::<T>(shape, seed + 2);
        if ci == 1 {
            // A NaN: every convolution output reading it, and every pooled one over
            // those, is NaN in both.
            let at = [1, 2, 2 * 7, shape[3] - 1 - 3];
            tall[&at[..]] = T::from_f64(f64::NAN);
        }
        let x = tall.slice(s![.., .., ..;2, ..;-1]);
        for threads in [1, 2] {
            let (got, want) = ferrotensor::with_num_threads(threads, || {
                let got = conv.forward_max_pool2d(&x, pk, ps, pp).unwrap();
                let want = nn::max_pool2d(&conv.forward(&x).unwrap(), pk, ps, pp).unwrap();
                (got, want)
            });
            assert_eq!(got.shape(), want.shape(), "case {ci}");
            let same = |a: T, b: T| a == b || (a.is_nan() && b.is_nan());
            let (gv, wv) = (got.to_vec(), want.to_vec());
            let bad = gv.iter().zip(&wv).position(|(&a, &b)| !same(a, b));
            assert!(
                bad.is_none(),
                "case {ci}, {threads} threads: fused and composed differ at {bad:?}"
            );
            assert_eq!(
                gv.iter().any(|v| v.is_nan()),
                ci == 1,
                "case {ci}: NaN kept"
            );
        }
    }
    let conv = Conv2d::new(
        &Tensor::<T, _>::ones([16, 3, 3, 3]),
        None,
        Default::default(),
    )
    .unwrap();
    let x = Tensor::<T, _>::ones([1, 3, 6, 6]);
    let e = conv
        .forward_max_pool2d(&x, [3, 3], [2, 2], [2, 2])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("Conv2d::forward_max_pool2d"), "{e}");
    let e = conv
        .forward_max_pool2d(&x, [5, 5], [1, 1], [0, 0])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("Conv2d::forward_max_pool2d"), "{e}");
}

#[test]
fn conv_then_max_pool_in_one_pass_f32() {
    conv_max_pool_equals_composition::<f32>();
}

#[test]
fn conv_then_max_pool_in_one_pass_f64() {
    conv_max_pool_equals_composition::<f64>();
}
