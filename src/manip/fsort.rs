//! Value sort of `f32` lanes on order-preserving `u32` keys.
//!
//! A float maps to a key whose unsigned order is NumPy's order with `-0.0` folded onto
//! `+0.0` and every NaN onto `u32::MAX`; the key maps back to the float's bits. The
//! keys are sorted by an LSD radix sort (unstable in principle, but equal keys are
//! equal floats except for the sign of zero and NaN payloads), and afterwards the run
//! of zeros and the NaN tail are rewritten from the input in input order when the
//! input held a `-0.0` or a NaN. The result is bit-identical to a stable sort.
//!
//! Lanes of at most [`NET_MAX`] keys are sorted by a sorting network
//! ([`sort_keys`]); longer short lanes (rows) on one thread by an LSD radix sort with
//! 8-bit digits (below [`RADIX8_MAX`]) or 11-bit digits (constant digits skipped). Long lanes are first scattered in parallel into buckets
//! of consecutive key ranges that fit in cache, then the buckets are sorted the same
//! way, in parallel.

use rayon::prelude::*;

use super::qsort;
use super::sort_network::{NET_MAX, sort_keys};

/// Below this length a lane is radix sorted with 8-bit digits, from it with 11-bit ones.
const RADIX8_MAX: usize = 4096;

/// The order key of the float with bits `b` (see the module documentation).
#[inline(always)]
pub(crate) fn key(b: u32) -> u32 {
    let k = b ^ ((((b as i32) >> 31) as u32) | 0x8000_0000);
    if b & 0x7fff_ffff > 0x7f80_0000 {
        u32::MAX
    } else if b == 0x8000_0000 {
        0x8000_0000
    } else {
        k
    }
}

/// The float bits of key `k` (inverse of [`key`] except on the folded values).
#[inline(always)]
pub(crate) fn unkey(k: u32) -> u32 {
    k ^ (!(((k as i32) >> 31) as u32) | 0x8000_0000)
}

/// What a key pass saw that the keys do not record.
#[derive(Clone, Copy, Default)]
struct Specials {
    nan: usize,
    neg_zero: usize,
}

impl Specials {
    #[inline(always)]
    fn add(&mut self, b: u32) {
        self.nan += (b & 0x7fff_ffff > 0x7f80_0000) as usize;
        self.neg_zero += (b == 0x8000_0000) as usize;
    }

    fn merge(self, o: Self) -> Self {
        Self {
            nan: self.nan + o.nan,
            neg_zero: self.neg_zero + o.neg_zero,
        }
    }
}

/// Rewrites the zero run and the NaN tail of the sorted `out` from `src` in input
/// order (where the keys folded `-0.0` and NaN payloads).
fn restore_specials(src: &[f32], out: &mut [f32], sp: Specials) {
    if sp.neg_zero > 0 {
        let mut p = out.partition_point(|x| *x < 0.0);
        for &x in src {
            if x == 0.0 {
                out[p] = x;
                p += 1;
            }
        }
    }
    if sp.nan > 0 {
        let mut p = out.len() - sp.nan;
        for &x in src {
            if x.is_nan() {
                out[p] = x;
                p += 1;
            }
        }
    }
}

/// Sorts one lane `src` into `out` (same length) on one thread, with `a` and `b` as
/// scratch (resized as needed).
pub(crate) fn sort_lane(src: &[f32], out: &mut [f32], a: &mut Vec<u32>, b: &mut Vec<u32>) {
    let n = src.len();
    debug_assert_eq!(n, out.len());
    let out_bits: &mut [u32] = bytemuck::cast_slice_mut(out);
    let mut sp = Specials::default();
    if n <= NET_MAX {
        for (o, &x) in out_bits.iter_mut().zip(src) {
            let bits = x.to_bits();
            sp.add(bits);
            *o = key(bits);
        }
        sort_keys(out_bits);
        for o in out_bits.iter_mut() {
            *o = unkey(*o);
        }
    } else if QSORT && qsort_lane(src, out_bits, &mut sp) {
    } else {
        a.resize(n, 0);
        b.resize(n, 0);
        let load = |x: f32| {
            let bits = x.to_bits();
            sp.add(bits);
            key(bits)
        };
        // 256-bucket histograms are cheaper to clear and sum for medium lanes; 2048
        // buckets save a pass on long ones
        if n < RADIX8_MAX {
            radix_lane::<f32, 8, 256, 4, true>(src, load, out_bits, &mut a[..n], &mut b[..n]);
        } else {
            radix_lane::<f32, 11, 2048, 3, true>(src, load, out_bits, &mut a[..n], &mut b[..n]);
        }
    }
    restore_specials(src, out, sp);
}

/// Whether lanes longer than the network go to the AVX-512 quicksort (when the CPU
/// has it) rather than the radix sort.
const QSORT: bool = true;

