//! Discrete Fourier transforms with NumPy's `numpy.fft` names, arguments and results.
//!
//! | function | NumPy |
//! |---|---|
//! | [`fft`], [`ifft`] | complex transform along one axis, `n` crops or zero-pads |
//! | [`fft2`], [`ifft2`], [`fftn`], [`ifftn`] | over several axes, `s` per axis |
//! | [`rfft`], [`irfft`], [`rfft2`], [`irfft2`], [`rfftn`], [`irfftn`] | real input / real output (half spectrum) |
//! | [`hfft`], [`ihfft`] | Hermitian-symmetric signal (real spectrum) |
//! | [`fftfreq`], [`rfftfreq`], [`fftshift`], [`ifftshift`] | sample frequencies, zero frequency to the centre |
//!
//! Every transform takes any strided input (views, flipped or broadcast axes) of `f32`,
//! `f64`, `f16`, `bf16`, `Complex<f32>` or `Complex<f64>` ([`FftElement`]) and returns a
//! new row-major tensor of the same rank type. The precision follows the input:
//! `f32`, `f16`, `bf16` and `Complex<f32>` transform in single precision (NumPy 2's
//! `complex64`), `f64` and `Complex<f64>` in double precision. [`Norm`] is NumPy's `norm`
//! argument (`"backward"` by default: no scaling forward, `1/n` inverse).
//!
//! Transforms run on `rustfft` (mixed radix, Rader and Bluestein for every length, AVX
//! kernels picked at run time) and `realfft` (real input through a half-length complex
//! transform). Lanes along an axis are processed in cache-sized blocks, spread over
//! threads when there are many of them.
//!
//! ## The plan cache
//!
//! Planning a transform (choosing the algorithm and computing its twiddle factors) costs
//! several times the transform itself, so plans are kept in one process-wide cache of
//! the most recently used plans (default [`DEFAULT_PLAN_CACHE_SIZE`], like pocketfft's).
//! A plan holds about `n` complex twiddle factors of its precision. The cache is
//! bounded and under your control: [`plan_cache_size`], [`set_plan_cache_size`] (0
//! turns it off) and [`clear_plan_cache`].
//!
//! ```
//! use ferrotensor::prelude::*;
//! use ferrotensor::fft::{self, Norm};
//! use num_complex::Complex;
//! let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [4]).unwrap();
//! let y = fft::fft(&x, None, -1, Norm::Backward).unwrap();
//! assert_eq!(y.to_vec()[0], Complex::new(10.0, 0.0));
//! assert_eq!(y.to_vec()[2], Complex::new(-2.0, 0.0));
//! let back = fft::ifft(&y, None, -1, Norm::Backward).unwrap();
//! assert!((back.to_vec()[3].re - 4.0).abs() < 1e-12);
//! let half = fft::rfft(&x, None, -1, Norm::Backward).unwrap();
//! assert_eq!(half.shape(), &[3]);
//! assert_eq!(fft::irfft(&half, Some(4), -1, Norm::Backward).unwrap().to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
//! ```

mod args;
mod complex;
mod freq;
mod lanes;
mod pass;
mod plan;
mod real;

pub use complex::{fft, fft2, fftn, ifft, ifft2, ifftn};
pub use freq::{fftfreq, fftshift, ifftshift, rfftfreq};
pub use plan::{DEFAULT_PLAN_CACHE_SIZE, clear_plan_cache, plan_cache_size, set_plan_cache_size};
pub use real::{hfft, ihfft, irfft, irfft2, irfftn, rfft, rfft2, rfftn};

use crate::element::{Element, Float};
use half::{bf16, f16};
use num_complex::Complex;

