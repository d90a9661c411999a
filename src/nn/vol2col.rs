//! vol2col: the 3-D im2col. Unfolds a tile of output positions of one image and group
//! into the `K × P` matrix (`K = C_g·kD·kH·kW`, `P` positions) that one GEMM multiplies
//! by the group's weights (the driver is [`super::conv_gemm`]).

use super::conv_gemm::Unfold;
use super::util::valid_range;

/// The geometry of one 3-D convolution (after validation); axes are
/// `[depth, rows, cols]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geom3 {
    /// Input channels per group.
    pub cg: usize,
    pub input: [usize; 3],
    pub kernel: [usize; 3],
    pub out: [usize; 3],
    pub s: [usize; 3],
    pub p: [usize; 3],
    pub d: [usize; 3],
}

impl Unfold for Geom3 {
    fn k(&self) -> usize {
        self.cg * self.kernel.iter().product::<usize>()
    }
    fn positions(&self) -> usize {
        self.out.iter().product()
    }
    fn group_input(&self) -> usize {
        self.cg * self.input.iter().product::<usize>()
    }
    fn is_pointwise(&self) -> bool {
        self.kernel == [1; 3] && self.s == [1; 3] && self.p == [0; 3]
    }
    fn unfold_tile<T: Copy + Default>(&self, x: &[T], p0: usize, len: usize, out: &mut [T]) {
        vol2col_tile(x, self, p0, len, out)
    }
}