/// Sorts `src` into `out_bits` (float bits) by [`qsort::sort_keys`] on its keys, adding
/// the specials to `sp`; `false` (and nothing written) without AVX-512.
fn qsort_lane(src: &[f32], out_bits: &mut [u32], sp: &mut Specials) -> bool {
    if !qsort::available() {
        return false;
    }
    let mut s = Specials::default();
    for (o, &x) in out_bits.iter_mut().zip(src) {
        let bits = x.to_bits();
        s.add(bits);
        *o = key(bits);
    }
    *sp = sp.merge(s);
    let sorted = qsort::sort_keys(out_bits);
    debug_assert!(sorted);
    for o in out_bits.iter_mut() {
        *o = unkey(*o);
    }
    true
}

/// LSD radix sort of the keys `load` gives for `src` into `out_bits` (float bits) with `P` digits of
/// `BITS` bits (`R` buckets); `a` and `b` are scratch of `src`'s length.
fn radix_lane<S: Copy, const BITS: u32, const R: usize, const P: usize, const FUSED: bool>(
    src: &[S],
    mut load: impl FnMut(S) -> u32,
    out_bits: &mut [u32],
    a: &mut [u32],
    b: &mut [u32],
) {
    debug_assert!(!src.is_empty() && a.len() == src.len() && b.len() == src.len());
    // Keys and which bits differ between them (digits that do not are skipped). With
    // `FUSED` the histograms of every digit are counted in the same read (faster for
    // lanes whose digits all vary, e.g. rows); otherwise each pass counts its own digit
    // (faster for buckets whose top digit is constant).
    let first = load(src[0]);
    a[0] = first;
    let mut h = [[0u32; R]; P];
    let count = |h: &mut [[u32; R]; P], k: u32| {
        for (d, hd) in h.iter_mut().enumerate() {
            hd[((k >> (BITS as usize * d)) as usize) & (R - 1)] += 1;
        }
    };
    if FUSED {
        count(&mut h, first);
    }
    let mut diff = 0;
    for (k, &x) in a[1..].iter_mut().zip(&src[1..]) {
        let kk = load(x);
        *k = kk;
        diff |= kk ^ first;
        if FUSED {
            count(&mut h, kk);
        }
    }
    let mut digits = [0usize; P];
    let mut nd = 0;
    for d in 0..P {
        if (diff >> (BITS as usize * d)) as usize & (R - 1) != 0 {
            digits[nd] = d;
            nd += 1;
        }
    }
    let (mut cur, mut oth) = (a, b);
    for (j, &d) in digits[..nd].iter().enumerate() {
        let shift = BITS * d as u32;
        if !FUSED {
            let hd = &mut h[d];
            for &k in cur.iter() {
                hd[((k >> shift) as usize) & (R - 1)] += 1;
            }
        }
        let mut offs = [0u32; R];
        let mut s = 0;
        for (o, &c) in offs.iter_mut().zip(h[d].iter()) {
            *o = s;
            s += c;
        }
        if j + 1 == nd {
            for &k in cur.iter() {
                let o = &mut offs[((k >> shift) as usize) & (R - 1)];
                out_bits[*o as usize] = unkey(k);
                *o += 1;
            }
            return;
        }
        for &k in cur.iter() {
            let o = &mut offs[((k >> shift) as usize) & (R - 1)];
            oth[*o as usize] = k;
            *o += 1;
        }
        std::mem::swap(&mut cur, &mut oth);
    }
    for (o, &k) in out_bits.iter_mut().zip(cur.iter()) {
        *o = unkey(k);
    }
}

/// A raw pointer that rayon closures may share; every user writes disjoint elements.
#[derive(Clone, Copy)]
struct SharedMut(*mut u32);
// SAFETY: the pointer is only used for writes to disjoint indices (see `scatter`), and
// the buffer it points into outlives the parallel section that uses it.
unsafe impl Send for SharedMut {}
// SAFETY: as above.
unsafe impl Sync for SharedMut {}

impl SharedMut {
    fn get(self) -> *mut u32 {
        self.0
    }
}

/// Writes the key of each float of `src` (one chunk of the source, in order) to
/// `dst[offs[map[key >> 16]]]`, bumping that offset.
///
/// # Safety
/// `dst` points to a buffer that nothing else reads or writes meanwhile except other
/// `scatter` calls; for every bucket `b`, `offs[b]` plus the number of keys of `keys` in
/// bucket `b` is at most the buffer's length, and the ranges `offs[b] ..` of all
/// concurrent calls and buckets are disjoint.
unsafe fn scatter(src: &[f32], dst: *mut u32, offs: &mut [u32], map: &[u16]) {
    for &x in src {
        let k = key(x.to_bits());
        let o = &mut offs[map[(k >> 16) as usize] as usize];
        // SAFETY: by the caller's contract, `*o` is in bounds and owned by this call.
        unsafe { dst.add(*o as usize).write(k) };
        *o += 1;
    }
}

