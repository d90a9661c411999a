//! The few-rows path of a prepared [`super::Linear`] (batch 1–8 heads such as ResNet's
//! `fc`) on a weight packed once, when the layer is built: panels of [`PANEL`] output
//! columns, each stored `I`-major (`packed[(p·I + k)·PANEL + c] = W[p·PANEL + c, k]`,
//! zeros past `O`). A tile is `R` input rows × `C` column vectors of accumulators; per
//! `k` it loads one vector per column block (sequential in its panel) and broadcasts
//! one input element per row, so every output lane is finished in its accumulator and
//! stored with the bias — no reduction across lanes, which the in-place kernel of
//! [`super::linear_small`] pays for every output (one per `MR·OB` products there, as
//! many as the multiply-adds of a `k` step at batch 8). Tasks (in parallel) take
//! disjoint runs of panels.

use super::conv_block::Level;
use super::linear_small::column_tasks;
use super::simd::{Scalar, Simd};
use crate::iter::SendPtr;

/// Output columns per packed panel (one AVX-512 vector, two AVX2 vectors).
pub(crate) const PANEL: usize = 16;

/// The `o × i` row-major weight `w` packed into `⌈o / PANEL⌉` panels (see the module
/// documentation).
pub(crate) fn pack<T: Copy + num_traits::Zero>(w: &[T], o: usize, i: usize) -> Vec<T> {
    assert!(w.len() >= o * i, "linear: weight outside its buffer");
    let panels = o.div_ceil(PANEL);
    let mut packed = vec![T::zero(); panels * PANEL * i];
    for (p, panel) in packed.chunks_exact_mut(PANEL * i).enumerate() {
        for (c, j) in (p * PANEL..(p * PANEL + PANEL).min(o)).enumerate() {
            for (k, &v) in w[j * i..(j + 1) * i].iter().enumerate() {
                panel[k * PANEL + c] = v;
            }
        }
    }
    packed
}

/// `out[r·o + j] = bias[j] + Σₖ x[r·i + k]·W[j, k]` for `r < m`, `j < o`, with `x`
/// `m × i` row-major and `packed` the [`pack`]ed `o × i` weight; `out` is `m × o`
/// row-major.
pub(crate) fn product(x: &[f32], packed: &[f32], bias: Option<&[f32]>, m: usize, o: usize, i: usize, out: &mut [f32]) {
    assert!(
        x.len() >= m * i
            && packed.len() >= o.div_ceil(PANEL) * PANEL * i
            && out.len() >= m * o
            && bias.is_none_or(|b| b.len() >= o),
        "linear: packed product outside its buffers"
    );
    let p = Problem {
        x,
        w: packed,
        bias,
        m,
        o,
        i,
    };
    match Level::detect() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX-512F was detected.
        Level::Avx512 => run(&p, out, |p, o, j0, j1| unsafe { x86::cols512(p, o, j0, j1) }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 and FMA were detected.
        Level::Avx2 => run(&p, out, |p, o, j0, j1| unsafe { x86::cols256(p, o, j0, j1) }),
        // SAFETY: plain Rust.
        Level::Portable => run(&p, out, |p, o, j0, j1| unsafe { cols::<Scalar<f32>, 4>(p, o, j0, j1) }),
    }
}

/// The operands, shapes checked by [`product`].
struct Problem<'a> {
    x: &'a [f32],
    w: &'a [f32],
    bias: Option<&'a [f32]>,
    m: usize,
    o: usize,
    i: usize,
}

/// Whole panels per task (see [`column_tasks`]).
fn run(p: &Problem<'_>, out: &mut [f32], f: impl Fn(&Problem<'_>, SendPtr<f32>, usize, usize) + Sync) {
    let optr = SendPtr(out.as_mut_ptr());
    column_tasks(p.m, p.o, p.i, PANEL, |j0, j1| f(p, optr, j0, j1));
}

