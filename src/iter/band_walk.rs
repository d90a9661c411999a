//! The walk of the transposing kernels ([`super::transpose`], [`super::transposed_zip`])
//! over one band of output columns: steps of `depth` block rows down the band, the
//! blocks of a step in a fixed order, software prefetch of later blocks into L1 and of
//! later steps into L2.
//!
//! A block is `s × s` elements (`s` = one cache line of the transposed operand). A step
//! of a band `width` blocks wide and `depth` blocks deep reads `depth` whole lines of
//! each of the band's `width·s` memory rows of the transposed operand, and writes (and,
//! for a binary operation, reads) runs of `width` lines of `depth·s` rows.

use std::ops::Range;

/// The shape of the walk; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tiling {
    /// Band width in blocks.
    pub width: usize,
    /// Step depth in blocks (within a step the blocks are taken down each block
    /// column before the next one).
    pub depth: usize,
    /// Blocks ahead (in visiting order) prefetched into L1; 0 for none.
    pub near: usize,
    /// Steps ahead prefetched into L2; 0 for none.
    pub far: usize,
}

/// Visits every block of the band `cols` (a multiple of `s` wide) over the first
/// `rows` rows (a multiple of `s`): `block(i0, j0)` for the block of output rows
/// `i0..i0 + s` and columns `j0..j0 + s`; `lines(rows, cols, l2)` prefetches the
/// operands' lines of an output tile into L1 or (with `l2`) L2.
#[inline(always)]
pub(super) fn walk_band(
    rows: usize,
    cols: Range<usize>,
    s: usize,
    t: Tiling,
    mut block: impl FnMut(usize, usize),
    mut lines: impl FnMut(Range<usize>, Range<usize>, bool),
) {
    let step = t.depth.max(1) * s;
    let width = cols.len() / s;
    // The k-th block of the step starting at row `i0` (which may be a shorter last
    // step), down each block column first.
    let coord = |i0: usize, k: usize| {
        let depth = (rows - i0).min(step) / s;
        (i0 + k % depth * s, cols.start + k / depth * s)
    };
    let mut i0 = 0;
    while i0 < rows {
        let n = (rows - i0).min(step) / s * width;
        if t.far > 0 {
            let ip = i0 + t.far * step;
            if ip < rows {
                lines(ip..(ip + step).min(rows), cols.clone(), true);
            }
        }
        for k in 0..n {
            if t.near > 0 {
                let (ni, nk) = if k + t.near < n {
                    (i0, k + t.near)
                } else {
                    (i0 + step, k + t.near - n)
                };
                if ni < rows && nk < (rows - ni).min(step) / s * width {
                    let (pi, pj) = coord(ni, nk);
                    lines(pi..pi + s, pj..pj + s, false);
                }
            }
            let (bi, bj) = coord(i0, k);
            block(bi, bj);
        }
        i0 += step;
    }
}

/// The walks the kernels' tests run: the defaults' shapes, other widths and depths,
/// with and without prefetch.
#[cfg(test)]
pub(super) fn test_tilings() -> [Tiling; 5] {
    let t = |width, depth, near, far| Tiling {
        width,
        depth,
        near,
        far,
    };
    [
        t(8, 4, 4, 2),
        t(8, 1, 8, 4),
        t(4, 4, 4, 2),
        t(3, 2, 1, 1),
        t(16, 3, 0, 0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block visited exactly once, in bounds, for depths that do and do not
    /// divide the rows; prefetches stay within the band.
    #[test]
    fn visits_every_block_once() {
        for (rows, width, depth) in [(64, 2, 1), (80, 3, 2), (112, 1, 4), (16, 4, 3)] {
            let s = 16;
            let cols = 32..32 + width * s;
            let t = Tiling {
                width,
                depth,
                near: 3,
                far: 2,
            };
            let mut seen = vec![0u32; rows / s * width];
            let mut prefetched = 0;
            walk_band(
                rows,
                cols.clone(),
                s,
                t,
                |i, j| {
                    assert!(i % s == 0 && i < rows && cols.contains(&j) && j % s == 0);
                    seen[i / s * width + (j - cols.start) / s] += 1;
                },
                |r, c, _| {
                    assert!(r.end <= rows && c.start >= cols.start && c.end <= cols.end);
                    prefetched += 1;
                },
            );
            assert!(seen.iter().all(|&v| v == 1), "{rows} {width} {depth}: {seen:?}");
            assert!(prefetched > 0);
        }
    }
}
