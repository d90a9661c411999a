//! `ferrotensor::nn` benchmarks: conv2d (ResNet-style shapes) against candle-core and
//! the gemm crate's large-matmul rate, conv3d against the gemm crate's rate on the
//! same M, N, K, softmax against candle-nn and NumPy.
//!
//! The ResNet-18 layer rows (`resnet …`: each 3×3 convolution as a prepared layer with
//! its bias and ReLU fused, and the stem's max pool) run against ONNX Runtime
//! (`bench/py/nn_ort.py`, `pip install onnx onnxruntime`) on 1 and 2 threads.
//!
//! `cargo bench -p ferrotensor-bench --bench nn`; `FT_BENCH_FILTER=softmax` (or `conv`,
//! `gemm`, `resnet`, `maxpool`) runs only the cases whose names contain one of the
//! comma-separated parts.

use ferrotensor::nn::{self, Conv2dArgs};
use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, py_times, selected, time_median, time_min, triad_gbs};
use rand::SeedableRng;

/// Seconds and GFLOP/s of the gemm crate on an `m × k` by `k × n` f32 matmul with
/// `threads` threads.
fn gemm_rate(m: usize, n: usize, k: usize, threads: usize) -> (f64, f64) {
    let a = vec![1.0f32; m * k];
    let b = vec![0.5f32; k * n];
    let mut c = vec![0.0f32; m * n];
    let par = if threads > 1 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    let t = time_min(2.0, || {
        // SAFETY: a, b, c are n × n row-major buffers; c does not alias a or b.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr(),
                1,
                k as isize,
                b.as_ptr(),
                1,
                n as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                par,
            )
        };
        std::hint::black_box(&c);
    });
    (t, 2.0 * (m * n * k) as f64 / t / 1e9)
}

/// The conv3d row's name (a filter part `conv` or `conv3d` selects it).
const CONV3D: &str = "conv3d (1,64,8,28,28)×(64,64,3,3,3) p1";

/// conv3d (three depth taps of 2-D convolutions) against the gemm crate on the same
/// `M = O`, `N = batch·OD·OH·OW`, `K = C·kD·kH·kW` (the product that the vol2col
/// lowering runs).
fn conv3d_case(t: &mut Table, rng: &mut rand::rngs::StdRng) {
    let (xs, ws) = ([1, 64, 8, 28, 28], [64, 64, 3, 3, 3]);
    let x = Tensor::<f32, _>::randn(xs, rng);
    let w = Tensor::<f32, _>::randn(ws, rng);
    let args = nn::Conv3dArgs {
        padding: [1, 1, 1],
        ..Default::default()
    };
    let y = nn::conv3d(&x, &w, None, &args).unwrap();
    let [_, o, od, oh, ow] = *y.dim();
    let (m, n, k) = (o, xs[0] * od * oh * ow, ws[1] * ws[2] * ws[3] * ws[4]);
    let flops = 2.0 * (m * n * k) as f64;
    let ours = time_min(3.0, || {
        std::hint::black_box(nn::conv3d(&x, &w, None, &args).unwrap());
    });
    let (gemm_t, gemm_gflops) = gemm_rate(m, n, k, rayon::current_num_threads());
    let g = flops / ours / 1e9;
    t.add(
        CONV3D,
        ours,
        vec![("gemm same M,N,K", Some(gemm_t))],
        format!(
            "{g:.1} GFLOP/s = {:.0} % of gemm {m}×{n}×{k} ({gemm_gflops:.1} GFLOP/s)",
            100.0 * g / gemm_gflops
        ),
    );
}

