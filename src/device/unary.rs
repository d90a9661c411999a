//! Element-wise unary operations on device tensors (`exp ln sqrt tanh sigmoid relu
//! abs neg`), `cast` and `to_contiguous`, each one kernel that reads any layout.
//!
//! Float math runs in `f32` (`f16` converts in and rounds once on the way out, as the
//! CPU does). NaN, ±∞ and the ends of each domain are handled explicitly, as on the
//! CPU, because WGSL's built-ins leave them to the implementation.

use super::element::{DType, DeviceElement, DeviceFloat, DeviceNum};
use super::map::{Operand, map};
use super::tensor::DeviceTensor;
use crate::error::Result;
use crate::layout::Dimension;

/// WGSL bodies of the float functions, in `f32`.
const EXP: &str = "fn op(x: f32) -> f32 { return exp_f(x); }";
const LN: &str = "fn op(x: f32) -> f32 {
    if (is_nan(x) || x < 0.0) { return nan(); }
    if (x == 0.0) { return -inf(); }
    if (bitcast<u32>(x) == INF_BITS) { return x; }
    return log(x);
}";
const SQRT: &str = "fn op(x: f32) -> f32 {
    if (is_nan(x) || x < 0.0) { return nan(); }
    if (x == 0.0 || bitcast<u32>(x) == INF_BITS) { return x; }
    return sqrt(x);
}";
// tanh: an odd Taylor polynomial near 0 (where 1 - 2/(e^2x + 1) cancels), the
// exponential form elsewhere; |x| > 9 is ±1 in f32.
const TANH: &str = "fn op(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    let a = abs(x);
    var t: f32;
    if (a < 0.25) {
        let z = a * a;
        t = a * (1.0 + z * (-1.0 / 3.0 + z * (2.0 / 15.0 + z * (-17.0 / 315.0 + z * (62.0 / 2835.0 + z * (-1382.0 / 155925.0))))));
    } else if (a > 9.0) {
        t = 1.0;
    } else {
        t = 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
    }
    return select(t, -t, x < 0.0);
}";
const SIGMOID: &str = "fn op(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    return 1.0 / (1.0 + exp_f(-x));
}";
const RELU: &str = "fn op(x: f32) -> f32 { return select(x, 0.0, !is_nan(x) && x < 0.0); }";
const FABS: &str = "fn op(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu); }";
const FNEG: &str = "fn op(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u); }";
/// `e^x` with the CPU's overflow, underflow and NaN behaviour.
pub(crate) const EXP_F: &str = "fn exp_f(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    if (x > 88.72284) { return inf(); }
    if (x < -103.972084) { return 0.0; }
    return exp(x);
}";

fn with_exp(body: &str) -> String {
    format!("{EXP_F}\n{body}")
}

macro_rules! float_unary {
    ($($name:ident, $desc:literal, $body:expr, $x:literal => $y:literal;)*) => {
        impl<T: DeviceFloat, D: Dimension> DeviceTensor<T, D> {
            $(
                #[doc = concat!("Element-wise ", $desc, " (the CPU's `", stringify!($name), "`), as a new row-major tensor on the same device.")]
                ///
                /// # Panics
                /// If the device cannot allocate the output or rejects the kernel (see
                /// [`DeviceTensor::try_map_float`] for the fallible form).
                ///
                /// ```
                /// # use ferrotensor::prelude::*;
                /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
                #[doc = concat!("let g = Tensor::from_vec(vec![", stringify!($x), "f32], [1]).unwrap().to_device(&dev).unwrap();")]
                #[doc = concat!("let y = g.", stringify!($name), "().to_host().unwrap().to_vec()[0];")]
                #[doc = concat!("assert!((y - ", stringify!($y), ").abs() < 1e-6, \"{y}\");")]
                /// ```
                #[track_caller]
                pub fn $name(&self) -> DeviceTensor<T, D> {
                    self.try_map_float(stringify!($name)).unwrap_or_else(|e| panic!("{e}"))
                }
            )*

            /// The float function `name` (`"exp"`, `"ln"`, `"sqrt"`, `"tanh"`,
            /// `"sigmoid"`, `"relu"`) element-wise; `Err` for another name, or if the
            /// device cannot allocate the output.
            ///
            /// ```
            /// # use ferrotensor::prelude::*;
            /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
            /// let g = Tensor::from_vec(vec![4.0f32], [1]).unwrap().to_device(&dev).unwrap();
            /// assert_eq!(g.try_map_float("sqrt").unwrap().to_host().unwrap().to_vec(), vec![2.0]);
            /// assert!(g.try_map_float("cbrt").is_err());
            /// ```
            pub fn try_map_float(&self, name: &str) -> Result<DeviceTensor<T, D>> {
                let (op, body): (&'static str, String) = match name {
                    $(stringify!($name) => (stringify!($name), $body),)*
                    _ => return Err(crate::Error::value("map_float", format!("no device function named {name:?}"))),
                };
                unary(self, op, &body)
            }
        }
    };
}

