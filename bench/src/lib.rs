//! Shared helpers for ferrotensor's side-by-side benchmarks: timing, the NumPy runner
//! and the ratio table.
//!
//! Every benchmark binary times ferrotensor and its peers in the same process run and
//! prints, per case, the time of each and the ratio ours / best peer (< 1 is faster).

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

/// Median wall time in seconds of `f` over enough runs to fill about `budget` seconds
/// (at least 3 runs, at most 50), after one warm-up run.
pub fn time_median(budget: f64, mut f: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    f();
    let first = t0.elapsed().as_secs_f64().max(1e-9);
    let runs = ((budget / first) as usize).clamp(3, 50);
    let mut ts: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    ts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    ts[ts.len() / 2]
}

/// Minimum wall time in seconds of `f` over enough runs to fill about `budget` seconds
/// (at least 5, at most 60) after one warm-up run. The minimum, not the median: on a
/// shared 2-core machine other processes preempt runs in 4 ms scheduler slices, and the
/// minimum is the run that was not preempted (used for every library alike).
pub fn time_min(budget: f64, mut f: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    f();
    let first = t0.elapsed().as_secs_f64().max(1e-9);
    let runs = ((budget / first) as usize).clamp(5, 60);
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Runs `bench/py/<script>` with python3 and parses `case<TAB>seconds` lines; an empty
/// map (with a note on stderr) when Python or NumPy is missing.
pub fn numpy_times(script: &str) -> BTreeMap<String, f64> {
    py_times(script, &[])
}

/// [`numpy_times`] with command-line arguments for the script (thread counts, …).
pub fn py_times(script: &str, args: &[String]) -> BTreeMap<String, f64> {
    let path = format!("{}/py/{}", env!("CARGO_MANIFEST_DIR"), script);
    // OpenBLAS tuning variables of the parent shell must not cripple the NumPy peer.
    let out = Command::new("python3")
        .arg(&path)
        .args(args)
        .env_remove("OPENBLAS_CORETYPE")
        .env_remove("OPENBLAS_L2_SIZE")
        .output();
    let mut map = BTreeMap::new();
    match out {
        Ok(o) if o.status.success() => {
            for line in String::from_utf8_lossy(&o.stdout).lines() {
                if let Some((k, v)) = line.split_once('\t')
                    && let Ok(t) = v.trim().parse::<f64>()
                {
                    map.insert(k.to_string(), t);
                }
            }
        }
        Ok(o) => eprintln!(
            "Python peer ({script}) skipped: {}",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ),
        Err(e) => eprintln!("Python peer ({script}) skipped: {e}"),
    }
    map
}

/// One row of the results table.
pub struct Row {
    /// Case name.
    pub case: String,
    /// Our time in seconds.
    pub ours: f64,
    /// Peer name and time in seconds.
    pub peers: Vec<(String, f64)>,
    /// Optional note (GB/s, GFLOP/s, …).
    pub note: String,
}

/// Collects rows and prints them as a Markdown table with the ratio ours / best peer.
#[derive(Default)]
pub struct Table {
    rows: Vec<Row>,
}

impl Table {
    /// Adds a row.
    pub fn add(&mut self, case: &str, ours: f64, peers: Vec<(&str, Option<f64>)>, note: String) {
        let peers = peers
            .into_iter()
            .filter_map(|(n, t)| t.map(|t| (n.to_string(), t)))
            .collect();
        self.rows.push(Row {
            case: case.to_string(),
            ours,
            peers,
            note,
        });
    }

    /// Prints the table (Markdown) to stdout.
    pub fn print(&self, title: &str) {
        println!("\n### {title} ({} threads)\n", rayon::current_num_threads());
        println!("| case | ferrotensor (ms) | peers (ms) | ours / best peer | note |");
        println!("|---|---|---|---|---|");
        for r in &self.rows {
            let peers: Vec<String> = r
                .peers
                .iter()
                .map(|(n, t)| format!("{n} {:.3}", t * 1e3))
                .collect();
            let best = r.peers.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let ratio = if best.is_finite() {
                format!("{:.2}", r.ours / best)
            } else {
                "n/a".into()
            };
            println!(
                "| {} | {:.3} | {} | {} | {} |",
                r.case,
                r.ours * 1e3,
                peers.join(", "),
                ratio,
                r.note
            );
        }
    }
}

/// STREAM-style triad `a[i] = b[i] + s·c[i]` over three f32 arrays of `total_bytes`
/// together, with all of rayon's threads, into an existing (already faulted-in)
/// array: the machine's sustainable memory bandwidth in GB/s (3 arrays counted).
///
/// Two variants are timed and the faster is returned, so that the reference is the
/// best this machine does: ordinary stores (each written line is first read, as in
/// a plain C loop), and on x86-64 non-temporal stores (as STREAM built by a compiler
/// that emits them), which skip that read.
pub fn triad_gbs(total_bytes: usize) -> f64 {
    use rayon::prelude::*;
    let n = total_bytes / 12 / 16 * 16;
    let b = vec![1.0f32; n];
    let c = vec![2.0f32; n];
    let mut a = vec![0.0f32; n];
    let chunk = n
        .div_ceil(rayon::current_num_threads() * 8)
        .max(1 << 14)
        .div_ceil(16)
        * 16;
    let plain = time_median(1.0, || {
        a.par_chunks_mut(chunk)
            .zip(b.par_chunks(chunk))
            .zip(c.par_chunks(chunk))
            .for_each(|((a, b), c)| {
                for ((x, &y), &z) in a.iter_mut().zip(b).zip(c) {
                    *x = y + 3.0 * z;
                }
            });
        std::hint::black_box(&a);
    });
    assert_eq!(a[n - 1], 7.0);
    let mut secs = plain;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        a.iter_mut().for_each(|x| *x = 0.0);
        let streamed = time_median(1.0, || {
            a.par_chunks_mut(chunk)
                .zip(b.par_chunks(chunk))
                .zip(c.par_chunks(chunk))
                .for_each(|((a, b), c)| {
                    let head = a.as_ptr().align_offset(16).min(a.len());
                    for i in 0..head {
                        a[i] = b[i] + 3.0 * c[i];
                    }
                    let mut i = head;
                    // SAFETY: `i + 4 <= a.len()` for every access; stores go to 16-byte
                    // aligned addresses (`head` aligned the first one); SSE is baseline.
                    unsafe {
                        let three = _mm_set1_ps(3.0);
                        while i + 4 <= a.len() {
                            let v = _mm_add_ps(
                                _mm_loadu_ps(b.as_ptr().add(i)),
                                _mm_mul_ps(three, _mm_loadu_ps(c.as_ptr().add(i))),
                            );
                            _mm_stream_ps(a.as_mut_ptr().add(i), v);
                            i += 4;
                        }
                        _mm_sfence();
                    }
                    for j in i..a.len() {
                        a[j] = b[j] + 3.0 * c[j];
                    }
                });
            std::hint::black_box(&a);
        });
        assert_eq!(a[n - 1], 7.0);
        secs = secs.min(streamed);
    }
    (3 * n * 4) as f64 / secs / 1e9
}

