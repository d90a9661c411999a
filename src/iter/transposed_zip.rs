//! Binary operations with one transposed operand (`a + b.t()`) by bands of output
//! columns and in-register block transposes.
//!
//! The output (row-major) is cut into bands of [`BAND_BLOCKS`]`·s` columns (`s` = 16
//! for 4-byte, 8 for 8-byte elements of the transposed operand: one cache line). A band
//! walks down the rows; each block row of `s` rows reads the band's memory rows of the
//! transposed operand as one whole line each (`s·BAND_BLOCKS` sequential streams, every
//! byte used), transposes them in registers `s × s` at a time (the blocks of the
//! transposed copy, [`super::transpose`]), and combines them with the other operand's
//! rows read in place (pieces of `BAND_BLOCKS·64` bytes), writing output rows directly
//! with whole-line streaming stores when the output is larger than the cache. Steps
//! are [`STEP_BLOCKS`] block rows deep, so each transposed row is read in runs of
//! several lines ([`tiling`]); the next blocks are prefetched in software into L1 and
//! the steps ahead into L2, at distances from the cache sizes: the hardware
//! prefetchers do not follow the band's hundreds of short streams.
//!
//! Outputs large enough to be streamed take the two-phase tiles of
//! [`super::scratch_zip`] instead (measured 5–25 % faster there on AMD EPYC Zen 5,
//! f32 4096²); smaller ones, which stay in the caches, keep the band walk.
//!
//! Measured on AMD EPYC Zen 5 (f32 [4096²], 2 threads, same runs): 7.3–7.5 ms with
//! bands of 128 columns, 7.8–8.1 ms with 64, 8.7 with 256; bands of output rows instead
//! (the transposed operand read in short pieces) 9.1–10.6 ms; the staged 32×32 tiles
//! they replace 12.4–13.3 ms.

use super::band_walk::{Tiling, walk_band};
use super::operand::ReadPtr;
use super::stream::{fence, should_stream, store_run_moved};
use super::{Plan, SendPtr};
use std::mem::MaybeUninit;

/// Outputs smaller than this take the general path.
const MIN_ELEMS: usize = 64 * 64;

/// The shape of one transposed binary operation: output `rows × cols` (row-major,
/// contiguous), the plain operand's element `(i, j)` at `a + i·lda + j`, the transposed
/// operand's at `b + i + j·ldb`.
#[derive(Clone, Copy)]
pub(super) struct Geometry {
    pub rows: usize,
    pub cols: usize,
    pub lda: isize,
    pub ldb: isize,
    pub stream: bool,
}

/// Writes `f(a(i, j), b(i, j))` for the plan's whole output through `out` if the plan
/// is a 2-D binary operation with one transposed operand of 4- or 8-byte elements on a
/// CPU with AVX-512; returns `false` (writing nothing) otherwise.
///
/// # Safety
/// `plan` (operands: output, `a`, `b`) must be in bounds of `out`, `ap`, `bp`
/// (`check_plan_bounds`), and `out` written by nobody else meanwhile.
pub(super) unsafe fn zip_transposed<A: Copy + Sync, B: Copy + Sync, O: Send>(
    plan: &Plan<3>,
    out: SendPtr<MaybeUninit<O>>,
    ap: ReadPtr<A>,
    bp: ReadPtr<B>,
    f: &(impl Fn(A, B) -> O + Sync),
) -> bool {
    if !avx512() || plan.outer.len() != 1 || plan.len() < MIN_ELEMS || plan.inner[0] != 1 {
        return false;
    }
    let (rows, cols) = (plan.outer[0], plan.inner_len);
    let [ro, ra, rb] = std::array::from_fn(|k| plan.outer_strides[k][0]);
    let [_, sa, sb] = plan.inner;
    if ro != cols as isize {
        return false;
    }
    let stream = should_stream::<O>(plan.len());
    let [_, abase, bbase] = plan.base;
    if sa == 1 && rb == 1 && sb > 0 && matches!(size_of::<B>(), 4 | 8) {
        let g = Geometry {
            rows,
            cols,
            lda: ra,
            ldb: sb,
            stream,
        };
        // SAFETY: the plan's bounds are the caller's; the geometry restates the plan.
        unsafe { run(out, ReadPtr(ap.at(abase)), ReadPtr(bp.at(bbase)), g, None, f) };
        return true;
    }
    if sb == 1 && ra == 1 && sa > 0 && matches!(size_of::<A>(), 4 | 8) {
        let g = Geometry {
            rows,
            cols,
            lda: rb,
            ldb: sa,
            stream,
        };
        // SAFETY: as above, with the operands' roles swapped.
        unsafe {
            run(
                out,
                ReadPtr(bp.at(bbase)),
                ReadPtr(ap.at(abase)),
                g,
                None,
                &|q: B, p: A| f(p, q),
            )
        };
        return true;
    }
    false
}

