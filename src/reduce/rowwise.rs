//! Reductions over the trailing axes of a C-contiguous tensor, fused per row.
//!
//! `var` (mean, then the squared deviations) and `logsumexp` (maximum, then the sum of
//! exponentials) need two passes over every reduced run. Through the engine those are
//! two passes over the whole input, each from memory; when each output reduces one
//! contiguous row that fits in cache, [`TensorBase::per_row`] runs both passes on a row
//! before moving to the next, so the input is read from memory once.
//!
//! The results are the engine's bit for bit: each output is one contiguous run there too
//! (rows are below the lengths at which the engine splits a run), reduced by the same
//! pairwise trees.

use super::Spec;
use super::pairwise::pairwise_mapped_by;
use super::simd::exp_nonpositive_f32;
use super::tree8::{Term, pairwise_f32};
use crate::element::Element;
use crate::iter::PARALLEL_THRESHOLD;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::TensorBase;

/// Longest row fused per row, in bytes: both passes run from L2 (1–2 MiB per core on
/// the CPUs measured) with room for the next rows' prefetch.
const MAX_ROW_BYTES: usize = 256 << 10;
/// Longest row in elements: no pairwise tree or reducer of the engine splits a run of
/// this length over threads (`pairwise_par` starts above 2¹⁶, `run_par` above 2¹⁶).
const MAX_ROW_LEN: usize = 1 << 16;

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// `f(row)` for every output of `spec`, in row-major output order, when the tensor
    /// is C-contiguous, `spec` reduces exactly its trailing axes and a row (the reduced
    /// run of one output) is short enough to stay in cache; `None` otherwise (the
    /// caller then takes the engine). Rows are split over threads in blocks.
    pub(crate) fn per_row<A: Send>(&self, spec: &Spec, f: impl Fn(&[T]) -> A + Sync) -> Option<Vec<A>> {
        let n = spec.n_red;
        let trailing = spec.mask.iter().skip_while(|&&m| !m).all(|&m| m);
        if n == 0 || !trailing || n > MAX_ROW_LEN || n * std::mem::size_of::<T>() > MAX_ROW_BYTES {
            return None;
        }
        let x = self.as_slice()?;
        if x.is_empty() {
            return None;
        }
        if x.len() < PARALLEL_THRESHOLD || crate::threads::num_threads() <= 1 {
            return Some(x.chunks_exact(n).map(f).collect());
        }
        use rayon::prelude::*;
        // Blocks of whole rows, at least 2¹⁶ elements each (enough work per task).
        let rows = (1usize << 16).div_ceil(n);
        Some(
            x.par_chunks(rows * n)
                .flat_map_iter(|b| b.chunks_exact(n).map(&f))
                .collect(),
        )
    }
}

/// `Σ exp(x − m)` over a contiguous f32 row for a finite `m` at least every element (the
/// row's maximum, so no NaN): the tree of [`pairwise_mapped`] with
/// [`exp_nonpositive_f32`] (the bits of `fast_exp(x − m)`), so the engine's result bit
/// for bit. While the exponentials are formed from L1, the same bytes one row further
/// (the next row of a C-contiguous tensor) are prefetched into L2, so that memory
/// streams during the arithmetic instead of only during the next row's maximum: a
/// shape-only rule (one row ahead), no CPU-dependent distance. Measured on AMD EPYC
/// Zen 5 (f32 [4096, 4096], 2 threads): 2.45–2.56 ms with the L2 prefetch, 3.08–3.11
/// without it, 2.53–2.64 into L1; 3.41 ms before (the full `exp` and no prefetch). The
/// buffer of exponentials is summed by [`pairwise_f32`] (eight leaves in flight, the
/// same additions): 0.79–0.90 × the two-leaf tree's time on the same machine.
///
/// [`pairwise_mapped`]: super::pairwise::pairwise_mapped
pub(crate) fn exp_sum_below_f32(row: &[f32], m: f32) -> f32 {
    let ahead = row.len();
    pairwise_mapped_by(
        row,
        &|out: &mut [f32], x: &[f32]| super::simd::dispatch(ExpBelowK { out, x, m, ahead }),
        // The exponentials' buffer (in L1) summed with eight leaves in flight: the
        // same tree, so the same bits, without the latency-bound two-leaf chains.
        &|b: &[f32]| pairwise_f32(b, Term::Value, false),
    )
}

