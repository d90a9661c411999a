//! Shared by the autograd tests: gradients against central finite differences in f64,
//! and inputs with unusual layouts.
#![allow(dead_code)]

use ferrotensor::layout::{Layout, unravel_index};
use ferrotensor::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;

/// Step of the central differences.
const H: f64 = 1e-6;
/// Largest accepted relative error (absolute below magnitude 1).
pub const TOL: f64 = 1e-6;

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// Standard normal values of `shape`.
pub fn randn(shape: &[usize], rng: &mut StdRng) -> Tensor<f64> {
    Tensor::<f64, _>::randn(shape.to_vec(), rng)
}

/// Uniform values in `[lo, hi)` of `shape`.
pub fn uniform(shape: &[usize], lo: f64, hi: f64, rng: &mut StdRng) -> Tensor<f64> {
    Tensor::<f64, _>::rand(shape.to_vec(), rng).mapv(|u| lo + (hi - lo) * u)
}

/// The same values stored column-major (an owned tensor with reversed strides).
pub fn col_major(t: &Tensor<f64>) -> Tensor<f64> {
    let data = t.t().to_contiguous().into_vec();
    let shape: Vec<usize> = t.shape().to_vec();
    let mut strides = vec![0isize; shape.len()];
    let mut s = 1isize;
    for (k, &d) in shape.iter().enumerate() {
        strides[k] = s;
        s *= d.max(1) as isize;
    }
    Tensor::from_raw_parts(
        data,
        Layout::new(
            IxDyn::from(&shape[..]),
            <IxDyn as Dimension>::strides_from(&strides).unwrap(),
            0,
        ),
    )
    .unwrap()
}

/// The same values stored with axis 0 reversed (a negative stride on axis 0).
pub fn flipped_storage(t: &Tensor<f64>) -> Tensor<f64> {
    if t.ndim() == 0 || t.is_empty() {
        return t.clone();
    }
    let data = t.flip(0).unwrap().to_contiguous().into_vec();
    let shape = t.shape().to_vec();
    let mut strides: Vec<isize> = Tensor::<f64, _>::zeros(shape.clone()).strides().to_vec();
    strides[0] = -strides[0];
    let offset = (shape[0] - 1) * (-strides[0]) as usize;
    Tensor::from_raw_parts(
        data,
        Layout::new(
            IxDyn::from(&shape[..]),
            <IxDyn as Dimension>::strides_from(&strides).unwrap(),
            offset,
        ),
    )
    .unwrap()
}

/// A fixed seed from a name.
fn seed_of(name: &str) -> u64 {
    name.bytes().fold(1469598103934665603u64, |h, b| {
        (h ^ b as u64).wrapping_mul(1099511628211)
    })
}

/// Checks the gradients `f` gives every input against central differences of
/// `Σ w ⊙ f(inputs)` (fixed random weights `w`), elementwise with relative error
/// `≤ TOL`. Returns the largest error seen.
pub fn gradcheck(
    name: &str,
    inputs: &[Tensor<f64>],
    f: impl Fn(&[Var<f64>]) -> Result<Var<f64>>,
) -> f64 {
    let vars: Vec<Var<f64>> = inputs.iter().map(|t| Var::new(t.clone())).collect();
    let out = f(&vars).unwrap_or_else(|e| panic!("{name}: forward failed: {e}"));
    let w = Var::constant(randn(out.shape(), &mut rng(seed_of(name))));
    let weighted = |o: &Var<f64>| (o * &w).sum();
    let grads = weighted(&out)
        .backward()
        .unwrap_or_else(|e| panic!("{name}: backward failed: {e}"));
    let eval = |ins: &[Tensor<f64>]| -> f64 {
        let vs: Vec<Var<f64>> = ins.iter().map(|t| Var::constant(t.clone())).collect();
        weighted(&f(&vs).expect("forward"))
            .value()
            .to_scalar()
            .expect("0-d")
    };
    let mut worst = 0.0f64;
    for (i, t) in inputs.iter().enumerate() {
        let g = grads
            .get(&vars[i])
            .unwrap_or_else(|| panic!("{name}: no gradient for input {i}"));
        assert_eq!(g.shape(), t.shape(), "{name}: gradient shape of input {i}");
        let gv = g.to_vec();
        for (j, &analytic) in gv.iter().enumerate() {
            let idx = unravel_index(j, t.shape()).unwrap();
            let mut plus = inputs.to_vec();
            plus[i][&idx[..]] += H;
            let mut minus = inputs.to_vec();
            minus[i][&idx[..]] -= H;
            let numeric = (eval(&plus) - eval(&minus)) / (2.0 * H);
            let err = (analytic - numeric).abs() / analytic.abs().max(numeric.abs()).max(1.0);
            assert!(
                err <= TOL,
                "{name}: input {i} of shape {:?}, element {idx:?}: analytic {analytic}, numeric {numeric} (rel. error {err:e})",
                t.shape()
            );
            worst = worst.max(err);
        }
    }
    worst
}

