//! File formats: NumPy `.npy`/`.npz` ([`npy`], [`npz`]) and Hugging Face safetensors
//! ([`safetensors`]), with a dynamic-dtype tensor ([`DynTensor`]) for files whose
//! element type is known only at run time.
//!
//! Readers never panic on malformed input: a truncated or corrupt file, a header that
//! lies about sizes, an unsupported dtype, a shape past the [shape
//! limits](crate::layout::check_shape) (64 axes, as NumPy; nonzero lengths whose
//! product exceeds `isize::MAX`) or an ambiguous header (a key given twice) gives an
//! `Err` that names the operation. Data the allocator cannot hold gives
//! [`Error::Alloc`](crate::Error::Alloc), never an abort.
//!
//! ```
//! use ferrotensor::prelude::*;
//! use ferrotensor::io::{npy, DynTensor};
//! let bytes = npy::to_npy_bytes(&Tensor::<i32, _>::arange(3)).unwrap();
//! let d: DynTensor = npy::from_npy_bytes_dyn(&bytes).unwrap();
//! let t: Tensor<i32, Ix1> = d.try_into().unwrap();
//! assert_eq!(t.to_vec(), vec![0, 1, 2]);
//! ```

mod dtype;
mod dyn_tensor;
pub mod npy;
pub mod npz;
pub mod safetensors;

pub(crate) use dtype::with_dtype;
pub use dtype::{DType, IoElement};
pub use dyn_tensor::DynTensor;

#[cfg(test)]
mod tests;
