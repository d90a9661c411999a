//! Transforms of real signals: `rfft`, `irfft`, `rfft2`, `irfft2`, `rfftn`, `irfftn`,
//! `hfft`, `ihfft`.

use super::args::{self, Plan};
use super::{FftElement, FftFloat, FftRealElement, Norm, pass};
use crate::error::{Error, Result};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use num_complex::Complex;

/// Output of a real-input transform of `T` with rank type `D`.
type Half<T, D> = Tensor<Complex<<T as FftElement>::Real>, D>;
/// Output of a real-output transform of `T` with rank type `D`.
type Signal<T, D> = Tensor<<T as FftElement>::Real, D>;

/// `n` complex zeros, from zeroed pages (no write pass).
fn complex_zeros<R: FftFloat>(n: usize, op: &'static str) -> Result<Vec<Complex<R>>> {
    let reals = n
        .checked_mul(2)
        .ok_or_else(|| Error::overflow(op, format!("{n} complex elements overflow")))?;
    crate::layout::byte_size::<R>(reals)?;
    Ok(bytemuck::allocation::cast_vec(vec![R::zero(); reals]))
}

/// `n` real zeros.
fn real_zeros<R: FftFloat>(n: usize) -> Result<Vec<R>> {
    crate::layout::byte_size::<R>(n)?;
    Ok(vec![R::zero(); n])
}

fn no_axes(op: &'static str) -> Error {
    Error::axis(op, "needs at least one axis to transform")
}

