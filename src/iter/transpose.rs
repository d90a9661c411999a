//! Copy of a transposed matrix into row-major order with in-register transposes.
//!
//! The engine's general tiled path stages every tile through an L1 buffer one element
//! at a time. For the commonest transposing copy (a 2-D `a.t().to_owned()` of 4- or
//! 8-byte elements) this kernel instead loads 16×16 (4-byte) or 8×8 (8-byte) blocks as
//! whole cache lines, transposes them in AVX-512 registers and writes whole lines,
//! with non-temporal stores when the output is large and its rows are line-aligned.
//! Blocks are visited in bands of output columns down the rows ([`super::band_walk`],
//! [`copy_tiling`]): the band's source memory rows are read as sequential streams, in
//! runs of several lines per step, and the output rows are written in runs of the
//! band's width.
//!
//! Measured on f32 [4096, 4096] (2 threads): 5 ms against 40–70 ms for the staged
//! path; without the streaming stores the line-strided writes alone cost 17 ms.

use super::band_walk::{Tiling, walk_band};
use super::stream::{fence, should_stream};
use super::{Plan, SendPtr, Src, check_plan_bounds};
use std::mem::MaybeUninit;

/// Outputs smaller than this take the general path (the set-up would not pay).
const MIN_ELEMS: usize = 64 * 64;

/// `shape`'s elements of `a` in row-major order, if the copy is a plain 2-D
/// transpose of 4- or 8-byte elements on a CPU with AVX-512; `None` otherwise.
pub(crate) fn transpose_copy<T: Copy + Send + Sync>(shape: &[usize], a: Src<'_, T>) -> Option<Vec<T>> {
    if !(size_of::<T>() == 4 || size_of::<T>() == 8) || !avx512() {
        return None;
    }
    let n: usize = shape.iter().product();
    if n < MIN_ELEMS {
        return None;
    }
    let cs = super::operand::c_strides(shape);
    let plan = Plan::<2>::new(shape, [&cs, a.strides], [0, a.off], true);
    // dst (i, j) at i·cols + j; src (i, j) at base + i + j·sa, sa > 0.
    if plan.outer.len() != 1 || plan.inner[0] != 1 || plan.outer_strides[1][0] != 1 || plan.inner[1] <= 1 {
        return None;
    }
    check_plan_bounds(&plan, [n, a.buf.len()]);
    let (rows, cols, sa) = (plan.outer[0], plan.inner_len, plan.inner[1] as usize);
    let src = a.buf.as_ptr().wrapping_offset(plan.base[1]);
    let mut out = crate::memory::alloc::uninit_vec::<T>(n);
    let dst = SendPtr(out.as_mut_ptr());
    let g = Geometry {
        rows,
        cols,
        sa,
        stream: should_stream::<T>(n),
    };
    // SAFETY: `check_plan_bounds` proved every source element lies in `a.buf`; the
    // output holds `rows·cols` elements; `avx512()` checked the CPU features.
    unsafe { run(src, dst, g, copy_tiling(size_of::<T>())) };
    // SAFETY: `run` wrote every element of the output exactly once.
    Some(unsafe { crate::memory::alloc::assume_init_vec(out) })
}

/// Stages the full `TILE`×`TILE` tile whose element `(i, c)` is at `p + i + c·cs`
/// (a transposed operand: unit stride down the tile's rows, `cs > 0`) into `buf`
/// (`buf[i·TILE + c]`) with the in-register block transposes of [`transpose_copy`]:
/// each source column is read as whole cache lines. Returns `false`, doing nothing,
/// unless the elements are 4 or 8 bytes and the CPU has AVX-512.
///
/// # Safety
/// Every element of the tile must be readable through `p`.
#[inline(always)]
pub(super) unsafe fn stage_tile<T: Copy>(p: *const T, cs: isize, buf: &mut super::tile::TileBuf<T>) -> bool {
    use super::tile::TILE;
    let elem = size_of::<T>();
    if !(elem == 4 || elem == 8) || cs <= 0 || !avx512() {
        return false;
    }
    let b = 64 / elem;
    let d0 = buf.as_mut_ptr() as *mut u8;
    for c0 in (0..TILE).step_by(b) {
        for i0 in (0..TILE).step_by(b) {
            // SAFETY: the block's `b` source columns of `b` elements lie inside the tile
            // (caller); its `b` destination rows of 64 bytes lie inside `buf` (i0 + b
            // and c0 + b are at most TILE); `avx512()` checked the CPU.
            unsafe {
                let s = p.offset(i0 as isize + c0 as isize * cs) as *const u8;
                let d = d0.add((i0 * TILE + c0) * elem);
                if elem == 4 {
                    x86::block16(s, cs as usize * 4, d, TILE * 4, false);
                } else {
                    x86::block8(s, cs as usize * 8, d, TILE * 8, false);
                }
            }
        }
    }
    true
}

