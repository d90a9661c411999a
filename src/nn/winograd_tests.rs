//! The Winograd convolutions F(2×2, 3×3) and F(4×4, 3×3) against the definition on
//! every level this CPU runs: odd output sizes (partial tiles), padding 0 to 2, several
//! blocks and chunks, batches, one and two threads, and the epilogue. Small enough for
//! Miri (portable level).

use super::conv_block::Level;
use super::conv_direct_tests::{Case, data, geom, naive};
use super::epilogue::{Activation, Epilogue};
use super::winograd::{Tile, WinogradWeights, conv2d_winograd, conv2d_winograd_with};

fn check(n: usize, o: usize, case: Case, with_bias: bool, epi_act: Activation, residual: bool) {
    check_with(n, o, case, with_bias, epi_act, residual, None);
}

/// [`check`] with `v_bytes` of transformed input per block (the default when `None`).
fn check_with(
    n: usize,
    o: usize,
    case: Case,
    with_bias: bool,
    epi_act: Activation,
    residual: bool,
    v_bytes: Option<usize>,
) {
    let g = geom(case);
    let c = g.cg;
    let x = data(n * c * g.h * g.w, 1);
    let w = data(o * g.k(), 2);
    let b = data(o, 3);
    let b = with_bias.then_some(&b[..]);
    let mut want = naive(&x, &w, b, n, o, 1, &g);
    let res = data(want.len(), 4);
    if residual {
        want.iter_mut().zip(&res).for_each(|(v, &r)| *v += f64::from(r));
    }
    let act = |v: f64| match epi_act {
        Activation::Relu => v.max(0.0),
        _ => v,
    };
    let epi = Epilogue {
        residual: residual.then_some(&res[..]),
        act: epi_act,
    };
    let levels = if cfg!(miri) {
        vec![Level::Portable]
    } else {
        Level::all_available()
    };
    // F(4×4, 3×3)'s larger transform constants round a few times more (see
    // `f4_error_on_resnet_channel_counts` for its error at ResNet's sizes).
    for (tile, tol) in [(Tile::F2, 1e-5), (Tile::F4, 4e-5)] {
        let ww = WinogradWeights::new(&w, b, o, c, tile);
        for &level in &levels {
            for &threads in if cfg!(miri) { &[1][..] } else { &[1, 2] } {
                let got = crate::with_num_threads(threads, || match v_bytes {
                    Some(vb) => conv2d_winograd_with(&x, &ww, n, &g, level, &epi, vb),
                    None => conv2d_winograd(&x, &ww, n, &g, level, &epi),
                });
                assert_eq!(got.len(), want.len());
                let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                for (i, (&a, &e)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (f64::from(a) - act(e)).abs() <= tol * scale,
                        "{tile:?} {level:?} {threads} threads n {n} o {o} {case:?}: [{i}] {a} vs {}",
                        act(e)
                    );
                }
            }
        }
    }
}

#[test]
fn odd_sizes_and_paddings() {
    // 7×9 output (partial tiles in both directions), padding 1, bias.
    check(
        1,
        17,
        (16, 7, 9, 3, 3, [1, 1], [1, 1], [1, 1]),
        true,
        Activation::Identity,
        false,
    );
    // No padding (5×6 output), and padding 2 (larger output than input).
    check(
        2,
        16,
        (16, 7, 8, 3, 3, [1, 1], [0, 0], [1, 1]),
        false,
        Activation::Identity,
        false,
    );
    check(
        1,
        24,
        (16, 4, 5, 3, 3, [1, 1], [2, 1], [1, 1]),
        true,
        Activation::Identity,
        false,
    );
}

#[test]
fn many_blocks_chunks_and_the_epilogue() {
    // 40 channels (rows of several chunks), batch 3, residual and ReLU.
    let big = if cfg!(miri) { 10 } else { 30 };
    check(
        3,
        40,
        (16, big, big + 3, 3, 3, [1, 1], [1, 1], [1, 1]),
        true,
        Activation::Relu,
        true,
    );
}

#[test]
fn uneven_blocks_on_both_thread_splits() {
    // 2 images of 13×11 outputs: 2·7·6 = 84 tiles, 16 channels (1 KiB of `V` per tile).
    // 16 KiB blocks: 6 blocks (whole vectors of tiles, the last partial; on two threads
    // split by blocks); 32 KiB: 3 blocks (on two threads split into (block, chunk)
    // tasks, each thread transforming the blocks it meets); 48 KiB: 2 blocks.
    // F(4×4, 3×3): 2·4·3 = 24 tiles of 2.25 KiB: 2, 2 and 1 blocks (at least 16 tiles
    // per block).
    for vb in [16 << 10, 32 << 10, 48 << 10] {
        check_with(
            2,
            40,
            (16, 13, 11, 3, 3, [1, 1], [1, 1], [1, 1]),
            true,
            Activation::Relu,
            true,
            Some(vb),
        );
    }
}

#[test]
fn weight_transform_of_a_delta_is_separable() {
    // g = e₁₁ (centre tap): U = G e₁₁ Gᵀ = (G[:,1]) (G[:,1])ᵀ with G[:,1] = (0, ½, −½, 0).
    let mut g = [0.0f32; 9];
    g[4] = 1.0;
    let u = super::winograd_transform::weight_transform(&g);
    let col = [0.0, 0.5, -0.5, 0.0];
    for i in 0..4 {
        for j in 0..4 {
            assert_eq!(u[i * 4 + j], col[i] * col[j]);
        }
    }
}

