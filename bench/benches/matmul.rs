//! Matrix-product benchmarks: ferrotensor vs the `gemm` crate called directly, ndarray
//! `dot` (matrixmultiply, threaded) and NumPy (OpenBLAS), in one run.
//! Reports GFLOP/s, ours / best peer, and the FMA peak measured in the same run.
//!
//! Every candidate returns a freshly allocated result, as `a % b`, `a.dot(&b)` and
//! `a @ b` do (the gemm peer allocates its output with `vec!`, the batched ndarray peer
//! with `Array3::zeros`).
//!
//! Run: `cargo bench -p ferrotensor-bench --bench matmul` (`FT_BENCH_FILTER=f32_2048`
//! selects cases by key; `RAYON_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MATMUL_NUM_THREADS=1`
//! for one thread: ndarray's matrixmultiply has its own pool).

use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, selected};
use ndarray::{Array2, Array3, Axis};
use std::time::Instant;

/// Median times of several candidates run round-robin (one run each per round), so
/// that load from other processes hits all of them alike; at least 3 rounds, at most 40,
/// about `budget` seconds in total, after one warm-up run each.
fn race(budget: f64, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let t0 = Instant::now();
    fs.iter_mut().for_each(|f| f());
    let first = t0.elapsed().as_secs_f64().max(1e-9);
    let rounds = ((budget / first) as usize).clamp(3, 40);
    let mut ts = vec![Vec::with_capacity(rounds); fs.len()];
    for _ in 0..rounds {
        for (f, t) in fs.iter_mut().zip(ts.iter_mut()) {
            let s = Instant::now();
            f();
            t.push(s.elapsed().as_secs_f64());
        }
    }
    ts.into_iter()
        .map(|mut v| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() / 2]
        })
        .collect()
}

fn data(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i % 17) as f64 * 0.125 - 1.0).collect()
}

fn ours<T: Num>(shape: &[usize]) -> Tensor<T> {
    let n = shape.iter().product();
    Tensor::from_vec(
        data(n).into_iter().map(T::from_f64).collect(),
        shape.to_vec(),
    )
    .unwrap()
}

fn par() -> gemm::Parallelism {
    let n = rayon::current_num_threads();
    if n > 1 {
        gemm::Parallelism::Rayon(n)
    } else {
        gemm::Parallelism::None
    }
}

#[allow(clippy::too_many_arguments)]
/// `c = a · b` through the gemm crate on row-major (or, with `ta`, transposed) operands.
fn gemm_direct<T: Num>(
    m: usize,
    n: usize,
    k: usize,
    a: &[T],
    ta: bool,
    b: &[T],
    c: &mut [T],
    p: gemm::Parallelism,
) {
    let (a_rs, a_cs) = if ta { (1, m as isize) } else { (k as isize, 1) };
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    // SAFETY: the slices hold the m×k, k×n and m×n matrices the strides describe.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr(),
            a_cs,
            a_rs,
            b.as_ptr(),
            1,
            n as isize,
            T::zero(),
            T::one(),
            false,
            false,
            false,
            p,
        )
    }
}

