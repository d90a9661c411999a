//! `conv3d` as a sum over the kernel's depth taps of 2-D convolutions: output depth
//! `od` is `bias + Σ_td conv2d(x[:, :, od·s − p + td·d], w[:, :, td])`. The input's
//! depths become the batch of the 2-D convolutions (one prepared [`Conv2d`] per tap,
//! run on the depths that tap reads, its output added to the running sum by the fused
//! residual), so a 3-D convolution with deep channels runs on the 2-D kernels
//! (Winograd, direct) instead of unfolding `kD·kH·kW` copies of the input for a GEMM.

use super::conv::Conv2dArgs;
use super::conv_layer::Conv2d;
use super::param::Param;
use super::vol2col::Geom3;
use crate::element::Float;
use crate::error::Result;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// True for `f32` and `f64` where the 2-D convolutions carry most of the work: a
/// kernel deeper than 1, at least 64 products per output element and tap
/// (`C_g·kH·kW`) and 16 output channels per group, so the depth passes over the output
/// (one per tap) and the two layout copies stay small beside them (a shape rule).
pub(crate) fn takes<T: 'static>(g: &Geom3, o: usize, groups: usize) -> bool {
    use std::any::TypeId;
    let float = TypeId::of::<T>() == TypeId::of::<f32>() || TypeId::of::<T>() == TypeId::of::<f64>();
    float && g.kernel[0] > 1 && g.cg * g.kernel[1] * g.kernel[2] >= 64 && o / groups >= 16
}

