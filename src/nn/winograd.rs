//! The Winograd convolutions F(2×2, 3×3) and F(4×4, 3×3) for `f32` 3×3 kernels with
//! stride 1 (see [`super::winograd_transform`] and [`super::winograd_f4`] for the
//! transforms; [`Tile`] names the two).
//!
//! The output tiles of all images are numbered in order and cut into blocks sized so
//! that a block's transformed input `V` (`ξ × C × tiles`, 16 or 36 points) stays in L2. Per block: the
//! input transform writes `V`; then, per chunk of output channels, 16 independent
//! (or 36) products `M_ξ = U_ξ · V_ξ` (`U_ξ` the transformed weights, packed once in
//! [`WinogradWeights`]) run on the block kernels of [`super::conv_block`] — the same
//! kernels as the direct convolution, with the input channels as taps — and the output
//! transform, bias and epilogue finish the chunk's output while `M` is in L2.
//!
//! Work is split over threads by blocks when there are enough of them (a multiple of
//! the thread count, so that no thread waits a block for the others); otherwise the
//! tasks are (block, chunk of output channels) pairs, and each thread transforms a
//! block's input into its own `V` on its first task of that block: the transform is
//! repeated per thread (a few per cent of the products' work) instead of being split
//! over channels behind a barrier, so a call is one parallel loop and each thread
//! reads `V` from its own cache.

use super::conv_block::{Level, MR, Offsets, Shape, Sweep, pack_weights};
use super::epilogue::Epilogue;
use super::im2col::Geom;
use super::simd::Scalar;
use super::util::par_tasks;
use super::winograd_f4::{XI4, input_run4, output_run4, weight_transform4};
use super::winograd_transform::{Run, XI, input_run, output_run, runs, weight_transform};
use crate::iter::SendPtr;
use crate::memory::scratch::ScratchSlot;

/// Bytes of transformed input per block when the L2 size is unknown (half of a 2 MiB
/// L2).
const V_BYTES_DEFAULT: usize = 1 << 20;
/// Bytes of products per chunk of output channels.
const M_BYTES: usize = 1 << 18;

/// The Winograd algorithm: its output tile size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tile {
    /// F(2×2, 3×3): 4×4 points per 2×2 outputs.
    F2,
    /// F(4×4, 3×3): 6×6 points per 4×4 outputs.
    F4,
}

impl Tile {
    /// Outputs per tile side.
    pub fn m(self) -> usize {
        match self {
            Tile::F2 => 2,
            Tile::F4 => 4,
        }
    }

    /// Points of the transformed tile.
    pub fn xi(self) -> usize {
        match self {
            Tile::F2 => XI,
            Tile::F4 => XI4,
        }
    }
}

/// Tiles of F(4×4, 3×3) (`N·⌈OH/4⌉·⌈OW/4⌉`) from which a call takes it: eight full
/// vectors of tiles on AVX-512. Below, its tiles fill few vectors (49 tiles of a 28×28
/// image at batch 1 compute 64; the 32 of 7×7 images at batch 8 read the 36·O·C
/// transformed weights for two vectors), and F(2×2, 3×3), with 4× the tiles, was faster
/// in the measurements (BENCHMARKS.md, fifth session); above, F(4×4, 3×3)'s 1.78× fewer
/// products win (8–20 % per layer at batch 8). A shape rule: no CPU constant.
const F4_MIN_TILES: usize = 128;

/// The tile for a call of `n` images of geometry `g`: F(4×4, 3×3) from
/// [`F4_MIN_TILES`] tiles, else F(2×2, 3×3). `FERROTENSOR_WINOGRAD_TILE=2` or `4`
/// (read once) forces one, to measure and test them against each other.
pub(crate) fn tile_for(n: usize, g: &Geom) -> Tile {
    static FORCE: std::sync::OnceLock<Option<Tile>> = std::sync::OnceLock::new();
    let force = *FORCE.get_or_init(|| match std::env::var("FERROTENSOR_WINOGRAD_TILE").as_deref() {
        Ok("2") => Some(Tile::F2),
        Ok("4") => Some(Tile::F4),
        _ => None,
    });
    force.unwrap_or(if n * g.oh.div_ceil(4) * g.ow.div_ceil(4) >= F4_MIN_TILES {
        Tile::F4
    } else {
        Tile::F2
    })
}