fn avx512() -> bool {
    cfg!(all(target_arch = "x86_64", not(miri))) && crate::cpu::isa() == crate::cpu::Isa::Avx512
}

/// Width of a band in blocks (128 columns of f32, 64 of f64; see the module docs).
const BAND_BLOCKS: usize = 8;

/// Depth of a step in blocks: the transposed operand is read in runs of 4 lines per
/// memory row and step, the other operand and the output in runs of [`BAND_BLOCKS`]
/// lines of 4·`s` rows.
const STEP_BLOCKS: usize = 4;

/// The walk ([`walk_band`]): bands of [`BAND_BLOCKS`], steps of [`STEP_BLOCKS`] block
/// rows with the blocks taken down each block column, the next block column prefetched
/// into L1, and as many steps ahead into L2 as an eighth of the L2 holds (1–8): a step
/// moves `step_bytes` (64 KiB of input for f32), so 2 steps on a 1 MiB L2, 4 on a
/// 2 MiB one. Shape-only apart from the L2 size read at run time.
///
/// Measured on AMD EPYC Zen 5 (f32 4096², 2 threads, one process per value): 8.2, 8.4,
/// 8.5, 8.8 ms against 8.4, 8.8, 9.0, 9.2, 9.5 ms for the former steps of one block row
/// (the next step into L1, 4 into L2): about 5 %, inside the run-to-run noise. Steps
/// of 2 block rows, bands of 4 or 16 blocks, rows of blocks first, or no L1 prefetch
/// were not faster (8.5–9.8 ms, one run each).
fn tiling(step_bytes: usize) -> Tiling {
    let l2 = crate::cpu::cache_bytes().1.unwrap_or(1 << 20);
    Tiling {
        width: BAND_BLOCKS,
        depth: STEP_BLOCKS,
        near: STEP_BLOCKS,
        far: (l2 / 8 / step_bytes.max(1)).clamp(1, 8),
    }
}

/// # Safety
/// Every element `(i, j)` of the geometry readable at `a + i·lda + j` and
/// `b + i + j·ldb`, and `out + i·cols + j` writable by this call alone; AVX-512.
unsafe fn run<A: Copy + Sync, B: Copy + Sync, O: Send>(
    out: SendPtr<MaybeUninit<O>>,
    a: ReadPtr<A>,
    b: ReadPtr<B>,
    g: Geometry,
    tiling_or_default: Option<Tiling>,
    f: &(impl Fn(A, B) -> O + Sync),
) {
    if tiling_or_default.is_none() && g.stream {
        let t = super::scratch_zip::scratch_tiling(size_of::<B>());
        // SAFETY: as this function's.
        return unsafe { super::scratch_zip::run(out, a, b, g, t, f) };
    }
    let s = 64 / size_of::<B>();
    let (along, across) = (g.rows / s, g.cols / s);
    // One step reads a line of each of the band's transposed rows and `s` lines-wide
    // pieces of `s` rows of the other operand.
    let step_bytes = STEP_BLOCKS * (BAND_BLOCKS * s * 64 + s * BAND_BLOCKS * s * size_of::<A>());
    let t = tiling_or_default.unwrap_or_else(|| tiling(step_bytes));
    let bands = across.div_ceil(t.width);
    let band = |k: usize| {
        let (c0, c1) = (k * t.width * s, ((k + 1) * t.width).min(across) * s);
        // SAFETY: the band's blocks lie inside the geometry (caller); AVX-512 (caller).
        unsafe { band_avx512(out, a, b, g, along * s, c0..c1, t, f) };
    };
    let threads = crate::threads::num_threads();
    if threads > 1 && g.rows * g.cols >= super::PARALLEL_THRESHOLD && bands > 1 {
        use rayon::prelude::*;
        (0..bands)
            .into_par_iter()
            .with_min_len(bands.div_ceil(threads))
            .for_each(band);
    } else {
        (0..bands).for_each(band);
    }
    let (r1, c1) = (g.rows / s * s, g.cols / s * s);
    // SAFETY: the rows and columns outside whole blocks lie inside the geometry (caller).
    unsafe {
        plain(out, a, b, g, r1..g.rows, 0..g.cols, f);
        plain(out, a, b, g, 0..r1, c1..g.cols, f);
    }
}

