//! Counting values: NumPy's `histogram` (counts, weighted sums, densities) and
//! `bincount`.

use crate::element::{Float, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, Ix1};
use crate::manip::IndexElement;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// The `bins` argument of [`TensorBase::histogram`]: a number of equal-width bins over
/// the range, or the bin edges (non-decreasing; the last bin includes its right edge).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::reduce::Bins;
/// let a = Tensor::from_vec(vec![0.5f64, 1.5, 1.5, 3.0], [4]).unwrap();
/// let (n, e) = a.histogram(Bins::Count(3), None).unwrap();
/// assert_eq!((n.to_vec(), e.to_vec()), (vec![1, 2, 1], vec![0.5, 1.3333333333333335, 2.166666666666667, 3.0]));
/// let (n, _) = a.histogram(Bins::Edges(&[0.0, 1.0, 3.0]), None).unwrap();
/// assert_eq!(n.to_vec(), vec![1, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bins<'a, T> {
    /// This many equal-width bins (at least 1).
    Count(usize),
    /// These bin edges.
    Edges(&'a [T]),
}

/// Bin edges and, for equal-width bins, NumPy's fast index computation.
struct Binning<T> {
    edges: Vec<T>,
    uniform: bool,
}

impl<T: Float> Binning<T> {
    /// NumPy's `_get_bin_edges` for a count or explicit edges.
    fn new(data: &[T], bins: Bins<'_, T>, range: Option<(T, T)>, op: &'static str) -> Result<Self> {
        match bins {
            Bins::Edges(e) => {
                if e.is_empty() {
                    return Err(Error::value(op, "`bins` must have at least one edge"));
                }
                if e.windows(2).any(|w| w[0] > w[1]) {
                    return Err(Error::value(op, "`bins` must increase monotonically, when an array"));
                }
                Ok(Binning {
                    edges: e.to_vec(),
                    uniform: false,
                })
            }
            Bins::Count(0) => Err(Error::value(op, "`bins` must be positive, when an integer")),
            Bins::Count(n) => {
                let (mut first, mut last) = match range {
                    Some((a, b)) => {
                        if a > b {
                            return Err(Error::value(op, "max must be larger than min in range parameter"));
                        }
                        if !(a.is_finite() && b.is_finite()) {
                            return Err(Error::value(
                                op,
                                format!("supplied range of [{}, {}] is not finite", a.to_f64(), b.to_f64()),
                            ));
                        }
                        (a, b)
                    }
                    None if data.is_empty() => (T::zero(), T::one()),
                    None => {
                        let (mut lo, mut hi) = (data[0], data[0]);
                        for &x in data {
                            // NaN propagates, as NumPy's min/max.
                            if x.is_nan() || lo.is_nan() {
                                lo = T::nan();
                                hi = T::nan();
                                break;
                            }
                            lo = lo.min(x);
                            hi = hi.max(x);
                        }
                        if !(lo.is_finite() && hi.is_finite()) {
                            return Err(Error::value(
                                op,
                                format!("autodetected range of [{}, {}] is not finite", lo.to_f64(), hi.to_f64()),
                            ));
                        }
                        (lo, hi)
                    }
                };
                if first == last {
                    first = first - T::from_f64(0.5);
                    last = last + T::from_f64(0.5);
                }
                // NumPy's `linspace(first, last, n + 1)` in the edges' type.
                let step = (last - first) / T::from_usize(n);
                let mut edges: Vec<T> = (0..=n).map(|i| T::from_usize(i) * step + first).collect();
                edges[n] = last;
                if edges.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(Error::value(
                        op,
                        format!("too many bins for data range: cannot create {n} finite-sized bins"),
                    ));
                }
                Ok(Binning { edges, uniform: true })
            }
        }
    }

    fn bins(&self) -> usize {
        self.edges.len() - 1
    }

    /// The bin of `x`, or `None` outside the edges (and for NaN).
    fn index(&self, x: T) -> Option<usize> {
        let e = &self.edges;
        let nb = self.bins();
        let (first, last) = (e[0], e[nb]);
        if !(x >= first && x <= last) || nb == 0 {
            return None;
        }
        if self.uniform {
            // NumPy's computation, then its corrections against the edges.
            let f = (x - first) / (last - first) * T::from_usize(nb);
            let mut i = f.to_f64() as usize;
            if i == nb {
                i -= 1;
            }
            if x < e[i] {
                i -= 1;
            }
            if x >= e[i + 1] && i != nb - 1 {
                i += 1;
            }
            return Some(i);
        }
        // The last edge whose value is <= x among the left edges.
        let left = &e[..nb];
        Some(left.partition_point(|&b| b <= x) - 1)
    }
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Bins of every element and the edges.
    fn bin_all(
        &self,
        bins: Bins<'_, T>,
        range: Option<(T, T)>,
        op: &'static str,
    ) -> Result<(Vec<Option<usize>>, Binning<T>)> {
        let data = self.to_vec();
        let b = Binning::new(&data, bins, range, op)?;
        Ok((data.iter().map(|&x| b.index(x)).collect(), b))
    }

    /// The histogram of all elements (NumPy's `histogram(a, bins, range)`): counts per
    /// bin and the bin edges. Values outside `range` (default: the data's minimum and
    /// maximum, widened by ±0.5 if equal, `[0, 1]` for empty input) and NaNs are not
    /// counted. `Err` for zero bins, non-monotonic edges, an inverted or non-finite
    /// range, or NaN/infinite data without a range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::Bins;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 1.0], [3]).unwrap();
    /// let (n, e) = a.histogram(Bins::Count(2), Some((0.0, 2.0))).unwrap();
    /// assert_eq!((n.to_vec(), e.to_vec()), (vec![0, 3], vec![0.0, 1.0, 2.0]));
    /// ```
    pub fn histogram(&self, bins: Bins<'_, T>, range: Option<(T, T)>) -> Result<(Tensor<i64, Ix1>, Tensor<T, Ix1>)> {
        let op = "histogram";
        let (idx, b) = self.bin_all(bins, range, op)?;
        let mut n = vec![0i64; b.bins()];
        for i in idx.into_iter().flatten() {
            n[i] += 1;
        }
        let nb = n.len();
        Ok((Tensor::from_vec(n, [nb])?, Tensor::from_vec(b.edges, [nb + 1])?))
    }

    /// The weighted histogram (NumPy's `histogram(a, bins, range, weights=w)`): the sum
    /// of `weights` (same shape as the input, any element type) per bin, and the edges.
    /// `Err` as [`TensorBase::histogram`], or if the shapes differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::Bins;
    /// let a = Tensor::from_vec(vec![0.1f64, 0.9, 0.4], [3]).unwrap();
    /// let w = Tensor::from_vec(vec![2i32, 5, 1], [3]).unwrap();
    /// let (s, _) = a.histogram_weighted(Bins::Count(2), Some((0.0, 1.0)), &w).unwrap();
    /// assert_eq!(s.to_vec(), vec![3, 5]);
    /// ```
    pub fn histogram_weighted<W: Num, S2: Storage<Elem = W>, D2: Dimension>(
        &self,
        bins: Bins<'_, T>,
        range: Option<(T, T)>,
        weights: &TensorBase<S2, D2>,
    ) -> Result<(Tensor<W, Ix1>, Tensor<T, Ix1>)> {
        let op = "histogram";
        if weights.shape() != self.shape() {
            return Err(Error::shape(
                op,
                format!(
                    "weights should have the same shape as a: {} and {}",
                    fmt_shape(weights.shape()),
                    fmt_shape(self.shape())
                ),
            ));
        }
        let (idx, b) = self.bin_all(bins, range, op)?;
        let mut s = vec![W::zero(); b.bins()];
        for (i, w) in idx.into_iter().zip(weights.iter()) {
            if let Some(i) = i {
                s[i] = s[i].wadd(*w);
            }
        }
        let nb = s.len();
        Ok((Tensor::from_vec(s, [nb])?, Tensor::from_vec(b.edges, [nb + 1])?))
    }

    /// The histogram as a probability density (NumPy's `histogram(..., density=True)`,
    /// optionally weighted): counts (or weight sums) divided by their total and by each
    /// bin's width, so that the density integrates to 1 over the range. A total of zero
    /// gives NaN, as NumPy's.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::Bins;
    /// let a = Tensor::from_vec(vec![0.5f64, 1.5, 1.5, 1.5], [4]).unwrap();
    /// let (d, _) = a.histogram_density(Bins::Edges(&[0.0, 1.0, 3.0]), None, None).unwrap();
    /// assert_eq!(d.to_vec(), vec![0.25, 0.375]);
    /// ```
    pub fn histogram_density(
        &self,
        bins: Bins<'_, T>,
        range: Option<(T, T)>,
        weights: Option<&[f64]>,
    ) -> Result<(Tensor<f64, Ix1>, Tensor<T, Ix1>)> {
        let op = "histogram";
        if let Some(w) = weights
            && w.len() != self.size()
        {
            return Err(Error::shape(
                op,
                format!("{} weights for an input of shape {}", w.len(), fmt_shape(self.shape())),
            ));
        }
        let (idx, b) = self.bin_all(bins, range, op)?;
        let mut s = vec![0f64; b.bins()];
        for (k, i) in idx.into_iter().enumerate() {
            if let Some(i) = i {
                s[i] += weights.map_or(1.0, |w| w[k]);
            }
        }
        let total: f64 = s.iter().sum();
        let dens: Vec<f64> = s
            .iter()
            .zip(b.edges.windows(2))
            .map(|(&v, e)| v / (e[1] - e[0]).to_f64() / total)
            .collect();
        let nb = dens.len();
        Ok((Tensor::from_vec(dens, [nb])?, Tensor::from_vec(b.edges, [nb + 1])?))
    }
}