/// The transformed 3×3 weights `U_ξ` (each `O × C`), packed in `MR`-row panels per
/// point, and the bias.
#[derive(Clone, Debug)]
pub(crate) struct WinogradWeights {
    tile: Tile,
    packed: Vec<f32>,
    /// Elements per point: `ceil(O / MR)·C·MR`.
    per_xi: usize,
    bias: Vec<f32>,
    o: usize,
    c: usize,
}

impl WinogradWeights {
    /// Transforms and packs `wt` (`(O, C, 3, 3)` row-major) and the bias for `tile`.
    pub fn new(wt: &[f32], bias: Option<&[f32]>, o: usize, c: usize, tile: Tile) -> Self {
        let xin = tile.xi();
        let mut u = vec![vec![0.0f32; o * c]; xin];
        for (oc, g) in wt.chunks_exact(9).enumerate() {
            let g: &[f32; 9] = g.try_into().expect("3×3 kernel");
            let t2;
            let t4;
            let t: &[f32] = match tile {
                Tile::F2 => {
                    t2 = weight_transform(g);
                    &t2
                }
                Tile::F4 => {
                    t4 = weight_transform4(g);
                    &t4
                }
            };
            for (xi, &v) in t.iter().enumerate() {
                u[xi][oc] = v;
            }
        }
        let per_xi = o.div_ceil(MR) * c * MR;
        let mut packed = Vec::with_capacity(xin * per_xi);
        for ux in &u {
            packed.extend_from_slice(&pack_weights(ux, o, c));
        }
        WinogradWeights {
            tile,
            packed,
            per_xi,
            bias: bias.map_or_else(|| vec![0.0; o], <[f32]>::to_vec),
            o,
            c,
        }
    }
}

/// The block and chunk sizes of one call.
struct Plan {
    /// Tiles per image row and column, and in all.
    th: usize,
    tw: usize,
    total: usize,
    /// Blocks, whose boundaries are whole vectors of tiles (`unit`, the narrow block
    /// width), `units` vectors in all split as evenly as they go: a block of 49 tiles
    /// computes 64 (the 49th alone in a vector), one of 48 computes 48.
    blocks: usize,
    unit: usize,
    units: usize,
    /// The point-row stride of `V` and `M` (the largest block's computed width).
    vs: usize,
    /// The channel stride of `V`: its 16 point rows plus one cache line, so that the
    /// products, which read one vector per input channel, do not find every channel
    /// in the same L1 set (`16·vs` floats is a multiple of 4 KiB for `vs = 64`, the
    /// 14×14 layers at batch 1).
    cs: usize,
    /// Panels per chunk of output channels.
    chunk_panels: usize,
    /// The parallel work items are (block, chunk) pairs rather than blocks.
    chunk_tasks: bool,
}

/// Work items per thread below which a call splits its blocks into chunks of output
/// channels: enough that the counter rebalances a thread that stalls for a task's time
/// (a shape rule: no CPU constant; 2 was the rule before the seventh session).
const TASKS_PER_THREAD: usize = 4;

