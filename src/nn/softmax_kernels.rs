//! The loop bodies of `softmax` / `log_softmax` ([`super::softmax`]) as
//! [`crate::cpu::Kernel`]s, run through [`crate::cpu::dispatch`] so that each is
//! compiled inside the AVX-512, AVX2 and portable wrappers: rows of a contiguous last
//! axis ([`RowsK`]), tiles of columns along a strided axis copied into a scratch
//! ([`TileK`]), and blocks of columns read twice from memory for axes too long for a
//! tile ([`ColsK`]).

use super::softmax::RowFloat;
use crate::cpu::Kernel;

/// An output element not yet written.
pub(super) type Out<E> = std::mem::MaybeUninit<E>;

/// Softmax (or log-softmax) of consecutive rows of `n` elements of `x` into `out` (the
/// same length), each row computed in `scratch` (at least `n` elements).
pub(super) struct RowsK<'a, E> {
    pub(super) x: &'a [E],
    pub(super) out: &'a mut [Out<E>],
    pub(super) n: usize,
    pub(super) log: bool,
    pub(super) stream: bool,
    pub(super) scratch: &'a mut [E],
}

impl<E: RowFloat> Kernel for RowsK<'_, E> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        rows_body(self)
    }
}

/// A block of `w` columns of `n` rows `inner` apart (`g = [n, inner, w]`): the input
/// `x` starts at the block's first element, and so does `out`.
pub(super) struct StridedK<'a, E> {
    x: &'a [E],
    out: *mut Out<E>,
    g: [usize; 3],
    log: bool,
    stream: bool,
    scratch: &'a mut [E],
}

impl<'a, E> StridedK<'a, E> {
    /// # Safety
    /// With `g = [n, inner, w]`: `x.len() >= (n − 1)·inner + w`, and `out + r·inner + j`
    /// is valid for writes, for `r < n`, `j < w`, and accessed by nobody else until the
    /// kernel has run.
    pub(super) unsafe fn new(
        x: &'a [E],
        out: *mut Out<E>,
        g: [usize; 3],
        log: bool,
        stream: bool,
        scratch: &'a mut [E],
    ) -> Self {
        let [n, inner, w] = g;
        assert!(
            n == 0 || x.len() >= (n - 1) * inner + w,
            "softmax: block outside its input"
        );
        StridedK {
            x,
            out,
            g,
            log,
            stream,
            scratch,
        }
    }
}

/// [`StridedK`] through the tile kernel ([`tile_body`]); its scratch holds
/// [`tile_scratch_len`] elements.
pub(super) struct TileK<'a, E>(pub(super) StridedK<'a, E>);

impl<E: RowFloat> Kernel for TileK<'_, E> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        // SAFETY: `StridedK::new`'s contract, given by whoever built it.
        unsafe { tile_body(self.0) }
    }
}

/// [`StridedK`] through the two-read column blocks ([`cols_body`]); its scratch holds
/// `4·w` elements.
pub(super) struct ColsK<'a, E>(pub(super) StridedK<'a, E>);

impl<E: RowFloat> Kernel for ColsK<'_, E> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        // SAFETY: `StridedK::new`'s contract, given by whoever built it.
        unsafe { cols_body(self.0) }
    }
}

const LANES: usize = 16;

/// Folds `x` with `f` over `LANES` independent accumulators (so the loop vectorises),
/// then across the lanes and the remainder.
#[inline(always)]
fn fold_lanes<E: RowFloat>(x: &[E], init: E, f: impl Fn(E, E) -> E) -> E {
    let mut acc = [init; LANES];
    let chunks = x.chunks_exact(LANES);
    let rem = chunks.remainder();
    for ch in chunks {
        for (a, &v) in acc.iter_mut().zip(ch) {
            *a = f(*a, v);
        }
    }
    acc.iter().chain(rem).fold(init, |a, &v| f(a, v))
}

/// Maximum ignoring NaN (a NaN row still gives NaN through `exp(NaN − max)`).
#[inline(always)]
fn max_of<E: RowFloat>(x: &[E]) -> E {
    fold_lanes(x, E::neg_infinity(), |a, v| if v > a { v } else { a })
}

