//! Trains a 64 → 128 → 10 MLP on the UCI handwritten digits: the forward pass is
//! written with `Var` operations (matmul, broadcasting, `relu`, `cross_entropy`),
//! `loss.backward()` computes the gradients and `optim::Adam` applies them.
//!
//! Run: `cargo run --release --example digits [-- --epochs 30 --hidden 128 --seed 7]`

#[path = "../common/cli.rs"]
mod cli;
mod data;
mod mlp;

use data::{accuracy, load_digits, standardise};
use ferrotensor::prelude::*;
use indicatif::{ProgressBar, ProgressStyle};
use mlp::{Config, Mlp};
use rand::SeedableRng;
use std::time::Instant;

fn parse_args() -> Result<Config, String> {
    let mut cfg = Config::default();
    cli::parse_flags(
        "usage: digits [--epochs N] [--hidden N] [--seed N]",
        &mut [
            ("--epochs", &mut cfg.epochs),
            ("--hidden", &mut cfg.hidden),
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
    let (x_train, x_test) = (&scaled[0], &scaled[1]);
    let (y_train, y_test) = (&split.y_train, &split.y_test);
    println!(
        "digits: {} images of 8×8 pixels, {} train / {} test (stratified, seed {}), MLP 64 → {} → 10",
        data.y.len(),
        y_train.len(),
        y_test.len(),
        cfg.seed,
        cfg.hidden
    );

    let mut model = Mlp::new(cfg.hidden, cfg.lr, cfg.seed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed + 1);
    let (mut losses, mut accs) = (Vec::new(), Vec::new());
    let start = Instant::now();
    let style = ProgressStyle::with_template("epoch {prefix:>3} [{bar:30}] {pos}/{len} {msg}")?
        .progress_chars("=> ");
    for epoch in 1..=cfg.epochs {
        let bar = ProgressBar::new(0)
            .with_style(style.clone())
            .with_prefix(epoch.to_string());
        let stats = model.epoch(x_train, y_train, &cfg, &mut rng, |b, total| {
            bar.set_length(total as u64);
            bar.set_position(b as u64);
        })?;
        let test_acc = accuracy(&model.predict(x_test), y_test);
        let msg = format!(
            "loss {:.4}  train acc {:.1}%  test acc {:.1}%",
            stats.loss,
            100.0 * stats.train_accuracy,
            100.0 * test_acc
        );
        if bar.is_hidden() {
            // Not a terminal (piped output, CI): one plain line per epoch instead of a bar.
            println!("epoch {epoch:>3}  {msg}");
        }
        bar.finish_with_message(msg);
        losses.push(stats.loss);
        accs.push((stats.train_accuracy, test_acc));
    }
    let elapsed = start.elapsed();
    let pred = model.predict(x_test);
    println!(
        "\ntest accuracy: {:.2}% ({} images)",
        100.0 * accuracy(&pred, y_test),
        y_test.len()
    );
    println!(
        "training time: {:.2} s for {} epochs\n",
        elapsed.as_secs_f64(),
        cfg.epochs
    );
    print_confusion(&pred, y_test);
    let svg = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/digits-training.svg");
    std::fs::create_dir_all(svg.parent().expect("target dir"))?;
    std::fs::write(&svg, training_svg(&losses, &accs))?;
    println!("\nloss and accuracy curves written to {}", svg.display());
    Ok(())
}

fn print_confusion(pred: &[usize], truth: &[usize]) {
    let mut m = Tensor::<usize, _>::zeros([10, 10]);
    for (&p, &t) in pred.iter().zip(truth) {
        m[[t, p]] += 1;
    }
    println!("confusion matrix (rows: true digit, columns: predicted)");
    println!(
        "      {}",
        (0..10).map(|c| format!("{c:>4}")).collect::<String>()
    );
    for t in 0..10 {
        let row: String = (0..10).map(|p| format!("{:>4}", m[[t, p]])).collect();
        println!("  {t:>2}  {row}");
    }
}

/// A small hand-written SVG: loss (left axis) and accuracies (right axis) per epoch.
fn training_svg(losses: &[f32], accs: &[(f32, f32)]) -> String {
    let (w, h, pad) = (640.0f32, 360.0f32, 50.0f32);
    let n = losses.len().max(2) as f32 - 1.0;
    let max_loss = losses.iter().copied().fold(f32::MIN, f32::max).max(1e-6);
    let x = |i: usize| pad + (w - 2.0 * pad) * i as f32 / n;
    let y = |v: f32| h - pad - (h - 2.0 * pad) * v;
    let line = |pts: Vec<(f32, f32)>, color: &str| {
        let p: Vec<String> = pts.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
        format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\n",
            p.join(" ")
        )
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    s += &format!("<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n");
    s += &format!(
        "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">ferrotensor digits MLP: training curves</text>\n",
        w / 2.0
    );
    s += &format!(
        "<line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n",
        h - pad,
        w - pad,
        h - pad
    );
    s += &format!(
        "<line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{}\" stroke=\"black\"/>\n",
        h - pad
    );
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">epoch</text>\n",
        w / 2.0,
        h - 15.0
    );
    s += &format!(
        "<text x=\"10\" y=\"{}\">loss (max {max_loss:.3})</text>\n",
        pad - 14.0
    );
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">accuracy 0–100%</text>\n",
        w - 10.0,
        pad - 14.0
    );
    for i in [0, losses.len() / 2, losses.len().saturating_sub(1)] {
        s += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            x(i),
            h - pad + 16.0,
            i + 1
        );
    }
    for (frac, label) in [(0.0, "0%"), (0.5, "50%"), (1.0, "100%")] {
        s += &format!(
            "<text x=\"{}\" y=\"{:.1}\">{label}</text>\n",
            w - pad + 4.0,
            y(frac) + 4.0
        );
        s += &format!(
            "<line x1=\"{pad}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#ddd\"/>\n",
            y(frac),
            w - pad
        );
    }
    s += &line(
        losses
            .iter()
            .enumerate()
            .map(|(i, &l)| (x(i), y(l / max_loss)))
            .collect(),
        "#d62728",
    );
    s += &line(
        accs.iter()
            .enumerate()
            .map(|(i, a)| (x(i), y(a.0)))
            .collect(),
        "#1f77b4",
    );
    s += &line(
        accs.iter()
            .enumerate()
            .map(|(i, a)| (x(i), y(a.1)))
            .collect(),
        "#2ca02c",
    );
    s += &format!(
        "<text x=\"{}\" y=\"{}\" fill=\"#d62728\">loss</text>\n",
        w - 150.0,
        h - pad - 40.0
    );
    s += &format!(
        "<text x=\"{}\" y=\"{}\" fill=\"#1f77b4\">train accuracy</text>\n",
        w - 150.0,
        h - pad - 25.0
    );
    s += &format!(
        "<text x=\"{}\" y=\"{}\" fill=\"#2ca02c\">test accuracy</text>\n",
        w - 150.0,
        h - pad - 10.0
    );
    s += "</svg>\n";
    s
}
