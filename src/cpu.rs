//! Which instruction set the kernels run with: detected once at run time, the same
//! answer for every kernel, and printable.
//!
//! The library is compiled for the target's baseline (SSE2 on x86-64), so it runs on
//! any CPU of the architecture. Hot loops are compiled again inside functions with
//! `#[target_feature]` and picked by [`isa`] at run time: [`Isa::Avx512`] when the CPU
//! has AVX-512 F, VL, BW and DQ (with AVX2 and FMA), [`Isa::Avx2`] for AVX2 with FMA,
//! [`Isa::Portable`] otherwise (and always under Miri). Every path gives the same
//! results: the kernels use only correctly rounded operations (see
//! [`crate::kernels::vmath`]).
//!
//! The environment variable `FERROTENSOR_ISA` (`portable`, `avx2` or `avx512`), read
//! once, caps the choice below what the CPU has: a tool to compare paths in
//! benchmarks or to test the narrower ones on a wide machine.
//!
//! ```
//! let isa = ferrotensor::cpu::isa();
//! assert!(isa <= ferrotensor::cpu::detected_isa());
//! println!("kernels run with {isa} on {}", ferrotensor::cpu::vendor());
//! assert_eq!(ferrotensor::cpu::Isa::from_name(isa.name()), Some(isa));
//! ```

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction-set level the kernels are compiled for, ordered from narrowest to
/// widest.
///
/// ```
/// use ferrotensor::cpu::Isa;
/// assert!(Isa::Portable < Isa::Avx2 && Isa::Avx2 < Isa::Avx512);
/// assert_eq!(Isa::Avx512.to_string(), "avx512");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// The target's baseline (SSE2 on x86-64; what the target guarantees elsewhere).
    Portable,
    /// x86-64 with AVX2 and FMA (Intel Haswell, AMD Zen and later).
    Avx2,
    /// x86-64 with AVX-512 F, VL, BW and DQ, AVX2 and FMA (Intel Skylake-SP and later
    /// server parts, AMD Zen 4 and later).
    Avx512,
}

impl Isa {
    /// Every level, narrowest first.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

