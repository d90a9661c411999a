//! Binary operations with one transposed operand (`a + b.t()`) in two phases per tile:
//! the transposed operand's tile is first copied, transposed, into a contiguous
//! scratch tile that stays in L2, then the output tile is computed row by row from the
//! other operand and the scratch like a plain (untransposed) binary operation.
//!
//! Each phase reads memory in one pattern only: the first reads the transposed
//! operand's memory rows in runs of a tile's height (several lines of each row), the
//! second reads the other operand and writes the output in runs of a tile's width.
//! The reads of the next phase are prefetched in software into L2 during the current
//! one (the next tile's transposed rows while the output is written, the other
//! operand's tile rows while the scratch is filled), so memory is read through the
//! whole tile instead of waiting at each block. Tile sizes come from the L2 size read
//! at run time ([`scratch_tiling`]).

use super::SendPtr;
use super::operand::ReadPtr;
use super::transposed_zip::{Geometry, plain, store_line};
use std::mem::MaybeUninit;
use std::ops::Range;

/// The tiles of the two-phase walk; see [`scratch_tiling`] for the defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ScratchTiling {
    /// Output rows per tile (a multiple of the block side).
    pub rows: usize,
    /// Output columns per tile (a multiple of the block side).
    pub cols: usize,
}

/// The default tiles for elements of `elem` bytes of the transposed operand: a scratch
/// of an eighth of the L2 (128 KiB on a 1 MiB L2: 128 × 256 f32; 256 KiB on a 2 MiB
/// one) next to the prefetched lines of the next tile and the other operand's tile
/// (as much again each), `cols = 2·rows`, tiles taken down bands of columns, both
/// prefetches. Shape-only apart from the L2 size read at run time.
///
/// Measured on AMD EPYC Zen 5 (f32 4096², 2 threads, one process per variant, the
/// band walk of [`super::transposed_zip`] 6.7–9.3 ms in the same calls): 128 × 256
/// down bands 6.3, 6.3, 6.6 ms; along rows 7.1–7.8; 256 × 128 6.3; 64 × 512 6.7;
/// 128 × 512 7.4; 512 × 64 8.2; 32 × 1024 9.9; without the next tile's prefetch
/// 9.4, without the other operand's 7.1, without either 9.2; the other operand
/// prefetched one tile ahead instead 6.9–7.7. The same tiles read untransposed (a
/// diagnostic with wrong results) were no faster (9.8 ms against 9.2 without
/// prefetch): the transposed reads are not what limits it.
pub(super) fn scratch_tiling(elem: usize) -> ScratchTiling {
    let l2 = crate::cpu::cache_bytes().1.unwrap_or(1 << 20);
    let s = 64 / elem;
    let elems = (l2 / 8 / elem).max(2 * s * s);
    // rows · 2·rows = elems, rows a multiple of s
    let rows = (((elems / 2) as f64).sqrt() as usize / s).max(1) * s;
    ScratchTiling { rows, cols: 2 * rows }
}

/// A 64-byte aligned line of the scratch tile.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([MaybeUninit<u8>; 64]);

/// Writes `f(a(i, j), b(i, j))` for the whole geometry (the `b` operand transposed:
/// element `(i, j)` at `b + i + j·ldb`) tile by tile as the module docs say.
///
/// # Safety
/// As [`super::transposed_zip`]'s `run`: every element of the geometry readable
/// through `a` and `b`, the output writable by this call alone; AVX-512.
pub(super) unsafe fn run<A: Copy + Sync, B: Copy + Sync, O: Send>(
    out: SendPtr<MaybeUninit<O>>,
    a: ReadPtr<A>,
    b: ReadPtr<B>,
    g: Geometry,
    t: ScratchTiling,
    f: &(impl Fn(A, B) -> O + Sync),
) {
    let s = 64 / size_of::<B>();
    let (r1, c1) = (g.rows / s * s, g.cols / s * s);
    let (th, tw) = (t.rows.clamp(s, r1.max(s)), t.cols.clamp(s, c1.max(s)));
    let tiles = tile_list(r1, c1, th, tw);
    let threads = crate::threads::num_threads();
    let parts = if threads > 1 && g.rows * g.cols >= super::PARALLEL_THRESHOLD {
        threads.min(tiles.len()).max(1)
    } else {
        1
    };
    let part = |p: usize| {
        let mine = &tiles[p * tiles.len() / parts..(p + 1) * tiles.len() / parts];
        let lines = th * tw * size_of::<B>() / 64;
        let mut scratch = vec![Line([MaybeUninit::uninit(); 64]); lines];
        // SAFETY: every tile lies inside the geometry's whole blocks (`tile_list`), the
        // tiles of the parts are disjoint, the scratch holds `th·tw` elements of `B`;
        // AVX-512 (caller).
        unsafe { tiles_avx512(out, a, b, g, mine, tw, scratch.as_mut_ptr() as *mut B, f) };
    };
    if parts > 1 {
        use rayon::prelude::*;
        (0..parts).into_par_iter().for_each(part);
    } else {
        part(0);
    }
    // SAFETY: the rows and columns outside whole blocks lie inside the geometry (caller).
    unsafe {
        plain(out, a, b, g, r1..g.rows, 0..g.cols, f);
        plain(out, a, b, g, 0..r1, c1..g.cols, f);
    }
}