/// `conv3d` of `input` `(N, C, D, H, W)` with `weight` `(O, C_g, kD, kH, kW)` (any
/// layouts) and `bias`, as `(N, O, OD, OH, OW)` row-major (shapes checked by the
/// caller, `g` their geometry).
pub(crate) fn conv3d_by_depth<T: Float, S1: Storage<Elem = T>, D1: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    input: &TensorBase<S1, D1>,
    weight: &TensorBase<S2, D2>,
    bias: Option<&[T]>,
    o: usize,
    groups: usize,
    g: &Geom3,
) -> Result<Vec<T>> {
    let n = input.shape()[0];
    let [id, ih, iw] = g.input;
    let [kd, _, _] = g.kernel;
    let [od, oh, ow] = g.out;
    let c = g.cg * groups;
    let (s, p, d) = (g.s[0], g.p[0], g.d[0]);
    let args = Conv2dArgs {
        stride: [g.s[1], g.s[2]],
        padding: [g.p[1], g.p[2]],
        dilation: [g.d[1], g.d[2]],
        groups,
    };
    // Depths as the batch: (N, D, C, H, W), row-major.
    let xd = Tensor::from_vec(input.view().permute(&[0, 2, 1, 3, 4])?.to_vec(), [n, id, c, ih, iw])?;
    // Tap `td` reads input depth od·s − p + td·d: the output depths `lo..hi` whose
    // depth lies inside 0..D.
    let range = |td: usize| {
        let off = td * d;
        let lo = p.saturating_sub(off).div_ceil(s).min(od);
        let hi = if id + p > off {
            ((id + p - off - 1) / s + 1).min(od)
        } else {
            0
        };
        (lo, hi.max(lo))
    };
    // A tap that every output depth reads starts the sum, with the bias; without one
    // the sum starts from the bias alone.
    let full = (0..kd).find(|&td| range(td) == (0, od));
    let mut y = Tensor::<T, _>::zeros([n, od, o, oh, ow]);
    if full.is_none()
        && let Some(b) = bias
    {
        let ys = y.as_slice_mut().expect("a new row-major tensor");
        for (q, chunk) in ys.chunks_exact_mut(oh * ow).enumerate() {
            chunk.fill(b[q % o]);
        }
    }
    let plane = o * oh * ow;
    let order = full.into_iter().chain((0..kd).filter(|&td| Some(td) != full));
    for td in order {
        let (lo, hi) = range(td);
        if lo == hi {
            continue;
        }
        let bt = match bias {
            Some(b) if Some(td) == full => Some(Tensor::from_slice(b, [o])?),
            _ => None,
        };
        let conv = Conv2d::new(
            &weight.view().slice(crate::s![.., .., td, .., ..]),
            bt.as_ref().map(|b| b as &dyn Param<T>),
            args,
        )?;
        let z0 = lo * s + td * d - p;
        for ni in 0..n {
            // Input depths z0, z0 + s, … as a batch of hi − lo images.
            let xin = xd.slice(crate::s![ni, z0..z0 + (hi - lo - 1) * s + 1; s, .., .., ..]);
            let got = if Some(td) == full {
                conv.forward(&xin)?
            } else {
                conv.forward_add(&xin, &y.slice(crate::s![ni, lo..hi, .., .., ..]))?
            };
            let ys = y.as_slice_mut().expect("a new row-major tensor");
            ys[(ni * od + lo) * plane..(ni * od + hi) * plane]
                .copy_from_slice(got.as_slice().expect("a new row-major tensor"));
        }
    }
    // (N, OD, O, OH, OW) → (N, O, OD, OH, OW).
    Ok(y.permute(&[0, 2, 1, 3, 4])?.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Ix5;

    /// The definition, in f64.
    fn reference(x: &Tensor<f64, Ix5>, w: &Tensor<f64, Ix5>, b: Option<&[f64]>, groups: usize, g: &Geom3) -> Vec<f64> {
        let [n, c, ..] = *x.dim();
        let [o, cg, kd, kh, kw] = *w.dim();
        let og = o / groups;
        let [od, oh, ow] = g.out;
        let mut out = vec![0.0; n * o * od * oh * ow];
        let at = |a: usize, o: usize, t: usize| (o * g.s[a] + t * g.d[a]) as isize - g.p[a] as isize;
        let mut q = 0;
        for ni in 0..n {
            for oc in 0..o {
                for (z, y, xx) in (0..od).flat_map(|z| (0..oh).flat_map(move |y| (0..ow).map(move |xx| (z, y, xx)))) {
                    let mut acc = b.map_or(0.0, |b| b[oc]);
                    for ci in 0..cg {
                        let ic = (oc / og) * cg + ci;
                        for (td, th, tw) in
                            (0..kd).flat_map(|a| (0..kh).flat_map(move |b| (0..kw).map(move |c| (a, b, c))))
                        {
                            let (zd, zh, zw) = (at(0, z, td), at(1, y, th), at(2, xx, tw));
                            let inside = |v: isize, len: usize| v >= 0 && (v as usize) < len;
                            if inside(zd, g.input[0]) && inside(zh, g.input[1]) && inside(zw, g.input[2]) {
                                acc += x[[ni, ic, zd as usize, zh as usize, zw as usize]] * w[[oc, ci, td, th, tw]];
                            }
                        }
                    }
                    out[q] = acc;
                    q += 1;
                }
            }
            let _ = c;
        }
        out
    }

    #[test]
    fn depth_taps_of_2d_convolutions_equal_the_definition() {
        // (input N, C, D, H, W; O, kernel; stride; padding; dilation; groups): edges
        // where no tap reads every output depth, stride and dilation in depth, groups,
        // a strided input view; f32 and f64.
        type Case = ([usize; 5], usize, [usize; 3], [usize; 3], [usize; 3], [usize; 3], usize);
        let cases: &[Case] = if cfg!(miri) {
            &[([1, 2, 3, 3, 3], 2, [2, 2, 2], [1, 1, 1], [1, 1, 1], [1, 1, 1], 1)]
        } else {
            &[
                ([2, 8, 5, 7, 6], 16, [3, 3, 3], [1, 1, 1], [1, 1, 1], [1, 1, 1], 1),
                ([1, 6, 7, 9, 5], 4, [3, 2, 3], [2, 1, 2], [2, 0, 1], [2, 1, 1], 2),
                ([1, 3, 2, 5, 5], 5, [3, 3, 3], [1, 1, 1], [2, 1, 1], [1, 1, 1], 1),
                ([2, 4, 9, 4, 4], 8, [2, 3, 3], [3, 2, 1], [0, 1, 1], [3, 1, 1], 4),
            ]
        };
        for &(xs, o, k, s, p, d, groups) in cases {
            let g = Geom3 {
                cg: xs[1] / groups,
                input: [xs[2], xs[3], xs[4]],
                kernel: k,
                out: std::array::from_fn(|a| (xs[2 + a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) / s[a] + 1),
                s,
                p,
                d,
            };
            let big = Tensor::<f64, _>::from_shape_fn([xs[0], xs[1], xs[2], xs[3], 2 * xs[4]], |i| {
                ((i[0] * 7 + i[1] * 5 + i[2] * 3 + i[3] * 11 + i[4]) % 17) as f64 / 8.0 - 1.0
            });
            let x = big.slice(crate::s![.., .., .., .., ..;2]);
            let xo = Tensor::from_vec(x.to_vec(), xs).unwrap();
            let w = Tensor::<f64, _>::from_shape_fn([o, xs[1] / groups, k[0], k[1], k[2]], |i| {
                ((i[0] * 3 + i[1] * 7 + i[2] * 5 + i[3] + i[4] * 2) % 13) as f64 / 16.0 - 0.4
            });
            let b: Vec<f64> = (0..o).map(|v| v as f64 / 4.0 - 1.0).collect();
            for bias in [Some(&b[..]), None] {
                let want = reference(&xo, &w, bias, groups, &g);
                let got = conv3d_by_depth(&x, &w, bias, o, groups, &g).unwrap();
                assert_eq!(got.len(), want.len());
                for (a, e) in got.iter().zip(&want) {
                    assert!((a - e).abs() <= 1e-10 * (1.0 + e.abs()), "{xs:?} {k:?}: {a} vs {e}");
                }
                let x32 = xo.map(|&v| v as f32);
                let w32 = w.map(|&v| v as f32);
                let b32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
                let got = conv3d_by_depth(&x32, &w32, bias.map(|_| &b32[..]), o, groups, &g).unwrap();
                for (a, e) in got.iter().zip(&want) {
                    let a = *a as f64;
                    assert!((a - e).abs() <= 1e-4 * (1.0 + e.abs()), "f32 {xs:?} {k:?}: {a} vs {e}");
                }
            }
        }
        // The routing: a deep 3-D convolution through `conv3d` takes this path and
        // agrees with the definition.
        let (xs, o) = ([1usize, 16, 4, 6, 6], 16usize);
        let g = Geom3 {
            cg: 16,
            input: [4, 6, 6],
            kernel: [3, 3, 3],
            out: [4, 6, 6],
            s: [1; 3],
            p: [1; 3],
            d: [1; 3],
        };
        assert!(takes::<f32>(&g, o, 1) && !takes::<half::f16>(&g, o, 1));
        let x = Tensor::<f64, _>::from_shape_fn(xs, |i| {
            ((i[1] * 5 + i[2] * 3 + i[3] * 7 + i[4]) % 11) as f64 / 4.0 - 1.2
        });
        let w = Tensor::<f64, _>::from_shape_fn([o, 16, 3, 3, 3], |i| {
            ((i[0] + i[1] * 3 + i[2] * 5 + i[3] * 7 + i[4]) % 9) as f64 / 8.0 - 0.5
        });
        let want = reference(&x, &w, None, 1, &g);
        let got = crate::nn::conv3d(
            &x,
            &w,
            None,
            &crate::nn::Conv3dArgs {
                padding: [1; 3],
                ..Default::default()
            },
        )
        .unwrap();
        for (a, e) in got.iter().zip(&want) {
            assert!((a - e).abs() <= 1e-10 * (1.0 + e.abs()), "conv3d: {a} vs {e}");
        }
    }
}
