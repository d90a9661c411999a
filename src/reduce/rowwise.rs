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

#[cfg(test)]
mod tests {
    use crate::prelude::*;

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
}
