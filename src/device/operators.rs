//! Operators on device tensors: `+ - * /` between tensors (owned or borrowed, NumPy
//! broadcasting) and with scalars on either side, and unary `-`. Like the CPU's, they
//! panic with the `try_` twin's message.

use super::element::DeviceNum;
use super::tensor::DeviceTensor;
use crate::layout::Dimension;
use crate::ops::DimMax;
use half::f16;
use std::ops::{Add, Div, Mul, Neg, Sub};

macro_rules! operator {
    ($Trait:ident $method:ident $try_name:ident) => {
        impl<'b, T: DeviceNum, D1: DimMax<D2>, D2: Dimension> $Trait<&'b DeviceTensor<T, D2>> for &DeviceTensor<T, D1> {
            type Output = DeviceTensor<T, D1::Output>;
            #[track_caller]
            fn $method(self, rhs: &'b DeviceTensor<T, D2>) -> Self::Output {
                self.$try_name(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<'b, T: DeviceNum, D1: DimMax<D2>, D2: Dimension> $Trait<&'b DeviceTensor<T, D2>> for DeviceTensor<T, D1> {
            type Output = DeviceTensor<T, D1::Output>;
            #[track_caller]
            fn $method(self, rhs: &'b DeviceTensor<T, D2>) -> Self::Output {
                self.$try_name(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<T: DeviceNum, D1: DimMax<D2>, D2: Dimension> $Trait<DeviceTensor<T, D2>> for &DeviceTensor<T, D1> {
            type Output = DeviceTensor<T, D1::Output>;
            #[track_caller]
            fn $method(self, rhs: DeviceTensor<T, D2>) -> Self::Output {
                self.$try_name(&rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<T: DeviceNum, D1: DimMax<D2>, D2: Dimension> $Trait<DeviceTensor<T, D2>> for DeviceTensor<T, D1> {
            type Output = DeviceTensor<T, D1::Output>;
            #[track_caller]
            fn $method(self, rhs: DeviceTensor<T, D2>) -> Self::Output {
                self.$try_name(&rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        operator!(@scalars $Trait $method $try_name; f32, f16, i32, u32);
    };
    (@scalars $Trait:ident $method:ident $try_name:ident; $($t:ty),*) => {$(
        impl<D: Dimension> $Trait<$t> for &DeviceTensor<$t, D> {
            type Output = DeviceTensor<$t, D>;
            #[track_caller]
            fn $method(self, rhs: $t) -> Self::Output {
                self.$try_name(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<D: Dimension> $Trait<$t> for DeviceTensor<$t, D> {
            type Output = DeviceTensor<$t, D>;
            #[track_caller]
            fn $method(self, rhs: $t) -> Self::Output {
                self.$try_name(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<D: Dimension> $Trait<&DeviceTensor<$t, D>> for $t {
            type Output = DeviceTensor<$t, D>;
            #[track_caller]
            fn $method(self, rhs: &DeviceTensor<$t, D>) -> Self::Output {
                scalar_left(self, rhs, stringify!($method)).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<D: Dimension> $Trait<DeviceTensor<$t, D>> for $t {
            type Output = DeviceTensor<$t, D>;
            #[track_caller]
            fn $method(self, rhs: DeviceTensor<$t, D>) -> Self::Output {
                scalar_left(self, &rhs, stringify!($method)).unwrap_or_else(|e| panic!("{e}"))
            }
        }
    )*};
}

operator!(Add add try_add);
operator!(Sub sub try_sub);
operator!(Mul mul try_mul);
operator!(Div div try_div);

/// `x op rhs` for a scalar `x`, broadcast over `rhs`.
fn scalar_left<T: DeviceNum, D: Dimension>(
    x: T,
    rhs: &DeviceTensor<T, D>,
    method: &str,
) -> crate::Result<DeviceTensor<T, D>> {
    let s = crate::tensor::Tensor::<T, crate::Ix0>::scalar(x)
        .to_device(rhs.device())?
        .into_dyn();
    let r = rhs.clone().into_dyn();
    let out = match method {
        "add" => s.try_add(&r),
        "sub" => s.try_sub(&r),
        "mul" => s.try_mul(&r),
        _ => s.try_div(&r),
    }?;
    out.into_dim()
}

impl<T: DeviceNum, D: Dimension> Neg for &DeviceTensor<T, D> {
    type Output = DeviceTensor<T, D>;
    #[track_caller]
    fn neg(self) -> DeviceTensor<T, D> {
        DeviceTensor::neg(self)
    }
}

impl<T: DeviceNum, D: Dimension> Neg for DeviceTensor<T, D> {
    type Output = DeviceTensor<T, D>;
    #[track_caller]
    fn neg(self) -> DeviceTensor<T, D> {
        DeviceTensor::neg(&self)
    }
}
