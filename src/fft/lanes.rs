//! Walking the lanes of one axis of a row-major buffer in cache-friendly batches.
//!
//! A row-major buffer seen as `[outer, n, inner]` has `outer * inner` lanes of length
//! `n` along its middle axis. With `inner == 1` the lanes are contiguous and are handed
//! out in place, many at a time. Otherwise a block of up to [`block_width`] adjacent
//! lanes (consecutive in the inner index, so each row of the block is one contiguous
//! run) is gathered into a contiguous buffer, transformed, and scattered back. Blocks
//! are spread over threads when the buffer is large.

use crate::iter::{PARALLEL_THRESHOLD, SendPtr};
use rayon::prelude::*;

/// Lane geometry of one pass: `outer` independent `[n, inner]` blocks whose lanes run
/// along `n` (`n_in` long in the source, `n_out` in the destination).
#[derive(Clone, Copy, Debug)]
pub(super) struct Lanes {
    pub outer: usize,
    pub n_in: usize,
    pub n_out: usize,
    pub inner: usize,
}

impl Lanes {
    /// The lanes of axis `axis` of a row-major `shape`, `n_out` long after the pass.
    pub fn of(shape: &[usize], axis: usize, n_out: usize) -> Self {
        Lanes {
            outer: shape[..axis].iter().product(),
            n_in: shape[axis],
            n_out,
            inner: shape[axis + 1..].iter().product(),
        }
    }

    fn elements(&self) -> usize {
        self.outer * self.inner * self.n_in.max(self.n_out)
    }
}

/// Lanes gathered per block: enough that each row of a block is two cache lines.
fn block_width<T>(inner: usize) -> usize {
    (128 / std::mem::size_of::<T>().max(1)).clamp(4, 32).min(inner)
}

/// Whether to spread `elements` of work over threads.
fn parallel(elements: usize) -> bool {
    let threshold = crate::iter::threshold_override().unwrap_or(PARALLEL_THRESHOLD);
    elements >= threshold && crate::threads::num_threads() > 1
}

/// Contiguous lanes handed out per call when `inner == 1`.
fn lanes_per_chunk(n: usize) -> usize {
    (16384 / n.max(1)).max(1)
}

/// Calls `f(work, lanes)` on every lane of `buf` (`[outer, n, inner]`, row-major) in
/// place: `lanes` holds whole lanes back to back (`lanes.len()` a multiple of `n`).
/// `init` makes each thread's scratch.
pub(super) fn in_place<C, W>(
    buf: &mut [C],
    g: Lanes,
    init: impl Fn() -> W + Sync + Send,
    f: impl Fn(&mut W, &mut [C]) + Sync + Send,
) where
    C: Copy + Default + Send + Sync,
{
    let n = g.n_in;
    debug_assert_eq!(g.n_in, g.n_out);
    debug_assert_eq!(buf.len(), g.outer * n * g.inner);
    if buf.is_empty() {
        return;
    }
    if g.inner == 1 {
        let chunk = lanes_per_chunk(n) * n;
        if parallel(buf.len()) {
            buf.par_chunks_mut(chunk).for_each_init(&init, |w, c| f(w, c));
        } else {
            let mut w = init();
            buf.chunks_mut(chunk).for_each(|c| f(&mut w, c));
        }
        return;
    }
    let bw = block_width::<C>(g.inner);
    let blocks = g.inner.div_ceil(bw);
    let ptr = SendPtr(buf.as_mut_ptr());
    let task = |(w, tmp): &mut (W, Vec<C>), t: usize| {
        let (o, j0) = (t / blocks, (t % blocks) * bw);
        let width = bw.min(g.inner - j0);
        let base = o * n * g.inner + j0;
        tmp.resize(width * n, C::default());
        for k in 0..n {
            // SAFETY: `base + k * inner + b` (b < width) lies inside `buf` (o < outer,
            // j0 + b < inner, k < n) and belongs to block `t` only: every other task has
            // another `o` or a disjoint column range, so no element is touched twice.
            let row = unsafe { std::slice::from_raw_parts(ptr.get().add(base + k * g.inner), width) };
            for (b, &x) in row.iter().enumerate() {
                tmp[b * n + k] = x;
            }
        }
        f(w, &mut tmp[..width * n]);
        for k in 0..n {
            // SAFETY: as above; this task's reads of these elements are finished.
            let row = unsafe { std::slice::from_raw_parts_mut(ptr.get().add(base + k * g.inner), width) };
            for (b, x) in row.iter_mut().enumerate() {
                *x = tmp[b * n + k];
            }
        }
    };
    let tasks = g.outer * blocks;
    let init2 = || (init(), Vec::new());
    if parallel(buf.len()) {
        (0..tasks).into_par_iter().for_each_init(init2, task);
    } else {
        let mut w = init2();
        (0..tasks).for_each(|t| task(&mut w, t));
    }
}