    /// The level's short name: `"portable"`, `"avx2"` or `"avx512"`.
    ///
    /// ```
    /// assert_eq!(ferrotensor::cpu::Isa::Avx2.name(), "avx2");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The level named `name` (as [`Isa::name`] spells it, any case).
    ///
    /// ```
    /// use ferrotensor::cpu::Isa;
    /// assert_eq!(Isa::from_name("AVX512"), Some(Isa::Avx512));
    /// assert_eq!(Isa::from_name("sse9"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Isa> {
        Isa::ALL
            .into_iter()
            .find(|i| i.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The CPU features the level's kernels are compiled with. Every `target_feature`
    /// list in the crate is a subset of one of these (a test checks it), so no kernel
    /// needs a feature that [`isa`] did not check.
    ///
    /// ```
    /// assert!(ferrotensor::cpu::Isa::Avx512.features().contains("avx512bw"));
    /// ```
    pub fn features(self) -> &'static str {
        match self {
            Isa::Portable => "baseline",
            Isa::Avx2 => "avx2,fma",
            Isa::Avx512 => "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
        }
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(code: u8) -> Option<Isa> {
        Isa::ALL.get(usize::from(code).checked_sub(1)?).copied()
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The level in use, plus one (0: not detected yet).
static ISA: AtomicU8 = AtomicU8::new(0);

/// The level the kernels run with: [`detected_isa`], capped by `FERROTENSOR_ISA`.
/// Detected on the first call, then one relaxed atomic load.
///
/// ```
/// let isa = ferrotensor::cpu::isa();
/// assert!(ferrotensor::cpu::Isa::ALL.contains(&isa));
/// ```
#[inline]
pub fn isa() -> Isa {
    match Isa::from_code(ISA.load(Ordering::Relaxed)) {
        Some(isa) => isa,
        None => detect(),
    }
}

#[cold]
fn detect() -> Isa {
    let cap = std::env::var("FERROTENSOR_ISA")
        .ok()
        .and_then(|v| Isa::from_name(&v))
        .unwrap_or(Isa::Avx512);
    let isa = detected_isa().min(cap);
    ISA.store(isa.code(), Ordering::Relaxed);
    isa
}

/// The widest level this CPU supports, whatever `FERROTENSOR_ISA` says.
///
/// ```
/// assert!(ferrotensor::cpu::detected_isa() >= ferrotensor::cpu::isa());
/// ```
pub fn detected_isa() -> Isa {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use std::arch::is_x86_feature_detected as has;
        let avx2 = has!("avx2") && has!("fma");
        if avx2 && has!("avx512f") && has!("avx512vl") && has!("avx512bw") && has!("avx512dq") {
            return Isa::Avx512;
        }
        if avx2 {
            return Isa::Avx2;
        }
    }
    Isa::Portable
}

/// The CPU's maker, for choices that differ between vendors' microarchitectures.
///
/// ```
/// let v = ferrotensor::cpu::vendor();
/// assert!(!v.to_string().is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Vendor {
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD`.
    Amd,
    /// Any other CPU, or one that cannot be asked (not x86-64, Miri).
    Other,
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Vendor::Intel => "Intel",
            Vendor::Amd => "AMD",
            Vendor::Other => "other",
        })
    }
}

/// The CPU's vendor, from `cpuid`.
///
/// ```
/// use ferrotensor::cpu::{Vendor, vendor};
/// assert!(matches!(vendor(), Vendor::Intel | Vendor::Amd | Vendor::Other));
/// ```
pub fn vendor() -> Vendor {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: every x86-64 CPU has `cpuid` (the intrinsic is a safe function on
        // newer compilers, hence the allow).
        #[allow(unused_unsafe)]
        let r = unsafe { std::arch::x86_64::__cpuid(0) };
        let mut id = [0u8; 12];
        id[..4].copy_from_slice(&r.ebx.to_le_bytes());
        id[4..8].copy_from_slice(&r.edx.to_le_bytes());
        id[8..].copy_from_slice(&r.ecx.to_le_bytes());
        match &id {
            b"GenuineIntel" => return Vendor::Intel,
            b"AuthenticAMD" => return Vendor::Amd,
            _ => {}
        }
    }
    Vendor::Other
}

/// A loop body to run compiled for the level [`isa`] picks ([`dispatch`]).
///
/// `call` must be `#[inline(always)]` and everything it calls inlinable, so that the
/// body is compiled inside the feature-enabled wrappers. A closure does not do: called
/// from the three wrappers, LLVM keeps its body out of line, compiled for the baseline
/// only.
pub(crate) trait Kernel {
    /// The result.
    type Out;
    /// Runs the body.
    fn call(self) -> Self::Out;
}

/// Runs `k` compiled for the level [`isa`] picks.
#[inline(always)]
pub(crate) fn dispatch<K: Kernel>(k: K) -> K::Out {
    #[cfg(target_arch = "x86_64")]
    match isa() {
        // SAFETY: `isa` returns `Avx512` only when the CPU has every feature of
        // `Isa::Avx512.features()`, which `x86::avx512` is compiled with.
        Isa::Avx512 => return unsafe { x86::avx512(k) },
        // SAFETY: as above, for `Avx2`.
        Isa::Avx2 => return unsafe { x86::avx2(k) },
        Isa::Portable => {}
    }
    k.call()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Kernel;

    /// Runs `k` compiled for the AVX-512 level.
    ///
    /// # Safety
    /// [`isa`](super::isa) is `Avx512` (the CPU has every feature this is compiled with).
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(super) fn avx512<K: Kernel>(k: K) -> K::Out {
        k.call()
    }

    /// Runs `k` compiled for the AVX2 level.
    ///
    /// # Safety
    /// [`isa`](super::isa) is at least `Avx2`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn avx2<K: Kernel>(k: K) -> K::Out {
        k.call()
    }
}

/// The first core's L1 data cache and L2 cache in bytes, from Linux's sysfs, read once
/// (`None` for a level that is unknown: other systems, Miri, an unreadable entry).
/// For kernels whose tile sizes or prefetch distances follow the cache geometry, so
/// that they are right on every CPU family rather than tuned on one.
pub(crate) fn cache_bytes() -> (Option<usize>, Option<usize>) {
    static SIZES: std::sync::OnceLock<(Option<usize>, Option<usize>)> = std::sync::OnceLock::new();
    *SIZES.get_or_init(|| (sysfs_cache(1), sysfs_cache(2)))
}

/// The size of the data (or unified) cache of `level` of cpu0 from sysfs.
fn sysfs_cache(level: u32) -> Option<usize> {
    if cfg!(any(miri, not(target_os = "linux"))) {
        return None;
    }
    (0..8).find_map(|i| {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        let is_data = matches!(read("type")?.trim(), "Data" | "Unified");
        if read("level")?.trim().parse::<u32>().ok()? != level || !is_data {
            return None;
        }
        parse_size(read("size")?.trim())
    })
}

/// `"48K"`, `"1024K"`, `"2M"` or plain bytes.
fn parse_size(s: &str) -> Option<usize> {
    let (num, mult) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    num.parse::<usize>().ok().map(|v| v * mult)
}

/// Software prefetch of the cache line holding `p` into L2 (not L1): for data needed
/// after the current working set, e.g. the next row while this one is computed from L1.
#[inline(always)]
pub(crate) fn prefetch_l2<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and reads nothing, so any
    // address (here possibly past the end of the slice) is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T1)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Software prefetch of the cache line holding `p` into L1.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and reads nothing, so any
    // address (here possibly past the end of the slice) is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_parse_and_are_plausible() {
        assert_eq!(parse_size("48K"), Some(48 << 10));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size(""), None);
        let (l1, l2) = cache_bytes();
        if let (Some(l1), Some(l2)) = (l1, l2) {
            assert!((4 << 10..=1 << 20).contains(&l1) && l2 > l1, "L1 {l1}, L2 {l2}");
        }
    }

    #[test]
    fn names_round_trip_and_codes_are_distinct() {
        for isa in Isa::ALL {
            assert_eq!(Isa::from_name(isa.name()), Some(isa));
            assert_eq!(Isa::from_code(isa.code()), Some(isa));
        }
        assert_eq!(Isa::from_code(0), None);
        assert_eq!(Isa::from_name(" Avx2 "), Some(Isa::Avx2));
    }

    #[test]
    fn the_level_in_use_is_supported_and_stable() {
        let first = isa();
        assert!(first <= detected_isa());
        assert_eq!(isa(), first);
        if cfg!(miri) {
            assert_eq!(first, Isa::Portable);
        }
    }

    /// Every `target_feature` list of the crate's sources is a subset of one level's
    /// features: of AVX2's unless it names an AVX-512 feature, else of AVX-512's.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn every_target_feature_list_is_within_a_level() {
        fn walk(dir: &std::path::Path, found: &mut Vec<(String, String)>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let key = ["target_feature(enable", " = \""].concat();
                    for (i, _) in text.match_indices(&key) {
                        let rest = &text[i + key.len()..];
                        let list = &rest[..rest.find('"').unwrap()];
                        found.push((path.display().to_string(), list.to_string()));
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(found.len() >= 10, "the scan found the kernels' attributes: {found:?}");
        let within = |list: &str| {
            let level = if list.contains("avx512") {
                Isa::Avx512
            } else {
                Isa::Avx2
            };
            list.split(',')
                .all(|f| level.features().split(',').any(|g| g == f.trim()))
        };
        let odd: Vec<_> = found.iter().filter(|(_, l)| !within(l)).collect();
        assert!(odd.is_empty(), "feature lists outside every level: {odd:?}");
    }

    #[test]
    fn dispatch_runs_the_kernel_on_every_level() {
        struct Sum<'a>(&'a [f32]);
        impl Kernel for Sum<'_> {
            type Out = f32;
            #[inline(always)]
            fn call(self) -> f32 {
                self.0.iter().sum()
            }
        }
        let x: Vec<f32> = (0..100).map(|i| i as f32).collect();
        assert_eq!(dispatch(Sum(&x)), 4950.0);
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            if detected_isa() >= Isa::Avx2 {
                // SAFETY: the CPU has AVX2 and FMA (checked).
                assert_eq!(unsafe { x86::avx2(Sum(&x)) }, 4950.0);
            }
            if detected_isa() == Isa::Avx512 {
                // SAFETY: the CPU has the AVX-512 level's features (checked).
                assert_eq!(unsafe { x86::avx512(Sum(&x)) }, 4950.0);
            }
        }
    }
}