impl<T: IndexElement, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    fn bin_values(&self, minlength: usize, op: &'static str) -> Result<(Vec<usize>, usize)> {
        if self.ndim() != 1 {
            return Err(Error::shape(
                op,
                format!("input must be 1-dimensional, got shape {}", fmt_shape(self.shape())),
            ));
        }
        let mut len = minlength;
        let mut v = Vec::with_capacity(self.size());
        for &x in self.iter() {
            let i = x.to_i128();
            if i < 0 {
                return Err(Error::value(
                    op,
                    format!("input must have no negative elements, found {i}"),
                ));
            }
            let i = usize::try_from(i).map_err(|_| Error::value(op, format!("value {i} is too large")))?;
            len = len.max(i + 1);
            v.push(i);
        }
        crate::layout::byte_size::<i64>(len)?;
        Ok((v, len))
    }

    /// Occurrences of each value `0..=max` in a 1-D tensor of non-negative integers
    /// (NumPy's `bincount(x, minlength=...)`); the result has at least `minlength`
    /// entries. `Err` for a negative value or an input that is not 1-D.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::from_vec(vec![0i64, 1, 1, 3, 2, 1, 7], [7]).unwrap();
    /// assert_eq!(x.bincount(0).unwrap().to_vec(), vec![1, 3, 1, 1, 0, 0, 0, 1]);
    /// assert_eq!(Tensor::<i32, _>::zeros([0]).bincount(3).unwrap().to_vec(), vec![0, 0, 0]);
    /// assert!(Tensor::from_vec(vec![-1i32], [1]).unwrap().bincount(0).is_err());
    /// ```
    pub fn bincount(&self, minlength: usize) -> Result<Tensor<i64, Ix1>> {
        let (v, len) = self.bin_values(minlength, "bincount")?;
        let mut n = vec![0i64; len];
        v.into_iter().for_each(|i| n[i] += 1);
        Tensor::from_vec(n, [len])
    }

    /// The sum of `weights` per value (NumPy's `bincount(x, weights, minlength)`, in
    /// `f64` as NumPy). `Err` as [`TensorBase::bincount`], or if the lengths differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::from_vec(vec![0u8, 1, 1, 2, 2, 2], [6]).unwrap();
    /// let w = Tensor::from_vec(vec![0.3f32, 0.5, 0.2, 0.7, 1.0, -0.6], [6]).unwrap();
    /// let s = x.bincount_weighted(&w, 0).unwrap().to_vec();
    /// assert!((s[1] - 0.7).abs() < 1e-7 && (s[2] - 1.1).abs() < 1e-7);
    /// ```
    pub fn bincount_weighted<W: Num, S2: Storage<Elem = W>, D2: Dimension>(
        &self,
        weights: &TensorBase<S2, D2>,
        minlength: usize,
    ) -> Result<Tensor<f64, Ix1>> {
        let op = "bincount";
        let (v, len) = self.bin_values(minlength, op)?;
        if weights.ndim() != 1 || weights.size() != v.len() {
            return Err(Error::shape(
                op,
                format!(
                    "the weights and list don't have the same length: shapes {} and {}",
                    fmt_shape(weights.shape()),
                    fmt_shape(self.shape())
                ),
            ));
        }
        let mut s = vec![0f64; len];
        for (i, w) in v.into_iter().zip(weights.iter()) {
            s[i] += w.as_f64();
        }
        Tensor::from_vec(s, [len])
    }
}