/// Element by element, walking down the columns (the transposed operand's memory rows).
///
/// # Safety
/// As [`run`], for the rows and columns given.
#[inline(always)]
pub(super) unsafe fn plain<A: Copy, B: Copy, O>(
    out: SendPtr<MaybeUninit<O>>,
    a: ReadPtr<A>,
    b: ReadPtr<B>,
    g: Geometry,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    f: &impl Fn(A, B) -> O,
) {
    for j in cols {
        for i in rows.clone() {
            // SAFETY: inside the geometry (caller).
            unsafe {
                let x = *a.at(i as isize * g.lda + j as isize);
                let y = *b.at(i as isize + j as isize * g.ldb);
                (*out.get().add(i * g.cols + j)).write(f(x, y));
            }
        }
    }
}

/// One band: the output columns `cols` (a multiple of the block side `s` wide) of the
/// first `rows` rows (a multiple of `s`), walked as `t` says ([`walk_band`]).
///
/// # Safety
/// As [`run`] for these rows and columns; the CPU has AVX-512 (`crate::cpu::isa()`).
#[cfg_attr(
    all(target_arch = "x86_64", not(miri)),
    target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")
)]
#[allow(clippy::too_many_arguments)]
unsafe fn band_avx512<A: Copy, B: Copy, O>(
    out: SendPtr<MaybeUninit<O>>,
    a: ReadPtr<A>,
    b: ReadPtr<B>,
    g: Geometry,
    rows: usize,
    cols: std::ops::Range<usize>,
    t: Tiling,
    f: &impl Fn(A, B) -> O,
) {
    const S: usize = 16; // the largest block side (4-byte elements)
    let s = 64 / size_of::<B>();
    let mut tb: [MaybeUninit<B>; S * S] = [const { MaybeUninit::uninit() }; S * S];
    let mut tmp: [MaybeUninit<O>; S] = [const { MaybeUninit::uninit() }; S];
    let block = |i0: usize, jb: usize| {
        // SAFETY: the block's `s` source rows (`s` elements from row `i0` of the
        // output, columns `jb..jb + s`) lie inside the geometry (caller); `tb`
        // holds `s` rows of 64 bytes; AVX-512 (caller).
        unsafe {
            let src = b.at(i0 as isize + jb as isize * g.ldb) as *const u8;
            let ss = g.ldb as usize * size_of::<B>();
            let d = tb.as_mut_ptr() as *mut u8;
            if s == 16 {
                super::transpose::x86::block16(src, ss, d, 64, false);
            } else {
                super::transpose::x86::block8(src, ss, d, 64, false);
            }
        }
        for m in 0..s {
            let i = i0 + m;
            // SAFETY: row `m` of `tb` was written above (s elements); the output
            // row piece and the other operand's piece lie inside the geometry and
            // this band's outputs belong to this call (caller).
            unsafe {
                let bt = std::slice::from_raw_parts(tb.as_ptr().add(m * s) as *const B, s);
                let ar = std::slice::from_raw_parts(a.at(i as isize * g.lda + jb as isize), s);
                for ((t, &x), &y) in tmp[..s].iter_mut().zip(ar).zip(bt) {
                    t.write(f(x, y));
                }
                store_line(out.get().add(i * g.cols + jb), &tmp[..s], g.stream);
            }
        }
    };
    walk_band(rows, cols, s, t, block, |r, c, l2| prefetch_tile(a, b, g, r, c, l2));
    if g.stream {
        fence();
    }
}