fn main() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0);
    let np = numpy_times("nn.py");
    println!("{}", ferrotensor_bench::cpu_line());
    let mut t = Table::default();
    let (gemm_t, gemm_gflops) = if selected("gemm") || selected("conv") {
        gemm_rate(2048, 2048, 2048, rayon::current_num_threads())
    } else {
        (f64::NAN, f64::NAN)
    };
    if selected("gemm") {
        t.add(
            "gemm crate f32 2048³ (reference rate)",
            gemm_t,
            vec![],
            format!("{gemm_gflops:.1} GFLOP/s"),
        );
    }
    let cases = [
        (
            "conv2d (8,64,56,56)×(64,64,3,3) p1",
            [8, 64, 56, 56],
            [64, 64, 3, 3],
            1usize,
            1usize,
        ),
        (
            "conv2d (8,3,224,224)×(64,3,7,7) s2 p3",
            [8, 3, 224, 224],
            [64, 3, 7, 7],
            2,
            3,
        ),
    ];
    let dev = candle_core::Device::Cpu;
    for (name, xs, ws, s, p) in cases {
        if !selected(name) {
            continue;
        }
        let x = Tensor::<f32, _>::randn(xs, &mut rng);
        let w = Tensor::<f32, _>::randn(ws, &mut rng);
        let args = Conv2dArgs {
            stride: [s, s],
            padding: [p, p],
            ..Default::default()
        };
        let y = nn::conv2d(&x, &w, None, &args).unwrap();
        let [_, o, oh, ow] = *y.dim();
        let flops = 2.0 * (xs[0] * o * oh * ow * ws[1] * ws[2] * ws[3]) as f64;
        let ours = time_min(3.0, || {
            std::hint::black_box(nn::conv2d(&x, &w, None, &args).unwrap());
        });
        let cx = candle_core::Tensor::from_slice(x.as_slice().unwrap(), &xs, &dev).unwrap();
        let cw = candle_core::Tensor::from_slice(w.as_slice().unwrap(), &ws, &dev).unwrap();
        let cy = cx.conv2d(&cw, p, s, 1, 1).unwrap();
        let cv: Vec<f32> = cy.flatten_all().unwrap().to_vec1().unwrap();
        let max_diff = cv
            .iter()
            .zip(y.iter())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(
            max_diff < 1e-2,
            "candle and ferrotensor disagree by {max_diff}"
        );
        let candle = time_min(3.0, || {
            std::hint::black_box(cx.conv2d(&cw, p, s, 1, 1).unwrap());
        });
        let g = flops / ours / 1e9;
        t.add(
            name,
            ours,
            vec![("candle", Some(candle))],
            format!(
                "{g:.1} GFLOP/s = {:.0} % of gemm 2048³; candle {:.1} GFLOP/s",
                100.0 * g / gemm_gflops,
                flops / candle / 1e9
            ),
        );
    }
    if selected(CONV3D) {
        conv3d_case(&mut t, &mut rng);
    }
    if selected("softmax") {
        softmax_cases(&mut t, &np, &dev);
    }
    t.print("nn, f32");
    let mut r = Table::default();
    resnet_cases(&mut r, &mut rng);
    resnet_strided_cases(&mut r, &mut rng);
    r.print("nn, ResNet-18 layers against ONNX Runtime, f32 (threads per row)");
    let mut h = Table::default();
    head_cases(&mut h, &mut rng);
    h.print("nn, ResNet-18 head and a pool into a bound output against ONNX Runtime, f32 (threads per row)");
    let mut p = Table::default();
    pool_indices_cases(&mut p, &mut rng);
    p.print(
        "nn, pooling with indices and adaptive pooling against ONNX Runtime, f32 (threads per row)",
    );
}

