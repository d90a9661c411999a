//! One function body for either device: [`Backend`] names a device's tensor type and
//! moves host tensors onto it; [`TensorOps`] is the set of operations the CPU's
//! [`TensorArc`] and the GPU's `DeviceTensor` both implement with the CPU's names
//! and arguments. Generic code is monomorphised: the CPU path runs the CPU kernels
//! directly, with no branch and no indirection.

use super::element::{DeviceElement, DeviceFloat, DeviceNum};
use crate::error::Result;
use crate::layout::reshape::reshape_layout;
use crate::layout::transform::{permute_layout, reversed_layout};
use crate::layout::{Dimension, IntoShape, IxDyn, Order};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorArc, TensorBase};

/// The tensor type of backend `B` with elements `T` and rank type `D`.
pub type On<B, T, D> = <B as Backend>::Tensor<T, D>;

/// A place tensors live and compute: [`Cpu`] or a GPU `Device` (feature `wgpu`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::device::{Backend, Cpu, TensorOps};
///
/// // Written once: runs on the CPU and, with the feature `wgpu`, on a `Device`.
/// fn scores<B: Backend>(dev: &B, x: &Tensor<f32, Ix2>) -> ferrotensor::Result<Tensor<f32, IxDyn>> {
///     let g = dev.upload(x)?;
///     let p = g.matmul(&g.t())?.softmax(-1)?;
///     p.sum_axes(&[1], false)?.to_host()
/// }
///
/// let x = Tensor::from_vec(vec![1.0f32, 0.0, 0.0, 1.0], [2, 2])?;
/// let s = scores(&Cpu, &x)?;
/// assert!(s.to_vec().iter().all(|&v| (v - 1.0).abs() < 1e-6));
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub trait Backend: Clone {
    /// The tensor type on this backend.
    type Tensor<T: DeviceElement, D: Dimension>: TensorOps<Elem = T, Dim = D, Backend = Self>;
    /// A human-readable name (`"cpu"`, or the device and adapter).
    fn name(&self) -> String;
    /// Copies `t` onto this backend (on the CPU: into a shared tensor, no copy when
    /// `t` is already shared).
    fn upload<T: DeviceElement, S: Storage<Elem = T>, D: Dimension>(
        &self,
        t: &TensorBase<S, D>,
    ) -> Result<Self::Tensor<T, D>>;
}

/// The CPU as a [`Backend`]: tensors are [`TensorArc`] (shared buffer + layout, like
/// device tensors), operations are the CPU kernels.
///
/// ```
/// use ferrotensor::device::{Backend, Cpu};
/// assert_eq!(Cpu.name(), "cpu");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cpu;

impl Backend for Cpu {
    type Tensor<T: DeviceElement, D: Dimension> = TensorArc<T, D>;
    fn name(&self) -> String {
        "cpu".to_string()
    }
    fn upload<T: DeviceElement, S: Storage<Elem = T>, D: Dimension>(
        &self,
        t: &TensorBase<S, D>,
    ) -> Result<TensorArc<T, D>> {
        Ok(t.to_owned().into_shared())
    }
}

