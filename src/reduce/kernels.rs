//! Float kernels for extrema (f32 and f64): the NaN-propagating or NaN-skipping
//! maximum/minimum of a contiguous run, the row-accumulate step (`acc[j] = max(acc[j],
//! row[j])`) and a first-match search for `argmax`.
//!
//! The loop bodies are plain Rust written so that LLVM vectorises them: four
//! independent accumulators of one 512-bit register width each, a plain `max`/`min`
//! select per element and NaN tracked in a separate OR-ed mask (`x != x`) that is only
//! looked at after the loop. They are `#[inline(always)]` and are called inside
//! [`super::simd::dispatch`], which compiles them for AVX-512 or AVX2 when the CPU has it;
//! elsewhere (other CPUs, aarch64, Miri) the same code runs as portable Rust.
//!
//! Results are exact (max/min select an element), so they do not depend on the lane
//! structure, except for the sign of a zero maximum when `-0.0` and `0.0` tie (NumPy's
//! vector loops do not specify it either) and for which NaN is returned (the first one).

use super::simd::{Kernel, dispatch};
use crate::same_type;

/// The float types with kernels.
pub(crate) trait Fl: Copy + PartialOrd + std::ops::Add<Output = Self> + 'static {
    const INF: Self;
    const NEG_INF: Self;
}
impl Fl for f32 {
    const INF: f32 = f32::INFINITY;
    const NEG_INF: f32 = f32::NEG_INFINITY;
}
impl Fl for f64 {
    const INF: f64 = f64::INFINITY;
    const NEG_INF: f64 = f64::NEG_INFINITY;
}

/// `v` is strictly better than `a` (larger for `MAX`, smaller otherwise); false if
/// either is NaN.
#[inline(always)]
fn better<T: PartialOrd, const MAX: bool>(v: T, a: T) -> bool {
    if MAX { v > a } else { v < a }
}

/// Independent accumulators per loop iteration.
const U: usize = 4;

/// Extremum of a contiguous run; `L` lanes per accumulator (one 512-bit register).
/// `SKIP`: NaN-skipping (`nanmax`). `None` when the run is too short or, for `SKIP`,
/// when the answer is ±∞ or all NaN (the caller's generic loop then decides).
#[inline(always)]
fn ext_body<T: Fl, const L: usize, const MAX: bool, const SKIP: bool>(x: &[T]) -> Option<T> {
    let n = x.len();
    if n < U * L {
        return None;
    }
    let init = match (SKIP, MAX) {
        (true, true) => T::NEG_INF,
        (true, false) => T::INF,
        // Without skipping, a NaN first element sticks in its lane; the NaN mask
        // reports it anyway.
        (false, _) => x[0],
    };
    // U·L accumulators (`[T; U * L]` is not allowed with a generic `L`).
    let mut a = [[init; L]; U];
    let a = a.as_flattened_mut();
    let mut nan = [0u32; L];
    let chunks = x.chunks_exact(U * L);
    let has_rest = !chunks.remainder().is_empty();
    for c in chunks {
        // The same software prefetch as the pairwise sums (the stream alone is not
        // enough for the hardware prefetcher on every CPU).
        super::pairwise::prefetch_lines(c.as_ptr(), std::mem::size_of_val(c));
        ext_step::<T, L, MAX, SKIP>(a, &mut nan, c);
    }
    if has_rest {
        // The last full window overlaps elements already seen: harmless for max/min.
        ext_step::<T, L, MAX, SKIP>(a, &mut nan, &x[n - U * L..]);
    }
    if !SKIP && nan.iter().any(|&b| b != 0) {
        #[allow(clippy::eq_op)]
        return x.iter().copied().find(|&v| v != v);
    }
    // Halve the lanes in a tree (each level vectorises).
    let mut w = U * L;
    while w > 1 {
        w /= 2;
        let (lo, hi) = a.split_at_mut(w);
        for (x, &y) in lo.iter_mut().zip(&hi[..w]) {
            *x = if better::<T, MAX>(y, *x) { y } else { *x };
        }
    }
    let m = a[0];
    if SKIP && (m == T::INF || m == T::NEG_INF) {
        return None;
    }
    Some(m)
}

/// One window of `U·L` elements of [`ext_body`]. (Flat loops over the lanes: LLVM
/// vectorises nested lane loops across the wrong dimension, with gathers.)
#[inline(always)]
fn ext_step<T: Fl, const L: usize, const MAX: bool, const SKIP: bool>(a: &mut [T], nan: &mut [u32; L], c: &[T]) {
    let (a, c) = (&mut a[..U * L], &c[..U * L]);
    for (a, &v) in a.iter_mut().zip(c) {
        // `v` NaN never replaces: NaN is tracked in `nan` instead.
        *a = if better::<T, MAX>(v, *a) { v } else { *a };
    }
    if !SKIP {
        #[allow(clippy::eq_op)]
        for (j, f) in nan.iter_mut().enumerate() {
            let (v0, v1, v2, v3) = (c[j], c[L + j], c[2 * L + j], c[3 * L + j]);
            // A `u32` per lane (a `bool` array is packed into bytes with shifts).
            *f |= u32::from((v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3));
        }
    }
}

