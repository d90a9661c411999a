//! [`DynTensor`]: a tensor whose element type is known only at run time, as when a
//! file is loaded without knowing what it holds.

use super::dtype::{DType, IoElement};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use half::{bf16, f16};
use num_complex::Complex;

/// An owned tensor of dynamic rank with one variant per element type.
///
/// Convert to a typed tensor with `try_into` (or [`TryFrom`]); the element type must
/// match exactly (no casting) and, for a fixed-rank target, the rank too. Converting
/// never copies.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::{DType, DynTensor};
/// let d = DynTensor::from(Tensor::<f32, _>::ones([2, 3]));
/// assert_eq!(d.dtype(), DType::F32);
/// assert_eq!(d.shape(), &[2, 3]);
/// let t: Tensor<f32, Ix2> = d.clone().try_into().unwrap();
/// assert_eq!(t.shape(), &[2, 3]);
/// assert!(TryInto::<Tensor<f64, Ix2>>::try_into(d).is_err());
/// ```
#[derive(Clone)]
#[allow(missing_docs)]
pub enum DynTensor {
    Bool(Tensor<bool, IxDyn>),
    I8(Tensor<i8, IxDyn>),
    I16(Tensor<i16, IxDyn>),
    I32(Tensor<i32, IxDyn>),
    I64(Tensor<i64, IxDyn>),
    U8(Tensor<u8, IxDyn>),
    U16(Tensor<u16, IxDyn>),
    U32(Tensor<u32, IxDyn>),
    U64(Tensor<u64, IxDyn>),
    F16(Tensor<f16, IxDyn>),
    BF16(Tensor<bf16, IxDyn>),
    F32(Tensor<f32, IxDyn>),
    F64(Tensor<f64, IxDyn>),
    C64(Tensor<Complex<f32>, IxDyn>),
    C128(Tensor<Complex<f64>, IxDyn>),
}

/// Applies `$body` to the tensor inside any variant, bound as `$t`.
macro_rules! each_variant {
    ($value:expr, $t:ident => $body:expr) => {
        match $value {
            DynTensor::Bool($t) => $body,
            DynTensor::I8($t) => $body,
            DynTensor::I16($t) => $body,
            DynTensor::I32($t) => $body,
            DynTensor::I64($t) => $body,
            DynTensor::U8($t) => $body,
            DynTensor::U16($t) => $body,
            DynTensor::U32($t) => $body,
            DynTensor::U64($t) => $body,
            DynTensor::F16($t) => $body,
            DynTensor::BF16($t) => $body,
            DynTensor::F32($t) => $body,
            DynTensor::F64($t) => $body,
            DynTensor::C64($t) => $body,
            DynTensor::C128($t) => $body,
        }
    };
}
pub(crate) use each_variant;

impl DynTensor {
    /// The element type.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::io::{DType, DynTensor};
    /// assert_eq!(DynTensor::from(Tensor::<u8, _>::zeros([1])).dtype(), DType::U8);
    /// ```
    pub fn dtype(&self) -> DType {
        match self {
            DynTensor::Bool(_) => DType::Bool,
            DynTensor::I8(_) => DType::I8,
            DynTensor::I16(_) => DType::I16,
            DynTensor::I32(_) => DType::I32,
            DynTensor::I64(_) => DType::I64,
            DynTensor::U8(_) => DType::U8,
            DynTensor::U16(_) => DType::U16,
            DynTensor::U32(_) => DType::U32,
            DynTensor::U64(_) => DType::U64,
            DynTensor::F16(_) => DType::F16,
            DynTensor::BF16(_) => DType::BF16,
            DynTensor::F32(_) => DType::F32,
            DynTensor::F64(_) => DType::F64,
            DynTensor::C64(_) => DType::C64,
            DynTensor::C128(_) => DType::C128,
        }
    }

    /// The lengths of the axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::io::DynTensor;
    /// assert_eq!(DynTensor::from(Tensor::<i64, _>::zeros([4, 0])).shape(), &[4, 0]);
    /// ```
    pub fn shape(&self) -> &[usize] {
        each_variant!(self, t => t.shape())
    }

    /// Number of elements.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::io::DynTensor;
    /// assert_eq!(DynTensor::from(Tensor::<i64, _>::zeros([4, 2])).size(), 8);
    /// ```
    pub fn size(&self) -> usize {
        each_variant!(self, t => t.size())
    }

    /// Converts into a typed tensor of dynamic rank, or gives `self` back when the
    /// element type differs. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::io::DynTensor;
    /// let d = DynTensor::from(Tensor::from_vec(vec![1i32, 2], [2]).unwrap());
    /// let d = d.into_typed::<i64>().unwrap_err();       // wrong type: handed back
    /// assert_eq!(d.into_typed::<i32>().unwrap().to_vec(), vec![1, 2]);
    /// ```
    #[allow(clippy::result_large_err)] // hands the value back unboxed, like `Any::downcast`
    pub fn into_typed<T: IoElement>(self) -> std::result::Result<Tensor<T, IxDyn>, DynTensor> {
        T::from_dyn_tensor(self)
    }
}

impl std::fmt::Debug for DynTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DynTensor {{ dtype: {}, shape: {} }}",
            self.dtype(),
            fmt_shape(self.shape())
        )
    }
}

impl<T: IoElement, D: Dimension> TryFrom<DynTensor> for Tensor<T, D> {
    type Error = Error;
    /// Converts to the typed tensor; `Err` if the element type or the rank differs.
    fn try_from(d: DynTensor) -> Result<Self> {
        let found = d.dtype();
        match d.into_typed::<T>() {
            Ok(t) => {
                let shape = fmt_shape(t.shape());
                t.into_dim::<D>().map_err(|_| {
                    Error::shape(
                        "DynTensor::try_into",
                        format!(
                            "tensor of shape {shape} does not have rank {}",
                            D::NDIM.map_or("dynamic".into(), |n| n.to_string())
                        ),
                    )
                })
            }
            Err(_) => Err(Error::value(
                "DynTensor::try_into",
                format!("tensor has dtype {found}, expected {}", T::DTYPE),
            )),
        }
    }
}

impl<T: IoElement, S: Storage<Elem = T>, D: Dimension> From<TensorBase<S, D>> for DynTensor {
    /// Wraps a tensor; owned tensors move without copying, other kinds are copied.
    fn from(t: TensorBase<S, D>) -> Self {
        T::into_dyn_tensor(t.into_owned().into_dyn())
    }
}