/// Runs the real-input transform of `plan` on `a` (`rfft` along the last listed axis,
/// complex transforms along the others), conjugating the result if `conj`.
fn forward<T, S, D>(a: &TensorBase<S, D>, plan: &Plan, norm: Norm, conj: bool, op: &'static str) -> Result<Half<T, D>>
where
    T: FftRealElement,
    S: Storage<Elem = T>,
    D: Dimension,
{
    let k = plan.axes.len();
    let (&last, &n) = plan.axes.last().zip(plan.lens.last()).ok_or_else(|| no_axes(op))?;
    let factor = |n: usize| <T::Real as crate::element::Num>::from_f64(norm.factor(n, false));
    let one = <T::Real as num_traits::One>::one();
    let repeats = plan.repeats();
    // Distinct axes crop/pad all at once; repeated ones follow NumPy step by step.
    let mut shape = if repeats {
        let mut s = a.shape().to_vec();
        s[last] = n;
        s
    } else {
        plan.target(a.shape())
    };
    let mut src = args::load(a, &shape, op, |x: T| x.to_real())?;
    let mut cshape = shape.clone();
    cshape[last] = n / 2 + 1;
    let mut buf = complex_zeros::<T::Real>(crate::layout::checked_size(&cshape, op)?, op)?;
    let whole = factor(plan.lens.iter().product());
    let r2c_scale = if repeats {
        factor(n)
    } else if k == 1 {
        whole
    } else {
        one
    };
    pass::r2c(&mut src, &shape, last, &mut buf, r2c_scale, conj);
    drop(src);
    shape = cshape;
    if repeats {
        for i in (0..k - 1).rev() {
            let (ax, len) = (plan.axes[i], plan.lens[i]);
            if shape[ax] != len {
                buf = args::resize_axis(&buf, &shape, ax, len, op)?;
                shape[ax] = len;
            }
            pass::c2c(&mut buf, &shape, ax, false, factor(len));
        }
    } else {
        let mut rest: Vec<usize> = plan.axes[..k - 1].to_vec();
        rest.sort_unstable();
        for (i, &ax) in rest.iter().enumerate() {
            let s = if i + 1 == rest.len() { whole } else { one };
            pass::c2c(&mut buf, &shape, ax, false, s);
        }
    }
    args::tensor(buf, &shape, op)
}

/// Runs the real-output transform of `plan` on `a` (inverse complex transforms along
/// every listed axis but the last, then `irfft` along the last), conjugating the input
/// first if `conj`.
fn inverse<T, S, D>(a: &TensorBase<S, D>, plan: &Plan, norm: Norm, conj: bool, op: &'static str) -> Result<Signal<T, D>>
where
    T: FftElement,
    S: Storage<Elem = T>,
    D: Dimension,
{
    let k = plan.axes.len();
    let (&last, &n) = plan.axes.last().zip(plan.lens.last()).ok_or_else(|| no_axes(op))?;
    let factor = |n: usize| <T::Real as crate::element::Num>::from_f64(norm.factor(n, true));
    let one = <T::Real as num_traits::One>::one();
    let to_c = |x: T| {
        let c = x.to_complex();
        if conj { c.conj() } else { c }
    };
    let m = n / 2 + 1;
    let repeats = plan.repeats();
    let (mut shape, mut buf) = if repeats {
        let mut shape = a.shape().to_vec();
        let mut buf = args::load(a, &shape, op, to_c)?;
        for i in 0..k - 1 {
            let (ax, len) = (plan.axes[i], plan.lens[i]);
            if shape[ax] != len {
                buf = args::resize_axis(&buf, &shape, ax, len, op)?;
                shape[ax] = len;
            }
            pass::c2c(&mut buf, &shape, ax, true, factor(len));
        }
        if shape[last] != m {
            buf = args::resize_axis(&buf, &shape, last, m, op)?;
            shape[last] = m;
        }
        (shape, buf)
    } else {
        let mut shape = plan.target(a.shape());
        shape[last] = m;
        let mut buf = args::load(a, &shape, op, to_c)?;
        let mut rest: Vec<usize> = plan.axes[..k - 1].to_vec();
        rest.sort_unstable();
        for &ax in &rest {
            pass::c2c(&mut buf, &shape, ax, true, one);
        }
        (shape, buf)
    };
    let scale = if repeats {
        factor(n)
    } else {
        factor(plan.lens.iter().product())
    };
    let mut rshape = shape.clone();
    rshape[last] = n;
    let mut out = real_zeros::<T::Real>(crate::layout::checked_size(&rshape, op)?)?;
    pass::c2r(&mut buf, &shape, last, n, &mut out, scale);
    shape = rshape;
    args::tensor(out, &shape, op)
}

/// The transform of a real signal along `axis` (NumPy's `rfft(a, n=None, axis=-1)`):
/// the `n / 2 + 1` non-negative frequency terms of [`super::fft`] (the rest are their
/// conjugates). `n` crops or zero-pads the input (default: the axis length).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// use num_complex::Complex;
/// let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0], [5]).unwrap();
/// let h = fft::rfft(&x, None, 0, Norm::Backward).unwrap();
/// let f = fft::fft(&x, None, 0, Norm::Backward).unwrap();
/// assert_eq!(h.shape(), &[3]);
/// assert!(h.to_vec().iter().zip(f.to_vec()).all(|(a, b)| (a - b).norm() < 1e-4));
/// ```
pub fn rfft<T: FftRealElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<Half<T, D>> {
    let op = "rfft";
    forward(a, &args::one_axis(a.shape(), n, axis, false, op)?, norm, false, op)
}

/// The inverse of [`rfft`] (NumPy's `irfft(a, n=None, axis=-1)`): `n` real points
/// (default `2 * (m - 1)` for `m` input points) from the non-negative frequency terms;
/// the input is cropped or zero-padded to `n / 2 + 1` terms, and the imaginary parts
/// of the zero-frequency and (even `n`) Nyquist terms are ignored.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::from_vec(vec![1.0f64, -2.0, 0.5, 4.0, 3.0], [5]).unwrap();
/// let h = fft::rfft(&x, None, 0, Norm::Backward).unwrap();
/// let back = fft::irfft(&h, Some(5), 0, Norm::Backward).unwrap();
/// assert!(back.to_vec().iter().zip(x.to_vec()).all(|(a, b)| (a - b).abs() < 1e-12));
/// assert_eq!(fft::irfft(&h, None, 0, Norm::Backward).unwrap().shape(), &[4]);
/// ```
pub fn irfft<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<Signal<T, D>> {
    let op = "irfft";
    inverse(a, &args::one_axis(a.shape(), n, axis, true, op)?, norm, false, op)
}

/// The real-input transform over several axes (NumPy's `rfftn(a, s=None, axes=None)`):
/// [`rfft`] along the last axis of `axes`, then complex transforms along the others.
/// Axes and lengths follow [`super::fftn`]; `Err` if there is no axis.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::<f64, _>::ones([4, 6]);
/// let y = fft::rfftn(&x, None, None, Norm::Backward).unwrap();
/// assert_eq!(y.shape(), &[4, 4]);
/// assert_eq!(y.to_vec()[0].re, 24.0);
/// ```
pub fn rfftn<T: FftRealElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Norm,
) -> Result<Half<T, D>> {
    let op = "rfftn";
    forward(a, &args::many_axes(a.shape(), s, axes, false, op)?, norm, false, op)
}

/// The inverse of [`rfftn`] (NumPy's `irfftn(a, s=None, axes=None)`): `s[-1]` defaults to
/// `2 * (m - 1)` for `m` points along the last axis.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::from_shape_fn([3, 5], |i: &[usize]| (i[0] * 5 + i[1]) as f64);
/// let y = fft::rfftn(&x, None, None, Norm::Ortho).unwrap();
/// let back = fft::irfftn(&y, Some(&[3, 5]), None, Norm::Ortho).unwrap();
/// assert!(back.to_vec().iter().zip(x.to_vec()).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
pub fn irfftn<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Norm,
) -> Result<Signal<T, D>> {
    let op = "irfftn";
    inverse(a, &args::many_axes(a.shape(), s, axes, true, op)?, norm, false, op)
}

