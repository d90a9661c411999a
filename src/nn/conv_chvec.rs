//! The channel-vectorised direct `f32` convolution, for small images with deep
//! channels and for strided layers: the weights are packed once as
//! `[O / 16][C_g][kH][kW][16]`, and each tile of the kernels in
//! [`super::conv_chvec_kernel`] holds 16–64 output channels × up to 14 positions of one
//! output row in registers, broadcasting one input value per tap and position. The
//! input is read in place (a zero-padded copy is made once per call when the layer
//! pads). Unlike [`super::conv_direct`], whose vectors run along output positions, no
//! position is computed and discarded: a 7×7 or 14×14 output, or a stride-2 layer,
//! fills the registers as well as a large image does.
//!
//! Each task `(image, group, band of output rows, chunk of output channels)` stores the
//! tiles of its rows into the `(N, O, OH, OW)` output, adding the residual and applying
//! ReLU on the way (other activations in a pass over the band of each of its channels
//! after it, while it is in cache).

use super::conv_block::Level;
use super::conv_chvec_kernel::{
    CB, Finish, Taps, blocks_per_tile, max_width, spans_rows, store_channels, tile, tile_at, two_rows,
};
use super::epilogue::{Activation, Epilogue};
use super::im2col::Geom;
use super::util::par_tasks;
use crate::iter::SendPtr;

/// Bytes of input rows per band of output rows.
pub(super) const BAND_BYTES: usize = 1 << 18;

/// Channel blocks the packed weights are padded to a multiple of (the widest tile), so
/// every tile reads whole blocks.
const BLOCK_PAD: usize = 4;

/// The weights of a convolution packed for the channel-vectorised tiles: per group,
/// `ob` blocks of `k × CB` (tap-major, channels innermost), zero past the group's `og`
/// channels; the bias the same way.
#[derive(Clone, Debug)]
pub(crate) struct ChvecWeights {
    w: Vec<f32>,
    bias: Vec<f32>,
    groups: usize,
    /// Output channels per group, channel blocks per group (padded), taps per channel.
    og: usize,
    ob: usize,
    k: usize,
}

impl ChvecWeights {
    /// Packs `wt` (`(O, C_g, kH, kW)` row-major, `k = C_g·kH·kW`) and the bias.
    pub fn new(wt: &[f32], bias: Option<&[f32]>, o: usize, groups: usize, k: usize) -> Self {
        let og = o / groups;
        let ob = og.div_ceil(CB).div_ceil(BLOCK_PAD) * BLOCK_PAD;
        let mut w = vec![0.0; groups * ob * k * CB];
        let mut b = vec![0.0; groups * ob * CB];
        for oc in 0..o {
            let (gi, c) = (oc / og, oc % og);
            let blk = &mut w[(gi * ob + c / CB) * k * CB..][..k * CB];
            for (tap, &v) in wt[oc * k..][..k].iter().enumerate() {
                blk[tap * CB + c % CB] = v;
            }
            if let Some(bv) = bias {
                b[gi * ob * CB + c] = bv[oc];
            }
        }
        ChvecWeights {
            w,
            bias: b,
            groups,
            og,
            ob,
            k,
        }
    }
}

impl ChvecWeights {
    /// Groups.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// Output channels per group.
    pub fn out_per_group(&self) -> usize {
        self.og
    }
}

/// True when the kernels run a layer with these strides and output channels per group:
/// a column stride of 1 or 2 (the tiles' compiled strides) and at least one whole block
/// of channels per group.
pub(crate) fn fits(stride: [usize; 2], og: usize) -> bool {
    matches!(stride[1], 1 | 2) && og >= CB
}

