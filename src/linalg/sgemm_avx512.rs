//! Large f32 products on AVX-512 through our own Goto-style driver: packed panels
//! (A in [`MR`]-row panels, B in [`NR`]-column panels, zero-padded) and the `asm!`
//! microkernel of [`super::sgemm_asm_kernel`].
//!
//! Loop order (C row-major, after transposing a column-major problem): for each block
//! of depth `kc` — pack A's rows `mc` at a time — for each block of `nc` columns of B —
//! pack it — for each A panel (kept in L1 across the row of tiles) — for each B panel
//! (streamed from the L2-sized block) — one microkernel call. `kc`, `nc` and `mc` come
//! from the cache sizes read at run time ([`Blocking::from_caches`]), never from a
//! constant tuned on one CPU family. Several threads each take a block of C's columns
//! (independent products, each packing its own panels).

use super::mat::{MatMut, MatRef};
#[cfg(all(target_arch = "x86_64", not(miri)))]
use super::sgemm_asm_kernel::kernel_12x32;
/// Rows of the C tile (the broadcast operand A's panel width).
pub(crate) const MR: usize = 12;
/// Columns of the C tile (the vector operand B's panel width: two 16-lane registers).
pub(crate) const NR: usize = 32;

/// Block sizes of the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Blocking {
    /// Depth of a block (the A panel of `MR × kc` floats stays in L1).
    pub kc: usize,
    /// Columns of a B block (`kc × nc` floats stay in L2), a multiple of [`NR`].
    pub nc: usize,
    /// Rows of an A block (`mc × kc` floats), a multiple of [`MR`].
    pub mc: usize,
    /// Software prefetch distance into the B panels, bytes.
    pub pf: usize,
}

impl Blocking {
    /// From the L1 and L2 data cache sizes (48 KiB and 1 MiB assumed when unknown):
    /// the A panel fills half of L1, the B block half of L2, the A block 8 × L2.
    pub(crate) fn from_caches(l1: Option<usize>, l2: Option<usize>) -> Blocking {
        let (l1, l2) = (l1.unwrap_or(48 << 10), l2.unwrap_or(1 << 20));
        let f = std::mem::size_of::<f32>();
        let kc = (l1 / 2 / (MR * f)).clamp(64, 1024) / 8 * 8;
        let nc = (l2 / 2 / (kc * f) / NR).max(1) * NR;
        let mc = (8 * l2 / (kc * f) / MR).max(1) * MR;
        Blocking { kc, nc, mc, pf: 1024 }
    }

    /// This machine's blocking (with temporary `FT_SGEMM_KC`, `_NC`, `_MC`, `_PF`
    /// overrides for measurements), read once.
    pub(crate) fn get() -> Blocking {
        static B: std::sync::OnceLock<Blocking> = std::sync::OnceLock::new();
        *B.get_or_init(|| {
            let (l1, l2) = crate::cpu::cache_bytes();
            let mut b = Blocking::from_caches(l1, l2);
            let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
            if let Some(v) = var("FT_SGEMM_KC") {
                b.kc = v.max(1);
            }
            if let Some(v) = var("FT_SGEMM_NC") {
                b.nc = v.max(1).next_multiple_of(NR);
            }
            if let Some(v) = var("FT_SGEMM_MC") {
                b.mc = v.max(1).next_multiple_of(MR);
            }
            if let Some(v) = var("FT_SGEMM_PF") {
                b.pf = v;
            }
            b
        })
    }
}

/// True when this driver runs `C = A·B` (f32, `m × n × k`) here: an AVX-512 CPU (not
/// under Miri), a product with every dimension ≥ 256 (shape-only rule), and C with a
/// unit stride along one of its axes. Temporarily also switched by `FT_SGEMM=1`.
pub(crate) fn usable(m: usize, n: usize, k: usize, c_rs: isize, c_cs: isize) -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let on = *ON.get_or_init(|| std::env::var("FT_SGEMM").is_ok_and(|v| v == "1"));
    on && cfg!(all(target_arch = "x86_64", not(miri)))
        && crate::cpu::isa() == crate::cpu::Isa::Avx512
        && m.min(n).min(k) >= 256
        && (c_cs == 1 || c_rs == 1)
}

