//! Reduction benchmarks: ferrotensor vs ndarray 0.17 (serial and rayon variants, the
//! best of them is the peer) vs NumPy, f32 [4096, 4096] unless noted.
//!
//! Inputs of both Rust libraries are allocated with `MADV_HUGEPAGE`, as NumPy does for
//! every large array: on this VM, 4 KiB pages cost every library about 3× on a 64 MiB
//! streaming read (NumPy's `a.sum()` goes from 4.6 ms to 16 ms without them).
//!
//! `cargo bench -p ferrotensor-bench --bench reductions`; `FT_BENCH_FILTER=sum_all,sum_1`
//! runs only the cases whose NumPy key (see `bench/py/reductions.py`) contains one of
//! the given strings.

use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, read_gbs, time_median};
use ndarray::{Array1, Array2, ArrayView1, Axis, Zip};
use std::hint::black_box;

/// Deterministic pseudo-random values in [-1, 1) (the NumPy script uses the same LCG).
fn lcg(n: usize) -> Vec<f32> {
    let mut s: u64 = 12345;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    };
    let v: Vec<f32> = (0..n).map(|_| next()).collect();
    huge_vec(n, |i| v[i])
}

fn nd_argmax(r: ArrayView1<f32>) -> usize {
    let mut best = (f32::NEG_INFINITY, 0);
    for (i, &x) in r.iter().enumerate() {
        if x > best.0 {
            best = (x, i);
        }
    }
    best.1
}

fn nd_max(r: ArrayView1<f32>) -> f32 {
    r.fold(f32::NEG_INFINITY, |a, &b| a.max(b))
}

fn nd_lse(r: ArrayView1<f32>) -> f32 {
    let m = nd_max(r);
    r.fold(0.0f32, |s, &x| s + (x - m).exp()).ln() + m
}

/// Median time of `f` (its result is kept alive with `black_box`).
fn tm<R>(mut f: impl FnMut() -> R) -> f64 {
    time_median(1.0, || {
        black_box(f());
    })
}

/// A vector of `n` copies of `v` whose pages are advised as transparent huge pages
/// (what NumPy does for every large array), so that Rust peers and NumPy read memory
/// under the same TLB conditions.
fn huge_vec<T: Copy>(n: usize, f: impl Fn(usize) -> T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        let bytes = n * std::mem::size_of::<T>();
        let start = v.as_mut_ptr() as usize;
        let page = 4096;
        let lo = start.div_ceil(page) * page;
        let hi = (start + bytes) / page * page;
        if hi > lo {
            // SAFETY: the range lies inside the vector's allocation; madvise only
            // changes how the kernel backs it.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
        }
    }
    v.extend((0..n).map(f));
    v
}

/// Best (smallest) of several peer variants.
fn best(ts: &[f64]) -> Option<f64> {
    ts.iter().copied().reduce(f64::min)
}

