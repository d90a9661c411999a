//! `median`, `quantile`, `percentile` and their NaN-skipping twins, by selection.

use super::Spec;
use super::quantile::{Pick, QuantileMethod, check_q, median_pick, pick};
use super::select;
use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::permute_layout;
use crate::layout::{Dimension, IxDyn, Order};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// A quantile function: whether it skips NaN, the scale of `q` (1 or 100), its name.
#[derive(Clone, Copy)]
struct Flavor {
    skip_nan: bool,
    scale: f64,
    op: &'static str,
}

const QUANTILE: Flavor = Flavor {
    skip_nan: false,
    scale: 1.0,
    op: "quantile",
};
const NANQUANTILE: Flavor = Flavor {
    skip_nan: true,
    scale: 1.0,
    op: "nanquantile",
};
const PERCENTILE: Flavor = Flavor {
    skip_nan: false,
    scale: 100.0,
    op: "percentile",
};
const NANPERCENTILE: Flavor = Flavor {
    skip_nan: true,
    scale: 100.0,
    op: "nanpercentile",
};

/// What to compute per lane.
enum Want<'a> {
    Median,
    Quantiles(&'a [f64], QuantileMethod),
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// The values `want` asks of the lanes over `axes` (`None`: all), `q`-shape axes
    /// first, then the kept axes (as length 1 with `keepdims`).
    fn order_stats(
        &self,
        axes: Option<&[isize]>,
        want: Want<'_>,
        q_shape: &[usize],
        skip_nan: bool,
        keepdims: bool,
        op: &'static str,
    ) -> Result<Tensor<T, IxDyn>> {
        let spec = Spec::new(self.shape(), axes, op)?;
        let (lanes, m) = (spec.n_out(), spec.n_red);
        if let Want::Quantiles(..) = want
            && m == 0
            && lanes > 0
            && !skip_nan
        {
            return Err(Error::value(
                op,
                format!(
                    "cannot take a quantile over an empty axis (shape {})",
                    fmt_shape(self.shape())
                ),
            ));
        }
        // Kept axes first, reduced axes last: each lane is then contiguous in the copy.
        let kept = spec.mask.iter().enumerate().filter(|p| !*p.1).map(|p| p.0 as isize);
        let red = spec.mask.iter().enumerate().filter(|p| *p.1).map(|p| p.0 as isize);
        let order: Vec<isize> = kept.chain(red).collect();
        let layout = permute_layout(&self.layout.clone().into_dyn(), &order)?;
        let mut data = crate::iter::gather_c_order(self.buffer(), &layout);
        let (count, picks): (usize, Box<dyn Fn(usize) -> Vec<Pick> + Sync>) = match want {
            Want::Median => (1, Box::new(|n| vec![median_pick(n)])),
            Want::Quantiles(qs, method) => (
                qs.len(),
                Box::new(move |n| qs.iter().map(|&q| pick(method, n, q)).collect()),
            ),
        };
        let out = select::lanes(&mut data, lanes, m, count, skip_nan, &picks);
        let tail = if keepdims { &spec.keep_shape } else { &spec.out_shape };
        let shape: Vec<usize> = q_shape.iter().chain(tail).copied().collect();
        Tensor::owned_from(out, IxDyn::from(&shape[..]), Order::RowMajor, op)
    }

    fn quantile_impl<S2: Storage<Elem = f64>, D2: Dimension>(
        &self,
        q: &TensorBase<S2, D2>,
        axes: Option<&[isize]>,
        method: QuantileMethod,
        keepdims: bool,
        f: Flavor,
    ) -> Result<Tensor<T, IxDyn>> {
        let qs: Vec<f64> = q.iter().map(|&x| x / f.scale).collect();
        check_q(&qs, f.op, f.scale)?;
        self.order_stats(
            axes,
            Want::Quantiles(&qs, method),
            q.shape(),
            f.skip_nan,
            keepdims,
            f.op,
        )
    }

    fn quantile_all(&self, q: f64, method: QuantileMethod, f: Flavor) -> Result<T> {
        let r = self.quantile_impl(&Tensor::scalar(q), None, method, false, f)?;
        Ok(r.into_vec()[0])
    }

    /// The median of all elements (NumPy's `median(a)`): the middle value of the sorted
    /// elements, or the mean of the two middle ones; NaN if any element is NaN or the
    /// tensor is empty. Found by selection, not a full sort.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3.0f32, 1.0, 4.0, 1.0, 5.0, 9.0], [2, 3]).unwrap();
    /// assert_eq!(a.median(), 3.5);
    /// assert!(Tensor::from_vec(vec![1.0f64, f64::NAN], [2]).unwrap().median().is_nan());
    /// ```
    pub fn median(&self) -> T {
        let r = self.order_stats(None, Want::Median, &[], false, false, "median");
        r.map(|t| t.into_vec()[0]).unwrap_or_else(|_| T::nan())
    }

    /// The median over `axes` (NumPy's `median(a, axis=axes, keepdims=keepdims)`); an
    /// empty lane gives NaN. `&[]` reduces nothing. `Err` for an axis out of range or
    /// repeated.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3.0f64, 1.0, 4.0, 1.0, 5.0, 9.0], [2, 3]).unwrap();
    /// assert_eq!(a.median_axes(&[1], false).unwrap().to_vec(), vec![3.0, 5.0]);
    /// assert_eq!(a.median_axes(&[0], true).unwrap().shape(), &[1, 3]);
    /// ```
    pub fn median_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.order_stats(Some(axes), Want::Median, &[], false, keepdims, "median")
    }

    /// The median of the non-NaN elements (NumPy's `nanmedian(a)`); NaN if there are none.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3.0f64, f64::NAN, 1.0, 2.0], [4]).unwrap();
    /// assert_eq!(a.nanmedian(), 2.0);
    /// ```
    pub fn nanmedian(&self) -> T {
        let r = self.order_stats(None, Want::Median, &[], true, false, "nanmedian");
        r.map(|t| t.into_vec()[0]).unwrap_or_else(|_| T::nan())
    }

    /// [`TensorBase::nanmedian`] over `axes` (NumPy's `nanmedian(a, axis=axes)`); a lane
    /// without non-NaN values gives NaN.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![f64::NAN, 1.0, 2.0, f64::NAN, f64::NAN, f64::NAN], [2, 3]).unwrap();
    /// let m = a.nanmedian_axes(&[1], false).unwrap().to_vec();
    /// assert_eq!(m[0], 1.5);
    /// assert!(m[1].is_nan());
    /// ```
    pub fn nanmedian_axes(&self, axes: &[isize], keepdims: bool) -> Result<Tensor<T, IxDyn>> {
        self.order_stats(Some(axes), Want::Median, &[], true, keepdims, "nanmedian")
    }
}

