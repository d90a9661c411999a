//! Element-wise benchmarks: ferrotensor vs ndarray (parallel `Zip` where it has one) vs
//! NumPy, in one run, on f32 `[4096, 4096]`, plus a STREAM triad for the machine's
//! bandwidth. Run: `cargo bench -p ferrotensor-bench --bench elementwise`.

use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, time_median, triad_gbs};
use ndarray::{Array2, Zip};
use std::hint::black_box;

const BUDGET: f64 = 1.5;

fn main() {
    let n = 4096;
    let bytes = (n * n * 4) as f64;
    let fa = |i: usize, j: usize| ((i * n + j) % 1000) as f32 * 1e-3 - 0.5;
    let fb = |i: usize, j: usize| ((i * 7 + j * 3) % 1000) as f32 * 1e-3;
    let a = Tensor::<f32, _>::from_shape_fn([n, n], |i: &[usize]| fa(i[0], i[1]));
    let b = Tensor::<f32, _>::from_shape_fn([n, n], |i: &[usize]| fb(i[0], i[1]));
    let row = Tensor::<f32, _>::from_shape_fn([n], |i: &[usize]| i[0] as f32);
    let na = Array2::<f32>::from_shape_fn((n, n), |(i, j)| fa(i, j));
    let nb = Array2::<f32>::from_shape_fn((n, n), |(i, j)| fb(i, j));
    let nrow = ndarray::Array1::<f32>::from_shape_fn(n, |i| i as f32);

    // Results agree before anything is timed.
    assert_eq!(
        (&a + &b.t()).to_vec(),
        Zip::from(&na)
            .and(nb.t())
            .map_collect(|&x, &y| x + y)
            .into_raw_vec_and_offset()
            .0
    );

    let np = numpy_times("elementwise.py");
    let stream = triad_gbs(256 << 20);
    let mut t = Table::default();
    let gbs = |traffic: f64, secs: f64| {
        format!(
            "{:.1} GB/s ({:.0}% of triad)",
            traffic / secs / 1e9,
            traffic / secs / 1e9 / stream * 100.0
        )
    };

    let ours = time_median(BUDGET, || drop(black_box(&a + &b)));
    let nd = time_median(BUDGET, || {
        drop(black_box(
            Zip::from(&na).and(&nb).par_map_collect(|&x, &y| x + y),
        ))
    });
    t.add(
        "a + b",
        ours,
        vec![("ndarray", Some(nd)), ("numpy", np.get("add").copied())],
        gbs(3.0 * bytes, ours),
    );

    let ours = time_median(BUDGET, || drop(black_box(&a + &row)));
    let nd = time_median(BUDGET, || {
        drop(black_box(
            Zip::from(&na)
                .and_broadcast(&nrow)
                .par_map_collect(|&x, &y| x + y),
        ))
    });
    t.add(
        "a + row",
        ours,
        vec![("ndarray", Some(nd)), ("numpy", np.get("add_row").copied())],
        gbs(2.0 * bytes, ours),
    );

    assert!(
        Zip::from(&na)
            .and(nb.t())
            .par_map_collect(|&x, &y| x + y)
            .is_standard_layout()
    );
    let ours = time_median(BUDGET, || drop(black_box(&a + &b.t())));
    let nd = time_median(BUDGET, || {
        drop(black_box(
            Zip::from(&na).and(nb.t()).par_map_collect(|&x, &y| x + y),
        ))
    });
    t.add(
        "a + b.t()",
        ours,
        vec![("ndarray", Some(nd)), ("numpy", np.get("add_t").copied())],
        gbs(3.0 * bytes, ours),
    );

    let ours = time_median(BUDGET, || drop(black_box(a.t().to_owned())));
    let nd_serial = time_median(BUDGET, || {
        drop(black_box(na.t().as_standard_layout().into_owned()))
    });
    // ndarray's `Zip::from(na.t()).par_map_collect` keeps the input's (column-major)
    // order, which is no transpose at all; the parallel peer writes a row-major array.
    let nd_par_copy = || {
        let mut out = Array2::<f32>::zeros((n, n));
        Zip::from(&mut out).and(na.t()).par_for_each(|o, &x| *o = x);
        out
    };
    assert!(nd_par_copy().is_standard_layout());
    let nd_par = time_median(BUDGET, || drop(black_box(nd_par_copy())));
    t.add(
        "copy of a.t()",
        ours,
        vec![
            ("ndarray", Some(nd_serial.min(nd_par))),
            ("numpy", np.get("copy_t").copied()),
        ],
        gbs(2.0 * bytes, ours),
    );

    let ours = time_median(BUDGET, || drop(black_box(a.exp())));
    let nd = time_median(BUDGET, || {
        drop(black_box(Zip::from(&na).par_map_collect(|&x| x.exp())))
    });
    t.add(
        "exp(a)",
        ours,
        vec![("ndarray", Some(nd)), ("numpy", np.get("exp").copied())],
        gbs(2.0 * bytes, ours),
    );

    let ours = time_median(BUDGET, || drop(black_box(a.relu())));
    let nd = time_median(BUDGET, || {
        drop(black_box(Zip::from(&na).par_map_collect(|&x| x.max(0.0))))
    });
    t.add(
        "relu(a)",
        ours,
        vec![("ndarray", Some(nd)), ("numpy", np.get("relu").copied())],
        gbs(2.0 * bytes, ours),
    );

    let ours = time_median(BUDGET, || drop(black_box(&a * 2.0 + 1.0)));
    let nd_expr = time_median(BUDGET, || drop(black_box(&na * 2.0 + 1.0)));
    let nd_par = time_median(BUDGET, || {
        let mut c = Zip::from(&na).par_map_collect(|&x| x * 2.0);
        c.par_mapv_inplace(|x| x + 1.0);
        drop(black_box(c))
    });
    t.add(
        "a * 2.0 + 1.0",
        ours,
        vec![
            ("ndarray", Some(nd_expr.min(nd_par))),
            ("numpy", np.get("axpb").copied()),
        ],
        gbs(4.0 * bytes, ours),
    );

    // Dynamic rank and a small case (the parallel threshold must not slow it down).
    let ad = a.view().into_dyn();
    let bd = b.view().into_dyn();
    let ours = time_median(BUDGET, || drop(black_box(&ad + &bd)));
    t.add(
        "a + b (IxDyn)",
        ours,
        vec![("ndarray", Some(nd)), ("numpy", np.get("add").copied())],
        String::new(),
    );
    let s = Tensor::<f32, _>::ones([64, 64]);
    let ns = Array2::<f32>::ones((64, 64));
    let ours = time_median(0.3, || drop(black_box(&s + &s)));
    let nd = time_median(0.3, || drop(black_box(&ns + &ns)));
    t.add(
        "64×64 a + a",
        ours,
        vec![
            ("ndarray", Some(nd)),
            ("numpy", np.get("small_add").copied()),
        ],
        String::new(),
    );

    // Where does splitting over threads start to pay? `a + a` on n elements with one
    // thread and with all, around the engine's PARALLEL_THRESHOLD.
    println!(
        "\nparallel threshold sweep (engine threshold: {} elements)",
        ferrotensor::iter::PARALLEL_THRESHOLD
    );
    println!("| elements | 1 thread (µs) | all threads, forced split (µs) |\n|---|---|---|");
    for log in [12, 14, 15, 16, 17, 18, 20] {
        let x = Tensor::<f32, _>::ones([1usize << log]);
        let one =
            ferrotensor::with_num_threads(1, || time_median(0.2, || drop(black_box(&x + &x))));
        let all = ferrotensor::iter::with_parallel_threshold(0, || {
            time_median(0.2, || drop(black_box(&x + &x)))
        });
        println!("| 2^{log} | {:.1} | {:.1} |", one * 1e6, all * 1e6);
    }

    println!("\nSTREAM triad (256 MB, all threads): {stream:.1} GB/s");
    t.print("element-wise, f32 [4096, 4096]");
}
