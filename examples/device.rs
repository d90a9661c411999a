//! The same small computation on the CPU and on a GPU through wgpu: scores = x @ wᵀ,
//! softmax over each row, then each row's sum of squares and the column sums.
//!
//! ```sh
//! cargo run --release --example device --features wgpu
//! ```
//!
//! Without a GPU adapter it says so and runs on the CPU alone.

use ferrotensor::device::{Backend, Cpu, TensorOps};
use ferrotensor::prelude::*;
use std::time::Instant;

/// Row sums of squares and column sums, on the host.
type Sums = (Tensor<f32, IxDyn>, Tensor<f32, IxDyn>);

/// One function body for either device.
fn compute<B: Backend>(dev: &B, x: &Tensor<f32, Ix2>, w: &Tensor<f32, Ix2>) -> Result<Sums> {
    let (x, w) = (dev.upload(x)?, dev.upload(w)?);
    let p = x.matmul(&w.t())?.softmax(-1)?;
    let sq = p.try_mul(&p)?.sum_axes(&[1], false)?;
    let cols = p.sum_axes(&[0], false)?;
    Ok((sq.to_host()?, cols.to_host()?))
}

fn timed<B: Backend>(dev: &B, x: &Tensor<f32, Ix2>, w: &Tensor<f32, Ix2>) -> Result<(Sums, f64)> {
    compute(dev, x, w)?; // warm-up: compiles the device's kernels once
    let runs = 5;
    let t = Instant::now();
    let mut out = compute(dev, x, w)?;
    for _ in 1..runs {
        out = compute(dev, x, w)?;
    }
    Ok((out, t.elapsed().as_secs_f64() * 1e3 / runs as f64))
}

fn main() -> Result<()> {
    let mut rng = rand::rng();
    let (n, k, m) = (512, 256, 384);
    let x = Tensor::<f32, _>::randn([n, k], &mut rng);
    let w = Tensor::<f32, _>::randn([m, k], &mut rng) * (1.0 / (k as f32).sqrt());
    println!("x ({n}, {k}) @ w.T ({k}, {m}) -> softmax(-1) -> row sums of squares, column sums");

    let ((sq_cpu, cols_cpu), ms_cpu) = timed(&Cpu, &x, &w)?;
    println!("cpu: {ms_cpu:8.2} ms per run (including the upload into a shared tensor)");
    println!("  first row sums of squares: {:?}", &sq_cpu.to_vec()[..4]);
    println!("  first column sums:         {:?}", &cols_cpu.to_vec()[..4]);

    #[cfg(feature = "wgpu")]
    match ferrotensor::device::Device::wgpu() {
        Ok(dev) => {
            let ((sq, cols), ms) = timed(&dev, &x, &w)?;
            println!(
                "gpu: {ms:8.2} ms per run on {} via {} (including transfers both ways)",
                dev.name(),
                dev.backend()
            );
            println!("  first row sums of squares: {:?}", &sq.to_vec()[..4]);
            println!("  first column sums:         {:?}", &cols.to_vec()[..4]);
            let diff = |a: &Tensor<f32, IxDyn>, b: &Tensor<f32, IxDyn>| {
                a.iter()
                    .zip(b.iter())
                    .map(|(p, q)| (p - q).abs())
                    .fold(0.0f32, f32::max)
            };
            println!(
                "  largest difference from the cpu: {:.2e} (sums of squares), {:.2e} (column sums)",
                diff(&sq, &sq_cpu),
                diff(&cols, &cols_cpu)
            );
        }
        Err(e) => println!("gpu: not run: {e}"),
    }
    #[cfg(not(feature = "wgpu"))]
    println!("gpu: not built (run with --features wgpu)");
    Ok(())
}
