//! Order statistics by selection (`median`, `quantile`, `nanmedian`) vs NumPy
//! (`bench/py/stats.py`, the same LCG data as the reductions benchmark).
//!
//! `cargo bench -p ferrotensor-bench --bench stats`

use ferrotensor::prelude::*;
use ferrotensor::reduce::QuantileMethod;
use ferrotensor_bench::{Table, numpy_times, time_median};
use std::hint::black_box;

/// The LCG of `bench/benches/reductions.rs` (values in [-1, 1)).
fn lcg(n: usize) -> Vec<f32> {
    let mut s: u64 = 12345;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn tm<R>(mut f: impl FnMut() -> R) -> f64 {
    time_median(1.0, || {
        black_box(f());
    })
}

fn main() {
    let np = numpy_times("stats.py");
    let mut t = Table::default();
    let v = Tensor::from_vec(lcg(10_000_000), [10_000_000]).unwrap();
    let m = v.reshape([1000, 10_000]).unwrap();
    let lin = QuantileMethod::Linear;
    let q3 = Tensor::from_vec(vec![0.1, 0.5, 0.9], [3]).unwrap();
    let ms = |s: f64| format!("{:.1} M values/s", 1e7 / s / 1e6);

    let ours = tm(|| v.median());
    t.add(
        "median of 1e7 f32",
        ours,
        vec![("numpy", np.get("median_1e7").copied())],
        ms(ours),
    );
    let ours = tm(|| v.quantile(0.3, lin).unwrap());
    t.add(
        "quantile 0.3 of 1e7 f32",
        ours,
        vec![("numpy", np.get("quantile_1e7").copied())],
        ms(ours),
    );
    let ours = tm(|| v.quantile_axes(&q3, &[0], lin, false).unwrap());
    t.add(
        "quantiles [0.1, 0.5, 0.9] of 1e7 f32",
        ours,
        vec![("numpy", np.get("quantile3_1e7").copied())],
        ms(ours),
    );
    let ours = tm(|| v.nanmedian());
    t.add(
        "nanmedian of 1e7 f32",
        ours,
        vec![("numpy", np.get("nanmedian_1e7").copied())],
        ms(ours),
    );
    let ours = tm(|| m.median_axes(&[1], false).unwrap());
    t.add(
        "median of the rows of [1000, 10000] f32",
        ours,
        vec![("numpy", np.get("median_rows").copied())],
        ms(ours),
    );
    let ours = tm(|| m.median_axes(&[0], false).unwrap());
    t.add(
        "median of the columns of [1000, 10000] f32",
        ours,
        vec![("numpy", np.get("median_cols").copied())],
        ms(ours),
    );
    t.print("Order statistics");
}
