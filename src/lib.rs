//! # ferrotensor
//!
//! N-dimensional tensors for Rust with NumPy's semantics, zero-copy views under Rust's
//! ownership rules, and kernels that aim at the machine's limits. Start with
//! `use ferrotensor::prelude::*;`.
//!
//! ## Layout: metadata over memory
//!
//! A tensor is a [`layout::Layout`] — shape, signed strides (in elements) and the offset
//! of element `[0, 0, …]` — over a buffer. Strides may be negative (a flipped axis) or
//! zero (a broadcast axis). Row-major (C) is the default order; column-major (F) is
//! supported everywhere an order matters.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f32, _>::zeros([2, 3, 4]);
//! assert_eq!(a.strides(), &[12, 4, 1]);
//! let f = Tensor::from_vec_order(vec![0.0f32; 24], [2, 3, 4], Order::ColMajor).unwrap();
//! assert_eq!(f.strides(), &[1, 2, 6]);
//! assert!(f.is_f_contiguous() && !f.is_contiguous());
//! ```
//!
//! ## Views and data operations
//!
//! View operations ([`s!`] slicing, `permute`, `t`, `flip`, `broadcast_to`, `squeeze`,
//! `reshape` when NumPy would give a view, `rearrange`, …) compute a new layout and never
//! copy. Data operations (arithmetic, `map`, reductions, `matmul`, `to_owned`) write new
//! memory through one iteration engine ([`iter`]) that merges contiguous axes, hands
//! kernels unit-stride runs, tiles transposed operands and splits large work over threads.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<i32>::arange(12).into_shape([3, 4]).unwrap();
//! let v = a.slice(s![1.., ..;-2]);              // a view: same memory
//! assert_eq!(v.buffer().as_ptr(), a.buffer().as_ptr());
//! assert_eq!(v.to_vec(), vec![7, 5, 11, 9]);
//! let doubled = &v * 2;                          // a data operation: new memory
//! assert_eq!(doubled.to_vec(), vec![14, 10, 22, 18]);
//! ```
//!
//! ## Ownership kinds
//!
//! [`Tensor`] owns a `Vec<T>`; [`TensorView`] and [`TensorMut`] borrow; [`TensorCow`]
//! borrows until written; [`TensorArc`] shares an `Arc` and copies on write only when
//! shared. All are one type, [`TensorBase`], so every operation works on each; each
//! conversion documents whether it copies.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f64, _>::ones([2, 2]);
//! let p = a.as_ptr();
//! let shared = a.into_shared();                  // no copy
//! let twin = shared.clone();                     // no copy: one more reference
//! assert_eq!(twin.as_ptr(), p);
//! let owned = shared.into_owned();               // copies: `twin` still shares
//! assert_ne!(owned.as_ptr(), p);
//! let cow = owned.reshape([4]).unwrap();         // a borrowed view (no copy)
//! assert!(cow.is_view());
//! ```
//!
//! ## Errors
//!
//! One rule for every operation:
//!
//! * **Named operations whose success depends on run-time shapes, axes, indices or
//!   values return [`Result`]**: `a.gt(&b)?`, `a.maximum(0.0)?`, `a.sum_axis(1)?`,
//!   `a.matmul(&b)?`, `concatenate(&[&a, &b], 0)?`, `linalg::solve(&m, &v)?`. The
//!   [`Error`] names the operation and the shapes, in NumPy's words where NumPy has them.
//! * **Operators** (`+ - * / %`, `& | ^`, `<< >>`, their compound assignments),
//!   **`Index`/`IndexMut`** and **`slice`/`slice_mut`** panic with the same message,
//!   reported at the caller's line (`#[track_caller]`); each documents it under
//!   `# Panics` and has a `try_` twin returning `Result` (`try_add` … `try_shr`,
//!   `try_add_assign` …, `try_get`, `try_slice`; `%` is matrix product, whose
//!   twin is `matmul`).
//! * **Constructors that allocate** panic when the allocation is impossible, naming the
//!   operation and the shape; `try_` twins return `Err`.
//! * **Operations that cannot fail** (element-wise math, `map`, whole-tensor `sum`,
//!   views that always exist such as `t()`) return plain values.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f64, _>::zeros([2, 3]);
//! let b = Tensor::<f64, _>::zeros([4, 5]);
//! let e = a.matmul(&b).unwrap_err();
//! assert_eq!(e.to_string(), "matmul: shapes (2, 3) and (4, 5) are not aligned: 3 != 4");
//! assert_eq!(
//!     a.gt(&b).unwrap_err().to_string(),
//!     "greater: operands could not be broadcast together with shapes (2, 3) (4, 5)"
//! );
//! assert!(a.try_add(&b).is_err());                       // the twin of `&a + &b`
//! assert!(std::panic::catch_unwind(|| &a + &b).is_err()); // the operator panics
//! assert_eq!(a.maximum(1.0).unwrap().sum(), 6.0);          // a scalar operand cannot fail, but
//!                                                         // the signature is the same
//! ```
//!
//! ## Arguments: scalars, several tensors, rank types
//!
//! * A second operand is a scalar or any tensor ([`Operand`]), as NumPy accepts:
//!   `a.gt(5.0)`, `a.maximum(&b)`, `a.pow(2.0)`, `where_(&mask, &a, 0.0)`,
//!   `a.clip(0.0, &hi)`.
//! * Several tensors are passed as a slice of references, `&[&a, &b]`, mixing owned
//!   tensors, views and shared tensors (`concatenate`, `stack`, `hstack`, `einsum`,
//!   `meshgrid`, …; see [`manip`]).
//! * Results keep fixed rank types wherever the rank is known at compile time
//!   ([`layout::rank`]): `Ix2 + Ix1` is `Ix2`, `sum_axis` of `Ix3` is `Ix2`, 2-D
//!   `matmul` is `Ix2`, `stack` of `Ix2` is `Ix3`; [`IxDyn`] appears only where the rank
//!   depends on run-time values (`sum_axes(&[..], keepdims)`, `einsum`, `s!` slices).
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f64, _>::ones([2, 3]);
//! let v = Tensor::<f64>::arange(3);
//! let b: Tensor<f64, Ix2> = &a * &v;
//! let s: Tensor<f64, Ix1> = b.sum_axis(0).unwrap();
//! let c: Tensor<f64, Ix2> = concatenate(&[&a, &b.view()], 0).unwrap();
//! let m: Tensor<f64, Ix2> = c.t().matmul(&c).unwrap();
//! assert_eq!((s.to_vec(), m.shape()), (vec![0.0, 2.0, 4.0], &[3, 3][..]));
//! ```
//!
//! ## Threads
//!
//! Large kernels run on rayon's pool; small tensors stay on the calling thread.
//! [`set_num_threads`] limits every later call, [`with_num_threads`] one scope.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f32, _>::ones([1024, 1024]);
//! let s = ferrotensor::with_num_threads(1, || a.sum());
//! assert_eq!(s, 1048576.0);
//! ```
//!
//! ## Modules
//!
//! [`layout`] (shapes, strides, view transforms) · [`storage`] (ownership kinds) ·
//! [`tensor`] (the type, creation, conversions, views) · [`iter`] (the engine) ·
//! [`memory`] (where output buffers come from and when they go back) ·
//! [`ops`] (element-wise math, operators, comparison, casting) · [`reduce`] ·
//! [`linalg`] (matmul, einsum, solvers) · [`manip`] (concatenate, pad, gather, sort) ·
//! [`nn`] (softmax, conv, pooling, `nn::ChwTensor`) · [`autograd`] (`Var`, `backward`) ·
//! [`optim`] (SGD, Adam, AdamW) · [`io`] (npy/npz/safetensors) ·
//! [`interop`] (ndarray, serde) · [`display`] (NumPy printing) · [`kernels`] ·
//! [`cpu`] (which instruction set the kernels run with).
#![warn(missing_docs)]
// Every `unsafe` block says why it is sound, and every `unsafe fn` what its callers
// must guarantee (private ones too: see clippy.toml).
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub mod autograd;
pub mod cpu;
pub mod device;
pub mod display;
pub mod element;
pub mod error;
pub mod fft;
pub mod interop;
pub mod io;
pub mod iter;
pub mod kernels;
pub mod layout;
pub mod linalg;
pub mod manip;
pub mod memory;
pub mod nn;
pub mod ops;
pub mod optim;
pub mod reduce;
mod same_type;
pub mod storage;
pub mod tensor;
pub mod threads;

