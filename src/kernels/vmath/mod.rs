//! Vectorised element-wise math kernels on slices.
//!
//! The [`VMath`] trait provides, for `f32` and `f64`, the transcendental
//! functions needed by neural-network style workloads (`exp`, `ln`, `tanh`,
//! `sigmoid`, `erf`, `gelu`, `gelu_erf`, `silu`) in three forms:
//!
//! * a scalar function (`VMath::vexp`, ...),
//! * a slice kernel `dst[i] = f(src[i])` (`VMath::exp_slice`, ...),
//! * an in-place kernel `xs[i] = f(xs[i])` (`VMath::exp_inplace`, ...).
//!
//! **The three forms are bit-identical**: a tensor's result never depends on
//! its memory layout, on the slice length or alignment, or on which
//! instruction set was selected at runtime.
//!
//! # Implementation
//!
//! Each function is written once as a branch-free scalar routine (selects
//! instead of branches, `mul_add`, bit manipulation). The slice loops are
//! instantiated inside `#[target_feature]` wrappers (AVX-512 or AVX2+FMA) chosen
//! at runtime by [`crate::cpu::isa`]; LLVM
//! autovectorises them. Other targets (or old x86-64 CPUs) use the portable
//! loop. `mul_add` is a correctly rounded fused multiply-add everywhere
//! (hardware instruction or the C library's `fma`), so every path gives the
//! same bits. Without hardware FMA (x86-64 CPUs older than Haswell) the
//! portable path is correct but slow.
//!
//! `f32` `exp` and `ln` are computed natively in `f32`; the other `f32`
//! functions are computed in `f64` (branch-free, still vectorised) and rounded
//! once. `f64` functions are computed natively in `f64`; the arguments of
//! `gelu` and `gelu_erf` are formed in double-`f64` arithmetic so that the far
//! negative tails (where the functions are exponentially small) stay
//! accurate.
//!
//! # Accuracy
//!
//! Maximum error in ulps, measured by the tests of this module:
//!
//! * `f32`: against the `f64` evaluation (std/`libm`, numerically stable
//!   forms) rounded to `f32`, on every 97th bit pattern of all finite `f32`
//!   (and on *all* `f32` with the ignored `full_sweep_f32` test);
//! * `f64`: integer ulp distance to `libm`'s `exp`, `log`, `tanh`, `erf`
//!   (fdlibm, < 1 ulp) on random bit patterns and dense samples of the
//!   interesting ranges ("vs libm"); and the real-valued error against a
//!   50-digit `mpmath` evaluation on 24 000 samples in `[-700, 700]`
//!   ("exact"). The unit tests compare `sigmoid`, `silu`, `gelu` and
//!   `gelu_erf` with stable compositions of libm functions, which are
//!   themselves off by up to ~2.5 ulp, so they only assert 4 ulp there.
//!
//! | function   | `f32` max ulp | `f64` max ulp |
//! |------------|---------------|---------------|
//! | `exp` | 1 | 1 (vs libm) |
//! | `ln` | 1 | 0 (vs libm) |
//! | `tanh` | 1 | 2 (vs libm); 1.37 (exact) |
//! | `sigmoid` | 1 | 1.33 (exact) |
//! | `erf` | 0 (≤ 1 by construction) | 1 (vs libm); 0.91 (exact) |
//! | `gelu` | 1 | 1.39 (exact) |
//! | `gelu_erf` | 0 (≤ 1 by construction) | 1.90 (exact) |
//! | `silu` | 1 | 1.25 (exact) |
//!
//! Special values: NaN inputs give NaN; `exp(+inf) = +inf`, `exp(-inf) = 0`,
//! `exp` overflows to `+inf` and underflows gradually through the subnormals
//! to `0`; `ln(0) = -inf`, `ln(x < 0) = NaN`, `ln(+inf) = +inf`;
//! `tanh(±inf) = ±1`, `sigmoid(+inf) = 1`, `sigmoid(-inf) = 0`,
//! `erf(±inf) = ±1`; `gelu`, `gelu_erf` and `silu` map `+inf` to `+inf` and
//! `-inf` to `-0.0` (their limits). Signed zeros are preserved where the
//! function is odd (`tanh`, `erf`).

