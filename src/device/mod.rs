//! Tensors in GPU memory through [wgpu](https://wgpu.rs) (Vulkan, Metal, DirectX 12),
//! behind the cargo feature `wgpu`.
//!
//! A `DeviceTensor` is a device buffer plus the same [`Layout`](crate::layout::Layout)
//! a CPU tensor has, so every view operation (`slice`, `permute`, `t`, `flip`,
//! `broadcast_to`, `squeeze`, `unsqueeze`, `reshape`) is the CPU's layout code and never
//! touches the data; only data operations have device kernels (WGSL compute shaders
//! that read any strided, offset or broadcast layout without copying it first).
//! Transfers are explicit: `TensorBase::to_device` and `DeviceTensor::to_host`.
//! Operations keep the CPU tensor's names and arguments. Without the feature only the
//! backend-neutral part ([`Backend`], [`Cpu`], [`TensorOps`], the element traits) is
//! compiled, and nothing of wgpu.
//!
//! ```
//! # #[cfg(not(feature = "wgpu"))] fn main() {}
//! # #[cfg(feature = "wgpu")]
//! # fn main() -> ferrotensor::Result<()> {
//! use ferrotensor::prelude::*;
//! use ferrotensor::device::{Device, DeviceTensor};
//! let dev = match Device::wgpu() {
//!     Ok(dev) => dev,
//!     Err(e) => { println!("{e}"); return Ok(()) }     // no adapter: an Err, not a panic
//! };
//! let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
//! let g: DeviceTensor<f32, Ix2> = t.to_device(&dev)?;
//! let y = (&g + &g).exp().sum_axes(&[1], false)?;
//! let p = g.matmul(&g.t())?;
//! assert_eq!(p.to_host()?.to_vec(), vec![5.0, 11.0, 11.0, 25.0]);
//! assert_eq!(y.to_host()?.shape(), &[2]);
//! # Ok(()) }
//! ```
//!
//! ## Code written once for either device
//!
//! [`Backend`] (implemented by [`Cpu`] and, with the feature, `Device`) names the tensor type of a
//! device, and [`TensorOps`] is the set of operations both tensor types implement with
//! the CPU's names, so a function generic over `B: Backend` runs unchanged on either.
//! The CPU side is [`TensorArc`](crate::TensorArc): like a device tensor, it is an
//! immutable shared buffer plus a layout, so views stay views on both.
//!
//! Why a trait over the two tensor types and not a device enum inside the tensor: the
//! CPU tensor borrows (`TensorView<'a>`, `TensorMut<'a>`), indexes and writes in place
//! through plain slices, and none of that can work on memory behind a GPU queue. An
//! enum would make every CPU operation check at run time where its data is and turn
//! infallible CPU calls (`a[[i, j]]`, `as_slice`, `+`) into ones that can fail for a
//! reason the CPU never has; the trait keeps the CPU types and their code paths
//! exactly as they were (no branch, no indirection: generic code is monomorphised),
//! and puts the device's different contract (asynchronous, fallible, immutable) in its
//! own type, where the compiler shows the difference.
#![cfg_attr(docsrs, doc(cfg(feature = "wgpu")))]

mod backend;
mod element;

pub use backend::{Backend, Cpu, On, TensorOps};
pub use element::{DType, DeviceElement, DeviceFloat, DeviceNum};

#[cfg(feature = "wgpu")]
mod binary;
#[cfg(feature = "wgpu")]
mod buffer;
#[cfg(feature = "wgpu")]
mod context;
#[cfg(feature = "wgpu")]
mod conv;
#[cfg(feature = "wgpu")]
mod launch;
#[cfg(feature = "wgpu")]
mod map;
#[cfg(feature = "wgpu")]
mod matmul;
#[cfg(feature = "wgpu")]
mod operators;
#[cfg(feature = "wgpu")]
mod reduce;
#[cfg(feature = "wgpu")]
mod softmax;
#[cfg(feature = "wgpu")]
mod tensor;
#[cfg(feature = "wgpu")]
mod transfer;
#[cfg(feature = "wgpu")]
mod unary;
#[cfg(feature = "wgpu")]
mod views;

#[cfg(feature = "wgpu")]
pub use binary::DeviceOperand;
#[cfg(feature = "wgpu")]
pub use context::Device;
#[cfg(feature = "wgpu")]
pub use conv::conv2d;
#[cfg(feature = "wgpu")]
pub use tensor::DeviceTensor;
