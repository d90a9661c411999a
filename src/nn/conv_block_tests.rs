//! Tests of the product micro-kernel [`Level::block`]: every block shape of every level
//! this CPU runs against a plain sum in `f64`, with uneven tap offsets, a base offset,
//! output rows longer than the block, with and without bias, and no taps at all.

use super::conv_block::{Level, MR, Offsets, Shape, pack_weights};

/// Every shape `level` dispatches to a kernel (wide, narrow and the narrow group's
/// shorter groups), plus one the portable kernel takes for any level.
fn shapes(level: Level) -> Vec<Shape> {
    let (wide, narrow) = (level.wide(), level.narrow());
    let mut v = vec![wide, narrow];
    for panels in 1..narrow.panels {
        v.push(Shape {
            panels,
            width: narrow.width,
        });
    }
    v.push(Shape { panels: 2, width: 4 });
    v
}

fn data(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 37 + seed * 11) % 23) as f32 / 8.0 - 1.4)
        .collect()
}

/// Runs one block of `shape` with `k` taps at uneven offsets and compares every output
/// element (and that the padding between rows is untouched).
fn check(level: Level, shape: Shape, k: usize, with_bias: bool) {
    let (rows, width) = (shape.rows(), shape.width);
    // Rows of the weight matrix (row-major rows × k), packed as the callers pack them.
    let wt = data(rows * k, 1);
    let packed = pack_weights(&wt, rows, k);
    let pstride = k * MR;
    // Taps out of order and unevenly spaced (as the phase-split direct convolution has).
    let offs: Vec<usize> = (0..k).map(|t| (t * 7 + 3) % (k * 3 + 1) + t % 2).collect();
    let offsets = Offsets::new(offs.clone());
    let base = 5;
    let x = data(base + offsets.max() + width + 3, 2);
    let bias = data(rows, 3);
    let out_rs = width + 3;
    let fill = -7.25;
    let mut out = vec![fill; (rows - 1) * out_rs + width + 2];
    let b = with_bias.then_some(&bias[..]);
    level.block(shape, &packed, pstride, &x, base, &offsets, b, &mut out, out_rs);
    for r in 0..rows {
        for j in 0..width {
            let mut want = if with_bias { f64::from(bias[r]) } else { 0.0 };
            for (t, &off) in offs.iter().enumerate() {
                want += f64::from(wt[r * k + t]) * f64::from(x[base + off + j]);
            }
            let got = f64::from(out[r * out_rs + j]);
            assert!(
                (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                "{level:?} {shape:?} k={k} bias={with_bias}: out[{r}][{j}] = {got}, want {want}"
            );
        }
        let pad_end = if r + 1 < rows { out_rs } else { width + 2 };
        for j in width..pad_end {
            assert_eq!(
                out[r * out_rs + j],
                fill,
                "{level:?} {shape:?}: wrote past row {r}'s block"
            );
        }
    }
}

fn levels() -> Vec<Level> {
    Level::tested()
}

#[test]
fn every_shape_of_every_level_matches_the_plain_sum() {
    for level in levels() {
        for shape in shapes(level) {
            for k in [1, 2, 5] {
                for with_bias in [false, true] {
                    check(level, shape, k, with_bias);
                }
            }
        }
    }
}

#[test]
fn no_taps_gives_the_bias_or_zero() {
    for level in levels() {
        for shape in shapes(level) {
            check(level, shape, 0, true);
            check(level, shape, 0, false);
        }
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn many_taps_match_the_plain_sum() {
    for level in levels() {
        check(level, level.wide(), 67, true);
        check(level, level.narrow(), 67, false);
    }
}
