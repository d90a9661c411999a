//! Element-wise unary math: one method per function, named as in NumPy/PyTorch.
//!
//! Float functions take `T: Float`; `f16`/`bf16` compute through `f32` and round once.
//! `exp`, `ln`, `tanh`, `sigmoid`, `erf`, `gelu`, `gelu_tanh` and `silu` use the
//! vectorised [`VMath`] kernels (≤ 2 ulp, see [`crate::kernels::vmath`]); the others use
//! Rust's `std` functions (the platform libm, ≤ 1–2 ulp) or, for `asinh`, `acosh` and
//! `atanh` (whose `std` forms lose up to ~13 ulp near the ends), the `libm` crate; `softplus` is
//! `max(x, 0) + ln_1p(e^-|x|)`. `round` rounds half to even (NumPy `round`/`rint`).
//!
//! Measured maximum error of the `f32` functions beyond `vmath`, against the `f64`
//! function rounded to `f32`, on every 257th finite bit pattern of the domain
//! (`tests/ulp_sweep.rs`): `sqrt`, `cbrt`, `recip` 0 ulp; `exp2`, `expm1`, `log2`,
//! `log1p`, `sin`, `cos`, `tan` (|x| ≤ 10⁴), `asin`, `acos`, `atan`, `softplus` 1 ulp;
//! `log10`, `sinh`, `cosh`, `asinh`, `acosh`, `atanh` 2 ulp.

use super::Real;
use super::core::map_with;
use super::fmath::{FloatFn, f32x, f64fix, f64x, float_map};
use crate::element::{Float, Num};
use crate::kernels::vmath::VMath;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

macro_rules! float_unary {
    ($($name:ident, $desc:literal, $cost:expr, $f32:expr, $f64:expr, $slices:expr, $x:literal => $y:literal;)*) => {
        impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
            $(
                #[doc = concat!("Element-wise ", $desc, ", as a new row-major tensor.")]
                ///
                /// ```
                /// use ferrotensor::prelude::*;
                #[doc = concat!("let a = Tensor::from_vec(vec![", stringify!($x), "f64], [1]).unwrap();")]
                #[doc = concat!("let y = a.", stringify!($name), "().to_vec()[0];")]
                #[doc = concat!("assert!((y - ", stringify!($y), ").abs() < 1e-12, \"{y}\");")]
                #[doc = concat!("let h = Tensor::from_vec(vec![half::f16::from_f64(", stringify!($x), ")], [1]).unwrap();")]
                #[doc = concat!("assert!((h.", stringify!($name), "().to_vec()[0].to_f64() - ", stringify!($y), ").abs() < 1e-2 * (1.0 + (", stringify!($y), "f64).abs()));")]
                /// ```
                pub fn $name(&self) -> Tensor<T, D> {
                    float_map(self, FloatFn { f32: $f32, f64: $f64, slices: $slices, cost: $cost })
                }
            )*
        }
    };
}

