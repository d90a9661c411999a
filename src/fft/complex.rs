//! Complex transforms: `fft`, `ifft`, `fft2`, `ifft2`, `fftn`, `ifftn`.

use super::args::{self, Plan};
use super::{FftElement, Norm, pass};
use crate::error::Result;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use num_complex::Complex;

/// Output of a complex transform of `T` input with rank type `D`.
type Spectrum<T, D> = Tensor<Complex<<T as FftElement>::Real>, D>;

/// Runs the complex transforms of `plan` on `a`.
pub(super) fn run<T, S, D>(
    a: &TensorBase<S, D>,
    plan: &Plan,
    inverse: bool,
    norm: Norm,
    op: &'static str,
) -> Result<Spectrum<T, D>>
where
    T: FftElement,
    S: Storage<Elem = T>,
    D: Dimension,
{
    let factor = |n: usize| <T::Real as crate::element::Num>::from_f64(norm.factor(n, inverse));
    let one = <T::Real as num_traits::One>::one();
    let to_c = |x: T| x.to_complex();
    if plan.repeats() {
        // NumPy's order: the last listed axis first, each with its own crop/pad.
        let mut shape = a.shape().to_vec();
        let mut buf = args::load(a, &shape, op, to_c)?;
        for i in (0..plan.axes.len()).rev() {
            let (ax, n) = (plan.axes[i], plan.lens[i]);
            if shape[ax] != n {
                buf = args::resize_axis(&buf, &shape, ax, n, op)?;
                shape[ax] = n;
            }
            pass::c2c(&mut buf, &shape, ax, inverse, factor(n));
        }
        return args::tensor(buf, &shape, op);
    }
    // Distinct axes: crop/pad all at once (it commutes with transforms along other
    // axes), then one pass per axis, the contiguous last axis last so that the scaling
    // runs on lanes in cache.
    let target = plan.target(a.shape());
    let mut buf = args::load(a, &target, op, to_c)?;
    let mut order = plan.axes.clone();
    order.sort_unstable();
    let scale = factor(plan.lens.iter().product());
    for (i, &ax) in order.iter().enumerate() {
        let s = if i + 1 == order.len() { scale } else { one };
        pass::c2c(&mut buf, &target, ax, inverse, s);
    }
    args::tensor(buf, &target, op)
}

/// The one-dimensional discrete Fourier transform along `axis` (NumPy's
/// `fft(a, n=None, axis=-1, norm=None)`): `n` points, cropping or zero-padding the
/// input (default: the axis length). Output `Complex<T::Real>` with the input's rank.
/// `Err` for an axis out of range or `n == 0` (also an empty axis without `n`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// use num_complex::Complex;
/// let x = Tensor::from_vec(vec![0.0f64, 1.0, 0.0, 0.0], [4]).unwrap();
/// let y = fft::fft(&x, None, -1, Norm::Backward).unwrap();
/// let want = [Complex::new(1.0, 0.0), Complex::new(0.0, -1.0), Complex::new(-1.0, 0.0), Complex::new(0.0, 1.0)];
/// assert!(y.to_vec().iter().zip(want).all(|(a, b)| (a - b).norm() < 1e-12));
/// assert_eq!(fft::fft(&x, Some(6), 0, Norm::Backward).unwrap().shape(), &[6]);
/// assert!(fft::fft(&x, Some(0), 0, Norm::Backward).is_err());
/// ```
pub fn fft<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<Spectrum<T, D>> {
    let op = "fft";
    run(a, &args::one_axis(a.shape(), n, axis, false, op)?, false, norm, op)
}

/// The inverse of [`fft`] (NumPy's `ifft`): `ifft(fft(a)) ≈ a`, scaled by `1/n` under
/// [`Norm::Backward`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], [3]).unwrap();
/// let back = fft::ifft(&fft::fft(&x, None, 0, Norm::Ortho).unwrap(), None, 0, Norm::Ortho).unwrap();
/// assert!(back.to_vec().iter().zip([1.0f32, 2.0, 3.0]).all(|(a, b)| (a.re - b).abs() < 1e-6 && a.im.abs() < 1e-6));
/// ```
pub fn ifft<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<Spectrum<T, D>> {
    let op = "ifft";
    run(a, &args::one_axis(a.shape(), n, axis, false, op)?, true, norm, op)
}

/// The n-dimensional transform over `axes` (NumPy's `fftn(a, s=None, axes=None)`):
/// without `axes`, the last `s.len()` axes, or every axis when `s` is also `None`;
/// `s[i]` points along `axes[i]` (crop or zero-pad; default the axis length). A
/// repeated axis is transformed once per mention, as in NumPy. `Err` for an axis out of
/// range, `s` and `axes` of different lengths, or a zero length.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::<f64, _>::ones([2, 3, 4]);
/// let y = fft::fftn(&x, None, None, Norm::Backward).unwrap();
/// assert_eq!(y.to_vec()[0].re, 24.0);
/// assert!(y.to_vec()[1..].iter().all(|c| c.norm() < 1e-12));
/// let z = fft::fftn(&x, Some(&[5, 2]), Some(&[0, 2]), Norm::Backward).unwrap();
/// assert_eq!(z.shape(), &[5, 3, 2]);
/// ```
pub fn fftn<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Norm,
) -> Result<Spectrum<T, D>> {
    let op = "fftn";
    run(a, &args::many_axes(a.shape(), s, axes, false, op)?, false, norm, op)
}

/// The inverse of [`fftn`] (NumPy's `ifftn`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::from_shape_fn([3, 4], |i: &[usize]| (i[0] * 4 + i[1]) as f64);
/// let back = fft::ifftn(&fft::fftn(&x, None, None, Norm::Backward).unwrap(), None, None, Norm::Backward).unwrap();
/// assert!(back.to_vec().iter().zip(x.to_vec()).all(|(a, b)| (a.re - b).abs() < 1e-12));
/// ```
pub fn ifftn<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Norm,
) -> Result<Spectrum<T, D>> {
    let op = "ifftn";
    run(a, &args::many_axes(a.shape(), s, axes, false, op)?, true, norm, op)
}

/// The two-dimensional transform (NumPy's `fft2(a, s=None, axes=(-2, -1))`): [`fftn`]
/// over `axes` (pass `&[-2, -1]` for NumPy's default).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::<f32, _>::ones([3, 2, 2]);
/// let y = fft::fft2(&x, None, &[-2, -1], Norm::Backward).unwrap();
/// assert_eq!(y.to_vec()[4].re, 4.0);
/// assert!(fft::fft2(&Tensor::<f32, _>::ones([4]), None, &[-2, -1], Norm::Backward).is_err());
/// ```
pub fn fft2<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    s: Option<&[usize]>,
    axes: &[isize],
    norm: Norm,
) -> Result<Spectrum<T, D>> {
    let op = "fft2";
    run(
        a,
        &args::many_axes(a.shape(), s, Some(axes), false, op)?,
        false,
        norm,
        op,
    )
}

/// The inverse of [`fft2`] (NumPy's `ifft2`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::<f64, _>::ones([2, 2]);
/// let y = fft::ifft2(&x, None, &[-2, -1], Norm::Backward).unwrap();
/// assert_eq!(y.to_vec()[0].re, 1.0);
/// ```
pub fn ifft2<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    s: Option<&[usize]>,
    axes: &[isize],
    norm: Norm,
) -> Result<Spectrum<T, D>> {
    let op = "ifft2";
    run(
        a,
        &args::many_axes(a.shape(), s, Some(axes), false, op)?,
        true,
        norm,
        op,
    )
}
