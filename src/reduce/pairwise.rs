//! NumPy's pairwise summation (`pairwise_sum` in numpy/_core/src/umath/loops_utils.h.src).
//!
//! A run of `n` values is summed as follows: fewer than 8 values are added one by one;
//! up to 128 values go into 8 interleaved accumulators (lane `j` takes elements
//! `j, j + 8, …`) which are then combined as `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`,
//! followed by the remainder; longer runs are split at `n/2` rounded down to a multiple
//! of 8 and the halves summed recursively. The tree is the same as NumPy's, so a sum of
//! a contiguous run gives NumPy's bits exactly.
//!
//! **Error bound.** With unit roundoff `u` (2⁻²⁴ for f32, 2⁻⁵³ for f64) the computed sum
//! `ŝ` of `n` values satisfies `|ŝ − s| ≤ (k + ⌈log₂(n/128)⌉ + 1) · u · Σ|xᵢ| + O(u²)`
//! where `k ≤ 16` is the depth of a 128-element leaf block (15 sequential additions into
//! a lane plus its 3-level combination). For 10⁷ f32 copies of 0.1 the bound is
//! ~4.4 (observed error 0.125, identical to NumPy). Runs split by the engine (reductions
//! over several non-mergeable axes) add the run sums sequentially, as NumPy does.
//!
//! Summing in parallel splits the same tree at its top levels ([`pairwise_par`]), so
//! the result does not depend on the number of threads.

use crate::element::Num;

/// Leaf size of the pairwise tree (NumPy's `PW_BLOCKSIZE`).
const BLOCK: usize = 128;
/// Below this length a run is summed on one thread.
const PAR_LEAF: usize = 1 << 16;

/// Pairwise sum of `f(x)` over a contiguous run (see the module docs), compiled for the
/// widest vector unit the CPU has.
#[inline]
pub(crate) fn pairwise<T: Num, U: Num>(x: &[T], f: &impl Fn(T) -> U) -> U {
    #[cfg(target_arch = "x86_64")]
    match crate::cpu::isa() {
        // SAFETY: the CPU has the features `tree_avx512` is compiled for (`isa`).
        crate::cpu::Isa::Avx512 => return unsafe { tree_avx512(x, f) },
        // SAFETY: the CPU has the features `tree_avx2` is compiled for (`isa`).
        crate::cpu::Isa::Avx2 => return unsafe { tree_avx2(x, f) },
        crate::cpu::Isa::Portable => {}
    }
    tree_base(x, f)
}

/// [`pairwise`] of `f(x)` computed by mapping subtrees of at most 2048 values into a
/// buffer first (a plain map loop vectorises even when `f` is long, e.g. `exp`), then
/// summing the buffer: the same tree, so the same result as [`pairwise`].
pub(crate) fn pairwise_mapped<T: Num, U: Num>(x: &[T], f: &impl Fn(T) -> U) -> U {
    pairwise_mapped_by(
        x,
        &|out: &mut [U], x: &[T]| super::simd::dispatch(MapK(out, x, f)),
        &|b: &[U]| pairwise(b, &|u: U| u),
    )
}

/// [`pairwise_mapped`] with the map given as a kernel over pieces: `map(out, x)` must
/// set `out[i] = f(x[i])` (a caller's own vector loop, e.g. one that also prefetches),
/// and `sum(b)` must be [`pairwise`] of `b` bit for bit (e.g. the eight-leaf kernel of
/// [`super::tree8`]). The same tree as [`pairwise`] of `f`, so the same result.
pub(crate) fn pairwise_mapped_by<T: Num, U: Num>(
    x: &[T],
    map: &impl Fn(&mut [U], &[T]),
    sum: &impl Fn(&[U]) -> U,
) -> U {
    const SUB: usize = 2048;
    let n = x.len();
    if n <= SUB {
        let mut tmp = [U::zero(); SUB];
        let tmp = &mut tmp[..n];
        map(tmp, x);
        return sum(tmp);
    }
    let mut n2 = n / 2;
    n2 -= n2 % 8;
    pairwise_mapped_by(&x[..n2], map, sum).wadd(pairwise_mapped_by(&x[n2..], map, sum))
}

/// `out[i] = f(x[i])` as a vector [`Kernel`](super::simd::Kernel).
struct MapK<'a, T, U, F>(&'a mut [U], &'a [T], &'a F);
impl<T: Num, U: Num, F: Fn(T) -> U> super::simd::Kernel for MapK<'_, T, U, F> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        let MapK(out, x, f) = self;
        for (t, &v) in out.iter_mut().zip(x) {
            *t = f(v);
        }
    }
}

