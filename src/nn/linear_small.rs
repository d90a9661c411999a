//! The few-rows path of `linear` (batch 1–8 heads such as ResNet's `fc`): each output
//! is the dot product of an input row and a weight row, both read in place from their
//! row-major buffers. A GEMM library packs the whole `(O, I)` weight into panels on
//! every call, which for a handful of rows costs more than the arithmetic; here the
//! weight is streamed once per call and each loaded weight vector feeds `MR` rows.
//!
//! A tile is `MR` input rows × `OB` weight rows, `MR·OB` vector accumulators over the
//! shared `I` axis, reduced across lanes at the end. Tasks (in parallel) take disjoint
//! runs of output columns.

use super::conv_block::Level;
use super::simd::{Scalar, Simd};
use super::util::{cast_slice, par_tasks};
use crate::iter::SendPtr;
use num_traits::Zero;

/// Input rows up to which `linear` takes this path (a shape rule: above it a GEMM's
/// packing is spread over enough rows to pay for itself).
pub(crate) const SMALL_ROWS: usize = 8;

/// Output columns per task are a multiple of this (the widest tile).
const OB: usize = 4;

/// `out[r·o + j] = bias[j] + Σₖ x[r·i + k]·w[j·i + k]` for `r < m`, `j < o`, with `x`
/// `m × i` and `w` `o × i` row-major; `out` is `m × o` row-major. Only `f32` and `f64`
/// (other types return `false` and leave `out` alone).
pub(crate) fn product<F: crate::element::Float>(
    x: &[F],
    w: &[F],
    bias: Option<&[F]>,
    m: usize,
    o: usize,
    i: usize,
    out: &mut [F],
) -> bool {
    assert!(
        x.len() >= m * i && w.len() >= o * i && out.len() >= m * o && bias.is_none_or(|b| b.len() >= o),
        "linear: small product outside its buffers"
    );
    if let (Some(x), Some(w)) = (cast_slice::<F, f32>(x), cast_slice::<F, f32>(w)) {
        let b = bias.map(|b| cast_slice::<F, f32>(b).expect("F is f32"));
        let out = crate::same_type::slice_mut::<F, f32>(out).expect("F is f32");
        let p = Problem { x, w, bias: b, m, o, i };
        match Level::detect() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX-512F was detected.
            Level::Avx512 => run(&p, out, |p, o, j0, j1| unsafe { x86::cols512(p, o, j0, j1) }),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 and FMA were detected.
            Level::Avx2 => run(&p, out, |p, o, j0, j1| unsafe { x86::cols256(p, o, j0, j1) }),
            // SAFETY: plain Rust.
            Level::Portable => run(&p, out, |p, o, j0, j1| unsafe { cols::<Scalar<f32>, 4>(p, o, j0, j1) }),
        }
        return true;
    }
    if let (Some(x), Some(w)) = (cast_slice::<F, f64>(x), cast_slice::<F, f64>(w)) {
        let b = bias.map(|b| cast_slice::<F, f64>(b).expect("F is f64"));
        let out = crate::same_type::slice_mut::<F, f64>(out).expect("F is f64");
        let p = Problem { x, w, bias: b, m, o, i };
        // SAFETY: plain Rust.
        run(&p, out, |p, o, j0, j1| unsafe { cols::<Scalar<f64>, 4>(p, o, j0, j1) });
        return true;
    }
    false
}

/// The operands, shapes checked by [`product`].
struct Problem<'a, E> {
    x: &'a [E],
    w: &'a [E],
    bias: Option<&'a [E]>,
    m: usize,
    o: usize,
    i: usize,
}

