//! `grid_sample` (2-D, bilinear or nearest, zeros/border/reflection padding) and
//! `affine_grid` (2-D and 3-D), PyTorch semantics.

use super::util::{contiguous, dims, native_float, owned_dim, par_tasks};
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// How [`grid_sample`] reads between pixels (PyTorch's `mode`).
///
/// ```
/// assert_ne!(ferrotensor::nn::GridSampleMode::Bilinear, ferrotensor::nn::GridSampleMode::Nearest);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridSampleMode {
    /// Weighted mean of the 4 surrounding pixels.
    Bilinear,
    /// The nearest pixel (ties to even, as `nearbyint`).
    Nearest,
}

/// What [`grid_sample`] reads outside the input (PyTorch's `padding_mode`).
///
/// ```
/// let p = ferrotensor::nn::GridPadding::Border;
/// assert_eq!(format!("{p:?}"), "Border");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridPadding {
    /// Zeros outside.
    Zeros,
    /// Coordinates clamped to the edge pixels.
    Border,
    /// Coordinates reflected at the border (then clamped).
    Reflection,
}

/// Samples `(N, C, H, W)` at the normalised locations of `grid (N, Ho, Wo, 2)` (PyTorch's
/// `grid_sample`): `grid[n, i, j] = (x, y)` in `[−1, 1]` from left/top to right/bottom,
/// −1 and 1 naming the centres of the corner pixels with `align_corners`, else their
/// outer edges. The result is `(N, C, Ho, Wo)` of the input's rank type. A NaN
/// coordinate reads as outside the input. `Err` unless input and grid are 4-D with the
/// same `N` and a last grid axis of 2.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::{GridPadding, GridSampleMode, grid_sample};
/// let x = Tensor::from_vec(vec![0.0f32, 1.0, 2.0, 3.0], [1, 1, 2, 2])?;
/// let g = Tensor::from_vec(vec![0.0f32, 0.0, -1.0, -1.0], [1, 1, 2, 2])?;
/// let y = grid_sample(&x, &g, GridSampleMode::Bilinear, GridPadding::Zeros, true)?;
/// assert_eq!(y.to_vec(), vec![1.5, 0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn grid_sample<T: Float, S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    input: &TensorBase<S, D>,
    grid: &TensorBase<S2, D2>,
    mode: GridSampleMode,
    padding_mode: GridPadding,
    align_corners: bool,
) -> Result<Tensor<T, D>> {
    const OP: &str = "grid_sample";
    let [n, c, h, w] = dims::<4>(input.shape(), OP, "input (N, C, H, W)")?;
    let [gn, ho, wo, two] = dims::<4>(grid.shape(), OP, "grid (N, Ho, Wo, 2)")?;
    if gn != n || two != 2 {
        return Err(Error::shape(
            OP,
            format!(
                "grid {} must be (N, Ho, Wo, 2) with the input's N (input {})",
                fmt_shape(grid.shape()),
                fmt_shape(input.shape())
            ),
        ));
    }
    let (xd, gd) = (contiguous(input), contiguous(grid));
    let g64: Vec<f64> = gd.iter().map(|v| Float::to_f64(*v)).collect();
    let job = Sampler {
        n,
        c,
        h,
        w,
        ho,
        wo,
        mode,
        padding_mode,
        align_corners,
    };
    let out = native_float(&xd, |xs| job.run(xs, &g64), |xs| job.run(xs, &g64));
    Ok(owned_dim(out, &[n, c, ho, wo]))
}

/// Up to 4 (flat index, weight) reads of one output pixel, and how many are used.
type Reads<E> = ([(usize, E); 4], usize);

struct Sampler {
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    ho: usize,
    wo: usize,
    mode: GridSampleMode,
    padding_mode: GridPadding,
    align_corners: bool,
}

/// PyTorch's `reflect_coordinates`: reflects `x` into `[lo2/2, hi2/2]`.
fn reflect(x: f64, lo2: f64, hi2: f64) -> f64 {
    if lo2 == hi2 {
        return 0.0;
    }
    let (min, span) = (lo2 / 2.0, (hi2 - lo2) / 2.0);
    let x = (x - min).abs();
    let extra = x % span;
    let flips = (x / span).floor();
    if flips % 2.0 == 0.0 {
        extra + min
    } else {
        span - extra + min
    }
}

impl Sampler {
    /// The source coordinate along an axis of `size` pixels for normalised `g`.
    fn source(&self, g: f64, size: usize) -> f64 {
        let s = size as f64;
        let x = if self.align_corners {
            (g + 1.0) / 2.0 * (s - 1.0)
        } else {
            ((g + 1.0) * s - 1.0) / 2.0
        };
        let clip = |x: f64| x.clamp(0.0, s - 1.0);
        match self.padding_mode {
            GridPadding::Zeros => x,
            GridPadding::Border => clip(x),
            GridPadding::Reflection => {
                let r = if self.align_corners {
                    reflect(x, 0.0, 2.0 * (s - 1.0))
                } else {
                    reflect(x, -1.0, 2.0 * s - 1.0)
                };
                clip(r)
            }
        }
    }

