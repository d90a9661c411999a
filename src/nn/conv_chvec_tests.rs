//! The channel-vectorised direct convolution against the definition on every level:
//! output channels not a multiple of the 16-channel block (partial chunks, the
//! four-block tiles of 7-wide rows), rows split into several tiles, strides 1 and 2,
//! padding, dilation, groups, batches, 1×1 to 7×7 kernels, and the fused epilogue.
//! Small enough for Miri, which runs the portable tile over the same packing, tiles and
//! stores: `MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-ignore-leaks" cargo +nightly miri test --lib nn::conv_chvec_tests`.

use super::conv_block::Level;
use super::conv_chvec::{ChvecWeights, conv2d_chvec, fits};
use super::conv_chvec_kernel::{CB, blocks_per_tile, max_width, two_rows};
use super::conv_direct_tests::{Case, data, geom, naive};
use super::epilogue::{Activation, Epilogue};

fn levels() -> Vec<Level> {
    Level::tested()
}

/// Checks `n` images, `o` output channels, `groups` on `case` with the epilogue
/// (`residual`, `act`) against the definition followed by the epilogue in `f64`.
fn check_epi(n: usize, o: usize, groups: usize, case: Case, with_bias: bool, residual: bool, act: Activation) {
    let g = geom(case);
    let c = g.cg * groups;
    let x = data(n * c * g.h * g.w, 1);
    let w: Vec<f32> = data(o * g.k(), 2).iter().map(|v| v * 0.125).collect();
    let b = data(o, 3);
    let b = with_bias.then_some(&b[..]);
    let res = data(n * o * g.positions(), 4);
    let mut want = naive(&x, &w, b, n, o, groups, &g);
    if residual {
        want.iter_mut().zip(&res).for_each(|(v, &r)| *v += f64::from(r));
    }
    act.run(&mut want);
    let epi = Epilogue {
        residual: residual.then_some(&res[..]),
        act,
    };
    let cw = ChvecWeights::new(&w, b, o, groups, g.k());
    for level in levels() {
        for &threads in if cfg!(miri) { &[1][..] } else { &[1, 2] } {
            let got = crate::with_num_threads(threads, || conv2d_chvec(&x, &cw, n, &g, level, &epi));
            assert_eq!(got.len(), want.len());
            for (i, (&a, &e)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (f64::from(a) - e).abs() <= 1e-4 * (1.0 + e.abs()),
                    "{level:?} threads {threads} n {n} o {o} groups {groups} {case:?} {act:?}: [{i}] {a} vs {e}"
                );
            }
        }
    }
}

fn check(n: usize, o: usize, groups: usize, case: Case) {
    check_epi(n, o, groups, case, true, false, Activation::Identity);
}

#[test]
fn stride_two_3x3_padded_with_channel_and_width_remainders() {
    // o = 20: a full block and a partial one; 7 output columns (four-block tiles on
    // AVX-512 when the channels allow); batch 2.
    check(2, 20, 1, (3, 13, 14, 3, 3, [2, 2], [1, 1], [1, 1]));
    // o = 70 (five blocks: a chunk of four and one of one), 15 and 8 columns (two
    // tiles per row on every level).
    check(1, 70, 1, (2, 9, 29, 3, 3, [2, 2], [1, 1], [1, 1]));
    check(1, 33, 1, (2, 6, 15, 3, 3, [2, 2], [1, 1], [1, 1]));
    // Two-row tiles with an odd last row (5×2 outputs: pairs on every level with
    // two-row tiles).
    check(2, 40, 1, (2, 9, 4, 3, 3, [2, 2], [1, 1], [1, 1]));
}

#[test]
fn stride_one_kernels_1_to_7_dilation_and_groups() {
    check(1, 16, 1, (3, 5, 9, 1, 1, [1, 1], [0, 0], [1, 1]));
    check(2, 32, 2, (2, 8, 7, 5, 5, [1, 1], [2, 2], [1, 1]));
    check(1, 17, 1, (2, 11, 10, 3, 2, [1, 1], [1, 0], [2, 3]));
    // The stem's shape, scaled down: 7×7 stride 2, padding 3.
    check(1, 64, 1, (3, 20, 23, 7, 7, [2, 2], [3, 3], [1, 1]));
}

