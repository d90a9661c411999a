//! Integration by the composite trapezoidal rule: NumPy's `trapezoid`.

use crate::element::Float;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, IxDyn};
use crate::manip::narrow;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// `(y[1:] + y[:-1])` along `axis` and the axis index, or `Err` for a 0-d input.
    fn pair_sums(&self, axis: isize, op: &'static str) -> Result<(Tensor<T, IxDyn>, usize)> {
        if self.ndim() == 0 {
            return Err(Error::axis(
                op,
                format!("axis {axis} is out of bounds for array of dimension 0 (shape ())"),
            ));
        }
        let ax = normalize_axis(axis, self.ndim(), op)?;
        let v: TensorView<'_, T, IxDyn> = self.view().into_dyn();
        let n = v.shape()[ax].saturating_sub(1);
        let (hi, lo) = (narrow(&v, ax, v.shape()[ax].min(1), n), narrow(&v, ax, 0, n));
        Ok((hi.try_add(&lo)?, ax))
    }

    /// The integral of `y` (this tensor) along `axis` with uniform spacing `dx` (NumPy's
    /// `trapezoid(y, dx=dx, axis=axis)`): `Σ dx·(y[i+1] + y[i]) / 2`; 0 for fewer than two
    /// points. `Err` for an axis out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let y = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap();
    /// assert_eq!(y.trapezoid(1.0, -1).unwrap().to_vec(), vec![4.0, 10.0]);
    /// assert_eq!(y.trapezoid(0.5, 0).unwrap().to_vec(), vec![1.25, 1.75, 2.25]);
    /// ```
    pub fn trapezoid(&self, dx: T, axis: isize) -> Result<Tensor<T, IxDyn>> {
        let (s, ax) = self.pair_sums(axis, "trapezoid")?;
        let two = T::one() + T::one();
        s.mapv(|v| dx * v / two).sum_axes(&[ax as isize], false)
    }

    /// The integral of `y` along `axis` at the sample points `x` (NumPy's
    /// `trapezoid(y, x, axis=axis)`): `Σ (x[i+1] − x[i])·(y[i+1] + y[i]) / 2`. A 1-D `x`
    /// gives the points along `axis`; otherwise its differences along `axis` broadcast
    /// against `y`'s. `Err` for an axis out of range or shapes that do not fit.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let y = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3]).unwrap();
    /// let x = Tensor::from_vec(vec![4.0, 6.0, 8.0], [3]).unwrap();
    /// assert_eq!(y.trapezoid_x(&x, -1).unwrap().to_scalar().unwrap(), 8.0);
    /// ```
    pub fn trapezoid_x<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        x: &TensorBase<S2, D2>,
        axis: isize,
    ) -> Result<Tensor<T, IxDyn>> {
        let op = "trapezoid";
        let (s, ax) = self.pair_sums(axis, op)?;
        let d = if x.ndim() == 1 {
            let d = x.diff(1, 0)?;
            let mut shape = vec![1; self.ndim()];
            shape[ax] = d.size();
            d.into_shape(shape)?
        } else {
            x.view().into_dyn().diff(1, axis)?
        };
        let two = T::one() + T::one();
        let prod = d.try_mul(&s).map_err(|_| {
            Error::shape(
                op,
                format!(
                    "sample points of shape {} do not fit y of shape {} along axis {axis}",
                    fmt_shape(x.shape()),
                    fmt_shape(self.shape())
                ),
            )
        })?;
        prod.mapv(|v| v / two).sum_axes(&[ax as isize], false)
    }
}
