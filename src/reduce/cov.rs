//! Covariance and correlation matrices: NumPy's `cov` and `corrcoef`.

use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn, Order};
use crate::manip::AsView;
use crate::tensor::Tensor;

/// The options of [`cov`] (NumPy's keyword arguments; `Default` is NumPy's defaults).
///
/// ```
/// use ferrotensor::reduce::CovArgs;
/// let a = CovArgs::default();
/// assert!(a.rowvar && !a.bias && a.ddof.is_none());
/// let b = CovArgs { rowvar: false, ddof: Some(0), ..CovArgs::default() };
/// assert!(!b.rowvar);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CovArgs<'a> {
    /// Each row is a variable and each column an observation (`false`: the reverse).
    pub rowvar: bool,
    /// Normalise by `N` instead of `N - 1` (ignored when `ddof` is given).
    pub bias: bool,
    /// Delta degrees of freedom: normalise by `N - ddof` (default `1`, or `0` with `bias`).
    pub ddof: Option<usize>,
    /// Integer frequency weights, one per observation.
    pub fweights: Option<&'a [u64]>,
    /// Observation weights (non-negative), one per observation.
    pub aweights: Option<&'a [f64]>,
}

impl Default for CovArgs<'_> {
    fn default() -> Self {
        CovArgs {
            rowvar: true,
            bias: false,
            ddof: None,
            fweights: None,
            aweights: None,
        }
    }
}

/// The variables of `inputs` as the rows of one `(k, N)` row-major matrix (NumPy's
/// handling of `m` and `y`); `None` when `m` has no variable.
fn variables<T: Float, D: Dimension, V: AsView<T, D>>(
    inputs: &[V],
    rowvar: bool,
    op: &'static str,
) -> Result<Option<(Vec<T>, usize, usize)>> {
    if inputs.is_empty() {
        return Err(Error::value(op, "needs at least one input"));
    }
    let (mut data, mut k, mut n) = (Vec::new(), 0, None);
    for (i, x) in inputs.iter().enumerate() {
        let v = x.as_view().into_dyn();
        let name = if i == 0 { "m" } else { "y" };
        let nd = v.ndim();
        if nd > 2 {
            return Err(Error::shape(
                op,
                format!("{name} has more than 2 dimensions (shape {})", fmt_shape(v.shape())),
            ));
        }
        // NumPy's `array(x, ndmin=2)`, then a transpose for `rowvar=False` (of `m`
        // unless it was 1-D, of `y` unless it has one row).
        let (r, c) = match nd {
            0 => (1, 1),
            1 => (1, v.shape()[0]),
            _ => (v.shape()[0], v.shape()[1]),
        };
        let transpose = !rowvar && if i == 0 { nd != 1 } else { r != 1 };
        let (rows, cols, vals) = if transpose {
            let t = v.reshape(vec![r, c])?;
            (c, r, t.t().to_vec())
        } else {
            (r, c, v.to_vec())
        };
        if i == 0 && rows == 0 {
            return Ok(None);
        }
        if let Some(n) = n
            && n != cols
        {
            return Err(Error::shape(
                op,
                format!("all variables need the same number of observations: {n} and {cols}"),
            ));
        }
        n = Some(cols);
        k += rows;
        data.extend(vals);
    }
    Ok(Some((data, k, n.unwrap_or(0))))
}

fn weights_len(w: usize, n: usize, name: &str, op: &'static str) -> Result<()> {
    if w != n {
        return Err(Error::shape(
            op,
            format!("incompatible numbers of samples and {name}: {n} observations, {w} weights"),
        ));
    }
    Ok(())
}