/// `acc[j] = ext(acc[j], row[j])` (NaN-propagating, or NaN-skipping for `SKIP`).
#[inline(always)]
fn rows_body<T: Fl, const MAX: bool, const SKIP: bool>(acc: &mut [T], row: &[T]) {
    for (a, &v) in acc.iter_mut().zip(row) {
        let m = if better::<T, MAX>(v, *a) { v } else { *a };
        #[allow(clippy::eq_op)]
        let (v_nan, a_nan) = (v != v, *a != *a);
        *a = if SKIP {
            if a_nan { v } else { m }
        } else if v_nan {
            v
        } else {
            m
        };
    }
}

/// [`rows_body`] with four rows in order, each accumulator loaded and stored once.
///
/// NaN-propagating (`!SKIP`): the four rows are combined in a tree of plain selects
/// (one `max`/`min` instruction each, NaN ignored), merged into the accumulator, and a
/// NaN among the four replaces the result (their sum, itself NaN). Max/min select, so
/// the order of the tree does not change a non-NaN result; it is one instruction per
/// row and two NaN compares per four rows, against a compare, a NaN compare, a mask OR
/// and a blend per row for the per-step form below (which made max axis 0 compute
/// bound): max axis 0 of f32 [4096²], 2 threads on AMD EPYC Zen 5, 1.08–1.29 ms
/// against 1.48–1.55 in the reductions bench (the plain select with no NaN test and
/// the sum kernel: 0.96–1.05 in a scratch program). No tuned constant: the rule is
/// the engine's group of four rows.
#[inline(always)]
fn rows4_body<T: Fl, const MAX: bool, const SKIP: bool>(acc: &mut [T], rows: [&[T]; 4]) {
    let n = acc.len();
    let [r0, r1, r2, r3] = rows.map(|r| &r[..n]);
    if !SKIP {
        let sel = |a: T, v: T| if better::<T, MAX>(v, a) { v } else { a };
        for j in 0..n {
            let (a, b, c, d) = (r0[j], r1[j], r2[j], r3[j]);
            // A NaN accumulator stays: `better(m, NaN)` is false.
            let m = sel(acc[j], sel(sel(a, b), sel(c, d)));
            #[allow(clippy::eq_op)]
            let nan = (a != a) | (b != b) | (c != c) | (d != d);
            acc[j] = if nan { (a + b) + (c + d) } else { m };
        }
        return;
    }
    #[allow(clippy::eq_op)]
    let step = |a: T, v: T| {
        let m = if better::<T, MAX>(v, a) { v } else { a };
        let (v_nan, a_nan) = (v != v, a != a);
        if SKIP {
            if a_nan { v } else { m }
        } else if v_nan {
            v
        } else {
            m
        }
    };
    for j in 0..n {
        acc[j] = step(step(step(step(acc[j], r0[j]), r1[j]), r2[j]), r3[j]);
    }
}

struct Rows4K<'a, T, const MAX: bool, const SKIP: bool>(&'a mut [T], [&'a [T]; 4]);
impl<T: Fl, const MAX: bool, const SKIP: bool> Kernel for Rows4K<'_, T, MAX, SKIP> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        rows4_body::<T, MAX, SKIP>(self.0, self.1)
    }
}

/// [`rows`] with four rows in order (each at least `acc.len()` long); false (nothing
/// done) for types other than f32/f64.
#[inline]
pub(crate) fn rows4<T: 'static, const MAX: bool, const SKIP: bool>(acc: &mut [T], rows: [&[T]; 4]) -> bool {
    if let Some(a) = same_type::slice_mut::<T, f32>(&mut *acc) {
        let r = rows.map(|r| same_type::slice::<T, f32>(r).expect("T is f32"));
        dispatch(Rows4K::<f32, MAX, SKIP>(a, r));
        return true;
    }
    if let Some(a) = same_type::slice_mut::<T, f64>(acc) {
        let r = rows.map(|r| same_type::slice::<T, f64>(r).expect("T is f64"));
        dispatch(Rows4K::<f64, MAX, SKIP>(a, r));
        return true;
    }
    false
}

