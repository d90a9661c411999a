//! The convolution micro-kernels: one block of
//! `out[r][j] = bias[r] + Σₖ w[k][r] · x[offset[k] + j]`, rows `r` (output channels) by
//! consecutive positions `j`, for every path that reduces to that form: the direct
//! convolution (offsets = kernel taps in the phase-split input, see
//! [`super::conv_phase`]) and the Winograd products (offsets = input channels of the
//! transformed tile block, see [`super::winograd`]).
//!
//! Weights come packed ([`pack_weights`]) in panels of [`MR`] rows, tap-major, so each
//! tap's weights for a panel are `MR` consecutive floats. A block covers one or more
//! panels: each level has a *wide* shape (few rows, many positions) and a *narrow* one
//! (more rows, one vector of positions, for short rows of small images). Every shape keeps
//! 12 (AVX2) or 24 (AVX-512) accumulators in registers: per tap the kernel loads the
//! position vectors once and multiplies them by one broadcast weight per row.
//!
//! The portable kernel computes the same blocks with the same indexing; without AVX2 it
//! is the fallback, and under Miri it checks the indexing of every caller.

/// Rows of a packed weight panel.
pub(crate) const MR: usize = 8;

/// The weights of one group (`og × k`, row-major) as `ceil(og / MR)` panels, each
/// `k × MR` (tap-major, so the kernel reads them in order); rows past `og` are zero.
pub(crate) fn pack_weights(w: &[f32], og: usize, k: usize) -> Vec<f32> {
    let blocks = og.div_ceil(MR);
    let mut p = vec![0.0; blocks * k * MR];
    for (o, row) in w[..og * k].chunks_exact(k.max(1)).enumerate() {
        let panel = &mut p[o / MR * k * MR..][..k * MR];
        for (kk, &v) in row.iter().enumerate() {
            panel[kk * MR + o % MR] = v;
        }
    }
    p
}

/// The instruction set the kernels run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// Plain Rust (any CPU; Miri).
    Portable,
    /// AVX2 + FMA, 256-bit vectors.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512F, 512-bit vectors.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// One block shape: `panels · MR` rows by `width` positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub panels: usize,
    pub width: usize,
}

impl Shape {
    /// Rows of the block.
    pub fn rows(self) -> usize {
        self.panels * MR
    }
}

impl Level {
    /// The level of [`crate::cpu::isa`], the crate's one CPU-feature choice (never a
    /// SIMD one under Miri; `FERROTENSOR_ISA` caps it to test and measure the narrower
    /// paths on a wider CPU).
    pub fn detect() -> Self {
        Self::of(crate::cpu::isa())
    }

    fn of(isa: crate::cpu::Isa) -> Self {
        match isa {
            #[cfg(target_arch = "x86_64")]
            crate::cpu::Isa::Avx512 => Level::Avx512,
            #[cfg(target_arch = "x86_64")]
            crate::cpu::Isa::Avx2 => Level::Avx2,
            _ => Level::Portable,
        }
    }

    /// Every level this CPU runs, widest first (for tests).
    #[cfg(test)]
    pub fn all_available() -> Vec<Self> {
        let best = crate::cpu::detected_isa();
        let levels = crate::cpu::Isa::ALL.into_iter().rev().filter(|&i| i <= best);
        levels.map(Self::of).collect()
    }

    /// The levels the kernels' tests run: every level this CPU runs, only the portable
    /// one under Miri (which cannot run the vector intrinsics).
    #[cfg(test)]
    pub fn tested() -> Vec<Self> {
        if cfg!(miri) {
            vec![Level::Portable]
        } else {
            Self::all_available()
        }
    }

    /// The wide block shape (rows of images, long runs of positions).
    pub fn wide(self) -> Shape {
        match self {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => Shape { panels: 1, width: 48 },
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => Shape { panels: 1, width: 24 },
            Level::Portable => Shape { panels: 1, width: 16 },
        }
    }