/// The covariance matrix of the variables in `inputs` (NumPy's `cov(m, y=None, rowvar,
/// bias, ddof, fweights, aweights)`: pass `&[&m]`, or `&[&m, &y]` for NumPy's `y`, whose
/// variables are appended). With `k` variables the result is `(k, k)`, or 0-d for one
/// variable (NumPy's `squeeze`); `(0, 0)` when `m` has none. The result keeps the input
/// precision (NumPy computes in float64). A non-positive `N - ddof` gives infinite or
/// NaN entries, as NumPy's (which also warns). `Err` for inputs with more than 2 axes,
/// different observation counts, or weights of the wrong length or negative.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::reduce::{CovArgs, cov};
/// let x = Tensor::from_vec(vec![0.0f64, 1.0, 2.0, 2.0, 1.0, 0.0], [2, 3]).unwrap();
/// let c = cov(&[&x], &CovArgs::default()).unwrap();
/// assert_eq!(c.to_vec(), vec![1.0, -1.0, -1.0, 1.0]);
/// let v = Tensor::from_vec(vec![1.0f64, 2.0, 4.0], [3]).unwrap();
/// let s = cov(&[&v], &CovArgs { ddof: Some(0), ..CovArgs::default() }).unwrap();
/// assert_eq!(s.shape(), &[] as &[usize]);
/// assert!((s.to_scalar().unwrap() - 14.0 / 9.0).abs() < 1e-12);
/// ```
pub fn cov<T: Float, D: Dimension, V: AsView<T, D>>(inputs: &[V], args: &CovArgs<'_>) -> Result<Tensor<T, IxDyn>> {
    let op = "cov";
    let Some((x, k, n)) = variables(inputs, args.rowvar, op)? else {
        return Tensor::owned_from(Vec::new(), IxDyn::from(&[0, 0][..]), Order::RowMajor, op);
    };
    let ddof = args.ddof.unwrap_or(if args.bias { 0 } else { 1 }) as f64;
    let mut w: Option<Vec<f64>> = None;
    if let Some(f) = args.fweights {
        weights_len(f.len(), n, "fweights", op)?;
        w = Some(f.iter().map(|&v| v as f64).collect());
    }
    if let Some(a) = args.aweights {
        weights_len(a.len(), n, "aweights", op)?;
        if a.iter().any(|&v| v < 0.0) {
            return Err(Error::value(op, "aweights cannot be negative"));
        }
        w = Some(match w {
            Some(f) => f.iter().zip(a).map(|(x, y)| x * y).collect(),
            None => a.to_vec(),
        });
    }
    let w_sum = w.as_ref().map_or(n as f64, |w| w.iter().sum());
    let fact = match (&w, args.aweights) {
        (None, _) => n as f64 - ddof,
        _ if ddof == 0.0 => w_sum,
        (Some(_), None) => w_sum - ddof,
        (Some(w), Some(a)) => w_sum - ddof * w.iter().zip(a).map(|(x, y)| x * y).sum::<f64>() / w_sum,
    };
    let fact = if fact <= 0.0 { 0.0 } else { fact };
    // Centre each variable on its (weighted) mean.
    let mut xc = x;
    if n > 0 {
        for row in xc.chunks_mut(n) {
            let mean = match &w {
                None => row.iter().fold(T::zero(), |s, &v| s + v) / T::from_f64(n as f64),
                Some(w) => {
                    let s = row
                        .iter()
                        .zip(w)
                        .fold(T::zero(), |s, (&v, &wi)| s + v * T::from_f64(wi));
                    s / T::from_f64(w_sum)
                }
            };
            row.iter_mut().for_each(|v| *v = *v - mean);
        }
    } else {
        xc.iter_mut().for_each(|v| *v = T::nan());
    }
    let weighted: Vec<T> = match &w {
        None => xc.clone(),
        Some(w) => xc.iter().enumerate().map(|(i, &v)| v * T::from_f64(w[i % n])).collect(),
    };
    let a = Tensor::from_vec(weighted, [k, n])?;
    let b = Tensor::from_vec(xc, [k, n])?;
    let c = a.matmul(&b.t())?;
    let scale = T::from_f64(1.0 / fact);
    let c = c.mapv(|v| v * scale);
    if k == 1 {
        c.into_shape(Vec::<usize>::new())
    } else {
        Ok(c.into_dyn())
    }
}

/// Pearson correlation coefficients of the variables in `inputs` (NumPy's
/// `corrcoef(x, y=None, rowvar)`: `&[&x]` or `&[&x, &y]`): the covariance normalised by
/// the standard deviations and clipped to `[-1, 1]`; 0-d for one variable (`1`, or NaN
/// for a constant one). `Err` as for [`cov`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::reduce::corrcoef;
/// let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 2.0, 4.0, 6.0, 3.0, 2.0, 1.0], [3, 3]).unwrap();
/// let r = corrcoef(&[&x], true).unwrap();
/// assert_eq!(r.shape(), &[3, 3]);
/// assert!((r.to_vec()[1] - 1.0).abs() < 1e-12 && (r.to_vec()[2] + 1.0).abs() < 1e-12);
/// ```
pub fn corrcoef<T: Float, D: Dimension, V: AsView<T, D>>(inputs: &[V], rowvar: bool) -> Result<Tensor<T, IxDyn>> {
    let c = cov(
        inputs,
        &CovArgs {
            rowvar,
            ..CovArgs::default()
        },
    )
    .map_err(|e| rename(e, "corrcoef"))?;
    if c.ndim() == 0 {
        // NumPy's `c / c`: 1, or NaN for a zero or non-finite variance.
        return Ok(c.mapv(|v| {
            if v.is_finite() && v != T::zero() {
                T::one()
            } else {
                T::nan()
            }
        }));
    }
    let k = c.shape()[0];
    let data = c.to_vec();
    let sd: Vec<T> = (0..k).map(|i| data[i * k + i].sqrt()).collect();
    let out: Vec<T> = data
        .iter()
        .enumerate()
        .map(|(idx, &v)| {
            let r = v / sd[idx / k] / sd[idx % k];
            // NumPy's `clip`: NaN stays NaN.
            if r > T::one() {
                T::one()
            } else if r < -T::one() {
                -T::one()
            } else {
                r
            }
        })
        .collect();
    Tensor::owned_from(out, IxDyn::from(&[k, k][..]), Order::RowMajor, "corrcoef")
}

/// `e` with its operation renamed (errors of a function implemented by another).
fn rename(e: Error, op: &'static str) -> Error {
    let msg = e.to_string();
    let tail = msg.split_once(": ").map_or(msg.as_str(), |p| p.1).to_string();
    match e {
        Error::Shape { .. } => Error::shape(op, tail),
        _ => Error::value(op, tail),
    }
}
