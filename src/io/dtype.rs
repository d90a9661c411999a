//! Element types as files see them: [`DType`] names the type of a stored tensor, and
//! [`IoElement`] converts between tensor elements and the bytes of a file.
//!
//! ```
//! use ferrotensor::io::{DType, IoElement};
//! assert_eq!(<f32 as IoElement>::DTYPE, DType::F32);
//! assert_eq!(DType::F32.size(), 4);
//! assert_eq!(DType::C64.name(), "complex64");
//! ```

use super::DynTensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::IxDyn;
use crate::storage::alloc::try_filled;
use crate::tensor::Tensor;
use half::{bf16, f16};
use num_complex::Complex;

/// The element type of a tensor stored in a file.
///
/// ```
/// use ferrotensor::io::DType;
/// assert_eq!(DType::BF16.size(), 2);
/// assert_eq!(DType::Bool.name(), "bool");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool` (one byte, 0 or 1).
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `half::f16`.
    F16,
    /// `half::bf16`.
    BF16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `Complex<f32>`.
    C64,
    /// `Complex<f64>`.
    C128,
}

impl DType {
    /// Every dtype, in declaration order.
    ///
    /// ```
    /// assert_eq!(ferrotensor::io::DType::ALL.len(), 15);
    /// ```
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ];

    /// Size of one element in bytes.
    ///
    /// ```
    /// assert_eq!(ferrotensor::io::DType::C128.size(), 16);
    /// ```
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// Size in bytes of the scalar parts that byte order applies to (half the size for
    /// complex numbers, else the size).
    ///
    /// ```
    /// assert_eq!(ferrotensor::io::DType::C64.scalar_size(), 4);
    /// ```
    pub fn scalar_size(self) -> usize {
        match self {
            DType::C64 | DType::C128 => self.size() / 2,
            _ => self.size(),
        }
    }

    /// NumPy's name (the same as [`Element::NAME`] of the matching Rust type).
    ///
    /// ```
    /// assert_eq!(ferrotensor::io::DType::U16.name(), "uint16");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => bool::NAME,
            DType::I8 => i8::NAME,
            DType::I16 => i16::NAME,
            DType::I32 => i32::NAME,
            DType::I64 => i64::NAME,
            DType::U8 => u8::NAME,
            DType::U16 => u16::NAME,
            DType::U32 => u32::NAME,
            DType::U64 => u64::NAME,
            DType::F16 => f16::NAME,
            DType::BF16 => bf16::NAME,
            DType::F32 => f32::NAME,
            DType::F64 => f64::NAME,
            DType::C64 => Complex::<f32>::NAME,
            DType::C128 => Complex::<f64>::NAME,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Runs `$body` with the type alias `$t` bound to the Rust element type of `$dtype`.
macro_rules! with_dtype {
    ($dtype:expr, $t:ident => $body:expr) => {{
        use $crate::io::DType as __D;
        match $dtype {
            __D::Bool => {
                type $t = bool;
                $body
            }
            __D::I8 => {
                type $t = i8;
                $body
            }
            __D::I16 => {
                type $t = i16;
                $body
            }
            __D::I32 => {
                type $t = i32;
                $body
            }
            __D::I64 => {
                type $t = i64;
                $body
            }
            __D::U8 => {
                type $t = u8;
                $body
            }
            __D::U16 => {
                type $t = u16;
                $body
            }
            __D::U32 => {
                type $t = u32;
                $body
            }
            __D::U64 => {
                type $t = u64;
                $body
            }
            __D::F16 => {
                type $t = half::f16;
                $body
            }
            __D::BF16 => {
                type $t = half::bf16;
                $body
            }
            __D::F32 => {
                type $t = f32;
                $body
            }
            __D::F64 => {
                type $t = f64;
                $body
            }
            __D::C64 => {
                type $t = num_complex::Complex<f32>;
                $body
            }
            __D::C128 => {
                type $t = num_complex::Complex<f64>;
                $body
            }
        }
    }};
}
pub(crate) use with_dtype;

mod sealed {
    pub trait Sealed {}
}

