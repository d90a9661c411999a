//! Explicit transfers: [`TensorBase::to_device`](crate::TensorBase::to_device) from any
//! ownership kind and [`DeviceTensor::to_host`]. Nothing moves between host and
//! device any other way.

use super::buffer::DeviceBuffer;
use super::context::Device;
use super::element::{DType, DeviceElement};
use super::tensor::DeviceTensor;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Layout, Order};
use crate::storage::{OwnedRepr, Storage};
use crate::tensor::{Tensor, TensorBase};

/// `Err` if `dev` cannot hold elements of `T` (`f16` without `SHADER_F16`).
pub(crate) fn check_dtype<T: DeviceElement>(dev: &Device, op: &'static str, shape: &[usize]) -> Result<()> {
    if T::DTYPE == DType::F16 && !dev.supports_f16() {
        return Err(Error::device(
            op,
            format!(
                "element type f16 (shape {}) is not supported by {dev}: the adapter lacks SHADER_F16; use f32",
                fmt_shape(shape)
            ),
        ));
    }
    Ok(())
}

impl<T: DeviceElement, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Copies the tensor to `dev` (works on every ownership kind). A layout whose
    /// elements fill their span (any permutation or flip of a contiguous tensor, or a
    /// broadcast of one) is uploaded as it is, strides kept; any other is made
    /// row-major on the host first. `Err` for `f16` on a device without it, or when the
    /// device is out of memory. Needs the cargo feature `wgpu`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    /// let g = t.t().to_device(&dev).unwrap();     // from a view; strides kept
    /// assert_eq!(g.strides(), &[1, 2]);
    /// assert_eq!(g.to_host().unwrap().to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
    /// ```
    pub fn to_device(&self, dev: &Device) -> Result<DeviceTensor<T, D>> {
        const OP: &str = "to_device";
        check_dtype::<T>(dev, OP, self.shape())?;
        let what = || format!("a tensor of shape {}", fmt_shape(self.shape()));
        match self.layout.extent()? {
            None => {
                let buffer = DeviceBuffer::alloc(dev, T::DTYPE, 0, OP, &what)?;
                Ok(DeviceTensor::from_parts(
                    buffer,
                    Layout::new_order(self.layout.dim().clone(), Order::RowMajor)?,
                ))
            }
            Some((lo, hi)) if hi - lo < self.size() => {
                let bytes = T::to_device_bytes(&self.buffer()[lo..=hi]);
                let buffer = DeviceBuffer::upload(dev, T::DTYPE, &bytes, OP, &what)?;
                let mut layout = self.layout.clone();
                layout.offset -= lo;
                Ok(DeviceTensor::from_parts(buffer, layout))
            }
            Some(_) => {
                let c = self.to_contiguous();
                let data = c.as_slice().expect("to_contiguous is row-major");
                let bytes = T::to_device_bytes(data);
                let buffer = DeviceBuffer::upload(dev, T::DTYPE, &bytes, OP, &what)?;
                Ok(DeviceTensor::from_parts(buffer, c.layout.clone()))
            }
        }
    }
}

impl<T: DeviceElement, D: Dimension> DeviceTensor<T, D> {
    /// Copies the tensor to host memory as a row-major [`Tensor`], waiting for the
    /// operations queued before it. Bits are kept exactly (a non-contiguous view is
    /// first made row-major on the device by a bit copy). `Err` if the device fails.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let t = Tensor::from_vec(vec![f32::NAN, -0.0, 1e-45], [3]).unwrap();
    /// let back = t.to_device(&dev).unwrap().to_host().unwrap();
    /// let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    /// assert_eq!(bits(back.to_vec()), bits(t.to_vec()));
    /// ```
    pub fn to_host(&self) -> Result<Tensor<T, D>> {
        const OP: &str = "to_host";
        let src = if self.is_contiguous() {
            self.clone()
        } else {
            self.to_contiguous()?
        };
        let bytes = src.buffer.read(T::DTYPE, src.offset(), src.size(), OP)?;
        let data = T::from_device_bytes(&bytes);
        let layout = Layout::new_order(self.layout.dim().clone(), Order::RowMajor)?;
        TensorBase::from_parts(OwnedRepr(data), layout, OP)
    }
}
