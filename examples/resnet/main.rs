//! ResNet-18 inference with `ferrotensor::nn`'s prepared layers, from torchvision
//! weights exported as `.safetensors` or `.npz` (`state_dict` names: `conv1.weight`,
//! `bn1.*`, `layer1.0.conv1.weight`, …, `fc.weight`, `fc.bias`).
//!
//! ```text
//! cargo run --release --example resnet -- --weights W.safetensors --input X.npy --output Y.npy
//! ```
//! reads an NCHW `f32` batch and writes the logits `(N, 1000)`. Without `--weights` the
//! weights are random (from `--seed`), without `--input` the batch is random
//! (`--batch`, `--size`), so it runs on a fresh clone with no files. `--threads N`
//! sets the thread count; `--repeat R` times R forward passes after a warm-up and prints
//! `median_ms: X`; `--profile` (with `--repeat`) also prints each layer's fastest, median
//! and slowest time.
//!
//! Exporting real weights (Python, with torch and torchvision):
//! ```text
//! import torch, torchvision, safetensors.torch as st
//! m = torchvision.models.resnet18(weights="IMAGENET1K_V1")
//! st.save_file({k: v for k, v in m.state_dict().items() if "num_batches" not in k}, "W.safetensors")
//! ```

#[path = "../common/cli.rs"]
mod cli;
mod model;

use ferrotensor::io::DynTensor;
use ferrotensor::prelude::*;
use model::{Config, ResNet, Weights, random_weights};
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::time::Instant;

const HELP: &str = "usage: resnet [--weights W.safetensors|W.npz] [--input X.npy] [--output Y.npy]
              [--threads N] [--repeat R] [--profile] [--seed S] [--batch N] [--size PIXELS]

  --weights  torchvision resnet18 state_dict (safetensors or npz, f32); random if absent
  --input    NCHW f32 batch (.npy); random (--batch × 3 × --size × --size) if absent
  --output   write the logits (N, 1000) as .npy
  --threads  threads for the forward pass (default: all)
  --repeat   time R forward passes after a warm-up and print `median_ms: X`
  --profile  with --repeat: also print each layer's time (`layer_ms: NAME MIN MEDIAN MAX`)
  --seed     seed of the random weights and input (default 0)
  --batch    batch size of the random input (default 1)
  --size     height and width of the random input (default 224)";

#[derive(Default)]
struct Args {
    weights: Option<String>,
    input: Option<String>,
    output: Option<String>,
    threads: Option<usize>,
    repeat: usize,
    profile: bool,
    seed: u64,
    batch: usize,
    size: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        batch: 1,
        size: 224,
        ..Default::default()
    };
    cli::parse_flags(
        HELP,
        &mut [
            ("--weights", &mut a.weights),
            ("--input", &mut a.input),
            ("--output", &mut a.output),
            ("--threads", &mut a.threads),
            ("--repeat", &mut a.repeat),
            ("--seed", &mut a.seed),
            ("--batch", &mut a.batch),
            ("--size", &mut a.size),
            ("--profile", &mut a.profile),
        ],
    )?;
    // Zero threads, images or pixels mean one.
    a.threads = a.threads.map(|t| t.max(1));
    a.batch = a.batch.max(1);
    a.size = a.size.max(1);
    Ok(a)
}

/// Every tensor of a `.safetensors` or `.npz` file, by name.
fn load(path: &str) -> ferrotensor::Result<BTreeMap<String, DynTensor>> {
    if path.ends_with(".npz") {
        ferrotensor::io::npz::NpzReader::open(path)?.read_all()
    } else {
        Ok(ferrotensor::io::safetensors::read_safetensors(path)?.tensors)
    }
}

/// Prints the fastest, median and slowest time of each layer over `repeat` timed passes.
fn profile(net: &ResNet<f32>, x: &Tensor<f32, IxDyn>, repeat: usize) -> ferrotensor::Result<()> {
    let mut laps: Vec<Vec<(String, f64)>> = Vec::new();
    for _ in 0..repeat {
        let mut t = Vec::new();
        net.forward_timed(x, &mut t)?;
        laps.push(t);
    }
    for (i, (name, _)) in laps[0].iter().enumerate() {
        let mut v: Vec<f64> = laps.iter().map(|l| l[i].1 * 1e3).collect();
        v.sort_by(f64::total_cmp);
        let (lo, med, hi) = (v[0], v[v.len() / 2], v[v.len() - 1]);
        println!("layer_ms: {name} {lo:.3} {med:.3} {hi:.3}");
    }
    Ok(())
}

fn main() {
    // Errors printed with `Display` (they name the tensor and the shapes), exit status 1.
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    if let Some(t) = args.threads {
        ferrotensor::set_num_threads(t);
    }
    let cfg = Config::resnet18();
    let t0 = Instant::now();
    let map = match &args.weights {
        Some(p) => load(p)?,
        None => random_weights(&cfg, args.seed),
    };
    let net = ResNet::<f32>::new(&Weights::new(&map), &cfg)?;
    drop(map);
    let x: Tensor<f32, IxDyn> = match &args.input {
        Some(p) => {
            let t: Tensor<f32, IxDyn> = ferrotensor::io::npy::read_npy(p)?;
            if t.ndim() != 4 || t.shape()[1] != 3 {
                return Err(
                    format!("input {p} has shape {:?}, expected (N, 3, H, W)", t.shape()).into(),
                );
            }
            t
        }
        None => {
            let mut rng = rand::rngs::StdRng::seed_from_u64(args.seed.wrapping_add(1));
            Tensor::<f32, _>::randn([args.batch, 3, args.size, args.size], &mut rng).into_dyn()
        }
    };
    eprintln!(
        "resnet18: {} weights, input {:?}, {} threads (prepared in {:.0} ms)",
        args.weights.as_deref().unwrap_or("random"),
        x.shape(),
        ferrotensor::num_threads(),
        t0.elapsed().as_secs_f64() * 1e3
    );
    let logits = net.forward(&x)?;
    if args.repeat > 0 {
        let mut times: Vec<f64> = (0..args.repeat)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(net.forward(&x).expect("same input as the warm-up"));
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!("median_ms: {:.3}", times[times.len() / 2]);
        if args.profile {
            profile(&net, &x, args.repeat)?;
        }
    }
    if let Some(p) = &args.output {
        ferrotensor::io::npy::write_npy(p, &logits)?;
    }
    let top = logits.slice(s![0]).argmax()?;
    eprintln!("image 0: class {top} (logit {:.4})", logits[&[0, top][..]]);
    Ok(())
}
