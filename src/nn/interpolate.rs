//! `interpolate`: PyTorch's `F.interpolate` for 4-D inputs with mode `nearest`,
//! `bilinear` or `bicubic`, `align_corners`, and `antialias` (PyTorch's separable
//! anti-aliasing filter, for bilinear and bicubic).
//!
//! Bicubic and anti-aliased resizes are separable: each output index along an axis has
//! a short list of input taps and weights (computed once per axis, in `f64`); every
//! plane is filtered along its rows into a scratch `H × OW` plane, then along its
//! columns. Nearest and plain bilinear go to [`super::upsample_nearest2d`] and
//! [`super::upsample_bilinear2d`].

use super::upsample::{Resize, resolve, upsample_bilinear2d, upsample_nearest2d};
use super::util::{contiguous, dims, native_float, owned_dim, par_tasks};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// The interpolation of [`interpolate`] (PyTorch's `mode`).
///
/// ```
/// use ferrotensor::nn::InterpolateMode;
/// assert_ne!(InterpolateMode::Bicubic, InterpolateMode::Bilinear);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterpolateMode {
    /// `mode='nearest'`.
    Nearest,
    /// `mode='bilinear'`.
    Bilinear,
    /// `mode='bicubic'` (Keys' cubic convolution with `A = −0.75`; `A = −0.5` with
    /// antialias, as PyTorch and PIL).
    Bicubic,
}

/// Resizes an `(N, C, H, W)` tensor as PyTorch's `F.interpolate(x, size or
/// scale_factor, mode, align_corners, antialias)`. `size` is an output size `[OH, OW]`
/// or scale factors `[sh, sw]` ([`Resize`]). `align_corners` aligns the corner pixels
/// (bilinear and bicubic only); `antialias` (bilinear and bicubic only) widens the filter
/// by the downscaling factor so that downsampling averages all covered pixels, PyTorch's
/// separable filter (triangle, or cubic with `A = −0.5`, normalised per output). Bicubic
/// without antialias reads the 4×4 neighbourhood with clamped indices (no clipping of
/// the result: it can overshoot the input range, as PyTorch). `Err` for a non-4-D or
/// empty input, an empty output, a non-positive scale, or `align_corners`/`antialias`
/// with `Nearest`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{InterpolateMode, interpolate};
/// let x = Tensor::from_vec(vec![0.0f64, 1.0, 2.0, 3.0], [1, 1, 1, 4])?;
/// let y = interpolate(&x, [1usize, 2], InterpolateMode::Bilinear, false, true)?;
/// // A triangle filter of half-width 2 over the inputs: (0·¾ + 1·¾ + 2·¼) / 1¾.
/// assert!((y[[0, 0, 0, 0]] - 5.0 / 7.0).abs() < 1e-15);
/// let z = interpolate(&x, [1usize, 7], InterpolateMode::Bicubic, true, false)?;
/// assert_eq!(z[[0, 0, 0, 3]], 1.5); // away from the edges a cubic keeps a ramp
/// assert!(interpolate(&x, [1usize, 2], InterpolateMode::Nearest, false, true).is_err());
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn interpolate<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    size: impl Into<Resize>,
    mode: InterpolateMode,
    align_corners: bool,
    antialias: bool,
) -> Result<Tensor<T, D>> {
    const OP: &str = "interpolate";
    let size = size.into();
    let [n, c, h, w] = dims::<4>(x.shape(), OP, "input (N, C, H, W)")?;
    match mode {
        InterpolateMode::Nearest if align_corners || antialias => {
            return Err(Error::value(
                OP,
                format!(
                    "align_corners and antialias need mode bilinear or bicubic, not nearest (input {})",
                    fmt_shape(x.shape())
                ),
            ));
        }
        InterpolateMode::Nearest => return upsample_nearest2d(x, size),
        InterpolateMode::Bilinear if !antialias => return upsample_bilinear2d(x, size, align_corners),
        _ => {}
    }
    let (out, scales) = resolve(size, x.shape(), OP)?;
    let cubic = mode == InterpolateMode::Bicubic;
    let taps = [
        Taps::new(h, out[0], scales[0], align_corners, cubic, antialias),
        Taps::new(w, out[1], scales[1], align_corners, cubic, antialias),
    ];
    let data = contiguous(x);
    let res = native_float(
        &data,
        |xs| separable(xs, n * c, [h, w], out, &taps),
        |xs| separable(xs, n * c, [h, w], out, &taps),
    );
    Ok(owned_dim(res, &[n, c, out[0], out[1]]))
}

