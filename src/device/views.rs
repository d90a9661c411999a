//! View operations on device tensors: the CPU's layout transforms (`layout/`) applied
//! to the device tensor's layout. None launches a kernel; each shares the buffer.
//! `reshape` follows NumPy's view-or-copy rule: it copies on the device only when no
//! strides can express the new shape.

use super::element::DeviceElement;
use super::tensor::DeviceTensor;
use crate::error::Result;
use crate::layout::reshape::reshape_layout;
use crate::layout::slice::{SliceItem, slice_layout};
use crate::layout::transform as tf;
use crate::layout::{Dimension, InsertAxis, IntoShape, IxDyn, Order};

impl<T: DeviceElement, D: Dimension> DeviceTensor<T, D> {
    /// Basic slicing with Python's rules (the CPU's `slice`); a view.
    ///
    /// # Panics
    /// On a bad slice item (see [`DeviceTensor::try_slice`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<i32, _>::arange(10).to_device(&dev).unwrap();
    /// let v = g.slice(s![8..2;-2]);
    /// assert!(v.shares_buffer(&g));
    /// assert_eq!(v.to_host().unwrap().to_vec(), vec![8, 6, 4]);
    /// ```
    #[track_caller]
    pub fn slice(&self, items: impl AsRef<[SliceItem]>) -> DeviceTensor<T, IxDyn> {
        self.try_slice(items).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Basic slicing; `Err` for step 0, an index out of range, more indices than axes
    /// or two ellipses.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap();
    /// assert!(g.try_slice(s![.., 5]).is_err());
    /// assert_eq!(g.try_slice(s![Ellipsis, NewAxis]).unwrap().shape(), &[2, 3, 1]);
    /// ```
    pub fn try_slice(&self, items: impl AsRef<[SliceItem]>) -> Result<DeviceTensor<T, IxDyn>> {
        Ok(self.with_layout(slice_layout(&self.layout, items.as_ref())?))
    }

    /// Reorders the axes (new axis `i` is old axis `axes[i]`); `Err` unless `axes` is
    /// a permutation.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3, 4]).to_device(&dev).unwrap();
    /// assert_eq!(g.permute(&[2, 0, 1]).unwrap().shape(), &[4, 2, 3]);
    /// assert!(g.permute(&[0, 1]).is_err());
    /// ```
    pub fn permute(&self, axes: &[isize]) -> Result<DeviceTensor<T, D>> {
        Ok(self.with_layout(tf::permute_layout(&self.layout, axes)?))
    }

    /// All axes reversed (the transpose); a view.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3]).to_device(&dev).unwrap();
    /// assert_eq!(g.t().shape(), &[3, 2]);
    /// ```
    pub fn t(&self) -> DeviceTensor<T, D> {
        self.with_layout(tf::reversed_layout(&self.layout))
    }

    /// Swaps two axes; a view.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3, 4]).to_device(&dev).unwrap();
    /// assert_eq!(g.swap_axes(0, -1).unwrap().shape(), &[4, 3, 2]);
    /// ```
    pub fn swap_axes(&self, a: isize, b: isize) -> Result<DeviceTensor<T, D>> {
        let nd = self.ndim();
        let (x, y) = (
            tf::normalize_axis(a, nd, "swap_axes")?,
            tf::normalize_axis(b, nd, "swap_axes")?,
        );
        let mut perm: Vec<isize> = (0..nd as isize).collect();
        perm.swap(x, y);
        self.permute(&perm)
    }

    /// Moves axis `src` to position `dst`; a view.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([2, 3, 4]).to_device(&dev).unwrap();
    /// assert_eq!(g.moveaxis(0, -1).unwrap().shape(), &[3, 4, 2]);
    /// ```
    pub fn moveaxis(&self, src: isize, dst: isize) -> Result<DeviceTensor<T, D>> {
        Ok(self.with_layout(tf::moveaxis_layout(&self.layout, src, dst)?))
    }

    /// Reverses one axis (negative stride); a view.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<i32, _>::arange(4).to_device(&dev).unwrap();
    /// assert_eq!(g.flip(0).unwrap().to_host().unwrap().to_vec(), vec![3, 2, 1, 0]);
    /// ```
    pub fn flip(&self, axis: isize) -> Result<DeviceTensor<T, D>> {
        Ok(self.with_layout(tf::flip_layout(&self.layout, axis)?))
    }

    /// Broadcast to `shape` (stride 0 on stretched axes); a view. `Err` if the shapes
    /// are incompatible.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<i32, _>::arange(3).to_device(&dev).unwrap();
    /// let b = g.broadcast_to([2, 3]).unwrap();
    /// assert_eq!(b.strides(), &[0, 1]);
    /// assert_eq!(b.to_host().unwrap().to_vec(), vec![0, 1, 2, 0, 1, 2]);
    /// ```
    pub fn broadcast_to<Sh: IntoShape>(&self, shape: Sh) -> Result<DeviceTensor<T, Sh::Dim>> {
        let shape = shape.into_dim();
        let l = tf::broadcast_layout(&self.layout, shape.slice(), "broadcast_to")?;
        Ok(self.with_layout(l.into_dim()?))
    }

    /// Removes every length-1 axis; a view.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([1, 3, 1]).to_device(&dev).unwrap();
    /// assert_eq!(g.squeeze().shape(), &[3]);
    /// ```
    pub fn squeeze(&self) -> DeviceTensor<T, IxDyn> {
        self.with_layout(tf::squeeze_layout(&self.layout))
    }

    /// Inserts a length-1 axis at `axis`; a view with one axis more (as
    /// [`TensorView::unsqueeze`](crate::TensorView::unsqueeze)).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<f32, _>::zeros([3]).to_device(&dev).unwrap();
    /// assert_eq!(g.unsqueeze(0).unwrap().shape(), &[1, 3]);
    /// ```
    pub fn unsqueeze(&self, axis: isize) -> Result<DeviceTensor<T, D::Larger>>
    where
        D: InsertAxis,
    {
        Ok(self.with_layout(tf::unsqueeze_layout(&self.layout, axis)?.into_dim()?))
    }

    /// Reshapes to `shape` in row-major order: a view when NumPy would give one, else a
    /// row-major copy on the device. `Err` if the sizes differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<i32, _>::arange(6).to_device(&dev).unwrap();
    /// let r = g.reshape([2, 3]).unwrap();
    /// assert!(r.shares_buffer(&g));
    /// let c = r.t().reshape([6]).unwrap();                   // needs a copy
    /// assert!(!c.shares_buffer(&g));
    /// assert_eq!(c.to_host().unwrap().to_vec(), vec![0, 3, 1, 4, 2, 5]);
    /// assert!(g.reshape([4]).is_err());
    /// ```
    pub fn reshape<Sh: IntoShape>(&self, shape: Sh) -> Result<DeviceTensor<T, Sh::Dim>> {
        let shape = shape.into_dim();
        match reshape_layout(&self.layout, shape.clone(), Order::RowMajor, "reshape")? {
            Some(l) => Ok(self.with_layout(l)),
            None => {
                let c = self.to_contiguous()?;
                let l = reshape_layout(&c.layout, shape, Order::RowMajor, "reshape")?
                    .expect("a row-major layout reshapes without a copy");
                Ok(c.with_layout(l))
            }
        }
    }
}