/// Packs rows `0..rows` (≤ `MR` × panels), columns `0..kc` of `a` into `MR`-row
/// panels: panel `q` holds, for each `p < kc`, the `MR` values `a[q·MR + r, p]`
/// (zero past `rows`), at `dst[q·MR·kc + p·MR + r]`.
///
/// # Safety
/// `a` is readable at every `(i, p)` with `i < rows`, `p < kc`; `dst` is writable for
/// `rows.div_ceil(MR) · MR · kc` floats.
pub(crate) unsafe fn pack_a(a: MatRef<f32>, rows: usize, kc: usize, dst: *mut f32) {
    for q in 0..rows.div_ceil(MR) {
        let r_n = MR.min(rows - q * MR);
        // SAFETY: panel `q` lies inside `dst` (caller's size); rows and columns read are
        // inside the caller's readable range.
        unsafe {
            let panel = dst.add(q * MR * kc);
            for r in 0..MR {
                if r < r_n {
                    let row = a.ptr.offset((q * MR + r) as isize * a.rs);
                    for p in 0..kc {
                        *panel.add(p * MR + r) = *row.offset(p as isize * a.cs);
                    }
                } else {
                    for p in 0..kc {
                        *panel.add(p * MR + r) = 0.0;
                    }
                }
            }
        }
    }
}

/// Packs rows `0..kc`, columns `0..cols` of `b` into `NR`-column panels: panel `q`
/// holds, for each `p < kc`, the `NR` values `b[p, q·NR + j]` (zero past `cols`), at
/// `dst[q·NR·kc + p·NR + j]`.
///
/// # Safety
/// `b` is readable at every `(p, j)` with `p < kc`, `j < cols`; `dst` is writable for
/// `cols.div_ceil(NR) · NR · kc` floats.
pub(crate) unsafe fn pack_b(b: MatRef<f32>, kc: usize, cols: usize, dst: *mut f32) {
    for q in 0..cols.div_ceil(NR) {
        let c_n = NR.min(cols - q * NR);
        // SAFETY: as in `pack_a`, with the roles of rows and columns exchanged.
        unsafe {
            let panel = dst.add(q * NR * kc);
            for p in 0..kc {
                let src = b.ptr.offset(p as isize * b.rs + (q * NR) as isize * b.cs);
                let out = panel.add(p * NR);
                if b.cs == 1 && c_n == NR {
                    std::ptr::copy_nonoverlapping(src, out, NR);
                } else {
                    for j in 0..NR {
                        *out.add(j) = if j < c_n { *src.offset(j as isize * b.cs) } else { 0.0 };
                    }
                }
            }
        }
    }
}

/// A buffer of at least `n` floats whose start is 64-byte aligned; the pointer is
/// valid for `n` writes while the vector lives (nothing in it is initialised).
fn aligned(n: usize) -> (Vec<f32>, usize) {
    let mut v: Vec<f32> = super::alloc::output_buffer(n + 16);
    let off = v.as_mut_ptr().align_offset(64).min(16);
    (v, off)
}

/// `C = A·B`, or `C += A·B` with `accumulate`, on `threads` threads.
///
/// # Safety
/// The CPU supports AVX-512 F (not under Miri); for every `i < m`, `j < n`, `p < k`:
/// `a` is readable at `(i, p)`, `b` at `(p, j)`, `c` writable (and readable with
/// `accumulate`) at `(i, j)`; `c` does not alias `a` or `b` and distinct `(i, j)`
/// name distinct elements; `c.cs == 1` or `c.rs == 1`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn sgemm(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<f32>,
    b: MatRef<f32>,
    c: MatMut<f32>,
    accumulate: bool,
    threads: usize,
    blk: Blocking,
) {
    // Row-major C: a column-major C is the transposed product C^T = B^T A^T.
    let (m, n, a, b, c) = if c.cs == 1 {
        (m, n, a, b, c)
    } else {
        (n, m, b.t(), a.t(), c.t())
    };
    let width = n.div_ceil(threads.max(1)).next_multiple_of(NR);
    if threads <= 1 || width >= n {
        // SAFETY: forwarded caller contract.
        return unsafe { sgemm_1(m, n, k, a, b, c, accumulate, blk) };
    }
    rayon::scope(|s| {
        for j in (0..n).step_by(width) {
            let w = width.min(n - j);
            let (bj, cj) = (b.shifted(j as isize * b.cs), c.shifted(j as isize));
            // SAFETY: columns j..j + w of the caller's product; distinct blocks write
            // disjoint columns of C.
            s.spawn(move |_| unsafe { sgemm_1(m, w, k, a, bj, cj, accumulate, blk) });
        }
    });
}