/// ResNet-18's head at batch 1 and 8 against ONNX Runtime (`bench/py/nn_ort.py`'s
/// `head` block, single-node models, output bound once): the global average pool of
/// (N, 512, 7, 7), the fully connected 512 → 1000 layer with bias (a prepared
/// [`nn::Linear`] against ONNX Runtime's Gemm), both as the `resnet` example runs them
/// (pool, flatten, fc), and the fc through the GEMM path (a weight view that is not
/// row-major, which the few-rows kernels do not take) and the functional `linear` on
/// the row-major weight (the dot-product kernel that reads the weight in place, where
/// the prepared layer runs on its packed copy) for comparison. Then the stem's
/// 3×3/2 max pool at batch 8 written by [`nn::max_pool2d_into`] into one output kept
/// across calls, as ONNX Runtime's bound output is, next to the allocating form.
fn head_cases(t: &mut Table, rng: &mut rand::rngs::StdRng) {
    const NAMES: [&str; 5] = [
        "head gap 512@7",
        "head fc 512->1000",
        "head gap+fc",
        "head fc gemm path",
        "head fc in-place path",
    ];
    const POOL: &str = "resnet maxpool3x3/2 64@112 b8";
    let any_head = NAMES.iter().any(|n| selected(n));
    let pool_into = selected(&format!("{POOL} into"));
    if !any_head && !pool_into && !selected("pool3d") {
        return;
    }
    let threads: Vec<usize> = (1..=2)
        .filter(|&n| n <= rayon::current_num_threads())
        .collect();
    let mut args: Vec<String> = vec!["head".into()];
    args.extend(threads.iter().map(|n| n.to_string()));
    let ort = py_times("nn_ort.py", &args);
    let med = |n: usize, f: &dyn Fn()| ferrotensor::with_num_threads(n, || time_median(1.0, f));
    let w = Tensor::<f32, _>::randn([1000, 512], rng) * 0.05;
    let bias = Tensor::<f32, _>::randn([1000], rng);
    let fc = nn::Linear::new(&w, Some(&bias)).unwrap();
    let w_cols = w.t().to_owned();
    for b in [1usize, 8] {
        let x = Tensor::<f32, _>::randn([b, 512, 7, 7], rng);
        let flat = Tensor::<f32, _>::randn([b, 512], rng);
        for &n in &threads {
            for name in NAMES {
                if !selected(name) {
                    continue;
                }
                let ours = match name {
                    "head gap 512@7" => med(n, &|| {
                        std::hint::black_box(nn::global_avg_pool2d(&x).unwrap());
                    }),
                    "head fc 512->1000" => med(n, &|| {
                        std::hint::black_box(fc.forward(&flat).unwrap());
                    }),
                    "head gap+fc" => med(n, &|| {
                        let p = nn::global_avg_pool2d(&x).unwrap();
                        std::hint::black_box(fc.forward(&nn::flatten(&p, 1).unwrap()).unwrap());
                    }),
                    "head fc in-place path" => med(n, &|| {
                        std::hint::black_box(nn::linear(&flat, &w, Some(&bias)).unwrap());
                    }),
                    _ => med(n, &|| {
                        std::hint::black_box(nn::linear(&flat, &w_cols.t(), Some(&bias)).unwrap());
                    }),
                };
                let key = format!(
                    "{} b{b}@t{n}",
                    name.replace(" gemm path", "").replace(" in-place path", "")
                );
                let note = match name {
                    "head gap 512@7" => {
                        format!("{:.1} GB/s read", 4.0 * (b * 512 * 49) as f64 / ours / 1e9)
                    }
                    _ => format!(
                        "{:.1} GB/s of weight",
                        4.0 * (512 * 1000) as f64 / ours / 1e9
                    ),
                };
                t.add(
                    &format!("{name} b{b}, {n} thr"),
                    ours,
                    vec![("onnxruntime", ort.get(&key).copied())],
                    note,
                );
            }
        }
    }
    if pool_into {
        let x = Tensor::<f32, _>::randn([8, 64, 112, 112], rng);
        let args = nn::MaxPool2dArgs {
            stride: [2, 2],
            padding: [1, 1],
            ..nn::MaxPool2dArgs::new([3, 3])
        };
        let mut out = Tensor::<f32, _>::zeros([8, 64, 56, 56]);
        for &n in &threads {
            let peer = ort.get(&format!("{POOL}@t{n}")).copied();
            let ours = ferrotensor::with_num_threads(n, || {
                time_median(1.0, || {
                    nn::max_pool2d_into(&x, &args, &mut out).unwrap();
                    std::hint::black_box(&out);
                })
            });
            t.add(
                &format!("{POOL} into, {n} thr"),
                ours,
                vec![("onnxruntime", peer)],
                "one output kept".into(),
            );
            let alloc = med(n, &|| {
                std::hint::black_box(nn::max_pool2d_with(&x, &args).unwrap());
            });
            t.add(
                &format!("{POOL} allocating, {n} thr"),
                alloc,
                vec![("onnxruntime", peer)],
                "a new output per call".into(),
            );
        }
    }
    pool3d_cases(t, rng, &threads, &ort);
}