pub use display::PrintOptions;
pub use element::{Element, Float, Num};
pub use error::{Error, Result};
pub use layout::slice::{Ellipsis, NewAxis, SliceItem};
pub use layout::{
    AtLeast, DiagDim, DimMax, Dimension, DotDim, InsertAxis, IntoShape, Ix0, Ix1, Ix2, Ix3, Ix4, Ix5, Ix6, IxDyn,
    MatmulDim, Order, RemoveAxis,
};
pub use ops::{CastFrom, Real, where_};
pub use reduce::NormOrd;
pub use tensor::{Operand, Tensor, TensorArc, TensorBase, TensorCow, TensorMut, TensorView};
pub use threads::{num_threads, set_num_threads, with_num_threads};

/// Everything a user needs in one import.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f64, _>::zeros([2, 3]);
/// assert_eq!(a.shape(), &[2, 3]);
/// ```
pub mod prelude {
    pub use crate::NormOrd;
    pub use crate::autograd::{Grads, Var};
    pub use crate::manip::{
        AsDynView, AsView, IndexElement, Indexing, PadMode, Sections, Side, SortElement, Unique, chunk, concatenate,
        dstack, hstack, meshgrid, split, stack, unstack, vstack,
    };
    pub use crate::ops::ComplexMath;
    pub use crate::ops::{Bitwise, Integer};
    pub use crate::reduce::Ddof;
    pub use crate::s;
    pub use crate::{
        AtLeast, CastFrom, DiagDim, DimMax, DotDim, InsertAxis, MatmulDim, Operand, Real, RemoveAxis, where_,
    };
    pub use crate::{
        Dimension, Element, Ellipsis, Error, Float, IntoShape, Ix0, Ix1, Ix2, Ix3, Ix4, Ix5, Ix6, IxDyn, NewAxis, Num,
        Order, PrintOptions, Result, SliceItem, Tensor, TensorArc, TensorBase, TensorCow, TensorMut, TensorView,
    };
}