/// One thread of [`sgemm`], C row-major (`c.cs == 1`).
///
/// # Safety
/// As [`sgemm`], with `c.cs == 1`.
#[allow(clippy::too_many_arguments)]
unsafe fn sgemm_1(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<f32>,
    b: MatRef<f32>,
    c: MatMut<f32>,
    accumulate: bool,
    blk: Blocking,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                // SAFETY: row i of C has n writable unit-stride elements.
                unsafe { std::ptr::write_bytes(c.ptr.offset(i as isize * c.rs), 0, n) };
            }
        }
        return;
    }
    // Equal depth blocks of at most kc; rows of A in blocks of at most mc.
    let kc_max = k.div_ceil(k.div_ceil(blk.kc));
    let mc_max = blk.mc.min(m.next_multiple_of(MR));
    let nc_max = blk.nc.min(n.next_multiple_of(NR));
    let (mut abuf, aoff) = aligned(mc_max * kc_max);
    let (mut bbuf, boff) = aligned(nc_max * kc_max);
    // SAFETY: the offsets keep the pointers inside the buffers' capacity.
    let (ap, bp) = unsafe { (abuf.as_mut_ptr().add(aoff), bbuf.as_mut_ptr().add(boff)) };
    let mut tile = Tile([0.0; MR * NR]);
    for pc in (0..k).step_by(kc_max) {
        let kc = kc_max.min(k - pc);
        let acc = accumulate || pc > 0;
        for ic in (0..m).step_by(mc_max) {
            let mc = mc_max.min(m - ic);
            // SAFETY: rows ic..ic + mc, columns pc..pc + kc of A are readable; the A
            // buffer holds mc_max.next_multiple_of(MR) · kc_max ≥ the packed size.
            unsafe { pack_a(a.shifted(ic as isize * a.rs + pc as isize * a.cs), mc, kc, ap) };
            for jc in (0..n).step_by(nc_max) {
                let nc = nc_max.min(n - jc);
                // SAFETY: as above for B's rows pc..pc + kc, columns jc..jc + nc.
                unsafe { pack_b(b.shifted(pc as isize * b.rs + jc as isize * b.cs), kc, nc, bp) };
                for ir in (0..mc).step_by(MR) {
                    let rows = MR.min(mc - ir);
                    for jr in (0..nc).step_by(NR) {
                        let cols = NR.min(nc - jr);
                        // SAFETY: panel offsets inside the packed buffers; the C tile at
                        // (ic + ir, jc + jr) is inside C (edge tiles go through `tile`).
                        unsafe {
                            let (pa, pb) = (ap.add(ir * kc), bp.add(jr * kc));
                            let ct = c.ptr.offset((ic + ir) as isize * c.rs + (jc + jr) as isize);
                            micro(kc, pa, pb, ct, c.rs, rows, cols, acc, &mut tile, blk.pf);
                        }
                    }
                }
            }
        }
    }
}

/// A 64-byte-aligned C tile for the edges.
#[repr(align(64))]
struct Tile([f32; MR * NR]);