/// Random dims in `1..=4` for `n` axes.
pub fn dims(n: usize, rng: &mut StdRng) -> Vec<usize> {
    use rand::Rng;
    (0..n).map(|_| rng.random_range(1..=4)).collect()
}

/// Pairs of shapes that broadcast: both ways, added and stretched axes, size-1,
/// zero-length and 0-d operands, with random lengths.
pub fn broadcast_pairs(rng: &mut StdRng) -> Vec<(Vec<usize>, Vec<usize>)> {
    let d = dims(4, rng);
    let (a, b, c) = (d[0] + 1, d[1] + 1, d[2]);
    vec![
        (vec![a, b], vec![a, b]),
        (vec![a, b], vec![b]),
        (vec![b], vec![a, b]),
        (vec![a, 1, c], vec![b, 1]),
        (vec![1, b], vec![a, 1]),
        (vec![c, 1, b], vec![1, a, 1]),
        (vec![], vec![a, b]),
        (vec![a, b], vec![]),
        (vec![1], vec![a]),
        (vec![0, b], vec![b]),
        (vec![a, 0], vec![1, 0]),
    ]
}

/// A leaf of some layout and the view of it that reads the base values.
pub type Layouted = (&'static str, Tensor<f64>, fn(&Var<f64>) -> Var<f64>);

/// All axes of `v` reversed (a view).
fn reversed(v: &Var<f64>) -> Var<f64> {
    v.t()
}

/// Every other row of `v`, from the last backwards (a view with stride −2 on axis 0).
fn every_other_reversed(v: &Var<f64>) -> Var<f64> {
    v.slice(s![..;-2])
}

/// The same values (of any rank ≥ 1) as leaves of several layouts and as views of
/// other leaves: `(label, leaf, view)` with `view(Var::new(leaf))` reading `base`.
pub fn layouts(base: &Tensor<f64>) -> Vec<Layouted> {
    let shape = base.shape().to_vec();
    let n0 = shape[0];
    let transposed_leaf = base.t().to_contiguous();
    // Rows 2i + 1 hold base row n0 − 1 − i, even rows zeros: `..;-2` picks base in order.
    let mut doubled_shape = shape.clone();
    doubled_shape[0] = 2 * n0;
    let doubled = Tensor::<f64, _>::from_shape_fn(doubled_shape, |i| {
        if i[0] % 2 == 1 {
            let mut j = i.to_vec();
            j[0] = (2 * n0 - 1 - i[0]) / 2;
            base[&j[..]]
        } else {
            0.0
        }
    });
    vec![
        ("contiguous", base.clone(), |v| v.clone()),
        ("column-major leaf", col_major(base), |v| v.clone()),
        ("flipped leaf", flipped_storage(base), |v| v.clone()),
        ("permuted view", transposed_leaf, reversed),
        ("reversed strided view", doubled, every_other_reversed),
    ]
}

/// A one-input operation for [`layout_sweep`]: its name, the operation, and whether it
/// needs more than a few elements (see the sweep's `too_small`).
pub type OneInput = (&'static str, fn(&Var<f64>) -> Result<Var<f64>>, bool);

/// Checks the gradient of every operation in `ops` on random values of each shape,
/// read through every layout of [`layouts`]; operations marked as needing more skip
/// the shapes where `too_small(shape)`. Returns the number of checks made.
pub fn layout_sweep(
    seed: u64,
    shapes: &[Vec<usize>],
    ops: &[OneInput],
    too_small: impl Fn(&[usize]) -> bool,
) -> usize {
    let mut r = rng(seed);
    let mut checked = 0;
    for shape in shapes {
        let base = randn(shape, &mut r);
        for (label, leaf, view) in layouts(&base) {
            for &(name, op, needs_more) in ops {
                if needs_more && too_small(shape) {
                    continue;
                }
                gradcheck(
                    &format!("{name} on {label} {shape:?}"),
                    std::slice::from_ref(&leaf),
                    |v| op(&view(&v[0])),
                );
                checked += 1;
            }
        }
    }
    checked
}