    /// The narrow block shape (one vector of positions, more rows), or the wide one
    /// when the level has no narrower shape worth using.
    pub fn narrow(self) -> Shape {
        match self {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => Shape { panels: 3, width: 16 },
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => Shape { panels: 1, width: 8 },
            Level::Portable => Shape { panels: 1, width: 8 },
        }
    }

    /// The width positions are padded to so that any block may read a whole vector.
    pub fn max_width(self) -> usize {
        self.wide().width.max(self.narrow().width)
    }

    /// One block of `shape`: `out[r·out_rs + j] = bias[r] + Σₖ w(k, r) · x[base + offsets[k] + j]`
    /// for `r < shape.rows()`, `j < shape.width`, where `w(k, r)` is
    /// `panels[(r / MR)·panel_stride + k·MR + r % MR]` (zero bias without `bias`).
    ///
    /// Panics unless every read and write is inside its slice: `x` up to
    /// `base + max(offsets) + width`, `panels` up to the last row's last tap, `out` up to
    /// the last row's `width` elements, `bias` (if any) `rows` long.
    #[allow(clippy::too_many_arguments)]
    pub fn block(
        self,
        shape: Shape,
        panels: &[f32],
        panel_stride: usize,
        x: &[f32],
        base: usize,
        offsets: &Offsets,
        bias: Option<&[f32]>,
        out: &mut [f32],
        out_rs: usize,
    ) {
        let (rows, width, k) = (shape.rows(), shape.width, offsets.len());
        assert!(
            base + offsets.max() + width <= x.len()
                && (k == 0 || (shape.panels - 1) * panel_stride + k * MR <= panels.len())
                && (rows - 1) * out_rs + width <= out.len()
                && out_rs >= width
                && bias.is_none_or(|b| b.len() >= rows),
            "conv block: operand outside its buffer"
        );
        let (w, xp, op) = (panels.as_ptr(), x[base..].as_ptr(), out.as_mut_ptr());
        let bp = bias.map_or(std::ptr::null(), |b| b.as_ptr());
        let offs = offsets.as_slice();
        match (self, shape.panels, shape.width) {
            // SAFETY (x86 arms): `detect`/`all_available` saw the arm's features; every
            // read and write is inside its slice (asserted above, with offsets ≤ max).
            #[cfg(target_arch = "x86_64")]
            (Level::Avx512, 1, 48) => {
                // SAFETY: as said above the match: features detected, accesses in bounds.
                unsafe { x86::block512::<8, 3>(w, panel_stride, xp, offs, bp, op, out_rs) }
            }
            #[cfg(target_arch = "x86_64")]
            (Level::Avx512, 3, 16) => {
                // SAFETY: as said above the match: features detected, accesses in bounds.
                unsafe { x86::block512::<24, 1>(w, panel_stride, xp, offs, bp, op, out_rs) }
            }
            #[cfg(target_arch = "x86_64")]
            (Level::Avx512, 2, 16) => {
                // SAFETY: as said above the match: features detected, accesses in bounds.
                unsafe { x86::block512::<16, 1>(w, panel_stride, xp, offs, bp, op, out_rs) }
            }
            #[cfg(target_arch = "x86_64")]
            (Level::Avx512, 1, 16) => {
                // SAFETY: as said above the match: features detected, accesses in bounds.
                unsafe { x86::block512::<8, 1>(w, panel_stride, xp, offs, bp, op, out_rs) }
            }
            #[cfg(target_arch = "x86_64")]
            (Level::Avx2, 1, 24) => {
                // SAFETY: as said above the match: features detected, accesses in bounds.
                unsafe {
                    x86::block256x4x3(w, xp, offs, bp, op, out_rs);
                    let bp4 = if bp.is_null() { bp } else { bp.add(4) };
                    x86::block256x4x3(w.add(4), xp, offs, bp4, op.add(4 * out_rs), out_rs);
                }
            }
            #[cfg(target_arch = "x86_64")]
            (Level::Avx2, 1, 8) => {
                // SAFETY: as said above the match: features detected, accesses in bounds.
                unsafe { x86::block256::<8, 1>(w, panel_stride, xp, offs, bp, op, out_rs) }
            }
            _ => block_portable(shape, panels, panel_stride, &x[base..], offs, bias, out, out_rs),
        }
    }
}

