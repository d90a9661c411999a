//! Reductions with NumPy's semantics: sums, products, means, variances, extrema, arg
//! extrema, logical reductions, norms, `logsumexp`, cumulative sums and the generic
//! [`TensorBase::reduce_axes`] / [`TensorBase::fold_axis`]; order statistics by selection
//! ([`TensorBase::median`], [`TensorBase::quantile_axes`] with every [`QuantileMethod`],
//! `percentile`, `nan*` twins), [`cov`] / [`corrcoef`], [`TensorBase::histogram`] /
//! [`TensorBase::bincount`], running extrema with indices ([`TensorBase::cummax`],
//! [`TensorBase::cummin`]) and [`TensorBase::trapezoid`].
//!
//! Every reduction has a whole-tensor form (`a.sum()`), a single-axis form that keeps a
//! fixed rank type (`a.sum_axis(0)`: `IxN` gives `IxN-1`) and an over-axes form
//! (`a.sum_axes(&[0, -1], keepdims)`, `IxDyn`), and works on every ownership kind and
//! any layout (strided, flipped, broadcast, transposed): only the viewed elements are
//! read.
//!
//! | rule | behaviour (NumPy's) |
//! |---|---|
//! | axes | negative values count from the end; out of range or repeated → `Err`; `&[]` reduces nothing; any axis of a 0-d tensor is out of range |
//! | empty | `sum` 0, `prod` 1, `mean`/`var` NaN, `max`/`min`/`ptp` `Err` exactly when the reduced size is 0, `argmax` of an empty range `Err` |
//! | NaN | `max`/`min` propagate NaN, `nan*` skip it (all-NaN `nanmax` is NaN, all-NaN `nanargmax` is `Err`), `argmax` gives the first NaN |
//! | ties | first occurrence; flat indices are into the row-major flattening |
//! | integers | `sum`/`prod` keep the type and wrap (NumPy's `dtype=a.dtype`); `sum_as::<i64>()` accumulates in another type; `mean_as::<f64>()` is the float mean |
//! | accuracy | float sums are pairwise along the contiguous run, with NumPy's tree (see *Accuracy* below) |
//! | f16, bf16 | sums (also in `mean`, `nansum`, `nanmean`, `var`/`std`, L1/L2 norms, `logsumexp`) accumulate in f32 and round once per result, as NumPy's float16 loops do |
//!
//! # Accuracy
//!
//! Float sums (also inside `mean`, `var`, `nansum`, `logsumexp`, L1/L2 norms) use
//! NumPy's pairwise summation along each contiguous run: blocks of 8 accumulators up to
//! 128 elements, then halves. With unit roundoff `u`, the error of a run of `n` values
//! is at most `(16 + ⌈log₂(n/128)⌉) · u · Σ|xᵢ|`; summing 10⁷ f32 copies of 0.1 gives
//! 1000000.125, NumPy's value. Reductions over a non-innermost axis accumulate whole
//! rows in order (`acc[j] += row[j]`), which is also what NumPy does. Parallel runs
//! split the same tree or merge shape-determined pieces in order, so results do not
//! depend on the number of threads.
//!
//! f16 and bf16 values are summed in f32 (NumPy's float16 add loop also accumulates in
//! float) and each result is rounded to the element type once: `mean` divides in f32
//! before rounding (NumPy's `mean` of float16 does the same); `var` forms deviations
//! and squares in the element type, as NumPy, and sums them in f32. Over a
//! non-innermost axis NumPy rounds its float16 accumulator after every row (10⁴ × 0.1
//! down a column gives 256 there); ferrotensor keeps f32 and gives 1000.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap();
//! assert_eq!(a.sum(), 21.0);
//! assert_eq!(a.sum_axes(&[0], false).unwrap().to_vec(), vec![5.0, 7.0, 9.0]);
//! assert_eq!(a.t().max_axes(&[-1], true).unwrap().shape(), &[3, 1]);
//! assert_eq!(a.argmax().unwrap(), 5);
//! assert!(Tensor::<f64, _>::zeros([0, 3]).max_axes(&[0], false).is_err());
//! ```

mod argminmax;
mod cov;
mod cumextreme;
mod cumulative;
pub(crate) mod engine;
mod generic;
mod histogram;
pub(crate) mod kernels;
mod logical;
mod median;
mod minmax;
mod moments;
mod norm;
pub(crate) mod pairwise;
mod quantile;
mod rowwise;
mod select;
pub(crate) mod simd;
mod single_axis;
mod sum;
mod trapezoid;
mod tree8;

pub use cov::{CovArgs, corrcoef, cov};
pub use histogram::Bins;
pub use moments::Ddof;
pub use norm::NormOrd;
pub use quantile::QuantileMethod;