/// Prefetches the lines of the tile `rows × cols` of both operands: the transposed
/// operand's memory rows `cols` (pieces of `rows.len()` elements) and the other
/// operand's rows `rows` (pieces of `cols.len()` elements).
#[inline(always)]
fn prefetch_tile<A: Copy, B: Copy>(
    a: ReadPtr<A>,
    b: ReadPtr<B>,
    g: Geometry,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    l2: bool,
) {
    for j in cols.clone() {
        prefetch_lines(
            b.at(rows.start as isize + j as isize * g.ldb) as *const u8,
            rows.len() * size_of::<B>(),
            l2,
        );
    }
    for i in rows {
        prefetch_lines(
            a.at(i as isize * g.lda + cols.start as isize) as *const u8,
            cols.len() * size_of::<A>(),
            l2,
        );
    }
}

/// Prefetches the lines of `bytes` bytes from `p` into L1 or (with `l2`) L2.
#[inline(always)]
pub(super) fn prefetch_lines(p: *const u8, bytes: usize, l2: bool) {
    let mut o = 0;
    while o < bytes {
        if l2 {
            crate::cpu::prefetch_l2(p.wrapping_add(o));
        } else {
            crate::cpu::prefetch(p.wrapping_add(o));
        }
        o += 64;
    }
}

