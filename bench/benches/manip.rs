//! Combining / padding / sorting benchmarks: ferrotensor vs NumPy (same run).
//!
//! `cargo bench -p ferrotensor-bench --bench manip`

use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, time_median};

/// Uniform `[0, 1)` f32 values from a xorshift generator.
fn uniform(shape: Vec<usize>, seed: u64) -> Tensor<f32, IxDyn> {
    let mut s = seed.max(1);
    Tensor::from_shape_fn(shape, move |_| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    })
}

fn main() {
    // The NumPy child must not inherit OpenBLAS tuning meant for other benchmarks.
    for var in ["OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"] {
        // SAFETY: single-threaded at this point (no rayon work has started yet).
        unsafe { std::env::remove_var(var) };
    }
    let np = numpy_times("manip.py");
    let mut t = Table::default();
    let v = uniform(vec![10_000_000], 1);
    let ours = time_median(2.0, || {
        std::hint::black_box(v.sort(0).unwrap());
    });
    t.add(
        "sort f32 1e7 (stable)",
        ours,
        vec![
            ("numpy", np.get("sort_1e7").copied()),
            ("numpy stable", np.get("sort_1e7_stable").copied()),
        ],
        format!("{:.0} M elem/s", 1e7 / ours / 1e6),
    );
    let m = uniform(vec![4096, 4096], 2);
    let ours = time_median(2.0, || {
        std::hint::black_box(m.sort(1).unwrap());
    });
    t.add(
        "sort f32 [4096, 4096] axis 1",
        ours,
        vec![("numpy", np.get("sort_rows").copied())],
        format!("{:.0} M elem/s", 4096.0 * 4096.0 / ours / 1e6),
    );
    let blocks: Vec<Tensor<f32, IxDyn>> =
        (0..8).map(|k| uniform(vec![1024, 4096], 10 + k)).collect();
    let bytes = 2.0 * 8.0 * 1024.0 * 4096.0 * 4.0;
    for axis in [0, 1] {
        let ours = time_median(1.0, || {
            std::hint::black_box(
                concatenate(&blocks.iter().map(|t| t as _).collect::<Vec<_>>(), axis).unwrap(),
            );
        });
        t.add(
            &format!("concatenate 8 x [1024, 4096] axis {axis}"),
            ours,
            vec![("numpy", np.get(&format!("concat{axis}")).copied())],
            format!("{:.1} GB/s", bytes / ours / 1e9),
        );
    }
    let ours = time_median(1.0, || {
        std::hint::black_box(m.pad(&[(2, 2)], PadMode::Reflect).unwrap());
    });
    t.add(
        "pad reflect [4096, 4096] by 2",
        ours,
        vec![("numpy", np.get("pad_reflect").copied())],
        format!("{:.1} GB/s", 2.0 * 4100.0 * 4100.0 * 4.0 / ours / 1e9),
    );
    t.print("manip, f32");
}