float_unary! {
    exp, "exponential `e^x`", with_exp(EXP), 1.0 => 2.7182817;
    ln, "natural logarithm", LN.to_string(), 2.7182817 => 1.0;
    sqrt, "square root", SQRT.to_string(), 2.0 => 1.4142135;
    tanh, "hyperbolic tangent", TANH.to_string(), 0.5 => 0.46211717;
    sigmoid, "logistic sigmoid `1 / (1 + e^-x)`", with_exp(SIGMOID), 0.0 => 0.5;
    relu, "rectified linear unit `max(x, 0)` (NaN stays NaN)", RELU.to_string(), -1.5 => 0.0;
}

/// Runs the `fn op(x)` of `body` over `x` into a new tensor of the same type.
fn unary<T: DeviceElement, D: Dimension>(
    x: &DeviceTensor<T, D>,
    op: &'static str,
    body: &str,
) -> Result<DeviceTensor<T, D>> {
    let out = map::<T>(op, x.shape(), &[Operand::of(x)], body, x.device())?;
    out.into_dim()
}

/// The compute type of `dtype` in WGSL (floats compute in `f32`).
fn compute_type(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 | DType::F16 => "f32",
        DType::I32 => "i32",
        DType::U32 | DType::Bool => "u32",
    }
}

impl<T: DeviceNum, D: Dimension> DeviceTensor<T, D> {
    /// Absolute value (integers wrap: `abs(i32::MIN) == i32::MIN`, as the CPU).
    ///
    /// # Panics
    /// If the device cannot allocate the output (see [`DeviceTensor::try_abs`]).
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![-3, 4], [2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.abs().to_host().unwrap().to_vec(), vec![3, 4]);
    /// ```
    #[track_caller]
    pub fn abs(&self) -> DeviceTensor<T, D> {
        self.try_abs().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Absolute value; `Err` if the device cannot allocate the output.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![-1.5f32], [1]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.try_abs().unwrap().to_host().unwrap().to_vec(), vec![1.5]);
    /// ```
    pub fn try_abs(&self) -> Result<DeviceTensor<T, D>> {
        let body = match T::DTYPE {
            DType::F32 | DType::F16 => FABS.to_string(),
            DType::I32 => "fn op(x: i32) -> i32 { return abs(x); }".to_string(),
            _ => "fn op(x: u32) -> u32 { return x; }".to_string(),
        };
        unary(self, "abs", &body)
    }

    /// Negation `-x` (integers wrap; unsigned `0 - x`, as the CPU).
    ///
    /// # Panics
    /// If the device cannot allocate the output (see [`DeviceTensor::try_neg`]).
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1u32, 0], [2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.neg().to_host().unwrap().to_vec(), vec![u32::MAX, 0]);
    /// ```
    #[track_caller]
    #[allow(clippy::should_implement_trait)]
    pub fn neg(&self) -> DeviceTensor<T, D> {
        self.try_neg().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Negation; `Err` if the device cannot allocate the output.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![i32::MIN, 5], [2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.try_neg().unwrap().to_host().unwrap().to_vec(), vec![i32::MIN, -5]);
    /// ```
    pub fn try_neg(&self) -> Result<DeviceTensor<T, D>> {
        let body = match T::DTYPE {
            DType::F32 | DType::F16 => FNEG.to_string(),
            DType::I32 => "fn op(x: i32) -> i32 { return 0 - x; }".to_string(),
            _ => "fn op(x: u32) -> u32 { return 0u - x; }".to_string(),
        };
        unary(self, "negative", &body)
    }
}