/// Calls `f(work, src_lanes, dst_lanes)` on every lane of `src` (`[outer, n_in, inner]`)
/// and the matching lane of `dst` (`[outer, n_out, inner]`): whole lanes back to back,
/// the same number in both. `src` is scratch (its contents are left unspecified), so
/// `f` may transform it in place.
pub(super) fn out_of_place<I, O, W>(
    src: &mut [I],
    dst: &mut [O],
    g: Lanes,
    init: impl Fn() -> W + Sync + Send,
    f: impl Fn(&mut W, &mut [I], &mut [O]) + Sync + Send,
) where
    I: Copy + Default + Send + Sync,
    O: Copy + Default + Send + Sync,
{
    let (ni, no) = (g.n_in, g.n_out);
    debug_assert!(ni > 0 && no > 0, "lanes of a transform are never empty");
    debug_assert_eq!(src.len(), g.outer * ni * g.inner);
    debug_assert_eq!(dst.len(), g.outer * no * g.inner);
    if dst.is_empty() {
        return;
    }
    if g.inner == 1 {
        let lanes = lanes_per_chunk(ni.max(no));
        let pairs = src.chunks_mut(lanes * ni).zip(dst.chunks_mut(lanes * no));
        if parallel(g.elements()) {
            let pairs: Vec<_> = pairs.collect();
            pairs.into_par_iter().for_each_init(&init, |w, (s, d)| f(w, s, d));
        } else {
            let mut w = init();
            pairs.for_each(|(s, d)| f(&mut w, s, d));
        }
        return;
    }
    let bw = block_width::<I>(g.inner).min(block_width::<O>(g.inner));
    let blocks = g.inner.div_ceil(bw);
    let src: &[I] = src;
    let ptr = SendPtr(dst.as_mut_ptr());
    let task = |(w, ti, to): &mut (W, Vec<I>, Vec<O>), t: usize| {
        let (o, j0) = (t / blocks, (t % blocks) * bw);
        let width = bw.min(g.inner - j0);
        ti.resize(width * ni, I::default());
        to.resize(width * no, O::default());
        let sbase = o * ni * g.inner + j0;
        for k in 0..ni {
            let row = &src[sbase + k * g.inner..sbase + k * g.inner + width];
            for (b, &x) in row.iter().enumerate() {
                ti[b * ni + k] = x;
            }
        }
        f(w, &mut ti[..width * ni], &mut to[..width * no]);
        let dbase = o * no * g.inner + j0;
        for k in 0..no {
            // SAFETY: `dbase + k * inner + b` (b < width) lies inside `dst` (o < outer,
            // j0 + b < inner, k < n_out) and is written by block `t` only: other tasks
            // have another `o` or a disjoint column range.
            let row = unsafe { std::slice::from_raw_parts_mut(ptr.get().add(dbase + k * g.inner), width) };
            for (b, x) in row.iter_mut().enumerate() {
                *x = to[b * no + k];
            }
        }
    };
    let tasks = g.outer * blocks;
    let init3 = || (init(), Vec::new(), Vec::new());
    if parallel(g.elements()) {
        (0..tasks).into_par_iter().for_each_init(init3, task);
    } else {
        let mut w = init3();
        (0..tasks).for_each(|t| task(&mut w, t));
    }
}