impl Plan {
    #[allow(clippy::too_many_arguments)]
    fn new(g: &Geom, n: usize, c: usize, o: usize, tile: Tile, level: Level, threads: usize, v_bytes: usize) -> Self {
        let (m, xin) = (tile.m(), tile.xi());
        let (th, tw) = (g.oh.div_ceil(m), g.ow.div_ceil(m));
        let total = n * th * tw;
        let want = (v_bytes / (xin * c * size_of::<f32>())).clamp(16, 512);
        let mut blocks = total.div_ceil(want);
        if threads > 1 && blocks >= 2 * threads && blocks < 16 * threads {
            // Whole rounds of blocks: 7 blocks on two threads leave one idle for an
            // eighth of the call; 8 smaller ones do not.
            blocks = blocks.next_multiple_of(threads).min(total);
        }
        let unit = level.narrow().width;
        let units = total.div_ceil(unit);
        let blocks = blocks.min(units);
        let tb = (units.div_ceil(blocks) * unit).min(total);
        let vs = Sweep::new(level, tb).end();
        let group = level.narrow().panels;
        let panels = o.div_ceil(MR);
        let mut chunk_panels = (M_BYTES / (xin * vs * MR * size_of::<f32>()))
            .max(1)
            .next_multiple_of(group);
        // With fewer than TASKS_PER_THREAD blocks per thread, a thread that stalls or
        // starts late leaves the others a whole block to wait for (and 13 vectors of
        // tiles in 4 blocks give one thread 7 against 6): the (block, chunk) pairs are
        // the work items then, at least TASKS_PER_THREAD per thread where the channels
        // allow (chunks rounded to whole narrow groups: with two, 512 channels would
        // split 18 + 10 panels).
        let chunk_tasks = threads > 1 && blocks < TASKS_PER_THREAD * threads;
        if chunk_tasks {
            let per = panels
                .div_ceil((TASKS_PER_THREAD * threads).div_ceil(blocks))
                .next_multiple_of(group);
            chunk_panels = chunk_panels.min(per);
        }
        Plan {
            th,
            tw,
            total,
            blocks,
            unit,
            units,
            vs,
            cs: xin * vs + 16,
            chunk_panels: chunk_panels.min(panels.next_multiple_of(group)),
            chunk_tasks,
        }
    }

    /// The tiles `t0..t1` of block `b`.
    fn tiles(&self, b: usize) -> (usize, usize) {
        let at = |b: usize| (b * self.units / self.blocks * self.unit).min(self.total);
        (at(b), at(b + 1))
    }
}

thread_local! {
    /// The thread's `V` and `M` buffers, kept between calls (fresh megabytes per call are
    /// page-faulted and zeroed each time) under the memory module's idle rule.
    static BUFFERS: ScratchSlot = ScratchSlot::new();
}

/// One thread's `V` and `M` for one call, taken from the thread's kept buffers (grown
/// when short) and given back to them when dropped. Their contents are stale: callers
/// write before they read.
struct Scratch {
    v: Vec<f32>,
    m: Vec<f32>,
    /// The block whose transformed input `v` holds, if any.
    block: Option<usize>,
    runs: Vec<Run>,
}

