//! Sorting kernels: a stable LSD radix sort on 64-bit order keys, a stable parallel
//! merge, and the parallel sort of one long run built from them.

use rayon::prelude::*;

/// Below this length a run is sorted by the standard library's stable sort.
const SMALL: usize = 128;
/// Below this length a merge (or a parallel split) runs on one thread.
const PAR_MIN: usize = 1 << 16;

/// One stable LSD radix pass per key byte `0..NB` that is not constant; `buf` and `tmp`
/// have the same length. Returns `true` when the sorted result ended up in `tmp`.
fn radix<I: Copy, const NB: usize>(buf: &mut [I], tmp: &mut [I], key: &impl Fn(&I) -> u64) -> bool {
    let n = buf.len();
    debug_assert_eq!(n, tmp.len());
    let mut hist = [[0u32; 256]; NB];
    for x in buf.iter() {
        let k = key(x);
        for (b, h) in hist.iter_mut().enumerate() {
            h[((k >> (8 * b)) & 255) as usize] += 1;
        }
    }
    let mut in_tmp = false;
    for (b, h) in hist.iter().enumerate() {
        if h.iter().any(|&c| c as usize == n) {
            continue; // every key has the same byte here
        }
        let mut offs = [0u32; 256];
        let mut s = 0u32;
        for (o, &c) in offs.iter_mut().zip(h.iter()) {
            *o = s;
            s += c;
        }
        let (src, dst): (&[I], &mut [I]) = if in_tmp { (tmp, buf) } else { (buf, tmp) };
        for x in src {
            let d = ((key(x) >> (8 * b)) & 255) as usize;
            let o = offs[d] as usize;
            // SAFETY: `offs[d]` starts at the number of keys with a smaller byte and is
            // bumped once per key with this byte, so it stays below that prefix plus the
            // byte's count, which is at most `n == dst.len()`.
            unsafe { *dst.get_unchecked_mut(o) = *x };
            offs[d] += 1;
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
    match nbytes {
        1 => radix::<I, 1>(buf, tmp, key),
        2 => radix::<I, 2>(buf, tmp, key),
        3 | 4 => radix::<I, 4>(buf, tmp, key),
        _ => radix::<I, 8>(buf, tmp, key),
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
        for &n in &[0usize, 1, 5, 127, 128, 1000, 300_000] {
            let items: Vec<(u64, usize)> = (0..n).map(|i| (lcg(&mut seed) % 1000, i)).collect();
            let mut expect = items.clone();
            expect.sort_by_key(|p| p.0);
            for threads in [1, 2, 3] {
                let (mut buf, mut tmp) = (items.clone(), items.clone());
                let in_tmp = par_sort_run(&mut buf, &mut tmp, 2, threads, &|p: &(u64, usize)| p.0);
                let got = if in_tmp { &tmp } else { &buf };
                assert_eq!(got, &expect, "n = {n}, threads = {threads}");
            }
        }
    }
}
