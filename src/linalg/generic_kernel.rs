//! Cache-blocked matrix product for element types the `gemm` crate does not cover
//! (integers, `bf16`, user [`Num`] types).
//!
//! The classic three-level blocking: `B` is packed in `KC × NR` column panels, `A` in
//! `MR × KC` row panels, and a register-blocked `MR × NR` micro-kernel (fixed-size array
//! loops the compiler unrolls and vectorises) accumulates into a per-thread buffer of the
//! accumulator type. Integers wrap on overflow as NumPy's do; `bf16` accumulates in
//! `f32` and rounds once at the end. On x86-64 the whole kernel is also compiled for
//! AVX2 and picked at run time when the CPU has it.

use super::mat::{MatMut, MatRef};
use crate::element::Num;
use half::bf16;

const MR: usize = 4;
const NR: usize = 8;
const KC: usize = 256;
const MC: usize = 64;
const NC: usize = 512;

/// How a kernel element is loaded into, accumulated in and stored from registers.
pub(crate) trait Accum<T>: 'static {
    /// The accumulator type.
    type A: Copy + Send + Sync;
    /// The accumulator's zero.
    fn zero() -> Self::A;
    /// Converts an element to the accumulator type.
    fn load(x: T) -> Self::A;
    /// `acc + a * b`.
    fn mul_add(acc: Self::A, a: Self::A, b: Self::A) -> Self::A;
    /// `x + y`.
    fn add(x: Self::A, y: Self::A) -> Self::A;
    /// Converts back to the element type.
    fn store(x: Self::A) -> T;
}

/// The element type's own (wrapping, for integers) arithmetic.
pub(crate) struct Wrapping;
impl<T: Num> Accum<T> for Wrapping {
    type A = T;
    #[inline(always)]
    fn zero() -> T {
        T::zero()
    }
    #[inline(always)]
    fn load(x: T) -> T {
        x
    }
    #[inline(always)]
    fn mul_add(acc: T, a: T, b: T) -> T {
        acc.wadd(a.wmul(b))
    }
    #[inline(always)]
    fn add(x: T, y: T) -> T {
        x.wadd(y)
    }
    #[inline(always)]
    fn store(x: T) -> T {
        x
    }
}

/// `bf16` computed in `f32`.
pub(crate) struct Bf16Acc;
impl Accum<bf16> for Bf16Acc {
    type A = f32;
    #[inline(always)]
    fn zero() -> f32 {
        0.0
    }
    #[inline(always)]
    fn load(x: bf16) -> f32 {
        x.to_f32()
    }
    #[inline(always)]
    fn mul_add(acc: f32, a: f32, b: f32) -> f32 {
        acc + a * b
    }
    #[inline(always)]
    fn add(x: f32, y: f32) -> f32 {
        x + y
    }
    #[inline(always)]
    fn store(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
}

/// `C = A · B` through the blocked kernel, split over `threads` threads for large
/// products.
///
/// # Safety
/// As [`super::gemm_kernels::gemm`]: every `(i, p)` of `a`, `(p, j)` of `b` readable,
/// every `(i, j)` of `c` writable, distinct and not aliasing the inputs; `m, n, k > 0`.
pub(crate) unsafe fn gemm_blocked<T: Num, K: Accum<T>>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    threads: usize,
) {
    let threads = if m * n * k >= 64 * 64 * 64 { threads.max(1) } else { 1 };
    if threads == 1 {
        // SAFETY: forwarded caller contract.
        return unsafe { dispatch::<T, K>(m, n, k, a, b, c) };
    }
    // Split the output into `threads` row (or column) bands; bands are disjoint.
    let split_rows = m >= n;
    let len = if split_rows { m } else { n };
    let chunk = len.div_ceil(threads).next_multiple_of(if split_rows { MR } else { NR });
    rayon::scope(|s| {
        let mut start = 0;
        while start < len {
            let l = chunk.min(len - start);
            let (mut a2, mut b2, mut c2) = (a, b, c);
            let (mm, nn) = if split_rows {
                a2.ptr = a.ptr.wrapping_offset(start as isize * a.rs);
                c2.ptr = c.ptr.wrapping_offset(start as isize * c.rs);
                (l, n)
            } else {
                b2.ptr = b.ptr.wrapping_offset(start as isize * b.cs);
                c2.ptr = c.ptr.wrapping_offset(start as isize * c.cs);
                (m, l)
            };
            // SAFETY: the band is a sub-matrix of the caller's operands; bands write
            // disjoint parts of `c`.
            s.spawn(move |_| unsafe { dispatch::<T, K>(mm, nn, k, a2, b2, c2) });
            start += l;
        }
    });
}

/// Picks the AVX2 build of the kernel when the CPU has it.
///
/// # Safety
/// As [`gemm_blocked`] (single-threaded).
unsafe fn dispatch<T: Num, K: Accum<T>>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::isa() >= crate::cpu::Isa::Avx2 {
        // SAFETY: the CPU supports AVX2 and FMA (`isa`); forwarded caller contract.
        return unsafe { blocked_avx2::<T, K>(m, n, k, a, b, c) };
    }
    // SAFETY: forwarded caller contract.
    unsafe { blocked::<T, K>(m, n, k, a, b, c) }
}