/// Element types that files can store: bool, the integers `i8`…`i64` and `u8`…`u64`,
/// `f16`, `bf16`, `f32`, `f64`, `Complex<f32>` and `Complex<f64>`. Sealed.
///
/// Conversions are safe byte copies (`bytemuck`): decoding checks lengths, bool bytes
/// other than 0 and 1 decode as `true`, and zero-copy casts check alignment.
///
/// ```
/// use ferrotensor::io::IoElement;
/// let v = <i16 as IoElement>::decode(&[1, 0, 0, 1], false, "demo").unwrap();
/// assert_eq!(v, vec![1, 256]);
/// let v = <i16 as IoElement>::decode(&[1, 0, 0, 1], true, "demo").unwrap();
/// assert_eq!(v, vec![256, 1]);
/// ```
pub trait IoElement: Element + sealed::Sealed {
    /// The dtype of this type.
    const DTYPE: DType;

    /// Decodes `bytes` (a whole number of elements) into elements, reversing the byte
    /// order of each scalar part when `swap` is true; `Err` naming `op` if the length is
    /// not a multiple of the element size.
    fn decode(bytes: &[u8], swap: bool, op: &'static str) -> Result<Vec<Self>>;

    /// Reinterprets bytes in native byte order as elements without copying; `None` if
    /// `bytes` is misaligned for `Self`, its length is not a multiple of the element size,
    /// or (for bool) a byte is neither 0 nor 1.
    fn cast_bytes(bytes: &[u8]) -> Option<&[Self]>;

    /// The elements' bytes in native byte order, without copying.
    fn as_bytes(elems: &[Self]) -> &[u8];

    /// Reads `n` elements from `r`, reversing the byte order of each scalar part when
    /// `swap` is true. Allocates `n` elements first: callers check that the source
    /// holds that many bytes.
    fn read_from<R: std::io::Read + ?Sized>(r: &mut R, n: usize, swap: bool) -> std::io::Result<Vec<Self>>;

    /// Wraps a tensor in its [`DynTensor`] variant.
    fn into_dyn_tensor(t: Tensor<Self, IxDyn>) -> DynTensor;

    /// Unwraps a [`DynTensor`] of this element type, or gives it back.
    #[allow(clippy::result_large_err)] // hands the value back unboxed, like `Any::downcast`
    fn from_dyn_tensor(d: DynTensor) -> std::result::Result<Tensor<Self, IxDyn>, DynTensor>;
}

fn check_len(len: usize, size: usize, op: &'static str) -> Result<usize> {
    if !len.is_multiple_of(size) {
        return Err(Error::io(
            op,
            format!("{len} data bytes are not a whole number of {size}-byte elements"),
        ));
    }
    Ok(len / size)
}

/// An allocation failure as an `io::Error` of kind `OutOfMemory` (readers turn it back
/// into [`Error::Alloc`](crate::Error::Alloc)).
fn out_of_memory(e: Error) -> std::io::Error {
    let msg = match e {
        Error::Alloc { msg, .. } => msg,
        other => other.to_string(),
    };
    std::io::Error::new(std::io::ErrorKind::OutOfMemory, msg)
}

/// Reverses the byte order of each `scalar`-byte group of `bytes`.
pub(crate) fn swap_bytes(bytes: &mut [u8], scalar: usize) {
    if scalar > 1 {
        for chunk in bytes.chunks_exact_mut(scalar) {
            chunk.reverse();
        }
    }
}

macro_rules! impl_pod {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl IoElement for $t {
            const DTYPE: DType = DType::$d;
            fn decode(bytes: &[u8], swap: bool, op: &'static str) -> Result<Vec<Self>> {
                let n = check_len(bytes.len(), DType::$d.size(), op)?;
                let mut v: Vec<$t> = try_filled(n, <$t>::default(), &[n], op)?;
                let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
                dst.copy_from_slice(bytes);
                if swap {
                    swap_bytes(dst, DType::$d.scalar_size());
                }
                Ok(v)
            }
            fn read_from<R: std::io::Read + ?Sized>(r: &mut R, n: usize, swap: bool) -> std::io::Result<Vec<Self>> {
                let mut v: Vec<$t> = try_filled(n, <$t>::default(), &[n], "read").map_err(out_of_memory)?;
                let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
                r.read_exact(dst)?;
                if swap {
                    swap_bytes(dst, DType::$d.scalar_size());
                }
                Ok(v)
            }
            fn cast_bytes(bytes: &[u8]) -> Option<&[Self]> {
                bytemuck::try_cast_slice(bytes).ok()
            }
            fn as_bytes(elems: &[Self]) -> &[u8] {
                bytemuck::cast_slice(elems)
            }
            fn into_dyn_tensor(t: Tensor<Self, IxDyn>) -> DynTensor {
                DynTensor::$d(t)
            }
            fn from_dyn_tensor(d: DynTensor) -> std::result::Result<Tensor<Self, IxDyn>, DynTensor> {
                match d {
                    DynTensor::$d(t) => Ok(t),
                    other => Err(other),
                }
            }
        }
    )*};
}
impl_pod!(
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f16 => F16, bf16 => BF16, f32 => F32, f64 => F64,
    Complex<f32> => C64, Complex<f64> => C128,
);