/// The read bandwidth (GB/s) of `x` with all of rayon's threads: the best of a plain
/// vectorised loop (16 independent f32 accumulators per 64 values, what RSTSR's or a C
/// compiler's `sum` does) and the same loop with a software prefetch 8 KiB ahead (what
/// the memory system gives a reader that does not rely on the hardware prefetcher).
/// The reference for the reductions' "fraction of the read bandwidth".
pub fn read_gbs(x: &[f32]) -> f64 {
    use rayon::prelude::*;
    fn plain<const PF: bool>(c: &[f32]) -> f32 {
        let mut acc = [0.0f32; 64];
        for (k, w) in c.chunks_exact(64).enumerate() {
            if PF {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: a prefetch is a hint: it never faults, any address is allowed.
                unsafe {
                    let p = c.as_ptr().wrapping_add(k * 64 + 2048) as *const i8;
                    std::arch::x86_64::_mm_prefetch(p, std::arch::x86_64::_MM_HINT_T0);
                    std::arch::x86_64::_mm_prefetch(
                        p.wrapping_add(64),
                        std::arch::x86_64::_MM_HINT_T0,
                    );
                    std::arch::x86_64::_mm_prefetch(
                        p.wrapping_add(128),
                        std::arch::x86_64::_MM_HINT_T0,
                    );
                    std::arch::x86_64::_mm_prefetch(
                        p.wrapping_add(192),
                        std::arch::x86_64::_MM_HINT_T0,
                    );
                }
            }
            for j in 0..64 {
                acc[j] += w[j];
            }
        }
        acc.iter().sum()
    }
    let chunk = 1 << 16;
    let t = [
        time_median(1.0, || {
            std::hint::black_box(x.par_chunks(chunk).map(plain::<false>).sum::<f32>());
        }),
        time_median(1.0, || {
            std::hint::black_box(x.par_chunks(chunk).map(plain::<true>).sum::<f32>());
        }),
    ];
    std::mem::size_of_val(x) as f64 / t[0].min(t[1]) / 1e9
}

/// The CPU model: `model name` of `/proc/cpuinfo` ("unknown CPU" without it).
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The CPU model and the vector instruction set the kernels take, for the header of
/// every benchmark table.
pub fn cpu_line() -> String {
    let model = cpu_model();
    // The path the kernels take (honours `FERROTENSOR_ISA`), and the CPU vendor the
    // run-time tuning keys on.
    let isa = ferrotensor::cpu::isa().name();
    let vendor = format!("{:?}", ferrotensor::cpu::vendor());
    format!("CPU: {model} (vendor {vendor}); kernels' ISA path: {isa}")
}

/// True when the benchmark case `name` is selected: no filter given, or `name`
/// contains one of the comma-separated substrings of `FT_BENCH_FILTER` (the NumPy
/// scripts read the same variable).
pub fn selected(name: &str) -> bool {
    match std::env::var("FT_BENCH_FILTER") {
        Ok(f) if !f.trim().is_empty() => f.split(',').any(|p| name.contains(p.trim())),
        _ => true,
    }
}

/// Makes glibc keep freed large buffers mapped (raises its `mmap` and trim thresholds
/// to 1 GiB with `mallopt`), for the whole process and for good: a benchmark-only
/// comparison of what the allocator alone would give, never done by the library (it
/// would hold the memory of every freed buffer behind the program's back). Returns
/// `false`, doing nothing, where glibc is not the allocator.
pub fn retain_large_buffers() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` only changes allocator tuning parameters.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
        }
        true
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Resident memory of this process in bytes (`VmRSS` of `/proc/self/status`), if known.
pub fn resident_bytes() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
