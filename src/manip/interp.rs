//! One-dimensional piecewise-linear interpolation: NumPy's `interp`.

use super::owned;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// NumPy's `binary_search_with_guess` without the guess: `-1` below the first point,
/// `len` above the last, else the last index `j` with `xp[j] <= x`.
fn search(x: f64, xp: &[f64]) -> isize {
    let n = xp.len();
    if x < xp[0] {
        return -1;
    }
    if x > xp[n - 1] {
        return n as isize;
    }
    xp.partition_point(|&p| p <= x) as isize - 1
}

/// NumPy's interpolation kernel (`arr_interp` in `compiled_base.c`), in f64.
fn interp_one(x: f64, xp: &[f64], fp: &[f64], left: f64, right: f64) -> f64 {
    let n = xp.len();
    if n == 1 {
        return if x < xp[0] {
            left
        } else if x > xp[0] {
            right
        } else {
            fp[0]
        };
    }
    if x.is_nan() {
        return x;
    }
    let j = search(x, xp);
    if j == -1 {
        return left;
    }
    if j == n as isize {
        return right;
    }
    let j = j as usize;
    if j == n - 1 || xp[j] == x {
        return fp[j];
    }
    let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    let r = slope * (x - xp[j]) + fp[j];
    if !r.is_nan() {
        return r;
    }
    // NaN one way (infinite values): try from the other end, as NumPy.
    let r = slope * (x - xp[j + 1]) + fp[j + 1];
    if r.is_nan() && fp[j] == fp[j + 1] { fp[j] } else { r }
}

/// The piecewise-linear interpolant through `(xp[i], fp[i])` evaluated at each element
/// of `x` (NumPy's `interp(x, xp, fp, left=None, right=None, period=None)`); `xp` must be
/// increasing (not checked, as in NumPy). Outside the points the result is `left` /
/// `right` (default `fp[0]` / `fp[-1]`); NaN in `x` gives NaN. With `period`, `x` and
/// `xp` are taken modulo `|period|` and `left`/`right` are ignored. Computed in `f64`
/// (as NumPy) and rounded to `T`. `Err` if `xp` or `fp` is not 1-D, their lengths
/// differ, they are empty, or `period` is zero.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::manip::interp;
/// let xp = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3]).unwrap();
/// let fp = Tensor::from_vec(vec![3.0, 2.0, 0.0], [3]).unwrap();
/// let x = Tensor::from_vec(vec![0.0, 1.5, 2.72, 3.14], [2, 2]).unwrap();
/// let y = interp(&x, &xp, &fp, None, None, None).unwrap();
/// assert_eq!(y.shape(), &[2, 2]);
/// assert!((y.to_vec()[2] - 0.56).abs() < 1e-12 && y.to_vec()[0] == 3.0 && y.to_vec()[3] == 0.0);
/// ```
pub fn interp<T, S, D, S2, D2, S3, D3>(
    x: &TensorBase<S, D>,
    xp: &TensorBase<S2, D2>,
    fp: &TensorBase<S3, D3>,
    left: Option<T>,
    right: Option<T>,
    period: Option<T>,
) -> Result<Tensor<T, D>>
where
    T: Float,
    S: Storage<Elem = T>,
    D: Dimension,
    S2: Storage<Elem = T>,
    D2: Dimension,
    S3: Storage<Elem = T>,
    D3: Dimension,
{
    let op = "interp";
    if xp.ndim() != 1 || fp.ndim() != 1 {
        return Err(Error::shape(
            op,
            format!(
                "data points must be 1-D sequences, got xp {} and fp {}",
                fmt_shape(xp.shape()),
                fmt_shape(fp.shape())
            ),
        ));
    }
    if xp.size() != fp.size() {
        return Err(Error::shape(
            op,
            format!("fp and xp are not of the same length: {} and {}", fp.size(), xp.size()),
        ));
    }
    if xp.size() == 0 {
        return Err(Error::value(op, "array of sample points is empty"));
    }
    let f64s = |t: &dyn Fn() -> Vec<T>| -> Vec<f64> { t().into_iter().map(|v| v.to_f64()).collect() };
    let (mut xs, mut xps, mut fps) = (f64s(&|| x.to_vec()), f64s(&|| xp.to_vec()), f64s(&|| fp.to_vec()));
    let (mut lo, mut hi) = (
        left.map_or(fps[0], |v| v.to_f64()),
        right.map_or(fps[fps.len() - 1], |v| v.to_f64()),
    );
    if let Some(p) = period {
        let p = p.to_f64();
        if p == 0.0 {
            return Err(Error::value(op, "period must be a non-zero value"));
        }
        let p = p.abs();
        // Python's `%` (the sign of the divisor).
        let pmod = |v: f64| {
            let r = v % p;
            if r != 0.0 && r < 0.0 { r + p } else { r }
        };
        xs.iter_mut().for_each(|v| *v = pmod(*v));
        let mut pts: Vec<(f64, f64)> = xps.iter().map(|&v| pmod(v)).zip(fps.iter().copied()).collect();
        pts.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        let (first, last) = (pts[0], pts[pts.len() - 1]);
        xps = std::iter::once(last.0 - p)
            .chain(pts.iter().map(|q| q.0))
            .chain(std::iter::once(first.0 + p))
            .collect();
        fps = std::iter::once(last.1)
            .chain(pts.iter().map(|q| q.1))
            .chain(std::iter::once(first.1))
            .collect();
        lo = fps[0];
        hi = fps[fps.len() - 1];
    }
    let out: Vec<T> = xs
        .iter()
        .map(|&v| T::from_f64(interp_one(v, &xps, &fps, lo, hi)))
        .collect();
    owned(out, x.shape(), op)
}