use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::normalize_axes;
use crate::layout::{Dimension, IxDyn, Order};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use engine::{Reducer, Split};

/// Which axes a reduction removes, and the shapes of its result.
pub(crate) struct Spec {
    /// `mask[k]`: axis `k` is reduced.
    pub mask: Vec<bool>,
    /// Shape without the reduced axes.
    pub out_shape: Vec<usize>,
    /// Shape with the reduced axes kept as length 1.
    pub keep_shape: Vec<usize>,
    /// Number of elements reduced into each output.
    pub n_red: usize,
}

impl Spec {
    /// `axes = None` reduces every axis.
    pub(crate) fn new(shape: &[usize], axes: Option<&[isize]>, op: &'static str) -> Result<Spec> {
        let mut mask = vec![axes.is_none(); shape.len()];
        if let Some(axes) = axes {
            for k in normalize_axes(axes, shape.len(), op)? {
                mask[k] = true;
            }
        }
        let out_shape = shape.iter().zip(&mask).filter(|p| !*p.1).map(|p| *p.0).collect();
        let keep_shape = shape.iter().zip(&mask).map(|(&d, &m)| if m { 1 } else { d }).collect();
        let n_red = shape.iter().zip(&mask).filter(|p| *p.1).map(|p| *p.0).product();
        Ok(Spec {
            mask,
            out_shape,
            keep_shape,
            n_red,
        })
    }

    /// The result tensor from row-major data over the kept axes.
    pub(crate) fn finish<A: Element>(
        &self,
        data: Vec<A>,
        keepdims: bool,
        op: &'static str,
    ) -> Result<Tensor<A, IxDyn>> {
        let shape = if keepdims { &self.keep_shape } else { &self.out_shape };
        Tensor::owned_from(data, IxDyn::from(&shape[..]), Order::RowMajor, op)
    }

    /// Number of output elements.
    pub(crate) fn n_out(&self) -> usize {
        self.out_shape.iter().product()
    }
}

/// NumPy's error for a reduction without identity over an empty range.
pub(crate) fn empty_err(op: &'static str, shape: &[usize]) -> Error {
    Error::value(
        op,
        format!(
            "zero-size array to reduction operation {op} which has no identity (shape {})",
            fmt_shape(shape)
        ),
    )
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Runs reducer `r` over `spec`, returning one accumulator per output (row-major).
    pub(crate) fn reduce_raw<R: Reducer<T>>(
        &self,
        spec: &Spec,
        r: &R,
        logical: bool,
        op: &'static str,
    ) -> Result<Vec<R::Acc>> {
        let n_out = spec.n_out();
        if r.identity().is_none() && spec.n_red == 0 {
            return Err(empty_err(op, self.shape()));
        }
        if n_out == 0 {
            return Ok(Vec::new());
        }
        let seed = match r.identity() {
            Some(id) => id,
            None => r.lift(self.buffer()[self.offset()]),
        };
        // Fallible: an empty input axis can leave an output past isize::MAX bytes
        // (`sum_axes(&[0])` of shape (0, 2³¹, 2³¹)), which is an Err, not an abort.
        let mut out = Vec::new();
        out.try_reserve_exact(n_out).map_err(|_| {
            Error::alloc(
                op,
                format!(
                    "cannot allocate the {n_out} outputs of reducing shape {}",
                    fmt_shape(self.shape())
                ),
            )
        })?;
        out.resize(n_out, seed);
        let split = Split::new(self.shape(), self.strides(), self.offset(), &spec.mask, logical);
        split.run(r, self.buffer(), &mut out);
        Ok(out)
    }

    /// Reduces over `axes` (`None`: all) and maps each accumulator with `fin`.
    pub(crate) fn reduce_map<R: Reducer<T>, A: Element>(
        &self,
        axes: Option<&[isize]>,
        keepdims: bool,
        r: &R,
        op: &'static str,
        fin: impl Fn(R::Acc, usize) -> A,
    ) -> Result<Tensor<A, IxDyn>> {
        let spec = Spec::new(self.shape(), axes, op)?;
        let acc = self.reduce_raw(&spec, r, false, op)?;
        let n = spec.n_red;
        spec.finish(acc.into_iter().map(|a| fin(a, n)).collect(), keepdims, op)
    }

    /// Whole-tensor reduction: the single accumulator, mapped with `fin`.
    pub(crate) fn reduce_all<R: Reducer<T>, A>(
        &self,
        r: &R,
        op: &'static str,
        fin: impl Fn(R::Acc, usize) -> A,
    ) -> Result<A> {
        let spec = Spec::new(self.shape(), None, op)?;
        let acc = self.reduce_raw(&spec, r, false, op)?;
        Ok(fin(acc[0], spec.n_red))
    }
}