/// How a run of `virt` positions is covered: wide blocks up to `wide_end`, then
/// narrow ones up to the end (when the tail is shorter than a wide block).
pub(crate) struct Sweep {
    pub wide: Shape,
    pub narrow: Shape,
    pub wide_end: usize,
    pub virt: usize,
}

impl Sweep {
    pub fn new(level: Level, virt: usize) -> Self {
        let (wide, narrow) = (level.wide(), level.narrow());
        let full = virt / wide.width * wide.width;
        let tail = virt - full;
        let wide_end = if tail == 0 || tail.div_ceil(narrow.width) * narrow.width < wide.width {
            full
        } else {
            full + wide.width
        };
        Sweep {
            wide,
            narrow,
            wide_end,
            virt,
        }
    }
    pub fn wide_starts(&self) -> std::iter::StepBy<std::ops::Range<usize>> {
        (0..self.wide_end).step_by(self.wide.width)
    }
    /// The end of the last block: positions up to it are computed.
    pub fn end(&self) -> usize {
        if self.virt > self.wide_end {
            self.wide_end + (self.virt - self.wide_end).div_ceil(self.narrow.width) * self.narrow.width
        } else {
            self.wide_end
        }
    }
    pub fn narrow_starts(&self) -> std::iter::StepBy<std::ops::Range<usize>> {
        (self.wide_end..self.virt.max(self.wide_end)).step_by(self.narrow.width)
    }
}

/// Where each tap's run starts, with the largest start (kept together so the kernel's
/// bounds check is one comparison).
#[derive(Clone, Debug, Default)]
pub(crate) struct Offsets {
    offsets: Vec<usize>,
    max: usize,
}

impl Offsets {
    pub fn new(offsets: Vec<usize>) -> Self {
        let max = offsets.iter().copied().max().unwrap_or(0);
        Offsets { offsets, max }
    }
    /// `k` taps at `0, stride, 2·stride, …` (rows of a row-major `k × stride` matrix).
    pub fn strided(k: usize, stride: usize) -> Self {
        Self::new((0..k).map(|i| i * stride).collect())
    }
    pub fn as_slice(&self) -> &[usize] {
        &self.offsets
    }
    pub fn len(&self) -> usize {
        self.offsets.len()
    }
    /// The largest offset.
    pub fn max(&self) -> usize {
        self.max
    }
}

/// The portable block, for any shape; the accumulators are a local array per row.
#[allow(clippy::too_many_arguments)]
fn block_portable(
    shape: Shape,
    panels: &[f32],
    pstride: usize,
    x: &[f32],
    offsets: &[usize],
    bias: Option<&[f32]>,
    out: &mut [f32],
    out_rs: usize,
) {
    let width = shape.width;
    for r in 0..shape.rows() {
        let row = &mut out[r * out_rs..][..width];
        row.fill(bias.map_or(0.0, |b| b[r]));
        // (Indexed per tap: with no taps the panels may be empty.)
        let w0 = r / MR * pstride + r % MR;
        for (k, &off) in offsets.iter().enumerate() {
            let wv = panels[w0 + k * MR];
            // (Not `mul_add`: without FMA hardware that is a slow library call.)
            for (o, &v) in row.iter_mut().zip(&x[off..off + width]) {
                *o += wv * v;
            }
        }
    }
}

