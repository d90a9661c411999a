//! The im2col + GEMM convolution (any GEMM-native type): tasks `(image, group, tile of
//! output positions)`; each unfolds its tile (skipped for 1×1 kernels, whose im2col
//! matrix is the input itself), computes `out[n, group, tile] = bias + W_group @ cols`
//! with one GEMM call, and runs the epilogue on the tile's rows while they are in cache.

use super::epilogue::{ActFloat, Epilogue};
use super::im2col::{Geom, im2col_tile};
use super::util::par_tasks;
use crate::element::Num;
use crate::iter::SendPtr;
use crate::linalg::gemm_kernels::{MatMut, MatRef, gemm_into};

/// Bytes of im2col scratch per task: small enough to stay in L2 next to the GEMM's
/// packed panels.
const TILE_BYTES: usize = 1 << 20;

/// The geometry of a convolution lowered to im2col + GEMM (2-D: [`Geom`]; 3-D:
/// [`super::vol2col::Geom3`]), as the GEMM driver sees it.
pub(crate) trait Unfold: Sync {
    /// Rows of the unfolded matrix: input channels per group × kernel taps.
    fn k(&self) -> usize;
    /// Output positions per image.
    fn positions(&self) -> usize;
    /// Input elements of one group of one image.
    fn group_input(&self) -> usize;
    /// True when the unfolded matrix is the input itself (1×1 kernel, stride 1, no
    /// padding).
    fn is_pointwise(&self) -> bool;
    /// Writes the `K × len` unfolded rows of positions `p0..p0 + len` of one image's
    /// group `x` into `out`.
    fn unfold_tile<T: Copy + Default>(&self, x: &[T], p0: usize, len: usize, out: &mut [T]);
}

impl Unfold for Geom {
    fn k(&self) -> usize {
        Geom::k(self)
    }
    fn positions(&self) -> usize {
        Geom::positions(self)
    }
    fn group_input(&self) -> usize {
        self.cg * self.h * self.w
    }
    fn is_pointwise(&self) -> bool {
        Geom::is_pointwise(self)
    }
    fn unfold_tile<T: Copy + Default>(&self, x: &[T], p0: usize, len: usize, out: &mut [T]) {
        im2col_tile(x, self, p0, len, out)
    }
}

/// `conv2d` (or `conv3d`) of row-major `x` `(N, C, spatial…)` with `wt`
/// `(O, C_g, kernel…)`; returns `(N, O, output positions)` after the epilogue.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv2d_gemm<T: ActFloat + Num>(
    x: &[T],
    wt: &[T],
    bias: Option<&[T]>,
    n: usize,
    o: usize,
    groups: usize,
    g: &impl Unfold,
    epi: &Epilogue<T>,
) -> Vec<T> {
    let (k, p_all) = (g.k(), g.positions());
    let og = o / groups;
    let mut out = vec![T::zero(); n * o * p_all];
    if out.is_empty() {
        return out;
    }
    let pointwise = g.is_pointwise();
    let tile = if pointwise {
        // Tiles of positions (all channels): the epilogue then reads cached rows.
        (TILE_BYTES / (og * size_of::<T>()).max(1))
            .clamp(64, p_all.max(64))
            .min(p_all)
    } else {
        (TILE_BYTES / (k * size_of::<T>()).max(1))
            .clamp(64, p_all.max(64))
            .min(p_all)
    };
    let tiles = p_all.div_ceil(tile);
    let tasks = n * groups * tiles;
    let plane_in = groups * g.group_input();
    let optr = SendPtr(out.as_mut_ptr());
    let out_len = out.len();
    // One thread per task; GEMM threads only when there are fewer tasks than threads.
    let gemm_threads = if tasks >= crate::threads::num_threads() {
        1
    } else {
        crate::threads::num_threads()
    };
    par_tasks(
        tasks,
        || {
            if pointwise {
                Vec::new()
            } else {
                vec![T::zero(); k * tile]
            }
        },
        |cols, t| {
            let (ni, rest) = (t / (groups * tiles), t % (groups * tiles));
            let (gi, ti) = (rest / tiles, rest % tiles);
            let p0 = ti * tile;
            let len = tile.min(p_all - p0);
            let xg = &x[ni * plane_in + gi * g.group_input()..][..g.group_input()];
            let rhs = if pointwise {
                MatRef {
                    ptr: xg.as_ptr().wrapping_add(p0),
                    rs: p_all as isize,
                    cs: 1,
                }
            } else {
                g.unfold_tile(xg, p0, len, cols);
                MatRef::row_major(cols, 0, k, len)
            };
            let lhs = MatRef::row_major(wt, gi * og * k, og, k);
            let d0 = (ni * o + gi * og) * p_all + p0;
            assert!(
                d0 + (og - 1) * p_all + len <= out_len,
                "conv2d: output tile outside buffer"
            );
            let dst = optr.get().wrapping_add(d0);
            // SAFETY: row r < og of this task's tile, inside `out` (asserted above); tasks
            // write disjoint (image, group, tile) blocks.
            let row = |r: usize| unsafe { std::slice::from_raw_parts_mut(dst.add(r * p_all), len) };
            if let Some(b) = bias {
                for r in 0..og {
                    row(r).fill(b[gi * og + r]);
                }
            }
            // SAFETY: dst is the og × len block at (ni, gi·og, p0) with row stride OH·OW,
            // inside `out` (asserted above) and written by this task only; lhs is the
            // group's og × k weight block inside `wt` (checked by `row_major`); rhs is
            // either the k × len im2col tile in `cols` or, for 1×1 kernels, the group's
            // input channels (k = C_g rows of OH·OW = H·W positions) from column p0 on.
            unsafe {
                gemm_into(
                    bias.is_some(),
                    og,
                    len,
                    k,
                    lhs,
                    rhs,
                    MatMut {
                        ptr: dst,
                        rs: p_all as isize,
                        cs: 1,
                    },
                    gemm_threads,
                )
            };
            if !epi.is_identity() {
                for r in 0..og {
                    epi.apply(row(r), d0 + r * p_all);
                }
            }
        },
    );
    out
}