#[inline(always)]
fn sum_of<E: RowFloat>(x: &[E]) -> E {
    fold_lanes(x, E::zero(), |a, v| a + v)
}

/// Elements per step of the row pass that prefetches the next row.
const PF_CHUNK: usize = 64;

/// Softmax (or log-softmax) of consecutive rows of length `n`, each computed in
/// `scratch` (one row: L1 for rows up to a few thousand values) and then stored to
/// `out` once, with streaming stores when `stream` is set. Per row the input is read
/// from memory once (the maximum) and from cache after that.
#[inline(always)]
fn rows_body<E: RowFloat>(k: RowsK<'_, E>) {
    let RowsK {
        x,
        out,
        n,
        log,
        stream,
        scratch,
    } = k;
    assert_eq!(x.len(), out.len(), "softmax rows: input and output lengths differ");
    let s = &mut scratch[..n];
    for (r, (xr, or)) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)).enumerate() {
        let m = max_of(xr);
        // The next row's lines are requested while this one is computed from cache, so
        // memory and arithmetic overlap (the max pass is the only read from memory).
        for (c, (o, xs)) in s.chunks_mut(PF_CHUNK).zip(xr.chunks(PF_CHUNK)).enumerate() {
            crate::iter::stream::prefetch(x, (r + 1) * n + c * PF_CHUNK, PF_CHUNK);
            for (o, &v) in o.iter_mut().zip(xs) {
                *o = v - m;
            }
        }
        E::exp_inplace(s);
        let sum = sum_of(s);
        if log {
            let lse = E::vln(sum);
            for (o, &v) in s.iter_mut().zip(xr) {
                *o = (v - m) - lse;
            }
        } else {
            let inv = E::one() / sum;
            for o in s.iter_mut() {
                *o = *o * inv;
            }
        }
        // SAFETY: `or` is an exclusive slice of `n` elements, apart from `s`.
        unsafe { crate::iter::stream::store_run(or.as_mut_ptr(), s, stream) };
    }
    if stream {
        crate::iter::stream::fence();
    }
}

/// Bytes of a group of rows of a column block, whose maximum is taken before their
/// exponentials are summed (the group is then re-read from L1/L2, not memory).
pub(super) const GROUP_BYTES: usize = 64 << 10;

/// Softmax along the rows of a block: `n` rows `inner` apart, `w` columns each
/// (`g = [n, inner, w]`), in two reads of the block from memory. The first keeps per
/// column the running maximum and the sum of exponentials relative to it: a group of
/// rows (in cache) gives its maximum, the sum is rescaled once by `exp(old − new)`,
/// then the group's exponentials are added. The second writes the results, streamed
/// when `stream` is set.
///
/// # Safety
/// [`StridedK::new`]'s contract.
#[inline(always)]
unsafe fn cols_body<E: RowFloat>(k: StridedK<'_, E>) {
    let StridedK {
        x,
        out,
        g: [n, inner, w],
        log,
        stream,
        scratch,
    } = k;
    let xrow = |r: usize| &x[r * inner..r * inner + w];
    let (m, rest) = scratch.split_at_mut(w);
    let (s, rest) = rest.split_at_mut(w);
    let (gm, tmp) = rest.split_at_mut(w);
    let (gm, tmp) = (&mut gm[..w], &mut tmp[..w]);
    m.fill(E::neg_infinity());
    s.fill(E::zero());
    let group = (GROUP_BYTES / (w * size_of::<E>()).max(1)).max(1);
    for r0 in (0..n).step_by(group) {
        let r1 = (r0 + group).min(n);
        gm.copy_from_slice(m);
        for r in r0..r1 {
            for (a, &v) in gm.iter_mut().zip(xrow(r)) {
                *a = if v > *a { v } else { *a };
            }
        }
        rescale(m, s, gm, tmp);
        for r in r0..r1 {
            for ((t, &v), &c) in tmp.iter_mut().zip(xrow(r)).zip(gm.iter()) {
                *t = v - c;
            }
            E::exp_inplace(tmp);
            for (a, &e) in s.iter_mut().zip(tmp.iter()) {
                *a = *a + e;
            }
        }
    }
    finish_sums(s, m, log);
    for r in 0..n {
        for ((t, &v), &mx) in tmp.iter_mut().zip(xrow(r)).zip(m.iter()) {
            *t = v - mx;
        }
        if log {
            for (t, &a) in tmp.iter_mut().zip(s.iter()) {
                *t = *t - a;
            }
        } else {
            E::exp_inplace(tmp);
            for (t, &a) in tmp.iter_mut().zip(s.iter()) {
                *t = *t * a;
            }
        }
        // SAFETY: row r's w columns are valid and ours (`StridedK::new`); `tmp` is apart.
        unsafe { crate::iter::stream::store_run(out.add(r * inner), tmp, stream) };
    }
    if stream {
        crate::iter::stream::fence();
    }
}