impl Scratch {
    fn new(v_len: usize, m_len: usize) -> Self {
        let [mut v, mut m] = BUFFERS.with(ScratchSlot::take);
        if v.len() < v_len {
            v = vec![0.0; v_len];
        }
        if m.len() < m_len {
            m = vec![0.0; m_len];
        }
        Scratch {
            v,
            m,
            block: None,
            runs: Vec::new(),
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let bufs = [std::mem::take(&mut self.v), std::mem::take(&mut self.m)];
        // A thread being torn down has no slot left: its buffers are simply freed.
        let _ = BUFFERS.try_with(|slot| slot.put(bufs));
    }
}

/// Bytes of transformed input per block: half of the core's L2 (the other half holds
/// the weights of a chunk and its products), 1 MiB when the L2 is unknown. Read once.
fn v_bytes() -> usize {
    static V: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *V.get_or_init(|| {
        crate::cpu::cache_bytes()
            .1
            .map_or(V_BYTES_DEFAULT, |l2| (l2 / 2).clamp(256 << 10, 4 << 20))
    })
}

/// `conv2d` by Winograd on row-major `f32` buffers (`x` is `(N, C, H, W)`); returns
/// `(N, O, OH, OW)` after the epilogue.
pub(crate) fn conv2d_winograd(
    x: &[f32],
    w: &WinogradWeights,
    n: usize,
    g: &Geom,
    level: Level,
    epi: &Epilogue<f32>,
) -> Vec<f32> {
    conv2d_winograd_with(x, w, n, g, level, epi, v_bytes())
}

/// [`conv2d_winograd`] with `v_bytes` of transformed input per block.
pub(crate) fn conv2d_winograd_with(
    x: &[f32],
    w: &WinogradWeights,
    n: usize,
    g: &Geom,
    level: Level,
    epi: &Epilogue<f32>,
    v_bytes: usize,
) -> Vec<f32> {
    let (o, c) = (w.o, w.c);
    debug_assert_eq!(c, g.cg);
    let positions = g.positions();
    if n * o * positions == 0 {
        return Vec::new();
    }
    // Every element is written: the runs of all blocks cover every tile of every image,
    // and every chunk stores all columns and rows of its channels' tiles.
    let mut out = crate::linalg::alloc::output_buffer::<f32>(n * o * positions);
    let threads = crate::threads::num_threads();
    let tile = w.tile;
    let plan = Plan::new(g, n, c, o, tile, level, threads, v_bytes);
    let chunks = o.div_ceil(MR).div_ceil(plan.chunk_panels);
    let v_len = c * plan.cs;
    // (A vector of slack: the output transform reads whole vectors.)
    let m_len = tile.xi() * plan.chunk_panels * MR * plan.vs + 16;
    let ctx = Ctx {
        x,
        w,
        g,
        plan: &plan,
        level,
        epi,
        out: SendPtr(out.as_mut_ptr()),
        out_len: out.capacity(),
    };
    let blocks = plan.blocks;
    let tiles = |b: usize| plan.tiles(b);
    if threads == 1 || !plan.chunk_tasks {
        par_tasks(
            blocks,
            || Scratch::new(v_len, m_len),
            |s, b| {
                let (t0, t1) = tiles(b);
                runs(t0, t1, plan.th, plan.tw, &mut s.runs);
                ctx.transform_in(&s.runs, 0..c, &mut s.v[..v_len]);
                for ci in 0..chunks {
                    ctx.chunk(&s.runs, t1 - t0, ci, &s.v[..v_len], &mut s.m[..m_len]);
                }
            },
        );
    } else {
        // (block, chunk) work items. Each of the `threads` walkers starts at its own
        // share of the blocks and goes on cyclically, taking the next chunk of the block
        // it is on from that block's counter: a thread transforms a block's input on its
        // first chunk of it, so a block is transformed twice only where two walkers meet
        // (a shared counter in block order would hand the chunks of every block to both
        // threads), and a thread that starts late or stalls leaves its chunks to the
        // others.
        use std::sync::atomic::{AtomicUsize, Ordering};
        let taken: Vec<AtomicUsize> = (0..blocks).map(|_| AtomicUsize::new(0)).collect();
        par_tasks(
            threads,
            || Scratch::new(v_len, m_len),
            |s, k| {
                for j in 0..blocks {
                    let b = (k * blocks / threads + j) % blocks;
                    let (t0, t1) = tiles(b);
                    loop {
                        let ci = taken[b].fetch_add(1, Ordering::Relaxed);
                        if ci >= chunks {
                            break;
                        }
                        if s.block != Some(b) {
                            runs(t0, t1, plan.th, plan.tw, &mut s.runs);
                            ctx.transform_in(&s.runs, 0..c, &mut s.v[..v_len]);
                            s.block = Some(b);
                        }
                        ctx.chunk(&s.runs, t1 - t0, ci, &s.v[..v_len], &mut s.m[..m_len]);
                    }
                }
            },
        );
    }
    // SAFETY: the capacity is n·o·positions, every element written (see above).
    unsafe { out.set_len(n * o * positions) };
    out
}

/// What every task of one call reads.
struct Ctx<'a> {
    x: &'a [f32],
    w: &'a WinogradWeights,
    g: &'a Geom,
    plan: &'a Plan,
    level: Level,
    epi: &'a Epilogue<'a, f32>,
    out: SendPtr<f32>,
    out_len: usize,
}

// SAFETY: the raw output pointer is only written through disjoint (image, channel,
// tile) regions by the tasks (see `chunk`); everything else is shared read-only.
unsafe impl Sync for Ctx<'_> {}