fn main() {
    println!("{}", ferrotensor_bench::cpu_line());
    let n = 4096;
    let data = lcg(n * n);
    let a = Tensor::from_vec(huge_vec(n * n, |i| data[i]), [n, n]).unwrap();
    let na = Array2::from_shape_vec((n, n), huge_vec(n * n, |i| data[i])).unwrap();
    let v = Tensor::from_vec(lcg(10_000_000), [10_000_000]).unwrap();
    let nv = Array1::from_vec(huge_vec(v.size(), |i| v.as_slice().unwrap()[i]));
    let np = numpy_times("reductions.py");
    let mut t = Table::default();
    let read = read_gbs(a.as_slice().unwrap());
    println!("read bandwidth of the 64 MiB input, same run: {read:.1} GB/s");
    let gbs = |s: f64| {
        let g = (n * n * 4) as f64 / s / 1e9;
        format!("{g:.1} GB/s = {:.0} % of read", 100.0 * g / read)
    };
    let sel = ferrotensor_bench::selected;

    if sel("sum_all") {
        let ours = tm(|| black_box(a.sum()).to_bits() as usize);
        let nd = best(&[
            tm(|| black_box(na.sum()).to_bits() as usize),
            tm(|| {
                use ndarray::parallel::prelude::*;
                black_box(na.par_iter().copied().sum::<f32>()).to_bits() as usize
            }),
        ]);
        t.add(
            "sum of all",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("sum_all").copied())],
            gbs(ours),
        );
    }

    if sel("mean_all") {
        let ours = tm(|| black_box(a.mean()).to_bits() as usize);
        let nd = best(&[tm(|| black_box(na.mean().unwrap()).to_bits() as usize)]);
        t.add(
            "mean of all",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("mean_all").copied())],
            gbs(ours),
        );
    }

    if sel("sum_0") {
        let ours = tm(|| black_box(a.sum_axes(&[0], false).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(na.sum_axis(Axis(0))).len()),
            tm(|| black_box(Zip::from(na.lanes(Axis(0))).par_map_collect(|c| c.sum())).len()),
        ]);
        t.add(
            "sum axis 0",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("sum_0").copied())],
            gbs(ours),
        );
    }

    if sel("sum_1") {
        let ours = tm(|| black_box(a.sum_axes(&[1], false).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(na.sum_axis(Axis(1))).len()),
            tm(|| black_box(Zip::from(na.rows()).par_map_collect(|r| r.sum())).len()),
        ]);
        t.add(
            "sum axis 1",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("sum_1").copied())],
            gbs(ours),
        );
    }

    if sel("mean_1") {
        let ours = tm(|| black_box(a.mean_axes(&[1], false).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(na.mean_axis(Axis(1)).unwrap()).len()),
            tm(|| black_box(Zip::from(na.rows()).par_map_collect(|r| r.mean().unwrap())).len()),
        ]);
        t.add(
            "mean axis 1",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("mean_1").copied())],
            gbs(ours),
        );
    }

    if sel("sum_t0") {
        let ours = tm(|| black_box(a.t().sum_axes(&[0], false).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(na.t().sum_axis(Axis(0))).len()),
            tm(|| black_box(Zip::from(na.t().lanes(Axis(0))).par_map_collect(|c| c.sum())).len()),
        ]);
        t.add(
            "sum axis 0 of a.t()",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("sum_t0").copied())],
            gbs(ours),
        );
    }

    for ax in [0usize, 1] {
        if !sel(&format!("max_{ax}")) {
            continue;
        }
        let ours = tm(|| black_box(a.max_axes(&[ax as isize], false).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(na.fold_axis(Axis(ax), f32::NEG_INFINITY, |&x, &y| x.max(y))).len()),
            tm(|| black_box(Zip::from(na.lanes(Axis(ax))).par_map_collect(|c| nd_max(c))).len()),
        ]);
        let case = format!("max axis {ax}");
        t.add(
            &case,
            ours,
            vec![
                ("ndarray", nd),
                ("numpy", np.get(&format!("max_{ax}")).copied()),
            ],
            gbs(ours),
        );
    }

    if sel("min_1") {
        let ours = tm(|| black_box(a.min_axes(&[1], false).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(na.fold_axis(Axis(1), f32::INFINITY, |&x, &y| x.min(y))).len()),
            tm(|| {
                black_box(
                    Zip::from(na.rows())
                        .par_map_collect(|c| c.fold(f32::INFINITY, |a, &b| a.min(b))),
                )
                .len()
            }),
        ]);
        t.add(
            "min axis 1",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("min_1").copied())],
            gbs(ours),
        );
    }

    if sel("argmax_1") {
        let ours = tm(|| black_box(a.argmax_axis(1).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(na.map_axis(Axis(1), nd_argmax)).len()),
            tm(|| black_box(Zip::from(na.rows()).par_map_collect(nd_argmax)).len()),
        ]);
        t.add(
            "argmax axis 1",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("argmax_1").copied())],
            gbs(ours),
        );
    }

    if sel("argmax_all") {
        let ours = tm(|| black_box(v.argmax().unwrap()));
        let nd = best(&[
            tm(|| black_box(nd_argmax(nv.view()))),
            tm(|| {
                use rayon::prelude::*;
                let s = nv.as_slice().unwrap();
                black_box(
                    s.par_chunks(1 << 16)
                        .enumerate()
                        .map(|(c, ch)| {
                            let i = nd_argmax(ArrayView1::from(ch));
                            (ch[i], c * (1 << 16) + i)
                        })
                        .reduce(
                            || (f32::NEG_INFINITY, 0),
                            |x, y| {
                                if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) {
                                    y
                                } else {
                                    x
                                }
                            },
                        )
                        .1,
                )
            }),
        ]);
        let vgbs = format!("{:.1} GB/s", 4e7 / ours / 1e9);
        t.add(
            "argmax of 1e7 vector",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("argmax_all").copied())],
            vgbs,
        );
    }

    if sel("lse_1") {
        let ours = tm(|| black_box(a.logsumexp_axes(&[1], false).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(na.map_axis(Axis(1), nd_lse)).len()),
            tm(|| black_box(Zip::from(na.rows()).par_map_collect(nd_lse)).len()),
        ]);
        t.add(
            "logsumexp axis 1",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("lse_1").copied())],
            gbs(ours),
        );
    }

    if sel("lse_all") {
        let ours = tm(|| black_box(a.logsumexp()));
        let nd = best(&[tm(|| {
            black_box(nd_lse(ArrayView1::from(na.as_slice().unwrap())))
        })]);
        t.add(
            "logsumexp of all",
            ours,
            vec![("ndarray", nd), ("numpy", np.get("lse_all").copied())],
            gbs(ours),
        );
    }

    // Down the rows, and down the rows of the transpose (memory rows again).
    for (key, name, at) in [
        ("lse_0", "logsumexp axis 0", a.view()),
        ("lse_t0", "logsumexp axis 0 of a.t()", a.t()),
    ] {
        if !sel(key) {
            continue;
        }
        let nat = if key == "lse_0" { na.view() } else { na.t() };
        let ours = tm(|| black_box(at.logsumexp_axes(&[0], false).unwrap()).size());
        let nd = best(&[
            tm(|| black_box(nat.map_axis(Axis(0), nd_lse)).len()),
            tm(|| black_box(Zip::from(nat.columns()).par_map_collect(nd_lse)).len()),
        ]);
        t.add(
            name,
            ours,
            vec![("ndarray", nd), ("numpy", np.get(key).copied())],
            gbs(ours),
        );
    }

    for ax in [0usize, 1] {
        if !sel(&format!("var_{ax}")) {
            continue;
        }
        let ours = tm(|| black_box(a.var_axes(&[ax as isize], false, 0).unwrap()).size());
        let nd = best(&[tm(|| black_box(na.var_axis(Axis(ax), 0.0)).len())]);
        t.add(
            &format!("var axis {ax}"),
            ours,
            vec![
                ("ndarray", nd),
                ("numpy", np.get(&format!("var_{ax}")).copied()),
            ],
            gbs(ours),
        );
    }

    t.print("reductions, f32 [4096, 4096] (argmax of all: 1e7 f32)");
    rstsr_cases(&a, &data, read);
    softmax_cases(&a, &np);
}