/// The operations both tensor types implement, with the CPU's names and arguments.
/// Same-rank binary operations take an operand of the same type (NumPy broadcasting
/// within the rank); the results of rank-changing operations are dynamic-rank tensors
/// of the same backend.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::device::{Backend, Cpu, TensorOps};
/// // In generic code the trait's methods are the ones called.
/// fn relu_plus<X: TensorOps<Elem = f32>>(a: &X) -> ferrotensor::Result<X> {
///     a.relu().try_add(a)
/// }
/// let a = Cpu.upload(&Tensor::from_vec(vec![1.0f32, -2.0], [2])?)?;
/// assert_eq!(relu_plus(&a)?.to_host()?.to_vec(), vec![2.0, -2.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub trait TensorOps: Clone + Sized {
    /// Element type.
    type Elem: DeviceElement;
    /// Rank type.
    type Dim: Dimension;
    /// The backend the tensor lives on.
    type Backend: Backend;

    /// The lengths of the axes.
    fn shape(&self) -> &[usize];
    /// A row-major host copy (waits for queued device work).
    fn to_host(&self) -> Result<Tensor<Self::Elem, Self::Dim>>;
    /// The transpose (a view).
    fn t(&self) -> Self;
    /// Axes reordered (a view).
    fn permute(&self, axes: &[isize]) -> Result<Self>;
    /// Reshaped: a view when NumPy gives one, else a copy.
    fn reshape<Sh: IntoShape>(&self, shape: Sh) -> Result<On<Self::Backend, Self::Elem, Sh::Dim>>;

    /// `self + rhs` with broadcasting.
    fn try_add(&self, rhs: &Self) -> Result<Self>
    where
        Self::Elem: DeviceNum;
    /// `self - rhs` with broadcasting.
    fn try_sub(&self, rhs: &Self) -> Result<Self>
    where
        Self::Elem: DeviceNum;
    /// `self * rhs` with broadcasting.
    fn try_mul(&self, rhs: &Self) -> Result<Self>
    where
        Self::Elem: DeviceNum;
    /// `self / rhs` with broadcasting.
    fn try_div(&self, rhs: &Self) -> Result<Self>
    where
        Self::Elem: DeviceNum;
    /// NumPy `maximum` (NaN-propagating).
    fn maximum(&self, rhs: &Self) -> Result<Self>
    where
        Self::Elem: DeviceNum;
    /// NumPy `minimum` (NaN-propagating).
    fn minimum(&self, rhs: &Self) -> Result<Self>
    where
        Self::Elem: DeviceNum;
    /// Absolute value.
    fn abs(&self) -> Self
    where
        Self::Elem: DeviceNum;
    /// Negation.
    fn neg(&self) -> Self
    where
        Self::Elem: DeviceNum;
    /// `e^x`.
    fn exp(&self) -> Self
    where
        Self::Elem: DeviceFloat;
    /// Natural logarithm.
    fn ln(&self) -> Self
    where
        Self::Elem: DeviceFloat;
    /// Square root.
    fn sqrt(&self) -> Self
    where
        Self::Elem: DeviceFloat;
    /// Hyperbolic tangent.
    fn tanh(&self) -> Self
    where
        Self::Elem: DeviceFloat;
    /// Logistic sigmoid.
    fn sigmoid(&self) -> Self
    where
        Self::Elem: DeviceFloat;
    /// `max(x, 0)`.
    fn relu(&self) -> Self
    where
        Self::Elem: DeviceFloat;

    /// Sum over `axes`.
    fn sum_axes(&self, axes: &[isize], keepdims: bool) -> Result<On<Self::Backend, Self::Elem, IxDyn>>
    where
        Self::Elem: DeviceNum;
    /// Maximum over `axes`.
    fn max_axes(&self, axes: &[isize], keepdims: bool) -> Result<On<Self::Backend, Self::Elem, IxDyn>>
    where
        Self::Elem: DeviceNum;
    /// Minimum over `axes`.
    fn min_axes(&self, axes: &[isize], keepdims: bool) -> Result<On<Self::Backend, Self::Elem, IxDyn>>
    where
        Self::Elem: DeviceNum;
    /// Mean over `axes`.
    fn mean_axes(&self, axes: &[isize], keepdims: bool) -> Result<On<Self::Backend, Self::Elem, IxDyn>>
    where
        Self::Elem: DeviceFloat;
    /// NumPy `matmul`.
    fn matmul(&self, rhs: &Self) -> Result<On<Self::Backend, Self::Elem, IxDyn>>
    where
        Self::Elem: DeviceNum;
    /// Softmax along `axis`.
    fn softmax(&self, axis: isize) -> Result<Self>
    where
        Self::Elem: DeviceFloat;
    /// Log-softmax along `axis`.
    fn log_softmax(&self, axis: isize) -> Result<Self>
    where
        Self::Elem: DeviceFloat;
}