#[test]
fn stride_two_1x1_unpadded_and_mixed_strides() {
    // The downsample: 1×1 stride 2, no padding (the input read in place).
    check(2, 48, 1, (5, 14, 13, 1, 1, [2, 2], [0, 0], [1, 1]));
    // Row stride 3, column stride 2 (rows come from the tile's base, columns compiled).
    check(1, 16, 1, (2, 10, 9, 2, 3, [3, 2], [1, 1], [1, 1]));
}

#[test]
fn fused_epilogue_variants() {
    let case = (3, 9, 10, 3, 3, [2, 2], [1, 1], [1, 1]);
    for act in [
        Activation::Identity,
        Activation::Relu,
        Activation::Relu6,
        Activation::LeakyRelu(0.1),
        Activation::Silu,
        Activation::Gelu,
        Activation::Sigmoid,
        Activation::Tanh,
    ] {
        check_epi(1, 24, 1, case, true, true, act);
    }
    // No bias, residual, ReLU, batch and groups (as in a ResNet block).
    check_epi(2, 32, 2, case, false, true, Activation::Relu);
}

#[test]
fn tile_shapes_keep_registers_for_weights_and_a_broadcast() {
    for level in levels() {
        for ob in 1..6 {
            let nb = blocks_per_tile(level, ob);
            let width = max_width(level, nb);
            assert!(nb <= ob && width > 0, "{level:?} ob {ob}");
            // A two-row tile holds no more accumulators than a one-row one.
            assert!(2 * two_rows(level, nb) <= width);
            #[cfg(target_arch = "x86_64")]
            match level {
                Level::Avx512 => assert!(width * nb + nb < 32),
                Level::Avx2 => assert!(2 * width * nb + 2 * nb < 16),
                Level::Portable => {}
            }
        }
    }
    assert!(fits([2, 2], CB) && fits([1, 1], 64));
    assert!(!fits([3, 3], 64) && !fits([2, 2], CB - 1));
}

#[test]
fn stores_keep_nan_and_add_the_residual_before_relu() {
    // A NaN in the residual must come out as NaN through the fused ReLU (as the
    // scalar ReLU keeps it), at the residual's position only; a large negative
    // residual must be clamped to 0 after the add.
    let case = (2, 7, 9, 3, 3, [2, 2], [1, 1], [1, 1]);
    let g = geom(case);
    let (n, o) = (2, 40);
    let x = data(n * g.cg * g.h * g.w, 1);
    let w: Vec<f32> = data(o * g.k(), 2).iter().map(|v| v * 0.125).collect();
    let mut res = data(n * o * g.positions(), 4);
    let (nan_at, neg_at) = (3 * g.positions() + 5, 17 * g.positions() + 2);
    res[nan_at] = f32::NAN;
    res[neg_at] = -1e6;
    let cw = ChvecWeights::new(&w, None, o, 1, g.k());
    let mut want = naive(&x, &w, None, n, o, 1, &g);
    want.iter_mut().zip(&res).for_each(|(v, &r)| *v += f64::from(r));
    let epi = Epilogue {
        residual: Some(&res[..]),
        act: Activation::Relu,
    };
    for level in levels() {
        let got = conv2d_chvec(&x, &cw, n, &g, level, &epi);
        for (i, (&a, &e)) in got.iter().zip(&want).enumerate() {
            let e = if e < 0.0 { 0.0 } else { e };
            if i == nan_at {
                assert!(a.is_nan(), "{level:?}: [{i}] {a} should be NaN");
            } else {
                assert!(
                    (f64::from(a) - e).abs() <= 1e-4 * (1.0 + e.abs()),
                    "{level:?}: [{i}] {a} vs {e}"
                );
            }
        }
        assert_eq!(got[neg_at], 0.0, "{level:?}");
    }
}

