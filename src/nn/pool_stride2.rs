//! Max and average pooling with column stride 2 and column dilation 1 (ResNet's stem:
//! 3×3, stride 2, padding 1; the 3-D pools' slices), in registers: per output row and
//! vector of `n` outputs, the window's input rows are reduced at the column offsets the
//! horizontal taps need (two vectors, `2n` columns, per pair of taps), split into even
//! and odd columns with one permute pair, and reduced across the taps (an average then
//! divided by each window's count). No scratch row is written and read back, so no
//! load waits on a (masked) store, which is what the general kernel of
//! [`super::pool_kernel`] pays per row.
//!
//! Columns outside the input read as the identity (−∞, or 0 for sums; masked loads at
//! the edges); NaN propagates through [`Simd::max`] and the sums. The taps are reduced
//! in the general kernel's order, so the results are the same bits.

use super::pool_geom::PoolGeom;
use super::simd::Simd;
use num_traits::{Float as _, Zero};
use std::mem::MaybeUninit;

/// An average's divisor row (`OW` entries and a vector of slack) and the function that
/// fills it for an output row.
pub(crate) type Divisors<'a, E> = (&'a mut [E], &'a mut dyn FnMut(usize, &mut [E]));

/// True for the geometries [`plane_s2`] takes.
pub(crate) fn takes(g: &PoolGeom) -> bool {
    g.s[1] == 2 && g.d[1] == 1
}

/// Pools one plane, `x` `H × W` into `out` `OH × OW`, for a geometry with [`takes`]:
/// the maximum if `div` is `None`, else the sum divided by the count that
/// `div(oh, row)` writes into `row` (`OW` entries, a vector of slack) for output row
/// `oh`; `rows` is scratch for the window's row offsets.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
pub(crate) unsafe fn plane_s2<S: Simd>(
    x: &[S::E],
    g: &PoolGeom,
    out: &mut [MaybeUninit<S::E>],
    rows: &mut Vec<usize>,
    mut div: Option<Divisors<'_, S::E>>,
) {
    let n = S::LANES;
    let (w, ow_n) = (g.input[1], g.out[1]);
    assert!(
        takes(g)
            && x.len() >= g.input[0] * w
            && out.len() >= g.out[0] * ow_n
            && div.as_ref().is_none_or(|(d, _)| d.len() >= ow_n.next_multiple_of(n)),
        "pool: plane outside its buffers"
    );
    let max = div.is_none();
    let (k1, p1) = (g.k[1], g.p[1] as isize);
    // SAFETY: the features are the caller's contract; loads read only lanes whose
    // column lies in 0..W of an input row (full loads where the whole vector does,
    // masked ones at the edges) and divisor lanes below OW rounded up to whole vectors
    // (checked above); stores write the first `min(n, OW − ow0)` outputs of output row
    // `oh`, inside `out` (checked above).
    unsafe {
        let ident = S::splat(if max { S::E::neg_infinity() } else { S::E::zero() });
        let red = |a, b| if max { S::max(a, b) } else { S::add(a, b) };
        for oh in 0..g.out[0] {
            rows.clear();
            rows.extend(g.taps(0, oh).map(|r| r * w));
            let orow = out.as_mut_ptr().cast::<S::E>().add(oh * ow_n);
            let dv: Option<&[S::E]> = match &mut div {
                Some((d, f)) => {
                    f(oh, d);
                    Some(&**d)
                }
                None => None,
            };
            let fin = |acc: S::V, ow0: usize| match dv {
                Some(d) => S::div(acc, S::load(d.as_ptr().add(ow0))),
                None => acc,
            };
            if k1 == 3 {
                // Columns 2·ow − p1 + (0, 1, 2): the even and odd columns from
                // 2·ow0 − p1, and the even ones shifted by one lane, the next block's
                // first even column shifted in (the stem's case: half the loads).
                let (mut e, mut o) = pair::<S>(x, w, rows, -p1, max);
                for ow0 in (0..ow_n).step_by(n) {
                    let (e2, o2) = if ow0 + n > ow_n {
                        (ident, ident) // lane n − 1 is past OW: never stored
                    } else {
                        pair::<S>(x, w, rows, 2 * (ow0 + n) as isize - p1, max)
                    };
                    store::<S>(orow, ow0, ow_n, fin(red(red(e, o), S::shift_in(e, e2)), ow0));
                    (e, o) = (e2, o2);
                }
                continue;
            }
            for ow0 in (0..ow_n).step_by(n) {
                let mut acc = ident;
                // Taps kj and kj + 1 read columns 2·ow + kj − p1 (+ 1): the even and
                // odd columns of the 2n columns from 2·ow0 + kj − p1.
                for kj in (0..k1).step_by(2) {
                    let (e, o) = pair::<S>(x, w, rows, 2 * ow0 as isize + kj as isize - p1, max);
                    acc = if kj == 0 { e } else { red(acc, e) };
                    if kj + 1 < k1 {
                        acc = red(acc, o);
                    }
                }
                store::<S>(orow, ow0, ow_n, fin(acc, ow0));
            }
        }
    }
}

/// The even and odd columns of the `2·LANES` columns from `c`, reduced over the rows
/// (as [`column_reduce`]).
///
/// # Safety
/// As [`column_reduce`].
#[inline(always)]
unsafe fn pair<S: Simd>(x: &[S::E], w: usize, rows: &[usize], c: isize, max: bool) -> (S::V, S::V) {
    // SAFETY: the caller's contract.
    unsafe {
        S::even_odd(
            column_reduce::<S>(x, w, rows, c, max),
            column_reduce::<S>(x, w, rows, c + S::LANES as isize, max),
        )
    }
}

/// Stores the outputs `ow0 ..` of an output row starting at `orow` (of `ow_n`), at
/// most a vector.
///
/// # Safety
/// `S`'s CPU features are available; `orow .. orow + ow_n` is writable.
#[inline(always)]
unsafe fn store<S: Simd>(orow: *mut S::E, ow0: usize, ow_n: usize, v: S::V) {
    // SAFETY: the caller's contract; at most `ow_n − ow0` lanes from `ow0`.
    unsafe {
        if ow0 + S::LANES <= ow_n {
            S::store(orow.add(ow0), v);
        } else {
            S::store_first(orow.add(ow0), v, ow_n - ow0);
        }
    }
}

/// The maximum (or sum) over the input rows starting at the offsets `rows` (rows of
/// width `w`) of columns `c .. c + LANES`, −∞ (or 0) for columns outside `0..w`.
///
/// # Safety
/// `S`'s CPU features are available; every row lies inside `x`.
#[inline(always)]
unsafe fn column_reduce<S: Simd>(x: &[S::E], w: usize, rows: &[usize], c: isize, max: bool) -> S::V {
    let wi = w as isize;
    let full = c >= 0 && c + S::LANES as isize <= wi;
    // SAFETY: the features are the caller's contract; a full load reads columns
    // c .. c + LANES inside 0..w of row r, a masked one only the lanes inside 0..w.
    unsafe {
        let ident = S::splat(if max { S::E::neg_infinity() } else { S::E::zero() });
        let mut acc = ident;
        for (i, &r) in rows.iter().enumerate() {
            let p = x.as_ptr().add(r).wrapping_offset(c);
            let v = if full {
                S::load(p)
            } else {
                S::load_range_fill(p, -c, wi - c, ident)
            };
            acc = if i == 0 {
                v
            } else if max {
                S::max(acc, v)
            } else {
                S::add(acc, v)
            };
        }
        acc
    }
}
