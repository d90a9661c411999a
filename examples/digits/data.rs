//! The bundled UCI handwritten digits, shared by the `digits` and `mnist_cnn` examples,
//! their tests and the training benchmark: loading, a stratified split, standardisation.

use ferrotensor::prelude::*;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use std::io::Read;

/// The digits data set: `x` is (n, 64) pixels (0..16), `y` the labels 0..9.
pub struct Digits {
    pub x: Tensor<f32, Ix2>,
    pub y: Vec<usize>,
}

/// The data file shipped with the repository.
pub fn default_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/digits.csv.gz")
}

/// Reads the gzip CSV (64 pixel columns then the label).
pub fn load_digits(path: &std::path::Path) -> Result<Digits, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    let (mut pixels, mut y) = (Vec::new(), Vec::new());
    for (row, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != 65 {
            return Err(format!(
                "row {row}: expected 65 columns, got {}",
                fields.len()
            ));
        }
        for f in &fields[..64] {
            pixels.push(
                f.trim()
                    .parse::<f32>()
                    .map_err(|e| format!("row {row}: {e}"))?,
            );
        }
        y.push(
            fields[64]
                .trim()
                .parse::<usize>()
                .map_err(|e| format!("row {row}: {e}"))?,
        );
    }
    let n = y.len();
    let x = Tensor::from_vec(pixels, [n, 64]).map_err(|e| e.to_string())?;
    Ok(Digits { x, y })
}

/// A stratified split: `test_fraction` of every class goes to the test set, picked with `seed`.
pub fn stratified_split(y: &[usize], test_fraction: f64, seed: u64) -> (Vec<isize>, Vec<isize>) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for class in 0..10 {
        let mut idx: Vec<isize> = (0..y.len())
            .filter(|&i| y[i] == class)
            .map(|i| i as isize)
            .collect();
        idx.shuffle(&mut rng);
        let n_test = (idx.len() as f64 * test_fraction).round() as usize;
        test.extend_from_slice(&idx[..n_test]);
        train.extend_from_slice(&idx[n_test..]);
    }
    train.shuffle(&mut rng);
    (train, test)
}

/// Standardises columns with the training set's mean and standard deviation (a zero
/// deviation becomes 1, so constant pixels stay 0).
pub fn standardise(
    train: &Tensor<f32, IxDyn>,
    others: &[&Tensor<f32, IxDyn>],
) -> Vec<Tensor<f32, IxDyn>> {
    let mean = train.mean_axes(&[0], false).expect("axis 0");
    let std = train
        .std_axes(&[0], false, 0)
        .expect("axis 0")
        .mapv(|s| if s > 0.0 { s } else { 1.0 });
    std::iter::once(train)
        .chain(others.iter().copied())
        .map(|t| &(t - &mean) / &std)
        .collect()
}

/// Class labels as the `i64` tensor the cross-entropy loss takes.
pub fn labels(y: &[usize]) -> Tensor<i64, Ix1> {
    Tensor::from_vec(y.iter().map(|&c| c as i64).collect(), [y.len()]).expect("length")
}

/// The fraction of predictions equal to the truth.
pub fn accuracy(pred: &[usize], truth: &[usize]) -> f32 {
    pred.iter().zip(truth).filter(|(p, t)| p == t).count() as f32 / truth.len() as f32
}

/// One pass over the rows of `x` in shuffled mini-batches of `batch`: `step(rows,
/// labels)` trains on each and returns its loss; the result is the mean batch loss.
/// `on_batch(done, total)` reports progress.
pub fn shuffled_epoch(
    x: &Tensor<f32, IxDyn>,
    y: &[usize],
    batch: usize,
    rng: &mut rand::rngs::StdRng,
    mut step: impl FnMut(&Tensor<f32, IxDyn>, &Tensor<i64, Ix1>) -> Result<f32>,
    mut on_batch: impl FnMut(usize, usize),
) -> Result<f32> {
    let n = x.shape()[0];
    let mut order: Vec<isize> = (0..n as isize).collect();
    order.shuffle(rng);
    let total = n.div_ceil(batch);
    let mut sum = 0.0f32;
    for (b, chunk) in order.chunks(batch).enumerate() {
        let yb: Vec<usize> = chunk.iter().map(|&i| y[i as usize]).collect();
        sum += step(&x.index_select(0, chunk)?, &labels(&yb))?;
        on_batch(b + 1, total);
    }
    Ok(sum / total.max(1) as f32)
}

/// The train and test rows of a split, with their labels.
pub struct Split {
    pub x_train: Tensor<f32, IxDyn>,
    pub x_test: Tensor<f32, IxDyn>,
    pub y_train: Vec<usize>,
    pub y_test: Vec<usize>,
}

/// Picks the rows of a split (`train_rows` limits the training set, for quick tests).
pub fn split(data: &Digits, seed: u64, train_rows: Option<usize>) -> Split {
    let (mut train_idx, test_idx) = stratified_split(&data.y, 0.2, seed);
    if let Some(n) = train_rows {
        train_idx.truncate(n);
    }
    let x = data.x.view().into_dyn();
    let pick = |idx: &[isize]| idx.iter().map(|&i| data.y[i as usize]).collect::<Vec<_>>();
    Split {
        x_train: x.index_select(0, &train_idx).expect("rows in range"),
        x_test: x.index_select(0, &test_idx).expect("rows in range"),
        y_train: pick(&train_idx),
        y_test: pick(&test_idx),
    }
}
