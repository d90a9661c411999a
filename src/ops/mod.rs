//! Element-wise operations: closures, unary math, binary operations with NumPy
//! broadcasting, operators, comparison and selection, casting, and
//! corresponding-dimension broadcasting. Every one runs through the iteration engine
//! ([`crate::iter`]).
//!
//! ```
//! use ferrotensor::prelude::*;
//! let x = Tensor::from_vec(vec![-1.0f32, 0.0, 2.0], [3]).unwrap();
//! let y = (&x * 2.0 + 1.0).relu();
//! assert_eq!(y.to_vec(), vec![0.0, 1.0, 5.0]);
//! assert_eq!(x.gt(0.0).unwrap().to_vec(), vec![false, false, true]);
//! ```

mod arith;
mod bitwise;
mod broadcast_op;
pub mod cast;
mod compare;
mod core;
mod fmath;
mod map;
pub mod operators;
mod real;
mod unary;

pub use crate::layout::rank::DimMax;
pub use crate::tensor::Operand;
pub use bitwise::{Bitwise, Integer};
pub use cast::{CastFrom, Castable};
pub use compare::where_;
pub use core::OperandStorage;
pub use real::Real;