float_unary! {
    exp, "exponential `e^x`", 8, f32::vexp, f64::vexp, Some((f32::exp_slice, f64::exp_slice)), 1.0 => 2.718281828459045;
    exp2, "`2^x`", 8, f32::exp2, f64::exp2, None, 3.0 => 8.0;
    expm1, "`e^x - 1` (accurate near 0)", 8, f32::exp_m1, f64::exp_m1, None, 1e-10 => 1.00000000005e-10;
    ln, "natural logarithm", 8, f32::vln, f64::vln, Some((f32::ln_slice, f64::ln_slice)), 2.718281828459045 => 1.0;
    log2, "base-2 logarithm", 8, f32::log2, f64::log2, None, 8.0 => 3.0;
    log10, "base-10 logarithm", 8, f32::log10, f64::log10, None, 1000.0 => 3.0;
    log1p, "`ln(1 + x)` (accurate near 0)", 8, f32::ln_1p, f64::ln_1p, None, 1e-10 => 9.9999999995e-11;
    sin, "sine (radians)", 8, f32::sin, f64::sin, None, 0.5 => 0.479425538604203;
    cos, "cosine (radians)", 8, f32::cos, f64::cos, None, 0.5 => 0.8775825618903728;
    tan, "tangent (radians)", 8, f32::tan, f64::tan, None, 0.5 => 0.5463024898437905;
    asin, "inverse sine (NumPy `arcsin`)", 8, f32::asin, f64::asin, None, 0.5 => 0.5235987755982989;
    acos, "inverse cosine (NumPy `arccos`)", 8, f32::acos, f64::acos, None, 0.5 => 1.0471975511965979;
    atan, "inverse tangent (NumPy `arctan`)", 8, f32::atan, f64::atan, None, 0.5 => 0.4636476090008061;
    sinh, "hyperbolic sine", 8, f32::sinh, f64::sinh, None, 0.5 => 0.5210953054937474;
    cosh, "hyperbolic cosine", 8, f32::cosh, f64::cosh, None, 0.5 => 1.1276259652063807;
    tanh, "hyperbolic tangent", 8, f32::vtanh, f64::vtanh, Some((f32::tanh_slice, f64::tanh_slice)), 0.5 => 0.46211715726000974;
    asinh, "inverse hyperbolic sine", 8, libm::asinhf, libm::asinh, None, 0.5 => 0.48121182505960347;
    acosh, "inverse hyperbolic cosine", 8, libm::acoshf, libm::acosh, None, 1.5 => 0.9624236501192069;
    atanh, "inverse hyperbolic tangent", 8, libm::atanhf, libm::atanh, None, 0.5 => 0.5493061443340549;
    recip, "reciprocal `1 / x`", 1, |x: f32| 1.0 / x, |x: f64| 1.0 / x, None, 4.0 => 0.25;
    sqrt, "square root", 2, f32::sqrt, f64::sqrt, None, 2.0 => 1.4142135623730951;
    cbrt, "cube root", 8, f32::cbrt, f64::cbrt, None, -27.0 => -3.0;
    floor, "floor (round toward −∞)", 1, f32::floor, f64::floor, None, -1.5 => -2.0;
    ceil, "ceiling (round toward +∞)", 1, f32::ceil, f64::ceil, None, -1.5 => -1.0;
    round, "rounding to the nearest integer, half to even (NumPy `round`)", 1, f32::round_ties_even, f64::round_ties_even, None, 2.5 => 2.0;
    trunc, "truncation toward zero", 1, f32::trunc, f64::trunc, None, -1.7 => -1.0;
    relu, "rectified linear unit `max(x, 0)` (NaN stays NaN)", 1, f32x::relu, f64x::relu, None, -1.5 => 0.0;
    gelu, "GELU, exact: `0.5x(1 + erf(x/√2))` (PyTorch's default `gelu`, as [`nn::gelu`](crate::nn::gelu))", 8, f32::vgelu_erf, f64fix::gelu_erf, Some((f32::gelu_erf_slice, f64fix::gelu_erf_slice)), 1.0 => 0.8413447460685429;
    gelu_tanh, "GELU, tanh approximation `0.5x(1 + tanh(√(2/π)(x + 0.044715x³)))` (PyTorch's `gelu(approximate='tanh')`, as [`nn::gelu_tanh`](crate::nn::gelu_tanh))", 8, f32::vgelu, f64fix::gelu, Some((f32::gelu_slice, f64fix::gelu_slice)), 1.0 => 0.8411919906082768;
    erf, "error function", 8, f32::verf, f64::verf, Some((f32::erf_slice, f64::erf_slice)), 0.5 => 0.5204998778130465;
    silu, "SiLU (swish) `x · sigmoid(x)`", 8, f32::vsilu, f64fix::silu, Some((f32::silu_slice, f64fix::silu_slice)), 1.0 => 0.7310585786300049;
    sigmoid, "logistic sigmoid `1 / (1 + e^-x)`", 8, f32::vsigmoid, f64::vsigmoid, Some((f32::sigmoid_slice, f64::sigmoid_slice)), 0.0 => 0.5;
    softplus, "softplus `ln(1 + e^x)` (computed stably)", 8, f32x::softplus, f64x::softplus, None, 0.0 => 0.6931471805599453;
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Former name of the exact GELU, now [`gelu`](TensorBase::gelu) (`gelu` was the
    /// tanh approximation, now [`gelu_tanh`](TensorBase::gelu_tanh)).
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f64], [1]).unwrap();
    /// assert_eq!(a.gelu_erf().to_vec(), a.gelu().to_vec());
    /// ```
    #[deprecated(since = "0.2.0", note = "`gelu` is now the exact (erf) GELU")]
    pub fn gelu_erf(&self) -> Tensor<T, D> {
        self.gelu()
    }
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Every element raised to the integer power `n` (`powi`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![2.0f32, -3.0], [2]).unwrap();
    /// assert_eq!(a.powi(3).to_vec(), vec![8.0, -27.0]);
    /// ```
    pub fn powi(&self, n: i32) -> Tensor<T, D> {
        float_map(
            self,
            FloatFn {
                f32: move |x: f32| x.powi(n),
                f64: move |x: f64| x.powi(n),
                slices: None,
                cost: 4,
            },
        )
    }

    /// Every element raised to the float power `p` (`powf`, NumPy `power`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![4.0f64, 9.0], [2]).unwrap();
    /// assert_eq!(a.powf(0.5).to_vec(), vec![2.0, 3.0]);
    /// ```
    pub fn powf(&self, p: T) -> Tensor<T, D> {
        let (p32, p64) = (p.to_f32(), p.to_f64());
        float_map(
            self,
            FloatFn {
                f32: move |x: f32| x.powf(p32),
                f64: move |x: f64| x.powf(p64),
                slices: None,
                cost: 8,
            },
        )
    }
}