/// [`rfftn`] over two axes (NumPy's `rfft2(a, s=None, axes=(-2, -1))`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let y = fft::rfft2(&Tensor::<f32, _>::ones([2, 3, 4]), None, &[-2, -1], Norm::Backward).unwrap();
/// assert_eq!(y.shape(), &[2, 3, 3]);
/// ```
pub fn rfft2<T: FftRealElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    s: Option<&[usize]>,
    axes: &[isize],
    norm: Norm,
) -> Result<Half<T, D>> {
    let op = "rfft2";
    forward(
        a,
        &args::many_axes(a.shape(), s, Some(axes), false, op)?,
        norm,
        false,
        op,
    )
}

/// [`irfftn`] over two axes (NumPy's `irfft2(a, s=None, axes=(-2, -1))`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::<f64, _>::ones([4, 4]);
/// let y = fft::irfft2(&fft::rfft2(&x, None, &[-2, -1], Norm::Backward).unwrap(), Some(&[4, 4]), &[-2, -1], Norm::Backward).unwrap();
/// assert!(y.to_vec().iter().all(|v| (v - 1.0).abs() < 1e-12));
/// ```
pub fn irfft2<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    s: Option<&[usize]>,
    axes: &[isize],
    norm: Norm,
) -> Result<Signal<T, D>> {
    let op = "irfft2";
    inverse(
        a,
        &args::many_axes(a.shape(), s, Some(axes), true, op)?,
        norm,
        false,
        op,
    )
}

/// The transform of a signal with Hermitian symmetry (NumPy's `hfft(a, n=None,
/// axis=-1)`): `a` holds the non-negative frequency half, the result is real with `n`
/// points (default `2 * (m - 1)`). It equals `irfft(conj(a), n)` with the [`Norm`]
/// direction swapped.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// use num_complex::Complex;
/// let h = Tensor::from_vec(vec![Complex::new(1.0f64, 0.0), Complex::new(2.0, 1.0), Complex::new(3.0, 0.0)], [3]).unwrap();
/// let x = fft::hfft(&h, None, 0, Norm::Backward).unwrap();
/// assert_eq!(x.shape(), &[4]);
/// assert!((x.to_vec()[0] - 8.0).abs() < 1e-12);
/// ```
pub fn hfft<T: FftElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<Signal<T, D>> {
    let op = "hfft";
    inverse(
        a,
        &args::one_axis(a.shape(), n, axis, true, op)?,
        norm.swapped(),
        true,
        op,
    )
}

/// The inverse of [`hfft`] (NumPy's `ihfft(a, n=None, axis=-1)`): the conjugate of
/// [`rfft`] with the [`Norm`] direction swapped (`n / 2 + 1` terms).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{self, Norm};
/// let x = Tensor::from_vec(vec![8.0f64, -1.0, -2.0, -1.0], [4]).unwrap();
/// let h = fft::ihfft(&x, None, 0, Norm::Backward).unwrap();
/// let back = fft::hfft(&h, Some(4), 0, Norm::Backward).unwrap();
/// assert!(back.to_vec().iter().zip(x.to_vec()).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
pub fn ihfft<T: FftRealElement, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<Half<T, D>> {
    let op = "ihfft";
    forward(
        a,
        &args::one_axis(a.shape(), n, axis, false, op)?,
        norm.swapped(),
        true,
        op,
    )
}