#[cfg(test)]
mod tests {
    //! The drivers with plain closures (no FFT), small enough for Miri:
    //! `cargo +nightly miri test --lib fft::lanes`.
    use super::*;

    /// Reference: lane `(o, j)` of `[outer, n, inner]` as a vector.
    fn lane(buf: &[i64], g: Lanes, n: usize, o: usize, j: usize) -> Vec<i64> {
        (0..n).map(|k| buf[o * n * g.inner + k * g.inner + j]).collect()
    }

    fn shapes() -> Vec<Lanes> {
        let mut v = Vec::new();
        for (outer, n, inner) in [
            (1, 5, 1),
            (3, 4, 1),
            (2, 3, 7),
            (1, 6, 40),
            (3, 1, 33),
            (0, 4, 3),
            (2, 0, 3),
        ] {
            v.push(Lanes {
                outer,
                n_in: n,
                n_out: n,
                inner,
            });
        }
        v
    }

    #[test]
    fn in_place_reverses_every_lane_once() {
        for g in shapes() {
            let len = g.outer * g.n_in * g.inner;
            let orig: Vec<i64> = (0..len as i64).collect();
            for par in [false, true] {
                let mut buf = orig.clone();
                let threshold = if par { 0 } else { usize::MAX };
                crate::iter::with_parallel_threshold(threshold, || {
                    in_place(
                        &mut buf,
                        g,
                        || (),
                        |_, lanes| {
                            for l in lanes.chunks_mut(g.n_in) {
                                l.reverse();
                            }
                        },
                    )
                });
                for o in 0..g.outer {
                    for j in 0..g.inner {
                        let mut want = lane(&orig, g, g.n_in, o, j);
                        want.reverse();
                        assert_eq!(lane(&buf, g, g.n_in, o, j), want, "{g:?} lane ({o}, {j})");
                    }
                }
            }
        }
    }

    #[test]
    fn out_of_place_maps_each_lane_to_its_output_lane() {
        for mut g in shapes().into_iter().filter(|g| g.n_in > 0) {
            // Each output lane: the input lane's sum, then its first element, then zeros.
            g.n_out = 3;
            let src_len = g.outer * g.n_in * g.inner;
            let orig: Vec<i64> = (0..src_len as i64).map(|x| x * 3 - 7).collect();
            for par in [false, true] {
                let mut src = orig.clone();
                let mut dst = vec![-1i64; g.outer * g.n_out * g.inner];
                let threshold = if par { 0 } else { usize::MAX };
                crate::iter::with_parallel_threshold(threshold, || {
                    out_of_place(
                        &mut src,
                        &mut dst,
                        g,
                        || (),
                        |_, s, d| {
                            let lanes = d.len() / g.n_out;
                            assert_eq!(s.len(), lanes * g.n_in);
                            for (l, out) in d.chunks_mut(g.n_out).enumerate() {
                                let inl = &s[l * g.n_in..(l + 1) * g.n_in];
                                out.fill(0);
                                out[0] = inl.iter().sum();
                                out[1] = inl.first().copied().unwrap_or(99);
                            }
                        },
                    )
                });
                for o in 0..g.outer {
                    for j in 0..g.inner {
                        let inl = lane(&orig, g, g.n_in, o, j);
                        let want = vec![inl.iter().sum(), inl.first().copied().unwrap_or(99), 0];
                        assert_eq!(lane(&dst, g, g.n_out, o, j), want, "{g:?} lane ({o}, {j})");
                    }
                }
            }
        }
    }
}
