//! Sorting kernels: a stable LSD radix sort on 64-bit order keys, a stable parallel
//! merge, and the parallel sort of one long run built from them.

use rayon::prelude::*;

/// Below this length a run is sorted by the standard library's stable sort.
const SMALL: usize = 128;
/// Below this length a merge (or a parallel split) runs on one thread.
const PAR_MIN: usize = 1 << 16;

/// One stable LSD radix pass per `BITS`-bit digit `0..P` that is not constant
/// (`R = 2^BITS` buckets); `buf` and `tmp` have the same length. Returns `true` when the
/// sorted result ended up in `tmp`.
fn radix<I: Copy, const P: usize, const BITS: u32, const R: usize>(
    buf: &mut [I],
    tmp: &mut [I],
    key: &impl Fn(&I) -> u64,
) -> bool {
    let n = buf.len();
    debug_assert_eq!(n, tmp.len());
    debug_assert_eq!(R, 1 << BITS);
    let mask = (R - 1) as u64;
    let mut hist = vec![[0u32; R]; P];
    for x in buf.iter() {
        let k = key(x);
        for (b, h) in hist.iter_mut().enumerate() {
            h[((k >> (BITS as usize * b)) & mask) as usize] += 1;
        }
    }
    let mut in_tmp = false;
    let mut offs = vec![0u32; R];
    for (b, h) in hist.iter().enumerate() {
        if h.iter().any(|&c| c as usize == n) {
            continue; // every key has the same digit here
        }
        let mut s = 0u32;
        for (o, &c) in offs.iter_mut().zip(h.iter()) {
            *o = s;
            s += c;
        }
        let (src, dst): (&[I], &mut [I]) = if in_tmp { (tmp, buf) } else { (buf, tmp) };
        let shift = BITS as usize * b;
        for x in src {
            let d = ((key(x) >> shift) & mask) as usize;
            // SAFETY: `d < R == offs.len()` (masked); `offs[d]` starts at the number of
            // keys with a smaller digit and is bumped once per key with this digit, so it
            // stays below that prefix plus the digit's count, at most `n == dst.len()`.
            unsafe {
                let o = offs.get_unchecked_mut(d);
                *dst.get_unchecked_mut(*o as usize) = *x;
                *o += 1;
            }
        }
        in_tmp = !in_tmp;
    }
    in_tmp
}

/// Sorts `buf` stably by `key`, using `tmp` (same length) as scratch. Returns `true`
/// when the result is in `tmp`. Only the low `nbytes` bytes of a key may vary.
pub(crate) fn sort_run<I: Copy>(buf: &mut [I], tmp: &mut [I], nbytes: usize, key: &impl Fn(&I) -> u64) -> bool {
    if buf.len() < SMALL || buf.len() > u32::MAX as usize {
        buf.sort_by_key(key);
        return false;
    }
    // Long runs take 11-bit digits (fewer passes; the 2048 buckets pay off), short
    // ones 8-bit digits (the histograms stay small next to the data).
    let long = buf.len() >= 1 << 16;
    match (nbytes, long) {
        (1, _) => radix::<I, 1, 8, 256>(buf, tmp, key),
        (2, _) => radix::<I, 2, 8, 256>(buf, tmp, key),
        (3 | 4, false) => radix::<I, 4, 8, 256>(buf, tmp, key),
        (3 | 4, true) => radix::<I, 3, 11, 2048>(buf, tmp, key),
        (_, false) => radix::<I, 8, 8, 256>(buf, tmp, key),
        (_, true) => radix::<I, 6, 11, 2048>(buf, tmp, key),
    }
}

/// Stable merge of sorted `a` and `b` into `dst` (`a` first on ties), in parallel
/// for long inputs by splitting at a pivot.
fn merge<I: Copy + Send + Sync>(a: &[I], b: &[I], dst: &mut [I], key: &(impl Fn(&I) -> u64 + Sync)) {
    debug_assert_eq!(a.len() + b.len(), dst.len());
    if dst.len() < PAR_MIN || a.is_empty() || b.is_empty() {
        let (mut i, mut j) = (0, 0);
        for d in dst.iter_mut() {
            if j >= b.len() || (i < a.len() && key(&a[i]) <= key(&b[j])) {
                *d = a[i];
                i += 1;
            } else {
                *d = b[j];
                j += 1;
            }
        }
        return;
    }
    let (i, j) = if a.len() >= b.len() {
        let i = a.len() / 2;
        let p = key(&a[i]);
        (i, b.partition_point(|x| key(x) < p))
    } else {
        let j = b.len() / 2;
        let p = key(&b[j]);
        (a.partition_point(|x| key(x) <= p), j)
    };
    let (dl, dr) = dst.split_at_mut(i + j);
    rayon::join(|| merge(&a[..i], &b[..j], dl, key), || merge(&a[i..], &b[j..], dr, key));
}

/// Sorts `buf` stably by `key` on up to `threads` threads (halves sorted in parallel,
/// then merged in parallel). Returns `true` when the result is in `tmp`.
pub(crate) fn par_sort_run<I: Copy + Send + Sync>(
    buf: &mut [I],
    tmp: &mut [I],
    nbytes: usize,
    threads: usize,
    key: &(impl Fn(&I) -> u64 + Sync),
) -> bool {
    let n = buf.len();
    if threads <= 1 || n < 2 * PAR_MIN {
        return sort_run(buf, tmp, nbytes, key);
    }
    let h = n / 2;
    let (bl, br) = buf.split_at_mut(h);
    let (tl, tr) = tmp.split_at_mut(h);
    let half = threads.div_ceil(2);
    let (mut l_in_tmp, r_in_tmp) = rayon::join(
        || par_sort_run(bl, tl, nbytes, half, key),
        || par_sort_run(br, tr, nbytes, threads - half, key),
    );
    if l_in_tmp != r_in_tmp {
        // Bring the left half next to the right one.
        if l_in_tmp {
            bl.par_chunks_mut(PAR_MIN)
                .zip(tl.par_chunks(PAR_MIN))
                .for_each(|(d, s)| d.copy_from_slice(s));
        } else {
            tl.par_chunks_mut(PAR_MIN)
                .zip(bl.par_chunks(PAR_MIN))
                .for_each(|(d, s)| d.copy_from_slice(s));
        }
        l_in_tmp = r_in_tmp;
    }
    if l_in_tmp {
        merge(&tmp[..h], &tmp[h..], buf, key);
        false
    } else {
        merge(&buf[..h], &buf[h..], tmp, key);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn radix_and_parallel_sort_are_stable() {
        let mut seed = 7;
        for nbytes in [2usize, 4, 8] {
            for &n in &[0usize, 1, 5, 127, 128, 1000, 300_000] {
                let mask = if nbytes == 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * nbytes)) - 1
                };
                // few distinct high parts, so ties are common
                let items: Vec<(u64, usize)> = (0..n)
                    .map(|i| ((lcg(&mut seed) % 50).wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask, i))
                    .collect();
                let mut expect = items.clone();
                expect.sort_by_key(|p| p.0);
                for threads in [1, 2, 3] {
                    let (mut buf, mut tmp) = (items.clone(), items.clone());
                    let in_tmp = par_sort_run(&mut buf, &mut tmp, nbytes, threads, &|p: &(u64, usize)| p.0);
                    let got = if in_tmp { &tmp } else { &buf };
                    assert!(got == &expect, "n = {n}, nbytes = {nbytes}, threads = {threads}");
                }
            }
        }
    }
}