fn avx512() -> bool {
    cfg!(all(target_arch = "x86_64", not(miri))) && crate::cpu::isa() == crate::cpu::Isa::Avx512
}

/// The copy's shape: `rows × cols` output, source column stride `sa` (row stride 1).
#[derive(Clone, Copy)]
struct Geometry {
    rows: usize,
    cols: usize,
    sa: usize,
    stream: bool,
}

/// Splits the output columns into a head, whole blocks of `b` columns and a tail, and
/// says whether the blocks are streamed: only when `g.stream` asks for it and every
/// output row starts its first block on a cache line (the head is the columns before
/// that line; without streaming there is no head).
fn column_split(first_col_addr: usize, elem: usize, g: Geometry, b: usize) -> (usize, usize, bool) {
    let aligned_rows = (g.cols * elem).is_multiple_of(64) && first_col_addr.is_multiple_of(elem);
    let head = ((64 - first_col_addr % 64) % 64 / elem).min(g.cols);
    if g.stream && aligned_rows && head < g.cols {
        (head, (g.cols - head) / b, true)
    } else {
        (0, g.cols / b, false)
    }
}

/// # Safety
/// `src + i + j·sa` readable and `dst + i·cols + j` writable (by this call alone) for
/// every `i < rows`, `j < cols`; the CPU has AVX-512F.
unsafe fn run<T: Copy + Send + Sync>(src: *const T, dst: SendPtr<MaybeUninit<T>>, g: Geometry, t: Tiling) {
    let elem = size_of::<T>();
    let b = 64 / elem; // block side: one cache line of elements
    let (head, blocks, stream) = column_split(dst.get() as usize, elem, g, b);
    let srcp = super::operand::ReadPtr(src);
    // Bands of `t.width` blocks of `b` columns (the source's memory rows, read in runs
    // of `t.depth` lines per step) split over the threads in contiguous halves; head
    // and tail columns and the last `rows % b` rows are copied plainly.
    let full_rows = g.rows / b * b;
    let bands = blocks.div_ceil(t.width);
    let band = |k: usize| {
        let c0 = head + k * t.width * b;
        let c1 = head + ((k + 1) * t.width).min(blocks) * b;
        // SAFETY: the band lies inside the matrix (caller), alignment for the
        // streaming stores was checked above, and the CPU has AVX-512F (caller).
        unsafe {
            band_copy(srcp, dst, g, full_rows, c0..c1, t, stream);
            plain(srcp.at(0), dst, g, full_rows..g.rows, c0..c1);
        }
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
    // SAFETY: inside the matrix (caller).
    unsafe {
        plain(src, dst, g, 0..g.rows, 0..head);
        plain(src, dst, g, 0..g.rows, head + blocks * b..g.cols);
    }
}

/// The copy's walk for elements of `elem` bytes: bands of 8 blocks (the columns of
/// 8 source lines), steps of 4 block rows (runs of 4 lines of each of the band's
/// source rows: 32 KiB of source per step for 4-byte elements) with the blocks taken
/// down each block column, the next block column prefetched into L1, and as many steps
/// ahead into L2 as a sixteenth of the L2 holds (1–8; 2 on a 1 MiB L2). The rule is
/// shape-only apart from the L2 size read at run time.
///
/// Measured on AMD EPYC Zen 5 (f32 4096², 2 threads, one process per variant): 3.1–3.4
/// ms against 4.0–4.1 ms for the former one task per block column (16 source streams,
/// single-line output writes); rows of blocks first (8 wide) 4.2 ms, 16 wide 4.7 ms.
fn copy_tiling(elem: usize) -> Tiling {
    let (width, depth) = (8, 4);
    let step_bytes = width * (64 / elem) * depth * 64;
    let far = (crate::cpu::cache_bytes().1.unwrap_or(1 << 20) / 16 / step_bytes).clamp(1, 8);
    Tiling {
        width,
        depth,
        near: depth,
        far,
    }
}

/// One band of output columns `cols` over the first `rows` rows (multiples of the
/// block side), walked as `t` says.
///
/// # Safety
/// As [`run`] for these rows and columns; with `stream`, every output row's block
/// starts on a cache line; the CPU has AVX-512.
#[cfg_attr(
    all(target_arch = "x86_64", not(miri)),
    target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")
)]
unsafe fn band_copy<T: Copy>(
    src: super::operand::ReadPtr<T>,
    dst: SendPtr<MaybeUninit<T>>,
    g: Geometry,
    rows: usize,
    cols: std::ops::Range<usize>,
    t: Tiling,
    stream: bool,
) {
    let elem = size_of::<T>();
    let b = 64 / elem;
    let block = |i0: usize, j0: usize| {
        // SAFETY: the block lies inside the matrix (caller); alignment for streaming
        // (caller); AVX-512 (caller).
        unsafe {
            let s = src.at(0).add(i0 + j0 * g.sa) as *const u8;
            let d = dst.get().add(i0 * g.cols + j0) as *mut u8;
            if elem == 4 {
                x86::block16(s, g.sa * 4, d, g.cols * 4, stream);
            } else {
                x86::block8(s, g.sa * 8, d, g.cols * 8, stream);
            }
        }
    };
    let lines = |r: std::ops::Range<usize>, c: std::ops::Range<usize>, l2: bool| {
        for j in c {
            let p = src.at(0).wrapping_add(r.start + j * g.sa) as *const u8;
            super::transposed_zip::prefetch_lines(p, r.len() * elem, l2);
        }
    };
    walk_band(rows, cols, b, t, block, lines);
    if stream {
        fence();
    }
}

