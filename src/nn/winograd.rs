//! The Winograd F(2×2, 3×3) convolution for `f32` 3×3 kernels with stride 1 (see
//! [`super::winograd_transform`] for the transforms).
//!
//! The output tiles of all images are numbered in order and cut into blocks sized so
//! that a block's transformed input `V` (`16 × C × tiles`) stays in L2. Per block: the
//! input transform writes `V`; then, per chunk of output channels, 16 independent
//! products `M_ξ = U_ξ · V_ξ` (`U_ξ` the transformed weights, packed once in
//! [`WinogradWeights`]) run on the block kernels of [`super::conv_block`] — the same
//! kernels as the direct convolution, with the input channels as taps — and the output
//! transform, bias and epilogue finish the chunk's output while `M` is in L2.
//!
//! Work is split over threads by blocks when there are enough of them; otherwise each
//! block's input transform is split over channels and its products over output-channel
//! chunks.

use super::conv_block::{Level, MR, Offsets, Shape, Sweep, pack_weights};
use super::epilogue::Epilogue;
use super::im2col::Geom;
use super::simd::Scalar;
use super::util::par_tasks;
use super::winograd_transform::{Run, XI, input_run, output_run, runs, weight_transform};
use crate::iter::SendPtr;

/// Bytes of transformed input per block.
const V_BYTES: usize = 1 << 20;
/// Bytes of products per chunk of output channels.
const M_BYTES: usize = 1 << 18;

/// The transformed 3×3 weights `U_ξ` (each `O × C`), packed in `MR`-row panels per
/// point, and the bias.
#[derive(Clone, Debug)]
pub(crate) struct WinogradWeights {
    packed: Vec<f32>,
    /// Elements per point: `ceil(O / MR)·C·MR`.
    per_xi: usize,
    bias: Vec<f32>,
    o: usize,
    c: usize,
}