/// Writes the vol2col rows for output positions `p0..p0 + len` of one image's group
/// `x` (`C_g × D × H × W`, row-major) into `out` (`K × len`, row-major); zero padding
/// fills positions outside the input.
pub(crate) fn vol2col_tile<T: Copy + Default>(x: &[T], g: &Geom3, p0: usize, len: usize, out: &mut [T]) {
    let [id, ih, iw] = g.input;
    let [kd, kh, kw] = g.kernel;
    let [_, oh, ow] = g.out;
    let plane = id * ih * iw;
    assert!(
        out.len() >= g.k() * len && x.len() >= g.cg * plane,
        "vol2col: tile outside its buffers"
    );
    let zero = T::default();
    // Input coordinate of output `o` and tap `t` along axis `a` (may be outside).
    let at = |a: usize, o: usize, t: usize| (o * g.s[a] + t * g.d[a]) as isize - g.p[a] as isize;
    let mut r = 0;
    for c in 0..g.cg {
        let xc = &x[c * plane..][..plane];
        for td in 0..kd {
            for th in 0..kh {
                for tw in 0..kw {
                    let row = &mut out[r * len..][..len];
                    r += 1;
                    let (lo, hi) = valid_range((tw * g.d[2]) as isize - g.p[2] as isize, g.s[2], iw, ow);
                    // Segments of one output row (fixed depth and row) each.
                    let mut p = p0;
                    while p < p0 + len {
                        let (od, rest) = (p / (oh * ow), p % (oh * ow));
                        let (orow, a) = (rest / ow, rest % ow);
                        let b = ow.min(a + (p0 + len - p));
                        let seg = &mut row[p - p0..][..b - a];
                        let (zd, zh) = (at(0, od, td), at(1, orow, th));
                        if zd < 0 || zd >= id as isize || zh < 0 || zh >= ih as isize {
                            seg.fill(zero);
                        } else {
                            let src = &xc[(zd as usize * ih + zh as usize) * iw..][..iw];
                            let (vlo, vhi) = (lo.clamp(a, b), hi.clamp(a, b));
                            seg[..vlo - a].fill(zero);
                            seg[vhi - a..].fill(zero);
                            if vlo < vhi {
                                let first = at(2, vlo, tw) as usize;
                                let dst = &mut seg[vlo - a..vhi - a];
                                if g.s[2] == 1 {
                                    dst.copy_from_slice(&src[first..first + dst.len()]);
                                } else {
                                    for (t, v) in dst.iter_mut().zip(src[first..].iter().step_by(g.s[2])) {
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
}

/// col2vol, the adjoint of [`vol2col_tile`] over all positions: adds row `r` of `cols`
/// (`K × P`, all `P` output positions) into the input-shaped `out` (`C_g × D × H × W`)
/// at the positions vol2col reads it from; taps in the padding are dropped.
pub(crate) fn col2vol_add<T: Copy + std::ops::Add<Output = T>>(cols: &[T], g: &Geom3, out: &mut [T]) {
    let [id, ih, iw] = g.input;
    let [kd, kh, kw] = g.kernel;
    let [od_n, oh, ow] = g.out;
    let (plane, len) = (id * ih * iw, od_n * oh * ow);
    assert!(
        cols.len() >= g.k() * len && out.len() >= g.cg * plane,
        "col2vol: buffers smaller than the geometry"
    );
    let at = |a: usize, o: usize, t: usize| (o * g.s[a] + t * g.d[a]) as isize - g.p[a] as isize;
    let mut r = 0;
    for c in 0..g.cg {
        let oc = &mut out[c * plane..][..plane];
        for td in 0..kd {
            for th in 0..kh {
                for tw in 0..kw {
                    let row = &cols[r * len..][..len];
                    r += 1;
                    let (lo, hi) = valid_range((tw * g.d[2]) as isize - g.p[2] as isize, g.s[2], iw, ow);
                    if lo >= hi {
                        continue;
                    }
                    for od in 0..od_n {
                        let zd = at(0, od, td);
                        if zd < 0 || zd >= id as isize {
                            continue;
                        }
                        for orow in 0..oh {
                            let zh = at(1, orow, th);
                            if zh < 0 || zh >= ih as isize {
                                continue;
                            }
                            let first = at(2, lo, tw) as usize;
                            let dst = &mut oc[(zd as usize * ih + zh as usize) * iw + first..];
                            let src = &row[(od * oh + orow) * ow + lo..][..hi - lo];
                            for (d, &v) in dst.iter_mut().step_by(g.s[2]).zip(src) {
                                *d = *d + v;
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vol2col_matches_definition() {
        // 2 channels 2×3×4, kernel 2×2×3, stride (1, 2, 1), padding (1, 0, 1), dilation (1, 1, 2).
        let x: Vec<i32> = (1..=48).collect();
        let g = Geom3 {
            cg: 2,
            input: [2, 3, 4],
            kernel: [2, 2, 3],
            out: [3, 1, 2],
            s: [1, 2, 1],
            p: [1, 0, 1],
            d: [1, 1, 2],
        };
        let n = g.positions();
        let mut full = vec![-1; g.k() * n];
        vol2col_tile(&x, &g, 0, n, &mut full);
        let mut r = 0;
        for c in 0..2 {
            for td in 0..2 {
                for th in 0..2 {
                    for tw in 0..3 {
                        for p in 0..n {
                            let (od, oh, ow) = (p / 2, 0, p % 2);
                            let zd = od as isize + td as isize - 1;
                            let zh = (oh * 2 + th) as isize;
                            let zw = ow as isize + 2 * tw as isize - 1;
                            let inside = (0..2).contains(&zd) && (0..3).contains(&zh) && (0..4).contains(&zw);
                            let want = if inside {
                                x[c * 24 + ((zd * 3 + zh) * 4 + zw) as usize]
                            } else {
                                0
                            };
                            assert_eq!(full[r * n + p], want, "row {r} position {p}");
                        }
                        r += 1;
                    }
                }
            }
        }
        // col2vol is vol2col's adjoint: <vol2col(x), y> = <x, col2vol(y)>.
        let y: Vec<i32> = (0..g.k() * n).map(|i| (i as i32 * 7) % 11 - 5).collect();
        let mut back = vec![0; 48];
        col2vol_add(&y, &g, &mut back);
        let lhs: i32 = full.iter().zip(&y).map(|(a, b)| a * b).sum();
        let rhs: i32 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
        assert_eq!(lhs, rhs);
        // A tile in the middle gives the same columns.
        let mut tile = vec![-1; g.k() * 3];
        vol2col_tile(&x, &g, 2, 3, &mut tile);
        for r in 0..g.k() {
            assert_eq!(&tile[r * 3..r * 3 + 3], &full[r * n + 2..r * n + 5]);
        }
    }
}
