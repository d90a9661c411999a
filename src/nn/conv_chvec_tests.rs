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
    if cfg!(miri) {
        vec![Level::Portable]
    } else {
        Level::all_available()
    }
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