/// NumPy's `norm` argument: which direction is scaled, and by what.
///
/// With `n` the number of points (the product over the transformed axes):
/// `Backward` (NumPy's default) leaves forward transforms unscaled and scales inverse
/// ones by `1/n`; `Forward` is the reverse; `Ortho` scales both by `1/√n` (unitary).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::from_vec(vec![1.0f32, 1.0, 1.0, 1.0], [4]).unwrap();
/// assert_eq!(fft::fft(&x, None, 0, Norm::Backward).unwrap().to_vec()[0].re, 4.0);
/// assert_eq!(fft::fft(&x, None, 0, Norm::Ortho).unwrap().to_vec()[0].re, 2.0);
/// assert_eq!(fft::fft(&x, None, 0, Norm::Forward).unwrap().to_vec()[0].re, 1.0);
/// assert_eq!(Norm::default(), Norm::Backward);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Norm {
    /// No scaling forward, `1/n` inverse (NumPy's `norm=None` / `"backward"`).
    #[default]
    Backward,
    /// `1/√n` both ways (`"ortho"`).
    Ortho,
    /// `1/n` forward, none inverse (`"forward"`).
    Forward,
}

impl Norm {
    /// The factor applied by a transform over `n` points in the given direction.
    fn factor(self, n: usize, inverse: bool) -> f64 {
        let n = n as f64;
        match (self, inverse) {
            (Norm::Ortho, _) => 1.0 / n.sqrt(),
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / n,
            _ => 1.0,
        }
    }

    /// The mode with the directions swapped (NumPy's `_swap_direction`, used by
    /// `hfft`/`ihfft`).
    fn swapped(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Forward => Norm::Backward,
            Norm::Ortho => Norm::Ortho,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for num_complex::Complex<f32> {}
    impl Sealed for num_complex::Complex<f64> {}
}

/// The precisions transforms compute in: `f32` and `f64`.
///
/// ```
/// use ferrotensor::fft::FftFloat;
/// fn bins<T: FftFloat>(n: usize) -> usize { ferrotensor::fft::rfftfreq::<T>(n, T::one()).unwrap().size() }
/// assert_eq!(bins::<f32>(8), 5);
/// ```
pub trait FftFloat: Float + rustfft::FftNum + bytemuck::Pod + sealed::Sealed {}
impl FftFloat for f32 {}
impl FftFloat for f64 {}

/// Element types a transform accepts: real floats and complex numbers.
///
/// `Real` is the precision of the transform and of its complex result (`f32` for
/// `f16`, `bf16`, `f32` and `Complex<f32>`; `f64` for `f64` and `Complex<f64>`).
///
/// ```
/// use ferrotensor::fft::FftElement;
/// use num_complex::Complex;
/// assert_eq!(2.5f32.to_complex(), Complex::new(2.5f32, 0.0));
/// assert_eq!(Complex::new(1.0f64, -1.0).to_complex(), Complex::new(1.0, -1.0));
/// ```
pub trait FftElement: Element + sealed::Sealed {
    /// The precision the transform computes in.
    type Real: FftFloat;
    /// The value as a complex number of that precision.
    fn to_complex(self) -> Complex<Self::Real>;
}

/// Real element types, the input of [`rfft`], [`rfftn`] and [`ihfft`].
///
/// ```
/// use ferrotensor::fft::FftRealElement;
/// assert_eq!(half::f16::from_f32(1.5).to_real(), 1.5f32);
/// ```
pub trait FftRealElement: FftElement {
    /// The value in the transform's precision.
    fn to_real(self) -> Self::Real;
}

macro_rules! impl_fft_real {
    ($($t:ty => $r:ty, $conv:expr);* $(;)?) => {$(
        impl FftElement for $t {
            type Real = $r;
            #[inline(always)]
            fn to_complex(self) -> Complex<$r> {
                Complex::new($conv(self), 0.0)
            }
        }
        impl FftRealElement for $t {
            #[inline(always)]
            fn to_real(self) -> $r {
                $conv(self)
            }
        }
    )*};
}
impl_fft_real!(
    f32 => f32, |x: f32| x;
    f64 => f64, |x: f64| x;
    f16 => f32, |x: f16| x.to_f32();
    bf16 => f32, |x: bf16| x.to_f32();
);

macro_rules! impl_fft_complex {
    ($($r:ty),*) => {$(
        impl FftElement for Complex<$r> {
            type Real = $r;
            #[inline(always)]
            fn to_complex(self) -> Complex<$r> {
                self
            }
        }
    )*};
}
impl_fft_complex!(f32, f64);