/// Columns `j0..j1` (`j0` a multiple of [`PANEL`]) of every output row: rows in blocks
/// of up to `MR`; per block, tiles of as many column vectors as keep about `2·MR`
/// accumulators (at least eight independent chains for one or two rows), then single
/// vectors for the last columns.
///
/// # Safety
/// `S`'s CPU features are available; `out` points to the `m × o` output, whose columns
/// `j0..j1` no other thread writes meanwhile; `j1 ≤ o`.
#[inline(always)]
unsafe fn cols<S: Simd<E = f32>, const MR: usize>(p: &Problem<'_>, out: SendPtr<f32>, j0: usize, j1: usize) {
    // AVX-512 has 32 vector registers, AVX2 (and the portable lane, where this only
    // sets the unrolling) 16: half the accumulators there.
    let wide = S::LANES >= 16;
    let mut r = 0;
    while r < p.m {
        let rows = MR.min(p.m - r);
        // SAFETY: rows r..r+rows ≤ m, columns from j0 below j1 ≤ o (the tiles' contract);
        // the features and `out` are the caller's contract.
        unsafe {
            match (rows, wide) {
                (1, true) => strip::<S, 1, 8>(p, out, r, j0, j1),
                (2, true) => strip::<S, 2, 8>(p, out, r, j0, j1),
                (3, true) => strip::<S, 3, 4>(p, out, r, j0, j1),
                (4, true) => strip::<S, 4, 4>(p, out, r, j0, j1),
                (5, true) => strip::<S, 5, 2>(p, out, r, j0, j1),
                (6, true) => strip::<S, 6, 2>(p, out, r, j0, j1),
                (7, true) => strip::<S, 7, 2>(p, out, r, j0, j1),
                (_, true) => strip::<S, 8, 2>(p, out, r, j0, j1),
                (1, false) => strip::<S, 1, 4>(p, out, r, j0, j1),
                (2, false) => strip::<S, 2, 4>(p, out, r, j0, j1),
                (3, false) => strip::<S, 3, 2>(p, out, r, j0, j1),
                (_, false) => strip::<S, 4, 2>(p, out, r, j0, j1),
            }
        }
        r += rows;
    }
}

/// Rows `r..r + R`, columns `j0..j1`: tiles of `C` vectors, then one vector at a time.
///
/// # Safety
/// As [`cols`], with `r + R ≤ m`.
#[inline(always)]
unsafe fn strip<S: Simd<E = f32>, const R: usize, const C: usize>(
    p: &Problem<'_>,
    out: SendPtr<f32>,
    r: usize,
    j0: usize,
    j1: usize,
) {
    let n = S::LANES;
    let mut j = j0;
    // SAFETY: each tile's columns start below j1 ≤ o; the rest is the caller's contract.
    unsafe {
        while j + C * n <= j1 {
            tile::<S, R, C>(p, out, r, j);
            j += C * n;
        }
        while j < j1 {
            tile::<S, R, 1>(p, out, r, j);
            j += n;
        }
    }
}

/// One tile: rows `r..r + R`, the `C·LANES` columns from `j` (those at or past `O` are
/// computed from the panels' zero padding and not stored).
///
/// # Safety
/// `S`'s CPU features are available; `r + R ≤ m`; `j < o` and `j` is a multiple of
/// `LANES` (which divides [`PANEL`]); the columns `j ..` that lie below `o` belong to
/// the calling task; `out` as in [`cols`].
#[inline(always)]
unsafe fn tile<S: Simd<E = f32>, const R: usize, const C: usize>(
    p: &Problem<'_>,
    out: SendPtr<f32>,
    r: usize,
    j: usize,
) {
    let (i, n) = (p.i, S::LANES);
    let xp = p.x.as_ptr();
    // Column vector c starts at column j + c·n: panel (j + c·n) / PANEL, at offset
    // (j + c·n) % PANEL in each of the panel's `i` rows of PANEL.
    let base: [usize; C] = std::array::from_fn(|c| {
        let jc = j + c * n;
        (jc / PANEL) * PANEL * i + jc % PANEL
    });
    // SAFETY: a vector at base[c] + k·PANEL for k < i lies in panel (j + c·n) / PANEL,
    // which exists (one of the ⌈o / PANEL⌉ that `product` checked) when j + c·n < o; a
    // column vector that starts at or past o is not loaded; the x reads are rows r..r+R
    // < m at k < i; the features are the caller's contract.
    unsafe {
        let wp = p.w.as_ptr();
        let live: [bool; C] = std::array::from_fn(|c| j + c * n < p.o);
        let mut acc = [[S::splat(0.0); C]; R];
        for k in 0..i {
            let wv: [S::V; C] = std::array::from_fn(|c| {
                if live[c] {
                    S::load(wp.add(base[c] + k * PANEL))
                } else {
                    S::splat(0.0)
                }
            });
            for (a, rr) in acc.iter_mut().zip(r..) {
                let xv = S::splat(*xp.add(rr * i + k));
                for (ac, &w) in a.iter_mut().zip(&wv) {
                    *ac = S::mul_add(xv, w, *ac);
                }
            }
        }
        for (a, rr) in acc.iter().zip(r..) {
            let orow = out.get().add(rr * p.o);
            for (c, &v) in a.iter().enumerate() {
                let jc = j + c * n;
                if jc >= p.o {
                    break;
                }
                let cnt = n.min(p.o - jc);
                let v = match p.bias {
                    Some(b) => S::add(v, S::load_range(b.as_ptr().add(jc), 0, cnt as isize)),
                    None => v,
                };
                // SAFETY: columns jc..jc+cnt ≤ o of row rr, in this task's columns.
                S::store_first(orow.add(jc), v, cnt);
            }
        }
    }
}