impl WinogradWeights {
    /// Transforms and packs `wt` (`(O, C, 3, 3)` row-major) and the bias.
    pub fn new(wt: &[f32], bias: Option<&[f32]>, o: usize, c: usize) -> Self {
        let mut u = vec![vec![0.0f32; o * c]; XI];
        for (oc, g) in wt.chunks_exact(9).enumerate() {
            let t = weight_transform(g.try_into().expect("3×3 kernel"));
            for (xi, &v) in t.iter().enumerate() {
                u[xi][oc] = v;
            }
        }
        let per_xi = o.div_ceil(MR) * c * MR;
        let mut packed = Vec::with_capacity(XI * per_xi);
        for ux in &u {
            packed.extend_from_slice(&pack_weights(ux, o, c));
        }
        WinogradWeights {
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
    /// Tiles per block (the last may have fewer) and the point-row stride of `V` and `M`.
    tb: usize,
    vs: usize,
    /// The channel stride of `V`: its 16 point rows plus one cache line, so that the
    /// products, which read one vector per input channel, do not find every channel
    /// in the same L1 set (`16·vs` floats is a multiple of 4 KiB for `vs = 64`, the
    /// 14×14 layers at batch 1).
    cs: usize,
    /// Panels per chunk of output channels.
    chunk_panels: usize,
}

impl Plan {
    fn new(g: &Geom, n: usize, c: usize, o: usize, level: Level, threads: usize) -> Self {
        let (th, tw) = (g.oh.div_ceil(2), g.ow.div_ceil(2));
        let total = n * th * tw;
        let want = (V_BYTES / (XI * c * size_of::<f32>())).clamp(16, 512);
        let blocks = total.div_ceil(want);
        let tb = total.div_ceil(blocks);
        let vs = Sweep::new(level, tb).end();
        let group = level.narrow().panels;
        let panels = o.div_ceil(MR);
        let mut chunk_panels = (M_BYTES / (XI * vs * MR * size_of::<f32>()))
            .max(1)
            .next_multiple_of(group);
        if threads > 1 && blocks < 2 * threads {
            // The chunks are the parallel tasks: about four per thread where possible
            // (with two, chunks rounded to whole narrow groups leave one thread up to a
            // quarter more work: 18 + 18 against 18 + 10 panels for 512 channels).
            let per = panels.div_ceil(4 * threads).next_multiple_of(group);
            chunk_panels = chunk_panels.min(per);
        }
        Plan {
            th,
            tw,
            total,
            tb,
            vs,
            cs: XI * vs + 16,
            chunk_panels: chunk_panels.min(panels.next_multiple_of(group)),
        }
    }

    fn blocks(&self) -> usize {
        self.total.div_ceil(self.tb)
    }
}

thread_local! {
    /// The thread's `V` and `M` buffers, kept between calls (fresh megabytes per call are
    /// page-faulted and zeroed each time).
    static BUFFERS: std::cell::Cell<(Vec<f32>, Vec<f32>)> = const { std::cell::Cell::new((Vec::new(), Vec::new())) };
}

/// Buffers kept per thread up to this size.
const KEEP_BYTES: usize = 8 << 20;

/// Runs `f` with the thread's buffers grown to at least `v_len` and `m_len` elements
/// (their contents are stale: callers write before they read).
fn with_buffers<R>(v_len: usize, m_len: usize, f: impl FnOnce(&mut [f32], &mut [f32]) -> R) -> R {
    let (mut v, mut m) = BUFFERS.take();
    if v.len() < v_len {
        v = vec![0.0; v_len];
    }
    if m.len() < m_len {
        m = vec![0.0; m_len];
    }
    let r = f(&mut v[..v_len], &mut m[..m_len]);
    if (v.len() + m.len()) * size_of::<f32>() <= KEEP_BYTES {
        BUFFERS.set((v, m));
    }
    r
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
    let plan = Plan::new(g, n, c, o, level, threads);
    let chunks = o.div_ceil(MR).div_ceil(plan.chunk_panels);
    let v_len = c * plan.cs;
    // (A vector of slack: the output transform reads whole vectors.)
    let m_len = XI * plan.chunk_panels * MR * plan.vs + 16;
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
    let blocks = plan.blocks();
    if threads == 1 || blocks >= 2 * threads {
        par_tasks(blocks, Vec::new, |block_runs, b| {
            let (t0, t1) = (b * plan.tb, ((b + 1) * plan.tb).min(plan.total));
            runs(t0, t1, plan.th, plan.tw, block_runs);
            with_buffers(v_len, m_len, |v, m| {
                ctx.transform_in(block_runs, 0..c, v);
                for ci in 0..chunks {
                    ctx.chunk(block_runs, t1 - t0, ci, v, m);
                }
            });
        });
    } else {
        let mut v = vec![0.0f32; v_len];
        let mut block_runs = Vec::new();
        let parts = (2 * threads).min(c);
        let per = c.div_ceil(parts);
        for b in 0..blocks {
            let (t0, t1) = (b * plan.tb, ((b + 1) * plan.tb).min(plan.total));
            runs(t0, t1, plan.th, plan.tw, &mut block_runs);
            let vptr = SendPtr(v.as_mut_ptr());
            par_tasks(
                parts,
                || (),
                |_, p| {
                    let cs = (p * per).min(c)..((p + 1) * per).min(c);
                    let len = cs.len() * plan.cs;
                    // SAFETY: channels `cs` own elements cs.start·plan.cs.. of `v` (C·plan.cs
                    // long): disjoint between parts, and `v` is not otherwise used during
                    // this loop.
                    let vp = unsafe { std::slice::from_raw_parts_mut(vptr.get().add(cs.start * plan.cs), len) };
                    ctx.transform_in(&block_runs, cs, vp);
                },
            );
            par_tasks(
                chunks,
                || (),
                |_, ci| with_buffers(0, m_len, |_, m| ctx.chunk(&block_runs, t1 - t0, ci, &v, m)),
            );
        }
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
                transform_in_level(self.level, xc, g, r, vc, vs);
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
        for xi in 0..XI {
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
                unsafe { transform_out_level(level, &m[r * vs..], ob * vs, w.bias[oc], g, run, plane) };
                if !self.epi.is_identity() {
                    let (x0, y0) = (2 * run.tx0, 2 * run.ty);
                    let width = (2 * run.len).min(g.ow - x0);
                    let ys = y0..(y0 + 2).min(g.oh);
                    let spans = if width == g.ow {
                        [(ys.start * g.ow, ys.len() * g.ow), (0, 0)]
                    } else {
                        [
                            (y0 * g.ow + x0, width),
                            ((y0 + 1) * g.ow + x0, if ys.len() > 1 { width } else { 0 }),
                        ]
                    };
                    for (off, len) in spans.into_iter().filter(|s| s.1 > 0) {
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

/// [`input_run`] compiled for `level`.
fn transform_in_level(level: Level, xc: &[f32], g: &Geom, r: &Run, v: &mut [f32], vs: usize) {
    match level {
        // SAFETY: the level's features were detected.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { x86::input512(xc, g, r, v, vs) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { x86::input256(xc, g, r, v, vs) },
        // SAFETY: plain Rust.
        Level::Portable => unsafe { input_run::<Scalar<f32>>(xc, g, r, v, vs) },
    }
}

/// [`output_run`] compiled for `level`.
///
/// # Safety
/// As [`output_run`] (whose features `level` names).
unsafe fn transform_out_level(level: Level, m: &[f32], ms: usize, bias: f32, g: &Geom, r: &Run, out: *mut f32) {
    match level {
        // SAFETY: the level's features were detected; the output is the caller's contract.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { x86::output512(m, ms, bias, g, r, out) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { x86::output256(m, ms, bias, g, r, out) },
        // SAFETY: plain Rust; the output is the caller's contract.
        Level::Portable => unsafe { output_run::<Scalar<f32>>(m, ms, bias, g, r, out) },
    }
}

/// The transforms compiled for each x86 level.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::im2col::Geom;
    use super::super::simd::{Avx2, Avx512};
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
}
