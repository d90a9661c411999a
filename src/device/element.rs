//! The element types a device holds (`f32`, `f16`, `i32`, `u32`, `bool`) and how their
//! bytes cross between host and device.
//!
//! WGSL has no 1-byte type, so `bool` lives on the device as one `u32` (0 or 1) per
//! element and is converted on each transfer; every other type keeps its host bytes.

use crate::element::{Element, Float, Num};

use half::f16;
use std::borrow::Cow;

/// The element type of a device tensor as the kernels see it.
///
/// ```
/// use ferrotensor::device::{DType, DeviceElement};
/// assert_eq!(f32::DTYPE, DType::F32);
/// assert_eq!(DType::F16.wgsl(), "f16");
/// assert_eq!(DType::Bool.device_size(), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// 32-bit float.
    F32,
    /// 16-bit float (needs the adapter's `SHADER_F16` feature).
    F16,
    /// 32-bit signed integer.
    I32,
    /// 32-bit unsigned integer.
    U32,
    /// Boolean, stored as one `u32` per element.
    Bool,
}

impl DType {
    /// The Rust name of the type (`"f32"`, `"bool"`, …), used in error messages.
    ///
    /// ```
    /// assert_eq!(ferrotensor::device::DType::I32.name(), "i32");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::Bool => "bool",
        }
    }

    /// The WGSL type that stores one element.
    ///
    /// ```
    /// assert_eq!(ferrotensor::device::DType::Bool.wgsl(), "u32");
    /// ```
    pub fn wgsl(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::I32 => "i32",
            DType::U32 | DType::Bool => "u32",
        }
    }

    /// Bytes per element in device memory.
    ///
    /// ```
    /// assert_eq!(ferrotensor::device::DType::F16.device_size(), 2);
    /// ```
    pub fn device_size(self) -> usize {
        match self {
            DType::F16 => 2,
            _ => 4,
        }
    }

    /// True for `f32` and `f16`.
    ///
    /// ```
    /// assert!(ferrotensor::device::DType::F16.is_float());
    /// ```
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for half::f16 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for bool {}
}

/// An element type that can live on a device. Sealed: `f32`, `f16`, `i32`, `u32`,
/// `bool`.
///
/// ```
/// use ferrotensor::device::DeviceElement;
/// let bytes = bool::to_device_bytes(&[true, false]);
/// assert_eq!(bytes.len(), 8);
/// assert_eq!(bool::from_device_bytes(&bytes), vec![true, false]);
/// ```
pub trait DeviceElement: Element + sealed::Sealed {
    /// The kernels' name for the type.
    const DTYPE: DType;
    /// The device bytes of `src` (borrowed when they equal the host bytes).
    fn to_device_bytes(src: &[Self]) -> Cow<'_, [u8]>;
    /// Elements from device bytes (`bytes.len()` a multiple of the device size).
    fn from_device_bytes(bytes: &[u8]) -> Vec<Self>;
}

macro_rules! pod_element {
    ($($t:ty => $d:ident),*) => {$(
        impl DeviceElement for $t {
            const DTYPE: DType = DType::$d;
            fn to_device_bytes(src: &[Self]) -> Cow<'_, [u8]> {
                Cow::Borrowed(bytemuck::cast_slice(src))
            }
            fn from_device_bytes(bytes: &[u8]) -> Vec<Self> {
                // The mapped range may not be aligned for `Self`: copy bytewise.
                let n = bytes.len() / std::mem::size_of::<$t>();
                let mut out = vec![<$t>::default(); n];
                bytemuck::cast_slice_mut::<$t, u8>(&mut out).copy_from_slice(&bytes[..n * std::mem::size_of::<$t>()]);
                out
            }
        }
    )*};
}
pod_element!(f32 => F32, f16 => F16, i32 => I32, u32 => U32);

impl DeviceElement for bool {
    const DTYPE: DType = DType::Bool;
    fn to_device_bytes(src: &[Self]) -> Cow<'_, [u8]> {
        Cow::Owned(src.iter().flat_map(|&b| (b as u32).to_ne_bytes()).collect())
    }
    fn from_device_bytes(bytes: &[u8]) -> Vec<Self> {
        bytes.chunks_exact(4).map(|w| w != [0, 0, 0, 0]).collect()
    }
}

/// Device element types with arithmetic: `f32`, `f16`, `i32`, `u32`.
///
/// ```
/// fn double<T: ferrotensor::device::DeviceNum>(x: T) -> T { x + x }
/// assert_eq!(double(3i32), 6);
/// ```
pub trait DeviceNum: DeviceElement + Num + crate::ops::Real {}
impl DeviceNum for f32 {}
impl DeviceNum for f16 {}
impl DeviceNum for i32 {}
impl DeviceNum for u32 {}

/// Device element types with float math (`exp`, `softmax`, …): `f32`, `f16`.
///
/// ```
/// fn half_of<T: ferrotensor::device::DeviceFloat>(x: T) -> T { x / (T::one() + T::one()) }
/// assert_eq!(half_of(3.0f32), 1.5);
/// ```
pub trait DeviceFloat: DeviceNum + Float {}
impl DeviceFloat for f32 {}
impl DeviceFloat for f16 {}
