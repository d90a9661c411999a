//! Comparison and selection: `eq ne lt le gt ge` (→ `Tensor<bool>`), [`where_`],
//! `clip`, `isnan`, `isinf`, `isfinite`, `isclose`, `allclose`.

use super::core::{layout_to, map_with, src, zip_with};
use super::{DimMax, Real};
use crate::element::{Element, Float};
use crate::error::Result;
use crate::iter::zip::zip3_new;
use crate::layout::Dimension;
use crate::layout::transform::broadcast_shapes;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

macro_rules! comparisons {
    ($bound:path; $($name:ident $try_name:ident $op:literal |$x:ident, $y:ident| $body:expr, $ex:literal;)*) => {
        impl<T: Element + $bound, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
            $(
                #[doc = concat!("Element-wise `", stringify!($body), "` with broadcasting (NumPy `", $op,
                    "`); `Err` if the shapes do not broadcast.")]
                ///
                /// ```
                /// use ferrotensor::prelude::*;
                /// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
                /// let b = Tensor::from_vec(vec![2], [1]).unwrap();
                #[doc = concat!("assert_eq!(a.", stringify!($try_name), "(&b).unwrap().to_vec(), vec!", $ex, ");")]
                /// ```
                pub fn $try_name<S2: Storage<Elem = T>, D2: Dimension>(
                    &self,
                    other: &TensorBase<S2, D2>,
                ) -> Result<Tensor<bool, D::Output>>
                where
                    D: DimMax<D2>,
                {
                    zip_with(self, other, $op, |$x: T, $y: T| $body)
                }

                #[doc = concat!("Element-wise `", stringify!($body), "` with broadcasting (NumPy `", $op,
                    "`). Panics if the shapes do not broadcast (see the `try_` twin).")]
                ///
                /// ```
                /// use ferrotensor::prelude::*;
                /// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
                /// let b = Tensor::from_vec(vec![2], [1]).unwrap();
                #[doc = concat!("assert_eq!(a.", stringify!($name), "(&b).to_vec(), vec!", $ex, ");")]
                /// ```
                #[track_caller]
                #[allow(clippy::should_implement_trait)]
                pub fn $name<S2: Storage<Elem = T>, D2: Dimension>(&self, other: &TensorBase<S2, D2>) -> Tensor<bool, D::Output>
                where
                    D: DimMax<D2>,
                {
                    self.$try_name(other).unwrap_or_else(|e| panic!("{e}"))
                }
            )*
        }
    };
}

comparisons!(PartialEq;
    eq try_eq "equal" |x, y| x == y, "[false, true, false]";
    ne try_ne "not_equal" |x, y| x != y, "[true, false, true]";
);
comparisons!(PartialOrd;
    lt try_lt "less" |x, y| x < y, "[true, false, false]";
    le try_le "less_equal" |x, y| x <= y, "[true, true, false]";
    gt try_gt "greater" |x, y| x > y, "[false, false, true]";
    ge try_ge "greater_equal" |x, y| x >= y, "[false, true, true]";
);

/// NumPy `where(cond, a, b)`: `a` where `cond` is true, else `b`, all three broadcast
/// together; `Err` if they do not broadcast.
///
/// ```
/// use ferrotensor::prelude::*;
/// let c = Tensor::from_vec(vec![true, false], [2, 1]).unwrap();
/// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
/// let b = Tensor::from_vec(vec![0], [1]).unwrap();
/// let w = ferrotensor::where_(&c, &a, &b).unwrap();
/// assert_eq!(w.shape(), &[2, 3]);
/// assert_eq!(w.to_vec(), vec![1, 2, 3, 0, 0, 0]);
/// assert!(ferrotensor::where_(&c, &a, &Tensor::<i32, _>::zeros([4])).is_err());
/// ```
#[allow(clippy::type_complexity)]
pub fn where_<T, S0, S1, S2, D0, D1, D2>(
    cond: &TensorBase<S0, D0>,
    a: &TensorBase<S1, D1>,
    b: &TensorBase<S2, D2>,
) -> Result<Tensor<T, <D0::Output as DimMax<D2>>::Output>>
where
    T: Element,
    S0: Storage<Elem = bool>,
    S1: Storage<Elem = T>,
    S2: Storage<Elem = T>,
    D0: DimMax<D1>,
    D0::Output: DimMax<D2>,
    D1: Dimension,
    D2: Dimension,
{
    let op = "where";
    let s01 = broadcast_shapes(cond.shape(), a.shape(), op)?;
    let shape = broadcast_shapes(&s01, b.shape(), op).map_err(|_| {
        crate::Error::shape(
            op,
            format!(
                "operands could not be broadcast together with shapes {} {} {}",
                crate::error::fmt_shape(cond.shape()),
                crate::error::fmt_shape(a.shape()),
                crate::error::fmt_shape(b.shape())
            ),
        )
    })?;
    let (lc, la, lb) = (
        layout_to(cond, &shape, op)?,
        layout_to(a, &shape, op)?,
        layout_to(b, &shape, op)?,
    );
    let data = zip3_new(
        &shape,
        src(cond, &lc),
        src(a, &la),
        src(b, &lb),
        |c, x, y| if c { x } else { y },
    );
    Ok(super::core::from_c_vec(data, &shape))
}