#[test]
fn f4_weight_transform_of_a_delta_is_separable() {
    // U = G e₁₁ Gᵀ = (G[:,1]) (G[:,1])ᵀ with G[:,1] = (0, −1/6, 1/6, 1/12, −1/12, 0).
    let mut g = [0.0f32; 9];
    g[4] = 1.0;
    let u = super::winograd_f4::weight_transform4(&g);
    let col = [0.0, -1.0 / 6.0, 1.0 / 6.0, 1.0 / 12.0, -1.0 / 12.0, 0.0];
    for i in 0..6 {
        for j in 0..6 {
            assert_eq!(u[i * 6 + j], (col[i] * col[j]) as f32);
        }
    }
}

#[test]
fn f4_handles_nan_and_infinity_where_they_reach() {
    // A NaN in the input reaches the outputs whose window holds it (and, through the
    // tile's transform, the rest of its tile), never an output of another tile.
    let case: Case = (16, 8, 8, 3, 3, [1, 1], [1, 1], [1, 1]);
    let g = geom(case);
    let (n, o, c) = (1, 16, g.cg);
    let mut x = data(n * c * g.h * g.w, 1);
    x[5 * g.w + 6] = f32::NAN; // channel 0, row 5, column 6: tile (1, 1)
    let w = data(o * g.k(), 2);
    let ww = WinogradWeights::new(&w, None, o, c, Tile::F4);
    let epi = Epilogue {
        residual: None,
        act: Activation::Identity,
    };
    let level = if cfg!(miri) { Level::Portable } else { Level::detect() };
    let got = conv2d_winograd(&x, &ww, n, &g, level, &epi);
    for oc in 0..o {
        for y in 0..8 {
            for xx in 0..8 {
                let v = got[(oc * 8 + y) * 8 + xx];
                let tile = (y / 4, xx / 4);
                assert_eq!(v.is_nan(), tile == (1, 1), "channel {oc} ({y}, {xx}) = {v}");
            }
        }
    }
}

/// Pseudo-random values in `[-1, 1)` (a hash of the index; no dependency).
fn noise(len: usize, seed: u64) -> Vec<f32> {
    (0..len as u64)
        .map(|i| {
            let mut z = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed.wrapping_mul(0xD1B5_4A32_D192_ED03);
            z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z ^= z >> 29;
            (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// The largest error of both tiles against the `f64` direct sum, relative to the
/// largest output, on ResNet's channel counts with He-scaled weights and ReLU-like
/// (non-negative) inputs. Measured (AVX-512): F(2×2, 3×3) 2.5e-7 to 7.9e-7, F(4×4, 3×3)
/// 4.4e-6 to 1.1e-5 from 64 to 512 channels (its constants up to 8 in `Aᵀ` and 5 in
/// `Bᵀ`), below the 1e-4 that the end-to-end test allows on the logits.
#[test]
#[cfg_attr(miri, ignore = "too large for Miri (the other tests cover the kernels)")]
fn f4_error_on_resnet_channel_counts() {
    let case = |c| (c, 12, 12, 3, 3, [1, 1], [1, 1], [1, 1]);
    let level = Level::detect();
    for c in [64, 128, 256, 512] {
        let g = geom(case(c));
        let (n, o) = (2, 32);
        let x: Vec<f32> = noise(n * c * g.h * g.w, 1).iter().map(|v| v.max(0.0)).collect();
        let he = (6.0 / (9.0 * c as f32)).sqrt();
        let w: Vec<f32> = noise(o * g.k(), 2).iter().map(|v| v * he).collect();
        let want = naive(&x, &w, None, n, o, 1, &g);
        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let epi = Epilogue {
            residual: None,
            act: Activation::Identity,
        };
        let mut errs = [0.0f64; 2];
        for (e, tile) in errs.iter_mut().zip([Tile::F2, Tile::F4]) {
            let ww = WinogradWeights::new(&w, None, o, c, tile);
            let got = conv2d_winograd(&x, &ww, n, &g, level, &epi);
            *e = got
                .iter()
                .zip(&want)
                .map(|(&a, &b)| (f64::from(a) - b).abs())
                .fold(0.0, f64::max)
                / scale;
        }
        eprintln!(
            "C = {c}: max error / max |output|: F(2,3) {:.2e}, F(4,3) {:.2e}",
            errs[0], errs[1]
        );
        assert!(errs[0] < 2e-6, "F(2,3) at C = {c}: {:e}", errs[0]);
        assert!(errs[1] < 3e-5, "F(4,3) at C = {c}: {:e}", errs[1]);
    }
}

#[test]
fn tile_rule_on_resnet_geometries() {
    if std::env::var_os("FERROTENSOR_WINOGRAD_TILE").is_some() {
        return; // forced tile: the rule is not in use
    }
    let at = |n, size| super::winograd::tile_for(n, &geom((64, size, size, 3, 3, [1, 1], [1, 1], [1, 1])));
    // 196 tiles of 4×4 at 56×56; 49 at 28×28 (batch 1); 128 at 14×14 and 32 at 7×7 (batch 8).
    assert_eq!(at(1, 56), Tile::F4);
    assert_eq!(at(1, 28), Tile::F2);
    assert_eq!(at(8, 14), Tile::F4);
    assert_eq!(at(8, 7), Tile::F2);
}
