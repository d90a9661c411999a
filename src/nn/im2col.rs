//! im2col: unfolds a tile of output positions of one image and group into the
//! `K × P` matrix (`K = C_g·kH·kW` patch rows, `P` output positions) that one GEMM
//! multiplies by the group's weights.

/// The geometry of one 2-D convolution (after validation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geom {
    /// Input channels per group.
    pub cg: usize,
    /// Input height and width.
    pub h: usize,
    pub w: usize,
    /// Kernel height and width.
    pub kh: usize,
    pub kw: usize,
    /// Output height and width.
    pub oh: usize,
    pub ow: usize,
    /// Stride, padding and dilation as (rows, cols).
    pub s: [usize; 2],
    pub p: [usize; 2],
    pub d: [usize; 2],
}

impl Geom {
    /// Rows of the im2col matrix: `C_g·kH·kW`.
    pub fn k(&self) -> usize {
        self.cg * self.kh * self.kw
    }
    /// Output positions per image: `OH·OW`.
    pub fn positions(&self) -> usize {
        self.oh * self.ow
    }
    /// True when the im2col matrix of a group is the input itself (1×1 kernel, stride
    /// 1, no padding).
    pub fn is_pointwise(&self) -> bool {
        self.kh == 1 && self.kw == 1 && self.s == [1, 1] && self.p == [0, 0]
    }
    /// The output columns `[lo, hi)` whose input column `ow·s − p + kj·d` lies inside
    /// the input, for kernel column `kj`.
    fn valid_cols(&self, kj: usize) -> (usize, usize) {
        let off = (kj * self.d[1]) as isize - self.p[1] as isize;
        super::util::valid_range(off, self.s[1], self.w, self.ow)
    }
}

/// Writes the im2col rows for output positions `p0..p0 + cols_len` of one image's
/// group into `out` (`K × cols_len`, row-major). `x` holds the group's input channels
/// (`C_g × H × W`, row-major). Zero padding fills positions outside the input.
pub(crate) fn im2col_tile<T: Copy + Default>(x: &[T], g: &Geom, p0: usize, cols_len: usize, out: &mut [T]) {
    let k = g.k();
    debug_assert!(out.len() >= k * cols_len && x.len() >= g.cg * g.h * g.w);
    let zero = T::default();
    let (sh, sw) = (g.s[0] as isize, g.s[1]);
    for c in 0..g.cg {
        let plane = &x[c * g.h * g.w..(c + 1) * g.h * g.w];
        for ki in 0..g.kh {
            let ih_off = (ki * g.d[0]) as isize - g.p[0] as isize;
            for kj in 0..g.kw {
                let r = (c * g.kh + ki) * g.kw + kj;
                let row = &mut out[r * cols_len..(r + 1) * cols_len];
                let (lo, hi) = g.valid_cols(kj);
                let iw0 = (kj * g.d[1]) as isize - g.p[1] as isize;
                // Walk the tile in segments of one output row each.
                let mut p = p0;
                let end = p0 + cols_len;
                while p < end {
                    let oh = p / g.ow;
                    let a = p % g.ow;
                    let b = g.ow.min(a + (end - p));
                    let seg = &mut row[p - p0..p - p0 + (b - a)];
                    let ih = oh as isize * sh + ih_off;
                    if ih < 0 || ih >= g.h as isize {
                        seg.fill(zero);
                    } else {
                        let src = &plane[ih as usize * g.w..(ih as usize + 1) * g.w];
                        let (vlo, vhi) = (lo.clamp(a, b), hi.clamp(a, b));
                        seg[..vlo - a].fill(zero);
                        seg[vhi - a..].fill(zero);
                        let dst = &mut seg[vlo - a..vhi - a];
                        if vlo < vhi {
                            let first = (vlo as isize * sw as isize + iw0) as usize;
                            if sw == 1 {
                                dst.copy_from_slice(&src[first..first + dst.len()]);
                            } else {
                                for (t, v) in dst.iter_mut().zip(src[first..].iter().step_by(sw)) {
                                    *t = *v;
                                }
                            }
                        }
                    }
                    p += b - a;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn im2col_matches_definition() {
        // 1 channel 3×4 input, 2×2 kernel, stride (1, 2), padding (1, 1), dilation (1, 1).
        let x: Vec<i32> = (1..=12).collect();
        let g = Geom {
            cg: 1,
            h: 3,
            w: 4,
            kh: 2,
            kw: 2,
            oh: 4,
            ow: 3,
            s: [1, 2],
            p: [1, 1],
            d: [1, 1],
        };
        let n = g.positions();
        let mut out = vec![-1; g.k() * n];
        im2col_tile(&x, &g, 0, n, &mut out);
        for ki in 0..2 {
            for kj in 0..2 {
                for p in 0..n {
                    let (oh, ow) = (p / 3, p % 3);
                    let ih = oh as isize + ki as isize - 1;
                    let iw = (ow * 2) as isize + kj as isize - 1;
                    let want = if (0..3).contains(&ih) && (0..4).contains(&iw) {
                        x[(ih * 4 + iw) as usize]
                    } else {
                        0
                    };
                    assert_eq!(out[(ki * 2 + kj) * n + p], want, "ki {ki} kj {kj} p {p}");
                }
            }
        }
        // A tile in the middle gives the same columns.
        let mut tile = vec![-1; g.k() * 5];
        im2col_tile(&x, &g, 4, 5, &mut tile);
        for r in 0..g.k() {
            assert_eq!(&tile[r * 5..r * 5 + 5], &out[r * n + 4..r * n + 9]);
        }
    }
}