    fn run<E: Float>(&self, x: &[E], grid: &[f64]) -> Vec<E> {
        let (c, h, w, ho, wo) = (self.c, self.h, self.w, self.ho, self.wo);
        let mut out = vec![E::zero(); self.n * c * ho * wo];
        if out.is_empty() {
            return out;
        }
        let optr = SendPtr(out.as_mut_ptr());
        par_tasks(
            self.n * ho,
            || Vec::with_capacity(4 * wo),
            |taps: &mut Vec<Reads<E>>, t| {
                let (b, i) = (t / ho, t % ho);
                taps.clear();
                for j in 0..wo {
                    let g = &grid[((b * ho + i) * wo + j) * 2..][..2];
                    taps.push(self.taps(self.source(g[0], w), self.source(g[1], h)));
                }
                for ch in 0..c {
                    let plane = &x[(b * c + ch) * h * w..(b * c + ch + 1) * h * w];
                    // SAFETY: row `i` of plane (b, ch) of `out`; task `t` = (b, i) is the
                    // only writer of row i of every channel of sample b.
                    let orow =
                        unsafe { std::slice::from_raw_parts_mut(optr.get().add(((b * c + ch) * ho + i) * wo), wo) };
                    for (o, tp) in orow.iter_mut().zip(taps.iter()) {
                        *o = tp.0[..tp.1]
                            .iter()
                            .fold(E::zero(), |acc, &(at, wt)| acc + wt * plane[at]);
                    }
                }
            },
        );
        out
    }

    /// The in-range (flat index, weight) reads for source coordinate `(ix, iy)`.
    fn taps<E: Float>(&self, ix: f64, iy: f64) -> Reads<E> {
        let (h, w) = (self.h as f64, self.w as f64);
        let mut t = ([(0usize, E::zero()); 4], 0);
        let inside = |x: f64, y: f64| x >= 0.0 && x < w && y >= 0.0 && y < h;
        let at = |x: f64, y: f64| y as usize * self.w + x as usize;
        match self.mode {
            GridSampleMode::Nearest => {
                let (x, y) = (ix.round_ties_even(), iy.round_ties_even());
                if inside(x, y) {
                    t = ([(at(x, y), E::one()); 4], 1);
                }
            }
            GridSampleMode::Bilinear => {
                let (x0, y0) = (ix.floor(), iy.floor());
                let (fx, fy) = (ix - x0, iy - y0);
                let corners = [
                    (x0, y0, (1.0 - fx) * (1.0 - fy)),
                    (x0 + 1.0, y0, fx * (1.0 - fy)),
                    (x0, y0 + 1.0, (1.0 - fx) * fy),
                    (x0 + 1.0, y0 + 1.0, fx * fy),
                ];
                for &(x, y, wt) in &corners {
                    if inside(x, y) {
                        t.0[t.1] = (at(x, y), E::from_f64(wt));
                        t.1 += 1;
                    }
                }
            }
        }
        t
    }
}