/// Moves the running maxima `m` to `new` (the maxima over the next group too) and
/// rescales the sums `s` by `exp(old − new)`: factor 1 where the maximum did not move,
/// also for columns still at −∞. `new` becomes the shift of the group's exponentials:
/// the maximum, or 0 for a column still all −∞ (its terms are exp(−∞) = 0, not
/// exp(−∞ + ∞) = NaN). `f` is scratch, as long as `m`.
#[inline(always)]
fn rescale<E: RowFloat>(m: &mut [E], s: &mut [E], new: &mut [E], f: &mut [E]) {
    for ((f, old), c) in f.iter_mut().zip(m.iter_mut()).zip(new.iter_mut()) {
        let nm = *c;
        *f = if *old == nm { E::zero() } else { *old - nm };
        *old = nm;
        *c = finite_or_zero(nm);
    }
    E::exp_inplace(f);
    for (a, &f) in s.iter_mut().zip(f.iter()) {
        *a = *a * f;
    }
}

/// The sums of exponentials into the factor `1 / sum` (softmax) or the offset
/// `ln sum` (log-softmax), and the maxima into the shifts ([`finite_or_zero`]).
#[inline(always)]
fn finish_sums<E: RowFloat>(s: &mut [E], m: &mut [E], log: bool) {
    for (a, mx) in s.iter_mut().zip(m.iter_mut()) {
        *a = if log { E::vln(*a) } else { E::one() / *a };
        *mx = finite_or_zero(*mx);
    }
}

/// `m`, or 0 for a maximum of −∞ (a column with no finite value yet): the shift that
/// keeps `x − shift` free of `−∞ + ∞`.
#[inline(always)]
fn finite_or_zero<E: RowFloat>(m: E) -> E {
    if m == E::neg_infinity() { E::zero() } else { m }
}

/// Elements of a tile handled per group of rows (the rows whose maximum is taken
/// before their exponentials): 8 KiB of f32, in L1 on every x86 core.
pub(super) const TILE_CHUNK: usize = 2048;

/// Rows per group of a tile `w` columns wide.
fn tile_group_rows(w: usize) -> usize {
    (TILE_CHUNK / w.max(1)).max(1)
}

/// Scratch elements [`TileK`] needs for a tile of `n` rows and `w` columns: the tile,
/// the running maxima and sums, one shift per group and column, and one group (at
/// most `max(TILE_CHUNK, w)` elements). Non-decreasing in `w`, so a scratch for the
/// full width serves a narrower last tile.
pub(super) fn tile_scratch_len(n: usize, w: usize) -> usize {
    n * w + 2 * w + n.div_ceil(tile_group_rows(w)) * w + TILE_CHUNK.max(2 * w)
}