/// A run of at most [`BLOCK`] values: 8 interleaved accumulators, as NumPy.
#[inline(always)]
fn leaf<T: Num, U: Num>(x: &[T], f: &impl Fn(T) -> U) -> U {
    let n = x.len();
    if n < 8 {
        let mut res = U::zero().wneg();
        for &v in x {
            res = res.wadd(f(v));
        }
        return res;
    }
    let mut r: [U; 8] = std::array::from_fn(|j| f(x[j]));
    let full = n - n % 8;
    for c in x[8..full].chunks_exact(8) {
        for j in 0..8 {
            r[j] = r[j].wadd(f(c[j]));
        }
    }
    let mut res = (r[0].wadd(r[1]).wadd(r[2].wadd(r[3]))).wadd(r[4].wadd(r[5]).wadd(r[6].wadd(r[7])));
    for &v in &x[full..] {
        res = res.wadd(f(v));
    }
    res
}

/// [`leaf`] of two runs of 8 to [`BLOCK`] values in one loop: each accumulator sees
/// the same additions in the same order, so the results are those of `leaf`.
#[inline(always)]
fn leaf2<T: Num, U: Num>(a: &[T], b: &[T], f: &impl Fn(T) -> U) -> (U, U) {
    if a.len() < 8 || b.len() < 8 {
        return (leaf(a, f), leaf(b, f));
    }
    let mut ra: [U; 8] = std::array::from_fn(|j| f(a[j]));
    let mut rb: [U; 8] = std::array::from_fn(|j| f(b[j]));
    let (fa, fb) = (a.len() - a.len() % 8, b.len() - b.len() % 8);
    let mut i = 8;
    while i < fa.min(fb) {
        let ca: &[T; 8] = a[i..i + 8].try_into().expect("8 values");
        let cb: &[T; 8] = b[i..i + 8].try_into().expect("8 values");
        for j in 0..8 {
            ra[j] = ra[j].wadd(f(ca[j]));
        }
        for j in 0..8 {
            rb[j] = rb[j].wadd(f(cb[j]));
        }
        i += 8;
    }
    let finish = |x: &[T], full: usize, mut r: [U; 8]| {
        let mut k = i;
        while k < full {
            for j in 0..8 {
                r[j] = r[j].wadd(f(x[k + j]));
            }
            k += 8;
        }
        let mut res = (r[0].wadd(r[1]).wadd(r[2].wadd(r[3]))).wadd(r[4].wadd(r[5]).wadd(r[6].wadd(r[7])));
        for &v in &x[full..] {
            res = res.wadd(f(v));
        }
        res
    };
    (finish(a, fa, ra), finish(b, fb, rb))
}

/// Prefetches the cache lines of the `bytes` bytes that start [`ahead`](ahead)
/// bytes after `p`: called once per run of consecutive leaves, so that every line of a
/// long contiguous sum is requested once, a fixed distance before it is read.
///
/// Why: on AMD Zen 5 the two interleaved leaves of [`leaf2`] (two streams 512 bytes
/// apart) defeat the hardware prefetcher — 12 GB/s per core from memory against 33 for
/// one stream and 48 for a plain loop; 8 KiB ahead they read at 44 GB/s per core, 90
/// GB/s on two cores (above the plain loop's 67). See [`ahead`].
#[inline(always)]
pub(crate) fn prefetch_lines<T>(p: *const T, bytes: usize) {
    let ahead = ahead();
    let p = p.cast::<u8>().wrapping_add(ahead);
    let mut o = 0;
    while o < bytes {
        prefetch(p.wrapping_add(o));
        o += 64;
    }
}

/// How far ahead (bytes) the streaming reductions prefetch, chosen per CPU vendor at run
/// time (measured on both families with the reductions benchmark):
///
/// - **AMD** (Zen 5): 8 KiB. The hardware prefetcher does not run far enough ahead of
///   a read stream to cover memory latency at the bandwidth one core can take, and not
///   at all when two leaves of the pairwise tree are read interleaved; a software
///   prefetch of the order of latency × bandwidth (~100 ns × 40 GB/s ≈ 4 KiB) ahead is
///   needed: 512 B → 16 GB/s per core, 2 KiB → 31, 8 KiB → 44 (the plain loop: 48).
/// - **Intel** (Sapphire Rapids) and others: 512 B, NumPy's distance, with which the
///   pairwise sums were measured at 51 GB/s on two cores.
#[inline(always)]
pub(crate) fn ahead() -> usize {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        static AHEAD: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let a = AHEAD.load(std::sync::atomic::Ordering::Relaxed);
        if a != 0 {
            return a;
        }
        let a = if crate::cpu::vendor() == crate::cpu::Vendor::Amd {
            8192
        } else {
            512
        };
        AHEAD.store(a, std::sync::atomic::Ordering::Relaxed);
        a
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    512
}

pub(crate) use crate::cpu::prefetch;