/// The x86 kernels, written with intrinsics over const-sized accumulator arrays (LLVM
/// keeps them in registers and folds each weight broadcast into its FMAs).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::MR;
    use std::arch::x86_64::*;

    /// `R` rows (`R / MR` panels, or `R ≤ MR` rows of one panel) by `NV` 16-lane vectors.
    ///
    /// # Safety
    /// AVX-512F is available; `x + offs[k] + j` is readable for every `k` and
    /// `j < 16·NV`; `w + (r / MR)·ps + k·MR + r % MR` for `r < R`; `out + r·ors + j`
    /// writable; `bias` null or readable for `R` elements.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn block512<const R: usize, const NV: usize>(
        w: *const f32,
        ps: usize,
        x: *const f32,
        offs: &[usize],
        bias: *const f32,
        out: *mut f32,
        ors: usize,
    ) {
        // SAFETY: every pointer use is inside the ranges of the caller's contract.
        unsafe {
            let mut acc = [[_mm512_setzero_ps(); NV]; R];
            if !bias.is_null() {
                for (r, a) in acc.iter_mut().enumerate() {
                    *a = [_mm512_set1_ps(*bias.add(r)); NV];
                }
            }
            let wp = [w, w.wrapping_add(ps), w.wrapping_add(2 * ps)];
            for (k, &off) in offs.iter().enumerate() {
                let xp = x.add(off);
                let mut xv = [_mm512_setzero_ps(); NV];
                for (v, xr) in xv.iter_mut().enumerate() {
                    *xr = _mm512_loadu_ps(xp.add(16 * v));
                }
                for (r, a) in acc.iter_mut().enumerate() {
                    let wr = _mm512_set1_ps(*wp[r / MR].add(k * MR + r % MR));
                    for v in 0..NV {
                        a[v] = _mm512_fmadd_ps(wr, xv[v], a[v]);
                    }
                }
            }
            for (r, a) in acc.iter().enumerate() {
                for (v, &av) in a.iter().enumerate() {
                    _mm512_storeu_ps(out.add(r * ors + 16 * v), av);
                }
            }
        }
    }

    /// 4 rows of one panel by 3 8-lane vectors: [`block256`]`::<4, 3>` with its tap loop
    /// in assembly. Its 12 accumulators, 3 position vectors and the broadcast weight
    /// take all 16 ymm registers; LLVM's allocator then spills an accumulator through
    /// the stack inside the loop and shuffles the others with 15 moves per tap (a
    /// store-to-load chain on every tap: 60 % of the FMA rate measured on AMD Zen 5,
    /// the same instructions in assembly run at the FMA rate).
    ///
    /// # Safety
    /// AVX2 and FMA are available; `x + offs[k] + j` is readable for every `k` and
    /// `j < 24`; `w + k·MR + r` for `r < 4`; `out + r·ors + j` writable for `r < 4`,
    /// `j < 24`; `bias` null or readable for 4 elements.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn block256x4x3(
        w: *const f32,
        x: *const f32,
        offs: &[usize],
        bias: *const f32,
        out: *mut f32,
        ors: usize,
    ) {
        // SAFETY: every pointer use is inside the ranges of the caller's contract: the
        // loop runs `offs.len() ≥ 1` times, tap `k` reading `offs[k]`, the 24 floats at
        // `x + offs[k]` and the 4 weights at `w + k·MR` (the pointer moves MR floats a
        // tap); it writes only registers (all it touches are named operands).
        unsafe {
            let mut a = [_mm256_setzero_ps(); 12];
            if !bias.is_null() {
                for (r, row) in a.chunks_exact_mut(3).enumerate() {
                    row.fill(_mm256_set1_ps(*bias.add(r)));
                }
            }
            let [
                mut a0,
                mut a1,
                mut a2,
                mut a3,
                mut a4,
                mut a5,
                mut a6,
                mut a7,
                mut a8,
                mut a9,
                mut a10,
                mut a11,
            ] = a;
            if !offs.is_empty() {
                std::arch::asm!(
                    "2:",
                    "mov {o}, qword ptr [{op}]",
                    "vmovups ymm12, ymmword ptr [{x} + 4*{o}]",
                    "vmovups ymm13, ymmword ptr [{x} + 4*{o} + 32]",
                    "vmovups ymm14, ymmword ptr [{x} + 4*{o} + 64]",
                    "vbroadcastss ymm15, dword ptr [{w}]",
                    "vfmadd231ps ymm0, ymm15, ymm12",
                    "vfmadd231ps ymm1, ymm15, ymm13",
                    "vfmadd231ps ymm2, ymm15, ymm14",
                    "vbroadcastss ymm15, dword ptr [{w} + 4]",
                    "vfmadd231ps ymm3, ymm15, ymm12",
                    "vfmadd231ps ymm4, ymm15, ymm13",
                    "vfmadd231ps ymm5, ymm15, ymm14",
                    "vbroadcastss ymm15, dword ptr [{w} + 8]",
                    "vfmadd231ps ymm6, ymm15, ymm12",
                    "vfmadd231ps ymm7, ymm15, ymm13",
                    "vfmadd231ps ymm8, ymm15, ymm14",
                    "vbroadcastss ymm15, dword ptr [{w} + 12]",
                    "vfmadd231ps ymm9, ymm15, ymm12",
                    "vfmadd231ps ymm10, ymm15, ymm13",
                    "vfmadd231ps ymm11, ymm15, ymm14",
                    "add {w}, {wstep}",
                    "add {op}, 8",
                    "dec {k}",
                    "jnz 2b",
                    wstep = const MR * 4,
                    o = out(reg) _,
                    op = inout(reg) offs.as_ptr() => _,
                    w = inout(reg) w => _,
                    k = inout(reg) offs.len() => _,
                    x = in(reg) x,
                    inout("ymm0") a0, inout("ymm1") a1, inout("ymm2") a2, inout("ymm3") a3,
                    inout("ymm4") a4, inout("ymm5") a5, inout("ymm6") a6, inout("ymm7") a7,
                    inout("ymm8") a8, inout("ymm9") a9, inout("ymm10") a10, inout("ymm11") a11,
                    out("ymm12") _, out("ymm13") _, out("ymm14") _, out("ymm15") _,
                    options(nostack, readonly),
                );
            }
            let a = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11];
            for (r, row) in a.chunks_exact(3).enumerate() {
                for (v, &av) in row.iter().enumerate() {
                    _mm256_storeu_ps(out.add(r * ors + 8 * v), av);
                }
            }
        }
    }

    /// As [`block512`] with 8-lane AVX2 vectors.
    ///
    /// # Safety
    /// AVX2 and FMA are available; as [`block512`] with `j < 8·NV`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn block256<const R: usize, const NV: usize>(
        w: *const f32,
        ps: usize,
        x: *const f32,
        offs: &[usize],
        bias: *const f32,
        out: *mut f32,
        ors: usize,
    ) {
        // SAFETY: every pointer use is inside the ranges of the caller's contract.
        unsafe {
            let mut acc = [[_mm256_setzero_ps(); NV]; R];
            if !bias.is_null() {
                for (r, a) in acc.iter_mut().enumerate() {
                    *a = [_mm256_set1_ps(*bias.add(r)); NV];
                }
            }
            let _ = ps;
            for (k, &off) in offs.iter().enumerate() {
                let xp = x.add(off);
                let mut xv = [_mm256_setzero_ps(); NV];
                for (v, xr) in xv.iter_mut().enumerate() {
                    *xr = _mm256_loadu_ps(xp.add(8 * v));
                }
                for (r, a) in acc.iter_mut().enumerate() {
                    let wr = _mm256_set1_ps(*w.add(k * MR + r));
                    for v in 0..NV {
                        a[v] = _mm256_fmadd_ps(wr, xv[v], a[v]);
                    }
                }
            }
            for (r, a) in acc.iter().enumerate() {
                for (v, &av) in a.iter().enumerate() {
                    _mm256_storeu_ps(out.add(r * ors + 8 * v), av);
                }
            }
        }
    }
}