/// Index of the first element equal to `m` (or, when `m` is NaN, of the first NaN);
/// `W`: values per window (`U·L`, four registers).
#[inline(always)]
fn find_body<T: Fl, const W: usize>(x: &[T], m: T) -> Option<usize> {
    #[allow(clippy::eq_op)]
    if m != m {
        return x.iter().position(|&v| v != v);
    }
    // Windows of U·L values: "any match" is an OR of compares, which LLVM keeps in
    // vector masks (four compares and a mask test per window); the position is then
    // looked up in the one window that has it. (A bit mask built with shifts per value
    // compiled to scalar compares, ~35 instructions per 16 values.)
    let chunks = x.chunks_exact(W);
    let done = x.len() - chunks.remainder().len();
    for (k, c) in chunks.enumerate() {
        let c: &[T; W] = c.try_into().expect("chunks of W");
        let mut any = 0u32;
        for &v in c {
            any |= u32::from(v == m);
        }
        if any != 0 {
            return c.iter().position(|&v| v == m).map(|p| k * W + p);
        }
    }
    x[done..].iter().position(|&v| v == m).map(|p| done + p)
}

struct ExtK<'a, T, const L: usize, const MAX: bool, const SKIP: bool>(&'a [T]);
impl<T: Fl, const L: usize, const MAX: bool, const SKIP: bool> Kernel for ExtK<'_, T, L, MAX, SKIP> {
    type Out = Option<T>;
    #[inline(always)]
    fn call(self) -> Option<T> {
        ext_body::<T, L, MAX, SKIP>(self.0)
    }
}

struct RowsK<'a, T, const MAX: bool, const SKIP: bool>(&'a mut [T], &'a [T]);
impl<T: Fl, const MAX: bool, const SKIP: bool> Kernel for RowsK<'_, T, MAX, SKIP> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        rows_body::<T, MAX, SKIP>(self.0, self.1)
    }
}

/// Extremum of a contiguous run of `T` if `T` is f32 or f64 and the fast kernel
/// applies (see [`ext_body`]); `None` otherwise.
#[inline]
pub(crate) fn ext<T: 'static + Copy, const MAX: bool, const SKIP: bool>(x: &[T]) -> Option<T> {
    if let Some(x) = same_type::slice::<T, f32>(x) {
        return dispatch(ExtK::<f32, 16, MAX, SKIP>(x)).and_then(same_type::value);
    }
    if let Some(x) = same_type::slice::<T, f64>(x) {
        return dispatch(ExtK::<f64, 8, MAX, SKIP>(x)).and_then(same_type::value);
    }
    None
}

/// [`ext`] without the runtime dispatch: for kernels that are already inside
/// [`dispatch`].
#[inline(always)]
pub(crate) fn ext_inline<T: 'static + Copy, const MAX: bool, const SKIP: bool>(x: &[T]) -> Option<T> {
    if let Some(x) = same_type::slice::<T, f32>(x) {
        return ext_body::<f32, 16, MAX, SKIP>(x).and_then(same_type::value);
    }
    if let Some(x) = same_type::slice::<T, f64>(x) {
        return ext_body::<f64, 8, MAX, SKIP>(x).and_then(same_type::value);
    }
    None
}

/// `acc[j] = ext(acc[j], row[j])` for f32/f64; false (nothing done) for other types.
#[inline]
pub(crate) fn rows<T: 'static, const MAX: bool, const SKIP: bool>(acc: &mut [T], row: &[T]) -> bool {
    if let (Some(r), Some(a)) = (
        same_type::slice::<T, f32>(row),
        same_type::slice_mut::<T, f32>(&mut *acc),
    ) {
        dispatch(RowsK::<f32, MAX, SKIP>(a, r));
        return true;
    }
    if let (Some(r), Some(a)) = (same_type::slice::<T, f64>(row), same_type::slice_mut::<T, f64>(acc)) {
        dispatch(RowsK::<f64, MAX, SKIP>(a, r));
        return true;
    }
    false
}

