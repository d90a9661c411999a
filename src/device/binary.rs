//! Element-wise binary operations with NumPy broadcasting: `try_add try_sub try_mul
//! try_div maximum minimum` and the comparisons `eq ne lt le gt ge` (→ `bool`). The
//! right operand is a device tensor of any rank or a scalar ([`DeviceOperand`]).
//! Both operands are read through their layouts: a broadcast operand is never
//! expanded in memory.

use super::context::Device;
use super::element::{DType, DeviceElement, DeviceNum};
use super::map::{Operand, map, same_device};
use super::tensor::DeviceTensor;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::{broadcast_layout, broadcast_shapes};
use crate::layout::{Dimension, Ix0, IxDyn};
use crate::ops::DimMax;
use crate::tensor::Tensor;
use half::f16;

/// The right operand of a device binary operation: a device tensor (any rank; the
/// result has the broadcast rank type) or a scalar of the element type (the result
/// keeps the left operand's rank type).
///
/// ```
/// use ferrotensor::prelude::*;
/// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
/// let g = Tensor::from_vec(vec![1.0f32, 5.0], [2]).unwrap().to_device(&dev).unwrap();
/// let m = g.maximum(3.0).unwrap();                      // a scalar
/// assert_eq!(m.to_host().unwrap().to_vec(), vec![3.0, 5.0]);
/// let s = g.maximum(&g.neg()).unwrap();                 // a tensor
/// assert_eq!(s.to_host().unwrap().to_vec(), vec![1.0, 5.0]);
/// ```
pub trait DeviceOperand<T: DeviceElement, D: Dimension> {
    /// Rank type of the result.
    type Out: Dimension;
    /// The operand as a device tensor on `dev` (a scalar is uploaded as a 0-d tensor).
    fn into_operand(self, dev: &Device, op: &'static str) -> Result<DeviceTensor<T, IxDyn>>;
}

impl<T: DeviceElement, D: DimMax<D2>, D2: Dimension> DeviceOperand<T, D> for &DeviceTensor<T, D2> {
    type Out = D::Output;
    fn into_operand(self, _: &Device, _: &'static str) -> Result<DeviceTensor<T, IxDyn>> {
        Ok(self.clone().into_dyn())
    }
}

macro_rules! scalar_operand {
    ($($t:ty),*) => {$(
        impl<D: Dimension> DeviceOperand<$t, D> for $t {
            type Out = D;
            fn into_operand(self, dev: &Device, _: &'static str) -> Result<DeviceTensor<$t, IxDyn>> {
                Ok(Tensor::<$t, Ix0>::scalar(self).to_device(dev)?.into_dyn())
            }
        }
    )*};
}
scalar_operand!(f32, f16, i32, u32);

/// Runs `body` (`fn op(a, b)`) over `a` and `b` broadcast together.
pub(crate) fn binary<T, U, D, O>(
    a: &DeviceTensor<T, D>,
    b: O,
    op: &'static str,
    body: &str,
) -> Result<DeviceTensor<U, O::Out>>
where
    T: DeviceElement,
    U: DeviceElement,
    D: Dimension,
    O: DeviceOperand<T, D>,
{
    let b = b.into_operand(a.device(), op)?;
    same_device(op, a, &b)?;
    let shape = broadcast_shapes(a.shape(), b.shape(), op)?;
    let mut oa = Operand::of(a);
    oa.layout = broadcast_layout(&a.layout, &shape, op)?;
    let mut ob = Operand::of(&b);
    ob.layout = broadcast_layout(&b.layout, &shape, op)?;
    map::<U>(op, &shape, &[oa, ob], body, a.device())?.into_dim()
}

/// The compute type of `T` in WGSL.
fn ct<T: DeviceElement>() -> &'static str {
    match T::DTYPE {
        DType::F32 | DType::F16 => "f32",
        DType::I32 => "i32",
        DType::U32 | DType::Bool => "u32",
    }
}

/// `fn op(a, b) -> T` from an expression.
fn arith<T: DeviceElement>(expr: &str) -> String {
    let t = ct::<T>();
    format!("fn op(a: {t}, b: {t}) -> {t} {{ {expr} }}")
}