/// Input taps of every output index along one axis: `k` (index, weight) pairs each.
struct Taps {
    k: usize,
    /// Taps in use per output (the rest of its `k` slots are padding).
    used: Vec<usize>,
    idx: Vec<usize>,
    w: Vec<f64>,
}

/// PyTorch's `area_pixel_compute_scale`.
fn pixel_scale(inp: usize, out: usize, factor: Option<f64>, align: bool) -> f64 {
    if align {
        if out > 1 {
            (inp - 1) as f64 / (out - 1) as f64
        } else {
            0.0
        }
    } else {
        factor.map_or(inp as f64 / out as f64, |f| 1.0 / f)
    }
}

/// Keys' cubic convolution kernel with parameter `a` at distance `x`.
fn cubic_kernel(x: f64, a: f64) -> f64 {
    let x = x.abs();
    if x < 1.0 {
        ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    } else if x < 2.0 {
        (((x - 5.0) * x + 8.0) * x - 4.0) * a
    } else {
        0.0
    }
}

impl Taps {
    fn new(inp: usize, out: usize, factor: Option<f64>, align: bool, cubic: bool, antialias: bool) -> Self {
        let scale = pixel_scale(inp, out, factor, align);
        if antialias {
            Self::antialiased(inp, out, scale, cubic)
        } else {
            Self::bicubic(inp, out, scale, align)
        }
    }

    /// PyTorch's `upsample_bicubic2d`: 4 taps around `floor(src)`, clamped to the input.
    fn bicubic(inp: usize, out: usize, scale: f64, align: bool) -> Self {
        const A: f64 = -0.75;
        let (mut idx, mut w) = (Vec::with_capacity(4 * out), Vec::with_capacity(4 * out));
        for i in 0..out {
            let src = if align {
                scale * i as f64
            } else {
                scale * (i as f64 + 0.5) - 0.5
            };
            let f = src.floor();
            let t = src - f;
            for j in 0..4 {
                let at = (f as isize - 1 + j as isize).clamp(0, inp as isize - 1);
                idx.push(at as usize);
                w.push(cubic_kernel(t + 1.0 - j as f64, A));
            }
        }
        Taps {
            k: 4,
            used: vec![4; out],
            idx,
            w,
        }
    }

    /// PyTorch's anti-aliased weights (`_compute_index_ranges_weights`): the filter
    /// (triangle or cubic `A = −0.5`) stretched by the scale when downsampling,
    /// centred at `scale·(i + ½)`, normalised to sum 1.
    fn antialiased(inp: usize, out: usize, scale: f64, cubic: bool) -> Self {
        let size = if cubic { 4.0 } else { 2.0 };
        let (support, inv) = if scale >= 1.0 {
            (size * 0.5 * scale, 1.0 / scale)
        } else {
            (size * 0.5, 1.0)
        };
        let filter = |x: f64| {
            if cubic {
                cubic_kernel(x, -0.5)
            } else {
                (1.0 - x.abs()).max(0.0)
            }
        };
        let ranges: Vec<(usize, usize)> = (0..out)
            .map(|i| {
                let center = scale * (i as f64 + 0.5);
                let lo = ((center - support + 0.5) as isize).max(0) as usize;
                let hi = ((center + support + 0.5) as isize).clamp(0, inp as isize) as usize;
                (lo, hi.max(lo))
            })
            .collect();
        let k = ranges.iter().map(|(lo, hi)| hi - lo).max().unwrap_or(0).max(1);
        let (mut idx, mut w) = (vec![0; k * out], vec![0.0; k * out]);
        for (i, &(lo, hi)) in ranges.iter().enumerate() {
            let center = scale * (i as f64 + 0.5);
            let ws: Vec<f64> = (lo..hi).map(|j| filter((j as f64 - center + 0.5) * inv)).collect();
            let total: f64 = ws.iter().sum();
            for (t, (j, wj)) in (lo..hi).zip(ws).enumerate() {
                idx[i * k + t] = j;
                w[i * k + t] = if total != 0.0 { wj / total } else { wj };
            }
        }
        let used = ranges.iter().map(|(lo, hi)| hi - lo).collect();
        Taps { k, used, idx, w }
    }

    fn cast<E: Float>(&self) -> Vec<E> {
        self.w.iter().map(|&w| E::from_f64(w)).collect()
    }
}

