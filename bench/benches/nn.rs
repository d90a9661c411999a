//! `ferrotensor::nn` benchmarks: conv2d (ResNet-style shapes) against candle-core and
//! the gemm crate's large-matmul rate, conv3d against the gemm crate's rate on the
//! same M, N, K, softmax against candle-nn and NumPy.
//!
//! `cargo bench -p ferrotensor-bench --bench nn`; `FT_BENCH_FILTER=softmax` (or `conv`,
//! `gemm`) runs only the cases whose names contain one of the comma-separated parts.

use ferrotensor::nn::{self, Conv2dArgs};
use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, selected, time_median, time_min, triad_gbs};
use rand::SeedableRng;

/// Seconds and GFLOP/s of the gemm crate on an `m × k` by `k × n` f32 matmul with all
/// threads.
fn gemm_rate(m: usize, n: usize, k: usize) -> (f64, f64) {
    let a = vec![1.0f32; m * k];
    let b = vec![0.5f32; k * n];
    let mut c = vec![0.0f32; m * n];
    let threads = rayon::current_num_threads();
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
                gemm::Parallelism::Rayon(threads),
            )
        };
        std::hint::black_box(&c);
    });
    (t, 2.0 * (m * n * k) as f64 / t / 1e9)
}

/// conv3d (vol2col + GEMM) against the gemm crate on the same `M = O`,
/// `N = batch·OD·OH·OW`, `K = C·kD·kH·kW`.
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
    let (gemm_t, gemm_gflops) = gemm_rate(m, n, k);
    let g = flops / ours / 1e9;
    t.add(
        "conv3d (1,64,8,28,28)×(64,64,3,3,3) p1",
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
        gemm_rate(2048, 2048, 2048)
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
    if selected("conv") {
        conv3d_case(&mut t, &mut rng);
    }
    if selected("softmax") {
        softmax_cases(&mut t, &np, &dev);
    }
    t.print("nn, f32");
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