mod dispatch;
mod erfk;
mod f32k;
mod f64k;
#[cfg(test)]
mod tests;

/// Element types with vectorised math kernels.
///
/// For each function there is a scalar version (`v*`), a slice kernel
/// (`*_slice`) and an in-place kernel (`*_inplace`); all three give
/// bit-identical results. See the [module documentation](self) for the
/// accuracy table and the special values.
///
/// ```
/// use ferrotensor::kernels::vmath::VMath;
///
/// let src = [0.0f32, 1.0, -1.0, 2.5];
/// let mut dst = [0.0f32; 4];
/// f32::exp_slice(&src, &mut dst);
/// for (s, d) in src.iter().zip(&dst) {
///     assert_eq!(*d, f32::vexp(*s)); // bit-identical to the scalar function
/// }
/// ```
pub trait VMath: Copy + Send + Sync + 'static {
    /// Scalar the exponential `e^x`.
    ///
    /// Accuracy (measured maximum error): `f32` 1 ulp, `f64` 1 (vs libm) ulp.
    /// Bit-identical to [`VMath::exp_slice`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// assert!((f32::vexp(1.0) - 2.718281828).abs() < 1e-6);
    /// assert!((f64::vexp(1.0) - 2.718281828).abs() < 1e-8);
    /// ```
    fn vexp(x: Self) -> Self;

    /// Slice kernel: `dst[i] = exp(src[i])` (the exponential `e^x`).
    ///
    /// Vectorised with runtime CPU dispatch; bit-identical to [`VMath::vexp`].
    ///
    /// # Panics
    /// If `src.len() != dst.len()`.
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let src = vec![1.0f32; 5];
    /// let mut dst = vec![0.0f32; 5];
    /// f32::exp_slice(&src, &mut dst);
    /// assert!(dst.iter().all(|&v| v == f32::vexp(1.0)));
    /// ```
    fn exp_slice(src: &[Self], dst: &mut [Self]);

    /// In-place kernel: `xs[i] = exp(xs[i])`; bit-identical to [`VMath::vexp`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let mut xs = vec![1.0f64; 3];
    /// f64::exp_inplace(&mut xs);
    /// assert!(xs.iter().all(|&v| v == f64::vexp(1.0)));
    /// ```
    fn exp_inplace(xs: &mut [Self]);

    /// Scalar the natural logarithm `ln x` (`-inf` at 0, NaN for negative inputs).
    ///
    /// Accuracy (measured maximum error): `f32` 1 ulp, `f64` 0 (vs libm) ulp.
    /// Bit-identical to [`VMath::ln_slice`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// assert!((f32::vln(1.0) - 0.0).abs() < 1e-6);
    /// assert!((f64::vln(1.0) - 0.0).abs() < 1e-8);
    /// ```
    fn vln(x: Self) -> Self;

    /// Slice kernel: `dst[i] = ln(src[i])` (the natural logarithm `ln x`).
    ///
    /// Vectorised with runtime CPU dispatch; bit-identical to [`VMath::vln`].
    ///
    /// # Panics
    /// If `src.len() != dst.len()`.
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let src = vec![1.0f32; 5];
    /// let mut dst = vec![0.0f32; 5];
    /// f32::ln_slice(&src, &mut dst);
    /// assert!(dst.iter().all(|&v| v == f32::vln(1.0)));
    /// ```
    fn ln_slice(src: &[Self], dst: &mut [Self]);

    /// In-place kernel: `xs[i] = ln(xs[i])`; bit-identical to [`VMath::vln`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let mut xs = vec![1.0f64; 3];
    /// f64::ln_inplace(&mut xs);
    /// assert!(xs.iter().all(|&v| v == f64::vln(1.0)));
    /// ```
    fn ln_inplace(xs: &mut [Self]);

    /// Scalar the hyperbolic tangent.
    ///
    /// Accuracy (measured maximum error): `f32` 1 ulp, `f64` 2 (vs libm); 1.37 (exact) ulp.
    /// Bit-identical to [`VMath::tanh_slice`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// assert!((f32::vtanh(0.5) - 0.462117157).abs() < 1e-6);
    /// assert!((f64::vtanh(0.5) - 0.462117157).abs() < 1e-8);
    /// ```
    fn vtanh(x: Self) -> Self;

    /// Slice kernel: `dst[i] = tanh(src[i])` (the hyperbolic tangent).
    ///
    /// Vectorised with runtime CPU dispatch; bit-identical to [`VMath::vtanh`].
    ///
    /// # Panics
    /// If `src.len() != dst.len()`.
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let src = vec![0.5f32; 5];
    /// let mut dst = vec![0.0f32; 5];
    /// f32::tanh_slice(&src, &mut dst);
    /// assert!(dst.iter().all(|&v| v == f32::vtanh(0.5)));
    /// ```
    fn tanh_slice(src: &[Self], dst: &mut [Self]);

    /// In-place kernel: `xs[i] = tanh(xs[i])`; bit-identical to [`VMath::vtanh`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let mut xs = vec![0.5f64; 3];
    /// f64::tanh_inplace(&mut xs);
    /// assert!(xs.iter().all(|&v| v == f64::vtanh(0.5)));
    /// ```
    fn tanh_inplace(xs: &mut [Self]);

    /// Scalar the logistic sigmoid `1 / (1 + e^-x)`.
    ///
    /// Accuracy (measured maximum error): `f32` 1 ulp, `f64` 1.33 (exact) ulp.
    /// Bit-identical to [`VMath::sigmoid_slice`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// assert!((f32::vsigmoid(0.0) - 0.5).abs() < 1e-6);
    /// assert!((f64::vsigmoid(0.0) - 0.5).abs() < 1e-8);
    /// ```
    fn vsigmoid(x: Self) -> Self;

    /// Slice kernel: `dst[i] = sigmoid(src[i])` (the logistic sigmoid `1 /).
    ///
    /// Vectorised with runtime CPU dispatch; bit-identical to [`VMath::vsigmoid`].
    ///
    /// # Panics
    /// If `src.len() != dst.len()`.
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let src = vec![0.0f32; 5];
    /// let mut dst = vec![0.0f32; 5];
    /// f32::sigmoid_slice(&src, &mut dst);
    /// assert!(dst.iter().all(|&v| v == f32::vsigmoid(0.0)));
    /// ```
    fn sigmoid_slice(src: &[Self], dst: &mut [Self]);

    /// In-place kernel: `xs[i] = sigmoid(xs[i])`; bit-identical to [`VMath::vsigmoid`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let mut xs = vec![0.0f64; 3];
    /// f64::sigmoid_inplace(&mut xs);
    /// assert!(xs.iter().all(|&v| v == f64::vsigmoid(0.0)));
    /// ```
    fn sigmoid_inplace(xs: &mut [Self]);

    /// Scalar the error function `erf x`.
    ///
    /// Accuracy (measured maximum error): `f32` 0 (≤ 1 by construction) ulp, `f64` 1 (vs libm); 0.91 (exact) ulp.
    /// Bit-identical to [`VMath::erf_slice`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// assert!((f32::verf(0.5) - 0.520499878).abs() < 1e-6);
    /// assert!((f64::verf(0.5) - 0.520499878).abs() < 1e-8);
    /// ```
    fn verf(x: Self) -> Self;

    /// Slice kernel: `dst[i] = erf(src[i])` (the error function `erf x`).
    ///
    /// Vectorised with runtime CPU dispatch; bit-identical to [`VMath::verf`].
    ///
    /// # Panics
    /// If `src.len() != dst.len()`.
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let src = vec![0.5f32; 5];
    /// let mut dst = vec![0.0f32; 5];
    /// f32::erf_slice(&src, &mut dst);
    /// assert!(dst.iter().all(|&v| v == f32::verf(0.5)));
    /// ```
    fn erf_slice(src: &[Self], dst: &mut [Self]);

    /// In-place kernel: `xs[i] = erf(xs[i])`; bit-identical to [`VMath::verf`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let mut xs = vec![0.5f64; 3];
    /// f64::erf_inplace(&mut xs);
    /// assert!(xs.iter().all(|&v| v == f64::verf(0.5)));
    /// ```
    fn erf_inplace(xs: &mut [Self]);

    /// Scalar GELU, tanh approximation: `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    ///
    /// Accuracy (measured maximum error): `f32` 1 ulp, `f64` 1.39 (exact) ulp.
    /// Bit-identical to [`VMath::gelu_slice`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// assert!((f32::vgelu(1.0) - 0.841191990).abs() < 1e-6);
    /// assert!((f64::vgelu(1.0) - 0.841191990).abs() < 1e-8);
    /// ```
    fn vgelu(x: Self) -> Self;

    /// Slice kernel: `dst[i] = gelu(src[i])` (GELU, tanh approximation).
    ///
    /// Vectorised with runtime CPU dispatch; bit-identical to [`VMath::vgelu`].
    ///
    /// # Panics
    /// If `src.len() != dst.len()`.
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let src = vec![1.0f32; 5];
    /// let mut dst = vec![0.0f32; 5];
    /// f32::gelu_slice(&src, &mut dst);
    /// assert!(dst.iter().all(|&v| v == f32::vgelu(1.0)));
    /// ```
    fn gelu_slice(src: &[Self], dst: &mut [Self]);

    /// In-place kernel: `xs[i] = gelu(xs[i])`; bit-identical to [`VMath::vgelu`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let mut xs = vec![1.0f64; 3];
    /// f64::gelu_inplace(&mut xs);
    /// assert!(xs.iter().all(|&v| v == f64::vgelu(1.0)));
    /// ```
    fn gelu_inplace(xs: &mut [Self]);

    /// Scalar exact GELU: `0.5 x (1 + erf(x / sqrt 2))`.
    ///
    /// Accuracy (measured maximum error): `f32` 0 (≤ 1 by construction) ulp, `f64` 1.90 (exact) ulp.
    /// Bit-identical to [`VMath::gelu_erf_slice`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// assert!((f32::vgelu_erf(1.0) - 0.841344746).abs() < 1e-6);
    /// assert!((f64::vgelu_erf(1.0) - 0.841344746).abs() < 1e-8);
    /// ```
    fn vgelu_erf(x: Self) -> Self;

    /// Slice kernel: `dst[i] = gelu_erf(src[i])` (exact GELU).
    ///
    /// Vectorised with runtime CPU dispatch; bit-identical to [`VMath::vgelu_erf`].
    ///
    /// # Panics
    /// If `src.len() != dst.len()`.
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let src = vec![1.0f32; 5];
    /// let mut dst = vec![0.0f32; 5];
    /// f32::gelu_erf_slice(&src, &mut dst);
    /// assert!(dst.iter().all(|&v| v == f32::vgelu_erf(1.0)));
    /// ```
    fn gelu_erf_slice(src: &[Self], dst: &mut [Self]);

    /// In-place kernel: `xs[i] = gelu_erf(xs[i])`; bit-identical to [`VMath::vgelu_erf`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let mut xs = vec![1.0f64; 3];
    /// f64::gelu_erf_inplace(&mut xs);
    /// assert!(xs.iter().all(|&v| v == f64::vgelu_erf(1.0)));
    /// ```
    fn gelu_erf_inplace(xs: &mut [Self]);

    /// Scalar SiLU / swish: `x * sigmoid(x)`.
    ///
    /// Accuracy (measured maximum error): `f32` 1 ulp, `f64` 1.25 (exact) ulp.
    /// Bit-identical to [`VMath::silu_slice`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// assert!((f32::vsilu(1.0) - 0.731058579).abs() < 1e-6);
    /// assert!((f64::vsilu(1.0) - 0.731058579).abs() < 1e-8);
    /// ```
    fn vsilu(x: Self) -> Self;

    /// Slice kernel: `dst[i] = silu(src[i])` (SiLU / swish).
    ///
    /// Vectorised with runtime CPU dispatch; bit-identical to [`VMath::vsilu`].
    ///
    /// # Panics
    /// If `src.len() != dst.len()`.
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let src = vec![1.0f32; 5];
    /// let mut dst = vec![0.0f32; 5];
    /// f32::silu_slice(&src, &mut dst);
    /// assert!(dst.iter().all(|&v| v == f32::vsilu(1.0)));
    /// ```
    fn silu_slice(src: &[Self], dst: &mut [Self]);

    /// In-place kernel: `xs[i] = silu(xs[i])`; bit-identical to [`VMath::vsilu`].
    ///
    /// ```
    /// use ferrotensor::kernels::vmath::VMath;
    ///
    /// let mut xs = vec![1.0f64; 3];
    /// f64::silu_inplace(&mut xs);
    /// assert!(xs.iter().all(|&v| v == f64::vsilu(1.0)));
    /// ```
    fn silu_inplace(xs: &mut [Self]);
}

