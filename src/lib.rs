//! # ferrotensor
//!
//! N-dimensional tensors for Rust with NumPy's semantics, zero-copy views under Rust's
//! ownership rules, and kernels that aim at the machine's limits.
//!
//! A tensor is a **layout** (shape, signed strides, offset) over **storage**. View
//! operations (slice, permute, flip, broadcast, most reshapes) compute only a new layout;
//! data operations (map, arithmetic, reductions, copies) run through one iteration engine
//! that coalesces axes, hands kernels contiguous runs and splits large work across
//! threads.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<i32, _>::arange(12).into_shape([3, 4]).unwrap();
//! let v = a.slice(s![1.., ..;-2]);          // a view: rows 1.., every 2nd column reversed
//! assert_eq!(v.shape(), &[2, 2]);
//! assert_eq!(v.to_vec(), vec![7, 5, 11, 9]);
//! println!("{a}");
//! ```
#![warn(missing_docs)]

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

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
pub mod nn;
pub mod ops;
pub mod reduce;
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
