//! The Winograd convolution against the definition on every level this CPU runs: odd
//! output sizes (partial tiles), padding 0 to 2, several blocks and chunks, batches,
//! one and two threads, and the epilogue. Small enough for Miri (portable level).

use super::conv_block::Level;
use super::conv_direct_tests::{Case, data, geom, naive};
use super::epilogue::{Activation, Epilogue};
use super::winograd::{WinogradWeights, conv2d_winograd, conv2d_winograd_with};

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
    let ww = WinogradWeights::new(&w, b, o, c);
    let epi = Epilogue {
        residual: residual.then_some(&res[..]),
        act: epi_act,
    };
    let levels = if cfg!(miri) {
        vec![Level::Portable]
    } else {
        Level::all_available()
    };
    for level in levels {
        for &threads in if cfg!(miri) { &[1][..] } else { &[1, 2] } {
            let got = crate::with_num_threads(threads, || match v_bytes {
                Some(vb) => conv2d_winograd_with(&x, &ww, n, &g, level, &epi, vb),
                None => conv2d_winograd(&x, &ww, n, &g, level, &epi),
            });
            assert_eq!(got.len(), want.len());
            let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for (i, (&a, &e)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (f64::from(a) - act(e)).abs() <= 1e-5 * scale,
                    "{level:?} {threads} threads n {n} o {o} {case:?}: [{i}] {a} vs {}",
                    act(e)
                );
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
