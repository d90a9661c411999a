//! The phase-split input layout of the direct convolution: every kernel tap becomes one
//! contiguous run of memory, so the micro-kernel reads its GEMM right-hand side straight
//! from the (copied, padded) input instead of an im2col matrix `kH·kW` times larger.
//!
//! The padded input of one channel is split into `s₀·s₁` phase planes by (row mod s₀,
//! column mod s₁) (for stride 1 that is the padded channel itself). Output position
//! `(oh, ow)` and tap `(ki, kj)` read padded pixel `(oh·s₀ + ki·d₀, ow·s₁ + kj·d₁)`, which
//! is phase `((ki·d₀) mod s₀, (kj·d₁) mod s₁)` at row `oh + ki·d₀/s₀`, column
//! `ow + kj·d₁/s₁`. With every plane row `wv = OW + (kW−1)·d₁/s₁` wide, the output
//! positions numbered `p = oh·wv + ow` ("virtual" positions, `ow < wv`) read tap `k` at
//! `offset[k] + p`: one offset per tap and consecutive positions at consecutive
//! addresses. The `wv − OW` virtual columns per row are computed and thrown away.

use super::conv_block::Offsets;
use super::im2col::Geom;
use super::util::valid_range;

/// Lanes per store piece (one AVX-512 `f32` vector).
pub(crate) const LANES: usize = 16;

/// One masked store of a block row: lane `l` (bit `l` of `mask` set) of vector `v` (the
/// block's virtual positions `16v..16v + 16`) goes to element `off + l` of the tile's
/// output rows (`OW` wide).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub v: usize,
    pub off: isize,
    pub mask: u16,
}

/// Appends to `out` the store pieces of a block at virtual positions `p0..p0 + width` of
/// a tile with `virt` virtual positions (`wv` per row, of which the first `ow` are output
/// columns). Every set lane lands inside the tile's `virt / wv · ow` output elements.
pub(crate) fn pieces(p0: usize, width: usize, virt: usize, wv: usize, ow: usize, out: &mut Vec<Piece>) {
    for v in 0..width.div_ceil(LANES) {
        let lanes = LANES.min(width - LANES * v);
        let mut l = 0;
        while l < lanes && p0 + LANES * v + l < virt {
            let p = p0 + LANES * v + l;
            let (row, col) = (p / wv, p % wv);
            // Lanes l..l + run lie in this virtual row (virt is a multiple of wv).
            let run = (wv - col).min(lanes - l);
            if col < ow {
                let n = (ow - col).min(run);
                out.push(Piece {
                    v,
                    off: (row * ow + col) as isize - l as isize,
                    mask: (((1u32 << n) - 1) << l) as u16,
                });
            }
            l += run;
        }
    }
}

/// The phase-split layout of one tile of output rows.
#[derive(Clone, Debug)]
pub(crate) struct Phases {
    /// Virtual row width: `OW` plus the column halo.
    pub wv: usize,
    /// Output rows per tile (the last tile may have fewer).
    pub rows: usize,
    /// Plane rows a full tile needs: `rows` plus the row halo `(kH−1)·d₀/s₀`.
    plane_rows: usize,
    /// The phases `(row mod s₀, column mod s₁)` some tap reads, in plane order (a 1×1
    /// kernel with stride 2 reads one of four; a 3×3 kernel all four).
    phases: Vec<(usize, usize)>,
    /// Offset of each tap `(c, ki, kj)` (im2col row order) inside the tile buffer.
    pub taps: Offsets,
    /// Elements of the tile buffer: the planes plus `slack` readable elements past the
    /// last one (see [`Phases::new`]).
    pub len: usize,
}