/// The tiles of at most `th × tw` covering `rows × cols` (multiples of the block
/// side), in visiting order: down each band of `tw` columns before the next band, so
/// each transposed memory row continues from one tile to the next.
fn tile_list(rows: usize, cols: usize, th: usize, tw: usize) -> Vec<(Range<usize>, Range<usize>)> {
    let (nr, nc) = (rows.div_ceil(th), cols.div_ceil(tw));
    (0..nr * nc)
        .map(|k| {
            let (ti, tj) = (k % nr, k / nr);
            (ti * th..((ti + 1) * th).min(rows), tj * tw..((tj + 1) * tw).min(cols))
        })
        .collect()
}

/// Both phases for each of `tiles` in turn, with the scratch `sc` (`tw` elements per
/// row): the tile's other-operand rows prefetched into L2 during the first phase, the
/// next tile's transposed rows during the second.
///
/// # Safety
/// Every tile inside the geometry's whole blocks, its output written by this call
/// alone; `sc` valid for `th·tw` elements with `th` the tallest tile, 64-byte aligned;
/// the CPU has AVX-512 (`crate::cpu::isa()`).
#[cfg_attr(
    all(target_arch = "x86_64", not(miri)),
    target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")
)]
#[allow(clippy::too_many_arguments)]
unsafe fn tiles_avx512<A: Copy, B: Copy, O>(
    out: SendPtr<MaybeUninit<O>>,
    a: ReadPtr<A>,
    b: ReadPtr<B>,
    g: Geometry,
    tiles: &[(Range<usize>, Range<usize>)],
    tw: usize,
    sc: *mut B,
    f: &impl Fn(A, B) -> O,
) {
    const S: usize = 16; // the largest block side (4-byte elements)
    let s = 64 / size_of::<B>();
    let mut tmp: [MaybeUninit<O>; S] = [const { MaybeUninit::uninit() }; S];
    for (k, (rows, cols)) in tiles.iter().enumerate() {
        // Phase 1: the scratch, block column by block column (each of the tile's
        // transposed memory rows read from its start to its end); meanwhile the other
        // operand's tile rows into L2, spread evenly over the blocks.
        let a_lines = Spread::new(rows.len(), cols.len() * size_of::<A>());
        let blocks = rows.len() / s * (cols.len() / s);
        let mut q = 0;
        for jb in cols.clone().step_by(s) {
            for i0 in rows.clone().step_by(s) {
                // SAFETY: the block's `s` transposed rows lie inside the tile (caller);
                // its `s` scratch rows of 64 bytes lie inside `sc` (`tw` elements a
                // row, the tile at most `tw` wide); AVX-512 (caller).
                unsafe {
                    let src = b.at(i0 as isize + jb as isize * g.ldb) as *const u8;
                    let ss = g.ldb as usize * size_of::<B>();
                    let d = sc.add((i0 - rows.start) * tw + (jb - cols.start)) as *mut u8;
                    let ds = tw * size_of::<B>();
                    if s == 16 {
                        super::transpose::x86::block16(src, ss, d, ds, false);
                    } else {
                        super::transpose::x86::block8(src, ss, d, ds, false);
                    }
                }
                let (from, to) = (a_lines.total * q / blocks, a_lines.total * (q + 1) / blocks);
                a_lines.each(from..to, |r, off| {
                    let p = a.at((rows.start + r) as isize * g.lda + cols.start as isize) as *const u8;
                    crate::cpu::prefetch_l2(p.wrapping_add(off));
                });
                q += 1;
            }
        }
        // Phase 2: the output rows from the other operand and the scratch; meanwhile
        // the next tile's transposed rows into L2, spread evenly over the rows.
        let next = tiles.get(k + 1);
        let b_lines = next.map(|(nr, nc)| Spread::new(nc.len(), nr.len() * size_of::<B>()));
        for (m, i) in rows.clone().enumerate() {
            if let (Some((nr, nc)), Some(bl)) = (next, &b_lines) {
                let (from, to) = (bl.total * m / rows.len(), bl.total * (m + 1) / rows.len());
                bl.each(from..to, |c, off| {
                    let p = b.at(nr.start as isize + (nc.start + c) as isize * g.ldb) as *const u8;
                    crate::cpu::prefetch_l2(p.wrapping_add(off));
                });
            }
            for j in cols.clone().step_by(s) {
                // SAFETY: the scratch row `m` was written in phase 1 (columns
                // `cols`); the other operand's and the output's `s` elements lie
                // inside the geometry and the output is this call's (caller).
                unsafe {
                    let bt = std::slice::from_raw_parts(sc.add(m * tw + (j - cols.start)), s);
                    let ar = std::slice::from_raw_parts(a.at(i as isize * g.lda + j as isize), s);
                    for ((o, &x), &y) in tmp[..s].iter_mut().zip(ar).zip(bt) {
                        o.write(f(x, y));
                    }
                    store_line(out.get().add(i * g.cols + j), &tmp[..s], g.stream);
                }
            }
        }
    }
    if g.stream {
        super::stream::fence();
    }
}

