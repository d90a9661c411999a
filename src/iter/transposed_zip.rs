//! Binary operations with one transposed operand (`a + b.t()`) by bands of output
//! columns and in-register block transposes.
//!
//! The output (row-major) is cut into bands of [`BAND_BLOCKS`]`·s` columns (`s` = 16
//! for 4-byte, 8 for 8-byte elements of the transposed operand: one cache line). A band
//! walks down the rows in steps of `s`: each step reads the band's memory rows of the
//! transposed operand as one whole line each (`s·BAND_BLOCKS` sequential streams, every
//! byte used), transposes them in registers `s × s` at a time (the blocks of the
//! transposed copy, [`super::transpose`]), and combines them with the other operand's
//! rows read in place (pieces of `BAND_BLOCKS·64` bytes), writing output rows directly
//! with whole-line streaming stores when the output is larger than the cache. The
//! lines of steps ahead are prefetched in software, the next step into L1 and a few
//! more into L2, at distances from the cache sizes ([`prefetch_steps`]): the hardware
//! prefetchers do not follow the band's hundreds of short streams.
//!
//! Measured on AMD EPYC Zen 5 (f32 [4096²], 2 threads, same runs): 7.3–7.5 ms with
//! bands of 128 columns, 7.8–8.1 ms with 64, 8.7 with 256; bands of output rows instead
//! (the transposed operand read in short pieces) 9.1–10.6 ms; the staged 32×32 tiles
//! they replace 12.4–13.3 ms.

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
struct Geometry {
    rows: usize,
    cols: usize,
    lda: isize,
    ldb: isize,
    stream: bool,
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
        unsafe { run(out, ReadPtr(ap.at(abase)), ReadPtr(bp.at(bbase)), g, f) };
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
            run(out, ReadPtr(bp.at(bbase)), ReadPtr(ap.at(abase)), g, &|q: B, p: A| {
                f(p, q)
            })
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

/// How many steps (of `s` rows) ahead a band prefetches into L1 and into L2, from the
/// cache sizes, so that no distance is tuned on one CPU family: a step moves
/// `step_bytes` (the band's lines of both operands, 16 KiB for f32). Into L1 as far as
/// a third of the L1 holds (at least one step: the next step on a 48 KiB L1); into L2
/// as far as a sixteenth of the L2 holds, at least one step beyond the L1 distance and
/// at most 8 (4 steps on a 1 MiB L2, 8 on a 2 MiB one). Prefetches into L2 do not hold
/// the L1's miss buffers for long, which the band's 256 lines per step would fill.
/// Measured on AMD EPYC Zen 5 (f32 4096², 2 threads): 7.69–7.77 ms in 4 runs, the same
/// as the former fixed 4 steps into L1 (7.76–8.02 ms, 7.55–8.51 last session); as a
/// multiple of the transposed copy of the same run 1.82–1.96× against 1.88–1.99×.
fn prefetch_steps(step_bytes: usize) -> (usize, usize) {
    let (l1, l2) = crate::cpu::cache_bytes();
    let near = (l1.unwrap_or(32 << 10) / 3 / step_bytes.max(1)).max(1);
    let far = (l2.unwrap_or(1 << 20) / 16 / step_bytes.max(1)).clamp(near + 1, 8);
    (near, far)
}

/// # Safety
/// Every element `(i, j)` of the geometry readable at `a + i·lda + j` and
/// `b + i + j·ldb`, and `out + i·cols + j` writable by this call alone; AVX-512.
unsafe fn run<A: Copy + Sync, B: Copy + Sync, O: Send>(
    out: SendPtr<MaybeUninit<O>>,
    a: ReadPtr<A>,
    b: ReadPtr<B>,
    g: Geometry,
    f: &(impl Fn(A, B) -> O + Sync),
) {
    let s = 64 / size_of::<B>();
    let (along, across) = (g.rows / s, g.cols / s);
    let bands = across.div_ceil(BAND_BLOCKS);
    // One step reads a line of each of the band's transposed rows and `s` lines-wide
    // pieces of `s` rows of the other operand.
    let step_bytes = BAND_BLOCKS * s * 64 + s * BAND_BLOCKS * s * size_of::<A>();
    let pf = prefetch_steps(step_bytes);
    let band = |k: usize| {
        let (c0, c1) = (k * BAND_BLOCKS * s, ((k + 1) * BAND_BLOCKS).min(across) * s);
        // SAFETY: the band's blocks lie inside the geometry (caller); AVX-512 (caller).
        unsafe { band_avx512(out, a, b, g, along * s, c0..c1, pf, f) };
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
unsafe fn plain<A: Copy, B: Copy, O>(
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
/// first `rows` rows (a multiple of `s`), in steps of `s` rows.
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
    (near, far): (usize, usize),
    f: &impl Fn(A, B) -> O,
) {
    const S: usize = 16; // the largest block side (4-byte elements)
    let s = 64 / size_of::<B>();
    let mut tb: [MaybeUninit<B>; S * S] = [const { MaybeUninit::uninit() }; S * S];
    let mut tmp: [MaybeUninit<O>; S] = [const { MaybeUninit::uninit() }; S];
    for i0 in (0..rows).step_by(s) {
        for (steps, l2) in [(near, false), (far, true)] {
            let ip = i0 + steps * s;
            if ip < rows {
                prefetch_tile(a, b, g, ip..ip + s, cols.clone(), l2);
            }
        }
        for jb in cols.clone().step_by(s) {
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
        }
    }
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
    let lines = |p: *const u8, bytes: usize| {
        let mut o = 0;
        while o < bytes {
            if l2 {
                crate::cpu::prefetch_l2(p.wrapping_add(o));
            } else {
                crate::cpu::prefetch(p.wrapping_add(o));
            }
            o += 64;
        }
    };
    for j in cols.clone() {
        lines(
            b.at(rows.start as isize + j as isize * g.ldb) as *const u8,
            rows.len() * size_of::<B>(),
        );
    }
    for i in rows {
        lines(
            a.at(i as isize * g.lda + cols.start as isize) as *const u8,
            cols.len() * size_of::<A>(),
        );
    }
}

/// Stores the `s` computed outputs of one block row: one 64-byte streaming store when
/// they fill an aligned cache line, [`store_run_moved`] otherwise.
///
/// # Safety
/// As [`store_run_moved`]; inside an AVX-512 function.
#[inline(always)]
unsafe fn store_line<O>(dst: *mut MaybeUninit<O>, src: &[MaybeUninit<O>], stream: bool) {
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
mod tests {
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