/// The column kernel compiled for each x86 level: up to 8 rows (16 of the 32 zmm
/// registers at 8 rows × 2 vectors) on AVX-512, 4 on AVX2 (8 of 16 ymm).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::simd::{Avx2, Avx512};
    use super::{Problem, cols};
    use crate::iter::SendPtr;

    /// # Safety
    /// AVX-512F is available; as [`cols`].
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn cols512(p: &Problem<'_>, out: SendPtr<f32>, j0: usize, j1: usize) {
        // SAFETY: the features are enabled here; the rest is the caller's contract.
        unsafe { cols::<Avx512, 8>(p, out, j0, j1) }
    }

    /// # Safety
    /// AVX2 and FMA are available; as [`cols`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn cols256(p: &Problem<'_>, out: SendPtr<f32>, j0: usize, j1: usize) {
        // SAFETY: the features are enabled here; the rest is the caller's contract.
        unsafe { cols::<Avx2, 4>(p, out, j0, j1) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain triple loop in f64 (`linear_small`'s) of the f32 operands.
    fn reference(x: &[f32], w: &[f32], b: Option<&[f32]>, m: usize, o: usize, i: usize) -> Vec<f64> {
        let f = |s: &[f32]| s.iter().map(|&v| v as f64).collect::<Vec<f64>>();
        let b = b.map(f);
        super::super::linear_small::tests::reference(&f(x), &f(w), b.as_deref(), m, o, i)
    }

    #[test]
    fn packed_product_matches_the_triple_loop() {
        // Rows 1–9 (every tile height and a second block), columns around the panel and
        // tile widths (a partial last panel, a column count below one vector), inner
        // lengths around the vector widths; Miri runs a few small ones.
        let shapes: &[(usize, usize, usize)] = if cfg!(miri) {
            &[(1, 3, 5), (3, 17, 2), (9, 5, 3)]
        } else {
            &[
                (1, 1, 1),
                (1, 7, 33),
                (2, 129, 5),
                (3, 50, 16),
                (4, 9, 8),
                (5, 67, 47),
                (6, 33, 1),
                (7, 16, 3),
                (8, 130, 512),
                (8, 1000, 64),
                (9, 3, 15),
            ]
        };
        for &(m, o, i) in shapes {
            let x: Vec<f32> = (0..m * i).map(|v| ((v * 7 % 13) as f32 - 6.0) / 4.0).collect();
            let w: Vec<f32> = (0..o * i).map(|v| ((v * 5 % 11) as f32 - 5.0) / 8.0).collect();
            let b: Vec<f32> = (0..o).map(|v| v as f32 - 1.5).collect();
            let packed = pack(&w, o, i);
            for bias in [Some(&b[..]), None] {
                let want = reference(&x, &w, bias, m, o, i);
                let mut got = vec![f32::NAN; m * o + 3];
                product(&x, &packed, bias, m, o, i, &mut got[..m * o]);
                for (g, e) in got.iter().zip(&want) {
                    // Products of multiples of 1/32 with sums below 2^12: exact in f32.
                    assert_eq!(*g as f64, *e, "m={m} o={o} i={i}");
                }
                // Nothing written past the output.
                assert!(got[m * o..].iter().all(|v| v.is_nan()), "m={m} o={o} i={i}");
            }
        }
    }

    #[test]
    fn packed_product_propagates_nan_and_packs_by_panels() {
        let x = [1.0f32, f32::NAN, 2.0, 0.0, 0.0, 0.0];
        let w = [1.0f32, 1.0, 1.0, 0.0, 0.0, 1.0];
        let packed = pack(&w, 2, 3);
        assert_eq!(packed.len(), PANEL * 3);
        assert_eq!(
            (packed[0], packed[1], packed[PANEL], packed[2 * PANEL + 1]),
            (1.0, 0.0, 1.0, 1.0)
        );
        assert!(packed[2..PANEL].iter().all(|&v| v == 0.0));
        let mut out = [0.0f32; 4];
        product(&x, &packed, None, 2, 2, 3, &mut out);
        assert!(out[0].is_nan() && out[1].is_nan());
        assert_eq!(&out[2..], &[0.0, 0.0]);
    }
}
