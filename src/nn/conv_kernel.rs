//! The direct convolution's micro-kernel: one `MR × NR` block of
//! `out[r][j] = bias[r] + Σₖ w[k][r] · x[offset[k] + j]`, `MR` output channels by `NR`
//! consecutive virtual positions (see [`super::conv_phase`]).
//!
//! The AVX-512 kernel keeps the `8 × 48` block in 24 zmm accumulators: per tap it loads
//! three vectors of the input run and broadcasts eight weights (24 FMAs for 11 loads, so
//! the two FMA ports stay busy). The portable kernel computes the same block with the
//! same indexing; it runs only in tests (without AVX-512 the convolution takes the
//! im2col + GEMM path) and under Miri, which checks the indexing. Both store the block
//! with the same code ([`Level::scatter`]).

use super::conv_phase::{LANES, Piece, Taps};

/// Output channels per block.
pub(crate) const MR: usize = 8;
/// Virtual positions per block.
pub(crate) const NR: usize = 48;

/// The weights of one group (`og × k`, row-major) as `ceil(og / MR)` panels, each
/// `k × MR` (tap-major, so the kernel reads them in order); rows past `og` are zero.
pub(crate) fn pack_weights(w: &[f32], og: usize, k: usize) -> Vec<f32> {
    let blocks = og.div_ceil(MR);
    let mut p = vec![0.0; blocks * k * MR];
    for (o, row) in w[..og * k].chunks_exact(k).enumerate() {
        let panel = &mut p[o / MR * k * MR..][..k * MR];
        for (kk, &v) in row.iter().enumerate() {
            panel[kk * MR + o % MR] = v;
        }
    }
    p
}

/// The instruction set the block kernel runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Level {
    /// AVX-512 when the CPU has it (never under Miri, which cannot run it).
    pub fn detect() -> Self {
        match crate::cpu::isa() {
            #[cfg(target_arch = "x86_64")]
            crate::cpu::Isa::Avx512 => Level::Avx512,
            _ => Level::Portable,
        }
    }

    /// One block: `out[r·NR + j] = bias[r] + Σₖ panel[k·MR + r] · x[base + offset[k] + j]`.
    ///
    /// Panics unless `panel` holds a weight per tap and row and every read
    /// (`base + taps.max() + NR ≤ x.len()`) is inside `x`.
    pub fn block(self, panel: &[f32], x: &[f32], base: usize, taps: &Taps, bias: &[f32; MR], out: &mut [f32; MR * NR]) {
        let offsets = taps.offsets();
        assert!(panel.len() >= offsets.len() * MR && base + taps.max() + NR <= x.len());
        match self {
            // SAFETY: `detect` saw AVX-512F; every read `x[base + offsets[k] + j]`, j < NR,
            // is inside `x` and every `panel[k·MR + r]` inside `panel` (asserted above,
            // with offsets[k] ≤ taps.max() by construction of `Taps`).
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86::block(panel, x.as_ptr().add(base), offsets, bias, out) },
            Level::Portable => block_body(panel, &x[base..], offsets, bias, out),
        }
    }

    /// Stores the first `rows` rows of a block: for every piece and row `r`, the set lanes
    /// `l` of `block[r·NR + 16·v + l]` to `dst + r·rs + off + l`.
    ///
    /// # Safety
    /// Every such destination is valid for writes and not accessed by anyone else during
    /// the call; `rows ≤ MR`; every piece has `v < NR / 16`.
    pub unsafe fn scatter(self, block: &[f32; MR * NR], rows: usize, dst: *mut f32, rs: usize, pieces: &[Piece]) {
        match self {
            // SAFETY: `detect` saw AVX-512F; the destinations are the caller's contract.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86::scatter(block, rows, dst, rs, pieces) },
            // SAFETY: the caller's contract.
            Level::Portable => unsafe { scatter_body(block, rows, dst, rs, pieces) },
        }
    }
}

/// The body of [`Level::scatter`]: each piece is one contiguous run of lanes.
///
/// # Safety
/// As [`Level::scatter`].
#[inline(always)]
unsafe fn scatter_body(block: &[f32; MR * NR], rows: usize, dst: *mut f32, rs: usize, pieces: &[Piece]) {
    for (r, row) in block.chunks_exact(NR).enumerate().take(rows) {
        for pc in pieces {
            let (l, len) = (pc.mask.trailing_zeros() as usize, pc.mask.count_ones() as usize);
            let d = dst.wrapping_add(r * rs).wrapping_offset(pc.off + l as isize);
            // SAFETY: lanes l..l + len of the piece are set (pieces are contiguous runs):
            // valid destinations of row r < rows by the caller's contract.
            unsafe { copy_run(&row[LANES * pc.v + l..][..len], d) };
        }
    }
}

