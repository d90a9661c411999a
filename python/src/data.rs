//! [`Data`]: an array of run-time element type, one variant per dtype of the array API
//! standard, each a shared (`Arc`) tensor of dynamic rank so that views share memory.
//! The macros here turn a `Data` into typed code: one arm per dtype of a category.

use ferrotensor::io::DType;
use ferrotensor::ops::Castable;
use ferrotensor::ops::cast::Wide;
use ferrotensor::{Dimension, IxDyn, Tensor, TensorArc};
use num_complex::Complex;

/// `complex64`'s element.
pub type C32 = Complex<f32>;
/// `complex128`'s element.
pub type C64 = Complex<f64>;

/// An array of any of the standard's 13 dtypes.
#[derive(Clone)]
pub enum Data {
    Bool(TensorArc<bool, IxDyn>),
    I8(TensorArc<i8, IxDyn>),
    I16(TensorArc<i16, IxDyn>),
    I32(TensorArc<i32, IxDyn>),
    I64(TensorArc<i64, IxDyn>),
    U8(TensorArc<u8, IxDyn>),
    U16(TensorArc<u16, IxDyn>),
    U32(TensorArc<u32, IxDyn>),
    U64(TensorArc<u64, IxDyn>),
    F32(TensorArc<f32, IxDyn>),
    F64(TensorArc<f64, IxDyn>),
    C64(TensorArc<C32, IxDyn>),
    C128(TensorArc<C64, IxDyn>),
}

/// Matches a [`Data`] against the listed variants, binding the tensor as `$t`; anything
/// else goes to `$other`.
#[macro_export]
macro_rules! match_data {
    ($d:expr; $($v:ident)|+; $t:ident => $body:expr; $o:pat => $other:expr) => {
        match $d {
            $($crate::data::Data::$v($t) => $body,)+
            #[allow(unreachable_patterns)]
            $o => $other,
        }
    };
}

/// Every dtype.
#[macro_export]
macro_rules! each_all {
    ($d:expr, $t:ident => $body:expr) => {
        match $d {
            $crate::data::Data::Bool($t) => $body,
            $crate::data::Data::I8($t) => $body,
            $crate::data::Data::I16($t) => $body,
            $crate::data::Data::I32($t) => $body,
            $crate::data::Data::I64($t) => $body,
            $crate::data::Data::U8($t) => $body,
            $crate::data::Data::U16($t) => $body,
            $crate::data::Data::U32($t) => $body,
            $crate::data::Data::U64($t) => $body,
            $crate::data::Data::F32($t) => $body,
            $crate::data::Data::F64($t) => $body,
            $crate::data::Data::C64($t) => $body,
            $crate::data::Data::C128($t) => $body,
        }
    };
}

/// Integers and real floats.
#[macro_export]
macro_rules! each_real {
    ($d:expr, $t:ident => $body:expr, $o:pat => $other:expr) => {
        $crate::match_data!($d; I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F32 | F64; $t => $body; $o => $other)
    };
}

/// Integers, real and complex floats.
#[macro_export]
macro_rules! each_num {
    ($d:expr, $t:ident => $body:expr, $o:pat => $other:expr) => {
        $crate::match_data!($d; I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F32 | F64 | C64 | C128; $t => $body; $o => $other)
    };
}

/// Integers.
#[macro_export]
macro_rules! each_int {
    ($d:expr, $t:ident => $body:expr, $o:pat => $other:expr) => {
        $crate::match_data!($d; I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64; $t => $body; $o => $other)
    };
}

/// Integers and bool.
#[macro_export]
macro_rules! each_int_bool {
    ($d:expr, $t:ident => $body:expr, $o:pat => $other:expr) => {
        $crate::match_data!($d; Bool | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64; $t => $body; $o => $other)
    };
}

/// Real floats.
#[macro_export]
macro_rules! each_float {
    ($d:expr, $t:ident => $body:expr, $o:pat => $other:expr) => {
        $crate::match_data!($d; F32 | F64; $t => $body; $o => $other)
    };
}

