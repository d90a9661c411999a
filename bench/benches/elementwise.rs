//! Element-wise benchmarks: ferrotensor vs ndarray (parallel `Zip` where it has one) vs
//! NumPy, in one run, on f32 `[4096, 4096]`, plus a STREAM triad for the machine's
//! bandwidth. Run: `cargo bench -p ferrotensor-bench --bench elementwise`;
//! `FT_BENCH_FILTER=add_t,add` runs only the cases whose NumPy key (see
//! `bench/py/elementwise.py`) contains one of the given strings, and skips the small,
//! threshold and memory-policy sections.
//!
//! The machine is shared, so every contestant is measured in two rounds (NumPy before
//! and after the Rust rounds) and the faster median of each is kept.

use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, time_median, triad_gbs};
use ndarray::{Array2, Zip};
use std::hint::black_box;

const BUDGET: f64 = 1.0;
const ROUNDS: usize = 2;

/// One case: our closure, the ndarray peer's closure, the NumPy key, bytes moved.
struct Case<'a> {
    name: &'static str,
    ours: Box<dyn FnMut() + 'a>,
    peer: Box<dyn FnMut() + 'a>,
    numpy: &'static str,
    traffic: f64,
}

fn main() {
    println!("{}", ferrotensor_bench::cpu_line());
    let filtered = std::env::var("FT_BENCH_FILTER").is_ok_and(|f| !f.trim().is_empty());
    let n = 4096;
    let bytes = (n * n * 4) as f64;
    let fa = |i: usize, j: usize| ((i * n + j) % 1000) as f32 * 1e-3 - 0.5;
    let fb = |i: usize, j: usize| ((i * 7 + j * 3) % 1000) as f32 * 1e-3;
    let a = Tensor::<f32, _>::from_shape_fn([n, n], |i: &[usize]| fa(i[0], i[1]));
    let b = Tensor::<f32, _>::from_shape_fn([n, n], |i: &[usize]| fb(i[0], i[1]));
    let row = Tensor::<f32, _>::from_shape_fn([n], |i: &[usize]| i[0] as f32);
    let (ad, bd) = (a.view().into_dyn(), b.view().into_dyn());
    let na = Array2::<f32>::from_shape_fn((n, n), |(i, j)| fa(i, j));
    let nb = Array2::<f32>::from_shape_fn((n, n), |(i, j)| fb(i, j));
    let nrow = ndarray::Array1::<f32>::from_shape_fn(n, |i| i as f32);
    let m = 256;
    let sa = Tensor::<f32, _>::from_shape_fn([m, m], |i: &[usize]| fa(i[0], i[1]));
    let sb = Tensor::<f32, _>::from_shape_fn([m, m], |i: &[usize]| fb(i[0], i[1]));
    let nsa = Array2::<f32>::from_shape_fn((m, m), |(i, j)| fa(i, j));
    let nsb = Array2::<f32>::from_shape_fn((m, m), |(i, j)| fb(i, j));
    let (s, ns) = (
        Tensor::<f32, _>::ones([64, 64]),
        Array2::<f32>::ones((64, 64)),
    );

    // Results agree, and every peer writes a row-major result, before anything is timed.
    let peer_t = Zip::from(&na).and(nb.t()).par_map_collect(|&x, &y| x + y);
    assert!(peer_t.is_standard_layout());
    assert_eq!((&a + &b.t()).to_vec(), peer_t.into_raw_vec_and_offset().0);
    // ndarray's `Zip::from(na.t()).par_map_collect` keeps the input's (column-major)
    // order, which is no transpose at all; the parallel peer writes a row-major array.
    let nd_copy_t = || {
        let mut out = Array2::<f32>::zeros((n, n));
        Zip::from(&mut out).and(na.t()).par_for_each(|o, &x| *o = x);
        out
    };
    assert!(nd_copy_t().is_standard_layout());
    assert_eq!(
        a.t().to_owned().to_vec(),
        nd_copy_t().into_raw_vec_and_offset().0
    );

    let mut cases = vec![
        Case {
            name: "a + b",
            ours: Box::new(|| drop(black_box(&a + &b))),
            peer: Box::new(|| {
                drop(black_box(
                    Zip::from(&na).and(&nb).par_map_collect(|&x, &y| x + y),
                ))
            }),
            numpy: "add",
            traffic: 3.0 * bytes,
        },
        Case {
            name: "a + row",
            ours: Box::new(|| drop(black_box(&a + &row))),
            peer: Box::new(|| {
                drop(black_box(
                    Zip::from(&na)
                        .and_broadcast(&nrow)
                        .par_map_collect(|&x, &y| x + y),
                ))
            }),
            numpy: "add_row",
            traffic: 2.0 * bytes,
        },
        Case {
            name: "a + b.t()",
            ours: Box::new(|| drop(black_box(&a + &b.t()))),
            peer: Box::new(|| {
                drop(black_box(
                    Zip::from(&na).and(nb.t()).par_map_collect(|&x, &y| x + y),
                ))
            }),
            numpy: "add_t",
            traffic: 3.0 * bytes,
        },
        Case {
            name: "copy of a.t()",
            ours: Box::new(|| drop(black_box(a.t().to_owned()))),
            // parallel Zip into a row-major array (ndarray's serial
            // `as_standard_layout` is 2-3x slower here)
            peer: Box::new(|| {
                drop(black_box(nd_copy_t()));
            }),
            numpy: "copy_t",
            traffic: 2.0 * bytes,
        },
        // The one-read-one-write limit of the transposed copy (and of `a + b.t()`'s
        // transposing tiles): the same copy without the transpose.
        Case {
            name: "copy of a",
            ours: Box::new(|| drop(black_box(a.to_owned()))),
            peer: Box::new(|| drop(black_box(Zip::from(&na).par_map_collect(|&x| x)))),
            numpy: "plain_copy",
            traffic: 2.0 * bytes,
        },
        // In cache (one thread, under the parallel threshold): what the transposing
        // tiles cost without memory traffic.
        Case {
            name: "256² a + b.t() (in cache)",
            ours: Box::new(|| drop(black_box(&sa + &sb.t()))),
            peer: Box::new(|| {
                drop(black_box(
                    Zip::from(&nsa).and(nsb.t()).map_collect(|&x, &y| x + y),
                ))
            }),
            numpy: "small_add_t",
            traffic: 3.0 * (m * m * 4) as f64,
        },
        Case {
            name: "256² copy of a.t() (in cache)",
            ours: Box::new(|| drop(black_box(sa.t().to_owned()))),
            peer: Box::new(|| drop(black_box(nsa.t().as_standard_layout().into_owned()))),
            numpy: "small_copy_t",
            traffic: 2.0 * (m * m * 4) as f64,
        },
        Case {
            name: "exp(a)",
            ours: Box::new(|| drop(black_box(a.exp()))),
            peer: Box::new(|| drop(black_box(Zip::from(&na).par_map_collect(|&x| x.exp())))),
            numpy: "exp",
            traffic: 2.0 * bytes,
        },
        Case {
            name: "relu(a)",
            ours: Box::new(|| drop(black_box(a.relu()))),
            peer: Box::new(|| drop(black_box(Zip::from(&na).par_map_collect(|&x| x.max(0.0))))),
            numpy: "relu",
            traffic: 2.0 * bytes,
        },
        Case {
            name: "a * 2.0 + 1.0",
            ours: Box::new(|| drop(black_box(&a * 2.0 + 1.0))),
            // ndarray's own expression reuses the temporary too, but serially; the
            // parallel peer does the same two passes with Zip.
            peer: Box::new(|| {
                let mut c = Zip::from(&na).par_map_collect(|&x| x * 2.0);
                c.par_mapv_inplace(|x| x + 1.0);
                drop(black_box(c))
            }),
            numpy: "axpb",
            traffic: 4.0 * bytes,
        },
        Case {
            name: "a + b (IxDyn)",
            ours: Box::new(|| drop(black_box(&ad + &bd))),
            peer: Box::new(|| {
                drop(black_box(
                    Zip::from(&na).and(&nb).par_map_collect(|&x, &y| x + y),
                ))
            }),
            numpy: "add",
            traffic: 3.0 * bytes,
        },
    ];

    cases.retain(|c| ferrotensor_bench::selected(c.numpy));
    // `FT_BENCH_COLLAPSE=1`: back the inputs with huge pages (MADV_COLLAPSE, Linux ≥ 6.1)
    // to see what the TLB costs the transposed cases; prints the process's huge pages.
    #[cfg(target_os = "linux")]
    if std::env::var_os("FT_BENCH_COLLAPSE").is_some() {
        const MADV_COLLAPSE: libc::c_int = 25;
        let huge = || {
            let r = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
            r.lines()
                .filter(|l| l.starts_with("AnonHugePages"))
                .collect::<String>()
        };
        println!("before MADV_COLLAPSE: {}", huge());
        for t in [&a, &b] {
            let (p, len, huge_page) = (t.as_ptr() as usize, n * n * 4, 2usize << 20);
            let (start, end) = (p.next_multiple_of(huge_page), (p + len) & !(huge_page - 1));
            // SAFETY: the range lies inside the tensor's allocation; MADV_COLLAPSE only
            // changes how its pages are backed, never their contents.
            let rc =
                unsafe { libc::madvise(start as *mut libc::c_void, end - start, MADV_COLLAPSE) };
            println!("MADV_COLLAPSE returned {rc}");
        }
        println!("after: {}", huge());
    }
    let np_before = numpy_times("elementwise.py");
    let mut stream = triad_gbs(256 << 20);
    let mut best = vec![(f64::INFINITY, f64::INFINITY); cases.len()];
    let (mut small_ours, mut small_nd) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..ROUNDS {
        for (c, b) in cases.iter_mut().zip(best.iter_mut()) {
            b.0 = b.0.min(time_median(BUDGET, &mut c.ours));
            b.1 = b.1.min(time_median(BUDGET, &mut c.peer));
        }
        if filtered {
            continue;
        }
        // the parallel threshold must not slow small tensors down
        small_ours = small_ours.min(time_median(0.2, || drop(black_box(&s + &s))));
        small_nd = small_nd.min(time_median(0.2, || drop(black_box(&ns + &ns))));
    }
    // The triad again after the rounds (not between them: freeing its 256 MB slows the
    // case that follows); the better of the two, so a busy moment cannot lower it.
    stream = stream.max(triad_gbs(256 << 20));
    let np_after = numpy_times("elementwise.py");
    let np = |k: &str| match (np_before.get(k), np_after.get(k)) {
        (Some(x), Some(y)) => Some(x.min(*y)),
        (x, y) => x.or(y).copied(),
    };

    // The memory policy's options on the three cases that allocate the most, each
    // with the output dropped every iteration: the default (cache, freed by a
    // background thread after 1 s idle), no cache (fresh memory, huge pages from
    // 4 MiB), and, for comparison only, glibc keeping every freed buffer mapped
    // (`mallopt`, process-wide and irreversible: measured last).
    let policy_cases: &[&str] = if filtered {
        &[]
    } else {
        &["a + b", "exp(a)", "copy of a.t()"]
    };
    let mut policy = vec![[f64::INFINITY; 3]; cases.len()];
    // Resident memory 2 s after the last call, before and after the default's rounds:
    // the default gives the outputs' memory back.
    let idle_rss = || {
        std::thread::sleep(std::time::Duration::from_secs(2));
        ferrotensor_bench::resident_bytes().unwrap_or(0) as f64 / 1048576.0
    };
    let mut rss = [idle_rss(), 0.0];
    for (mode, label) in ["default", "cache off", "cache off + glibc retains"]
        .iter()
        .enumerate()
        .filter(|_| !filtered)
    {
        match mode {
            1 => ferrotensor::memory::set_buffer_cache_limit(0),
            2 => {
                assert!(ferrotensor_bench::retain_large_buffers() || cfg!(not(target_env = "gnu")))
            }
            _ => {}
        }
        for _ in 0..ROUNDS {
            for (c, r) in cases.iter_mut().zip(policy.iter_mut()) {
                if policy_cases.contains(&c.name) {
                    r[mode] = r[mode].min(time_median(BUDGET, &mut c.ours));
                }
            }
        }
        if mode == 0 {
            rss[1] = idle_rss();
        }
        eprintln!("memory policy: {label} measured");
    }
    ferrotensor::memory::set_buffer_cache_limit(ferrotensor::memory::DEFAULT_CACHE_LIMIT_BYTES);

    let mut t = Table::default();
    for (c, &(ours, nd)) in cases.iter().zip(&best) {
        let gbs = c.traffic / ours / 1e9;
        let note = format!("{gbs:.1} GB/s ({:.0}% of triad)", gbs / stream * 100.0);
        t.add(
            c.name,
            ours,
            vec![("ndarray", Some(nd)), ("numpy", np(c.numpy))],
            note,
        );
    }
    if !filtered {
        t.add(
            "64×64 a + a",
            small_ours,
            vec![("ndarray", Some(small_nd)), ("numpy", np("small_add"))],
            format!("{:.2} µs", small_ours * 1e6),
        );
    }

    // Where does splitting over threads start to pay? `a + a` on n elements with one
    // thread and with the split forced, around the engine's PARALLEL_THRESHOLD.
    println!(
        "\n### Parallel threshold sweep (engine threshold: {} elements)\n",
        ferrotensor::iter::PARALLEL_THRESHOLD
    );
    println!("| elements | 1 thread (µs) | all threads, forced split (µs) |\n|---|---|---|");
    for log in [12, 14, 15, 16, 17, 18, 20]
        .into_iter()
        .filter(|_| !filtered)
    {
        let x = Tensor::<f32, _>::ones([1usize << log]);
        let one =
            ferrotensor::with_num_threads(1, || time_median(0.2, || drop(black_box(&x + &x))));
        let all = ferrotensor::iter::with_parallel_threshold(0, || {
            time_median(0.2, || drop(black_box(&x + &x)))
        });
        println!("| 2^{log} | {:.1} | {:.1} |", one * 1e6, all * 1e6);
    }

    println!(
        "\nSTREAM triad (256 MB, all threads, best of ordinary and streaming stores): {stream:.1} GB/s"
    );
    t.print("element-wise, f32 [4096, 4096]");

    println!("\n### Memory policy: time per call with the output dropped every iteration (ms)\n");
    println!(
        "| case | default (cache, released after 1 s idle) | cache off (fresh memory, huge pages) | cache off + glibc retains (mallopt, bench only) |"
    );
    println!("|---|---|---|---|");
    for (c, r) in cases.iter().zip(&policy) {
        if policy_cases.contains(&c.name) {
            println!(
                "| {} | {:.3} | {:.3} | {:.3} |",
                c.name,
                r[0] * 1e3,
                r[1] * 1e3,
                r[2] * 1e3
            );
        }
    }
    println!(
        "\nResident memory 2 s after the last call: {:.0} MiB before the default's rounds, {:.0} MiB after them",
        rss[0], rss[1]
    );
}