impl Ctx<'_> {
    /// The input transform of the block's runs for the channels `cs.start..` whose
    /// rows `v` holds (`[c][ξ][vs]`, channels `plan.cs` apart, from channel `cs.start` on).
    fn transform_in(&self, runs: &[Run], cs: std::ops::Range<usize>, v: &mut [f32]) {
        let (g, vs, c) = (self.g, self.plan.vs, self.w.c);
        let plane = g.h * g.w;
        for (ci, vc) in cs.zip(v.chunks_mut(self.plan.cs)) {
            for r in runs {
                let xc = &self.x[(r.n * c + ci) * plane..][..plane];
                transform_in_level(self.level, self.w.tile, xc, g, r, vc, vs);
            }
        }
    }

    /// Products, output transform and epilogue of chunk `ci` of output channels for
    /// one block of `tiles` tiles (its runs), from the block's `v`.
    fn chunk(&self, runs: &[Run], tiles: usize, ci: usize, v: &[f32], m: &mut [f32]) {
        let (w, g, plan, level) = (self.w, self.g, self.plan, self.level);
        let (c, o, vs) = (w.c, w.o, plan.vs);
        let blocks = o.div_ceil(MR);
        let (b0, b1) = (ci * plan.chunk_panels, ((ci + 1) * plan.chunk_panels).min(blocks));
        let ob = (b1 - b0) * MR;
        let sweep = Sweep::new(level, tiles);
        let taps = Offsets::strided(c, plan.cs);
        let group = level.narrow().panels;
        let pstride = c * MR;
        for xi in 0..w.tile.xi() {
            let u = &w.packed[xi * w.per_xi..][..w.per_xi];
            let vx = &v[xi * vs..];
            let mx = &mut m[xi * ob * vs..][..ob * vs];
            for nb in (b0..b1).step_by(group) {
                let np = group.min(b1 - nb);
                for b in nb..nb + np {
                    for p0 in sweep.wide_starts() {
                        let out = &mut mx[(b - b0) * MR * vs + p0..];
                        level.block(sweep.wide, &u[b * pstride..], pstride, vx, p0, &taps, None, out, vs);
                    }
                }
                let sh = Shape {
                    panels: np,
                    width: sweep.narrow.width,
                };
                for p0 in sweep.narrow_starts() {
                    let out = &mut mx[(nb - b0) * MR * vs + p0..];
                    level.block(sh, &u[nb * pstride..], pstride, vx, p0, &taps, None, out, vs);
                }
            }
        }
        let positions = g.positions();
        for oc in b0 * MR..(b1 * MR).min(o) {
            let r = oc - b0 * MR;
            for run in runs {
                let at = (run.n * o + oc) * positions;
                assert!(at + positions <= self.out_len, "conv2d: output plane outside buffer");
                let plane = self.out.get().wrapping_add(at);
                // SAFETY: the output plane (run.n, oc) is inside `out` (asserted); this
                // task is the only one writing this run's tiles of it (tasks own disjoint
                // blocks of tiles or chunks of channels).
                unsafe { transform_out_level(level, w.tile, &m[r * vs..], ob * vs, w.bias[oc], g, run, plane) };
                if !self.epi.is_identity() {
                    let tm = w.tile.m();
                    let (x0, y0) = (tm * run.tx0, tm * run.ty);
                    let width = (tm * run.len).min(g.ow - x0);
                    let ys = y0..(y0 + tm).min(g.oh);
                    // Whole rows as one span, else one span per row.
                    let whole = (width == g.ow).then_some((ys.start * g.ow, ys.len() * g.ow));
                    let rows = ys.clone().filter(|_| whole.is_none()).map(|y| (y * g.ow + x0, width));
                    for (off, len) in whole.into_iter().chain(rows) {
                        // SAFETY: the span is part of this run's output (just written by
                        // this task, owned by it as above).
                        let span = unsafe { std::slice::from_raw_parts_mut(plane.add(off), len) };
                        self.epi.apply(span, at + off);
                    }
                }
            }
        }
    }
}