/// `conv2d` on row-major `f32` buffers (`x` is `(N, C, H, W)`) with the packed weights
/// `w` and the tiles of `level`; returns `(N, O, OH, OW)` after the epilogue.
pub(crate) fn conv2d_chvec(
    x: &[f32],
    w: &ChvecWeights,
    n: usize,
    g: &Geom,
    level: Level,
    epi: &Epilogue<f32>,
) -> Vec<f32> {
    let (groups, og) = (w.groups, w.og);
    let (o, positions) = (og * groups, g.positions());
    if n * o * positions == 0 {
        return Vec::new();
    }
    let padded = pad(x, n * groups * g.cg, g);
    let plan = Plan::new(padded.as_deref().unwrap_or(x), w, g, level);
    let (images, chunks) = (n * groups, plan.chunks());
    // Bands of output rows whose input rows fit BAND_BYTES (they stay in L2 while the
    // band's channel chunks, consecutive tasks, sweep them), split further until there
    // are several tasks per thread.
    let fit = plan.rows_fitting(BAND_BYTES);
    let bands =
        g.oh.div_ceil(fit)
            .max(tasks_wanted().div_ceil(images * chunks))
            .min(g.oh);
    let rows = g.oh.div_ceil(bands);
    let bands = g.oh.div_ceil(rows);
    // The residual and ReLU are applied by the stores, on the tile's registers; other
    // activations in a pass over each task's band after it.
    let in_store = in_store(epi.act);
    if let Some(r) = epi.residual {
        assert!(r.len() >= n * o * positions, "conv2d: residual shorter than the output");
    }
    let finish = |at: usize| {
        if in_store {
            Finish {
                res: epi.residual.map_or(std::ptr::null(), |r| r.as_ptr().wrapping_add(at)),
                relu: epi.act == Activation::Relu,
            }
        } else {
            Finish::NONE
        }
    };
    // Every element is written below (each task stores every position of its rows).
    let mut out = crate::linalg::alloc::output_buffer::<f32>(n * o * positions);
    let out_len = out.capacity();
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        images * chunks * bands,
        || plan.tile_scratch(),
        |tmp, t| {
            let (img, bi, ci) = (t / (chunks * bands), t / chunks % bands, t % chunks);
            let (ni, gi) = (img / groups, img % groups);
            let (r0, r1) = (bi * rows, ((bi + 1) * rows).min(g.oh));
            let (c0, cn) = plan.chunk(ci);
            // This task's outputs: channels gi·og + c0.. of image ni, rows r0..r1.
            let first = (ni * o + gi * og + c0) * positions;
            assert!(
                first + (cn - 1) * positions + r1 * g.ow <= out_len,
                "conv2d: output tile outside buffer"
            );
            let base = first + r0 * g.ow;
            // SAFETY: channels c < cn of this task, rows r0..r1: inside `out` (asserted
            // above) and written by this task only (tasks own disjoint channel chunks ×
            // rows); the residual has the output's length (asserted).
            unsafe {
                plan.rows(tmp, img, ci, r0, r1, optr.get().wrapping_add(base), positions, |q| {
                    finish(base + q)
                })
            };
            if !in_store && !epi.is_identity() {
                for c in 0..cn {
                    let at = first + c * positions + r0 * g.ow;
                    // SAFETY: channel c's rows r0..r1, stored just above by this task only.
                    let span = unsafe { std::slice::from_raw_parts_mut(optr.get().add(at), (r1 - r0) * g.ow) };
                    epi.apply(span, at);
                }
            }
        },
    );
    // SAFETY: the capacity is n·o·positions, and the tasks cover every (image, group,
    // channel chunk, row band), each storing every column of every row of its channels.
    unsafe { out.set_len(n * o * positions) };
    out
}

/// Tasks a parallel call aims at: several per thread, so that a thread that starts
/// late or runs slower takes fewer; one on one thread.
pub(super) fn tasks_wanted() -> usize {
    let threads = crate::threads::num_threads();
    if threads == 1 { 1 } else { 4 * threads }
}

/// True when the stores apply `act` (with the residual) on the tile's registers.
pub(super) fn in_store(act: Activation) -> bool {
    matches!(act, Activation::Identity | Activation::Relu)
}

/// What the tasks of one call share: the tiles' shape on this layer and where they
/// read (the input, padded when the layer pads, and the packed weights).
pub(super) struct Plan<'a> {
    level: Level,
    /// Channel blocks per tile, widest tile, row segments per output row.
    nb: usize,
    pmax: usize,
    segs: usize,
    /// Rows short enough for two-row tiles are taken in pairs (an odd last row alone).
    pair: bool,
    taps: Taps,
    g: Geom,
    /// Input floats per image-group, and between consecutive output rows.
    plane_in: usize,
    rs: usize,
    /// Padded input row length.
    wp: usize,
    xs: &'a [f32],
    w: &'a ChvecWeights,
}