/// One tile: the kernel straight into C when it is a whole tile, else into `tile` and
/// the `rows × cols` corner copied (or added) into C.
///
/// # Safety
/// As [`kernel_12x32`] for the panels; C's `rows × cols` corner at `c` (row stride
/// `rs`, unit column stride) is writable (readable with `acc`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn micro(
    kc: usize,
    pa: *const f32,
    pb: *const f32,
    c: *mut f32,
    rs: isize,
    rows: usize,
    cols: usize,
    acc: bool,
    tile: &mut Tile,
    pf: usize,
) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: the caller's contract (AVX-512 F, readable panels, writable C tile or the
    // local tile of 12 rows of 32 floats).
    unsafe {
        let f = std::mem::size_of::<f32>() as isize;
        if rows == MR && cols == NR {
            kernel_12x32(kc, pa, pb, c, rs * f, acc, pf);
            return;
        }
        kernel_12x32(kc, pa, pb, tile.0.as_mut_ptr(), (NR as isize) * f, false, pf);
        for i in 0..rows {
            let row = c.offset(i as isize * rs);
            for j in 0..cols {
                let t = tile.0[i * NR + j];
                *row.add(j) = if acc { *row.add(j) + t } else { t };
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = (kc, pa, pb, c, rs, rows, cols, acc, tile, pf);
        unreachable!("sgemm_avx512 runs only on x86-64 with AVX-512 (see `usable`)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values in [-1, 1) with an irregular pattern.
    fn val(i: usize, salt: usize) -> f32 {
        ((i * 37 + salt * 11) % 29) as f32 / 14.5 - 1.0
    }

    #[test]
    fn pack_a_panels_and_padding() {
        // 14 × 5 matrix read transposed from a 5 × 14 buffer (strides 1, 14).
        let (rows, kc) = (14, 5);
        let src: Vec<f32> = (0..rows * kc).map(|i| i as f32).collect();
        let a = MatRef {
            ptr: src.as_ptr(),
            rs: 1,
            cs: rows as isize,
        };
        let mut dst = vec![f32::NAN; 2 * MR * kc];
        // SAFETY: a reads (i, p) at p·14 + i < 70; dst holds 2 panels.
        unsafe { pack_a(a, rows, kc, dst.as_mut_ptr()) };
        for q in 0..2 {
            for p in 0..kc {
                for r in 0..MR {
                    let i = q * MR + r;
                    let want = if i < rows { (p * rows + i) as f32 } else { 0.0 };
                    assert_eq!(dst[q * MR * kc + p * MR + r], want, "panel {q} p {p} r {r}");
                }
            }
        }
    }

    #[test]
    fn pack_b_panels_and_padding() {
        // 3 × 40 row-major (copy path for the full panel, padded second panel), then
        // the same matrix read with negative column stride.
        let (kc, cols) = (3, 40);
        let src: Vec<f32> = (0..kc * cols).map(|i| i as f32 + 0.5).collect();
        for flip in [false, true] {
            let b = if flip {
                MatRef {
                    ptr: src.as_ptr().wrapping_add(cols - 1),
                    rs: cols as isize,
                    cs: -1,
                }
            } else {
                MatRef {
                    ptr: src.as_ptr(),
                    rs: cols as isize,
                    cs: 1,
                }
            };
            let mut dst = vec![f32::NAN; 2 * NR * kc];
            // SAFETY: b reads (p, j) inside the 120-element buffer; dst holds 2 panels.
            unsafe { pack_b(b, kc, cols, dst.as_mut_ptr()) };
            for q in 0..2 {
                for p in 0..kc {
                    for j in 0..NR {
                        let col = q * NR + j;
                        let src_col = if flip { (cols - 1).wrapping_sub(col) } else { col };
                        let want = if col < cols { src[p * cols + src_col] } else { 0.0 };
                        assert_eq!(dst[q * NR * kc + p * NR + j], want, "flip {flip} q {q} p {p} j {j}");
                    }
                }
            }
        }
    }

    #[test]
    fn blocking_follows_the_caches() {
        let zen5 = Blocking::from_caches(Some(48 << 10), Some(1 << 20));
        assert_eq!((zen5.kc, zen5.nc, zen5.mc), (512, 256, 4092));
        let spr = Blocking::from_caches(Some(48 << 10), Some(2 << 20));
        assert_eq!((spr.kc, spr.nc), (512, 512));
        let small = Blocking::from_caches(Some(32 << 10), Some(256 << 10));
        assert_eq!((small.kc, small.nc % NR, small.mc % MR), (336, 0, 0));
    }

    /// `C (+)= A·B` through the driver against an f64 reference on every element.
    /// `ta`: A stored transposed; `cm`: C column-major; `flip_b`: B read with negative
    /// strides; `acc`: accumulate into a C that starts non-zero.
    #[allow(clippy::too_many_arguments)]
    fn check(m: usize, n: usize, k: usize, ta: bool, cm: bool, flip_b: bool, acc: bool, threads: usize, blk: Blocking) {
        if crate::cpu::isa() != crate::cpu::Isa::Avx512 {
            return;
        }
        let av: Vec<f32> = (0..m * k).map(|i| val(i, 1)).collect();
        let bv: Vec<f32> = (0..k * n).map(|i| val(i, 2)).collect();
        let c0: Vec<f32> = (0..m * n).map(|i| val(i, 3)).collect();
        let a = if ta {
            // av holds A^T row-major (k × m): A(i, p) = av[p·m + i].
            MatRef {
                ptr: av.as_ptr(),
                rs: 1,
                cs: m as isize,
            }
        } else {
            MatRef {
                ptr: av.as_ptr(),
                rs: k as isize,
                cs: 1,
            }
        };
        let a_at = |i: usize, p: usize| if ta { av[p * m + i] } else { av[i * k + p] };
        let b = if flip_b {
            MatRef {
                ptr: bv.as_ptr().wrapping_add((k * n).saturating_sub(1)),
                rs: -(n as isize),
                cs: -1,
            }
        } else {
            MatRef {
                ptr: bv.as_ptr(),
                rs: n as isize,
                cs: 1,
            }
        };
        let b_at = |p: usize, j: usize| {
            if flip_b {
                bv[(k - 1 - p) * n + (n - 1 - j)]
            } else {
                bv[p * n + j]
            }
        };
        let (rs, cs) = if cm { (1, m as isize) } else { (n as isize, 1) };
        let mut cv = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                cv[(i as isize * rs + j as isize * cs) as usize] = c0[i * n + j];
            }
        }
        let c = MatMut {
            ptr: cv.as_mut_ptr(),
            rs,
            cs,
        };
        // SAFETY: AVX-512 checked; the views describe the buffers above; C distinct.
        unsafe { sgemm(m, n, k, a, b, c, acc, threads, blk) };
        for i in 0..m {
            for j in 0..n {
                let dot: f64 = (0..k).map(|p| a_at(i, p) as f64 * b_at(p, j) as f64).sum();
                let want = if acc { c0[i * n + j] as f64 + dot } else { dot };
                let got = cv[(i as isize * rs + j as isize * cs) as usize] as f64;
                let tol = 1e-5 * (k as f64 + 1.0);
                assert!(
                    (got - want).abs() <= tol,
                    "({m},{n},{k}) ta {ta} cm {cm} acc {acc}: ({i},{j}) {got} vs {want}"
                );
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn driver_matches_the_reference_on_odd_shapes() {
        let tiny = Blocking {
            kc: 8,
            nc: 64,
            mc: 24,
            pf: 256,
        };
        let real = Blocking::get();
        for &(m, n, k) in &[
            (1, 1, 1),
            (12, 32, 4),
            (13, 33, 7),
            (25, 70, 19),
            (50, 97, 33),
            (36, 64, 0),
        ] {
            for blk in [tiny, real] {
                check(m, n, k, false, false, false, false, 1, blk);
                check(m, n, k, true, false, true, true, 1, blk);
                check(m, n, k, false, true, false, true, 2, blk);
                check(m, n, k, true, true, true, false, 2, blk);
            }
        }
        check(300, 260, 600, true, false, false, false, 2, real);
        check(130, 300, 520, false, true, true, true, 2, real);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn nan_reaches_only_its_row() {
        if crate::cpu::isa() != crate::cpu::Isa::Avx512 {
            return;
        }
        let (m, n, k) = (26, 40, 9);
        let mut av: Vec<f32> = (0..m * k).map(|i| val(i, 4)).collect();
        av[13 * k + 5] = f32::NAN;
        let bv: Vec<f32> = (0..k * n).map(|i| val(i, 5)).collect();
        let mut cv = vec![0.0f32; m * n];
        let a = MatRef {
            ptr: av.as_ptr(),
            rs: k as isize,
            cs: 1,
        };
        let b = MatRef {
            ptr: bv.as_ptr(),
            rs: n as isize,
            cs: 1,
        };
        let c = MatMut {
            ptr: cv.as_mut_ptr(),
            rs: n as isize,
            cs: 1,
        };
        // SAFETY: AVX-512 checked; the views describe the buffers above.
        unsafe {
            sgemm(
                m,
                n,
                k,
                a,
                b,
                c,
                false,
                1,
                Blocking {
                    kc: 4,
                    nc: 32,
                    mc: 12,
                    pf: 0,
                },
            )
        };
        for i in 0..m {
            for j in 0..n {
                assert_eq!(cv[i * n + j].is_nan(), i == 13, "({i}, {j})");
            }
        }
    }
}
