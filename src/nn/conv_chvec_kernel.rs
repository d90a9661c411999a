//! The micro-kernels of the channel-vectorised direct convolution
//! ([`super::conv_chvec`]): one tile of `NB` blocks of [`CB`] output channels by `P`
//! consecutive output positions of one output row. Per kernel tap the tile loads the
//! `NB` weight vectors once and, for each position, broadcasts one input value and
//! multiplies it into the position's `NB` accumulators — the layout ONNX Runtime's
//! NCHWc kernels use, which keeps every accumulator busy on small images with deep
//! channels (no position vector to fill, no discarded columns).
//!
//! The position stride `S` (the convolution's column stride, 1 or 2) and the tile
//! shape are compile-time constants so the broadcasts' addresses are immediate offsets
//! and the accumulators stay in registers; [`tile`] dispatches on them.

use super::conv_block::Level;

/// Output channels per packed weight block: one AVX-512 vector, two AVX2 ones.
pub(crate) const CB: usize = 16;

/// Where a tile reads: the (padded) input's channel planes and kernel taps, and the
/// packed weights' block stride.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Taps {
    /// Input channels, kernel rows and columns.
    pub cg: usize,
    pub kh: usize,
    pub kw: usize,
    /// Floats between input channel planes, between kernel rows (`dilation·row
    /// length`) and between kernel columns (the column dilation).
    pub plane: usize,
    pub drow: usize,
    pub dcol: usize,
    /// Floats between consecutive [`CB`]-channel weight blocks (`cg·kh·kw·CB`).
    pub wstride: usize,
}

impl Taps {
    /// The largest input offset a tile's first position reads.
    fn reach(&self) -> usize {
        (self.cg - 1) * self.plane + (self.kh - 1) * self.drow + (self.kw - 1) * self.dcol
    }
}

/// One tile: `out[(r·width + p)·nb·CB + c] = bias[c] + Σ w(c, tap) · x[tap offset +
/// r·rs + p·s]` for `r < rows`, `p < width`, `c < nb·CB`, where the taps run over input
/// channels, kernel rows and columns, and `w(c, tap) = w[(c / CB)·wstride + tap·CB + c % CB]`
/// (`rows` output rows `rs` input floats apart, `width` positions each).
///
/// Panics unless `(nb, rows, width)` is a shape of `level` ([`max_width`], [`two_rows`]),
/// `s` is 1 or 2, and every read and write is inside its slice.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tile(
    level: Level,
    nb: usize,
    rows: usize,
    width: usize,
    s: usize,
    rs: usize,
    t: &Taps,
    w: &[f32],
    x: &[f32],
    bias: &[f32],
    out: &mut [f32],
) {
    let k = t.cg * t.kh * t.kw;
    let widest = if rows == 2 {
        two_rows(level, nb)
    } else {
        max_width(level, nb)
    };
    assert!(
        (1..=widest).contains(&width)
            && (rows == 1 || rows == 2)
            && (s == 1 || s == 2)
            && k > 0
            && t.reach() + (rows - 1) * rs + (width - 1) * s < x.len()
            && (nb - 1) * t.wstride + k * CB <= w.len()
            && bias.len() >= nb * CB
            && out.len() >= rows * width * nb * CB,
        "conv tile: shape or operand outside its buffer"
    );
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => {
            let (wp, xp, bp, op) = (w.as_ptr(), x.as_ptr(), bias.as_ptr(), out.as_mut_ptr());
            macro_rules! by_width {
                ($nb:literal, $r:literal, $s:literal, [$($p:literal)*]) => {
                    match width {
                        // SAFETY: AVX-512F was detected (`Level`); the reads and writes
                        // are inside the slices (asserted above).
                        $($p => unsafe { x86::tile512::<$nb, $r, $p, $s>(wp, xp, t, rs, bp, op) },)*
                        _ => unreachable!("width checked above"),
                    }
                };
            }
            match (nb, rows, s) {
                (1, 1, 1) => by_width!(1, 1, 1, [1 2 3 4 5 6 7 8 9 10 11 12 13 14]),
                (1, 1, 2) => by_width!(1, 1, 2, [1 2 3 4 5 6 7 8 9 10 11 12 13 14]),
                (2, 1, 1) => by_width!(2, 1, 1, [1 2 3 4 5 6 7 8 9 10 11 12 13 14]),
                (2, 1, 2) => by_width!(2, 1, 2, [1 2 3 4 5 6 7 8 9 10 11 12 13 14]),
                (1, 2, 1) => by_width!(1, 2, 1, [1 2 3 4 5 6 7]),
                (1, 2, 2) => by_width!(1, 2, 2, [1 2 3 4 5 6 7]),
                (2, 2, 1) => by_width!(2, 2, 1, [1 2 3 4 5 6 7]),
                (2, 2, 2) => by_width!(2, 2, 2, [1 2 3 4 5 6 7]),
                _ => unreachable!("shape checked above"),
            }
        }
        // The narrower levels run the same positions through their offset tiles.
        _ => {
            let mut offs = [0usize; 32];
            for (p, o) in offs.iter_mut().enumerate().take(rows * width) {
                *o = p / width * rs + p % width * s;
            }
            tile_at(level, nb, &offs[..rows * width], t, w, x, bias, out)
        }
    }
}

