//! The direct convolution (both block kernels) against the definition, on shapes that hit
//! every edge: output channels not a multiple of `MR`, tiles not a multiple of `NR`,
//! discarded columns, several tiles, strides, dilations, padding, groups and batches.
//! Small enough for Miri, which runs the portable kernel over the same layout, pieces and
//! stores (about 3 minutes):
//! `MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-ignore-leaks" cargo +nightly miri test --lib nn::conv_direct_tests`
//! (rayon's pool, started by the thread count query, fails Stacked Borrows inside
//! crossbeam-epoch and outlives the main thread).

use super::conv_block::{Level, MR, pack_weights};
use super::conv_direct::{DirectWeights, conv2d_direct};
use super::conv_phase::{LANES, pieces};
use super::epilogue::Epilogue;
use super::im2col::Geom;

/// PyTorch's conv2d by its definition, in f64.
pub(super) fn naive(x: &[f32], w: &[f32], b: Option<&[f32]>, n: usize, o: usize, groups: usize, g: &Geom) -> Vec<f64> {
    let og = o / groups;
    let mut out = Vec::with_capacity(n * o * g.positions());
    for ni in 0..n {
        for oc in 0..o {
            let gi = oc / og;
            for r in 0..g.oh {
                for c in 0..g.ow {
                    let mut s = b.map_or(0.0, |b| f64::from(b[oc]));
                    for ci in 0..g.cg {
                        for ki in 0..g.kh {
                            for kj in 0..g.kw {
                                let ih = (r * g.s[0] + ki * g.d[0]) as isize - g.p[0] as isize;
                                let iw = (c * g.s[1] + kj * g.d[1]) as isize - g.p[1] as isize;
                                if ih >= 0 && iw >= 0 && (ih as usize) < g.h && (iw as usize) < g.w {
                                    let xc = (ni * groups + gi) * g.cg + ci;
                                    let xv = x[(xc * g.h + ih as usize) * g.w + iw as usize];
                                    let wv = w[((oc * g.cg + ci) * g.kh + ki) * g.kw + kj];
                                    s += f64::from(xv) * f64::from(wv);
                                }
                            }
                        }
                    }
                    out.push(s);
                }
            }
        }
    }
    out
}

/// `(cg, h, w, kh, kw, stride, padding, dilation)`.
pub(super) type Case = (usize, usize, usize, usize, usize, [usize; 2], [usize; 2], [usize; 2]);

pub(super) fn geom((cg, h, w, kh, kw, s, p, d): Case) -> Geom {
    let oh = (h + 2 * p[0] - d[0] * (kh - 1) - 1) / s[0] + 1;
    let ow = (w + 2 * p[1] - d[1] * (kw - 1) - 1) / s[1] + 1;
    Geom {
        cg,
        h,
        w,
        kh,
        kw,
        oh,
        ow,
        s,
        p,
        d,
    }
}

fn levels() -> Vec<Level> {
    Level::tested()
}

/// Small pseudo-random values (exact in f32 products and short sums).
pub(super) fn data(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 37 + seed * 11) % 17) as f32 * 0.25 - 2.0)
        .collect()
}

fn check(n: usize, o: usize, groups: usize, case: Case, with_bias: bool) {
    check_tiles(n, o, groups, case, with_bias, None);
}

fn check_tiles(n: usize, o: usize, groups: usize, case: Case, with_bias: bool, rows: Option<usize>) {
    let g = geom(case);
    let c = g.cg * groups;
    let x = data(n * c * g.h * g.w, 1);
    let w = data(o * g.k(), 2);
    let b = data(o, 3);
    let b = with_bias.then_some(&b[..]);
    let want = naive(&x, &w, b, n, o, groups, &g);
    for level in levels() {
        // (Miri: one thread, to keep the run short.)
        for &threads in if cfg!(miri) { &[1][..] } else { &[1, 2] } {
            let dw = DirectWeights::new(&w, b, o, groups, g.k());
            let got = crate::with_num_threads(threads, || {
                conv2d_direct(&x, &dw, n, &g, level, rows, &Epilogue::none())
            });
            assert_eq!(got.len(), want.len());
            for (i, (&a, &e)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (f64::from(a) - e).abs() <= 1e-4 * (1.0 + e.abs()),
                    "{level:?} n {n} o {o} groups {groups} {case:?}: [{i}] {a} vs {e}"
                );
            }
        }
    }
}

