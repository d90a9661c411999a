//! Discrete linear convolution and cross-correlation of 1-D sequences: NumPy's
//! `convolve` and `correlate`.

use super::owned;
use crate::element::Num;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix1};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use std::str::FromStr;

/// The output size of [`convolve`] and [`correlate`] (NumPy's `mode`), for inputs of
/// lengths `n ≥ m`.
///
/// ```
/// use ferrotensor::manip::ConvolveMode;
/// assert_eq!("same".parse::<ConvolveMode>().unwrap(), ConvolveMode::Same);
/// assert!("circular".parse::<ConvolveMode>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvolveMode {
    /// Every overlap: `n + m − 1` values (`convolve`'s default).
    Full,
    /// `n` values, centred on the full result.
    Same,
    /// Only complete overlaps: `n − m + 1` values (`correlate`'s default).
    Valid,
}

impl FromStr for ConvolveMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "full" => Ok(ConvolveMode::Full),
            "same" => Ok(ConvolveMode::Same),
            "valid" => Ok(ConvolveMode::Valid),
            _ => Err(Error::value(
                "convolve",
                format!("mode must be one of 'valid', 'same', or 'full', got {s:?}"),
            )),
        }
    }
}

fn dot<T: Num>(a: &[T], b: &[T]) -> T {
    a.iter().zip(b).fold(T::zero(), |s, (&x, &y)| s.wadd(x.wmul(y)))
}

/// NumPy's `_pyarray_correlate`: the correlation of the longer sequence with the
/// shorter one, reversed when the inputs were swapped.
fn correlate_core<T: Num>(a: &[T], v: &[T], mode: ConvolveMode) -> Vec<T> {
    let (x, y, inverted) = if a.len() < v.len() { (v, a, true) } else { (a, v, false) };
    let (n1, n) = (x.len(), y.len());
    let (n_left, n_right) = match mode {
        ConvolveMode::Valid => (0, 0),
        ConvolveMode::Same => (n / 2, n - n / 2 - 1),
        ConvolveMode::Full => (n - 1, n - 1),
    };
    let mut out = Vec::with_capacity(n1 + n_left + n_right - (n - 1));
    let (mut count, mut off2) = (n - n_left, n_left);
    for _ in 0..n_left {
        out.push(dot(&x[..count], &y[off2..off2 + count]));
        count += 1;
        off2 -= 1;
    }
    let mut off1 = 0;
    for _ in 0..n1 - n + 1 {
        out.push(dot(&x[off1..off1 + count], &y[..count]));
        off1 += 1;
    }
    for _ in 0..n_right {
        count -= 1;
        out.push(dot(&x[off1..off1 + count], &y[..count]));
        off1 += 1;
    }
    if inverted {
        out.reverse();
    }
    out
}

/// The elements of a 1-D (or 0-d) input, `Err` naming it otherwise or when empty.
fn sequence<T: Num, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    name: &str,
    op: &'static str,
) -> Result<Vec<T>> {
    if x.ndim() > 1 {
        return Err(Error::shape(
            op,
            format!("{name} must be 1-D, got shape {}", fmt_shape(x.shape())),
        ));
    }
    if x.size() == 0 {
        return Err(Error::value(op, format!("{name} cannot be empty")));
    }
    Ok(x.to_vec())
}

/// The discrete linear convolution of two 1-D sequences (NumPy's `convolve(a, v,
/// mode)`): `(a ∗ v)[k] = Σ a[i]·v[k − i]`, over the overlaps `mode` selects. Integers
/// wrap on overflow. `Err` for an empty or multi-dimensional input.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::manip::{ConvolveMode, convolve};
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3]).unwrap();
/// let v = Tensor::from_vec(vec![0.0, 1.0, 0.5], [3]).unwrap();
/// assert_eq!(convolve(&a, &v, ConvolveMode::Full).unwrap().to_vec(), vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// assert_eq!(convolve(&a, &v, ConvolveMode::Same).unwrap().to_vec(), vec![1.0, 2.5, 4.0]);
/// assert_eq!(convolve(&a, &v, ConvolveMode::Valid).unwrap().to_vec(), vec![2.5]);
/// ```
pub fn convolve<T: Num, S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    a: &TensorBase<S, D>,
    v: &TensorBase<S2, D2>,
    mode: ConvolveMode,
) -> Result<Tensor<T, Ix1>> {
    let op = "convolve";
    let (mut a, mut v) = (sequence(a, "a", op)?, sequence(v, "v", op)?);
    if v.len() > a.len() {
        std::mem::swap(&mut a, &mut v);
    }
    v.reverse();
    let out = correlate_core(&a, &v, mode);
    let n = out.len();
    owned(out, &[n], op)
}

/// The cross-correlation of two 1-D sequences (NumPy's `correlate(a, v, mode)`):
/// `c[k] = Σ a[n + k]·conj(v[n])`, over the overlaps `mode` selects (NumPy's default
/// is [`ConvolveMode::Valid`]). `Err` for an empty or multi-dimensional input.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::manip::{ConvolveMode, correlate};
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3]).unwrap();
/// let v = Tensor::from_vec(vec![0.0, 1.0, 0.5], [3]).unwrap();
/// assert_eq!(correlate(&a, &v, ConvolveMode::Valid).unwrap().to_vec(), vec![3.5]);
/// assert_eq!(correlate(&a, &v, ConvolveMode::Full).unwrap().to_vec(), vec![0.5, 2.0, 3.5, 3.0, 0.0]);
/// ```
pub fn correlate<T: Num, S: Storage<Elem = T>, D: Dimension, S2: Storage<Elem = T>, D2: Dimension>(
    a: &TensorBase<S, D>,
    v: &TensorBase<S2, D2>,
    mode: ConvolveMode,
) -> Result<Tensor<T, Ix1>> {
    let op = "correlate";
    let a = sequence(a, "a", op)?;
    let v: Vec<T> = sequence(v, "v", op)?.into_iter().map(|x| x.conj()).collect();
    let out = correlate_core(&a, &v, mode);
    let n = out.len();
    owned(out, &[n], op)
}