/// True when `level` runs tiles of consecutive output positions that may span output
/// rows ([`tile_at`]) instead of tiles inside one row ([`tile`]): where the tile is
/// narrow (6 positions on AVX2, 5 portable) a 7- or 14-wide row would split into
/// half-empty tiles (4 + 3, 5 + 5 + 4), while a run over the whole band of rows fills
/// every tile but the last. AVX-512's 14-wide tiles (and two-row tiles of 7) fit
/// ResNet's rows and keep their compile-time strides.
pub(crate) fn spans_rows(level: Level) -> bool {
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => false,
        _ => true,
    }
}

/// One tile of `offs.len()` positions at input offsets `offs` (from `x`, each the
/// position's first tap): `out[p·nb·CB + c] = bias[c] + Σ w(c, tap) · x[tap offset +
/// offs[p]]`, as [`tile`] with one row, for positions anywhere in the image (a run of
/// consecutive output positions across row ends).
///
/// Panics unless `1 ≤ offs.len() ≤ max_width(level, nb)`, the level is not AVX-512
/// ([`spans_rows`]), and every read and write is inside its slice.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tile_at(
    level: Level,
    nb: usize,
    offs: &[usize],
    t: &Taps,
    w: &[f32],
    x: &[f32],
    bias: &[f32],
    out: &mut [f32],
) {
    let (k, width) = (t.cg * t.kh * t.kw, offs.len());
    assert!(
        spans_rows(level)
            && (1..=max_width(level, nb)).contains(&width)
            && k > 0
            && offs.iter().all(|&o| t.reach() + o < x.len())
            && (nb - 1) * t.wstride + k * CB <= w.len()
            && bias.len() >= nb * CB
            && out.len() >= width * nb * CB,
        "conv tile: shape or operand outside its buffer"
    );
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => {
            let (wp, xp, bp, op) = (w.as_ptr(), x.as_ptr(), bias.as_ptr(), out.as_mut_ptr());
            macro_rules! by_width {
                ([$($p:literal)*]) => {
                    match width {
                        // SAFETY: AVX2 and FMA were detected (`Level`); the reads and
                        // writes are inside the slices (asserted above).
                        $($p => unsafe {
                            x86::tile256_at::<$p>(wp, xp, t, offs.try_into().expect("width"), bp, op)
                        },)*
                        _ => unreachable!("width checked above"),
                    }
                };
            }
            by_width!([1 2 3 4 5 6])
        }
        _ => tile_portable_at(nb, offs, t, w, x, bias, out),
    }
}