#[test]
fn stride_one_3x3_padded_with_channel_and_position_remainders() {
    // o = 11: one full block of MR = 8 and a block of 3; 7×9 outputs, wv = 11: 77
    // virtual positions, one full 48-wide block and a narrow tail (AVX-512).
    check(2, 11, 1, (3, 7, 9, 3, 3, [1, 1], [1, 1], [1, 1]), true);
    // A single output column (wv = 3, the pieces cross rows inside one vector).
    check(1, 8, 1, (2, 5, 1, 3, 3, [1, 1], [1, 1], [1, 1]), false);
}

#[test]
fn strided_dilated_grouped_unpadded() {
    // Stride 2×2 with a 7×7 kernel (the phase split), groups 2, batch 2.
    check(2, 8, 2, (2, 19, 17, 7, 7, [2, 2], [3, 3], [1, 1]), true);
    // Mixed strides, dilation, asymmetric kernel, no padding; K = 2·2·3 = 12.
    check(1, 12, 3, (2, 11, 14, 2, 3, [2, 3], [0, 0], [2, 1]), true);
    // Stride larger than the kernel (phases no tap reads).
    check(1, 5, 1, (1, 9, 9, 2, 2, [3, 3], [1, 0], [1, 1]), false);
}

#[test]
fn several_row_tiles() {
    // 13 output rows in tiles of 4 (the last of 1 row), and of 5 with stride 2 and
    // dilation (halo rows shared between tiles).
    check_tiles(1, 9, 1, (2, 13, 6, 3, 3, [1, 1], [1, 1], [1, 1]), true, Some(4));
    check_tiles(2, 8, 2, (2, 27, 9, 3, 2, [2, 1], [1, 0], [2, 2]), true, Some(5));
    // Automatic: one tile per image on one thread, split rows for two threads.
    check(1, 9, 1, (2, 13, 6, 3, 3, [1, 1], [1, 1], [1, 1]), true);
}

#[test]
fn weight_panels_are_tap_major_and_zero_padded() {
    let w: Vec<f32> = (0..3 * 2).map(|i| i as f32 + 1.0).collect(); // og = 3, k = 2
    let p = pack_weights(&w, 3, 2);
    assert_eq!(p.len(), 2 * MR);
    assert_eq!(&p[..MR], &[1.0, 3.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(&p[MR..2 * MR], &[2.0, 4.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn pieces_cover_each_valid_position_once() {
    for (wv, ow, rows, width) in [
        (11, 9, 7, 48),
        (3, 1, 5, 48),
        (58, 56, 2, 48),
        (16, 16, 4, 16),
        (20, 17, 3, 24),
        (9, 7, 5, 8),
    ] {
        let virt = wv * rows;
        let mut hits = vec![0; ow * rows];
        let mut ps = Vec::new();
        for p0 in (0..virt).step_by(width) {
            ps.clear();
            pieces(p0, width, virt, wv, ow, &mut ps);
            for pc in &ps {
                for l in (0..LANES).filter(|l| pc.mask >> l & 1 == 1) {
                    let p = p0 + LANES * pc.v + l;
                    let t = pc.off + l as isize;
                    assert_eq!(t as usize, p / wv * ow + p % wv, "wv {wv} ow {ow} p {p}");
                    hits[t as usize] += 1;
                }
            }
        }
        assert!(hits.iter().all(|&h| h == 1), "wv {wv} ow {ow}: {hits:?}");
    }
}