fn square<T: Num + ndarray::LinalgScalar>(
    rows: &mut Vec<Measured>,
    n: usize,
    key: &str,
    label: &str,
) {
    if !selected(key) {
        return;
    }
    let (a, b) = (ours::<T>(&[n, n]), ours::<T>(&[n, n]));
    let (av, bv) = (a.to_vec(), b.to_vec());
    let (na, nb) = (
        Array2::from_shape_vec((n, n), av.clone()).unwrap(),
        Array2::from_shape_vec((n, n), bv.clone()).unwrap(),
    );
    let budget = 2.0;
    let r = race(
        budget * 3.0,
        &mut [
            &mut || drop(std::hint::black_box(&a % &b)),
            &mut || gemm_direct(n, n, n, &av, false, &bv, &mut vec![T::zero(); n * n], par()),
            &mut || drop(std::hint::black_box(na.dot(&nb))),
        ],
    );
    let (o, g, nd) = (r[0], r[1], r[2]);
    let fl = 2.0 * (n * n * n) as f64;
    rows.push(Measured::new(label, fl, [o, g, nd], key, String::new()));
    if key == "f32_2048" && selected("f32_2048_at") {
        let at = a.t().to_owned(); // so that at.t() == a, stored transposed
        let atv = at.to_vec();
        let nat = Array2::from_shape_vec((n, n), atv.clone()).unwrap();
        let r = race(
            budget * 4.0,
            &mut [
                &mut || drop(std::hint::black_box(at.t() % &b)),
                &mut || gemm_direct(n, n, n, &atv, true, &bv, &mut vec![T::zero(); n * n], par()),
                &mut || drop(std::hint::black_box(nat.t().dot(&nb))),
                &mut || drop(std::hint::black_box(&a % &b)),
            ],
        );
        let (o_t, g_t, nd_t, o) = (r[0], r[1], r[2], r[3]);
        let extra = format!("; {:.2}× our contiguous time", o_t / o);
        let times = [o_t, g_t, nd_t];
        rows.push(Measured::new(
            "f32 a.t() @ b 2048³",
            fl,
            times,
            "f32_2048_at",
            extra,
        ));
    }
}

fn batched(rows: &mut Vec<Measured>, batch: usize, n: usize, key: &str, label: &str) {
    if !selected(key) {
        return;
    }
    let shape = [batch, n, n];
    let (a, b) = (ours::<f32>(&shape), ours::<f32>(&shape));
    let (av, bv) = (a.to_vec(), b.to_vec());
    let (na, nb) = (
        Array3::from_shape_vec((batch, n, n), av.clone()).unwrap(),
        Array3::from_shape_vec((batch, n, n), bv.clone()).unwrap(),
    );
    let budget = 1.5;
    let r = race(
        budget * 3.0,
        &mut [
            &mut || drop(std::hint::black_box(&a % &b)),
            // The gemm crate per matrix, parallel over the batch with rayon (its best use here).
            &mut || {
                use rayon::prelude::*;
                let mut c = vec![0f32; batch * n * n];
                c.par_chunks_mut(n * n).enumerate().for_each(|(i, ci)| {
                    let s = i * n * n;
                    let (x, y) = (&av[s..s + n * n], &bv[s..s + n * n]);
                    gemm_direct(n, n, n, x, false, y, ci, gemm::Parallelism::None)
                })
            },
            &mut || {
                let mut nc = Array3::<f32>::zeros((batch, n, n));
                ndarray::Zip::from(nc.axis_iter_mut(Axis(0)))
                    .and(na.axis_iter(Axis(0)))
                    .and(nb.axis_iter(Axis(0)))
                    .par_for_each(|mut c, a, b| {
                        ndarray::linalg::general_mat_mul(1.0, &a, &b, 0.0, &mut c)
                    });
            },
        ],
    );
    let (o, g, nd) = (r[0], r[1], r[2]);
    let fl = 2.0 * (batch * n * n * n) as f64;
    rows.push(Measured::new(label, fl, [o, g, nd], key, String::new()));
}

/// One measured case: label, flops, times of ours / gemm / ndarray, the NumPy case key
/// and an extra note.
struct Measured {
    label: String,
    fl: f64,
    times: [f64; 3],
    key: String,
    extra: String,
}

impl Measured {
    fn new(label: &str, fl: f64, times: [f64; 3], key: &str, extra: String) -> Self {
        let (label, key) = (label.to_string(), key.to_string());
        Measured {
            label,
            fl,
            times,
            key,
            extra,
        }
    }
}

/// Adds a row: our time, the gemm / ndarray / NumPy peers and GFLOP/s for `fl` flops.
fn add_row(
    t: &mut Table,
    label: &str,
    fl: f64,
    [o, g, nd]: [f64; 3],
    np: Option<f64>,
    extra: &str,
) {
    let note = format!("{}{extra}", gflops(fl, o, &[g, nd], np.as_ref()));
    t.add(
        label,
        o,
        vec![("gemm", Some(g)), ("ndarray", Some(nd)), ("numpy", np)],
        note,
    );
}