/// [`blocked`] compiled for the AVX2 level.
///
/// # Safety
/// `crate::cpu::isa()` is at least `Avx2`; the contract of [`blocked`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn blocked_avx2<T: Num, K: Accum<T>>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    // SAFETY: forwarded caller contract.
    unsafe { blocked::<T, K>(m, n, k, a, b, c) }
}

/// The single-threaded blocked product.
///
/// # Safety
/// As [`gemm_blocked`].
#[inline(always)]
unsafe fn blocked<T: Num, K: Accum<T>>(m: usize, n: usize, k: usize, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>) {
    let ncb = NC.min(n.next_multiple_of(NR));
    let kcb = KC.min(k);
    let mut bpack = vec![K::zero(); kcb * ncb];
    let mut apack = vec![K::zero(); kcb * MC];
    let mut cbuf = vec![K::zero(); m * ncb];
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        cbuf.iter_mut().for_each(|x| *x = K::zero());
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            // SAFETY: (pc.., jc..) block of `b` is inside it by the caller's contract.
            unsafe {
                let origin = b.ptr.wrapping_offset(pc as isize * b.rs + jc as isize * b.cs);
                pack::<T, K, NR>(kc, nc, origin, b.rs, b.cs, &mut bpack)
            };
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                // SAFETY: as above for the (ic.., pc..) block of `a`.
                unsafe {
                    let origin = a.ptr.wrapping_offset(ic as isize * a.rs + pc as isize * a.cs);
                    pack::<T, K, MR>(kc, mc, origin, a.cs, a.rs, &mut apack)
                };
                for jp in 0..nc.div_ceil(NR) {
                    let bpanel = &bpack[jp * kc * NR..(jp + 1) * kc * NR];
                    for ip in 0..mc.div_ceil(MR) {
                        let apanel = &apack[ip * kc * MR..(ip + 1) * kc * MR];
                        let acc = micro::<T, K>(apanel, bpanel);
                        let (i0, j0) = (ic + ip * MR, jp * NR);
                        for (ii, row) in acc.iter().enumerate().take(MR.min(m - i0)) {
                            let dst = &mut cbuf[(i0 + ii) * ncb + j0..];
                            for (d, &v) in dst.iter_mut().zip(row).take(NR.min(nc - j0)) {
                                *d = K::add(*d, v);
                            }
                        }
                    }
                }
            }
        }
        for i in 0..m {
            for j in 0..nc {
                // SAFETY: (i, jc + j) is inside `c` by the caller's contract.
                unsafe {
                    *c.ptr.offset(i as isize * c.rs + (jc + j) as isize * c.cs) = K::store(cbuf[i * ncb + j]);
                }
            }
        }
    }
}

/// The register-blocked `MR × NR` micro-kernel over one packed panel pair.
#[inline(always)]
fn micro<T, K: Accum<T>>(apanel: &[K::A], bpanel: &[K::A]) -> [[K::A; NR]; MR] {
    let mut acc = [[K::zero(); NR]; MR];
    for (av, bv) in apanel.chunks_exact(MR).zip(bpanel.chunks_exact(NR)) {
        let av: &[K::A; MR] = av.try_into().expect("chunk of MR");
        let bv: &[K::A; NR] = bv.try_into().expect("chunk of NR");
        for i in 0..MR {
            for j in 0..NR {
                acc[i][j] = K::mul_add(acc[i][j], av[i], bv[j]);
            }
        }
    }
    acc
}

/// Packs a `kc × len` block into `W`-wide panels, zero-padded: element `(p, q)` of the
/// block (`p` along k, `q` along the panel dimension) is read at
/// `origin + p*s_k + q*s_w` and goes to `out[(q/W*kc + p)*W + q%W]`. For `B` the panel
/// dimension is its columns (`W = NR`), for `A` its rows (`W = MR`).
///
/// # Safety
/// Every `(p, q)` with `p < kc`, `q < len` must be readable.
#[inline(always)]
unsafe fn pack<T: Num, K: Accum<T>, const W: usize>(
    kc: usize,
    len: usize,
    origin: *const T,
    s_k: isize,
    s_w: isize,
    out: &mut [K::A],
) {
    for qp in 0..len.div_ceil(W) {
        let w = W.min(len - qp * W);
        for p in 0..kc {
            let dst = &mut out[(qp * kc + p) * W..(qp * kc + p + 1) * W];
            let src = origin.wrapping_offset(p as isize * s_k + (qp * W) as isize * s_w);
            for (q, d) in dst.iter_mut().enumerate() {
                *d = if q < w {
                    // SAFETY: (p, qp*W + q) is inside the block by the caller's contract.
                    K::load(unsafe { *src.offset(q as isize * s_w) })
                } else {
                    K::zero()
                };
            }
        }
    }
}