/// 3-D max and average pooling 3×3×3 / 2, pad 1, on (2, 32, 16, 56, 56) against ONNX
/// Runtime's MaxPool / AveragePool (the `head` block of `nn_ort.py`), and
/// `max_pool3d_with_indices` (the scalar window kernel, which `max_pool3d` ran before it
/// became a depth reduction plus the 2-D kernel).
fn pool3d_cases(
    t: &mut Table,
    rng: &mut rand::rngs::StdRng,
    threads: &[usize],
    ort: &std::collections::BTreeMap<String, f64>,
) {
    const NAMES: [&str; 3] = [
        "pool3d max 3/2 32@16x56",
        "pool3d avg 3/2 32@16x56",
        "pool3d max with indices 3/2 32@16x56",
    ];
    if !NAMES.iter().any(|n| selected(n)) {
        return;
    }
    let x = Tensor::<f32, _>::randn([2, 32, 16, 56, 56], rng);
    let ma = nn::MaxPool3dArgs {
        stride: [2; 3],
        padding: [1; 3],
        ..nn::MaxPool3dArgs::new([3; 3])
    };
    let aa = nn::AvgPool3dArgs {
        stride: [2; 3],
        padding: [1; 3],
        ..nn::AvgPool3dArgs::new([3; 3])
    };
    let max = || {
        std::hint::black_box(nn::max_pool3d(&x, &ma).unwrap());
    };
    let avg = || {
        std::hint::black_box(nn::avg_pool3d(&x, &aa).unwrap());
    };
    let with_indices = || {
        std::hint::black_box(nn::max_pool3d_with_indices(&x, &ma).unwrap());
    };
    let fs: [&(dyn Fn() + Sync); 3] = [&max, &avg, &with_indices];
    for &n in threads {
        for (name, f) in NAMES.into_iter().zip(fs) {
            if !selected(name) {
                continue;
            }
            let ours = ferrotensor::with_num_threads(n, || time_median(1.0, f));
            let key = format!("{}@t{n}", name.replace(" with indices", ""));
            let bytes = 4.0 * (2 * 32) as f64 * (16.0 * 56.0 * 56.0 + 8.0 * 28.0 * 28.0);
            t.add(
                &format!("{name}, {n} thr"),
                ours,
                vec![("onnxruntime", ort.get(&key).copied())],
                format!("{:.1} GB/s (read + write)", bytes / ours / 1e9),
            );
        }
    }
}

