//! The memory policy (`ferrotensor::memory`): with default settings, memory of dropped
//! tensors goes back to the system within two idle seconds, while repeated large
//! outputs still reuse buffers.

use ferrotensor::memory::{CACHE_IDLE_RELEASE, cached_bytes, release_cached_buffers};
use ferrotensor::prelude::*;
use std::process::Command;
use std::time::Duration;

/// A field of `/proc/self/status` (`VmRSS`, `Threads`, …) as its first number.
fn status_field(name: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with(':'))
        .unwrap_or_else(|| panic!("{name} in /proc/self/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Resident memory in MiB: `VmRSS` (everything) and `RssAnon` (heap and anonymous
/// mappings, where tensor buffers live; the rest of `VmRSS` is the program's own
/// file-backed pages, such as the code a workload runs for the first time).
fn resident_mib() -> (f64, f64) {
    let mib = |name| status_field(name) as f64 / 1024.0;
    (mib("VmRSS"), mib("RssAnon"))
}

/// Environment variable that marks the child process running the measurement alone.
const CHILD: &str = "FERROTENSOR_MEMORY_TEST_CHILD";

/// Resident memory is a property of the whole process, and the other tests of this
/// binary allocate in parallel: the measurement runs alone in a child process (this
/// test binary, filtered to this test).
#[test]
#[cfg(target_os = "linux")]
fn resident_memory_returns_after_two_idle_seconds() {
    if std::env::var_os(CHILD).is_some() {
        return measure();
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "resident_memory_returns_after_two_idle_seconds",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .expect("run the test binary");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child failed:\n{text}");
    assert!(
        text.contains("1 passed"),
        "child did not run the test:\n{text}"
    );
    assert!(text.contains("resident"), "child did not measure:\n{text}");
}

fn measure() {
    // Warm up what lives for the whole process (rayon's threads), empty the cache
    // (which also stops its thread), then take the baseline.
    let w = Tensor::<f32, _>::ones([1024, 1024 * 2]);
    drop(&w + &w);
    drop(w);
    release_cached_buffers();
    std::thread::sleep(CACHE_IDLE_RELEASE / 5);
    let ((before, anon_before), threads_before) = (resident_mib(), status_field("Threads"));

    // The case: many dropped 64 MiB tensors, plus mid-size outputs (which glibc
    // serves from its heap once its mmap threshold has grown) of every allocating path.
    let a = Tensor::<f32, _>::ones([4096, 4096]);
    let outs: Vec<Tensor<f32, _>> = (0..10).map(|i| &a + i as f32).collect();
    let m = Tensor::<f32, _>::ones([1536, 1536]); // 9 MiB
    let (p, q) = (
        Tensor::<f32, _>::ones([1536, 8]),
        Tensor::<f32, _>::ones([8, 1536]),
    );
    let mids = vec![
        m.t().to_owned().into_dyn(),
        p.matmul(&q).unwrap().into_dyn(),
        m.exp().into_dyn(),
        ferrotensor::manip::concatenate(&[&m, &m], 0)
            .unwrap()
            .into_dyn(),
    ];
    let (peak, anon_peak) = resident_mib();
    drop(outs);
    drop(mids);
    drop((a, m, p, q));
    let held = cached_bytes();
    assert!(
        held >= 64 << 20,
        "the cache took the dropped buffers ({held} bytes)"
    );

    // No ferrotensor call for two seconds.
    std::thread::sleep(Duration::from_secs(2));
    let (after, anon_after) = resident_mib();
    println!(
        "resident: {before:.1} MiB before, {peak:.1} MiB at the peak, {after:.1} MiB 2 s after \
         the drops (anonymous: {anon_before:.1}, {anon_peak:.1}, {anon_after:.1} MiB)"
    );
    // The bound is on anonymous memory: the file-backed part of VmRSS grows by the code
    // pages this workload ran first (over 16 MiB in the one test binary's debug build),
    // which the kernel reclaims under pressure and no allocator holds.
    assert!(
        anon_after <= anon_before + 16.0,
        "resident anonymous memory {anon_after:.1} MiB, 2 s after the drops, is more than \
         16 MiB above {anon_before:.1} MiB (VmRSS {before:.1} -> {after:.1} MiB)"
    );
    assert!(
        anon_peak >= anon_before + 600.0,
        "the workload's tensors were resident ({anon_peak:.1} MiB at the peak)"
    );
    assert_eq!(cached_bytes(), 0, "the cache released everything");
    assert_eq!(
        status_field("Threads"),
        threads_before,
        "the background thread exits when the cache is empty"
    );
}

/// Repeated large outputs reuse one buffer while the cache is on, and the controls
/// report and release it.
#[test]
fn repeated_large_outputs_reuse_the_dropped_buffer() {
    let a = Tensor::<f32, _>::ones([1024, 2048]); // 8 MiB
    let mut seen = Vec::new();
    for _ in 0..4 {
        let b = &a * 3.0;
        assert_eq!(b[[1023, 2047]], 3.0);
        seen.push(b.as_ptr() as usize);
    }
    // Other tests allocate concurrently and may take the buffer in between: most,
    // not all, iterations see the same one.
    let reused = seen.windows(2).filter(|w| w[0] == w[1]).count();
    assert!(
        reused >= 1,
        "no output reused the previous one's buffer: {seen:x?}"
    );
    release_cached_buffers();
}

/// Shared tensors (as a language binding holds its arrays) give their buffer to the
/// cache when the last reference goes, as owned tensors do.
#[test]
fn dropped_shared_tensors_give_their_buffer_to_the_cache() {
    let a = Tensor::<f32, _>::ones([1024, 2048]); // 8 MiB
    // Other tests allocate and release concurrently: one of a few tries must see the
    // cache grow by the dropped buffer.
    let grew = (0..5).any(|_| {
        let b = (&a * 3.0).into_shared();
        let alias = b.clone();
        drop(b); // not the last reference: nothing goes to the cache
        assert_eq!(alias[[1023, 2047]], 3.0);
        let before = cached_bytes();
        drop(alias);
        cached_bytes() >= before + (8 << 20)
    });
    assert!(
        grew,
        "dropping the last shared reference never cached its buffer"
    );
    release_cached_buffers();
}
