//! The direct `f32` convolution: no im2col matrix, no GEMM call. Each task
//! `(image, group, tile of output rows, chunk of output channels)` copies the input rows
//! its tile reads into the phase-split layout of [`super::conv_phase`] (about one copy of
//! the input, where im2col writes `kH·kW` copies), then sweeps the tile's virtual
//! positions with the blocks of [`super::conv_block`] — wide blocks over the long runs,
//! narrow ones (more channels, one vector of positions) over the tail — and stores the
//! valid positions of each block ([`super::conv_store`]). The epilogue (residual,
//! activation) runs on each chunk of channels once its rows are complete.

use super::conv_block::{Level, MR, Shape, Sweep, pack_weights};
use super::conv_phase::{Phases, Piece, pieces};
use super::conv_store::scatter;
use super::epilogue::Epilogue;
use super::im2col::Geom;
use super::util::par_tasks;
use crate::iter::SendPtr;
use crate::memory::scratch::ScratchSlot;

/// Bytes of phase-split input per task: a tile stays in L2 while its panels are swept.
const TILE_BYTES: usize = 1 << 20;

thread_local! {
    /// The thread's tile buffer, kept between tasks and calls (a fresh one per task is
    /// page-faulted and zeroed each time, which costs several percent of a task) under
    /// the memory module's idle rule.
    static TILE: ScratchSlot = ScratchSlot::new();
}

/// The weights of a convolution packed for the block kernels: per group, the
/// `og × k` weights as `MR`-row panels, and the bias padded to whole panels (plus room
/// for a narrow block's extra panels).
#[derive(Clone, Debug)]
pub(crate) struct DirectWeights {
    panels: Vec<Vec<f32>>,
    bias: Vec<Vec<f32>>,
    /// Output channels per group and taps per output channel (`C_g·kH·kW`).
    og: usize,
    k: usize,
}

impl DirectWeights {
    /// Packs `wt` (`(O, C_g, kH, kW)` row-major, `k = C_g·kH·kW`) and the bias.
    pub fn new(wt: &[f32], bias: Option<&[f32]>, o: usize, groups: usize, k: usize) -> Self {
        let og = o / groups;
        let padded = og.div_ceil(MR) * MR + 2 * MR;
        DirectWeights {
            panels: (0..groups)
                .map(|gi| pack_weights(&wt[gi * og * k..][..og * k], og, k))
                .collect(),
            bias: (0..groups)
                .map(|gi| {
                    let mut b = vec![0.0; padded];
                    if let Some(v) = bias {
                        b[..og].copy_from_slice(&v[gi * og..][..og]);
                    }
                    b
                })
                .collect(),
            og,
            k,
        }
    }
}

/// True when the direct path is worth taking: enough output channels per group to fill
/// most of an `MR` block, and few discarded virtual columns per output row.
pub(crate) fn suits(g: &Geom, og: usize) -> bool {
    let col_halo = (g.kw - 1) * g.d[1] / g.s[1];
    og >= MR / 2 && col_halo * 4 <= g.ow
}