/// The cache lines of `rows` runs of `bytes` bytes each, numbered run after run, so
/// that a range of them can be prefetched a share at a time.
struct Spread {
    per_run: usize,
    total: usize,
}

impl Spread {
    fn new(runs: usize, bytes: usize) -> Self {
        let per_run = bytes.div_ceil(64);
        Spread {
            per_run,
            total: runs * per_run,
        }
    }

    /// Calls `at(run, byte offset)` for the lines `range`.
    #[inline(always)]
    fn each(&self, range: Range<usize>, mut at: impl FnMut(usize, usize)) {
        for l in range {
            at(l / self.per_run, l % self.per_run * 64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::transposed_zip::tests::check_padded;
    use super::*;

    /// Tiles cover every whole block exactly once, for tiles that do and do not divide
    /// the shape, and are taken down each band of columns first.
    #[test]
    fn tiles_cover_every_block_once() {
        for (rows, cols, th, tw) in [(64, 96, 32, 48), (80, 48, 48, 32), (16, 16, 64, 64)] {
            let mut seen = vec![0u8; rows * cols];
            let tiles = tile_list(rows, cols, th, tw);
            for w in tiles.windows(2) {
                let ((r0, c0), (r1, c1)) = (&w[0], &w[1]);
                assert!((c0 == c1 && r1.start == r0.end) || (c1.start == c0.end && r1.start == 0));
            }
            for (r, c) in tiles {
                assert!(r.len() <= th && c.len() <= tw && !r.is_empty() && !c.is_empty());
                for i in r {
                    for j in c.clone() {
                        seen[i * cols + j] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&v| v == 1), "{rows}x{cols} {th}x{tw}");
        }
    }

    #[test]
    fn spread_numbers_lines_run_after_run() {
        let sp = Spread::new(3, 130);
        assert_eq!((sp.per_run, sp.total), (3, 9));
        let mut got = vec![];
        sp.each(2..5, |r, off| got.push((r, off)));
        assert_eq!(got, vec![(0, 128), (1, 0), (1, 64)]);
    }

    #[test]
    fn default_tiles_are_whole_blocks() {
        for elem in [4, 8] {
            let t = scratch_tiling(elem);
            let s = 64 / elem;
            assert!(t.rows >= s && t.rows.is_multiple_of(s) && t.cols == 2 * t.rows, "{t:?}");
        }
    }

    /// Both phases against the definition: tiles smaller and larger than the shape,
    /// partial tiles, streamed or not, padded operands; 4- and 8-byte elements.
    #[test]
    #[cfg_attr(miri, ignore = "the AVX-512 kernel never runs under Miri")]
    fn two_phase_tiles_match_the_definition() {
        if !(cfg!(target_arch = "x86_64") && crate::cpu::isa() == crate::cpu::Isa::Avx512) {
            return;
        }
        fn one<T: crate::element::Num + std::fmt::Debug>() {
            let s = 64 / size_of::<T>();
            for (rows, cols) in [(2 * s, 4 * s), (3 * s, 2 * s), (s, s), (1024, 1024)] {
                let t = ScratchTiling { rows, cols };
                let shapes = [(200, 136), (131, 257), (64, 1040), (17, 33)];
                check_padded::<T>(&shapes, &format!("{t:?}"), |g, out, a, b| {
                    // SAFETY: the geometry's operands and output (`check_padded`); AVX-512
                    // checked above.
                    unsafe { run(out, a, b, g, t, &|x: T, y: T| x.wsub(y)) }
                });
            }
        }
        one::<f32>();
        one::<f64>();
        one::<i32>();
    }
}