/// NumPy's `10^n` for `round`: exact table values up to `1e8`, then repeated `× 10`.
fn power_of_ten(n: u32) -> f64 {
    const P10: [f64; 9] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8];
    match P10.get(n as usize) {
        Some(&p) => p,
        None => (9..n).fold(1e9, |p, _| p * 10.0),
    }
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Rounds to `decimals` decimal places, half to even, as NumPy's
    /// `round(a, decimals)`: `rint(x · 10^d) / 10^d` computed in the element type (so
    /// `0.285` rounds to `0.28`: `0.285 · 100` is just below the tie); a negative
    /// `decimals` rounds to tens, hundreds, … (`rint(x / 10^-d) · 10^-d`). NaN and ±∞
    /// stay; values whose scaled form overflows become ±∞ as in NumPy.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![2.675, -1.005, 0.125, 1234.5678, 0.285], [5]).unwrap();
    /// assert_eq!(a.round_decimals(2).to_vec(), vec![2.68, -1.0, 0.12, 1234.57, 0.28]);
    /// assert_eq!(a.round_decimals(-2).to_vec(), vec![0.0, -0.0, 0.0, 1200.0, 0.0]);
    /// assert_eq!(a.round_decimals(0).to_vec(), a.round().to_vec());
    /// ```
    pub fn round_decimals(&self, decimals: i32) -> Tensor<T, D> {
        let f = T::from_f64(power_of_ten(decimals.unsigned_abs()));
        let rint = |y: T| T::from_f64(y.to_f64().round_ties_even());
        if decimals >= 0 {
            map_with(self, 2, move |x: T| rint(x * f) / f)
        } else {
            map_with(self, 2, move |x: T| rint(x / f) * f)
        }
    }
}

impl<T: Real, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Absolute value (integers wrap: `abs(MIN) = MIN`, as NumPy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::from_vec(vec![-3, 4], [2]).unwrap().abs().to_vec(), vec![3, 4]);
    /// assert_eq!(Tensor::from_vec(vec![-1.5f32], [1]).unwrap().abs().to_vec(), vec![1.5]);
    /// ```
    pub fn abs(&self) -> Tensor<T, D> {
        map_with(self, 1, T::r_abs)
    }

    /// −1, 0 or 1 by sign; NaN stays NaN (NumPy `sign`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::from_vec(vec![-3, 0, 4], [3]).unwrap().sign().to_vec(), vec![-1, 0, 1]);
    /// ```
    pub fn sign(&self) -> Tensor<T, D> {
        map_with(self, 1, T::r_sign)
    }
}

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Negation `-x` (integers wrap; unsigned `0 - x` as NumPy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::from_vec(vec![1u8, 0], [2]).unwrap().neg().to_vec(), vec![255, 0]);
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub fn neg(&self) -> Tensor<T, D> {
        map_with(self, 1, T::wneg)
    }

    /// `x * x` (integers wrap).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::from_vec(vec![-3, 4], [2]).unwrap().square().to_vec(), vec![9, 16]);
    /// ```
    pub fn square(&self) -> Tensor<T, D> {
        map_with(self, 1, |x: T| x.wmul(x))
    }
}
