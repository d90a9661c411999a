//! The device column: element-wise, reduction, matmul and softmax on the CPU and on
//! the GPU adapter wgpu finds, data already resident on each (transfers excluded; the
//! device time includes waiting for the queue). Prints the adapter, then per case the
//! CPU time, the device time, the device's GB/s (element-wise, reduction, softmax) or
//! GFLOP/s (matmul), and device / CPU. Without an adapter it says so and exits.
//!
//! On lavapipe (Mesa's software Vulkan, which runs on the CPU) the numbers are only a
//! smoke test of the path, not a GPU measurement.
//!
//! `cargo bench -p ferrotensor-bench --features wgpu --bench device`

use ferrotensor::device::{Device, DeviceTensor};
use ferrotensor::prelude::*;
use ferrotensor_bench::time_median;
use std::hint::black_box;

struct Row {
    case: String,
    cpu: f64,
    dev: f64,
    rate: String,
}

fn run_dev<T: ferrotensor::device::DeviceElement, D: Dimension>(
    dev: &Device,
    f: impl Fn() -> DeviceTensor<T, D>,
) -> f64 {
    time_median(1.0, || {
        black_box(f());
        dev.synchronize().unwrap();
    })
}

fn main() {
    let dev = match Device::wgpu() {
        Ok(d) => d,
        Err(e) => {
            println!("device bench skipped: {e}");
            return;
        }
    };
    println!(
        "device: {dev:?}, largest buffer {} MiB",
        dev.max_buffer_bytes() >> 20
    );
    let n = 4096;
    let mut rng = rand::rng();
    let a = Tensor::<f32, _>::randn([n, n], &mut rng);
    let b = Tensor::<f32, _>::randn([n, n], &mut rng);
    let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
    let bytes = (n * n * 4) as f64;
    let gbs = |moved: f64, t: f64| format!("{:.1} GB/s", moved / t / 1e9);
    let mut rows = Vec::new();
    let mut row = |case: &str, cpu: f64, dev: f64, rate: String| {
        rows.push(Row {
            case: case.into(),
            cpu,
            dev,
            rate,
        })
    };

    let cpu = time_median(1.0, || drop(black_box(&a + &b)));
    let d = run_dev(&dev, || &ga + &gb);
    row("a + b [4096, 4096] f32", cpu, d, gbs(3.0 * bytes, d));
    let cpu = time_median(1.0, || drop(black_box(a.exp())));
    let d = run_dev(&dev, || ga.exp());
    row("exp(a) [4096, 4096] f32", cpu, d, gbs(2.0 * bytes, d));
    let cpu = time_median(1.0, || drop(black_box(a.t().to_contiguous())));
    let d = run_dev(&dev, || ga.t().to_contiguous().unwrap());
    row(
        "a.t() to contiguous [4096, 4096]",
        cpu,
        d,
        gbs(2.0 * bytes, d),
    );
    let cpu = time_median(1.0, || drop(black_box(a.sum_axes(&[0, 1], false).unwrap())));
    let d = run_dev(&dev, || ga.sum().unwrap());
    row("sum [4096, 4096] f32", cpu, d, gbs(bytes, d));
    let cpu = time_median(1.0, || drop(black_box(a.sum_axes(&[0], false).unwrap())));
    let d = run_dev(&dev, || ga.sum_axes(&[0], false).unwrap());
    row("sum axis 0 [4096, 4096] f32", cpu, d, gbs(bytes, d));
    let cpu = time_median(1.0, || drop(black_box(a.sum_axes(&[1], false).unwrap())));
    let d = run_dev(&dev, || ga.sum_axes(&[1], false).unwrap());
    row("sum axis 1 [4096, 4096] f32", cpu, d, gbs(bytes, d));
    let cpu = time_median(1.0, || {
        drop(black_box(ferrotensor::nn::softmax(&a, -1).unwrap()))
    });
    let d = run_dev(&dev, || ga.softmax(-1).unwrap());
    row("softmax(-1) [4096, 4096] f32", cpu, d, gbs(2.0 * bytes, d));
    for m in [512usize, 1024] {
        let (x, y) = (
            a.slice(s![..m, ..m]).to_owned(),
            b.slice(s![..m, ..m]).to_owned(),
        );
        let (gx, gy) = (x.to_device(&dev).unwrap(), y.to_device(&dev).unwrap());
        let cpu = time_median(1.0, || drop(black_box(x.matmul(&y).unwrap())));
        let d = run_dev(&dev, || gx.matmul(&gy).unwrap());
        let flops = 2.0 * (m * m * m) as f64;
        row(
            &format!("matmul [{m}, {m}] f32"),
            cpu,
            d,
            format!("{:.1} GFLOP/s", flops / d / 1e9),
        );
    }

    println!(
        "\n### device column ({} CPU threads)\n",
        ferrotensor::num_threads()
    );
    println!("| case | cpu (ms) | device (ms) | device rate | device / cpu |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {:.3} | {:.3} | {} | {:.2} |",
            r.case,
            r.cpu * 1e3,
            r.dev * 1e3,
            r.rate,
            r.dev / r.cpu
        );
    }
}