/// First index of `m` in `x` (of a NaN if `m` is NaN), for f32/f64 (`None` for other
/// types or no match); meant for kernels already inside [`dispatch`].
#[inline(always)]
pub(crate) fn find_inline<T: 'static + Copy>(x: &[T], m: T) -> Option<usize> {
    if let (Some(x), Some(m)) = (same_type::slice::<T, f32>(x), same_type::value::<T, f32>(m)) {
        return find_body::<f32, { U * 16 }>(x, m);
    }
    if let (Some(x), Some(m)) = (same_type::slice::<T, f64>(x), same_type::value::<T, f64>(m)) {
        return find_body::<f64, { U * 8 }>(x, m);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[f64], max: bool) -> f64 {
        if x.iter().any(|v| v.is_nan()) {
            return f64::NAN;
        }
        x.iter()
            .copied()
            .fold(x[0], |a, v| if (max && v > a) || (!max && v < a) { v } else { a })
    }

    #[test]
    fn extrema_match_naive() {
        for n in [1usize, 31, 32, 33, 64, 65, 100, 257] {
            let x: Vec<f64> = (0..n).map(|i| ((i * 37 + 11) % 101) as f64 - 50.0).collect();
            let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            for nan_at in [None, Some(0), Some(n / 2), Some(n - 1)] {
                let mut x = x.clone();
                let mut xf = xf.clone();
                if let Some(k) = nan_at {
                    x[k] = f64::NAN;
                    xf[k] = f32::NAN;
                }
                for (got, want) in [
                    (ext::<f64, true, false>(&x), naive(&x, true)),
                    (ext::<f64, false, false>(&x), naive(&x, false)),
                    (ext::<f32, true, false>(&xf).map(f64::from), naive(&x, true)),
                ] {
                    if let Some(g) = got {
                        assert!(g == want || (g.is_nan() && want.is_nan()), "n {n}: {g} vs {want}");
                    } else {
                        assert!(n < 64, "the kernel applies to n = {n}");
                    }
                }
                let clean: Vec<f64> = x.iter().copied().filter(|v| !v.is_nan()).collect();
                if let Some(g) = ext::<f64, true, true>(&x) {
                    assert_eq!(g, naive(&clean, true));
                }
                let m = naive(&x, true);
                assert_eq!(
                    simd_find(&x, m),
                    x.iter().position(|&v| v == m || (m.is_nan() && v.is_nan()))
                );
            }
        }
        assert_eq!(ext::<i32, true, false>(&[1; 100]), None);
    }

    fn simd_find(x: &[f64], m: f64) -> Option<usize> {
        find_inline(x, m)
    }

    #[test]
    fn rows_propagate_and_skip_nan() {
        let mut acc = vec![1.0f32, f32::NAN, 3.0, 0.0];
        assert!(rows::<f32, true, false>(&mut acc, &[2.0, 5.0, f32::NAN, -1.0]));
        assert!(acc[0] == 2.0 && acc[1].is_nan() && acc[2].is_nan() && acc[3] == 0.0);
        let mut acc = vec![1.0f64, f64::NAN, 3.0];
        assert!(rows::<f64, false, true>(&mut acc, &[2.0, 5.0, f64::NAN]));
        assert_eq!(acc, vec![1.0, 5.0, 3.0]);
        assert!(!rows::<u8, true, false>(&mut [1], &[2]));
    }

    /// Four rows at once (the tree form for NaN-propagating extrema) against four
    /// single-row steps: the same values, NaN wherever a NaN entered a column (in the
    /// accumulator before or in any of the four rows), ±∞ and odd lengths.
    #[test]
    fn rows4_equals_four_row_steps() {
        for n in [1usize, 15, 16, 17, 40, 67] {
            let row = |k: usize| -> Vec<f64> {
                (0..n)
                    .map(|j| match (j * 7 + k * 3) % 23 {
                        0 if k == 2 => f64::NAN,
                        1 => f64::INFINITY,
                        2 => f64::NEG_INFINITY,
                        r => r as f64 * 0.5 - 5.0 + k as f64,
                    })
                    .collect()
            };
            let rs: Vec<Vec<f64>> = (0..4).map(row).collect();
            let mut start: Vec<f64> = (0..n).map(|j| (j % 5) as f64 - 2.0).collect();
            start[0] = f64::NAN;
            for max in [true, false] {
                let (mut got, mut want) = (start.clone(), start.clone());
                let r = [&rs[0][..], &rs[1][..], &rs[2][..], &rs[3][..]];
                if max {
                    assert!(rows4::<f64, true, false>(&mut got, r));
                    r.iter().for_each(|x| assert!(rows::<f64, true, false>(&mut want, x)));
                } else {
                    assert!(rows4::<f64, false, false>(&mut got, r));
                    r.iter().for_each(|x| assert!(rows::<f64, false, false>(&mut want, x)));
                }
                for j in 0..n {
                    let (g, w) = (got[j], want[j]);
                    assert!(
                        g == w || (g.is_nan() && w.is_nan()),
                        "n {n} max {max} column {j}: {g} vs {w}"
                    );
                }
                let mut gf: Vec<f32> = start.iter().map(|&v| v as f32).collect();
                let rf: Vec<Vec<f32>> = rs.iter().map(|r| r.iter().map(|&v| v as f32).collect()).collect();
                assert!(rows4::<f32, true, false>(&mut gf, [&rf[0], &rf[1], &rf[2], &rf[3]]));
                if max {
                    for j in 0..n {
                        assert!(gf[j] as f64 == want[j] || (gf[j].is_nan() && want[j].is_nan()));
                    }
                }
            }
        }
    }
}
