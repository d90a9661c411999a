//! Comparison and selection: `eq ne lt le gt ge` (→ `Tensor<bool>`), [`where_`],
//! `clip`, `isnan`, `isinf`, `isfinite`, `isclose`, `allclose`.

use super::core::{map_with, retype, zip_operand, zip3_to};
use super::{Operand, Real};
use crate::element::{Element, Float};
use crate::error::Result;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

macro_rules! comparisons {
    ($bound:path; $($name:ident $try_name:ident $op:literal |$x:ident, $y:ident| $body:expr, $ex:literal;)*) => {
        impl<T: Element + $bound, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
            $(
                #[doc = concat!("Element-wise `", stringify!($body), "` with broadcasting (NumPy `", $op,
                    "`): `other` is a scalar or any tensor ([`Operand`]). `Err` if the shapes do not broadcast.")]
                ///
                /// ```
                /// use ferrotensor::prelude::*;
                /// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
                #[doc = concat!("assert_eq!(a.", stringify!($name), "(2).unwrap().to_vec(), vec!", $ex, ");")]
                /// let b = Tensor::from_vec(vec![2], [1]).unwrap();
                #[doc = concat!("assert_eq!(a.", stringify!($name), "(&b).unwrap().to_vec(), vec!", $ex, ");")]
                #[doc = concat!("assert!(a.", stringify!($name), "(&Tensor::<i32, _>::zeros([2])).is_err());")]
                /// ```
                #[allow(clippy::should_implement_trait)]
                pub fn $name<O: Operand<T, D>>(&self, other: O) -> Result<Tensor<bool, O::Output>> {
                    zip_operand(self, &other, $op, |$x: T, $y: T| $body)
                }

                #[doc = concat!("Former name of [`", stringify!($name), "`](TensorBase::", stringify!($name),
                    "), which now returns `Result` itself.")]
                ///
                /// ```
                /// # #![allow(deprecated)]
                /// use ferrotensor::prelude::*;
                /// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
                #[doc = concat!("assert_eq!(a.", stringify!($try_name), "(2).unwrap().to_vec(), vec!", $ex, ");")]
                /// ```
                #[deprecated(since = "0.2.0", note = "use the method without `try_`: it returns `Result` now")]
                pub fn $try_name<O: Operand<T, D>>(&self, other: O) -> Result<Tensor<bool, O::Output>> {
                    self.$name(other)
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
/// together; `a` and `b` are scalars or tensors ([`Operand`]). `Err` naming the three
/// shapes if they do not broadcast.
///
/// The result's rank type is the broadcast rank of the three ([`DimMax`](crate::DimMax)).
///
/// ```
/// use ferrotensor::prelude::*;
/// let c = Tensor::from_vec(vec![true, false], [2, 1]).unwrap();
/// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
/// let w: Tensor<i32, Ix2> = where_(&c, &a, 0).unwrap();
/// assert_eq!(w.to_vec(), vec![1, 2, 3, 0, 0, 0]);
/// let x = Tensor::from_vec(vec![-1.0, 2.0], [2]).unwrap();
/// assert_eq!(where_(&x.gt(0.0).unwrap(), &x, 0.0).unwrap().to_vec(), vec![0.0, 2.0]);
/// let e = where_(&c, &a, &Tensor::<i32, _>::zeros([4])).unwrap_err();
/// assert_eq!(e.to_string(), "where: operands could not be broadcast together with shapes (2, 1) (3,) (4,)");
/// ```
pub fn where_<T, S, D, A, B>(cond: &TensorBase<S, D>, a: A, b: B) -> Result<Tensor<T, B::Output>>
where
    T: Element,
    S: Storage<Elem = bool>,
    D: Dimension,
    A: Operand<T, D>,
    B: Operand<T, A::Output>,
{
    let (va, vb) = (a.operand_view(), b.operand_view());
    zip3_to(cond, &va, &vb, "where", |c, x, y| if c { x } else { y })
}

impl<T: Real, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// NumPy `clip(a, min, max)` = `minimum(maximum(a, min), max)` (NaN stays NaN);
    /// `min` and `max` are scalars or tensors ([`Operand`]), broadcast with `self`.
    /// `Err` if the shapes do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![-2.0, 0.5, 9.0, f64::NAN], [4]).unwrap();
    /// let c = a.clip(0.0, 1.0).unwrap().to_vec();
    /// assert_eq!(&c[..3], &[0.0, 0.5, 1.0]);
    /// assert!(c[3].is_nan());
    /// let hi = Tensor::from_vec(vec![1.0, 0.2, 5.0, 1.0], [4]).unwrap();
    /// assert_eq!(a.clip(0.0, &hi).unwrap().to_vec()[..3], [0.0, 0.2, 5.0]);
    /// ```
    pub fn clip<Lo: Operand<T, D>, Hi: Operand<T, Lo::Output>>(
        &self,
        min: Lo,
        max: Hi,
    ) -> Result<Tensor<T, Hi::Output>> {
        let f = |x: T, lo: T, hi: T| x.r_maximum(lo).r_minimum(hi);
        if let (Some(lo), Some(hi)) = (min.scalar(), max.scalar()) {
            return Ok(retype(map_with(self, 1, move |x| f(x, lo, hi))));
        }
        zip3_to(self, &min.operand_view(), &max.operand_view(), "clip", f)
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
    /// NumPy `isclose(a, b, rtol, atol, equal_nan)` (`b` a scalar or any tensor): `|a - b| <= atol + rtol·|b|` with
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
    pub fn isclose<O: Operand<T, D>>(
        &self,
        other: O,
        rtol: T,
        atol: T,
        equal_nan: bool,
    ) -> Result<Tensor<bool, O::Output>> {
        zip_operand(self, &other, "isclose", move |x: T, y: T| {
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
    pub fn allclose<O: Operand<T, D>>(&self, other: O, rtol: T, atol: T, equal_nan: bool) -> Result<bool> {
        Ok(self.isclose(other, rtol, atol, equal_nan)?.iter().all(|&c| c))
    }
}