/// Complex floats.
#[macro_export]
macro_rules! each_complex {
    ($d:expr, $t:ident => $body:expr, $o:pat => $other:expr) => {
        $crate::match_data!($d; C64 | C128; $t => $body; $o => $other)
    };
}

/// Two arrays of one dtype (any of the 13), bound as `$x` and `$y`.
#[macro_export]
macro_rules! pair_same {
    ($a:expr, $b:expr, $x:ident, $y:ident => $body:expr) => {
        match ($a, $b) {
            ($crate::data::Data::Bool($x), $crate::data::Data::Bool($y)) => $body,
            ($crate::data::Data::I8($x), $crate::data::Data::I8($y)) => $body,
            ($crate::data::Data::I16($x), $crate::data::Data::I16($y)) => $body,
            ($crate::data::Data::I32($x), $crate::data::Data::I32($y)) => $body,
            ($crate::data::Data::I64($x), $crate::data::Data::I64($y)) => $body,
            ($crate::data::Data::U8($x), $crate::data::Data::U8($y)) => $body,
            ($crate::data::Data::U16($x), $crate::data::Data::U16($y)) => $body,
            ($crate::data::Data::U32($x), $crate::data::Data::U32($y)) => $body,
            ($crate::data::Data::U64($x), $crate::data::Data::U64($y)) => $body,
            ($crate::data::Data::F32($x), $crate::data::Data::F32($y)) => $body,
            ($crate::data::Data::F64($x), $crate::data::Data::F64($y)) => $body,
            ($crate::data::Data::C64($x), $crate::data::Data::C64($y)) => $body,
            ($crate::data::Data::C128($x), $crate::data::Data::C128($y)) => $body,
            _ => unreachable!("operands of one dtype"),
        }
    };
}

/// Two arrays of one dtype among the listed variants; anything else goes to `$err`.
#[macro_export]
macro_rules! pair_of {
    ($a:expr, $b:expr; $($v:ident)|+; $x:ident, $y:ident => $body:expr; $err:expr) => {
        match ($a, $b) {
            $(($crate::data::Data::$v($x), $crate::data::Data::$v($y)) => $body,)+
            #[allow(unreachable_patterns)]
            _ => $err,
        }
    };
}

/// Runs `$body` with `$t` bound to the Rust element type of the [`DType`] `$dt`
/// (one of the standard's 13; others go to `$other`).
#[macro_export]
macro_rules! with_type {
    ($dt:expr, $t:ident => $body:expr, $other:expr) => {{
        use ferrotensor::io::DType as __D;
        match $dt {
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
            __D::F32 => {
                type $t = f32;
                $body
            }
            __D::F64 => {
                type $t = f64;
                $body
            }
            __D::C64 => {
                type $t = $crate::data::C32;
                $body
            }
            __D::C128 => {
                type $t = $crate::data::C64;
                $body
            }
            #[allow(unreachable_patterns)]
            _ => $other,
        }
    }};
}

/// The element types of [`Data`]: each knows its dtype and its variant.
pub trait Elem: ferrotensor::Element + Castable {
    /// Wraps a shared tensor in its variant.
    fn wrap(t: TensorArc<Self, IxDyn>) -> Data;
    /// The tensor, if `d` holds this element type.
    fn peel(d: &Data) -> Option<&TensorArc<Self, IxDyn>>;
}

macro_rules! impl_elem {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl Elem for $t {
            #[inline]
            fn wrap(t: TensorArc<Self, IxDyn>) -> Data { Data::$v(t) }
            #[inline]
            fn peel(d: &Data) -> Option<&TensorArc<Self, IxDyn>> {
                match d { Data::$v(t) => Some(t), _ => None }
            }
        }
    )*};
}
impl_elem!(
    bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f32 => F32, f64 => F64, C32 => C64, C64 => C128,
);

/// Conversion of a crate result into [`Data`] (owned tensors move into an `Arc`).
pub trait IntoData {
    /// The array.
    fn into_data(self) -> Data;
}

