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
//! let a = Tensor::<i32, Ix1>::arange(12).into_shape([3, 4]).unwrap();
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
//! Operations whose success depends on run-time shapes return [`Result`]; the
//! [`Error`] names the operation and the shapes. Operators and `Index` panic with the
//! same message and have `try_` twins.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f64, _>::zeros([2, 3]);
//! let b = Tensor::<f64, _>::zeros([4, 5]);
//! let e = a.matmul(&b).unwrap_err();
//! assert_eq!(e.to_string(), "matmul: shapes (2, 3) and (4, 5) are not aligned: 3 != 4");
//! assert!(a.try_add(&b).is_err());
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
//! [`nn`] (softmax, conv, pooling, `ChwTensor`) · [`io`] (npy/npz/safetensors) ·
//! [`interop`] (ndarray, serde) · [`display`] (NumPy printing) · [`kernels`] ·
//! [`cpu`] (which instruction set the kernels run with).
#![warn(missing_docs)]
// Every `unsafe` block says why it is sound, and every `unsafe fn` what its callers
// must guarantee (private ones too: see clippy.toml).
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub mod cpu;
pub mod display;
pub mod element;
pub mod error;
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
pub mod reduce;
mod same_type;
pub mod storage;
pub mod tensor;
pub mod threads;

pub use display::PrintOptions;
pub use element::{Element, Float, Num};
pub use error::{Error, Result};
pub use layout::slice::{Ellipsis, NewAxis, SliceItem};
pub use layout::{Dimension, IntoShape, Ix0, Ix1, Ix2, Ix3, Ix4, Ix5, Ix6, IxDyn, Order};
pub use ops::{CastFrom, DimMax, Real, where_};
pub use reduce::NormOrd;
pub use tensor::{Tensor, TensorArc, TensorBase, TensorCow, TensorMut, TensorView};
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
    pub use crate::manip::{
        AsView, IndexElement, Indexing, PadMode, Sections, Side, SortElement, Unique, chunk, concatenate, dstack,
        hstack, meshgrid, split, stack, unstack, vstack,
    };
    pub use crate::nn::ChwTensor;
    pub use crate::s;
    pub use crate::{CastFrom, DimMax, Real, where_};
    pub use crate::{
        Dimension, Element, Ellipsis, Error, Float, IntoShape, Ix0, Ix1, Ix2, Ix3, Ix4, Ix5, Ix6, IxDyn, NewAxis, Num,
        Order, PrintOptions, Result, SliceItem, Tensor, TensorArc, TensorBase, TensorCow, TensorMut, TensorView,
    };
}