/// The widest one-row tile of `nb` channel blocks on `level` (0: no such shape): as
/// many accumulators as leave registers for the weights and one broadcast (28 of 32
/// zmm registers, 12 of 16 ymm).
pub(crate) fn max_width(level: Level, nb: usize) -> usize {
    match (level, nb) {
        #[cfg(target_arch = "x86_64")]
        (Level::Avx512, 1 | 2) => 14,
        #[cfg(target_arch = "x86_64")]
        (Level::Avx2, 1) => 6,
        (Level::Portable, 1 | 2) => 5,
        _ => 0,
    }
}

/// The widest two-row tile of `nb` blocks on `level` (0: none): the same registers as
/// the one-row tile, for rows shorter than half of it (7×7 outputs on AVX-512).
pub(crate) fn two_rows(level: Level, nb: usize) -> usize {
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => 0,
        _ => max_width(level, nb) / 2,
    }
}

/// The blocks per tile on `level` for `ob` channel blocks: two when the level has
/// two-block tiles and the layer two blocks, else one.
pub(crate) fn blocks_per_tile(level: Level, ob: usize) -> usize {
    if ob >= 2 && max_width(level, 2) > 0 { 2 } else { 1 }
}

/// The portable tile at input offsets `offs` (as [`tile_at`]; the fallback's indexing,
/// checked under Miri).
fn tile_portable_at(nb: usize, offs: &[usize], t: &Taps, w: &[f32], x: &[f32], bias: &[f32], out: &mut [f32]) {
    let chans = nb * CB;
    for p in 0..offs.len() {
        out[p * chans..][..chans].copy_from_slice(&bias[..chans]);
    }
    let mut tap = 0;
    for ci in 0..t.cg {
        for ki in 0..t.kh {
            for kj in 0..t.kw {
                let xo = ci * t.plane + ki * t.drow + kj * t.dcol;
                for (p, &off) in offs.iter().enumerate() {
                    let xv = x[xo + off];
                    for c in 0..chans {
                        // (Not `mul_add`: without FMA hardware that is a slow library call.)
                        out[p * chans + c] += w[c / CB * t.wstride + tap * CB + c % CB] * xv;
                    }
                }
                tap += 1;
            }
        }
    }
}