/// Float division with IEEE results for a zero divisor (WGSL leaves them open).
const FDIV: &str = "if ((bitcast<u32>(b) & 0x7fffffffu) == 0u) {
        if (is_nan(a) || (bitcast<u32>(a) & 0x7fffffffu) == 0u) { return nan(); }
        return bitcast<f32>(INF_BITS | ((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u));
    }
    return a / b;";

fn extremum<T: DeviceElement>(max: bool) -> String {
    let cmp = if max { "a > b" } else { "a < b" };
    if T::DTYPE.is_float() {
        arith::<T>(&format!(
            "if (is_nan(a)) {{ return a; }} if (is_nan(b)) {{ return b; }} return select(b, a, {cmp});"
        ))
    } else {
        arith::<T>(&format!("return select(b, a, {cmp});"))
    }
}

/// `fn op(a, b) -> u32` (a bool) from a comparison; false when a float operand is NaN
/// (true for `!=`).
fn comparison<T: DeviceElement>(cmp: &str) -> String {
    let t = ct::<T>();
    let cond = if !T::DTYPE.is_float() {
        format!("a {cmp} b")
    } else if cmp == "!=" {
        "is_nan(a) || is_nan(b) || a != b".to_string()
    } else {
        format!("!is_nan(a) && !is_nan(b) && a {cmp} b")
    };
    format!("fn op(a: {t}, b: {t}) -> u32 {{ return select(0u, 1u, {cond}); }}")
}

impl<T: DeviceNum, D: Dimension> DeviceTensor<T, D> {
    /// `self + rhs` with broadcasting (integers wrap); `Err` if the shapes do not
    /// broadcast or the operands are on different devices.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(a.try_add(&a).unwrap().to_host().unwrap().to_vec(), vec![2, 4, 6]);
    /// let e = a.try_add(&Tensor::<i32, _>::zeros([2]).to_device(&dev).unwrap()).unwrap_err();
    /// assert_eq!(e.to_string(), "add: operands could not be broadcast together with shapes (3,) (2,)");
    /// ```
    pub fn try_add<O: DeviceOperand<T, D>>(&self, rhs: O) -> Result<DeviceTensor<T, O::Out>> {
        binary(self, rhs, "add", &arith::<T>("return a + b;"))
    }

    /// `self - rhs` with broadcasting (integers wrap).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let a = Tensor::from_vec(vec![0u32, 1], [2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(a.try_sub(1u32).unwrap().to_host().unwrap().to_vec(), vec![u32::MAX, 0]);
    /// ```
    pub fn try_sub<O: DeviceOperand<T, D>>(&self, rhs: O) -> Result<DeviceTensor<T, O::Out>> {
        binary(self, rhs, "subtract", &arith::<T>("return a - b;"))
    }

    /// `self * rhs` with broadcasting (integers wrap).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let a = Tensor::from_vec(vec![1.5f32, 2.0], [2, 1]).unwrap().to_device(&dev).unwrap();
    /// let b = Tensor::from_vec(vec![2.0f32, 4.0], [2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(a.try_mul(&b).unwrap().to_host().unwrap().to_vec(), vec![3.0, 6.0, 4.0, 8.0]);
    /// ```
    pub fn try_mul<O: DeviceOperand<T, D>>(&self, rhs: O) -> Result<DeviceTensor<T, O::Out>> {
        binary(self, rhs, "multiply", &arith::<T>("return a * b;"))
    }

    /// `self / rhs` with broadcasting. Floats follow IEEE (±∞, NaN for a zero
    /// divisor); integers truncate toward zero, and an integer zero divisor is `Err`
    /// as on the CPU (checked on the device, which waits for that check).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let a = Tensor::from_vec(vec![-7, 7], [2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(a.try_div(2).unwrap().to_host().unwrap().to_vec(), vec![-3, 3]);
    /// assert!(a.try_div(&Tensor::from_vec(vec![2, 0], [2]).unwrap().to_device(&dev).unwrap()).is_err());
    /// ```
    pub fn try_div<O: DeviceOperand<T, D>>(&self, rhs: O) -> Result<DeviceTensor<T, O::Out>> {
        const OP: &str = "divide";
        if T::DTYPE.is_float() {
            return binary(self, rhs, OP, &arith::<T>(FDIV));
        }
        let b = rhs.into_operand(self.device(), OP)?;
        same_device(OP, self, &b)?;
        if b.any_zero()? {
            return Err(Error::value(
                OP,
                format!("integer division by zero (divisor of shape {})", fmt_shape(b.shape())),
            ));
        }
        let a = self.clone().into_dyn();
        let out: DeviceTensor<T, IxDyn> = binary(&a, &b, OP, &arith::<T>("return a / b;"))?;
        out.into_dim()
    }