/// Copies `src` (at most [`LANES`] elements) to `dst` with fixed-size moves: an
/// `N`-element copy, or two overlapping `N / 2`-element ones, ... (a variable-length
/// loop would become a `memcpy` call, which costs more than the copy).
///
/// # Safety
/// `dst..dst + src.len()` is valid for writes and does not overlap `src`.
#[inline(always)]
unsafe fn copy_run(src: &[f32], dst: *mut f32) {
    /// Copies the first and the last `N` elements (all of them when `N ≤ len ≤ 2N`).
    ///
    /// # Safety
    /// As [`copy_run`], with `N ≤ src.len()`.
    #[inline(always)]
    unsafe fn ends<const N: usize>(src: &[f32], dst: *mut f32) {
        let len = src.len();
        let (a, b): (&[f32; N], &[f32; N]) = (
            src[..N].try_into().expect("N elements"),
            src[len - N..].try_into().expect("N elements"),
        );
        // SAFETY: both ranges lie inside dst..dst + len (N ≤ len), the caller's contract.
        unsafe {
            dst.cast::<[f32; N]>().write_unaligned(*a);
            dst.add(len - N).cast::<[f32; N]>().write_unaligned(*b);
        }
    }
    let len = src.len();
    debug_assert!(len <= LANES);
    // SAFETY: (all arms) the caller's contract, and each arm's N ≤ len.
    unsafe {
        match len {
            16.. => ends::<16>(src, dst),
            8..16 => ends::<8>(src, dst),
            4..8 => ends::<4>(src, dst),
            2..4 => ends::<2>(src, dst),
            1 => ends::<1>(src, dst),
            _ => {}
        }
    }
}

/// The body of [`Level::block`] (`x` starts at the block's first virtual position);
/// the accumulators are a local array so that LLVM keeps them in registers.
#[inline(always)]
fn block_body(panel: &[f32], x: &[f32], offsets: &[usize], bias: &[f32; MR], out: &mut [f32; MR * NR]) {
    let mut acc = [[0.0f32; NR]; MR];
    for (a, &b) in acc.iter_mut().zip(bias) {
        *a = [b; NR];
    }
    for (w, &off) in panel.chunks_exact(MR).zip(offsets) {
        let run: &[f32; NR] = x[off..off + NR].try_into().expect("NR elements");
        for (a, &wr) in acc.iter_mut().zip(w) {
            for (o, &v) in a.iter_mut().zip(run) {
                *o = wr.mul_add(v, *o);
            }
        }
    }
    for (o, a) in out.chunks_exact_mut(NR).zip(&acc) {
        o.copy_from_slice(a);
    }
}