/// Filters `planes` planes `[h, w]` along rows, then columns, into `[oh, ow]`.
fn separable<E: Float>(x: &[E], planes: usize, [h, w]: [usize; 2], [oh, ow]: [usize; 2], taps: &[Taps; 2]) -> Vec<E> {
    let mut out = vec![E::zero(); planes * oh * ow];
    let (tr, tc) = (&taps[0], &taps[1]);
    let (wr, wc) = (tr.cast::<E>(), tc.cast::<E>());
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        planes,
        || vec![E::zero(); h * ow],
        |tmp, p| {
            let xp = &x[p * h * w..(p + 1) * h * w];
            for (trow, xrow) in tmp.chunks_exact_mut(ow).zip(xp.chunks_exact(w)) {
                for (j, t) in trow.iter_mut().enumerate() {
                    let r = j * tc.k..j * tc.k + tc.used[j];
                    let (ix, iw) = (&tc.idx[r.clone()], &wc[r]);
                    *t = ix.iter().zip(iw).fold(E::zero(), |acc, (&i, &wt)| acc + wt * xrow[i]);
                }
            }
            // SAFETY: plane `p` of `out`, written only by this task.
            let op = unsafe { std::slice::from_raw_parts_mut(optr.get().add(p * oh * ow), oh * ow) };
            for (i, orow) in op.chunks_exact_mut(ow).enumerate() {
                for t in 0..tr.used[i] {
                    let (r, wt) = (tr.idx[i * tr.k + t], wr[i * tr.k + t]);
                    for (o, &v) in orow.iter_mut().zip(&tmp[r * ow..(r + 1) * ow]) {
                        *o = *o + wt * v;
                    }
                }
            }
        },
    );
    out
}

#[cfg(test)]
mod tests {
    use crate::nn::{InterpolateMode, interpolate};
    use crate::prelude::*;

    /// The separable kernel on a few planes (small enough for Miri): the same size is
    /// the identity, nearest ×2 repeats pixels, a bilinear ×2 with aligned corners
    /// lands on the inputs and between them on their means, antialiased shrinking of
    /// a constant stays constant, and f32 agrees with f64.
    #[test]
    fn resizes_keep_their_defining_properties() {
        let (n, c, h, w) = (2, 3, 3, 4);
        let x = Tensor::<f64, _>::from_shape_fn([n, c, h, w], |i| {
            ((i[0] * 31 + i[1] * 7 + i[2] * 5 + i[3] * 3) % 11) as f64
        });
        for mode in [
            InterpolateMode::Nearest,
            InterpolateMode::Bilinear,
            InterpolateMode::Bicubic,
        ] {
            let same = interpolate(&x, [h, w], mode, false, false).unwrap();
            assert_eq!(same.to_vec(), x.to_vec(), "{mode:?}");
        }
        let near = interpolate(&x, [2 * h, 2 * w], InterpolateMode::Nearest, false, false).unwrap();
        assert_eq!(near[[1, 2, 5, 7]], x[[1, 2, 2, 3]]);
        assert_eq!(near[[0, 1, 2, 3]], x[[0, 1, 1, 1]]);
        let bil = interpolate(&x, [2 * h - 1, 2 * w - 1], InterpolateMode::Bilinear, true, false).unwrap();
        assert!((bil[[1, 0, 2, 4]] - x[[1, 0, 1, 2]]).abs() < 1e-12);
        let mid = (x[[0, 2, 0, 1]] + x[[0, 2, 0, 2]]) / 2.0;
        assert!((bil[[0, 2, 0, 3]] - mid).abs() < 1e-12);
        let ones = Tensor::<f64, _>::ones([1, 2, 7, 9]);
        for mode in [InterpolateMode::Bilinear, InterpolateMode::Bicubic] {
            let small = interpolate(&ones, [3, 4], mode, false, true).unwrap();
            assert!(small.iter().all(|v| (v - 1.0).abs() < 1e-12), "{mode:?}");
        }
        let b64 = interpolate(&x, [5, 7], InterpolateMode::Bicubic, false, false).unwrap();
        let b32 = interpolate(&x.mapv(|v| v as f32), [5, 7], InterpolateMode::Bicubic, false, false).unwrap();
        for (a, b) in b32.iter().zip(b64.iter()) {
            assert!((f64::from(*a) - b).abs() < 1e-4, "{a} vs {b}");
        }
    }
}