/// The same reductions against RSTSR 0.10 (`DeviceFaer`, rayon, its threads set to
/// ours), ferrotensor timed again beside it; cases as `rstsr_<numpy key>` for
/// `FT_BENCH_FILTER` (`FT_BENCH_FILTER=rstsr` runs them all).
fn rstsr_cases(a: &Tensor<f32, Ix2>, data: &[f32], read: f64) {
    use rstsr::prelude::*;
    let n = a.shape()[0];
    let threads = ferrotensor::threads::num_threads();
    let dev = DeviceFaer::new(threads);
    let ra = rt::asarray((huge_vec(n * n, |i| data[i]), [n, n].c(), &dev));
    let gbs = |s: f64| {
        let g = (n * n * 4) as f64 / s / 1e9;
        format!("{g:.1} GB/s = {:.0} % of read", 100.0 * g / read)
    };
    let mut t = Table::default();
    let mut case = |key: &str, name: &str, ours: &dyn Fn() -> usize, peer: &dyn Fn() -> usize| {
        if !ferrotensor_bench::selected(&format!("rstsr_{key}")) {
            return;
        }
        let o = tm(ours);
        let p = tm(peer);
        t.add(name, o, vec![("rstsr", Some(p))], gbs(o));
    };
    case(
        "sum_all",
        "sum of all",
        &|| a.sum().to_bits() as usize,
        &|| ra.sum().to_bits() as usize,
    );
    case(
        "mean_all",
        "mean of all",
        &|| a.mean().to_bits() as usize,
        &|| ra.mean().to_bits() as usize,
    );
    case(
        "sum_0",
        "sum axis 0",
        &|| a.sum_axes(&[0], false).unwrap().size(),
        &|| ra.sum_axes(0).size(),
    );
    case(
        "sum_1",
        "sum axis 1",
        &|| a.sum_axes(&[1], false).unwrap().size(),
        &|| ra.sum_axes(1).size(),
    );
    case(
        "mean_1",
        "mean axis 1",
        &|| a.mean_axes(&[1], false).unwrap().size(),
        &|| ra.mean_axes(1).size(),
    );
    case(
        "sum_t0",
        "sum axis 0 of a.t()",
        &|| a.t().sum_axes(&[0], false).unwrap().size(),
        &|| ra.t().sum_axes(0).size(),
    );
    case(
        "max_0",
        "max axis 0",
        &|| a.max_axes(&[0], false).unwrap().size(),
        &|| ra.max_axes(0).size(),
    );
    case(
        "max_1",
        "max axis 1",
        &|| a.max_axes(&[1], false).unwrap().size(),
        &|| ra.max_axes(1).size(),
    );
    case(
        "min_1",
        "min axis 1",
        &|| a.min_axes(&[1], false).unwrap().size(),
        &|| ra.min_axes(1).size(),
    );
    case(
        "argmax_1",
        "argmax axis 1",
        &|| a.argmax_axis(1).unwrap().size(),
        &|| ra.argmax_axes(1).size(),
    );
    case(
        "var_0",
        "var axis 0",
        &|| a.var_axes(&[0], false, 0).unwrap().size(),
        &|| ra.var_axes(0).size(),
    );
    case(
        "var_1",
        "var axis 1",
        &|| a.var_axes(&[1], false, 0).unwrap().size(),
        &|| ra.var_axes(1).size(),
    );
    t.print(&format!(
        "reductions against RSTSR, f32 [{n}, {n}] ({threads} threads each)"
    ));
}

