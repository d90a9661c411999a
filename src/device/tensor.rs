//! [`DeviceTensor`]: a buffer in device memory and the same [`Layout`] a CPU tensor has.

use super::buffer::DeviceBuffer;
use super::context::Device;
use super::element::DeviceElement;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn, Layout, Order};
use std::marker::PhantomData;
use std::sync::Arc;

/// A tensor in device memory: a shared GPU buffer plus a [`Layout`] (shape, signed
/// strides, offset) exactly as on the CPU. View operations (`slice`, `permute`, `t`,
/// `flip`, `broadcast_to`, `squeeze`, `unsqueeze`, `reshape` when NumPy gives a view)
/// compute a new layout with the CPU's layout code and share the buffer: they never
/// launch a kernel. Data operations run WGSL kernels that read any strided, offset or
/// broadcast layout directly and write a new row-major tensor.
///
/// Device tensors are immutable, so views share their buffer freely; cloning is cheap.
/// Operations are queued and run asynchronously; [`DeviceTensor::to_host`] waits for
/// them. `T` is `f32`, `f16` (where the adapter supports it), `i32`, `u32` or `bool`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::device::Device;
/// # fn main() -> ferrotensor::Result<()> {
/// let Ok(dev) = Device::wgpu() else { return Ok(()) };   // no GPU here: nothing to show
/// let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
/// let g = t.to_device(&dev)?;
/// let y = (&g + &g).exp().sum_axes(&[1], false)?;
/// let p = g.matmul(&g.t())?;
/// assert_eq!(p.to_host()?.to_vec(), vec![5.0, 11.0, 11.0, 25.0]);
/// assert!((y.to_host()?.to_vec()[0] - (2f32.exp() + 4f32.exp())).abs() < 1e-4);
/// # Ok(()) }
/// ```
pub struct DeviceTensor<T: DeviceElement, D: Dimension = IxDyn> {
    pub(crate) buffer: Arc<DeviceBuffer>,
    pub(crate) layout: Layout<D>,
    _elem: PhantomData<T>,
}

impl<T: DeviceElement, D: Dimension> Clone for DeviceTensor<T, D> {
    fn clone(&self) -> Self {
        DeviceTensor {
            buffer: self.buffer.clone(),
            layout: self.layout.clone(),
            _elem: PhantomData,
        }
    }
}

impl<T: DeviceElement, D: Dimension> std::fmt::Debug for DeviceTensor<T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceTensor<{}>(shape {}, strides {}, offset {}, on {})",
            T::DTYPE.name(),
            fmt_shape(self.shape()),
            fmt_shape(self.strides()),
            self.offset(),
            self.device()
        )
    }
}

impl<T: DeviceElement, D: Dimension> DeviceTensor<T, D> {
    /// A tensor over `buffer` with `layout` (which must lie inside the buffer).
    pub(crate) fn from_parts(buffer: Arc<DeviceBuffer>, layout: Layout<D>) -> Self {
        debug_assert!(layout.check_in_buffer(buffer.len, "device").is_ok());
        DeviceTensor {
            buffer,
            layout,
            _elem: PhantomData,
        }
    }

    /// The same buffer under another layout (a view).
    pub(crate) fn with_layout<D2: Dimension>(&self, layout: Layout<D2>) -> DeviceTensor<T, D2> {
        DeviceTensor::from_parts(self.buffer.clone(), layout)
    }

    /// A new zero-filled row-major tensor of `shape` on `dev`.
    pub(crate) fn alloc(dev: &Device, shape: D, op: &'static str) -> Result<Self> {
        let layout = Layout::new_order(shape, Order::RowMajor)?;
        let what = || format!("an output of shape {}", fmt_shape(layout.shape()));
        let buffer = DeviceBuffer::alloc(dev, T::DTYPE, layout.size(), op, &what)?;
        Ok(DeviceTensor::from_parts(buffer, layout))
    }

    /// The device the tensor lives on.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2]).to_device(&dev).unwrap();
    /// assert_eq!(g.device(), &dev);
    /// ```
    pub fn device(&self) -> &Device {
        &self.buffer.device
    }
    /// The lengths of the axes.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap().shape(), &[2, 3]);
    /// ```
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }
    /// The shape as the rank type `D`.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap().dim(), &[2, 3]);
    /// ```
    pub fn dim(&self) -> &D {
        self.layout.dim()
    }
    /// Strides in elements (signed).
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap();
    /// assert_eq!(g.t().strides(), &[1, 3]);
    /// ```
    pub fn strides(&self) -> &[isize] {
        self.layout.strides()
    }
    /// Buffer index of the element whose index is all zeros.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([4]).to_device(&dev).unwrap();
    /// assert_eq!(g.flip(0).unwrap().offset(), 3);
    /// ```
    pub fn offset(&self) -> usize {
        self.layout.offset()
    }
    /// The layout (shape, strides, offset).
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let t = Tensor::<f32, _>::zeros([2, 3]);
    /// assert_eq!(t.to_device(&dev).unwrap().layout(), t.layout());
    /// ```
    pub fn layout(&self) -> &Layout<D> {
        &self.layout
    }
    /// Number of axes.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap().ndim(), 2);
    /// ```
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    /// Number of elements.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap().size(), 6);
    /// ```
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    /// Row-major contiguity.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap();
    /// assert!(g.is_contiguous() && !g.t().is_contiguous());
    /// ```
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_c_contiguous()
    }
    /// True if both tensors read the same device buffer (one is a view of the other).
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap();
    /// assert!(g.t().shares_buffer(&g));
    /// assert!(!g.to_contiguous().unwrap().shares_buffer(&g));
    /// ```
    pub fn shares_buffer<D2: Dimension>(&self, other: &DeviceTensor<T, D2>) -> bool {
        Arc::ptr_eq(&self.buffer, &other.buffer)
    }
    /// Converts to dynamic rank (no copy).
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap();
    /// assert_eq!(g.into_dyn().shape(), &[2, 3]);
    /// ```
    pub fn into_dyn(self) -> DeviceTensor<T, IxDyn> {
        let layout = self.layout.clone().into_dyn();
        self.with_layout(layout)
    }
    /// Converts to another rank type (no copy); `Err` if the rank differs.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros(vec![2, 3]).to_device(&dev).unwrap();
    /// assert!(g.clone().into_dim::<Ix2>().is_ok());
    /// assert!(g.into_dim::<Ix3>().is_err());
    /// ```
    pub fn into_dim<D2: Dimension>(self) -> Result<DeviceTensor<T, D2>> {
        let layout = self.layout.clone().into_dim()?;
        Ok(self.with_layout(layout))
    }
}

/// `Err` unless every operand lives on `dev`, naming the operation, the shapes and the
/// devices.
pub(crate) fn check_same_device(op: &'static str, dev: &Device, operands: &[(&Device, &[usize])]) -> Result<()> {
    if operands.iter().all(|(d, _)| d.same(dev)) {
        return Ok(());
    }
    let list: Vec<String> = operands
        .iter()
        .map(|(d, s)| format!("shape {} on {d}", fmt_shape(s)))
        .collect();
    Err(Error::device(
        op,
        format!(
            "operands are on different devices: {}; move them with to_host / to_device first",
            list.join(", ")
        ),
    ))
}