/// `conv2d` on row-major `f32` buffers (`x` is `(N, C, H, W)`) with the packed weights
/// `w`, the block kernels of `level`, in tiles of `tile_rows` output rows (`None`: sized
/// for the cache and the thread count); returns `(N, O, OH, OW)` after the epilogue.
pub(crate) fn conv2d_direct(
    x: &[f32],
    w: &DirectWeights,
    n: usize,
    g: &Geom,
    level: Level,
    tile_rows: Option<usize>,
    epi: &Epilogue<f32>,
) -> Vec<f32> {
    let (k, og, positions, groups) = (w.k, w.og, g.positions(), w.panels.len());
    let o = og * groups;
    debug_assert_eq!(k, g.k());
    if n * o * positions == 0 {
        return Vec::new();
    }
    // Every element is written below (each task stores all valid positions of its rows).
    let mut out = crate::linalg::alloc::output_buffer::<f32>(n * o * positions);
    let (rows, chunks) = split(g, n * groups, og, level, tile_rows);
    let tiles = g.oh.div_ceil(rows);
    let ph = Phases::new(g, rows, level.max_width());
    let blocks = og.div_ceil(MR);
    let plane_in = g.cg * g.h * g.w;
    let optr = SendPtr(out.as_mut_ptr());
    let out_len = out.capacity();
    let narrow_panels = level.narrow().panels;
    par_tasks(
        n * groups * tiles * chunks,
        || {
            (
                vec![0.0f32; 3 * MR * 48],
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
            )
        },
        |(tmp, wide_pcs, wide_at, narrow_pcs, narrow_at), t| {
            let (ni, gi) = (t / (groups * tiles * chunks), t / (tiles * chunks) % groups);
            let (ti, ci) = (t / chunks % tiles, t % chunks);
            // This chunk's panels: whole narrow groups, split evenly.
            let groups_of = blocks.div_ceil(narrow_panels);
            let (b0, b1) = (
                (groups_of * ci / chunks * narrow_panels).min(blocks),
                (groups_of * (ci + 1) / chunks * narrow_panels).min(blocks),
            );
            if b0 == b1 {
                return;
            }
            // Stale contents are fine: `fill` writes every element a kept output reads.
            let [mut buf, _] = TILE.with(ScratchSlot::take);
            if buf.len() < ph.len {
                buf = vec![0.0f32; ph.len];
            }
            let oh0 = ti * rows;
            let rr = rows.min(g.oh - oh0);
            let xg = &x[(ni * groups + gi) * plane_in..][..plane_in];
            ph.fill(g, xg, oh0, rr, &mut buf);
            let sweep = Sweep::new(level, rr * ph.wv);
            // This task's output: channels gi·og.. of image ni, rows oh0..oh0 + rr.
            let first = ((ni * o + gi * og) * g.oh + oh0) * g.ow;
            assert!(
                first + (og - 1) * positions + rr * g.ow <= out_len,
                "conv2d: output tile outside buffer"
            );
            // The store pieces of every panel (the same for every block of channels).
            let collect = |starts: std::iter::StepBy<std::ops::Range<usize>>,
                           width: usize,
                           pcs: &mut Vec<Piece>,
                           at: &mut Vec<usize>| {
                pcs.clear();
                at.clear();
                for p0 in starts {
                    at.push(pcs.len());
                    pieces(p0, width, sweep.virt, ph.wv, g.ow, pcs);
                }
                at.push(pcs.len());
            };
            collect(sweep.wide_starts(), sweep.wide.width, wide_pcs, wide_at);
            collect(sweep.narrow_starts(), sweep.narrow.width, narrow_pcs, narrow_at);
            let (panels, bias) = (&w.panels[gi], &w.bias[gi]);
            let pstride = k * MR;
            // Groups of narrow-block panels outermost: their rows are then complete (wide
            // and narrow positions) while still in L2, for the epilogue.
            for nb in (b0..b1).step_by(narrow_panels) {
                let np = narrow_panels.min(b1 - nb);
                for b in nb..nb + np {
                    let rows_b = MR.min(og - b * MR);
                    let dst = optr.get().wrapping_add(first + b * MR * positions);
                    for (i, p0) in sweep.wide_starts().enumerate() {
                        let sh = sweep.wide;
                        level.block(
                            sh,
                            &panels[b * pstride..],
                            pstride,
                            &buf,
                            p0,
                            &ph.taps,
                            Some(&bias[b * MR..]),
                            tmp,
                            sh.width,
                        );
                        // SAFETY: the pieces' set lanes land in 0..rr·OW (`pieces`), and
                        // rows r < rows_b are output channels gi·og + b·MR + r of image
                        // ni: inside `out` (asserted above) and written by this task only
                        // (tasks own disjoint (image, group, row tile, chunk) blocks).
                        unsafe {
                            scatter(
                                level,
                                tmp,
                                sh.width,
                                rows_b,
                                dst,
                                positions,
                                &wide_pcs[wide_at[i]..wide_at[i + 1]],
                            )
                        };
                    }
                }
                let sh = Shape {
                    panels: np,
                    width: sweep.narrow.width,
                };
                let rows_n = (np * MR).min(og - nb * MR);
                let dst = optr.get().wrapping_add(first + nb * MR * positions);
                for (i, p0) in sweep.narrow_starts().enumerate() {
                    level.block(
                        sh,
                        &panels[nb * pstride..],
                        pstride,
                        &buf,
                        p0,
                        &ph.taps,
                        Some(&bias[nb * MR..]),
                        tmp,
                        sh.width,
                    );
                    // SAFETY: as above, for the rows of panels nb..nb + np.
                    unsafe {
                        scatter(
                            level,
                            tmp,
                            sh.width,
                            rows_n,
                            dst,
                            positions,
                            &narrow_pcs[narrow_at[i]..narrow_at[i + 1]],
                        )
                    };
                }
                if !epi.is_identity() {
                    for ch in nb * MR..nb * MR + rows_n {
                        let at = first + ch * positions;
                        // SAFETY: channel ch's rows of this tile, stored just above by
                        // this task only.
                        let span = unsafe { std::slice::from_raw_parts_mut(optr.get().add(at), rr * g.ow) };
                        epi.apply(span, at);
                    }
                }
            }
            TILE.with(|slot| slot.put([buf, Vec::new()]));
        },
    );
    // SAFETY: the capacity is n·o·positions, and the tasks cover every (image, group, row
    // tile, chunk), each storing every output column of every row of its channels.
    unsafe { out.set_len(n * o * positions) };
    out
}

/// Output rows per tile and channel chunks per tile: tiles as large as fit
/// [`TILE_BYTES`]; with several threads, at least two tasks per thread, by splitting
/// rows while tiles keep a few rows, then channels.
fn split(g: &Geom, images: usize, og: usize, level: Level, tile_rows: Option<usize>) -> (usize, usize) {
    if let Some(r) = tile_rows {
        assert!(r > 0, "conv2d: empty row tiles");
        return (r, 1);
    }
    let ph = Phases::new(g, 1, level.max_width());
    let row_bytes = ph.row_len(g.cg) * size_of::<f32>();
    let mut rows = (TILE_BYTES / row_bytes.max(1)).clamp(1, g.oh);
    let threads = crate::threads::num_threads();
    if threads == 1 {
        return (rows, 1);
    }
    let want = 2 * threads;
    let tiles = |r: usize| images * g.oh.div_ceil(r);
    if tiles(rows) < want {
        // Split rows down to tiles of at least 4 rows (smaller ones waste halo rows).
        let min_rows = 4.min(g.oh);
        let need = want.div_ceil(images).min(g.oh);
        rows = g.oh.div_ceil(need).max(min_rows).min(rows);
    }
    let groups_of = og.div_ceil(MR).div_ceil(level.narrow().panels);
    let chunks = want.div_ceil(tiles(rows)).clamp(1, groups_of);
    (rows, chunks)
}
