//! The input positions each output of a pooling reads, per axis ([`Taps`]: a window's
//! in-bounds taps, or an adaptive band), for the kernel of [`super::pool_rows`] behind
//! every pooling with returned indices, the adaptive 1-/3-D average and every adaptive
//! max pooling. Geometries of fewer axes are lifted to 3 with unit axes in front.
//! The scalar window kernels here (tests only) are the definition the vectorised
//! kernels are tested against.

use super::pool_geom::PoolGeom;
#[cfg(test)]
use super::util::{from_f32, is_native, par_tasks, to_f32};
#[cfg(test)]
use crate::element::Float;
#[cfg(test)]
use crate::iter::SendPtr;

/// For each of 3 axes and each output position along it: the input positions it reads,
/// and the factor of the average's divisor along that axis.
pub(crate) struct Taps {
    pub(super) input: [usize; 3],
    pub(super) taps: [Vec<Vec<usize>>; 3],
    counts: [Vec<usize>; 3],
}

impl Taps {
    /// The windows of a pooling geometry; `include_pad` counts the padding (clipped to
    /// `−p .. len + p`, as PyTorch) in the average's divisor.
    pub fn window(g: &PoolGeom<3>, include_pad: bool) -> Self {
        let taps: [Vec<Vec<usize>>; 3] =
            std::array::from_fn(|a| (0..g.out[a]).map(|o| g.taps(a, o).collect()).collect());
        let counts = std::array::from_fn(|a| {
            (0..g.out[a])
                .map(|o| {
                    if include_pad {
                        let start = (o * g.s[a]) as isize - g.p[a] as isize;
                        let end = (start + g.k[a] as isize).min((g.input[a] + g.p[a]) as isize);
                        (end - start) as usize
                    } else {
                        taps[a][o].len()
                    }
                })
                .collect()
        });
        Taps {
            input: g.input,
            taps,
            counts,
        }
    }

    /// PyTorch's adaptive bands: output `i` of `o` reads `⌊i·L/o⌋ .. ⌈(i+1)·L/o⌉`.
    pub fn adaptive(input: [usize; 3], out: [usize; 3]) -> Self {
        let taps: [Vec<Vec<usize>>; 3] = std::array::from_fn(|a| {
            (0..out[a])
                .map(|i| (i * input[a] / out[a]..((i + 1) * input[a]).div_ceil(out[a])).collect())
                .collect()
        });
        let counts = std::array::from_fn(|a| taps[a].iter().map(Vec::len).collect());
        Taps { input, taps, counts }
    }

    /// Output lengths per axis.
    pub(super) fn out(&self) -> [usize; 3] {
        std::array::from_fn(|a| self.taps[a].len())
    }

    /// The most input rows `(d, h)` one window reads.
    pub(super) fn max_rows(&self) -> usize {
        let most = |a: usize| self.taps[a].iter().map(Vec::len).max().unwrap_or(0);
        most(0) * most(1)
    }

    #[cfg(test)]
    fn in_plane(&self) -> usize {
        self.input.iter().product()
    }

    #[cfg(test)]
    fn out_plane(&self) -> usize {
        self.taps.iter().map(Vec::len).product()
    }

    /// Calls `f(output index, window)` for every output of a plane; the window lists the
    /// flat input positions `(d·H + h)·W + w` in window order.
    #[cfg(test)]
    fn for_each_window(&self, mut f: impl FnMut(usize, &[usize])) {
        let [_, h, w] = self.input;
        let mut window = Vec::new();
        let mut at = 0;
        for td in &self.taps[0] {
            for th in &self.taps[1] {
                for tw in &self.taps[2] {
                    window.clear();
                    for &d in td {
                        for &r in th {
                            window.extend(tw.iter().map(|&c| (d * h + r) * w + c));
                        }
                    }
                    f(at, &window);
                    at += 1;
                }
            }
        }
    }