impl<'a> Plan<'a> {
    /// The plan for `xs` (the input, already padded by [`pad`] when the layer pads).
    pub(super) fn new(xs: &'a [f32], w: &'a ChvecWeights, g: &Geom, level: Level) -> Self {
        debug_assert_eq!(w.k, g.k());
        let (hp, wp) = (g.h + 2 * g.p[0], g.w + 2 * g.p[1]);
        let taps = Taps {
            cg: g.cg,
            kh: g.kh,
            kw: g.kw,
            plane: hp * wp,
            drow: g.d[0] * wp,
            dcol: g.d[1],
            wstride: w.k * CB,
        };
        let nb = blocks_per_tile(level, w.og.div_ceil(CB));
        let pmax = max_width(level, nb);
        Plan {
            level,
            nb,
            pmax,
            segs: g.ow.div_ceil(pmax),
            pair: g.ow <= two_rows(level, nb),
            taps,
            g: *g,
            plane_in: g.cg * hp * wp,
            rs: g.s[0] * wp,
            wp,
            xs,
            w,
        }
    }

    /// Chunks of output channels per group (one tile's channels each).
    pub(super) fn chunks(&self) -> usize {
        self.w.og.div_ceil(self.nb * CB)
    }

    /// The first channel (within the group) and the channel count of chunk `ci`.
    pub(super) fn chunk(&self, ci: usize) -> (usize, usize) {
        let c0 = ci * self.nb * CB;
        (c0, (self.nb * CB).min(self.w.og - c0))
    }

    /// Channels a tile holds (the widest chunk).
    pub(super) fn tile_channels(&self) -> usize {
        self.nb * CB
    }

    /// Output rows whose input rows fit in `bytes` (at least one).
    pub(super) fn rows_fitting(&self, bytes: usize) -> usize {
        let g = &self.g;
        let in_rows = (bytes / (g.cg * self.wp * size_of::<f32>()).max(1)).max(1);
        (in_rows.saturating_sub((g.kh - 1) * g.d[0] + 1) / g.s[0] + 1).clamp(1, g.oh)
    }

    /// One task's tile buffer.
    pub(super) fn tile_scratch(&self) -> Vec<f32> {
        vec![0.0f32; self.pmax * self.nb * CB]
    }

    /// Computes output rows `r0..r1` of channel chunk `ci` of image-group `img` and
    /// stores them at `dst`: channel `c`, row `r`, column `p` at `dst[c·plane + (r −
    /// r0)·OW + p]`, through the store's `fin(q)` for band offset `q = (r − r0)·OW + p`.
    ///
    /// # Safety
    /// `dst[c·plane + q]` is valid for writes and touched by no one else during the call
    /// for `c` below the chunk's channel count and `q < (r1 − r0)·OW`, and every
    /// residual pointer `fin` gives is readable for the stored channels and positions.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn rows(
        &self,
        tmp: &mut [f32],
        img: usize,
        ci: usize,
        r0: usize,
        r1: usize,
        dst: *mut f32,
        plane: usize,
        fin: impl Fn(usize) -> Finish,
    ) {
        let (g, w, level, nb) = (&self.g, self.w, self.level, self.nb);
        let gi = img % w.groups;
        let (_, cn) = self.chunk(ci);
        let wblk = &w.w[(gi * w.ob + ci * nb) * w.k * CB..];
        let bias = &w.bias[(gi * w.ob + ci * nb) * CB..];
        let xg = &self.xs[img * self.plane_in..][..self.plane_in];
        let rs = self.rs;
        if spans_rows(level) {
            // Runs of `pmax` consecutive positions of the band (the last ones shorter,
            // evenly), across row ends; the output plane is row-major, so a run is
            // stored as one.
            let nq = (r1 - r0) * g.ow;
            let runs = nq.div_ceil(self.pmax);
            let mut offs = [0usize; 16];
            for ri in 0..runs {
                let (a, b) = (ri * nq / runs, (ri + 1) * nq / runs);
                let at = |q: usize| (r0 + q / g.ow) * rs + q % g.ow * g.s[1];
                let base = at(a);
                for (off, q) in offs.iter_mut().zip(a..b) {
                    *off = at(q) - base;
                }
                tile_at(level, nb, &offs[..b - a], &self.taps, wblk, &xg[base..], bias, tmp);
                // SAFETY: channels below cn, band offsets a..b: the caller's contract.
                unsafe { store_channels(level, tmp, b - a, nb * CB, cn, dst.wrapping_add(a), plane, fin(a)) };
            }
        } else {
            let mut r = r0;
            while r < r1 {
                let nr = if self.pair { 2.min(r1 - r) } else { 1 };
                for si in 0..self.segs {
                    let (p0, p1) = (si * g.ow / self.segs, (si + 1) * g.ow / self.segs);
                    let width = p1 - p0;
                    let x0 = r * rs + p0 * g.s[1];
                    tile(level, nb, nr, width, g.s[1], rs, &self.taps, wblk, &xg[x0..], bias, tmp);
                    for dr in 0..nr {
                        let q = (r + dr - r0) * g.ow + p0;
                        let src = &tmp[dr * width * nb * CB..];
                        // SAFETY: channels below cn, row r + dr < r1, columns p0..p1 ≤
                        // OW: the caller's contract.
                        unsafe { store_channels(level, src, width, nb * CB, cn, dst.wrapping_add(q), plane, fin(q)) };
                    }
                }
                r += nr;
            }
        }
    }
}