/// `out[i] = exp(x[i] − m)` for `x[i] ≤ m`, prefetching `ahead` elements further into L2
/// once per 64 bytes (a [`Kernel`](super::simd::Kernel)).
struct ExpBelowK<'a> {
    out: &'a mut [f32],
    x: &'a [f32],
    m: f32,
    ahead: usize,
}

impl super::simd::Kernel for ExpBelowK<'_> {
    type Out = ();
    #[inline(always)]
    fn call(self) {
        let ExpBelowK { out, x, m, ahead } = self;
        let (out, x) = (&mut out[..x.len()], x);
        let mut oc = out.chunks_exact_mut(16);
        let mut xc = x.chunks_exact(16);
        for (o, c) in (&mut oc).zip(&mut xc) {
            crate::cpu::prefetch_l2(c.as_ptr().wrapping_add(ahead));
            for (o, &v) in o.iter_mut().zip(c) {
                *o = exp_nonpositive_f32(v - m);
            }
        }
        for (o, &v) in oc.into_remainder().iter_mut().zip(xc.remainder()) {
            *o = exp_nonpositive_f32(v - m);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    /// The exponentials' kernel compiled for the baseline (the portable path) gives the
    /// bits of the dispatched one (clamped inputs below −87.3 included), and the row sum
    /// (eight-leaf subtrees over the buffer) the bits of the plain pairwise tree, for
    /// lengths of every kind of subtree.
    #[test]
    fn exp_sum_below_matches_the_tree_and_the_portable_kernel() {
        use super::super::pairwise::pairwise;
        use super::super::simd::exp_nonpositive_f32;
        use super::{ExpBelowK, exp_sum_below_f32};
        use crate::cpu::Kernel;
        let x: Vec<f32> = (0..5003).map(|i| ((i * 7919) % 1013) as f32 * -0.09).collect();
        let m = 0.25;
        let (mut a, mut b) = (vec![0.0f32; x.len()], vec![0.0f32; x.len()]);
        ExpBelowK {
            out: &mut a,
            x: &x,
            m,
            ahead: 0,
        }
        .call();
        crate::cpu::dispatch(ExpBelowK {
            out: &mut b,
            x: &x,
            m,
            ahead: 0,
        });
        let bits = |v: &[f32]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a), bits(&b));
        assert!(a.contains(&0.0) && a.iter().all(|&v| v <= 1.0));
        for n in [1, 7, 16, 129, 1000, 1024, 2048, 2049, 4096, 5003] {
            let want = pairwise(&x[..n], &|v: f32| exp_nonpositive_f32(v - m));
            let got = exp_sum_below_f32(&x[..n], m);
            assert_eq!(got.to_bits(), want.to_bits(), "n {n}: {got} vs {want}");
        }
    }

    /// `logsumexp` of a transpose over axis 0 (F-contiguous: the transpose's fused rows)
    /// against the engine on the same values in padded memory rows (not F-contiguous),
    /// bit for bit, with a −∞ row, a NaN and keepdims.
    #[test]
    fn transposed_logsumexp_matches_the_engine() {
        let (c, r) = (9, 5003);
        let mut v: Vec<f32> = (0..c * (r + 3))
            .map(|i| ((i * 7919) % 1013) as f32 * 0.07 - 40.0)
            .collect();
        v[2 * (r + 3)..3 * (r + 3)].fill(f32::NEG_INFINITY);
        v[5 * (r + 3) + 4999] = f32::NAN;
        let wide = Tensor::from_vec(v, [c, r + 3]).unwrap();
        let f = wide.slice(s![.., 0..r]);
        let a = f.to_owned();
        assert!(a.t().is_f_contiguous() && !f.t().is_f_contiguous());
        for keep in [false, true] {
            let x = a.t().logsumexp_axes(&[0], keep).unwrap();
            let y = f.t().logsumexp_axes(&[0], keep).unwrap();
            assert_eq!(x.shape(), y.shape());
            let bits = |t: &Tensor<f32, IxDyn>| t.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&x), bits(&y));
        }
        let x = a.t().logsumexp_axes(&[-2], false).unwrap().to_vec();
        assert_eq!(x[2], f32::NEG_INFINITY);
        assert!(x[5].is_nan() && x[0].is_finite());
        let a64 = a.mapv(|v| v as f64);
        let f64v = wide.mapv(|v| v as f64);
        let (x, y) = (
            a64.t().logsumexp_axes(&[0], false).unwrap().to_vec(),
            f64v.slice(s![.., 0..r])
                .t()
                .logsumexp_axes(&[0], false)
                .unwrap()
                .to_vec(),
        );
        assert_eq!(
            x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            y.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }

    /// The fused path (contiguous input) against the engine's two passes (the same data
    /// through a non-contiguous view): bit for bit.
    #[test]
    fn fused_rows_match_the_engine() {
        let (r, c) = (37, 300);
        let v: Vec<f32> = (0..r * (c + 3))
            .map(|i| ((i * 7919) % 1013) as f32 * 0.01 - 4.0)
            .collect();
        let wide = Tensor::from_vec(v, [r, c + 3]).unwrap();
        // The same values twice: contiguous (fused path) and as a view with a row
        // stride of c + 3 (the engine's path).
        let f = wide.slice(s![.., 0..c]);
        let a = f.to_owned();
        assert!(a.is_contiguous() && !f.is_contiguous());
        for ddof in [0, 1] {
            let (x, y) = (
                a.var_axes(&[1], false, ddof).unwrap(),
                f.var_axes(&[1], false, ddof).unwrap(),
            );
            let bits = |t: &Tensor<f32, IxDyn>| t.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&x), bits(&y));
        }
        let (x, y) = (
            a.logsumexp_axes(&[1], false).unwrap(),
            f.logsumexp_axes(&[1], false).unwrap(),
        );
        assert_eq!(x.to_vec(), y.to_vec());
        let (x, y) = (a.std_axes(&[-1], true, 0).unwrap(), f.std_axes(&[-1], true, 0).unwrap());
        assert_eq!(x.to_vec(), y.to_vec());
        assert_eq!(x.shape(), &[r, 1]);
    }

    /// `logsumexp` of f32 rows longer than the 2048-value map pieces, with −∞ entries,
    /// a row of all −∞ and a NaN row: the fused path (the lean `exp`, next-row
    /// prefetch) against the engine's two passes through a strided view, bit for bit.
    #[test]
    fn fused_logsumexp_long_rows_match_the_engine() {
        let (r, c) = (6, 5003);
        let mut v: Vec<f32> = (0..r * (c + 1))
            .map(|i| ((i * 7919) % 1013) as f32 * 0.05 - 30.0)
            .collect();
        v[3] = f32::NEG_INFINITY;
        v[(c + 1) + 4000] = 150.0;
        for x in &mut v[2 * (c + 1)..3 * (c + 1)] {
            *x = f32::NEG_INFINITY;
        }
        v[3 * (c + 1) + 17] = f32::NAN;
        let wide = Tensor::from_vec(v, [r, c + 1]).unwrap();
        let f = wide.slice(s![.., 0..c]);
        let a = f.to_owned();
        let (x, y) = (
            a.logsumexp_axes(&[1], false).unwrap().to_vec(),
            f.logsumexp_axes(&[1], false).unwrap().to_vec(),
        );
        for (i, (p, q)) in x.iter().zip(&y).enumerate() {
            // Miri perturbs the result of `ln` (and NaN payloads) nondeterministically,
            // so there the two paths agree to a few ulp; natively, bit for bit.
            let close = (p - q).abs() <= 4.0 * f32::EPSILON * p.abs() || (p.is_nan() && q.is_nan());
            assert!(
                p.to_bits() == q.to_bits() || (cfg!(miri) && close),
                "row {i}: {p} vs {q}"
            );
        }
        assert_eq!(x[2], f32::NEG_INFINITY);
        assert!(x[3].is_nan());
        // Against an f64 reference on a plain row.
        let row: Vec<f64> = a.slice(s![4, ..]).to_vec().iter().map(|&v| v as f64).collect();
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let want = row.iter().map(|v| (v - m).exp()).sum::<f64>().ln() + m;
        assert!(
            (x[4] as f64 - want).abs() < 1e-5 * want.abs().max(1.0),
            "{} vs {want}",
            x[4]
        );
    }
}