fn gflops(fl: f64, ours: f64, peers: &[f64], np: Option<&f64>) -> String {
    let best = peers
        .iter()
        .chain(np)
        .copied()
        .fold(f64::INFINITY, f64::min);
    format!(
        "{:.1} GFLOP/s (best peer {:.1})",
        fl / ours / 1e9,
        fl / best / 1e9
    )
}

fn main() {
    if std::env::var_os("FT_BENCH_RSTSR_ONLY").is_some() {
        return rstsr_table();
    }
    // NumPy runs in its own process and cannot be interleaved with the Rust candidates:
    // it is timed before and after them and its better time per case is used (the
    // conservative choice for ours / best peer on a shared, noisy machine).
    let mut np = numpy_times("matmul.py");
    let mut rows = Vec::new();
    square::<f32>(&mut rows, 1024, "f32_1024", "f32 1024³");
    square::<f32>(&mut rows, 2048, "f32_2048", "f32 2048³");
    square::<f32>(&mut rows, 4096, "f32_4096", "f32 4096³");
    square::<f64>(&mut rows, 1024, "f64_1024", "f64 1024³");
    square::<f64>(&mut rows, 2048, "f64_2048", "f64 2048³");
    let b128 = "f32 [64,128,128] @ [64,128,128]";
    batched(&mut rows, 64, 128, "f32_batch64x128", b128);
    batched(
        &mut rows,
        4096,
        64,
        "f32_64x64x4096",
        "f32 64×64 (batched ×4096)",
    );
    batched(
        &mut rows,
        4096,
        8,
        "f32_8x8x4096",
        "f32 8×8 (batched ×4096)",
    );
    for (k, v) in numpy_times("matmul.py") {
        let e = np.entry(k).or_insert(v);
        *e = e.min(v);
    }
    println!("{}", fma_peak());
    let mut t = Table::default();
    for r in &rows {
        add_row(
            &mut t,
            &r.label,
            r.fl,
            r.times,
            np.get(&r.key).copied(),
            &r.extra,
        );
    }
    t.print("matmul");
    rstsr_table();
}

/// The FMA peak of this machine measured by a tight loop of independent fused
/// multiply-adds on the widest vectors the CPU has (AVX-512, else AVX2), on one thread
/// and on every thread of rayon's pool: the ceiling a GEMM can reach.
fn fma_peak() -> String {
    let one = fma_gflops();
    let threads = rayon::current_num_threads();
    let all: f64 = rayon::broadcast(|_| fma_gflops()).into_iter().sum();
    format!(
        "FMA peak (f32, tight loop): {one:.1} GFLOP/s on one thread, {all:.1} on {threads} \
         (f64: half)"
    )
}

/// f32 GFLOP/s of a tight FMA loop on this thread (best of 5 runs).
fn fma_gflops() -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        let (lanes, run): (usize, fn(usize) -> f32) = if is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512 F (checked).
            (16, |n| unsafe { fma_loop_avx512(n) })
        } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has AVX2 and FMA (checked).
            (8, |n| unsafe { fma_loop_avx2(n) })
        } else {
            return f64::NAN;
        };
        let iters = 20_000_000;
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let t = Instant::now();
            std::hint::black_box(run(iters));
            best = best.min(t.elapsed().as_secs_f64());
        }
        // 12 independent accumulators × lanes × 2 flops per FMA per iteration
        (iters * 12 * lanes * 2) as f64 / best / 1e9
    }
    #[cfg(not(target_arch = "x86_64"))]
    f64::NAN
}