    /// NumPy `maximum`: the larger element, NaN if either is NaN; broadcasting, and a
    /// scalar right operand.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let a = Tensor::from_vec(vec![1.0f32, f32::NAN], [2]).unwrap().to_device(&dev).unwrap();
    /// let m = a.maximum(0.5).unwrap().to_host().unwrap().to_vec();
    /// assert!(m[0] == 1.0 && m[1].is_nan());
    /// ```
    pub fn maximum<O: DeviceOperand<T, D>>(&self, rhs: O) -> Result<DeviceTensor<T, O::Out>> {
        binary(self, rhs, "maximum", &extremum::<T>(true))
    }

    /// NumPy `minimum`: the smaller element, NaN if either is NaN.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let a = Tensor::from_vec(vec![1, 5], [2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(a.minimum(3).unwrap().to_host().unwrap().to_vec(), vec![1, 3]);
    /// ```
    pub fn minimum<O: DeviceOperand<T, D>>(&self, rhs: O) -> Result<DeviceTensor<T, O::Out>> {
        binary(self, rhs, "minimum", &extremum::<T>(false))
    }

    /// True if any element is zero (a device reduction; waits for its result).
    fn any_zero(&self) -> Result<bool> {
        let zero = Tensor::<T, Ix0>::scalar(T::zero()).to_device(self.device())?.into_dyn();
        let z: DeviceTensor<bool, IxDyn> = binary(&self.clone().into_dyn(), &zero, "divide", &comparison::<T>("=="))?;
        let any = z.cast::<u32>()?.max()?;
        Ok(any.to_host()?.to_vec().first().is_some_and(|&x| x != 0))
    }
}

macro_rules! comparisons {
    ($($name:ident $try_name:ident $op:literal $cmp:literal, $ex:literal;)*) => {
        impl<T: DeviceNum, D: Dimension> DeviceTensor<T, D> {
            $(
                #[doc = concat!("Element-wise `self ", $cmp, " rhs` with broadcasting (NumPy `", $op,
                    "`), as `bool`; NaN compares false (true for `!=`). `Err` if the shapes do not broadcast.")]
                ///
                /// ```
                /// use ferrotensor::prelude::*;
                /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
                /// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap().to_device(&dev).unwrap();
                #[doc = concat!("assert_eq!(a.", stringify!($try_name), "(2).unwrap().to_host().unwrap().to_vec(), vec!", $ex, ");")]
                /// ```
                pub fn $try_name<O: DeviceOperand<T, D>>(&self, rhs: O) -> Result<DeviceTensor<bool, O::Out>> {
                    binary(self, rhs, $op, &comparison::<T>($cmp))
                }

                #[doc = concat!("Element-wise `self ", $cmp, " rhs` with broadcasting, as `bool`.")]
                ///
                /// # Panics
                #[doc = concat!("If the shapes do not broadcast (see [`DeviceTensor::", stringify!($try_name), "`]).")]
                ///
                /// ```
                /// use ferrotensor::prelude::*;
                /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
                /// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap().to_device(&dev).unwrap();
                #[doc = concat!("assert_eq!(a.", stringify!($name), "(2).to_host().unwrap().to_vec(), vec!", $ex, ");")]
                /// ```
                #[track_caller]
                #[allow(clippy::should_implement_trait)]
                pub fn $name<O: DeviceOperand<T, D>>(&self, rhs: O) -> DeviceTensor<bool, O::Out> {
                    self.$try_name(rhs).unwrap_or_else(|e| panic!("{e}"))
                }
            )*
        }
    };
}

comparisons!(
    eq try_eq "equal" "==", "[false, true, false]";
    ne try_ne "not_equal" "!=", "[true, false, true]";
    lt try_lt "less" "<", "[true, false, false]";
    le try_le "less_equal" "<=", "[true, true, false]";
    gt try_gt "greater" ">", "[false, false, true]";
    ge try_ge "greater_equal" ">=", "[false, true, true]";
);