/// Softmax and log-softmax of the reduction input along the last axis and axis 0,
/// against NumPy, as a fraction of the one-read-one-write limit: the STREAM triad of
/// the same run (3 arrays moved) scaled to 2 arrays. Cases `softmax_last`,
/// `log_softmax_last`, `softmax_axis0`, `log_softmax_axis0` for `FT_BENCH_FILTER`.
fn softmax_cases(a: &Tensor<f32, Ix2>, np: &std::collections::BTreeMap<String, f64>) {
    use ferrotensor::nn;
    let keys = [
        "softmax_last",
        "log_softmax_last",
        "softmax_axis0",
        "log_softmax_axis0",
    ];
    if !keys.iter().any(|k| ferrotensor_bench::selected(k)) {
        return;
    }
    let n = a.shape()[0];
    let triad = ferrotensor_bench::triad_gbs(256 << 20);
    println!(
        "STREAM triad (256 MB, all threads, best of ordinary and streaming stores): {triad:.1} GB/s"
    );
    let mut t = Table::default();
    for key in keys {
        if !ferrotensor_bench::selected(key) {
            continue;
        }
        let axis = if key.ends_with("last") { -1 } else { 0 };
        let ours = if key.starts_with("log") {
            tm(|| nn::log_softmax(a, axis).unwrap().size())
        } else {
            tm(|| nn::softmax(a, axis).unwrap().size())
        };
        let g = 2.0 * (n * n * 4) as f64 / ours / 1e9;
        t.add(
            key,
            ours,
            vec![("numpy", np.get(key).copied())],
            format!(
                "{g:.1} GB/s (read + write) = {:.0} % of the triad",
                100.0 * g / triad
            ),
        );
    }
    t.print(&format!("softmax, f32 [{n}, {n}]"));
}