/// The x86 tiles, written with intrinsics over const-sized accumulator arrays (LLVM
/// keeps them in registers and folds each broadcast load).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{CB, Finish, Taps};
    use std::arch::x86_64::*;

    /// `NB` 16-channel vectors by `R` rows (`rs` apart) of `P` positions at stride `S`.
    ///
    /// # Safety
    /// AVX-512F is available; `x + reach + (R − 1)·rs + (P − 1)·S` is readable, the
    /// weights up to `(NB − 1)·wstride + k·CB`, `bias` for `NB·CB` elements, and `out`
    /// writable for `R·P·NB·CB`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn tile512<const NB: usize, const R: usize, const P: usize, const S: usize>(
        w: *const f32,
        x: *const f32,
        t: &Taps,
        rs: usize,
        bias: *const f32,
        out: *mut f32,
    ) {
        // SAFETY: every pointer use is inside the ranges of the caller's contract.
        unsafe {
            let mut b = [_mm512_setzero_ps(); NB];
            for (v, bv) in b.iter_mut().enumerate() {
                *bv = _mm512_loadu_ps(bias.add(v * CB));
            }
            let mut acc = [[b; P]; R];
            let mut wp = w;
            for ci in 0..t.cg {
                let xc = x.add(ci * t.plane);
                for ki in 0..t.kh {
                    let xr = xc.add(ki * t.drow);
                    for kj in 0..t.kw {
                        let xp = xr.add(kj * t.dcol);
                        let mut wv = [_mm512_setzero_ps(); NB];
                        for (v, wr) in wv.iter_mut().enumerate() {
                            *wr = _mm512_loadu_ps(wp.add(v * t.wstride));
                        }
                        wp = wp.add(CB);
                        for (r, ar) in acc.iter_mut().enumerate() {
                            for (p, a) in ar.iter_mut().enumerate() {
                                let xb = _mm512_set1_ps(*xp.add(r * rs + p * S));
                                for v in 0..NB {
                                    a[v] = _mm512_fmadd_ps(wv[v], xb, a[v]);
                                }
                            }
                        }
                    }
                }
            }
            for (r, ar) in acc.iter().enumerate() {
                for (p, a) in ar.iter().enumerate() {
                    for (v, &av) in a.iter().enumerate() {
                        _mm512_storeu_ps(out.add(((r * P + p) * NB + v) * CB), av);
                    }
                }
            }
        }
    }

    /// Transposes `width ≤ 16` rows of 16 channels (`src + p·ss`) and stores the first
    /// `cn` channels as rows of `width` positions (`dst + c·rs`, masked stores).
    ///
    /// # Safety
    /// AVX-512F is available; `src + p·ss + 0..16` readable for `p < width`;
    /// `dst + c·rs + p` writable, and `fin.res + c·rs + p` readable when not null, for
    /// `c < cn`, `p < width`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn store16x16(
        src: *const f32,
        ss: usize,
        width: usize,
        cn: usize,
        dst: *mut f32,
        rs: usize,
        fin: Finish,
    ) {
        // SAFETY: the loads and masked stores touch only the caller's ranges.
        unsafe {
            let mut r = [_mm512_setzero_ps(); 16];
            for (p, rv) in r.iter_mut().enumerate().take(width) {
                *rv = _mm512_loadu_ps(src.add(p * ss));
            }
            // Pairs of rows interleaved, then pairs of pairs (within 128-bit lanes),
            // then 128-bit lanes across four and sixteen rows.
            let mut t = [_mm512_setzero_ps(); 16];
            for i in 0..8 {
                t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
                t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
            }
            let pd = _mm512_castps_pd;
            for q in 0..4 {
                let (a, b, c, d) = (t[4 * q], t[4 * q + 1], t[4 * q + 2], t[4 * q + 3]);
                r[4 * q] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(a), pd(c)));
                r[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(a), pd(c)));
                r[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(b), pd(d)));
                r[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(b), pd(d)));
            }
            for h in 0..2 {
                for j in 0..4 {
                    let (a, b) = (r[8 * h + j], r[8 * h + 4 + j]);
                    t[8 * h + j] = _mm512_shuffle_f32x4::<0x88>(a, b);
                    t[8 * h + 4 + j] = _mm512_shuffle_f32x4::<0xdd>(a, b);
                }
            }
            for j in 0..8 {
                r[j] = _mm512_shuffle_f32x4::<0x88>(t[j], t[8 + j]);
                r[8 + j] = _mm512_shuffle_f32x4::<0xdd>(t[j], t[8 + j]);
            }
            let mask: __mmask16 = ((1u32 << width) - 1) as __mmask16;
            let zero = _mm512_setzero_ps();
            for (c, &v) in r.iter().enumerate().take(cn) {
                let mut v = v;
                if !fin.res.is_null() {
                    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, fin.res.add(c * rs)));
                }
                if fin.relu {
                    // `max(0, v)` returns v when v is NaN or ±0 (the second operand), as
                    // the scalar ReLU keeps them.
                    v = _mm512_max_ps(zero, v);
                }
                _mm512_mask_storeu_ps(dst.add(c * rs), mask, v);
            }
        }
    }

    /// Transposes `width ≤ 8` rows of 8 channels (`src + p·ss`) and stores the first
    /// `cn` channels as rows of `width` positions (`dst + c·rs`, masked stores).
    ///
    /// # Safety
    /// AVX2 is available; `src + p·ss + 0..8` readable for `p < width`; `dst + c·rs + p`
    /// writable, and `fin.res + c·rs + p` readable when not null, for `c < cn`,
    /// `p < width`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn store8x8(
        src: *const f32,
        ss: usize,
        width: usize,
        cn: usize,
        dst: *mut f32,
        rs: usize,
        fin: Finish,
    ) {
        // SAFETY: the loads and masked stores touch only the caller's ranges.
        unsafe {
            let mut r = [_mm256_setzero_ps(); 8];
            for (p, rv) in r.iter_mut().enumerate().take(width) {
                *rv = _mm256_loadu_ps(src.add(p * ss));
            }
            // Pairs of rows interleaved, then pairs of pairs, then 128-bit halves.
            let mut t = [_mm256_setzero_ps(); 8];
            for i in 0..4 {
                t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
                t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
            }
            for h in 0..2 {
                let (a, b, c, d) = (t[4 * h], t[4 * h + 1], t[4 * h + 2], t[4 * h + 3]);
                r[4 * h] = _mm256_shuffle_ps::<0x44>(a, c);
                r[4 * h + 1] = _mm256_shuffle_ps::<0xee>(a, c);
                r[4 * h + 2] = _mm256_shuffle_ps::<0x44>(b, d);
                r[4 * h + 3] = _mm256_shuffle_ps::<0xee>(b, d);
            }
            for j in 0..4 {
                t[j] = _mm256_permute2f128_ps::<0x20>(r[j], r[4 + j]);
                t[4 + j] = _mm256_permute2f128_ps::<0x31>(r[j], r[4 + j]);
            }
            let mask = _mm256_cmpgt_epi32(
                _mm256_set1_epi32(width as i32),
                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
            );
            let zero = _mm256_setzero_ps();
            for (c, &v) in t.iter().enumerate().take(cn) {
                let mut v = v;
                if !fin.res.is_null() {
                    v = _mm256_add_ps(v, _mm256_maskload_ps(fin.res.add(c * rs), mask));
                }
                if fin.relu {
                    // As in `store16x16`: NaN and ±0 kept.
                    v = _mm256_max_ps(zero, v);
                }
                _mm256_maskstore_ps(dst.add(c * rs), mask, v);
            }
        }
    }

    /// One 16-channel block (two 8-lane vectors) by `P` positions at input offsets
    /// `offs` (from `x`): the positions may lie on different rows.
    ///
    /// # Safety
    /// AVX2 and FMA are available; `x + reach + offs[p]` is readable for every `p`, the
    /// weights up to `k·CB`, `bias` for `CB` elements, and `out` writable for `P·CB`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile256_at<const P: usize>(
        w: *const f32,
        x: *const f32,
        t: &Taps,
        offs: &[usize; P],
        bias: *const f32,
        out: *mut f32,
    ) {
        // SAFETY: every pointer use is inside the ranges of the caller's contract.
        unsafe {
            let offs = *offs;
            let b = [_mm256_loadu_ps(bias), _mm256_loadu_ps(bias.add(8))];
            let mut acc = [b; P];
            let mut wp = w;
            for ci in 0..t.cg {
                let xc = x.add(ci * t.plane);
                for ki in 0..t.kh {
                    let xr = xc.add(ki * t.drow);
                    for kj in 0..t.kw {
                        let xp = xr.add(kj * t.dcol);
                        let wv = [_mm256_loadu_ps(wp), _mm256_loadu_ps(wp.add(8))];
                        wp = wp.add(CB);
                        for (a, &o) in acc.iter_mut().zip(&offs) {
                            let xb = _mm256_set1_ps(*xp.add(o));
                            a[0] = _mm256_fmadd_ps(wv[0], xb, a[0]);
                            a[1] = _mm256_fmadd_ps(wv[1], xb, a[1]);
                        }
                    }
                }
            }
            for (p, a) in acc.iter().enumerate() {
                _mm256_storeu_ps(out.add(p * CB), a[0]);
                _mm256_storeu_ps(out.add(p * CB + 8), a[1]);
            }
        }
    }
}

