//! Single-axis reductions that keep a fixed rank type: `sum_axis(axis)` of an `IxN`
//! tensor is an `IxN-1` tensor ([`RemoveAxis::Smaller`]), as ndarray's `sum_axis`.
//!
//! Each is the `*_axes(&[axis], false)` reduction (same kernels, same NaN and empty
//! rules) with the rank type kept; reducing over several axes, or keeping the reduced
//! axis (`keepdims`), is the `*_axes` form, whose rank depends on its arguments
//! (`IxDyn`).

use super::NormOrd;
use super::moments::Ddof;
use crate::element::{Element, Float, Num};
use crate::error::Result;
use crate::layout::RemoveAxis;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// `name(axis, extra args) -> Tensor<out, D::Smaller>` as `axes_form(&[axis], false, extra args)`.
macro_rules! single_axis {
    ([$($bound:tt)+]; $($(#[$doc:meta])* $name:ident => $axes:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        impl<T: $($bound)+, S: Storage<Elem = T>, D: RemoveAxis> TensorBase<S, D> {
            $(
                $(#[$doc])*
                pub fn $name(&self, axis: isize $(, $arg: $ty)*) -> Result<Tensor<$out, D::Smaller>> {
                    self.$axes(&[axis], false $(, $arg)*)?.into_dim()
                }
            )*
        }
    };
}

single_axis!([Num];
    /// Sum along `axis` (negative counts from the end), removing it: an `IxN` tensor
    /// gives `IxN-1`. `Err` if the axis is out of range. See [`TensorBase::sum_axes`]
    /// for several axes or `keepdims`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect(), [2, 3]).unwrap();
    /// let r: Tensor<i32, Ix1> = a.sum_axis(0).unwrap();
    /// assert_eq!(r.to_vec(), vec![3, 5, 7]);
    /// assert_eq!(a.sum_axis(-1).unwrap().to_vec(), vec![3, 12]);
    /// assert_eq!(a.sum_axis(2).unwrap_err().to_string(), "sum: axis 2 is out of bounds for array of dimension 2");
    /// ```
    sum_axis => sum_axes() -> T;
    /// Product along `axis`, removing it (see [`TensorBase::sum_axis`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let r: Tensor<i32, Ix1> = a.prod_axis(1).unwrap();
    /// assert_eq!(r.to_vec(), vec![2, 12]);
    /// ```
    prod_axis => prod_axes() -> T;
);

single_axis!([Float];
    /// Mean along `axis`, removing it (see [`TensorBase::sum_axis`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 6.0], [2, 2]).unwrap();
    /// let r: Tensor<f64, Ix1> = a.mean_axis(0).unwrap();
    /// assert_eq!(r.to_vec(), vec![2.0, 4.0]);
    /// ```
    mean_axis => mean_axes() -> T;
    /// Sum treating NaN as zero along `axis`, removing it.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 2.0, 3.0], [2, 2]).unwrap();
    /// assert_eq!(a.nansum_axis(1).unwrap().to_vec(), vec![1.0, 5.0]);
    /// ```
    nansum_axis => nansum_axes() -> T;
    /// Mean of the non-NaN elements along `axis`, removing it.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 2.0, 4.0], [2, 2]).unwrap();
    /// assert_eq!(a.nanmean_axis(1).unwrap().to_vec(), vec![1.0, 3.0]);
    /// ```
    nanmean_axis => nanmean_axes() -> T;
    /// Variance along `axis` with `ddof` delta degrees of freedom (an integer or a
    /// float, see [`TensorBase::var`]), removing the axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 3.0, 2.0, 2.0], [2, 2]).unwrap();
    /// let v: Tensor<f64, Ix1> = a.var_axis(1, 0).unwrap();
    /// assert_eq!(v.to_vec(), vec![1.0, 0.0]);
    /// assert_eq!(a.var_axis(1, 1.5).unwrap().to_vec(), vec![4.0, 0.0]);
    /// ```
    var_axis => var_axes(ddof: impl Ddof) -> T;
    /// Standard deviation along `axis` with `ddof` delta degrees of freedom, removing
    /// the axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 3.0, 2.0, 2.0], [2, 2]).unwrap();
    /// assert_eq!(a.std_axis(1, 0).unwrap().to_vec(), vec![1.0, 0.0]);
    /// ```
    std_axis => std_axes(ddof: impl Ddof) -> T;
    /// `ln(Σ exp(x))` along `axis`, computed stably, removing the axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0.0, 0.0, 1.0, f64::NEG_INFINITY], [2, 2]).unwrap();
    /// let r = a.logsumexp_axis(1).unwrap().to_vec();
    /// assert!((r[0] - 2f64.ln()).abs() < 1e-15 && r[1] == 1.0);
    /// ```
    logsumexp_axis => logsumexp_axes() -> T;
);

single_axis!([Element + PartialOrd];
    /// Largest element along `axis`, removing it; NaN if any element of a lane is NaN;
    /// `Err` if the axis has length 0 (and other axes do not make the result empty).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3, 9, 2, 4], [2, 2]).unwrap();
    /// let m: Tensor<i32, Ix1> = a.max_axis(0).unwrap();
    /// assert_eq!(m.to_vec(), vec![3, 9]);
    /// assert!(Tensor::<f64, _>::zeros([0, 3]).max_axis(0).is_err());
    /// ```
    max_axis => max_axes() -> T;
    /// Smallest element along `axis`, removing it (see [`TensorBase::max_axis`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3, 9, 2, 4], [2, 2]).unwrap();
    /// assert_eq!(a.min_axis(1).unwrap().to_vec(), vec![3, 2]);
    /// ```
    min_axis => min_axes() -> T;
    /// Largest non-NaN element along `axis`, removing it (NaN for an all-NaN lane).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![f64::NAN, 1.0, 5.0, 2.0], [2, 2]).unwrap();
    /// assert_eq!(a.nanmax_axis(1).unwrap().to_vec(), vec![1.0, 5.0]);
    /// ```
    nanmax_axis => nanmax_axes() -> T;
    /// Smallest non-NaN element along `axis`, removing it (NaN for an all-NaN lane).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![f64::NAN, 1.0, 5.0, 2.0], [2, 2]).unwrap();
    /// assert_eq!(a.nanmin_axis(0).unwrap().to_vec(), vec![5.0, 1.0]);
    /// ```
    nanmin_axis => nanmin_axes() -> T;
);

single_axis!([Num + PartialOrd];
    /// `max − min` along `axis`, removing it.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3, 9, 2, 4], [2, 2]).unwrap();
    /// assert_eq!(a.ptp_axis(1).unwrap().to_vec(), vec![6, 2]);
    /// ```
    ptp_axis => ptp_axes() -> T;
);

single_axis!([Element];
    /// True where every element along `axis` is nonzero, removing the axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 0, 2, 3], [2, 2]).unwrap();
    /// let r: Tensor<bool, Ix1> = a.all_axis(1).unwrap();
    /// assert_eq!(r.to_vec(), vec![false, true]);
    /// ```
    all_axis => all_axes() -> bool;
    /// True where any element along `axis` is nonzero, removing the axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0, 0, 2, 0], [2, 2]).unwrap();
    /// assert_eq!(a.any_axis(1).unwrap().to_vec(), vec![false, true]);
    /// ```
    any_axis => any_axes() -> bool;
    /// Number of nonzero elements along `axis`, removing the axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0, 5, 3, 7], [2, 2]).unwrap();
    /// assert_eq!(a.count_nonzero_axis(0).unwrap().to_vec(), vec![1, 2]);
    /// ```
    count_nonzero_axis => count_nonzero_axes() -> usize;
);

impl<T: Float, S: Storage<Elem = T>, D: RemoveAxis> TensorBase<S, D> {
    /// Vector norm along `axis`, removing it (NumPy `linalg.norm(a, ord, axis)`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3.0, 4.0, -1.0, 0.0], [2, 2]).unwrap();
    /// let n: Tensor<f64, Ix1> = a.norm_axis(NormOrd::L2, 1).unwrap();
    /// assert_eq!(n.to_vec(), vec![5.0, 1.0]);
    /// ```
    pub fn norm_axis(&self, ord: NormOrd, axis: isize) -> Result<Tensor<T, D::Smaller>> {
        self.norm_axes(ord, &[axis], false)?.into_dim()
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn single_axis_forms_equal_the_axes_forms_and_keep_the_rank() {
        let a = Tensor::<f64, _>::from_shape_fn([2, 3, 4], |i| (i[0] * 12 + i[1] * 4 + i[2]) as f64);
        for axis in -3..3 {
            let s: Tensor<f64, Ix2> = a.sum_axis(axis).unwrap();
            assert_eq!(s.to_vec(), a.sum_axes(&[axis], false).unwrap().to_vec());
            let m: Tensor<f64, Ix2> = a.max_axis(axis).unwrap();
            assert_eq!(m.to_vec(), a.max_axes(&[axis], false).unwrap().to_vec());
        }
        let d = a.clone().into_dyn();
        let s: Tensor<f64, IxDyn> = d.sum_axis(1).unwrap();
        assert_eq!(s.shape(), &[2, 4]);
        let v = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
        let z: Tensor<i32, Ix0> = v.sum_axis(0).unwrap();
        assert_eq!(z.to_scalar().unwrap(), 6);
        assert!(v.sum_axis(1).is_err());
    }
}
