//! Low-level kernels on slices: the inner loops that tensor operations hand their
//! contiguous runs to.
//!
//! ```
//! use ferrotensor::kernels::vmath::VMath;
//! let mut out = [0.0f32; 2];
//! f32::exp_slice(&[0.0, 1.0], &mut out);
//! assert_eq!(out[0], 1.0);
//! ```

pub mod complex;
pub mod vmath;