/// Stores the `s` computed outputs of one block row: one 64-byte streaming store when
/// they fill an aligned cache line, [`store_run_moved`] otherwise.
///
/// # Safety
/// As [`store_run_moved`]; inside an AVX-512 function.
#[inline(always)]
pub(super) unsafe fn store_line<O>(dst: *mut MaybeUninit<O>, src: &[MaybeUninit<O>], stream: bool) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if stream && size_of_val(src) == 64 && (dst as usize).is_multiple_of(64) {
        use std::arch::x86_64::{_mm512_loadu_si512, _mm512_stream_si512};
        // SAFETY: 64 initialised bytes at `src`, 64 writable aligned bytes at `dst`
        // (caller); AVX-512F (caller).
        unsafe { _mm512_stream_si512(dst as *mut _, _mm512_loadu_si512(src.as_ptr() as *const _)) };
        return;
    }
    // SAFETY: guaranteed by the caller.
    unsafe { store_run_moved(dst, src, stream) }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::prelude::*;

    /// `a + b.t()` and `a.t() - b` against the element-by-element definition, for
    /// shapes around the band and block sizes, 4- and 8-byte elements, padded and
    /// offset operands; whichever path the CPU takes.
    #[test]
    #[cfg_attr(miri, ignore = "the AVX-512 kernel never runs under Miri; see small_shapes")]
    fn matches_the_definition() {
        for (r, c) in [
            (64, 64),
            (65, 80),
            (100, 70),
            (131, 257),
            (16, 300),
            (300, 17),
            (257, 1030),
        ] {
            check::<f32>(r, c);
            check::<f64>(r, c);
            check::<i32>(r, c);
        }
    }

    #[test]
    fn small_shapes() {
        for (r, c) in [(3, 5), (16, 16), (17, 9)] {
            check::<f32>(r, c);
            check::<f64>(r, c);
        }
    }

    /// A broadcast row and NaN/infinite values through the transposed path: the sums
    /// bit for bit (NaN where an operand is NaN).
    #[test]
    #[cfg_attr(miri, ignore = "large shapes; the kernel never runs under Miri")]
    fn broadcast_rows_and_nan() {
        let (r, c) = (70, 90);
        let row = Tensor::<f64, _>::from_shape_fn([1, c], |i: &[usize]| i[1] as f64 * 0.5 - 3.0);
        let mut bv: Vec<f64> = (0..c * r).map(|i| (i % 37) as f64 - 18.0).collect();
        bv[5] = f64::NAN;
        bv[c * 3 + 7] = f64::INFINITY;
        let b = Tensor::<f64, _>::from_vec(bv, [c, r]).unwrap();
        let got = &row + &b.t();
        assert_eq!(got.shape(), &[r, c]);
        for i in 0..r {
            for j in 0..c {
                let want = row[[0, j]] + b[[j, i]];
                let g = got[[i, j]];
                assert!(
                    g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                    "({i}, {j}): {g} vs {want}"
                );
            }
        }
        assert!(got[[5, 0]].is_nan());
        let bf = b.mapv(|x| x as f32);
        let rf = row.mapv(|x| x as f32);
        let gf = &bf.t() - &rf;
        for i in 0..r {
            for j in 0..c {
                let want = bf[[j, i]] - rf[[0, j]];
                let g = gf[[i, j]];
                assert!(
                    g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                    "({i}, {j}): {g} vs {want}"
                );
            }
        }
    }

    /// The band walks (widths, depths, prefetch distances, streamed or not)
    /// against the definition, on shapes with partial bands, steps and blocks.
    #[test]
    #[cfg_attr(miri, ignore = "the AVX-512 kernel never runs under Miri")]
    fn band_walks_match_the_definition() {
        use super::{avx512, run};
        if !avx512() {
            return;
        }
        fn one<T: crate::element::Num + std::fmt::Debug>() {
            for t in super::super::band_walk::test_tilings() {
                check_padded::<T>(
                    &[(200, 136), (131, 257), (64, 1040)],
                    &format!("{t:?}"),
                    |g, out, a, b| {
                        // SAFETY: the geometry's operands and output (`check_padded`); AVX-512
                        // checked above.
                        unsafe { run(out, a, b, g, Some(t), &|x: T, y: T| x.wsub(y)) }
                    },
                );
            }
        }
        one::<f32>();
        one::<f64>();
        one::<i32>();
    }

    /// Runs `kernel` (a transposed binary kernel computing `a - b.t()`) on padded
    /// operands (`a` rows `c + 3` apart, `b` rows `r + 5` apart) for every shape,
    /// streamed or not, into a pre-filled output, and checks every element.
    pub(in crate::iter) fn check_padded<T: crate::element::Num + std::fmt::Debug>(
        shapes: &[(usize, usize)],
        label: &str,
        kernel: impl Fn(super::Geometry, super::SendPtr<std::mem::MaybeUninit<T>>, super::ReadPtr<T>, super::ReadPtr<T>),
    ) {
        for &(r, c) in shapes {
            let (lda, ldb) = (c + 3, r + 5);
            let a: Vec<T> = (0..r * lda).map(|i| T::from_usize(i % 1009)).collect();
            let b: Vec<T> = (0..c * ldb).map(|i| T::from_usize((i * 7) % 1013)).collect();
            for stream in [false, true] {
                let g = super::Geometry {
                    rows: r,
                    cols: c,
                    lda: lda as isize,
                    ldb: ldb as isize,
                    stream,
                };
                let mut out = vec![std::mem::MaybeUninit::new(T::from_usize(7777)); r * c];
                kernel(
                    g,
                    super::SendPtr(out.as_mut_ptr()),
                    super::ReadPtr(a.as_ptr()),
                    super::ReadPtr(b.as_ptr()),
                );
                for i in 0..r {
                    for j in 0..c {
                        // SAFETY: every element was initialised by the fill above.
                        let got = unsafe { out[i * c + j].assume_init() };
                        let want = a[i * lda + j].wsub(b[i + j * ldb]);
                        assert_eq!(got, want, "{r}x{c} {label} stream {stream} at ({i}, {j})");
                    }
                }
            }
        }
    }

    fn check<T: crate::element::Num + std::fmt::Debug>(r: usize, c: usize) {
        let a = Tensor::<T, _>::from_vec((0..r * c).map(|i| T::from_usize(i % 1009)).collect(), [r, c]).unwrap();
        // b is stored [c + 3, r + 1] and viewed as its [c, r] corner, flipped or not.
        let bs = Tensor::<T, _>::from_vec(
            (0..(c + 3) * (r + 1)).map(|i| T::from_usize((i * 7) % 1013)).collect(),
            [c + 3, r + 1],
        )
        .unwrap();
        let b = bs.slice(s![1..c + 1, 1..r + 1]);
        let got = &a + &b.t();
        let got2 = &b.t() - &a;
        for i in 0..r {
            for j in 0..c {
                let (x, y) = (a[[i, j]], b[[j, i]]);
                assert_eq!(got[[i, j]], x.wadd(y), "{r}x{c} at ({i}, {j})");
                assert_eq!(got2[[i, j]], y.wsub(x), "{r}x{c} at ({i}, {j})");
            }
        }
    }
}