macro_rules! tree {
    ($name:ident $(, $feat:literal)?) => {
        /// The pairwise recursion over [`leaf`] blocks.
        ///
        /// # Safety
        /// The variants compiled for a level run only where [`crate::cpu::isa`] is at
        /// least that level.
        $(#[cfg(target_arch = "x86_64")] #[target_feature(enable = $feat)])?
        fn $name<T: Num, U: Num>(x: &[T], f: &impl Fn(T) -> U) -> U {
            let n = x.len();
            if n <= BLOCK {
                prefetch_lines(x.as_ptr(), std::mem::size_of_val(x));
                return leaf(x, f);
            }
            let mut n2 = n / 2;
            n2 -= n2 % 8;
            if n <= 2 * BLOCK {
                prefetch_lines(x.as_ptr(), std::mem::size_of_val(x));
                // Both halves are leaves: run them interleaved (two independent chains
                // of additions in flight), with exactly the additions of `leaf`.
                let (a, b) = leaf2(&x[..n2], &x[n2..], f);
                return a.wadd(b);
            }
            $name(&x[..n2], f).wadd($name(&x[n2..], f))
        }
    };
}
tree!(tree_base);
tree!(tree_avx2, "avx2,fma");
tree!(tree_avx512, "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma");

/// Pairwise sum of `f(buf[off + i·stride])` for `i < n` (the same tree as [`pairwise`]).
pub(crate) fn pairwise_strided<T: Num, U: Num>(
    buf: &[T],
    off: isize,
    n: usize,
    stride: isize,
    f: &impl Fn(T) -> U,
) -> U {
    let at = |i: usize| f(buf[(off + i as isize * stride) as usize]);
    if n < 8 {
        let mut res = U::zero().wneg();
        for i in 0..n {
            res = res.wadd(at(i));
        }
        res
    } else if n <= BLOCK {
        let mut r: [U; 8] = std::array::from_fn(at);
        let full = n - n % 8;
        let mut i = 8;
        while i < full {
            for (j, rj) in r.iter_mut().enumerate() {
                *rj = rj.wadd(at(i + j));
            }
            i += 8;
        }
        let mut res = (r[0].wadd(r[1]).wadd(r[2].wadd(r[3]))).wadd(r[4].wadd(r[5]).wadd(r[6].wadd(r[7])));
        for k in full..n {
            res = res.wadd(at(k));
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_strided(buf, off, n2, stride, f).wadd(pairwise_strided(
            buf,
            off + n2 as isize * stride,
            n - n2,
            stride,
            f,
        ))
    }
}

/// [`pairwise`] with the top levels of the tree on rayon threads: the same result.
pub(crate) fn pairwise_par<T: Num, U: Num>(x: &[T], f: &(impl Fn(T) -> U + Sync)) -> U {
    let n = x.len();
    if n <= PAR_LEAF || crate::threads::num_threads() <= 1 {
        return pairwise(x, f);
    }
    fn rec<T: Num, U: Num>(x: &[T], f: &(impl Fn(T) -> U + Sync)) -> U {
        let n = x.len();
        if n <= PAR_LEAF {
            return pairwise(x, f);
        }
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        let (a, b) = rayon::join(|| rec(&x[..n2], f), || rec(&x[n2..], f));
        a.wadd(b)
    }
    rec(x, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "10^7 elements: too slow under Miri (see small_trees)")]
    fn matches_numpy_tree() {
        // 0.1f32 summed 10^7 times: NumPy gives 1000000.125.
        let x = vec![0.1f32; 10_000_000];
        assert_eq!(pairwise(&x, &|v| v), 1_000_000.1);
        assert_eq!(pairwise_par(&x, &|v| v), 1_000_000.1);
        assert_eq!(pairwise_strided(&x, 0, x.len(), 1, &|v| v), 1_000_000.1);
    }

    /// The tree by its definition, one value at a time.
    fn reference(x: &[f32]) -> f32 {
        let n = x.len();
        if n < 8 {
            return x.iter().fold(-0.0, |a, &v| a + v);
        }
        if n <= BLOCK {
            let mut r: [f32; 8] = std::array::from_fn(|j| x[j]);
            for i in (8..n - n % 8).step_by(8) {
                for j in 0..8 {
                    r[j] += x[i + j];
                }
            }
            let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            return x[n - n % 8..].iter().fold(res, |a, &v| a + v);
        }
        let n2 = n / 2 - (n / 2) % 8;
        reference(&x[..n2]) + reference(&x[n2..])
    }

    #[test]
    fn small_trees() {
        let x: Vec<f32> = (0..700).map(|i| ((i * 7919) % 1000) as f32 * 0.001 - 0.3).collect();
        for n in [0, 5, 8, 100, 128, 129, 300, 513, 700] {
            let want = reference(&x[..n]);
            assert_eq!(pairwise(&x[..n], &|v| v).to_bits(), want.to_bits(), "n {n}");
            assert_eq!(pairwise_strided(&x, 0, n, 1, &|v| v).to_bits(), want.to_bits());
            assert_eq!(pairwise_mapped(&x[..n], &|v| v).to_bits(), want.to_bits());
        }
    }

    #[test]
    fn small_and_integer() {
        assert_eq!(pairwise(&[1i32, 2, 3], &|v| v), 6);
        assert_eq!(pairwise(&[i32::MAX, 1], &|v| v), i32::MIN);
        let x: Vec<i64> = (0..1000).collect();
        assert_eq!(pairwise(&x, &|v| v), 499_500);
        assert_eq!(pairwise_strided(&x, 999, 1000, -1, &|v| v), 499_500);
        assert!(pairwise::<f64, f64>(&[], &|v| v) == 0.0);
    }
}