/// The convolution followed by a max pool in one pass equals the two run one after the
/// other, bit for bit (the same tiles, and a maximum does not round), on every level,
/// on one and two threads (bands of pooled rows sharing convolution rows).
fn check_max_pool(n: usize, o: usize, groups: usize, case: Case, act: Activation, pool: [[usize; 2]; 3], nan: bool) {
    use super::conv_chvec_pool::conv2d_chvec_max_pool;
    use super::pool_geom::{PoolGeom, Window};
    use super::pool_kernel::{Reduce, pool_f32_at};
    let g = geom(case);
    let c = g.cg * groups;
    let mut x = data(n * c * g.h * g.w, 1);
    if nan {
        // One input value NaN: every output whose window reads it is NaN, and so is
        // every pooled output over those.
        x[(n - 1) * c * g.h * g.w + g.h / 2 * g.w + 1] = f32::NAN;
    }
    let w: Vec<f32> = data(o * g.k(), 2).iter().map(|v| v * 0.125).collect();
    let b = data(o, 3);
    let cw = ChvecWeights::new(&w, Some(&b), o, groups, g.k());
    let [k, s, p] = pool;
    let window = Window {
        k,
        s,
        p,
        d: [1, 1],
        ceil: false,
    };
    let (_, pg) = PoolGeom::check("test", &[n, o, g.oh, g.ow], &window).unwrap();
    let epi = Epilogue { residual: None, act };
    for level in levels() {
        for &threads in if cfg!(miri) { &[2][..] } else { &[1, 2] } {
            let (got, want) = crate::with_num_threads(threads, || {
                let conv = conv2d_chvec(&x, &cw, n, &g, level, &epi);
                let want = pool_f32_at(level, &conv, n * o, &pg, Reduce::Max);
                (conv2d_chvec_max_pool(&x, &cw, n, &g, level, act, &pg), want)
            });
            assert_eq!(got.len(), n * o * pg.out[0] * pg.out[1]);
            assert_eq!(got.len(), want.len());
            let what = format!("{level:?} threads {threads} n {n} o {o} {case:?} {act:?} pool {pool:?}");
            for (i, (&a, &e)) in got.iter().zip(&want).enumerate() {
                assert!(
                    a.to_bits() == e.to_bits() || (a.is_nan() && e.is_nan()),
                    "{what}: [{i}] {a} vs {e}"
                );
            }
            if nan {
                assert!(got.iter().any(|v| v.is_nan()), "{what}: the NaN was lost");
            }
        }
    }
}

#[test]
fn conv_then_max_pool_in_one_pass_equals_the_composition() {
    let stem = [[3, 3], [2, 2], [1, 1]];
    // The stem's shape, scaled down: 7×7/2 padding 3, ReLU, then 3×3/2 padding 1 (6×7
    // convolution rows: an odd pooled width, a last window over the bottom padding).
    check_max_pool(
        1,
        16,
        1,
        (3, 12, 13, 7, 7, [2, 2], [3, 3], [1, 1]),
        Activation::Relu,
        stem,
        false,
    );
    check_max_pool(
        1,
        16,
        1,
        (3, 12, 13, 7, 7, [2, 2], [3, 3], [1, 1]),
        Activation::Relu,
        stem,
        true,
    );
    if cfg!(miri) {
        return;
    }
    // A partial channel block, batch 2, two-row tiles (7 columns), odd heights.
    let case = (2, 13, 13, 3, 3, [2, 2], [1, 1], [1, 1]);
    check_max_pool(2, 20, 1, case, Activation::Identity, stem, true);
    check_max_pool(2, 20, 1, case, Activation::Relu, [[2, 2], [2, 2], [0, 0]], false);
    // A stride-1 pool (the general plane kernel), groups, an activation applied
    // outside the stores.
    check_max_pool(1, 32, 2, case, Activation::Sigmoid, [[3, 3], [1, 1], [1, 1]], true);
    // Taller images: many bands on two threads, rows shared between them.
    check_max_pool(
        1,
        64,
        1,
        (3, 45, 30, 7, 7, [2, 2], [3, 3], [1, 1]),
        Activation::Relu,
        stem,
        false,
    );
    check_max_pool(
        1,
        48,
        1,
        (4, 40, 17, 3, 3, [1, 1], [1, 1], [1, 1]),
        Activation::Relu,
        [[3, 2], [2, 1], [1, 0]],
        true,
    );
}