/// [`input_run`] or [`input_run4`] compiled for `level`.
fn transform_in_level(level: Level, tile: Tile, xc: &[f32], g: &Geom, r: &Run, v: &mut [f32], vs: usize) {
    match (level, tile) {
        // SAFETY: the level's features were detected.
        #[cfg(target_arch = "x86_64")]
        (Level::Avx512, Tile::F2) => unsafe { x86::input512(xc, g, r, v, vs) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        (Level::Avx512, Tile::F4) => unsafe { x86::input512_4(xc, g, r, v, vs) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        (Level::Avx2, Tile::F2) => unsafe { x86::input256(xc, g, r, v, vs) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        (Level::Avx2, Tile::F4) => unsafe { x86::input256_4(xc, g, r, v, vs) },
        // SAFETY: plain Rust.
        (Level::Portable, Tile::F2) => unsafe { input_run::<Scalar<f32>>(xc, g, r, v, vs) },
        // SAFETY: plain Rust.
        (Level::Portable, Tile::F4) => unsafe { input_run4::<Scalar<f32>>(xc, g, r, v, vs) },
    }
}

/// [`output_run`] or [`output_run4`] compiled for `level`.
///
/// # Safety
/// As [`output_run`] / [`output_run4`] (whose features `level` names).
#[allow(clippy::too_many_arguments)]
unsafe fn transform_out_level(
    level: Level,
    tile: Tile,
    m: &[f32],
    ms: usize,
    bias: f32,
    g: &Geom,
    r: &Run,
    out: *mut f32,
) {
    match (level, tile) {
        // SAFETY: the level's features were detected; the output is the caller's contract.
        #[cfg(target_arch = "x86_64")]
        (Level::Avx512, Tile::F2) => unsafe { x86::output512(m, ms, bias, g, r, out) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        (Level::Avx512, Tile::F4) => unsafe { x86::output512_4(m, ms, bias, g, r, out) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        (Level::Avx2, Tile::F2) => unsafe { x86::output256(m, ms, bias, g, r, out) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        (Level::Avx2, Tile::F4) => unsafe { x86::output256_4(m, ms, bias, g, r, out) },
        // SAFETY: plain Rust; the output is the caller's contract.
        (Level::Portable, Tile::F2) => unsafe { output_run::<Scalar<f32>>(m, ms, bias, g, r, out) },
        // SAFETY: plain Rust; the output is the caller's contract.
        (Level::Portable, Tile::F4) => unsafe { output_run4::<Scalar<f32>>(m, ms, bias, g, r, out) },
    }
}

/// The transforms compiled for each x86 level.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::im2col::Geom;
    use super::super::simd::{Avx2, Avx512};
    use super::super::winograd_f4::{input_run4, output_run4};
    use super::super::winograd_transform::{Run, input_run, output_run};

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn input512(xc: &[f32], g: &Geom, r: &Run, v: &mut [f32], vs: usize) {
        // SAFETY: the features are enabled here.
        unsafe { input_run::<Avx512>(xc, g, r, v, vs) }
    }
    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn input256(xc: &[f32], g: &Geom, r: &Run, v: &mut [f32], vs: usize) {
        // SAFETY: the features are enabled here.
        unsafe { input_run::<Avx2>(xc, g, r, v, vs) }
    }
    /// # Safety
    /// AVX-512F is available; the contract of `output_run`.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn output512(m: &[f32], ms: usize, bias: f32, g: &Geom, r: &Run, out: *mut f32) {
        // SAFETY: the features are enabled here.
        unsafe { output_run::<Avx512>(m, ms, bias, g, r, out) }
    }
    /// # Safety
    /// AVX2 and FMA are available; the contract of `output_run`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn output256(m: &[f32], ms: usize, bias: f32, g: &Geom, r: &Run, out: *mut f32) {
        // SAFETY: the features are enabled here.
        unsafe { output_run::<Avx2>(m, ms, bias, g, r, out) }
    }
    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn input512_4(xc: &[f32], g: &Geom, r: &Run, v: &mut [f32], vs: usize) {
        // SAFETY: the features are enabled here.
        unsafe { input_run4::<Avx512>(xc, g, r, v, vs) }
    }
    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn input256_4(xc: &[f32], g: &Geom, r: &Run, v: &mut [f32], vs: usize) {
        // SAFETY: the features are enabled here.
        unsafe { input_run4::<Avx2>(xc, g, r, v, vs) }
    }
    /// # Safety
    /// AVX-512F is available; the contract of `output_run4`.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn output512_4(m: &[f32], ms: usize, bias: f32, g: &Geom, r: &Run, out: *mut f32) {
        // SAFETY: the features are enabled here.
        unsafe { output_run4::<Avx512>(m, ms, bias, g, r, out) }
    }
    /// # Safety
    /// AVX2 and FMA are available; the contract of `output_run4`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn output256_4(m: &[f32], ms: usize, bias: f32, g: &Geom, r: &Run, out: *mut f32) {
        // SAFETY: the features are enabled here.
        unsafe { output_run4::<Avx2>(m, ms, bias, g, r, out) }
    }
}
