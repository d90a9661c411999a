//! Matrix products and linear algebra.
//!
//! * [`TensorBase::matmul`] and the `%` operator: NumPy `matmul` on any strides, through
//!   the `gemm` crate (`f32`, `f64`, `f16`, complex) or a cache-blocked generic kernel
//!   (integers, `bf16`).
//! * `dot`, `vdot`, `inner`, `outer`, `tensordot`, `kron`, `trace` and [`einsum`], all
//!   mapped onto batched matrix products over views.
//! * Decompositions and solvers on `f32`, `f64`, `Complex<f32>` and `Complex<f64>`
//!   ([`LinalgScalar`]) through `faer`: [`solve`], [`inv`], [`det`], [`slogdet`],
//!   [`cholesky`] (lower or upper), [`qr`], [`svd`], [`svdvals`], [`eigh`],
//!   [`eigvalsh`], [`eig`] and [`eigvals`] (complex results), [`lu`], [`lu_factor`],
//!   [`lu_solve`], [`solve_triangular`], [`lstsq`], [`pinv`], [`matrix_rank`], [`cond`],
//!   [`norm`], [`norm_ord`], [`matrix_norm`], [`vector_norm`], batched over leading axes
//!   (except `lstsq` and `norm_ord`, which take one matrix as NumPy's do). Singular or
//!   non-square input is an `Err`, never a silent NaN; `det`/`slogdet` give NumPy's
//!   `0` / `(0, -inf)` for singular matrices.
//! * [`matrix_power`] and [`multi_dot`] (cheapest product order) on any numeric type,
//!   and the array API's [`vecdot`], [`cross`], [`diagonal`], [`trace`],
//!   [`matrix_transpose`], [`outer`].
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::from_vec(vec![2.0f64, 1.0, 1.0, 3.0], [2, 2]).unwrap();
//! let b = Tensor::from_vec(vec![3.0f64, 5.0], [2]).unwrap();
//! let x = ferrotensor::linalg::solve(&a, &b).unwrap();
//! let back = &a % &x;
//! assert!((back.to_vec()[0] - 3.0).abs() < 1e-12 && (back.to_vec()[1] - 5.0).abs() < 1e-12);
//! ```

pub(crate) mod alloc;
mod array_api;
mod batch;
mod contract;
mod decomp;
mod dot;
mod eig;
mod einsum;
mod faer_kernel;
pub(crate) mod gemm_kernels;
mod generic_kernel;
mod lstsq;
mod lu;
pub(crate) mod mat;
mod matmul;
mod norms;
mod ops;
mod power;
mod qr_complete;
mod scalar;
mod small_kernel;
mod solve;
mod svd_scale;
mod tensordot;

pub use array_api::{cross, diagonal, matrix_transpose, outer, trace, vecdot};
pub use batch::LinalgFloat;
pub use decomp::{Uplo, cholesky, eigh, qr, svd};
pub use eig::{eig, eigvals, eigvalsh, svdvals};
pub use einsum::einsum;
pub use lstsq::{LinalgNormOrd, Lstsq, lstsq, matrix_rank, norm, norm_ord, pinv};
pub use lu::{Trans, lu, lu_factor, lu_solve, solve_triangular};
pub use norms::{cond, matrix_norm, vector_norm};
pub use power::{PowerElement, matrix_power, multi_dot};
pub use qr_complete::qr_complete;
pub use scalar::LinalgScalar;
pub use solve::{det, inv, slogdet, solve};
pub use tensordot::TensordotAxes;

#[allow(unused_imports)]
use crate::tensor::TensorBase;

/// The rank type of one result per matrix of a `(..., m, n)` stack of rank type `D`
/// (two axes fewer), as [`det`] and [`matrix_rank`] return: `Ix0` for one matrix.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::{det, BatchDim};
/// let a = Tensor::<f64, _>::eye(3).broadcast_to([4, 3, 3]).unwrap().to_owned();
/// let d: Tensor<f64, BatchDim<Ix3>> = det(&a).unwrap();
/// let e: Tensor<f64, Ix1> = d;
/// assert_eq!(e.to_vec(), vec![1.0; 4]);
/// ```
pub type BatchDim<D> = <<D as crate::layout::RemoveAxis>::Smaller as crate::layout::RemoveAxis>::Smaller;