/// The public quantile functions: for each flavor, the one over all elements and the
/// one over `axes` (both thin calls of `quantile_all` and `quantile_impl`).
macro_rules! quantile_methods {
    ($(
        $(#[$all_doc:meta])* fn $all:ident($q:ident);
        $(#[$axes_doc:meta])* fn $axes:ident($qa:ident);
        flavor $flavor:ident;
    )*) => {
        impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {$(
            $(#[$all_doc])*
            pub fn $all(&self, $q: f64, method: QuantileMethod) -> Result<T> {
                self.quantile_all($q, method, $flavor)
            }

            $(#[$axes_doc])*
            pub fn $axes<S2: Storage<Elem = f64>, D2: Dimension>(
                &self,
                $qa: &TensorBase<S2, D2>,
                axes: &[isize],
                method: QuantileMethod,
                keepdims: bool,
            ) -> Result<Tensor<T, IxDyn>> {
                self.quantile_impl($qa, Some(axes), method, keepdims, $flavor)
            }
        )*}
    };
}

quantile_methods! {
    /// The `q`-th quantile of all elements (NumPy's `quantile(a, q, method=...)`), `q` in
    /// `[0, 1]`, computed in `T`. NaN if any element is NaN. `Err` if `q` is outside
    /// `[0, 1]` or the tensor is empty (NumPy raises for both).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::QuantileMethod;
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0], [5]).unwrap();
    /// assert_eq!(a.quantile(0.25, QuantileMethod::Linear).unwrap(), 2.0);
    /// assert_eq!(a.quantile(0.1, QuantileMethod::Nearest).unwrap(), 1.0);
    /// assert!(a.quantile(1.5, QuantileMethod::Linear).is_err());
    /// ```
    fn quantile(q);
    /// Quantiles over `axes` (NumPy's `quantile(a, q, axis=axes, method=..., keepdims=...)`):
    /// the result has `q`'s shape followed by the kept axes (a 0-d `q` adds no axis).
    /// NaN in a lane gives NaN. `Err` for `q` outside `[0, 1]`, an axis out of range or
    /// repeated, or an empty lane.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::QuantileMethod;
    /// let a = Tensor::from_vec((0..12).map(f64::from).collect(), [3, 4]).unwrap();
    /// let q = Tensor::from_vec(vec![0.0, 0.5, 1.0], [3]).unwrap();
    /// let r = a.quantile_axes(&q, &[1], QuantileMethod::Linear, false).unwrap();
    /// assert_eq!(r.shape(), &[3, 3]);
    /// assert_eq!(r.to_vec()[3..6], [1.5, 5.5, 9.5]);
    /// let m = a.quantile_axes(&Tensor::scalar(0.5), &[0, 1], QuantileMethod::Lower, true).unwrap();
    /// assert_eq!((m.shape(), m.to_vec()), (&[1usize, 1][..], vec![5.0]));
    /// ```
    fn quantile_axes(q);
    flavor QUANTILE;

    /// [`TensorBase::quantile`] ignoring NaNs (NumPy's `nanquantile`); NaN if every
    /// element is NaN or the tensor is empty.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::QuantileMethod;
    /// let a = Tensor::from_vec(vec![4.0f32, f32::NAN, 2.0], [3]).unwrap();
    /// assert_eq!(a.nanquantile(0.5, QuantileMethod::Linear).unwrap(), 3.0);
    /// ```
    fn nanquantile(q);
    /// [`TensorBase::quantile_axes`] ignoring NaNs (NumPy's `nanquantile`); a lane with
    /// no other values gives NaN.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::QuantileMethod;
    /// let a = Tensor::from_vec(vec![1.0f64, f64::NAN, 3.0, 5.0], [2, 2]).unwrap();
    /// let r = a.nanquantile_axes(&Tensor::scalar(0.5), &[1], QuantileMethod::Linear, false).unwrap();
    /// assert_eq!(r.to_vec(), vec![1.0, 4.0]);
    /// ```
    fn nanquantile_axes(q);
    flavor NANQUANTILE;

    /// The `p`-th percentile, `p` in `[0, 100]` (NumPy's `percentile`): the quantile
    /// `p / 100`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::QuantileMethod;
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [4]).unwrap();
    /// assert_eq!(a.percentile(50.0, QuantileMethod::Midpoint).unwrap(), 2.5);
    /// assert!(a.percentile(101.0, QuantileMethod::Linear).is_err());
    /// ```
    fn percentile(p);
    /// Percentiles over `axes` (NumPy's `percentile(a, q, axis=axes, ...)`), as
    /// [`TensorBase::quantile_axes`] with `q / 100`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::QuantileMethod;
    /// let a = Tensor::from_vec((0..10).map(f64::from).collect(), [2, 5]).unwrap();
    /// let p = Tensor::from_vec(vec![25.0, 75.0], [2]).unwrap();
    /// assert_eq!(a.percentile_axes(&p, &[1], QuantileMethod::Linear, false).unwrap().to_vec(), vec![1.0, 6.0, 3.0, 8.0]);
    /// ```
    fn percentile_axes(p);
    flavor PERCENTILE;

    /// [`TensorBase::percentile`] ignoring NaNs (NumPy's `nanpercentile`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::QuantileMethod;
    /// let a = Tensor::from_vec(vec![f64::NAN, 10.0, 20.0], [3]).unwrap();
    /// assert_eq!(a.nanpercentile(50.0, QuantileMethod::Linear).unwrap(), 15.0);
    /// ```
    fn nanpercentile(p);
    /// [`TensorBase::percentile_axes`] ignoring NaNs (NumPy's `nanpercentile`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::reduce::QuantileMethod;
    /// let a = Tensor::from_vec(vec![f64::NAN, 10.0, 20.0, 30.0], [2, 2]).unwrap();
    /// let r = a.nanpercentile_axes(&Tensor::scalar(100.0), &[0], QuantileMethod::Linear, false).unwrap();
    /// assert_eq!(r.to_vec(), vec![20.0, 30.0]);
    /// ```
    fn nanpercentile_axes(p);
    flavor NANPERCENTILE;
}
