//! Trains a small convolutional network on the bundled UCI handwritten digits (8×8,
//! MNIST-like): conv 3×3 → ReLU → 2×2 max pool → linear, written with `Var`
//! operations and trained through `loss.backward()` with Adam.
//!
//! Run: `cargo run --release --example mnist_cnn [-- --epochs 25 --channels 32 --seed 7]`

#[path = "../common/cli.rs"]
mod cli;
mod cnn;
#[path = "../digits/data.rs"]
mod data;

use cnn::{Cnn, Config, images};
use data::{accuracy, load_digits, standardise};
use rand::SeedableRng;
use std::time::Instant;

fn parse_args() -> Result<Config, String> {
    let mut cfg = Config::default();
    cli::parse_flags(
        "usage: mnist_cnn [--epochs N] [--channels N] [--seed N]",
        &mut [
            ("--epochs", &mut cfg.epochs),
            ("--channels", &mut cfg.channels),
            ("--seed", &mut cfg.seed),
        ],
    )?;
    Ok(cfg)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = parse_args()?;
    let data = load_digits(&data::default_path())?;
    let split = data::split(&data, cfg.seed, None);
    let scaled = standardise(&split.x_train, &[&split.x_test]);
    let (x_train, x_test) = (images(&scaled[0]), images(&scaled[1]));
    println!(
        "digits: {} train / {} test images of 8×8; CNN conv3×3(1 → {c}) → ReLU → maxpool 2×2 → linear({} → 10)",
        split.y_train.len(),
        split.y_test.len(),
        cfg.channels * 16,
        c = cfg.channels
    );
    let mut model = Cnn::new(&cfg, split.y_train.len().div_ceil(cfg.batch));
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed + 1);
    let start = Instant::now();
    for epoch in 1..=cfg.epochs {
        let loss = model.epoch(&x_train, &split.y_train, &cfg, &mut rng)?;
        let train_acc = accuracy(&model.predict(&x_train), &split.y_train);
        let test_acc = accuracy(&model.predict(&x_test), &split.y_test);
        println!(
            "epoch {epoch:>3}  loss {loss:.4}  train acc {:.1}%  test acc {:.1}%",
            100.0 * train_acc,
            100.0 * test_acc
        );
    }
    let elapsed = start.elapsed();
    let acc = accuracy(&model.predict(&x_test), &split.y_test);
    println!(
        "\ntest accuracy: {:.2}% ({} images)",
        100.0 * acc,
        split.y_test.len()
    );
    println!(
        "training time: {:.2} s for {} epochs",
        elapsed.as_secs_f64(),
        cfg.epochs
    );
    Ok(())
}