impl<T: Elem, D: Dimension> IntoData for Tensor<T, D> {
    #[inline]
    fn into_data(self) -> Data {
        T::wrap(self.into_dyn().into_shared())
    }
}

impl<T: Elem, D: Dimension> IntoData for TensorArc<T, D> {
    #[inline]
    fn into_data(self) -> Data {
        T::wrap(self.into_dyn())
    }
}

impl<D: Dimension> IntoData for Tensor<usize, D> {
    /// Indices (`usize`) become `int64`, the standard's index dtype.
    #[inline]
    fn into_data(self) -> Data {
        Data::I64(self.cast::<i64>().into_dyn().into_shared())
    }
}

impl Data {
    /// The dtype.
    pub fn dtype(&self) -> DType {
        match self {
            Data::Bool(_) => DType::Bool,
            Data::I8(_) => DType::I8,
            Data::I16(_) => DType::I16,
            Data::I32(_) => DType::I32,
            Data::I64(_) => DType::I64,
            Data::U8(_) => DType::U8,
            Data::U16(_) => DType::U16,
            Data::U32(_) => DType::U32,
            Data::U64(_) => DType::U64,
            Data::F32(_) => DType::F32,
            Data::F64(_) => DType::F64,
            Data::C64(_) => DType::C64,
            Data::C128(_) => DType::C128,
        }
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        each_all!(self, t => t.shape())
    }

    /// The strides in elements.
    pub fn strides(&self) -> &[isize] {
        each_all!(self, t => t.strides())
    }

    /// The number of axes.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// The number of elements.
    pub fn size(&self) -> usize {
        self.shape().iter().product()
    }

    /// The elements converted to `dt` by NumPy's (unsafe) casting rules; the same array
    /// (shared, no copy) when `dt` is already its dtype.
    pub fn astype(&self, dt: DType) -> Data {
        if dt == self.dtype() {
            return self.clone();
        }
        with_type!(dt, U => each_all!(self, t => t.cast::<U>().into_data()), unreachable!("standard dtypes only"))
    }

    /// A row-major copy in new memory.
    pub fn copy(&self) -> Data {
        each_all!(self, t => t.to_owned().into_data())
    }

    /// The elements in row-major order in their widest form.
    pub fn wide_values(&self) -> Vec<Wide> {
        each_all!(self, t => t.iter().map(|x| x.to_wide()).collect())
    }

    /// The single element of a one-element array in its widest form.
    pub fn wide_item(&self) -> Option<Wide> {
        if self.size() != 1 {
            return None;
        }
        each_all!(self, t => t.iter().next().map(|x| x.to_wide()))
    }

    /// A shared view of the same memory through a view operation.
    pub fn share<F>(&self, f: &F) -> ferrotensor::Result<Data>
    where
        F: ViewFn,
    {
        each_all!(self, t => t.share_view(|v| f.apply(v)).map(IntoData::into_data))
    }

    /// True if no other array shares this memory.
    pub fn is_unique(&self) -> bool {
        each_all!(self, t => t.is_unique())
    }
}

/// A view operation that works for every element type (a generic closure).
pub trait ViewFn {
    /// Applies the operation to one view.
    fn apply<'a, T: ferrotensor::Element>(
        &self,
        v: ferrotensor::TensorView<'a, T, IxDyn>,
    ) -> ferrotensor::Result<ferrotensor::TensorView<'a, T, IxDyn>>;
}

/// A 0-d array of dtype `dt` holding `w` converted by the casting rules.
pub fn scalar_data(w: Wide, dt: DType) -> Data {
    with_type!(dt, T => Tensor::scalar(T::from_wide(w)).into_data(), unreachable!("standard dtypes only"))
}

/// An array of dtype `dt` and shape `shape` from row-major wide values.
pub fn data_from_wides(values: &[Wide], shape: Vec<usize>, dt: DType) -> ferrotensor::Result<Data> {
    with_type!(
        dt,
        T => Tensor::from_vec(values.iter().map(|&w| T::from_wide(w)).collect::<Vec<T>>(), shape).map(IntoData::into_data),
        unreachable!("standard dtypes only")
    )
}