#[cfg(target_arch = "x86_64")]
macro_rules! fma_loop {
    ($name:ident, $feat:literal, $vt:ty, $set1:ident, $fma:ident, $add:ident, $cvt:expr) => {
        /// `iters` rounds of 12 independent FMAs on the level's widest vectors.
        ///
        /// # Safety
        /// The CPU has the features this is compiled with.
        #[target_feature(enable = $feat)]
        fn $name(iters: usize) -> f32 {
            use std::arch::x86_64::*;
            let (x, y) = ($set1(1.000_000_1), $set1(0.999_999_9));
            let mut acc: [$vt; 12] = [$set1(0.0); 12];
            for _ in 0..iters {
                for a in acc.iter_mut() {
                    *a = $fma(*a, x, y);
                }
            }
            let s = acc.iter().fold($set1(0.0), |s, &a| $add(s, a));
            $cvt(s)
        }
    };
}
#[cfg(target_arch = "x86_64")]
fma_loop!(
    fma_loop_avx512,
    "avx512f",
    __m512,
    _mm512_set1_ps,
    _mm512_fmadd_ps,
    _mm512_add_ps,
    |s| _mm512_reduce_add_ps(s)
);
#[cfg(target_arch = "x86_64")]
fma_loop!(
    fma_loop_avx2,
    "avx2,fma",
    __m256,
    _mm256_set1_ps,
    _mm256_fmadd_ps,
    _mm256_add_ps,
    |s| _mm256_cvtss_f32(s)
);

/// Ours against RSTSR (its default faer device, on a rayon pool of as many threads as
/// ours), raced round-robin per case, in a table of its own: the large products and the
/// batched ones (`FT_BENCH_RSTSR_ONLY=1` runs only this table).
fn rstsr_table() {
    let threads = rayon::current_num_threads();
    let dev = rstsr::prelude::DeviceFaer::new(threads);
    let mut t = Table::default();
    let cases: [(&str, &str, usize, usize, bool); 8] = [
        ("f32_1024", "f32 1024³", 1, 1024, true),
        ("f32_2048", "f32 2048³", 1, 2048, true),
        ("f32_4096", "f32 4096³", 1, 4096, true),
        ("f64_1024", "f64 1024³", 1, 1024, false),
        ("f64_2048", "f64 2048³", 1, 2048, false),
        (
            "f32_batch64x128",
            "f32 [64,128,128] @ [64,128,128]",
            64,
            128,
            true,
        ),
        (
            "f32_64x64x4096",
            "f32 64×64 (batched ×4096)",
            4096,
            64,
            true,
        ),
        ("f32_8x8x4096", "f32 8×8 (batched ×4096)", 4096, 8, true),
    ];
    for (key, label, batch, n, f32_case) in cases {
        if !selected(key) {
            continue;
        }
        let shape = if batch == 1 {
            vec![n, n]
        } else {
            vec![batch, n, n]
        };
        let [o, r] = if f32_case {
            rstsr_case_f32(&shape, &dev)
        } else {
            rstsr_case_f64(&shape, &dev)
        };
        let fl = 2.0 * (batch * n * n * n) as f64;
        let note = format!("{:.1} GFLOP/s (RSTSR {:.1})", fl / o / 1e9, fl / r / 1e9);
        t.add(label, o, vec![("rstsr", Some(r))], note);
    }
    t.print(&format!("matmul against RSTSR ({threads} threads)"));
}

/// Times of ours and RSTSR on `shape` @ `shape`, raced round-robin.
macro_rules! rstsr_case {
    ($name:ident, $t:ty) => {
        fn $name(shape: &[usize], dev: &rstsr::prelude::DeviceFaer) -> [f64; 2] {
            use rstsr::prelude::*;
            let (a, b) = (ours::<$t>(shape), ours::<$t>(shape));
            let ra = rt::asarray((a.to_vec(), shape.to_vec().c(), dev));
            let rb = rt::asarray((b.to_vec(), shape.to_vec().c(), dev));
            let big = shape.iter().product::<usize>() >= 1 << 24;
            let r = race(
                if big { 12.0 } else { 5.0 },
                &mut [&mut || drop(std::hint::black_box(&a % &b)), &mut || {
                    drop(std::hint::black_box(&ra % &rb))
                }],
            );
            [r[0], r[1]]
        }
    };
}
rstsr_case!(rstsr_case_f32, f32);
rstsr_case!(rstsr_case_f64, f64);
