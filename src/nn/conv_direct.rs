//! The direct `f32` convolution: no im2col matrix, no GEMM call. Each task
//! `(image, group, tile of output rows)` copies the input rows its tile reads into the
//! phase-split layout of [`super::conv_phase`] (about one copy of the input, where im2col
//! writes `kH·kW` copies), then sweeps the tile's virtual positions in `NR`-wide panels,
//! running the [`super::conv_kernel`] block for every `MR` output channels and storing
//! the valid positions of each block.

use super::conv_kernel::{Level, MR, NR, pack_weights};
use super::conv_phase::{Phases, pieces};
use super::im2col::Geom;
use super::util::par_tasks;
use crate::iter::SendPtr;

/// Bytes of phase-split input per task: a tile stays in L2 while its panels are swept.
const TILE_BYTES: usize = 1 << 20;

/// Tile buffers up to this size are kept for the thread's next task.
const KEEP_BYTES: usize = 4 * TILE_BYTES;

thread_local! {
    /// The thread's tile buffer, kept between tasks and calls: a fresh one per task is
    /// page-faulted and zeroed each time, which costs several percent of a task.
    static TILE: std::cell::Cell<Vec<f32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// True when the direct path is worth taking: enough output channels per group to fill
/// most of an `MR` block, and few discarded virtual columns per output row.
pub(crate) fn suits(g: &Geom, og: usize) -> bool {
    let col_halo = (g.kw - 1) * g.d[1] / g.s[1];
    og >= MR / 2 && col_halo * 4 <= g.ow
}

/// `conv2d` on row-major `f32` buffers (`x` is `(N, C, H, W)`, `wt` `(O, C_g, kH, kW)`)
/// with the block kernel of `level`, in tiles of `tile_rows` output rows (`None`: sized
/// for the cache and the thread count); returns `(N, O, OH, OW)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv2d_direct(
    x: &[f32],
    wt: &[f32],
    bias: Option<&[f32]>,
    n: usize,
    o: usize,
    groups: usize,
    g: &Geom,
    level: Level,
    tile_rows: Option<usize>,
) -> Vec<f32> {
    let (k, og, positions) = (g.k(), o / groups, g.positions());
    if n * o * positions == 0 {
        return Vec::new();
    }
    // Every element is written below (each task stores all valid positions of its rows).
    let mut out = crate::linalg::alloc::output_buffer::<f32>(n * o * positions);
    // Tile rows: the largest tile within TILE_BYTES, then smaller so that with several
    // threads each gets at least two tasks.
    let rows = tile_rows.unwrap_or_else(|| {
        let row_bytes = Phases::new(g, 1, NR).row_len() * size_of::<f32>();
        let rows = (TILE_BYTES / row_bytes).clamp(1, g.oh);
        let threads = crate::threads::num_threads();
        let want = if threads > 1 { 2 * threads } else { 1 };
        if n * groups * g.oh.div_ceil(rows) < want {
            g.oh.div_ceil(want.div_ceil(n * groups).min(g.oh))
        } else {
            rows
        }
    });
    assert!(rows > 0, "conv2d: empty row tiles");
    let tiles = g.oh.div_ceil(rows);
    let ph = Phases::new(g, rows, NR);
    let blocks = og.div_ceil(MR);
    let panels: Vec<Vec<f32>> = (0..groups)
        .map(|gi| pack_weights(&wt[gi * og * k..][..og * k], og, k))
        .collect();
    let biases: Vec<[f32; MR]> = (0..groups * blocks)
        .map(|gb| {
            let (gi, b) = (gb / blocks, gb % blocks);
            std::array::from_fn(|r| match bias {
                Some(v) if b * MR + r < og => v[gi * og + b * MR + r],
                _ => 0.0,
            })
        })
        .collect();
    let plane_in = g.cg * g.h * g.w;
    let optr = SendPtr(out.as_mut_ptr());
    let out_len = out.capacity();
    par_tasks(
        n * groups * tiles,
        || ([0.0f32; MR * NR], Vec::new(), Vec::new()),
        |(tmp, store, starts), t| {
            // Stale contents are fine: `fill` writes every element a kept output reads.
            let mut buf = TILE.take();
            if buf.len() < ph.len {
                buf = vec![0.0f32; ph.len];
            }
            let (ni, gi, ti) = (t / (groups * tiles), t / tiles % groups, t % tiles);
            let oh0 = ti * rows;
            let rr = rows.min(g.oh - oh0);
            let xg = &x[(ni * groups + gi) * plane_in..][..plane_in];
            ph.fill(g, xg, oh0, rr, &mut buf);
            let virt = rr * ph.wv;
            // This task's output: channels gi·og.. of image ni, rows oh0..oh0 + rr.
            let first = ((ni * o + gi * og) * g.oh + oh0) * g.ow;
            assert!(
                first + (og - 1) * positions + rr * g.ow <= out_len,
                "conv2d: output tile outside buffer"
            );
            // The store pieces of every panel (the same for every block of channels).
            store.clear();
            starts.clear();
            for p0 in (0..virt).step_by(NR) {
                starts.push(store.len());
                pieces(p0, NR, virt, ph.wv, g.ow, store);
            }
            starts.push(store.len());
            // Blocks outermost: each block's MR output rows are then written front to back
            // (streams the hardware prefetcher follows), while its weight panel stays in
            // L1 and the tile in L2.
            for b in 0..blocks {
                let panel = &panels[gi][b * k * MR..][..k * MR];
                let dst = optr.get().wrapping_add(first + b * MR * positions);
                let rows_b = MR.min(og - b * MR);
                for (i, p0) in (0..virt).step_by(NR).enumerate() {
                    level.block(panel, &buf, p0, &ph.taps, &biases[gi * blocks + b], tmp);
                    let pcs = &store[starts[i]..starts[i + 1]];
                    // SAFETY: the pieces' set lanes land in 0..rr·OW (`pieces`), and rows
                    // r < rows_b are output channels gi·og + b·MR + r of image ni: inside
                    // `out` (asserted above) and written by this task only (tasks own
                    // disjoint (image, group, row tile) blocks).
                    unsafe { level.scatter(tmp, rows_b, dst, positions, pcs) };
                }
            }
            if buf.len() * size_of::<f32>() <= KEEP_BYTES {
                TILE.set(buf);
            }
        },
    );
    // SAFETY: the capacity is n·o·positions, and the tasks cover every (image, group, row
    // tile), each storing every output column of every row of every channel of its block.
    unsafe { out.set_len(n * o * positions) };
    out
}
