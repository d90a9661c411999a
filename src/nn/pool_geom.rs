//! The geometry of one pooling call over `N` spatial axes (after validation), shared by
//! the 1-, 2- and 3-D pooling functions, their indices variants and the autograd
//! backward passes: PyTorch's output-size rule and the checks it refuses.

use super::util::check_nonzero;
use crate::error::{Error, Result, fmt_shape};

/// Input and output lengths, kernel, stride, padding and dilation per spatial axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PoolGeom<const N: usize = 2> {
    pub input: [usize; N],
    pub out: [usize; N],
    pub k: [usize; N],
    pub s: [usize; N],
    pub p: [usize; N],
    pub d: [usize; N],
}

/// The window of one pooling call as given by the user (`N` spatial axes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window<const N: usize> {
    pub k: [usize; N],
    pub s: [usize; N],
    pub p: [usize; N],
    pub d: [usize; N],
    pub ceil: bool,
}

/// PyTorch's pooling output length: `⌊(L + 2p − d(k−1) − 1) / s⌋ + 1` (or `⌈…⌉` in ceil
/// mode, then one less if the last window would start past the input and the left
/// padding). `None` when the dilated kernel is larger than the padded input.
pub(crate) fn pool_len(len: usize, k: usize, s: usize, p: usize, d: usize, ceil: bool) -> Option<usize> {
    let span = d * (k - 1) + 1;
    let padded = len + 2 * p;
    if span > padded {
        return None;
    }
    let num = padded - span;
    let mut out = if ceil { num.div_ceil(s) } else { num / s } + 1;
    if ceil && (out - 1) * s >= len + p {
        out -= 1;
    }
    Some(out)
}

impl<const N: usize> PoolGeom<N> {
    /// Checks an `(N, C, spatial…)` shape (rank `N + 2`) and the window as PyTorch does
    /// (nonzero kernel, stride and dilation; padding at most half the kernel; a kernel
    /// no larger than the padded input); returns `(batch·channels, geometry)`.
    pub fn check(op: &'static str, shape: &[usize], w: &Window<N>) -> Result<(usize, Self)> {
        if shape.len() != N + 2 {
            let names = ["(N, C, L)", "(N, C, H, W)", "(N, C, D, H, W)"];
            return Err(Error::shape(
                op,
                format!(
                    "expected a {}-D input {}, got shape {}",
                    N + 2,
                    names.get(N.wrapping_sub(1)).unwrap_or(&""),
                    fmt_shape(shape)
                ),
            ));
        }
        check_nonzero(op, "kernel size", &w.k)?;
        check_nonzero(op, "stride", &w.s)?;
        check_nonzero(op, "dilation", &w.d)?;
        if (0..N).any(|i| w.p[i] > w.k[i] / 2) {
            return Err(Error::value(
                op,
                format!(
                    "padding {:?} must be at most half the kernel size {:?} (input {})",
                    w.p,
                    w.k,
                    fmt_shape(shape)
                ),
            ));
        }
        let mut input = [0; N];
        let mut out = [0; N];
        for i in 0..N {
            input[i] = shape[2 + i];
            out[i] = pool_len(input[i], w.k[i], w.s[i], w.p[i], w.d[i], w.ceil).ok_or_else(|| {
                Error::shape(
                    op,
                    format!(
                        "kernel {:?} with dilation {:?} is larger than the padded input (input {}, padding {:?})",
                        w.k,
                        w.d,
                        fmt_shape(shape),
                        w.p
                    ),
                )
            })?;
        }
        let geom = PoolGeom {
            input,
            out,
            k: w.k,
            s: w.s,
            p: w.p,
            d: w.d,
        };
        Ok((shape[0] * shape[1], geom))
    }

    /// The in-bounds input positions along `axis` of output position `o`'s window, in
    /// window order.
    pub fn taps(&self, axis: usize, o: usize) -> impl Iterator<Item = usize> {
        let (limit, d) = (self.input[axis] as isize, self.d[axis] as isize);
        let start = (o * self.s[axis]) as isize - self.p[axis] as isize;
        (0..self.k[axis] as isize)
            .map(move |i| start + i * d)
            .filter(move |&i| i >= 0 && i < limit)
            .map(|i| i as usize)
    }

    /// Input elements per plane.
    pub fn in_plane(&self) -> usize {
        self.input.iter().product()
    }

    /// Output elements per plane.
    pub fn out_plane(&self) -> usize {
        self.out.iter().product()
    }

    /// The same geometry over `M ≥ N` axes: unit axes (length 1, kernel 1) in front.
    pub fn lift<const M: usize>(&self) -> PoolGeom<M> {
        assert!(M >= N, "pool geometry: cannot lift {N} axes to {M}");
        let lift = |a: &[usize; N], fill: usize| {
            let mut r = [fill; M];
            r[M - N..].copy_from_slice(a);
            r
        };
        PoolGeom {
            input: lift(&self.input, 1),
            out: lift(&self.out, 1),
            k: lift(&self.k, 1),
            s: lift(&self.s, 1),
            p: lift(&self.p, 0),
            d: lift(&self.d, 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_sizes_follow_pytorch() {
        // Floor and ceil, with the rule that drops a window starting in the right padding.
        assert_eq!(pool_len(112, 3, 2, 1, 1, false), Some(56));
        assert_eq!(pool_len(5, 2, 2, 0, 1, false), Some(2));
        assert_eq!(pool_len(5, 2, 2, 0, 1, true), Some(3));
        assert_eq!(pool_len(6, 3, 3, 1, 1, true), Some(3)); // ⌈5/3⌉+1 = 3; start 6 ≥ 6+1? no
        assert_eq!(pool_len(4, 2, 3, 1, 1, true), Some(2)); // ⌈4/3⌉+1 = 3, start 6 ≥ 5: 2
        assert_eq!(pool_len(3, 5, 1, 1, 1, false), Some(1)); // padded 5 = span 5
        assert_eq!(pool_len(2, 7, 1, 1, 1, false), None); // span 7 > padded 4
        assert_eq!(pool_len(7, 3, 1, 0, 3, false), Some(1)); // dilated span 7
    }

    #[test]
    fn taps_skip_padding_and_lift_to_3d() {
        let w = Window {
            k: [3],
            s: [2],
            p: [1],
            d: [2],
            ceil: false,
        };
        let (planes, g) = PoolGeom::<1>::check("t", &[2, 3, 6], &w).unwrap();
        assert_eq!((planes, g.out), (6, [2]));
        assert_eq!(g.taps(0, 0).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(g.taps(0, 1).collect::<Vec<_>>(), vec![1, 3, 5]);
        let g3 = g.lift::<3>();
        assert_eq!((g3.input, g3.k, g3.p), ([1, 1, 6], [1, 1, 3], [0, 0, 1]));
        assert!(PoolGeom::<1>::check("t", &[2, 3, 6, 1], &w).is_err());
        let bad = Window { p: [2], ..w };
        assert!(PoolGeom::<1>::check("t", &[2, 3, 6], &bad).is_err());
    }
}