/// Target size of a bucket of the long-lane sort (keys that stay in L2).
const BUCKET: usize = 1 << 14;

/// Sorts one long lane `src` into `out` (same length, below `2^32`) on `chunks`
/// parallel pieces: keys and a histogram of their top 16 bits, one scatter into
/// buckets of consecutive top-16-bit values (about [`BUCKET`] keys each, more only for a
/// single value), then every bucket sorted in cache by [`radix_lane`], in parallel.
pub(crate) fn sort_long(src: &[f32], out: &mut [f32], chunks: usize) {
    // SAFETY: `sort_long_uninit` writes only initialised `f32` values.
    let out_u = unsafe { &mut *(out as *mut [f32] as *mut [std::mem::MaybeUninit<f32>]) };
    sort_long_uninit(src, out_u, chunks);
}

/// [`sort_long`] into an uninitialised output, which it fills completely.
pub(crate) fn sort_long_uninit(src: &[f32], out: &mut [std::mem::MaybeUninit<f32>], chunks: usize) {
    let n = src.len();
    assert!(n == out.len() && n <= u32::MAX as usize);
    if n == 0 {
        return;
    }
    let clen = n.div_ceil(chunks.max(1));
    // Histogram pass: per-chunk histograms of the keys' top 16 bits, and specials. The
    // keys are computed again in the scatter, which is cheaper than writing them out
    // and reading them back (80 MB of traffic for 1e7 floats).
    let firsts: Vec<(Vec<u32>, Specials)> = src
        .par_chunks(clen)
        .map(|s| {
            let mut h = vec![0u32; 1 << 16];
            let mut sp = Specials::default();
            for &x in s {
                let bits = x.to_bits();
                sp.add(bits);
                h[(key(bits) >> 16) as usize] += 1;
            }
            (h, sp)
        })
        .collect();
    let sp = firsts.iter().fold(Specials::default(), |s, f| s.merge(f.1));
    // Buckets: runs of consecutive top-16-bit values with about `BUCKET` keys.
    let mut map = vec![0u16; 1 << 16];
    let mut bounds = vec![0usize];
    let mut cur = 0usize;
    for (v, m) in map.iter_mut().enumerate() {
        let c: usize = firsts.iter().map(|f| f.0[v] as usize).sum();
        if cur > 0 && cur + c > BUCKET {
            bounds.push(bounds[bounds.len() - 1] + cur);
            cur = 0;
        }
        *m = (bounds.len() - 1) as u16;
        cur += c;
    }
    bounds.push(n);
    let nb = bounds.len() - 1;
    // Offsets: all keys of earlier buckets, then this bucket's keys of earlier chunks.
    let mut offs: Vec<Vec<u32>> = firsts
        .iter()
        .map(|f| {
            let mut cb = vec![0u32; nb];
            for (v, &c) in f.0.iter().enumerate() {
                cb[map[v] as usize] += c;
            }
            cb
        })
        .collect();
    for b in 0..nb {
        let mut s = bounds[b] as u32;
        for o in offs.iter_mut() {
            let c = o[b];
            o[b] = s;
            s += c;
        }
    }
    drop(firsts);
    let dst = SharedMut(out.as_mut_ptr() as *mut u32);
    src.par_chunks(clen).zip(offs.par_iter_mut()).for_each(|(c, o)| {
        // SAFETY: `out` is borrowed mutably for this whole section and only written
        // here; chunk `c`'s keys in bucket `b` go to `offs[c][b] .. offs[c][b] +
        // count`, ranges that tile `0..n` without overlap (the prefix sum above runs
        // over buckets, then chunks, starting each bucket at its bound).
        unsafe { scatter(c, dst.get(), o, &map) }
    });
    // SAFETY: the scatter wrote all `n` elements (its ranges tile `0..n`), as bit
    // patterns of `u32` keys, which `f32` and `u32` share.
    let out_bits: &mut [u32] = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u32, n) };
    // Sort every bucket in place (through scratch), in parallel.
    let mut parts = Vec::with_capacity(nb);
    let mut rest = &mut *out_bits;
    for b in 0..nb {
        let (p, r) = rest.split_at_mut(bounds[b + 1] - bounds[b]);
        parts.push(p);
        rest = r;
    }
    parts.into_par_iter().for_each_init(
        || (Vec::new(), Vec::new(), Vec::new()),
        |(a, b, c): &mut (Vec<u32>, Vec<u32>, Vec<u32>), p| {
            let m = p.len();
            if m <= NET_MAX {
                sort_keys(p);
                p.iter_mut().for_each(|k| *k = unkey(*k));
                return;
            }
            c.clear();
            c.extend_from_slice(p);
            a.resize(m, 0);
            b.resize(m, 0);
            radix_lane::<u32, 11, 2048, 3, false>(c, |k| k, p, &mut a[..m], &mut b[..m]);
        },
    );
    // SAFETY: as above: every element is an initialised `f32` now.
    let out: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut f32, n) };
    restore_specials(src, out, sp);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed >> 11
    }

    /// Floats with many ties, signed zeros, infinities, subnormals and NaN payloads.
    fn nasty(n: usize, seed: &mut u64) -> Vec<f32> {
        (0..n)
            .map(|_| {
                let r = lcg(seed);
                match r % 16 {
                    0 => f32::from_bits(0x7fc0_0000 | ((r >> 8) as u32 & 0x3f_ffff)),
                    1 => f32::from_bits(0xff80_0001 + (r >> 8) as u32 % 100),
                    2 => -0.0,
                    3 => 0.0,
                    4 => f32::INFINITY,
                    5 => f32::NEG_INFINITY,
                    6 => f32::from_bits(((r >> 8) as u32 % 1000) | ((r as u32 & 1) << 31)),
                    7..=10 => ((r >> 8) % 7) as f32 - 3.0,
                    _ => f32::from_bits((r >> 4) as u32),
                }
            })
            .collect()
    }

    fn reference(src: &[f32]) -> Vec<u32> {
        let mut v = src.to_vec();
        let ord = |x: &f32| (x.is_nan(), if x.is_nan() || *x == 0.0 { 0.0 } else { *x });
        v.sort_by(|x, y| ord(x).partial_cmp(&ord(y)).unwrap());
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn keys_order_and_invert() {
        let xs = [
            f32::NEG_INFINITY,
            -1.0,
            -f32::MIN_POSITIVE,
            -1e-45,
            0.0,
            1e-45,
            2.0,
            f32::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(key(w[0].to_bits()) < key(w[1].to_bits()));
        }
        for x in xs {
            assert_eq!(unkey(key(x.to_bits())), x.to_bits());
        }
        assert_eq!(key((-0.0f32).to_bits()), key(0.0f32.to_bits()));
        assert_eq!(key(f32::from_bits(0xffc0_0001).to_bits()), u32::MAX);
        assert_eq!(key(f32::NAN.to_bits()), u32::MAX);
    }

    #[test]
    fn lanes_match_stable_sort() {
        let mut seed = 11;
        let lens: Vec<usize> = if cfg!(miri) {
            vec![0, 1, 2, 63, 64, 100, 300]
        } else {
            (0..=300).chain([1000, 2000, 4095, 4096, 100_000]).collect()
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for n in lens {
            for variant in 0..3 {
                let mut src = nasty(n, &mut seed);
                if variant == 1 {
                    // no specials: the fast path without restoring
                    src.iter_mut().for_each(|x| *x = (lcg(&mut seed) % 1000) as f32 / 8.0);
                } else if variant == 2 {
                    src.iter_mut()
                        .for_each(|x| *x = if lcg(&mut seed).is_multiple_of(2) { -0.0 } else { 0.0 });
                }
                let want = reference(&src);
                let mut out = vec![0.0f32; n];
                sort_lane(&src, &mut out, &mut a, &mut b);
                assert!(bits(&out) == want, "lane n = {n} variant {variant}");
                // (Miri: the 64 Ki-entry histograms make each long sort slow)
                let chunk_counts: &[usize] = if cfg!(miri) { &[3] } else { &[1, 2, 3, 8] };
                if cfg!(miri) && (variant > 0 || n < 64) {
                    continue;
                }
                for &chunks in chunk_counts {
                    let mut out = vec![0.0f32; n];
                    sort_long(&src, &mut out, chunks);
                    assert!(bits(&out) == want, "long n = {n} variant {variant} chunks {chunks}");
                }
            }
        }
    }

    #[test]
    fn constant_digits_are_skipped_correctly() {
        // keys differing only in one or two digits (even and odd numbers of passes)
        for vals in [
            vec![1.0f32, 3.0, 2.0, 1.5],
            vec![1.0, 1.0 + f32::EPSILON, 1.0 + 2.0 * f32::EPSILON],
            vec![5.0; 4],
        ] {
            let src: Vec<f32> = (0..300).map(|i| vals[(i * 7) % vals.len()]).collect();
            let want = reference(&src);
            let mut out = vec![0.0f32; src.len()];
            sort_long(&src, &mut out, 3);
            assert!(bits(&out) == want);
            sort_lane(&src, &mut out, &mut Vec::new(), &mut Vec::new());
            assert!(bits(&out) == want);
        }
    }
}
