//! A channel-vectorised convolution followed by a max pool, in one pass over the
//! convolution's output (ResNet's stem: 7×7/2 then 3×3/2): each task computes a band
//! of the convolution's output rows for one chunk of channels into a scratch buffer
//! that stays in the core's cache, and pools the band's rows into the final output
//! right away. The convolution's full output (3.2 MB per image in the stem) is never
//! written to memory and read back, and the pool reads rows the same core has just
//! written instead of rows the other core may hold.
//!
//! A band of pooled rows needs the convolution rows under its windows; the rows
//! shared by two bands' windows (one row for a 3×3/2 pool) are computed by both, so the
//! bands are kept long (the extra work is one row in a band of tens).

use super::conv_block::Level;
use super::conv_chvec::{BAND_BYTES, ChvecWeights, Plan, in_store, pad, tasks_wanted};
use super::conv_chvec_kernel::Finish;
use super::epilogue::{Activation, Epilogue};
use super::im2col::Geom;
use super::pool_geom::PoolGeom;
use super::pool_kernel::{Reduce, Scratch, pool_plane_f32};
use super::util::par_tasks;
use crate::iter::SendPtr;
use std::mem::MaybeUninit;

/// The convolution rows under the windows of pooled rows `a..b` of `pg` (clipped to the
/// convolution's `OH` rows), and the top padding of that band seen as its own plane.
fn band_rows(pg: &PoolGeom, a: usize, b: usize) -> (usize, usize, usize) {
    let (s, p, reach) = (pg.s[0] as isize, pg.p[0] as isize, ((pg.k[0] - 1) * pg.d[0]) as isize);
    let first = a as isize * s - p;
    let last = (b as isize - 1) * s - p + reach + 1;
    let (r0, r1) = (first.max(0) as usize, (last.max(0) as usize).min(pg.input[0]));
    (r0, r1, (r0 as isize - first) as usize)
}

/// `max_pool(act(conv2d(x)))` on row-major `f32` buffers: the convolution as
/// [`super::conv_chvec::conv2d_chvec`] with activation `act` (no residual), then the
/// max pool of geometry `pg` (whose input is the convolution's `OH × OW`); returns
/// `(N, O, POH, POW)`.
pub(crate) fn conv2d_chvec_max_pool(
    x: &[f32],
    w: &ChvecWeights,
    n: usize,
    g: &Geom,
    level: Level,
    act: Activation,
    pg: &PoolGeom,
) -> Vec<f32> {
    assert_eq!(
        pg.input,
        [g.oh, g.ow],
        "conv2d + max pool: pool input is the convolution's output"
    );
    let (groups, og) = (w.groups(), w.out_per_group());
    let o = og * groups;
    let (poh, pow) = (pg.out[0], pg.out[1]);
    let pplane = poh * pow;
    if n * o * pplane == 0 {
        return Vec::new();
    }
    let padded = pad(x, n * groups * g.cg, g);
    let plan = Plan::new(padded.as_deref().unwrap_or(x), w, g, level);
    let (images, chunks) = (n * groups, plan.chunks());
    // Bands of pooled rows: the convolution rows under them bounded as the
    // convolution's own bands are (input rows in BAND_BYTES) and their scratch (the
    // tile's channels × rows × OW) by the same, split further until there are several
    // tasks per thread.
    let row_bytes = plan.tile_channels() * g.ow * size_of::<f32>();
    let conv_rows = plan.rows_fitting(BAND_BYTES).min((BAND_BYTES / row_bytes).max(1));
    let span = (pg.k[0] - 1) * pg.d[0] + 1;
    let fit = (conv_rows.saturating_sub(span) / pg.s[0] + 1).clamp(1, poh);
    let bands = poh.div_ceil(fit).max(tasks_wanted().div_ceil(images * chunks)).min(poh);
    let rows = poh.div_ceil(bands);
    let bands = poh.div_ceil(rows);
    let most = (0..bands)
        .map(|bi| {
            let (r0, r1, _) = band_rows(pg, bi * rows, ((bi + 1) * rows).min(poh));
            r1 - r0
        })
        .max()
        .unwrap_or(0);
    let epi = Epilogue { residual: None, act };
    // ReLU in the stores (`Finish` holds a pointer, so it is made in each task).
    let relu = in_store(act) && act == Activation::Relu;
    let mut out = crate::linalg::alloc::output_buffer::<f32>(n * o * pplane);
    let out_len = out.capacity();
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        images * chunks * bands,
        || {
            let conv = vec![0.0f32; plan.tile_channels() * most * g.ow];
            (plan.tile_scratch(), conv, Scratch::<f32>::new(pg, 16))
        },
        |(tmp, conv, sc), t| {
            let (img, bi, ci) = (t / (chunks * bands), t / chunks % bands, t % chunks);
            let (ni, gi) = (img / groups, img % groups);
            let (a, b) = (bi * rows, ((bi + 1) * rows).min(poh));
            let (r0, r1, top) = band_rows(pg, a, b);
            let (c0, cn) = plan.chunk(ci);
            let cplane = (r1 - r0) * g.ow;
            assert!(cn * cplane <= conv.len(), "conv2d + max pool: band outside its scratch");
            let fin = Finish {
                res: std::ptr::null(),
                relu,
            };
            // SAFETY: channels below cn, band offsets below (r1 − r0)·OW: inside this
            // task's scratch (asserted), which no one else touches; no residual.
            unsafe { plan.rows(tmp, img, ci, r0, r1, conv.as_mut_ptr(), cplane, |_| fin) };
            let band = PoolGeom {
                input: [r1 - r0, g.ow],
                out: [b - a, pow],
                p: [top, pg.p[1]],
                ..*pg
            };
            let first = (ni * o + gi * og + c0) * pplane + a * pow;
            assert!(
                first + (cn - 1) * pplane + (b - a) * pow <= out_len,
                "conv2d + max pool: output band outside its buffer"
            );
            for c in 0..cn {
                let cv = &mut conv[c * cplane..][..cplane];
                if !in_store(act) {
                    epi.apply(cv, 0);
                }
                // SAFETY: pooled rows a..b of channel c0 + c of image ni, group gi: inside
                // `out`'s capacity (asserted) and written by this task only (tasks own
                // disjoint channel chunks × bands of rows).
                let dst = unsafe {
                    std::slice::from_raw_parts_mut(
                        optr.get().add(first + c * pplane).cast::<MaybeUninit<f32>>(),
                        (b - a) * pow,
                    )
                };
                pool_plane_f32(level, cv, &band, Reduce::Max, dst, sc);
            }
        },
    );
    // SAFETY: the capacity is n·o·POH·POW, and the tasks cover every (image, group,
    // channel chunk, band of pooled rows), each pooling every row of its channels (the
    // plane kernel writes every element of its output).
    unsafe { out.set_len(n * o * pplane) };
    out
}
