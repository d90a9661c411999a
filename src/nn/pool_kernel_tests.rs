//! The 2-D pooling kernels (the general row kernel and the stride-2 max kernel) on every
//! instruction-set level this CPU has, against PyTorch's definition computed here in
//! `f64`: NaN and −∞ inputs, padding, ceil mode, strides 1–3, dilation, odd widths
//! below, at and above a vector, several planes. Small enough for Miri (which runs the
//! portable level only): `cargo +nightly miri test --lib nn::pool_kernel_tests`.

use super::conv_block::Level;
use super::pool_geom::{PoolGeom, Window};
use super::pool_kernel::{Reduce, pool_f32_at, pool_planes};

/// Deterministic values in about ±2, with NaN at every 29th and −∞ at every 31st
/// element (offset by `seed`).
fn data(len: usize, seed: usize) -> Vec<f64> {
    (0..len)
        .map(|i| match (i + seed) % 899 {
            k if k % 29 == 7 => f64::NAN,
            k if k % 31 == 3 => f64::NEG_INFINITY,
            _ => ((i * 7919 + seed * 104_729) % 1000) as f64 / 250.0 - 2.0,
        })
        .collect()
}

/// PyTorch's max or average pool of one plane, by the definition.
fn naive(x: &[f64], g: &PoolGeom, r: Reduce) -> Vec<f64> {
    let (h, w) = (g.input[0], g.input[1]);
    let mut out = Vec::with_capacity(g.out[0] * g.out[1]);
    for oh in 0..g.out[0] {
        for ow in 0..g.out[1] {
            let rows: Vec<usize> = g.taps(0, oh).collect();
            let cols: Vec<usize> = g.taps(1, ow).collect();
            let vals = rows.iter().flat_map(|&i| cols.iter().map(move |&j| x[i * w + j]));
            out.push(match r {
                Reduce::Max => vals.fold(f64::NEG_INFINITY, |a, v| if v > a || v.is_nan() { v } else { a }),
                Reduce::Avg {
                    count_include_pad,
                    divisor,
                } => {
                    let sum: f64 = vals.sum();
                    // PyTorch: the window clipped to the padded input, or to the input.
                    let span = |o: usize, ax: usize, len: usize| {
                        let start = (o * g.s[ax]) as isize - g.p[ax] as isize;
                        let end = (start + g.k[ax] as isize).min((len + g.p[ax]) as isize);
                        (end - start) as usize
                    };
                    let cnt = divisor.unwrap_or(if count_include_pad {
                        span(oh, 0, h) * span(ow, 1, w)
                    } else {
                        rows.len() * cols.len()
                    });
                    sum / cnt as f64
                }
            });
        }
    }
    out
}

/// The levels this CPU runs (only the portable one under Miri).
fn levels() -> Vec<Level> {
    let mut l = vec![Level::Portable];
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::{Isa, detected_isa};
        if detected_isa() >= Isa::Avx2 {
            l.push(Level::Avx2);
        }
        if detected_isa() >= Isa::Avx512 {
            l.push(Level::Avx512);
        }
    }
    l
}

fn same(got: f64, want: f64, tol: f64) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else if want.is_infinite() {
        got == want
    } else {
        (got - want).abs() <= tol * (1.0 + want.abs())
    }
}

/// Every level (f32) and the f64 path against the definition on `planes` planes.
fn check(shape: [usize; 2], planes: usize, w: Window<2>) {
    let (_, g) = PoolGeom::check("test", &[1, planes, shape[0], shape[1]], &w).unwrap();
    let x = data(planes * shape[0] * shape[1], shape[1]);
    let hw = shape[0] * shape[1];
    let reduces = [
        Reduce::Max,
        Reduce::Avg {
            count_include_pad: true,
            divisor: None,
        },
        Reduce::Avg {
            count_include_pad: false,
            divisor: None,
        },
        Reduce::Avg {
            count_include_pad: true,
            divisor: Some(3),
        },
    ];
    for r in reduces {
        if r != Reduce::Max && w.d != [1, 1] {
            continue; // average pooling has no dilation
        }
        let want: Vec<f64> = (0..planes).flat_map(|p| naive(&x[p * hw..][..hw], &g, r)).collect();
        let what = |lv: &str, i: usize| format!("{lv} {r:?} {shape:?}×{planes} {w:?}: output {i}");
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let want32: Vec<f64> = (0..planes)
            .flat_map(|p| {
                let xp: Vec<f64> = x32[p * hw..][..hw].iter().map(|&v| f64::from(v)).collect();
                naive(&xp, &g, r)
            })
            .collect();
        for level in levels() {
            let got = pool_f32_at(level, &x32, planes, &g, r);
            assert_eq!(got.len(), want32.len());
            for (i, (&a, &b)) in got.iter().zip(&want32).enumerate() {
                assert!(
                    same(f64::from(a), b, 2e-6),
                    "{}: got {a}, want {b}",
                    what(&format!("{level:?}"), i)
                );
            }
        }
        let got = pool_planes(&x, planes, &g, r);
        for (i, (&a, &b)) in got.iter().zip(&want).enumerate() {
            assert!(same(a, b, 1e-13), "{}: got {a}, want {b}", what("f64", i));
        }
    }
}

fn win(k: [usize; 2], s: [usize; 2], p: [usize; 2], d: [usize; 2], ceil: bool) -> Window<2> {
    Window { k, s, p, d, ceil }
}

#[test]
fn stride_two_max_kernel_matches_the_definition() {
    // The stem's 3×3/2 pad 1: widths below, across and above one and two vectors.
    for w in [3, 7, 16, 33, 40] {
        check([7, w], 2, win([3, 3], [2, 2], [1, 1], [1, 1], false));
    }
    check([6, 20], 3, win([3, 3], [2, 2], [1, 1], [1, 1], true));
    check([8, 37], 2, win([2, 2], [2, 2], [0, 0], [1, 1], true));
    check([9, 35], 1, win([5, 5], [2, 2], [2, 2], [1, 1], false));
    check([10, 33], 1, win([4, 4], [2, 2], [1, 1], [1, 1], true));
    check([5, 19], 1, win([1, 1], [2, 2], [0, 0], [1, 1], false));
    // Row stride and dilation differ from the columns' (the kernel takes any rows).
    check([9, 21], 1, win([3, 3], [1, 2], [1, 1], [2, 1], false));
    check([11, 18], 1, win([3, 3], [3, 2], [1, 1], [1, 1], true));
}

#[test]
fn general_kernel_matches_the_definition() {
    check([9, 23], 2, win([3, 3], [1, 1], [1, 1], [1, 1], false));
    check([9, 30], 1, win([3, 3], [3, 3], [1, 1], [1, 1], true));
    check([12, 41], 1, win([3, 2], [2, 3], [1, 1], [2, 2], false));
    check([7, 34], 1, win([3, 3], [2, 2], [0, 0], [1, 2], false));
    check([4, 5], 3, win([2, 2], [1, 1], [1, 1], [1, 1], true));
}