macro_rules! impl_vmath {
    ($t:ty, $m:ident) => {
        impl VMath for $t {
            impl_vmath!(@fns $t, $m,
                vexp exp_slice exp_inplace exp,
                vln ln_slice ln_inplace ln,
                vtanh tanh_slice tanh_inplace tanh,
                vsigmoid sigmoid_slice sigmoid_inplace sigmoid,
                verf erf_slice erf_inplace erf,
                vgelu gelu_slice gelu_inplace gelu,
                vgelu_erf gelu_erf_slice gelu_erf_inplace gelu_erf,
                vsilu silu_slice silu_inplace silu);
        }
    };
    (@fns $t:ty, $m:ident, $($s:ident $sl:ident $ip:ident $k:ident),*) => {
        $(
            #[inline]
            fn $s(x: $t) -> $t {
                dispatch::scalar::<$t, kern::$k>(x)
            }
            #[inline]
            fn $sl(src: &[$t], dst: &mut [$t]) {
                dispatch::map::<$t, kern::$k>(src, dst)
            }
            #[inline]
            fn $ip(xs: &mut [$t]) {
                dispatch::map_inplace::<$t, kern::$k>(xs)
            }
        )*
    };
}

/// One zero-sized type per function, implementing [`dispatch::Kernel`] for
/// both element types.
#[allow(non_camel_case_types)]
mod kern {
    use super::dispatch::Kernel;
    use super::{f32k, f64w};

