//! Matrix products and linear algebra.
//!
//! * [`TensorBase::matmul`] and the `%` operator: NumPy `matmul` on any strides, through
//!   the `gemm` crate (`f32`, `f64`, `f16`, complex) or a cache-blocked generic kernel
//!   (integers, `bf16`).
//! * `dot`, `vdot`, `inner`, `outer`, `tensordot`, `kron`, `trace` and [`einsum`], all
//!   mapped onto batched matrix products over views.
//! * Decompositions and solvers on `f32`/`f64` through `faer`: [`solve`], [`inv`], [`det`],
//!   [`slogdet`], [`cholesky`], [`qr`], [`svd`], [`eigh`], [`lstsq`], [`pinv`],
//!   [`matrix_rank`], [`norm`], batched over leading axes.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::from_vec(vec![2.0f64, 1.0, 1.0, 3.0], [2, 2]).unwrap();
//! let b = Tensor::from_vec(vec![3.0f64, 5.0], [2]).unwrap();
//! let x = ferrotensor::linalg::solve(&a, &b).unwrap();
//! let back = &a % &x;
//! assert!((back.to_vec()[0] - 3.0).abs() < 1e-12 && (back.to_vec()[1] - 5.0).abs() < 1e-12);
//! ```

mod contract;
mod dot;
mod einsum;
mod generic_kernel;
mod gemm_kernels;
mod matmul;
mod ops;
mod tensordot;

pub use einsum::einsum;
pub use tensordot::TensordotAxes;

#[allow(unused_imports)]
use crate::tensor::TensorBase;