/// What a store applies to the tile on its way out (the epilogues that need no more
/// than an add and a compare): the residual at the same output elements, then ReLU.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Finish {
    /// The residual's element at the store's `dst` (null: none).
    pub res: *const f32,
    pub relu: bool,
}

impl Finish {
    /// Plain stores.
    pub const NONE: Finish = Finish {
        res: std::ptr::null(),
        relu: false,
    };

    /// `v + res[i]` (when there is a residual), then ReLU as [`super::epilogue`]'s
    /// (`v < 0 → 0`, NaN kept).
    ///
    /// # Safety
    /// `res + i` is readable when `res` is not null.
    #[inline(always)]
    unsafe fn scalar(self, mut v: f32, i: usize) -> f32 {
        if !self.res.is_null() {
            // SAFETY: the caller's contract.
            v += unsafe { *self.res.add(i) };
        }
        if self.relu && v < 0.0 { 0.0 } else { v }
    }
}

/// Stores a tile of `width` positions × `chans` channels (`src[p·chans + c]`) to
/// channel rows: `dst[c·rs + p] = finish(src[p·chans + c])` for `c < cn`, `p < width`
/// (the transposition from the tile's channel vectors to the `(N, O, OH, OW)` output,
/// with the residual `fin.res[c·rs + p]` added and ReLU applied when `fin` says so).
///
/// # Safety
/// `dst + c·rs + p` is valid for writes and not accessed by anyone else during the call
/// for every such `c` and `p`, and `fin.res + c·rs + p` readable when not null; `src`
/// holds `width·chans` elements, `chans` a multiple of [`CB`], `cn ≤ chans` and
/// `width ≤ 16`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn store_channels(
    level: Level,
    src: &[f32],
    width: usize,
    chans: usize,
    cn: usize,
    dst: *mut f32,
    rs: usize,
    fin: Finish,
) {
    assert!(src.len() >= width * chans && cn <= chans && chans.is_multiple_of(CB) && width <= 16);
    // The residual of channel block `b` (`step` channels), or null.
    let res_at = |b: usize, step: usize| {
        if fin.res.is_null() {
            fin.res
        } else {
            fin.res.wrapping_add(b * step * rs)
        }
    };
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => {
            for b in 0..cn.div_ceil(CB) {
                let f = Finish {
                    res: res_at(b, CB),
                    relu: fin.relu,
                };
                // SAFETY: AVX-512F detected; block b's reads are inside `src` (asserted)
                // and its writes (and residual reads) are the caller's contract
                // (channels b·CB.. < cn).
                unsafe {
                    x86::store16x16(
                        src.as_ptr().add(b * CB),
                        chans,
                        width,
                        (cn - b * CB).min(CB),
                        dst.add(b * CB * rs),
                        rs,
                        f,
                    )
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 if width <= 8 => {
            for b in 0..cn.div_ceil(8) {
                let f = Finish {
                    res: res_at(b, 8),
                    relu: fin.relu,
                };
                // SAFETY: AVX2 detected; block b's reads are inside `src` (asserted) and
                // its writes (and residual reads) are the caller's contract (channels
                // 8·b.. < cn, p < width).
                unsafe {
                    x86::store8x8(
                        src.as_ptr().add(b * 8),
                        chans,
                        width,
                        (cn - b * 8).min(8),
                        dst.add(b * 8 * rs),
                        rs,
                        f,
                    )
                }
            }
        }
        _ => {
            for c in 0..cn {
                for (p, &v) in src.iter().skip(c).step_by(chans).take(width).enumerate() {
                    // SAFETY: c < cn, p < width: the caller's contract.
                    unsafe { dst.add(c * rs + p).write(fin.scalar(v, c * rs + p)) };
                }
            }
        }
    }
}