    /// The divisor of output `at` (row-major over the 3 axes).
    pub(super) fn count(&self, at: usize) -> usize {
        let (oh, ow) = (self.taps[1].len(), self.taps[2].len());
        self.counts[0][at / (oh * ow)] * self.counts[1][at / ow % oh] * self.counts[2][at % ow]
    }
}

/// Runs `f(plane input, plane output)` over `planes` planes in parallel.
#[cfg(test)]
fn per_plane<T: Copy + Send + Sync, U: Copy + Send>(
    x: &[T],
    planes: usize,
    (in_plane, out_plane): (usize, usize),
    fill: U,
    f: impl Fn(&[T], &mut [U]) + Sync,
) -> Vec<U> {
    let mut out = vec![fill; planes * out_plane];
    if out.is_empty() {
        return out;
    }
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        planes,
        || (),
        |_, pl| {
            // SAFETY: plane `pl` of `out`, written only by this task.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().add(pl * out_plane), out_plane) };
            f(&x[pl * in_plane..][..in_plane], o);
        },
    );
    out
}

/// The maximum of every window and its flat position in the input plane (PyTorch's
/// rule: the first maximum in window order; a NaN replaces the maximum, so the last
/// NaN wins). Scalar, one window at a time: the definition for the tests.
#[cfg(test)]
pub(crate) fn max_with_indices_scalar<T: Float>(x: &[T], planes: usize, t: &Taps) -> (Vec<T>, Vec<i64>) {
    let sizes = (t.in_plane(), t.out_plane());
    let both = per_plane(x, planes, sizes, (T::zero(), 0i64), |xp, o| {
        t.for_each_window(|at, win| {
            let (mut best, mut idx) = (T::neg_infinity(), win.first().copied().unwrap_or(0));
            for &i in win {
                let v = xp[i];
                if v > best || v.is_nan() {
                    best = v;
                    idx = i;
                }
            }
            o[at] = (best, idx as i64);
        })
    });
    both.into_iter().unzip()
}

/// The mean of every window: its sum divided by `divisor` if given, else by the window's
/// count. `f16`/`bf16` sum in `f32`. Scalar: the definition for the tests.
#[cfg(test)]
pub(crate) fn average_scalar<T: Float>(x: &[T], planes: usize, t: &Taps, divisor: Option<usize>) -> Vec<T> {
    if !is_native::<T>() {
        return from_f32(&average_scalar(&to_f32(x), planes, t, divisor));
    }
    let sizes = (t.in_plane(), t.out_plane());
    per_plane(x, planes, sizes, T::zero(), |xp, o| {
        t.for_each_window(|at, win| {
            let sum = win.iter().fold(T::zero(), |a, &i| a + xp[i]);
            o[at] = sum / T::from_usize(divisor.unwrap_or_else(|| t.count(at)));
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_bands_reduce_their_taps() {
        // One 1×2×5 plane: 2-D window 2×2 stride 2 (floor), and adaptive bands.
        let x: Vec<f64> = (0..10).map(f64::from).collect();
        let g = PoolGeom::<3> {
            input: [1, 2, 5],
            out: [1, 1, 2],
            k: [1, 2, 2],
            s: [1, 2, 2],
            p: [0, 0, 0],
            d: [1, 1, 1],
        };
        let (v, i) = max_with_indices_scalar(&x, 1, &Taps::window(&g, true));
        assert_eq!((v, i), (vec![6.0, 8.0], vec![6, 8]));
        assert_eq!(average_scalar(&x, 1, &Taps::window(&g, true), None), vec![3.0, 5.0]);
        let a = Taps::adaptive([1, 1, 5], [1, 1, 3]);
        assert_eq!(average_scalar(&x[..5], 1, &a, None), vec![0.5, 2.0, 3.5]);
        let mut y = x.clone();
        y[1] = f64::NAN;
        let (v, i) = max_with_indices_scalar(&y[..5], 1, &a);
        assert!(v[0].is_nan() && i[0] == 1 && v[1].is_nan() && i[1] == 1);
    }
}