impl sealed::Sealed for bool {}
impl IoElement for bool {
    const DTYPE: DType = DType::Bool;
    fn decode(bytes: &[u8], _swap: bool, _op: &'static str) -> Result<Vec<Self>> {
        Ok(bytes.iter().map(|&b| b != 0).collect())
    }
    fn read_from<R: std::io::Read + ?Sized>(r: &mut R, n: usize, _swap: bool) -> std::io::Result<Vec<Self>> {
        let mut v: Vec<u8> = try_filled(n, 0, &[n], "read").map_err(out_of_memory)?;
        r.read_exact(&mut v)?;
        Ok(v.into_iter().map(|b| b != 0).collect())
    }
    fn cast_bytes(bytes: &[u8]) -> Option<&[Self]> {
        bytemuck::checked::try_cast_slice(bytes).ok()
    }
    fn as_bytes(elems: &[Self]) -> &[u8] {
        bytemuck::cast_slice(elems)
    }
    fn into_dyn_tensor(t: Tensor<Self, IxDyn>) -> DynTensor {
        DynTensor::Bool(t)
    }
    fn from_dyn_tensor(d: DynTensor) -> std::result::Result<Tensor<Self, IxDyn>, DynTensor> {
        match d {
            DynTensor::Bool(t) => Ok(t),
            other => Err(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_swaps_complex_parts_separately() {
        let le: Vec<u8> = [1.0f32.to_le_bytes(), 2.0f32.to_le_bytes()].concat();
        let be: Vec<u8> = [1.0f32.to_be_bytes(), 2.0f32.to_be_bytes()].concat();
        let swap_be = cfg!(target_endian = "little");
        assert_eq!(
            Complex::<f32>::decode(&be, swap_be, "t").unwrap(),
            vec![Complex::new(1.0, 2.0)]
        );
        assert_eq!(
            Complex::<f32>::decode(&le, !swap_be, "t").unwrap(),
            vec![Complex::new(1.0, 2.0)]
        );
    }

    #[test]
    fn decode_rejects_partial_elements() {
        assert!(f64::decode(&[0; 9], false, "t").is_err());
        assert!(f64::decode(&[0; 16], false, "t").is_ok());
    }

    #[test]
    fn bool_cast_checks_values() {
        assert_eq!(bool::cast_bytes(&[0, 1]), Some(&[false, true][..]));
        assert_eq!(bool::cast_bytes(&[0, 2]), None);
        assert_eq!(bool::decode(&[0, 2], false, "t").unwrap(), vec![false, true]);
    }

    #[test]
    fn cast_checks_alignment() {
        let v = vec![0u32; 4];
        let bytes: &[u8] = bytemuck::cast_slice(&v);
        assert!(f32::cast_bytes(&bytes[..8]).is_some());
        assert!(f32::cast_bytes(&bytes[1..9]).is_none());
    }
}