/// Output columns per task: about four tasks per thread (a late thread takes fewer),
/// at least 64 columns, whole tiles.
fn run<E: Copy + Send + Sync>(
    p: &Problem<'_, E>,
    out: &mut [E],
    f: impl Fn(&Problem<'_, E>, SendPtr<E>, usize, usize) + Sync,
) {
    let optr = SendPtr(out.as_mut_ptr());
    column_tasks(p.m, p.o, p.i, OB, |j0, j1| f(p, optr, j0, j1));
}

/// Runs `f(j0, j1)` in parallel on disjoint runs of the `o` output columns of an
/// `m × o` by `i` product: about four tasks per thread (a late thread takes fewer), at
/// least 64 columns each, each run a multiple of `multiple` columns (the last one
/// shorter); one task for a call of under ~64K multiply-adds (not worth a second
/// thread's wake-up).
pub(super) fn column_tasks(m: usize, o: usize, i: usize, multiple: usize, f: impl Fn(usize, usize) + Sync) {
    if o == 0 {
        return;
    }
    let tasks = if m * o * i < 1 << 16 {
        1
    } else {
        o.div_ceil(64).clamp(1, 4 * crate::threads::num_threads())
    };
    let per = o.div_ceil(tasks).next_multiple_of(multiple);
    par_tasks(
        o.div_ceil(per),
        || (),
        |_, t| {
            let j0 = t * per;
            f(j0, (j0 + per).min(o));
        },
    );
}

/// Columns `j0..j1` of every output row, in tiles of up to `MR` rows × 2 columns (× 4
/// columns for one or two rows, so that a batch-1 call still has four independent
/// accumulator chains).
///
/// # Safety
/// `S`'s CPU features are available; `out` points to the `m × o` output, whose columns
/// `j0..j1` no other thread writes meanwhile; `j1 ≤ o`.
#[inline(always)]
unsafe fn cols<S: Simd, const MR: usize>(p: &Problem<'_, S::E>, out: SendPtr<S::E>, j0: usize, j1: usize) {
    let mut r = 0;
    while r < p.m {
        let mr = MR.min(p.m - r);
        let step = if mr <= 2 { 4 } else { 2 };
        let mut j = j0;
        while j < j1 {
            let ob = step.min(j1 - j);
            // SAFETY: rows r..r+mr ≤ m and columns j..j+ob ≤ j1 ≤ o (the contract of
            // `tile`); the features and `out` are the caller's contract.
            unsafe {
                match (mr, ob) {
                    (1, 4) => tile::<S, 1, 4>(p, out, r, j),
                    (2, 4) => tile::<S, 2, 4>(p, out, r, j),
                    (3, 2) => tile::<S, 3, 2>(p, out, r, j),
                    (4, 2) => tile::<S, 4, 2>(p, out, r, j),
                    (5, 2) => tile::<S, 5, 2>(p, out, r, j),
                    (6, 2) => tile::<S, 6, 2>(p, out, r, j),
                    (7, 2) => tile::<S, 7, 2>(p, out, r, j),
                    (8, 2) => tile::<S, 8, 2>(p, out, r, j),
                    _ => tile_any::<S>(p, out, r, mr, j, ob),
                }
            }
            j += ob;
        }
        r += mr;
    }
}

/// One full tile: rows `r..r + R`, columns `j..j + B`.
///
/// # Safety
/// `S`'s CPU features are available; `r + R ≤ m`, `j + B ≤ o`; `out` as in [`cols`].
#[inline(always)]
unsafe fn tile<S: Simd, const R: usize, const B: usize>(p: &Problem<'_, S::E>, out: SendPtr<S::E>, r: usize, j: usize) {
    let (i, n) = (p.i, S::LANES);
    let (xp, wp) = (p.x.as_ptr(), p.w.as_ptr());
    // SAFETY: the loads read x rows r..r+R and w rows j..j+B at columns k < i (full
    // vectors while k + n ≤ i, the last partial vector masked), inside the buffers
    // `product` checked; the features are the caller's contract.
    unsafe {
        let mut acc = [[S::splat(S::E::zero()); B]; R];
        let mut k = 0;
        while k + n <= i {
            let wv: [S::V; B] = std::array::from_fn(|b| S::load(wp.add((j + b) * i + k)));
            for (a, rr) in acc.iter_mut().zip(r..) {
                let xv = S::load(xp.add(rr * i + k));
                for (ab, &wb) in a.iter_mut().zip(&wv) {
                    *ab = S::mul_add(xv, wb, *ab);
                }
            }
            k += n;
        }
        if k < i {
            let rem = (i - k) as isize;
            let wv: [S::V; B] = std::array::from_fn(|b| S::load_range(wp.add((j + b) * i + k), 0, rem));
            for (a, rr) in acc.iter_mut().zip(r..) {
                let xv = S::load_range(xp.add(rr * i + k), 0, rem);
                for (ab, &wb) in a.iter_mut().zip(&wv) {
                    *ab = S::mul_add(xv, wb, *ab);
                }
            }
        }
        for (a, rr) in acc.iter().zip(r..) {
            for (b, &v) in a.iter().enumerate() {
                let bias = p.bias.map_or(S::E::zero(), |bs| bs[j + b]);
                // SAFETY: (rr, j + b) lies in the output and in this task's columns.
                *out.get().add(rr * p.o + j + b) = S::sum_lanes(v) + bias;
            }
        }
    }
}

/// A partial tile (the last columns of a task): one row × one column at a time.
///
/// # Safety
/// As [`tile`] with `R = mr`, `B = ob`.
#[inline(always)]
unsafe fn tile_any<S: Simd>(p: &Problem<'_, S::E>, out: SendPtr<S::E>, r: usize, mr: usize, j: usize, ob: usize) {
    for rr in r..r + mr {
        for jj in j..j + ob {
            // SAFETY: one row and column inside the caller's range.
            unsafe { tile::<S, 1, 1>(p, out, rr, jj) };
        }
    }
}

/// The column kernel compiled for each x86 level: 8 rows × 2 columns (16 of the 32
/// zmm registers) on AVX-512, 4 × 2 (8 of 16 ymm) on AVX2.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::simd::{Avx2, Avx512};
    use super::{Problem, cols};
    use crate::iter::SendPtr;

    /// # Safety
    /// AVX-512F is available; as [`cols`].
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn cols512(p: &Problem<'_, f32>, out: SendPtr<f32>, j0: usize, j1: usize) {
        // SAFETY: the features are enabled here; the rest is the caller's contract.
        unsafe { cols::<Avx512, 8>(p, out, j0, j1) }
    }

    /// # Safety
    /// AVX2 and FMA are available; as [`cols`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn cols256(p: &Problem<'_, f32>, out: SendPtr<f32>, j0: usize, j1: usize) {
        // SAFETY: the features are enabled here; the rest is the caller's contract.
        unsafe { cols::<Avx2, 4>(p, out, j0, j1) }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The plain triple loop in f64.
    pub(in crate::nn) fn reference(x: &[f64], w: &[f64], b: Option<&[f64]>, m: usize, o: usize, i: usize) -> Vec<f64> {
        let mut out = vec![0.0; m * o];
        for r in 0..m {
            for j in 0..o {
                let dot: f64 = (0..i).map(|k| x[r * i + k] * w[j * i + k]).sum();
                out[r * o + j] = dot + b.map_or(0.0, |b| b[j]);
            }
        }
        out
    }

    #[test]
    fn small_product_matches_the_triple_loop() {
        // Shapes around the tile sizes (rows 1–9, odd columns, inner lengths around the
        // vector widths); Miri runs a few small ones.
        let shapes: &[(usize, usize, usize)] = if cfg!(miri) {
            &[(1, 3, 5), (3, 2, 1), (5, 5, 17)]
        } else {
            &[
                (1, 1, 1),
                (1, 7, 33),
                (3, 5, 16),
                (4, 9, 8),
                (8, 2, 31),
                (5, 67, 47),
                (8, 130, 512),
                (9, 3, 15),
            ]
        };
        for &(m, o, i) in shapes {
            let x: Vec<f64> = (0..m * i).map(|v| ((v * 7 % 13) as f64 - 6.0) / 4.0).collect();
            let w: Vec<f64> = (0..o * i).map(|v| ((v * 5 % 11) as f64 - 5.0) / 8.0).collect();
            let b: Vec<f64> = (0..o).map(|v| v as f64 - 1.5).collect();
            let want = reference(&x, &w, Some(&b), m, o, i);
            let mut got = vec![f64::NAN; m * o];
            assert!(product(&x, &w, Some(&b), m, o, i, &mut got));
            assert_eq!(got, want, "f64 m={m} o={o} i={i}");
            let (x32, w32, b32): (Vec<f32>, Vec<f32>, Vec<f32>) = (
                x.iter().map(|&v| v as f32).collect(),
                w.iter().map(|&v| v as f32).collect(),
                b.iter().map(|&v| v as f32).collect(),
            );
            let mut got = vec![f32::NAN; m * o];
            assert!(product(&x32, &w32, Some(&b32), m, o, i, &mut got));
            for (g, e) in got.iter().zip(&want) {
                // Products of multiples of 1/32 with sums below 2^12: exact in f32.
                assert_eq!(*g as f64, *e, "f32 m={m} o={o} i={i}");
            }
        }
    }

    #[test]
    fn small_product_propagates_nan_and_skips_other_types() {
        let x = [1.0f32, f32::NAN, 2.0];
        let w = [1.0f32, 1.0, 1.0, 0.0, 0.0, 1.0];
        let mut out = [0.0f32; 2];
        assert!(product(&x, &w, None, 1, 2, 3, &mut out));
        assert!(out[0].is_nan() && out[1].is_nan());
        let h = [half::f16::ONE; 2];
        let mut o16 = [half::f16::ZERO; 1];
        assert!(!product(&h, &h, None, 1, 1, 2, &mut o16));
    }
}
