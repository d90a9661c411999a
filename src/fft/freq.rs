//! Sample frequencies and centring: `fftfreq`, `rfftfreq`, `fftshift`, `ifftshift`.

use crate::element::{Element, Float};
use crate::error::{Error, Result};
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, Ix1};
use crate::manip::{c_strides, copy_into, narrow, owned};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// `1 / (n * d)`, or `Err` when it is not finite (NumPy raises `ZeroDivisionError`).
fn spacing<T: Float>(n: usize, d: T, op: &'static str) -> Result<f64> {
    let v = 1.0 / (n as f64 * d.to_f64());
    if !v.is_finite() {
        return Err(Error::value(
            op,
            format!(
                "window length {n} times sample spacing {:?} must be non-zero",
                d.to_f64()
            ),
        ));
    }
    Ok(v)
}

/// The sample frequencies of an `n`-point [`super::fft`] with sample spacing `d`
/// (NumPy's `fftfreq(n, d=1.0)`): `[0, 1, …, ⌈n/2⌉−1, −⌊n/2⌋, …, −1] / (n·d)`, computed
/// in `f64` and rounded to `T`. `Err` if `n` or `d` is zero.
///
/// ```
/// use ferrotensor::fft::fftfreq;
/// assert_eq!(fftfreq(5, 0.5f64).unwrap().to_vec(), vec![0.0, 0.4, 0.8, -0.8, -0.4]);
/// assert_eq!(fftfreq(4, 1.0f32).unwrap().to_vec(), vec![0.0, 0.25, -0.5, -0.25]);
/// assert!(fftfreq(0, 1.0f64).is_err());
/// ```
pub fn fftfreq<T: Float>(n: usize, d: T) -> Result<Tensor<T, Ix1>> {
    let op = "fftfreq";
    let v = spacing(n, d, op)?;
    let pos = (n - 1) / 2 + 1;
    let data: Vec<T> = (0..n)
        .map(|k| {
            let i = if k < pos { k as f64 } else { k as f64 - n as f64 };
            T::from_f64(i * v)
        })
        .collect();
    owned(data, &[n], op)
}

/// The sample frequencies of an `n`-point [`super::rfft`] (NumPy's `rfftfreq(n, d=1.0)`):
/// `[0, 1, …, ⌊n/2⌋] / (n·d)`. `Err` if `n` or `d` is zero.
///
/// ```
/// use ferrotensor::fft::rfftfreq;
/// assert_eq!(rfftfreq(5, 0.5f64).unwrap().to_vec(), vec![0.0, 0.4, 0.8]);
/// assert_eq!(rfftfreq(4, 1.0f64).unwrap().to_vec(), vec![0.0, 0.25, 0.5]);
/// ```
pub fn rfftfreq<T: Float>(n: usize, d: T) -> Result<Tensor<T, Ix1>> {
    let op = "rfftfreq";
    let v = spacing(n, d, op)?;
    let data: Vec<T> = (0..n / 2 + 1).map(|k| T::from_f64(k as f64 * v)).collect();
    owned(data, &[n / 2 + 1], op)
}

/// `x` rolled by `shift(len)` along each of `axes` (all axes if `None`; a repeated axis
/// rolls once per mention, as NumPy's `roll` with a tuple).
fn roll_axes<T, S, D>(
    x: &TensorBase<S, D>,
    axes: Option<&[isize]>,
    shift: impl Fn(usize) -> isize,
    op: &'static str,
) -> Result<Tensor<T, D>>
where
    T: Element,
    S: Storage<Elem = T>,
    D: Dimension,
{
    let shape = x.shape().to_vec();
    let nd = shape.len();
    let mut by = vec![0usize; nd];
    let all: Vec<isize> = (0..nd as isize).collect();
    for &a in axes.unwrap_or(&all) {
        let k = normalize_axis(a, nd, op)?;
        if shape[k] > 0 {
            by[k] = (by[k] as isize + shift(shape[k])).rem_euclid(shape[k] as isize) as usize;
        }
    }
    let mut out = crate::manip::alloc::<T>(&shape, op)?;
    if out.is_empty() {
        return owned(out, &shape, op);
    }
    let cs = c_strides(&shape);
    let rolled: Vec<usize> = (0..nd).filter(|&k| by[k] > 0).collect();
    // Each rolled axis splits into two pieces (the tail moves to the front); copy every
    // combination of pieces.
    for mask in 0..1usize << rolled.len() {
        let mut v = x.view();
        let mut off = 0usize;
        for (bit, &k) in rolled.iter().enumerate() {
            let (n, s) = (shape[k], by[k]);
            let (start, len, dst) = if (mask >> bit) & 1 == 1 {
                (n - s, s, 0)
            } else {
                (0, n - s, s)
            };
            v = narrow(&v, k, start, len);
            off += dst * cs[k] as usize;
        }
        copy_into(&mut out, &cs, off, &v);
    }
    owned(out, &shape, op)
}

/// Moves the zero-frequency term to the centre (NumPy's `fftshift(x, axes=None)`):
/// rolls each of `axes` (all if `None`) by half its length.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{fftfreq, fftshift};
/// let f = fftfreq(5, 1.0f64).unwrap();
/// assert_eq!(fftshift(&f, None).unwrap().to_vec(), vec![-0.4, -0.2, 0.0, 0.2, 0.4]);
/// let g = Tensor::from_vec((0..6).collect(), [2, 3]).unwrap();
/// assert_eq!(fftshift(&g, Some(&[1])).unwrap().to_vec(), vec![2, 0, 1, 5, 3, 4]);
/// ```
pub fn fftshift<T: Element, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    axes: Option<&[isize]>,
) -> Result<Tensor<T, D>> {
    roll_axes(x, axes, |n| (n / 2) as isize, "fftshift")
}

/// The inverse of [`fftshift`] (NumPy's `ifftshift`; they differ for odd lengths).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::fft::{fftshift, ifftshift};
/// let x = Tensor::from_vec(vec![0, 1, 2, 3, 4], [5]).unwrap();
/// assert_eq!(ifftshift(&fftshift(&x, None).unwrap(), None).unwrap().to_vec(), x.to_vec());
/// assert_eq!(ifftshift(&x, None).unwrap().to_vec(), vec![2, 3, 4, 0, 1]);
/// ```
pub fn ifftshift<T: Element, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    axes: Option<&[isize]>,
) -> Result<Tensor<T, D>> {
    roll_axes(x, axes, |n| -((n / 2) as isize), "ifftshift")
}