/// The input with its padding made explicit (`planes` planes of `(H + 2·pH) × (W +
/// 2·pW)`, zero borders), or `None` for an unpadded layer (read in place). Each element
/// is written once (no zero fill first), into a buffer from the crate's output cache.
pub(super) fn pad(x: &[f32], planes: usize, g: &Geom) -> Option<Vec<f32>> {
    if g.p == [0, 0] {
        return None;
    }
    let (hp, wp) = (g.h + 2 * g.p[0], g.w + 2 * g.p[1]);
    let len = planes * hp * wp;
    let mut buf = crate::linalg::alloc::output_buffer::<f32>(len);
    assert!(buf.capacity() >= len, "conv2d: padded input buffer too small");
    let bptr = SendPtr(buf.as_mut_ptr());
    // Chunks of planes big enough to be worth a task: a 256 KiB copy takes a few
    // microseconds, less than a sleeping pool thread takes to wake, so smaller copies
    // (the 14×14 and 7×7 layers at batch 1) run on the caller alone.
    let per = (1usize << 16).div_ceil(hp * wp).max(1);
    par_tasks(
        planes.div_ceil(per),
        || (),
        |_, t| {
            for pl in t * per..((t + 1) * per).min(planes) {
                let at = pl * hp * wp;
                // SAFETY: plane pl of `buf` (pl < planes: inside the capacity, asserted),
                // written by this task only; `MaybeUninit` makes no claim on its contents.
                let dst = unsafe {
                    std::slice::from_raw_parts_mut(bptr.get().add(at).cast::<std::mem::MaybeUninit<f32>>(), hp * wp)
                };
                let zero = std::mem::MaybeUninit::new(0.0f32);
                let (top, rest) = dst.split_at_mut(g.p[0] * wp);
                top.fill(zero);
                let (mid, bottom) = rest.split_at_mut(g.h * wp);
                bottom.fill(zero);
                let src = &x[pl * g.h * g.w..][..g.h * g.w];
                for (row, d) in src.chunks_exact(g.w).zip(mid.chunks_exact_mut(wp)) {
                    let (left, d) = d.split_at_mut(g.p[1]);
                    left.fill(zero);
                    let (inner, right) = d.split_at_mut(g.w);
                    right.fill(zero);
                    for (o, &v) in inner.iter_mut().zip(row) {
                        o.write(v);
                    }
                }
            }
        },
    );
    // SAFETY: the tasks wrote every element of the `planes` planes (top, rows with
    // their borders, bottom), and the capacity is at least `len` (asserted).
    unsafe { buf.set_len(len) };
    Some(buf)
}