    macro_rules! kernels {
        ($($k:ident),*) => {
            $(
                pub(super) struct $k;
                impl Kernel<f32> for $k {
                    #[inline(always)]
                    fn apply(x: f32) -> f32 {
                        f32k::$k(x)
                    }
                }
                impl Kernel<f64> for $k {
                    #[inline(always)]
                    fn apply(x: f64) -> f64 {
                        f64w::$k(x)
                    }
                }
            )*
        };
    }

    kernels!(exp, ln, tanh, sigmoid, erf, gelu, gelu_erf, silu);
}

impl_vmath!(f32, f32k);
impl_vmath!(f64, f64w);

/// `f64` kernels with the precision parameter fixed, named like the `f32` ones.
mod f64w {
    use super::{erfk, f64k};
    pub(super) use f64k::{exp, ln};
    #[inline(always)]
    pub(super) fn tanh(x: f64) -> f64 {
        f64k::tanh::<true>(x)
    }
    #[inline(always)]
    pub(super) fn sigmoid(x: f64) -> f64 {
        f64k::sigmoid::<true>(x)
    }
    #[inline(always)]
    pub(super) fn silu(x: f64) -> f64 {
        f64k::silu::<true>(x)
    }
    #[inline(always)]
    pub(super) fn gelu(x: f64) -> f64 {
        f64k::gelu::<true>(x)
    }
    pub(super) use erfk::{erf, gelu_erf};
}