/// Element-by-element copy of a sub-rectangle (read along the source's rows).
///
/// # Safety
/// As [`run`], for the rows and columns given.
unsafe fn plain<T: Copy>(
    src: *const T,
    dst: SendPtr<MaybeUninit<T>>,
    g: Geometry,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) {
    for j in cols {
        for i in rows.clone() {
            // SAFETY: guaranteed by the caller.
            unsafe { (*dst.get().add(i * g.cols + j)).write(*src.add(i + j * g.sa)) };
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(super) mod x86 {
    use std::arch::x86_64::*;

    /// Transposes the 16×16 block of 4-byte elements whose row `k` starts at
    /// `s + k·ss` (bytes) into rows at `d + m·ds`.
    ///
    /// # Safety
    /// All 16 source and destination rows of 64 bytes valid; with `stream`, every
    /// destination row 64-byte aligned; `crate::cpu::isa()` is `Avx512`.
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(in crate::iter) unsafe fn block16(s: *const u8, ss: usize, d: *mut u8, ds: usize, stream: bool) {
        // SAFETY: the loads and stores stay within the rows the caller vouches for.
        unsafe {
            let r: [__m512i; 16] = std::array::from_fn(|k| _mm512_loadu_si512(s.add(k * ss) as *const _));
            // 32-bit, then 64-bit interleaves within 128-bit lanes...
            let t: [__m512i; 16] = std::array::from_fn(|k| {
                let (a, b) = (r[k & !1], r[k | 1]);
                if k % 2 == 0 {
                    _mm512_unpacklo_epi32(a, b)
                } else {
                    _mm512_unpackhi_epi32(a, b)
                }
            });
            let u: [__m512i; 16] = std::array::from_fn(|k| {
                let base = k & !3;
                let (a, c) = if k % 4 < 2 {
                    (t[base], t[base + 2])
                } else {
                    (t[base + 1], t[base + 3])
                };
                if k % 2 == 0 {
                    _mm512_unpacklo_epi64(a, c)
                } else {
                    _mm512_unpackhi_epi64(a, c)
                }
            });
            // ...then 128-bit lanes across registers, twice.
            let v: [__m512i; 16] = std::array::from_fn(|k| {
                let (g, m) = (k / 8, k % 4);
                let (a, b) = (u[8 * g + m], u[8 * g + 4 + m]);
                if k % 8 < 4 {
                    _mm512_shuffle_i32x4::<0x88>(a, b)
                } else {
                    _mm512_shuffle_i32x4::<0xDD>(a, b)
                }
            });
            for m in 0..16 {
                let (a, b) = (v[m % 8], v[8 + m % 8]);
                let row = if m < 8 {
                    _mm512_shuffle_i32x4::<0x88>(a, b)
                } else {
                    _mm512_shuffle_i32x4::<0xDD>(a, b)
                };
                store(d.add(m * ds), row, stream);
            }
        }
    }

    /// Transposes the 8×8 block of 8-byte elements whose row `k` starts at `s + k·ss`
    /// (bytes) into rows at `d + m·ds`.
    ///
    /// # Safety
    /// As [`block16`] with 8 rows.
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(in crate::iter) unsafe fn block8(s: *const u8, ss: usize, d: *mut u8, ds: usize, stream: bool) {
        // SAFETY: as in `block16`.
        unsafe {
            let r: [__m512i; 8] = std::array::from_fn(|k| _mm512_loadu_si512(s.add(k * ss) as *const _));
            let t: [__m512i; 8] = std::array::from_fn(|k| {
                let (a, b) = (r[k & !1], r[k | 1]);
                if k % 2 == 0 {
                    _mm512_unpacklo_epi64(a, b)
                } else {
                    _mm512_unpackhi_epi64(a, b)
                }
            });
            let u: [__m512i; 8] = std::array::from_fn(|k| {
                let base = k & !3;
                let (a, c) = if k % 4 < 2 {
                    (t[base], t[base + 2])
                } else {
                    (t[base + 1], t[base + 3])
                };
                if k % 2 == 0 {
                    _mm512_shuffle_i64x2::<0x88>(a, c)
                } else {
                    _mm512_shuffle_i64x2::<0xDD>(a, c)
                }
            });
            for m in 0..8 {
                // u[2e + q] pairs rows (0,1) and (2,3) of columns e + 2q and e + 2q + 4.
                let i = 2 * (m % 2) + (m / 2) % 2;
                let (a, b) = (u[i], u[4 + i]);
                let row = if m < 4 {
                    _mm512_shuffle_i64x2::<0x88>(a, b)
                } else {
                    _mm512_shuffle_i64x2::<0xDD>(a, b)
                };
                store(d.add(m * ds), row, stream);
            }
        }
    }

    /// Stores one 64-byte vector, streaming (non-temporal) or not.
    ///
    /// # Safety
    /// The 64 bytes at `p` are writable by this caller alone, and 64-byte aligned when
    /// `stream`; AVX-512F is available.
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: __m512i, stream: bool) {
        // SAFETY: the caller guarantees the 64 bytes at `p` (aligned when streaming).
        unsafe {
            if stream {
                _mm512_stream_si512(p as *mut _, v)
            } else {
                _mm512_storeu_si512(p as *mut _, v)
            }
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
pub(super) mod x86 {
    /// Never called: no AVX-512 on this target.
    ///
    /// # Safety
    /// None needed (it panics).
    pub(in crate::iter) unsafe fn block16(_: *const u8, _: usize, _: *mut u8, _: usize, _: bool) {
        unreachable!("transpose_copy runs only where AVX-512 was detected")
    }
    /// Never called: no AVX-512 on this target.
    ///
    /// # Safety
    /// None needed (it panics).
    pub(in crate::iter) unsafe fn block8(_: *const u8, _: usize, _: *mut u8, _: usize, _: bool) {
        unreachable!("transpose_copy runs only where AVX-512 was detected")
    }
}

#[cfg(test)]
mod tests {
    use super::super::zip::Src;
    use super::*;

    /// The naive gather the kernel must match.
    fn reference<T: Copy>(buf: &[T], shape: &[usize], strides: &[isize], off: usize) -> Vec<T> {
        let (r, c) = (shape[0], shape[1]);
        let mut out = Vec::with_capacity(r * c);
        for i in 0..r {
            for j in 0..c {
                out.push(buf[(off as isize + i as isize * strides[0] + j as isize * strides[1]) as usize]);
            }
        }
        out
    }

    fn check<T: Copy + Send + Sync + PartialEq + std::fmt::Debug>(make: impl Fn(usize) -> T) {
        // (memory rows, memory cols) of the source; the copy is of its transpose.
        for (mr, mc, pad) in [(64, 64, 0), (100, 70, 3), (131, 257, 0), (48, 96, 5), (1024, 80, 0)] {
            let ld = mc + pad;
            let buf: Vec<T> = (0..mr * ld + 2).map(&make).collect();
            let (shape, strides) = ([mc, mr], [1isize, ld as isize]);
            for off in [0usize, 1] {
                let want = reference(&buf, &shape, &strides, off);
                let got = transpose_copy(&shape, Src::new(&buf, &strides, off));
                if avx512() {
                    let got = got.expect("a 2-D transpose");
                    let bad = got.iter().zip(&want).position(|(g, w)| g != w);
                    assert_eq!(bad, None, "{mr}x{mc} ld {ld} off {off}: first wrong element");
                } else {
                    assert!(got.is_none());
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "the AVX-512 kernel never runs under Miri")]
    fn matches_a_naive_gather_for_4_and_8_byte_elements() {
        check(|i| i as u32);
        check(|i| i as f32);
        check(|i| i as u64 * 3);
        check(|i| -(i as f64));
    }

    /// The band walks of the copy (widths, depths, prefetch distances, streamed
    /// or not) against the naive gather, on shapes that leave partial bands, steps
    /// and blocks.
    #[test]
    #[cfg_attr(miri, ignore = "the AVX-512 kernel never runs under Miri")]
    fn band_walks_match_a_naive_gather() {
        if !avx512() {
            return;
        }
        fn one<T: Copy + Send + Sync + PartialEq + std::fmt::Debug>(make: impl Fn(usize) -> T) {
            for (mr, mc, pad) in [(200, 136, 0), (131, 257, 3), (64, 1040, 16)] {
                let ld = mc + pad;
                let buf: Vec<T> = (0..mr * ld).map(&make).collect();
                let want = reference(&buf, &[mc, mr], &[1, ld as isize], 0);
                for t in super::super::band_walk::test_tilings() {
                    for stream in [false, true] {
                        let g = Geometry {
                            rows: mc,
                            cols: mr,
                            sa: ld,
                            stream,
                        };
                        let mut out = crate::memory::alloc::uninit_vec::<T>(mr * mc);
                        // SAFETY: the source holds `mc` elements of `mr` rows `ld` apart,
                        // the output `mr·mc`; `avx512()` checked the CPU.
                        unsafe { run(buf.as_ptr(), SendPtr(out.as_mut_ptr()), g, t) };
                        // SAFETY: `run` wrote every element.
                        let got = unsafe { crate::memory::alloc::assume_init_vec(out) };
                        assert!(got == want, "{mr}x{mc} {t:?} stream {stream}");
                    }
                }
            }
        }
        one(|i| i as f32);
        one(|i| i as f64 * -0.5);
    }

    #[test]
    #[cfg_attr(miri, ignore = "34 MB of input; the kernel never runs under Miri")]
    fn streaming_output_matches_too() {
        let (mr, mc) = (2064, 4099);
        let buf: Vec<f32> = (0..mr * mc).map(|i| i as f32).collect();
        let (shape, strides) = ([mc, mr], [1isize, mc as isize]);
        if let Some(got) = transpose_copy(&shape, Src::new(&buf, &strides, 0)) {
            assert!(should_stream::<f32>(mr * mc));
            assert_eq!(got, reference(&buf, &shape, &strides, 0));
        }
    }

    /// The tile staging of transposed operands (binary ops with `b.t()`) against the
    /// naive gather, for 4- and 8-byte elements.
    #[test]
    #[cfg_attr(miri, ignore = "the AVX-512 kernel never runs under Miri")]
    fn staged_tiles_match_a_naive_gather() {
        use super::super::tile::{TILE, tile_buf, tile_row};
        fn one<T: Copy + PartialEq + std::fmt::Debug>(make: impl Fn(usize) -> T) {
            for cs in [TILE as isize, 37, 4096] {
                let buf: Vec<T> = (0..cs as usize * TILE + 3).map(&make).collect();
                let mut tb = tile_buf::<T>();
                // SAFETY: the tile (i + c·cs + 3 for i, c < TILE) lies inside `buf`.
                if unsafe { stage_tile(buf.as_ptr().add(3), cs, &mut tb) } {
                    for i in 0..TILE {
                        // SAFETY: `stage_tile` wrote the whole tile.
                        let row = unsafe { tile_row(&tb, i, TILE) };
                        let want: Vec<T> = (0..TILE).map(|c| buf[3 + i + c * cs as usize]).collect();
                        assert_eq!(row, &want[..], "row {i}, column stride {cs}");
                    }
                } else {
                    assert!(!avx512() || size_of::<T>() == 2);
                }
            }
        }
        one(|i| i as f32 * 0.5);
        one(|i| i as f64 - 7.0);
        one(|i| i as u32);
        one(|i| i as u16);
    }

    #[test]
    fn other_cases_are_left_to_the_general_path() {
        let buf = vec![0u16; 100 * 100];
        assert!(transpose_copy(&[100, 100], Src::new(&buf, &[1, 100], 0)).is_none());
        let buf = vec![0f32; 100 * 100];
        // contiguous, small, and flipped layouts
        assert!(transpose_copy(&[100, 100], Src::new(&buf, &[100, 1], 0)).is_none());
        assert!(transpose_copy(&[10, 10], Src::new(&buf, &[1, 10], 0)).is_none());
        assert!(transpose_copy(&[100, 100], Src::new(&buf, &[-1, 100], 99)).is_none());
    }
}