/// The AVX-512 kernels. The block is written in assembly: MSRV 1.86 predates the stable
/// AVX-512 intrinsics, and LLVM's auto-vectoriser picks 256-bit vectors for a generic
/// x86-64 build even with AVX-512 enabled, which halves the FMA rate.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{MR, NR, Piece, scatter_body};

    // The assembly below is written out for 8 rows of three 16-lane vectors.
    const _: () = assert!(MR == 8 && NR == 48);

    /// `out[r·NR + j] = bias[r] + Σₖ panel[k·MR + r] · x[offsets[k] + j]`, the block in
    /// zmm0..zmm23 (row r in zmm3r..zmm3r+2), the input run in zmm24..26, the broadcast
    /// weights alternating in zmm27/28.
    ///
    /// # Safety
    /// AVX-512F is available; `x + offsets[k] + j` is readable for every `k` and `j < NR`;
    /// `panel` holds at least `offsets.len()·MR` weights.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn block(
        panel: &[f32],
        x: *const f32,
        offsets: &[usize],
        bias: &[f32; MR],
        out: &mut [f32; MR * NR],
    ) {
        // SAFETY: reads bias[0..MR], panel[0..k·MR] and x[offsets[k]..offsets[k] + NR]
        // (the caller's contract), writes out[0..MR·NR]; touches only the listed
        // registers and no stack.
        unsafe {
            std::arch::asm!(
                "vbroadcastss zmm0, dword ptr [{bias} + 0]",
                "vmovaps zmm1, zmm0",
                "vmovaps zmm2, zmm0",
                "vbroadcastss zmm3, dword ptr [{bias} + 4]",
                "vmovaps zmm4, zmm3",
                "vmovaps zmm5, zmm3",
                "vbroadcastss zmm6, dword ptr [{bias} + 8]",
                "vmovaps zmm7, zmm6",
                "vmovaps zmm8, zmm6",
                "vbroadcastss zmm9, dword ptr [{bias} + 12]",
                "vmovaps zmm10, zmm9",
                "vmovaps zmm11, zmm9",
                "vbroadcastss zmm12, dword ptr [{bias} + 16]",
                "vmovaps zmm13, zmm12",
                "vmovaps zmm14, zmm12",
                "vbroadcastss zmm15, dword ptr [{bias} + 20]",
                "vmovaps zmm16, zmm15",
                "vmovaps zmm17, zmm15",
                "vbroadcastss zmm18, dword ptr [{bias} + 24]",
                "vmovaps zmm19, zmm18",
                "vmovaps zmm20, zmm18",
                "vbroadcastss zmm21, dword ptr [{bias} + 28]",
                "vmovaps zmm22, zmm21",
                "vmovaps zmm23, zmm21",
                "test {k}, {k}",
                "jz 3f",
                "2:",
                "mov {t}, qword ptr [{offs}]",
                "vmovups zmm24, zmmword ptr [{x} + 4*{t} + 0]",
                "vmovups zmm25, zmmword ptr [{x} + 4*{t} + 64]",
                "vmovups zmm26, zmmword ptr [{x} + 4*{t} + 128]",
                "vbroadcastss zmm27, dword ptr [{w} + 0]",
                "vfmadd231ps zmm0, zmm27, zmm24",
                "vfmadd231ps zmm1, zmm27, zmm25",
                "vfmadd231ps zmm2, zmm27, zmm26",
                "vbroadcastss zmm28, dword ptr [{w} + 4]",
                "vfmadd231ps zmm3, zmm28, zmm24",
                "vfmadd231ps zmm4, zmm28, zmm25",
                "vfmadd231ps zmm5, zmm28, zmm26",
                "vbroadcastss zmm27, dword ptr [{w} + 8]",
                "vfmadd231ps zmm6, zmm27, zmm24",
                "vfmadd231ps zmm7, zmm27, zmm25",
                "vfmadd231ps zmm8, zmm27, zmm26",
                "vbroadcastss zmm28, dword ptr [{w} + 12]",
                "vfmadd231ps zmm9, zmm28, zmm24",
                "vfmadd231ps zmm10, zmm28, zmm25",
                "vfmadd231ps zmm11, zmm28, zmm26",
                "vbroadcastss zmm27, dword ptr [{w} + 16]",
                "vfmadd231ps zmm12, zmm27, zmm24",
                "vfmadd231ps zmm13, zmm27, zmm25",
                "vfmadd231ps zmm14, zmm27, zmm26",
                "vbroadcastss zmm28, dword ptr [{w} + 20]",
                "vfmadd231ps zmm15, zmm28, zmm24",
                "vfmadd231ps zmm16, zmm28, zmm25",
                "vfmadd231ps zmm17, zmm28, zmm26",
                "vbroadcastss zmm27, dword ptr [{w} + 24]",
                "vfmadd231ps zmm18, zmm27, zmm24",
                "vfmadd231ps zmm19, zmm27, zmm25",
                "vfmadd231ps zmm20, zmm27, zmm26",
                "vbroadcastss zmm28, dword ptr [{w} + 28]",
                "vfmadd231ps zmm21, zmm28, zmm24",
                "vfmadd231ps zmm22, zmm28, zmm25",
                "vfmadd231ps zmm23, zmm28, zmm26",
                "add {w}, 32",
                "add {offs}, 8",
                "dec {k}",
                "jnz 2b",
                "3:",
                "vmovups zmmword ptr [{out} + 0], zmm0",
                "vmovups zmmword ptr [{out} + 64], zmm1",
                "vmovups zmmword ptr [{out} + 128], zmm2",
                "vmovups zmmword ptr [{out} + 192], zmm3",
                "vmovups zmmword ptr [{out} + 256], zmm4",
                "vmovups zmmword ptr [{out} + 320], zmm5",
                "vmovups zmmword ptr [{out} + 384], zmm6",
                "vmovups zmmword ptr [{out} + 448], zmm7",
                "vmovups zmmword ptr [{out} + 512], zmm8",
                "vmovups zmmword ptr [{out} + 576], zmm9",
                "vmovups zmmword ptr [{out} + 640], zmm10",
                "vmovups zmmword ptr [{out} + 704], zmm11",
                "vmovups zmmword ptr [{out} + 768], zmm12",
                "vmovups zmmword ptr [{out} + 832], zmm13",
                "vmovups zmmword ptr [{out} + 896], zmm14",
                "vmovups zmmword ptr [{out} + 960], zmm15",
                "vmovups zmmword ptr [{out} + 1024], zmm16",
                "vmovups zmmword ptr [{out} + 1088], zmm17",
                "vmovups zmmword ptr [{out} + 1152], zmm18",
                "vmovups zmmword ptr [{out} + 1216], zmm19",
                "vmovups zmmword ptr [{out} + 1280], zmm20",
                "vmovups zmmword ptr [{out} + 1344], zmm21",
                "vmovups zmmword ptr [{out} + 1408], zmm22",
                "vmovups zmmword ptr [{out} + 1472], zmm23",
                bias = in(reg) bias.as_ptr(),
                x = in(reg) x,
                w = inout(reg) panel.as_ptr() => _,
                offs = inout(reg) offsets.as_ptr() => _,
                k = inout(reg) offsets.len() => _,
                t = out(reg) _,
                out = in(reg) out.as_mut_ptr(),
                out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _, out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _, out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _, out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _, out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _, out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _, out("zmm24") _, out("zmm25") _, out("zmm26") _, out("zmm27") _, out("zmm28") _,
                options(nostack),
            )
        }
    }

    /// [`super::scatter_body`] compiled for AVX-512 (its fixed-size moves become single
    /// vector moves).
    ///
    /// # Safety
    /// AVX-512F is available, and the contract of [`super::Level::scatter`].
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn scatter(block: &[f32; MR * NR], rows: usize, dst: *mut f32, rs: usize, pieces: &[Piece]) {
        // SAFETY: the caller's contract.
        unsafe { scatter_body(block, rows, dst, rs, pieces) }
    }
}