/// A sampling grid for [`grid_sample`] from affine matrices (PyTorch's `affine_grid`):
/// `theta (N, 2, 3)` with `size = [N, C, H, W]` gives `(N, H, W, 2)`, and
/// `theta (N, 3, 4)` with `size = [N, C, D, H, W]` gives `(N, D, H, W, 3)`; entry
/// `(x, y[, z]) = theta · (x₀, y₀[, z₀], 1)` for the normalised base coordinates
/// (`linspace(−1, 1)` over each axis, scaled by `(n−1)/n` without `align_corners`; 0 for
/// an axis of length 1). `Err` for other sizes or a theta of the wrong shape.
///
/// ```
/// use ferrotensor::prelude::*;
/// let theta = Tensor::from_vec(vec![1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0], [1, 2, 3])?;
/// let g = ferrotensor::nn::affine_grid(&theta, &[1, 1, 1, 2], true)?;
/// assert_eq!(g.shape(), &[1, 1, 2, 2]);
/// assert_eq!(g.to_vec(), vec![-1.0, 0.0, 1.0, 0.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn affine_grid<T: Float, S: Storage<Elem = T>, D: Dimension>(
    theta: &TensorBase<S, D>,
    size: &[usize],
    align_corners: bool,
) -> Result<Tensor<T, IxDyn>> {
    const OP: &str = "affine_grid";
    let k = size.len().saturating_sub(2);
    let bad = || {
        Error::shape(
            OP,
            format!(
                "expected theta (N, 2, 3) with size [N, C, H, W] or theta (N, 3, 4) with size [N, C, D, H, W], got theta {} and size {}",
                fmt_shape(theta.shape()),
                fmt_shape(size)
            ),
        )
    };
    if !(k == 2 || k == 3) || theta.shape() != [size[0], k, k + 1] {
        return Err(bad());
    }
    // Spatial axes innermost-first: x runs along the last axis.
    let spatial: Vec<usize> = size[2..].to_vec();
    let base = |len: usize| -> Vec<f64> {
        if len <= 1 {
            return vec![0.0; len];
        }
        let f = if align_corners {
            1.0
        } else {
            (len - 1) as f64 / len as f64
        };
        (0..len)
            .map(|i| (-1.0 + 2.0 * i as f64 / (len - 1) as f64) * f)
            .collect()
    };
    let axes: Vec<Vec<f64>> = spatial.iter().rev().map(|&l| base(l)).collect();
    let th: Vec<f64> = theta.iter().map(|v| Float::to_f64(*v)).collect();
    let points: usize = spatial.iter().product();
    let mut out = Vec::with_capacity(size[0] * points * k);
    for b in 0..size[0] {
        let m = &th[b * k * (k + 1)..(b + 1) * k * (k + 1)];
        for p in 0..points {
            // Unravel p (row-major over spatial) into coordinates x (last axis) first.
            let mut rest = p;
            let mut coord = [0.0f64; 3];
            for (a, ax) in axes.iter().enumerate() {
                let len = spatial[k - 1 - a];
                coord[a] = ax[rest % len];
                rest /= len;
            }
            for r in 0..k {
                let row = &m[r * (k + 1)..(r + 1) * (k + 1)];
                let v = (0..k).map(|j| row[j] * coord[j]).sum::<f64>() + row[k];
                out.push(T::from_f64(v));
            }
        }
    }
    let mut shape = vec![size[0]];
    shape.extend(&spatial);
    shape.push(k);
    Ok(owned_dim(out, &shape))
}

#[cfg(test)]
mod tests {
    use crate::nn::{GridPadding, GridSampleMode, affine_grid, grid_sample};
    use crate::prelude::*;

    /// The identity grid reproduces the input (bilinear and nearest, with and without
    /// aligned corners), a grid shifted by one pixel reads the neighbour or the
    /// padding, and a NaN coordinate reads as outside; small enough for Miri.
    #[test]
    fn identity_and_shifted_grids_read_the_expected_pixels() {
        let (n, c, h, w) = (2, 3, 4, 5);
        let x = Tensor::<f64, _>::from_shape_fn([n, c, h, w], |i| (i[0] * 100 + i[1] * 20 + i[2] * 5 + i[3]) as f64);
        let theta = Tensor::from_vec([1.0, 0.0, 0.0, 0.0, 1.0, 0.0].repeat(n), [n, 2, 3]).unwrap();
        for align in [false, true] {
            let g = affine_grid(&theta, &[n, c, h, w], align).unwrap();
            for mode in [GridSampleMode::Bilinear, GridSampleMode::Nearest] {
                let y = grid_sample(&x, &g, mode, GridPadding::Zeros, align).unwrap();
                for (a, b) in y.iter().zip(x.iter()) {
                    assert!((a - b).abs() < 1e-9, "{mode:?} align {align}: {a} vs {b}");
                }
            }
        }
        // Shift right by one pixel (2/(w−1) with aligned corners): column j reads j+1,
        // the last column reads zeros, or the edge with border padding.
        let dx = 2.0 / (w - 1) as f64;
        let shifted = Tensor::from_vec([1.0, 0.0, dx, 0.0, 1.0, 0.0].repeat(n), [n, 2, 3]).unwrap();
        let g = affine_grid(&shifted, &[n, c, h, w], true).unwrap();
        let z = grid_sample(&x, &g, GridSampleMode::Bilinear, GridPadding::Zeros, true).unwrap();
        let b = grid_sample(&x, &g, GridSampleMode::Bilinear, GridPadding::Border, true).unwrap();
        assert!((z[[1, 2, 3, 1]] - x[[1, 2, 3, 2]]).abs() < 1e-9);
        assert!(z[[1, 2, 3, 4]].abs() < 1e-9);
        assert!((b[[1, 2, 3, 4]] - x[[1, 2, 3, 4]]).abs() < 1e-9);
        let nan = Tensor::from_vec(vec![f64::NAN, 0.0], [1, 1, 1, 2]).unwrap();
        let y = grid_sample(
            &x.slice(s![0..1, .., .., ..]),
            &nan,
            GridSampleMode::Bilinear,
            GridPadding::Zeros,
            true,
        );
        assert!(y.unwrap().iter().all(|&v| v == 0.0));
    }
}