/// A shared tensor over the same buffer with `layout`.
fn share<T: DeviceElement, D: Dimension, D2: Dimension>(
    t: &TensorArc<T, D>,
    layout: crate::layout::Layout<D2>,
) -> TensorArc<T, D2> {
    TensorBase {
        storage: t.storage.clone(),
        layout,
    }
}

/// A CPU result as a shared tensor of rank type `D`.
fn shared<T: DeviceElement, D: Dimension, D2: Dimension>(t: Tensor<T, D2>) -> Result<TensorArc<T, D>> {
    Ok(t.into_dim::<D>()?.into_shared())
}

macro_rules! cpu_unary {
    ($bound:ident: $($name:ident)*) => {$(
        fn $name(&self) -> Self
        where
            T: $bound,
        {
            TensorBase::$name(self).into_shared()
        }
    )*};
}

macro_rules! cpu_binary {
    ($($name:ident)*) => {$(
        fn $name(&self, rhs: &Self) -> Result<Self>
        where
            T: DeviceNum,
        {
            // Through dynamic rank: equal ranks broadcast to the same rank.
            shared(TensorBase::$name(&self.view().into_dyn(), &rhs.view().into_dyn())?)
        }
    )*};
}

impl<T: DeviceElement, D: Dimension> TensorOps for TensorArc<T, D> {
    type Elem = T;
    type Dim = D;
    type Backend = Cpu;

    fn shape(&self) -> &[usize] {
        TensorBase::shape(self)
    }
    fn to_host(&self) -> Result<Tensor<T, D>> {
        Ok(self.to_owned())
    }
    fn t(&self) -> Self {
        share(self, reversed_layout(&self.layout))
    }
    fn permute(&self, axes: &[isize]) -> Result<Self> {
        Ok(share(self, permute_layout(&self.layout, axes)?))
    }
    fn reshape<Sh: IntoShape>(&self, shape: Sh) -> Result<TensorArc<T, Sh::Dim>> {
        let shape = shape.into_dim();
        match reshape_layout(&self.layout, shape.clone(), Order::RowMajor, "reshape")? {
            Some(l) => Ok(share(self, l)),
            None => {
                let c = self.to_contiguous().into_shared();
                let l = reshape_layout(&c.layout, shape, Order::RowMajor, "reshape")?
                    .expect("a row-major layout reshapes without a copy");
                Ok(share(&c, l))
            }
        }
    }
    cpu_binary!(try_add try_sub try_mul try_div maximum minimum);
    cpu_unary!(DeviceNum: abs neg);
    cpu_unary!(DeviceFloat: exp ln sqrt tanh sigmoid relu);

    fn sum_axes(&self, axes: &[isize], keepdims: bool) -> Result<TensorArc<T, IxDyn>>
    where
        T: DeviceNum,
    {
        Ok(TensorBase::sum_axes(self, axes, keepdims)?.into_shared())
    }
    fn max_axes(&self, axes: &[isize], keepdims: bool) -> Result<TensorArc<T, IxDyn>>
    where
        T: DeviceNum,
    {
        Ok(TensorBase::max_axes(self, axes, keepdims)?.into_shared())
    }
    fn min_axes(&self, axes: &[isize], keepdims: bool) -> Result<TensorArc<T, IxDyn>>
    where
        T: DeviceNum,
    {
        Ok(TensorBase::min_axes(self, axes, keepdims)?.into_shared())
    }
    fn mean_axes(&self, axes: &[isize], keepdims: bool) -> Result<TensorArc<T, IxDyn>>
    where
        T: DeviceFloat,
    {
        Ok(TensorBase::mean_axes(self, axes, keepdims)?.into_shared())
    }
    fn matmul(&self, rhs: &Self) -> Result<TensorArc<T, IxDyn>>
    where
        T: DeviceNum,
    {
        // The backend trait's result is `IxDyn` (as the device's): multiply at dynamic rank.
        Ok(self.view().into_dyn().matmul(&rhs.view().into_dyn())?.into_shared())
    }
    fn softmax(&self, axis: isize) -> Result<Self>
    where
        T: DeviceFloat,
    {
        shared(crate::nn::softmax(self, axis)?)
    }
    fn log_softmax(&self, axis: isize) -> Result<Self>
    where
        T: DeviceFloat,
    {
        shared(crate::nn::log_softmax(self, axis)?)
    }
}