/// WGSL converting compute type of `from` to compute type of `to` with the CPU's
/// rules: float → int truncates and saturates (NaN → 0), int → float rounds to
/// nearest even, anything → bool is `!= 0` (NaN is true), i32 ↔ u32 wraps.
fn cast_body(from: DType, to: DType) -> String {
    let (a, b) = (compute_type(from), compute_type(to));
    let body = match (from, to) {
        (f, t) if f == t => "return x;".to_string(),
        (_, DType::Bool) if from.is_float() => "return select(0u, 1u, is_nan(x) || x != 0.0);".into(),
        (DType::I32, DType::Bool) => "return select(0u, 1u, x != 0i);".into(),
        (_, DType::Bool) => "return select(0u, 1u, x != 0u);".into(),
        (DType::Bool, t) if t.is_float() => "return f32(x);".into(),
        (DType::Bool, DType::I32) => "return i32(x);".into(),
        (DType::Bool, _) => "return x;".into(),
        (f, t) if f.is_float() && t.is_float() => "return x;".into(),
        (f, DType::I32) if f.is_float() => "if (is_nan(x)) { return 0; }
    if (x >= 2147483648.0) { return 2147483647; }
    if (x <= -2147483648.0) { return -2147483647 - 1; }
    return i32(x);"
            .into(),
        (f, _) if f.is_float() => "if (is_nan(x) || x <= 0.0) { return 0u; }
    if (x >= 4294967296.0) { return 4294967295u; }
    return u32(x);"
            .into(),
        // Integer to float: high and low halves are exact in f32, so their sum is
        // rounded once (to nearest even), as the CPU's `as`.
        (DType::U32, DType::I32) => "return bitcast<i32>(x);".into(),
        (DType::I32, DType::U32) => "return bitcast<u32>(x);".into(),
        (DType::I32, _) => "return f32(x >> 16u) * 65536.0 + f32(x & 0xffff);".into(),
        _ => "return f32(x >> 16u) * 65536.0 + f32(x & 0xffffu);".into(),
    };
    format!("fn op(x: {a}) -> {b} {{\n    {body}\n}}")
}

impl<T: DeviceElement, D: Dimension> DeviceTensor<T, D> {
    /// The elements converted to `U` with the CPU's [`cast`](crate::TensorBase::cast)
    /// rules, as a new row-major tensor. `Err` if the device cannot allocate it or
    /// lacks `f16`.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![-3.9f32, f32::NAN, 1e10], [3]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.cast::<i32>().unwrap().to_host().unwrap().to_vec(), vec![-3, 0, i32::MAX]);
    /// assert_eq!(g.cast::<bool>().unwrap().to_host().unwrap().to_vec(), vec![true, true, true]);
    /// ```
    pub fn cast<U: DeviceElement>(&self) -> Result<DeviceTensor<U, D>> {
        super::transfer::check_dtype::<U>(self.device(), "cast", self.shape())?;
        let body = cast_body(T::DTYPE, U::DTYPE);
        let out = map::<U>("cast", self.shape(), &[Operand::of(self)], &body, self.device())?;
        out.into_dim()
    }

    /// A row-major copy on the device (bit-exact; the CPU's `to_contiguous`). `Err` if
    /// the device cannot allocate it.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap().to_device(&dev).unwrap();
    /// let c = g.t().to_contiguous().unwrap();
    /// assert!(c.is_contiguous());
    /// assert_eq!(c.to_host().unwrap().to_vec(), vec![1, 4, 2, 5, 3, 6]);
    /// ```
    pub fn to_contiguous(&self) -> Result<DeviceTensor<T, D>> {
        // Copy the stored bits: no float conversion on the way.
        let ty = super::map::raw_type(T::DTYPE);
        let body = format!("fn op(x: {ty}) -> {ty} {{ return x; }}");
        let src = [Operand::raw(self)];
        let out = super::map::map_as::<T>("to_contiguous", self.shape(), &src, &body, self.device(), ty, "")?;
        out.into_dim()
    }
}