impl<T: Real, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// NumPy `clip(a, min, max)` = `minimum(maximum(a, min), max)` (NaN stays NaN).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![-2.0, 0.5, 9.0, f64::NAN], [4]).unwrap();
    /// let c = a.clip(0.0, 1.0).to_vec();
    /// assert_eq!(&c[..3], &[0.0, 0.5, 1.0]);
    /// assert!(c[3].is_nan());
    /// ```
    pub fn clip(&self, min: T, max: T) -> Tensor<T, D> {
        map_with(self, 1, move |x: T| x.r_maximum(min).r_minimum(max))
    }

    /// True where the element is NaN (always false for integers).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN], [2]).unwrap();
    /// assert_eq!(a.isnan().to_vec(), vec![false, true]);
    /// ```
    pub fn isnan(&self) -> Tensor<bool, D> {
        map_with(self, 1, T::r_is_nan)
    }

    /// True where the element is ±infinity.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NEG_INFINITY, f64::NAN], [3]).unwrap();
    /// assert_eq!(a.isinf().to_vec(), vec![false, true, false]);
    /// ```
    pub fn isinf(&self) -> Tensor<bool, D> {
        map_with(self, 1, T::r_is_inf)
    }

    /// True where the element is neither NaN nor infinite.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::INFINITY, f64::NAN], [3]).unwrap();
    /// assert_eq!(a.isfinite().to_vec(), vec![true, false, false]);
    /// ```
    pub fn isfinite(&self) -> Tensor<bool, D> {
        map_with(self, 1, |x: T| !x.r_is_nan() && !x.r_is_inf())
    }
}

impl<T: Float, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// NumPy `isclose(a, b, rtol, atol, equal_nan)`: `|a - b| <= atol + rtol·|b|` with
    /// finite `b`, or `a == b` (equal infinities); NaNs are close to each other only with
    /// `equal_nan`. `Err` if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 1e10, f64::NAN, f64::INFINITY], [4]).unwrap();
    /// let b = Tensor::from_vec(vec![1.0 + 1e-9, 1.0001e10, f64::NAN, f64::INFINITY], [4]).unwrap();
    /// assert_eq!(a.isclose(&b, 1e-5, 1e-8, false).unwrap().to_vec(), vec![true, false, false, true]);
    /// assert_eq!(a.isclose(&b, 1e-5, 1e-8, true).unwrap().to_vec(), vec![true, false, true, true]);
    /// ```
    pub fn isclose<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        other: &TensorBase<S2, D2>,
        rtol: T,
        atol: T,
        equal_nan: bool,
    ) -> Result<Tensor<bool, D::Output>>
    where
        D: DimMax<D2>,
    {
        zip_with(self, other, "isclose", move |x: T, y: T| {
            let close = (x - y).abs() <= atol + rtol * y.abs() && y.is_finite();
            close || x == y || (equal_nan && x.is_nan() && y.is_nan())
        })
    }

    /// NumPy `allclose`: every element pair [`isclose`](TensorBase::isclose).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0], [2]).unwrap();
    /// assert!(a.allclose(&(&a + 1e-7), 1e-5, 1e-8, false).unwrap());
    /// assert!(!a.allclose(&(&a + 1.0), 1e-5, 1e-8, false).unwrap());
    /// ```
    pub fn allclose<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        other: &TensorBase<S2, D2>,
        rtol: T,
        atol: T,
        equal_nan: bool,
    ) -> Result<bool>
    where
        D: DimMax<D2>,
    {
        Ok(self.isclose(other, rtol, atol, equal_nan)?.iter().all(|&c| c))
    }
}