impl Phases {
    /// The layout for tiles of `rows` output rows, with the buffer extended so that
    /// reading `slack` elements from `offset[k] + p` for any `p < rows·wv` stays inside.
    pub fn new(g: &Geom, rows: usize, slack: usize) -> Self {
        let [s0, s1] = g.s;
        let [d0, d1] = g.d;
        let col_halo = (g.kw - 1) * d1 / s1;
        let wv = g.ow + col_halo;
        let plane_rows = rows + (g.kh - 1) * d0 / s0;
        let mut phases = Vec::new();
        for ki in 0..g.kh {
            for kj in 0..g.kw {
                let ph = (ki * d0 % s0, kj * d1 % s1);
                if !phases.contains(&ph) {
                    phases.push(ph);
                }
            }
        }
        let plane = plane_rows * wv;
        let mut offsets = Vec::with_capacity(g.k());
        for c in 0..g.cg {
            for ki in 0..g.kh {
                for kj in 0..g.kw {
                    let (ri, ci) = (ki * d0, kj * d1);
                    let ph = phases
                        .iter()
                        .position(|&p| p == (ri % s0, ci % s1))
                        .expect("listed above");
                    let q = c * phases.len() + ph;
                    offsets.push(q * plane + ri / s0 * wv + ci / s1);
                }
            }
        }
        let planes = g.cg * phases.len();
        // The largest read is offsets[k] + rows·wv − 1 + slack − 1 ≤ (planes − 1)·plane +
        // (plane_rows − rows)·wv + col_halo + rows·wv + slack − 2 < planes·plane + col_halo + slack.
        let len = planes * plane + col_halo + slack;
        Phases {
            wv,
            rows,
            plane_rows,
            phases,
            taps: Offsets::new(offsets),
            len,
        }
    }

    /// Elements of one plane row across all planes (the buffer cost of one output row).
    pub fn row_len(&self, cg: usize) -> usize {
        cg * self.phases.len() * self.wv
    }

    /// Fills `buf` (at least [`Phases::len`] long) with the phase planes of the output
    /// rows `oh0..oh0 + rows` of one image's group `x` (`C_g × H × W`, row-major): the
    /// padded input rows they read, split by phase, zeros outside the input. Rows past
    /// `rows + halo` of a short last tile and the slack are left as they are (they only
    /// feed discarded virtual positions).
    pub fn fill(&self, g: &Geom, x: &[f32], oh0: usize, rows: usize, buf: &mut [f32]) {
        let [s0, s1] = g.s;
        let plane = self.plane_rows * self.wv;
        debug_assert!(buf.len() >= self.len && rows <= self.rows);
        let used_rows = rows + self.plane_rows - self.rows;
        let np = self.phases.len();
        for q in 0..g.cg * np {
            let (c, (a, b)) = (q / np, self.phases[q % np]);
            let chan = &x[c * g.h * g.w..(c + 1) * g.h * g.w];
            // Plane column j is padded column j·s₁ + b, input column j·s₁ + b − p₁.
            let (lo, hi) = valid_range(b as isize - g.p[1] as isize, s1, g.w, self.wv);
            for i in 0..used_rows {
                let dst = &mut buf[q * plane + i * self.wv..][..self.wv];
                let ih = ((oh0 + i) * s0 + a) as isize - g.p[0] as isize;
                if ih < 0 || ih >= g.h as isize || lo >= hi {
                    dst.fill(0.0);
                    continue;
                }
                let src = &chan[ih as usize * g.w..][..g.w];
                dst[..lo].fill(0.0);
                dst[hi..].fill(0.0);
                let first = lo * s1 + b - g.p[1];
                if s1 == 1 {
                    dst[lo..hi].copy_from_slice(&src[first..first + hi - lo]);
                } else if s1 == 2 {
                    // Every other element, as pairs (which LLVM vectorises, unlike
                    // `step_by`), the last one alone: the row may end right after it.
                    let (body, last) = dst[lo..hi].split_at_mut(hi - lo - 1);
                    for (t, pair) in body.iter_mut().zip(src[first..].chunks_exact(2)) {
                        *t = pair[0];
                    }
                    last[0] = src[first + 2 * body.len()];
                } else {
                    for (t, v) in dst[lo..hi].iter_mut().zip(src[first..].iter().step_by(s1)) {
                        *t = *v;
                    }
                }
            }
        }
    }
}