#[cfg(feature = "wgpu")]
mod gpu {
    use super::super::{Device, DeviceTensor};
    use super::*;

    impl Backend for Device {
        type Tensor<T: DeviceElement, D: Dimension> = DeviceTensor<T, D>;
        fn name(&self) -> String {
            self.to_string()
        }
        fn upload<T: DeviceElement, S: Storage<Elem = T>, D: Dimension>(
            &self,
            t: &TensorBase<S, D>,
        ) -> Result<DeviceTensor<T, D>> {
            t.to_device(self)
        }
    }

    macro_rules! gpu_binary {
        ($($name:ident)*) => {$(
            fn $name(&self, rhs: &Self) -> Result<Self>
            where
                T: DeviceNum,
            {
                DeviceTensor::$name(&self.clone().into_dyn(), &rhs.clone().into_dyn())?.into_dim()
            }
        )*};
    }

    macro_rules! gpu_forward {
        ($bound:ident: $($name:ident)*) => {$(
            fn $name(&self) -> Self
            where
                T: $bound,
            {
                DeviceTensor::$name(self)
            }
        )*};
    }

    macro_rules! gpu_reduce {
        ($bound:ident: $($name:ident)*) => {$(
            fn $name(&self, axes: &[isize], keepdims: bool) -> Result<DeviceTensor<T, IxDyn>>
            where
                T: $bound,
            {
                DeviceTensor::$name(self, axes, keepdims)
            }
        )*};
    }

    impl<T: DeviceElement, D: Dimension> TensorOps for DeviceTensor<T, D> {
        type Elem = T;
        type Dim = D;
        type Backend = Device;

        fn shape(&self) -> &[usize] {
            DeviceTensor::shape(self)
        }
        fn to_host(&self) -> Result<Tensor<T, D>> {
            DeviceTensor::to_host(self)
        }
        fn t(&self) -> Self {
            DeviceTensor::t(self)
        }
        fn permute(&self, axes: &[isize]) -> Result<Self> {
            DeviceTensor::permute(self, axes)
        }
        fn reshape<Sh: IntoShape>(&self, shape: Sh) -> Result<DeviceTensor<T, Sh::Dim>> {
            DeviceTensor::reshape(self, shape)
        }
        gpu_binary!(try_add try_sub try_mul try_div maximum minimum);
        gpu_forward!(DeviceNum: abs neg);
        gpu_forward!(DeviceFloat: exp ln sqrt tanh sigmoid relu);
        gpu_reduce!(DeviceNum: sum_axes max_axes min_axes);
        gpu_reduce!(DeviceFloat: mean_axes);
        fn matmul(&self, rhs: &Self) -> Result<DeviceTensor<T, IxDyn>>
        where
            T: DeviceNum,
        {
            DeviceTensor::matmul(self, rhs)
        }
        fn softmax(&self, axis: isize) -> Result<Self>
        where
            T: DeviceFloat,
        {
            DeviceTensor::softmax(self, axis)
        }
        fn log_softmax(&self, axis: isize) -> Result<Self>
        where
            T: DeviceFloat,
        {
            DeviceTensor::log_softmax(self, axis)
        }
    }
}