/// Softmax (or log-softmax) along the rows of a tile: `n` rows `inner` apart, `w`
/// columns each (`g = [n, inner, w]`), with the input read from memory once and `exp`
/// run once per element (plus once per column per group of rows).
///
/// The first pass goes over groups of [`TILE_CHUNK`] elements: it copies a group's rows
/// into the scratch while it updates each column's running maximum `c`, then rescales
/// the running sum of exponentials by `exp(old − c)`, replaces the group in the scratch
/// by `d = x − c` (log-softmax) or `e = exp(x − c)` (softmax) while the group is in L1,
/// and adds the exponentials to the sum; `c` is kept per group. The second pass reads
/// the scratch once: `out = e · exp(c − max) / sum` or `out = d + (c − max) − ln sum`,
/// per row, stored once (streamed when `stream` is set).
///
/// # Safety
/// [`StridedK::new`]'s contract, and `scratch.len() >= tile_scratch_len(n, w)`.
#[inline(always)]
unsafe fn tile_body<E: RowFloat>(k: StridedK<'_, E>) {
    let StridedK {
        x,
        out,
        g: [n, inner, w],
        log,
        stream,
        scratch,
    } = k;
    let rows = tile_group_rows(w);
    let (t, rest) = scratch.split_at_mut(n * w);
    let (m, rest) = rest.split_at_mut(w);
    let (s, rest) = rest.split_at_mut(w);
    let (shifts, tmp) = rest.split_at_mut(n.div_ceil(rows) * w);
    m.fill(E::neg_infinity());
    s.fill(E::zero());
    for (gi, (piece, c)) in t.chunks_mut(rows * w).zip(shifts.chunks_exact_mut(w)).enumerate() {
        let r0 = gi * rows;
        // `c`: the running maximum over this group's rows too, as the input is copied.
        c.copy_from_slice(m);
        for (k, tr) in piece.chunks_exact_mut(w).enumerate() {
            let xr = &x[(r0 + k) * inner..(r0 + k) * inner + w];
            // The same row of the next group is requested while this group is
            // computed: the rows are `inner` apart, a stride the hardware prefetcher
            // does not follow. One group ahead, a shape-only distance.
            if r0 + k + rows < n {
                let p = xr.as_ptr().wrapping_add(rows * inner);
                for l in (0..w).step_by((64 / size_of::<E>()).max(1)) {
                    crate::cpu::prefetch_l2(p.wrapping_add(l));
                }
            }
            for ((o, a), &v) in tr.iter_mut().zip(c.iter_mut()).zip(xr) {
                *o = v;
                *a = if v > *a { v } else { *a };
            }
        }
        rescale(m, s, c, &mut tmp[..w]);
        for row in piece.chunks_exact_mut(w) {
            for (v, &c) in row.iter_mut().zip(c.iter()) {
                *v = *v - c;
            }
        }
        let e = if log {
            let e = &mut tmp[..piece.len()];
            e.copy_from_slice(piece);
            e
        } else {
            &mut *piece
        };
        E::exp_inplace(e);
        for row in e.chunks_exact(w) {
            for (a, &v) in s.iter_mut().zip(row) {
                *a = *a + v;
            }
        }
    }
    finish_sums(s, m, log);
    let (f, o) = tmp.split_at_mut(w);
    let o = &mut o[..w];
    for (gi, (piece, c)) in t.chunks(rows * w).zip(shifts.chunks_exact(w)).enumerate() {
        // The group's factor (softmax) or offset (log-softmax) per column.
        for (f, (&c, &mx)) in f.iter_mut().zip(c.iter().zip(m.iter())) {
            *f = c - mx;
        }
        if log {
            for (f, &a) in f.iter_mut().zip(s.iter()) {
                *f = *f - a;
            }
        } else {
            E::exp_inplace(f);
            for (f, &a) in f.iter_mut().zip(s.iter()) {
                *f = *f * a;
            }
        }
        for (k, row) in piece.chunks_exact(w).enumerate() {
            if log {
                for ((o, &v), &f) in o.iter_mut().zip(row).zip(f.iter()) {
                    *o = v + f;
                }
            } else {
                for ((o, &v), &f) in o.iter_mut().zip(row).zip(f.iter()) {
                    *o = v * f;
                }
            }
            // SAFETY: row `gi·rows + k < n`: its w columns are valid and ours
            // (`StridedK::new`); `o` is apart.
            unsafe { crate::iter::stream::store_run(out.add((gi * rows + k) * inner), o, stream) };
        }
    }
    if stream {
        crate::iter::stream::fence();
    }
}