/// ResNet-18's layers alone, against ONNX Runtime (`bench/py/nn_ort.py`, one node each,
/// `intra_op_num_threads` = ours, spinning off) on 1 and 2 threads, medians: the 3×3
/// convolutions (batch 1, stride 1 and the stride-2 first convolutions of stages 2–4)
/// as the `resnet` example runs them — a prepared [`nn::Conv2d`] with the bias and ReLU
/// fused (ONNX Runtime fuses Conv + Relu too) — and the stem's 3×3/2 max pool (pad 1)
/// at batch 1 and 8. Conv rows give GFLOP/s (`2·N·O·C·9·OH·OW`) against the gemm
/// crate's f32 2048³ rate on the same threads; pool rows the GB/s of one read of the
/// input and one write of the output.
fn resnet_cases(t: &mut Table, rng: &mut rand::rngs::StdRng) {
    // (case, batch, in channels, out channels (None: the max pool), input size, stride);
    // the names are the Python side's.
    type Case = (&'static str, usize, usize, Option<usize>, usize, usize);
    const CASES: [Case; 9] = [
        ("resnet conv3x3 64@56", 1, 64, Some(64), 56, 1),
        ("resnet conv3x3 128@28", 1, 128, Some(128), 28, 1),
        ("resnet conv3x3 256@14", 1, 256, Some(256), 14, 1),
        ("resnet conv3x3 512@7", 1, 512, Some(512), 7, 1),
        ("resnet conv3x3/2 64->128@56", 1, 64, Some(128), 56, 2),
        ("resnet conv3x3/2 128->256@28", 1, 128, Some(256), 28, 2),
        ("resnet conv3x3/2 256->512@14", 1, 256, Some(512), 14, 2),
        ("resnet maxpool3x3/2 64@112 b1", 1, 64, None, 112, 2),
        ("resnet maxpool3x3/2 64@112 b8", 8, 64, None, 112, 2),
    ];
    if !CASES.iter().any(|c| selected(c.0)) {
        return;
    }
    let threads: Vec<usize> = (1..=2)
        .filter(|&n| n <= rayon::current_num_threads())
        .collect();
    let args: Vec<String> = threads.iter().map(|n| n.to_string()).collect();
    let ort = py_times("nn_ort.py", &args);
    let any_conv = CASES.iter().any(|c| c.3.is_some() && selected(c.0));
    let gemm: Vec<f64> = threads
        .iter()
        .map(|&n| {
            if any_conv {
                gemm_rate(2048, 2048, 2048, n).1
            } else {
                f64::NAN
            }
        })
        .collect();
    let med = |n: usize, f: &dyn Fn()| ferrotensor::with_num_threads(n, || time_median(1.0, f));
    for (name, b, c, o, size, s) in CASES {
        if !selected(name) {
            continue;
        }
        let x = Tensor::<f32, _>::randn([b, c, size, size], rng);
        let out = (size + 2 - 3) / s + 1;
        for (&n, &gemm_gflops) in threads.iter().zip(&gemm) {
            let peer = ort.get(&format!("{name}@t{n}")).copied();
            let (ours, note) = match o {
                Some(o) => {
                    let w = Tensor::<f32, _>::randn([o, c, 3, 3], rng);
                    let bias = Tensor::<f32, _>::randn([o], rng);
                    let args = Conv2dArgs {
                        stride: [s, s],
                        padding: [1, 1],
                        ..Default::default()
                    };
                    let conv = nn::Conv2d::new(&w, Some(&bias), args)
                        .unwrap()
                        .with_activation(nn::Activation::Relu);
                    let ours = med(n, &|| {
                        std::hint::black_box(conv.forward(&x).unwrap());
                    });
                    let flops = 2.0 * (b * o * c * 9 * out * out) as f64;
                    let g = flops / ours / 1e9;
                    let ort_g = peer.map_or(f64::NAN, |p| flops / p / 1e9);
                    (
                        ours,
                        format!(
                            "{g:.0} GFLOP/s ({}) = {:.0} % of gemm 2048³ on {n} thr ({gemm_gflops:.0}); ORT {ort_g:.0} GFLOP/s",
                            conv.kernel(),
                            100.0 * g / gemm_gflops
                        ),
                    )
                }
                None => {
                    let ours = med(n, &|| {
                        std::hint::black_box(nn::max_pool2d(&x, [3, 3], [s, s], [1, 1]).unwrap());
                    });
                    let bytes = 4.0 * (b * c * (size * size + out * out)) as f64;
                    (
                        ours,
                        format!("{:.1} GB/s (read + write)", bytes / ours / 1e9),
                    )
                }
            };
            t.add(
                &format!("{name}, {n} thr"),
                ours,
                vec![("onnxruntime", peer)],
                note,
            );
        }
    }
}

/// ResNet-18's stem (7×7/2, 3→64, ReLU fused) and 1×1/2 downsamples (no activation:
/// their output is the next block's residual), and the 3×3/2 at 56→28, at batch 1 and
/// 8, against ONNX Runtime (`bench/py/nn_ort_strided.py`) on 1 and 2 threads, medians;
/// GFLOP/s counts `2·N·O·C·k²·OH·OW`.
fn resnet_strided_cases(t: &mut Table, rng: &mut rand::rngs::StdRng) {
    // (case, [batch, in channels, out channels, input size, kernel, stride, padding, relu]);
    // the names are the Python side's.
    const CASES: [(&str, [usize; 8]); 9] = [
        ("resnet stem7x7/2 3->64@224 b1", [1, 3, 64, 224, 7, 2, 3, 1]),
        ("resnet stem7x7/2 3->64@224 b8", [8, 3, 64, 224, 7, 2, 3, 1]),
        (
            "resnet conv1x1/2 64->128@56 b1",
            [1, 64, 128, 56, 1, 2, 0, 0],
        ),
        (
            "resnet conv1x1/2 128->256@28 b1",
            [1, 128, 256, 28, 1, 2, 0, 0],
        ),
        (
            "resnet conv1x1/2 256->512@14 b1",
            [1, 256, 512, 14, 1, 2, 0, 0],
        ),
        (
            "resnet conv1x1/2 64->128@56 b8",
            [8, 64, 128, 56, 1, 2, 0, 0],
        ),
        (
            "resnet conv1x1/2 128->256@28 b8",
            [8, 128, 256, 28, 1, 2, 0, 0],
        ),
        (
            "resnet conv1x1/2 256->512@14 b8",
            [8, 256, 512, 14, 1, 2, 0, 0],
        ),
        (
            "resnet conv3x3/2 64->128@56 b8",
            [8, 64, 128, 56, 3, 2, 1, 1],
        ),
    ];
    if !CASES.iter().any(|c| selected(c.0)) {
        return;
    }
    let threads: Vec<usize> = (1..=2)
        .filter(|&n| n <= rayon::current_num_threads())
        .collect();
    let args: Vec<String> = threads.iter().map(|n| n.to_string()).collect();
    let ort = py_times("nn_ort_strided.py", &args);
    let med = |n: usize, f: &dyn Fn()| ferrotensor::with_num_threads(n, || time_median(1.0, f));
    for (name, [b, c, o, size, k, s, p, relu]) in CASES {
        if !selected(name) {
            continue;
        }
        let x = Tensor::<f32, _>::randn([b, c, size, size], rng);
        let out = (size + 2 * p - k) / s + 1;
        let w = Tensor::<f32, _>::randn([o, c, k, k], rng);
        let bias = Tensor::<f32, _>::randn([o], rng);
        let args = Conv2dArgs {
            stride: [s, s],
            padding: [p, p],
            ..Default::default()
        };
        let mut conv = nn::Conv2d::new(&w, Some(&bias), args).unwrap();
        if relu == 1 {
            conv = conv.with_activation(nn::Activation::Relu);
        }
        let flops = 2.0 * (b * o * c * k * k * out * out) as f64;
        for &n in &threads {
            let peer = ort.get(&format!("{name}@t{n}")).copied();
            let ours = med(n, &|| {
                std::hint::black_box(conv.forward(&x).unwrap());
            });
            let ort_g = peer.map_or(f64::NAN, |p| flops / p / 1e9);
            t.add(
                &format!("{name}, {n} thr"),
                ours,
                vec![("onnxruntime", peer)],
                format!(
                    "{:.0} GFLOP/s ({}); ORT {ort_g:.0} GFLOP/s",
                    flops / ours / 1e9,
                    conv.kernel()
                ),
            );
        }
    }
}

/// Softmax and log-softmax of f32 [4096, 4096] along the last axis (rows of 16 KiB,
/// against candle-nn and NumPy) and along axis 0 (strided, tiled), as a fraction of
/// the one-read-one-write limit: the STREAM triad of the same run (3 arrays moved)
/// scaled to 2 arrays.
fn softmax_cases(
    t: &mut Table,
    np: &std::collections::BTreeMap<String, f64>,
    dev: &candle_core::Device,
) {
    let n = 4096;
    let x = Tensor::<f32, _>::from_shape_fn([n, n], |i| {
        ((i[0] * 7 + i[1] * 13) % 1000) as f32 * 0.01 - 5.0
    });
    let triad = triad_gbs(256 << 20);
    println!(
        "STREAM triad (256 MB, all threads, best of ordinary and streaming stores): {triad:.1} GB/s"
    );
    let note = |s: f64| {
        let g = 2.0 * (n * n * 4) as f64 / s / 1e9;
        format!(
            "{g:.1} GB/s (read + write) = {:.0} % of the triad",
            100.0 * g / triad
        )
    };
    let med = |f: &dyn Fn()| time_median(2.0, f);
    let ours = med(&|| {
        std::hint::black_box(nn::softmax(&x, -1).unwrap());
    });
    let cx = candle_core::Tensor::from_slice(x.as_slice().unwrap(), (n, n), dev).unwrap();
    let candle = med(&|| {
        std::hint::black_box(candle_nn::ops::softmax_last_dim(&cx).unwrap());
    });
    t.add(
        "softmax f32 [4096,4096] last axis",
        ours,
        vec![
            ("candle-nn", Some(candle)),
            ("numpy", np.get("softmax").copied()),
        ],
        note(ours),
    );
    let ours = med(&|| {
        std::hint::black_box(nn::log_softmax(&x, -1).unwrap());
    });
    let candle = med(&|| {
        std::hint::black_box(candle_nn::ops::log_softmax(&cx, 1).unwrap());
    });
    t.add(
        "log_softmax f32 [4096,4096] last axis",
        ours,
        vec![
            ("candle-nn", Some(candle)),
            ("numpy", np.get("log_softmax").copied()),
        ],
        note(ours),
    );
    let ours = med(&|| {
        std::hint::black_box(nn::softmax(&x, 0).unwrap());
    });
    t.add(
        "softmax f32 [4096,4096] axis 0",
        ours,
        vec![("numpy", np.get("softmax_0").copied())],
        note(ours),
    );
}

/// Pooling with indices and adaptive pooling against ONNX Runtime's nearest single node
/// (`bench/py/nn_ort.py pools`): MaxPool with its Indices output for the
/// `max_pool{1,2,3}d_with_indices` rows and for adaptive max pooling to a divisor of
/// the input (kernel = stride = input / output); GlobalMaxPool / GlobalAveragePool
/// (no indices there) for adaptive pooling to 1; AveragePool for adaptive averages to a
/// divisor. With `FT_TORCH_PYTHON` naming a Python that has torch, PyTorch's same
/// functions (allocating their outputs, as ours) are a second peer. Medians on 1 and 2
/// threads; the notes give GB/s of one read of the input and one write of the output
/// (values, and indices as i64 where returned).
fn pool_indices_cases(t: &mut Table, rng: &mut rand::rngs::StdRng) {
    type Case = (&'static str, Vec<usize>, usize);
    // (name, input shape, input elements per output element, for the GB/s note)
    let cases: [Case; 11] = [
        ("pool1d max+indices 3/2 64@4096 b8", vec![8, 64, 4096], 2),
        ("pool2d max+indices 3/2 64@112 b1", vec![1, 64, 112, 112], 4),
        ("pool2d max+indices 3/2 64@112 b8", vec![8, 64, 112, 112], 4),
        (
            "pool3d max+indices 3/2 32@16x56 b2",
            vec![2, 32, 16, 56, 56],
            8,
        ),
        ("adaptive max2d 512@14->7 b8", vec![8, 512, 14, 14], 4),
        ("adaptive max2d 512@7->1 b8", vec![8, 512, 7, 7], 49),
        ("adaptive max1d 64@4096->1024 b8", vec![8, 64, 4096], 4),
        (
            "adaptive max3d 32@16x56->8x28 b2",
            vec![2, 32, 16, 56, 56],
            8,
        ),
        ("adaptive avg1d 64@4096->1024 b8", vec![8, 64, 4096], 4),
        (
            "adaptive avg3d 32@16x56->8x28 b2",
            vec![2, 32, 16, 56, 56],
            8,
        ),
        (
            "adaptive avg3d 32@16x56->1 b2",
            vec![2, 32, 16, 56, 56],
            50176,
        ),
    ];
    if !cases.iter().any(|c| selected(c.0)) {
        return;
    }
    let threads: Vec<usize> = (1..=2)
        .filter(|&n| n <= rayon::current_num_threads())
        .collect();
    let mut args: Vec<String> = vec!["pools".into()];
    args.extend(threads.iter().map(|n| n.to_string()));
    let ort = py_times("nn_ort.py", &args);
    let m1 = nn::MaxPool1dArgs {
        stride: 2,
        padding: 1,
        ..nn::MaxPool1dArgs::new(3)
    };
    let m2 = nn::MaxPool2dArgs {
        stride: [2, 2],
        padding: [1, 1],
        ..nn::MaxPool2dArgs::new([3, 3])
    };
    let m3 = nn::MaxPool3dArgs {
        stride: [2; 3],
        padding: [1; 3],
        ..nn::MaxPool3dArgs::new([3; 3])
    };
    for (name, shape, per) in cases {
        if !selected(name) {
            continue;
        }
        let x = Tensor::<f32, _>::randn(shape.as_slice(), rng);
        let run = || match name {
            "pool1d max+indices 3/2 64@4096 b8" => {
                std::hint::black_box(nn::max_pool1d_with_indices(&x, &m1).unwrap());
            }
            "pool2d max+indices 3/2 64@112 b1" | "pool2d max+indices 3/2 64@112 b8" => {
                std::hint::black_box(nn::max_pool2d_with_indices(&x, &m2).unwrap());
            }
            "pool3d max+indices 3/2 32@16x56 b2" => {
                std::hint::black_box(nn::max_pool3d_with_indices(&x, &m3).unwrap());
            }
            "adaptive max2d 512@14->7 b8" => {
                std::hint::black_box(nn::adaptive_max_pool2d(&x, [7, 7]).unwrap());
            }
            "adaptive max2d 512@7->1 b8" => {
                std::hint::black_box(nn::adaptive_max_pool2d(&x, [1, 1]).unwrap());
            }
            "adaptive max1d 64@4096->1024 b8" => {
                std::hint::black_box(nn::adaptive_max_pool1d(&x, 1024).unwrap());
            }
            "adaptive max3d 32@16x56->8x28 b2" => {
                std::hint::black_box(nn::adaptive_max_pool3d(&x, [8, 28, 28]).unwrap());
            }
            "adaptive avg1d 64@4096->1024 b8" => {
                std::hint::black_box(nn::adaptive_avg_pool1d(&x, 1024).unwrap());
            }
            "adaptive avg3d 32@16x56->8x28 b2" => {
                std::hint::black_box(nn::adaptive_avg_pool3d(&x, [8, 28, 28]).unwrap());
            }
            _ => {
                std::hint::black_box(nn::adaptive_avg_pool3d(&x, [1, 1, 1]).unwrap());
            }
        };
        let elems = shape.iter().product::<usize>() as f64;
        let out_bytes = if name.contains("max") { 12.0 } else { 4.0 };
        let bytes = 4.0 * elems + out_bytes * elems / per as f64;
        for &n in &threads {
            let ours = ferrotensor::with_num_threads(n, || time_median(1.0, &run));
            t.add(
                &format!("{name}, {n} thr"),
                ours,
                vec![
                    ("onnxruntime", ort.get(&format!("{name}@t{n}")).copied()),
                    ("torch", ort.get(&format!("torch:{name}@t{n}")).copied()),
                ],
                format!("{:.1} GB/s (read + write)", bytes / ours / 1e9),
            );
        }
    }
}
