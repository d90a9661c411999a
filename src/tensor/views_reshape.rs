//! Reshapes that never copy (`reshape_view`, `merge_axes`, `split_axis`) and
//! einops-style `rearrange` (a view when possible, else a copy).

use super::view_methods::view_methods;
use super::{TensorBase, TensorCow, TensorView};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::reshape::AxisRange;
use crate::layout::{Dimension, IntoShape, IxDyn, Layout, Order};
use crate::storage::CowRepr;

view_methods! { 'a;
    /// Reshapes (row-major element order) as a view, or `Err` when NumPy's rule would
    /// copy (and when the sizes differ). Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32, _>::arange(24).into_shape([2, 3, 4]).unwrap();
    /// let v = x.view().reshape_view([6, 4]).unwrap();
    /// assert_eq!(v.as_ptr(), x.as_ptr());
    /// assert!(x.t().reshape_view([12, 2]).is_err());     // would need a copy
    /// ```
    fn reshape_view[Sh: IntoShape](&self, shape: Sh) -> Result<TensorView<'a, T, Sh::Dim>> {
        self.reshape_view_order(shape, Order::RowMajor)
    }

    /// Reshapes reading elements in `order` as a view, or `Err` when a copy would be
    /// needed. Never copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
    /// assert_eq!(x.t().reshape_view_order([6], Order::ColMajor).unwrap().to_vec(), vec![0, 1, 2, 3, 4, 5]);
    /// assert!(x.view().reshape_view_order([3, 2], Order::ColMajor).is_err());
    /// ```
    fn reshape_view_order[Sh: IntoShape](&self, shape: Sh, order: Order) -> Result<TensorView<'a, T, Sh::Dim>> {
        let shape = shape.into_dim();
        match crate::layout::reshape::reshape_layout(&self.layout, shape.clone(), order, "reshape_view")? {
            Some(l) => Ok(self.with_layout(l)),
            None => Err(Error::shape(
                "reshape_view",
                format!(
                    "cannot reshape shape {} with strides {} into {} ({:?}) without a copy",
                    fmt_shape(self.shape()),
                    fmt_shape(self.strides()),
                    fmt_shape(shape.slice()),
                    order
                ),
            )),
        }
    }

    /// Merges a range of axes into one (PyTorch `flatten(start_dim, end_dim)`): `a..=b`
    /// (inclusive, as PyTorch), `a..b`, `a..` (to the last axis), `..=b` or `..`, with
    /// `usize` axes (see [`AxisRange`] for why not negative ones). A view, or `Err` when
    /// the merge needs a copy — never a wrong view — or the range is empty or out of
    /// range. On a 0-d tensor `..` gives shape `[1]` as PyTorch does.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32, _>::zeros([2, 3, 4]);
    /// assert_eq!(x.view().merge_axes(1..).unwrap().shape(), &[2, 12]);
    /// assert_eq!(x.view().merge_axes(0..=1).unwrap().shape(), &[6, 4]);
    /// assert!(x.t().merge_axes(0..=1).is_err());
    /// ```
    fn merge_axes(&self, axes: impl AxisRange) -> Result<TensorView<'a, T, IxDyn>> {
        let (s, e) = axes.axis_bounds(self.ndim());
        let l = crate::layout::reshape::merge_axes_layout(&self.layout, s, e)?;
        Ok(self.with_layout(l))
    }

    /// Splits `axis` into `sizes` (PyTorch `unflatten`); one size may be `-1`. Always a
    /// view; `Err` if the sizes don't fit the axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32, _>::arange(12).into_shape([2, 6]).unwrap();
    /// let s = x.t().split_axis(0, &[-1, 2]).unwrap();
    /// assert_eq!(s.shape(), &[3, 2, 2]);
    /// assert_eq!(s.as_ptr(), x.as_ptr());
    /// assert!(x.view().split_axis(1, &[4, -1]).is_err());
    /// ```
    fn split_axis(&self, axis: isize, sizes: &[isize]) -> Result<TensorView<'a, T, IxDyn>> {
        let l = crate::layout::reshape::split_axis_layout(&self.layout, axis, sizes)?;
        Ok(self.with_layout(l))
    }

    /// einops `rearrange`: `"b h w c -> b c h w"`, `"b (h w) c -> b h w c"`,
    /// `"b c h w -> b (c h w)"`, `"... c -> c ..."`. A view whenever the layout allows,
    /// else a copy; `Err`, naming the pattern, for bad syntax, unknown, duplicate or
    /// one-sided axes, a rank that doesn't match, or a group with two unknown sizes (give
    /// them with [`TensorView::rearrange_with`]). Pattern syntax:
    /// [`crate::layout::rearrange`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32, _>::arange(24).into_shape([2, 3, 4]).unwrap();
    /// let p = x.view().rearrange("b h w -> w b h").unwrap();
    /// assert!(p.is_view());
    /// assert_eq!(p.shape(), &[4, 2, 3]);
    /// let m = x.view().rearrange("b h w -> b (w h)").unwrap();
    /// assert!(!m.is_view());                               // needs a copy
    /// assert_eq!(m.to_vec()[..4], [0, 4, 8, 1]);
    /// assert!(x.view().rearrange("b h w -> b h q").is_err());
    /// ```
    fn rearrange(&self, pattern: &str) -> Result<TensorCow<'a, T, IxDyn>> {
        self.rearrange_with(pattern, &[])
    }

    /// einops `rearrange` with given axis lengths, needed to split an axis into two
    /// unknown parts: `rearrange_with("b (h w) c -> b h w c", &[("h", 4)])`. Every given
    /// length is checked; `Err` for lengths that don't divide or names the pattern doesn't use.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Tensor::<i32, _>::arange(24).into_shape([2, 12]).unwrap();
    /// let r = x.view().rearrange_with("b (h w) -> b h w", &[("h", 4)]).unwrap();
    /// assert_eq!(r.shape(), &[2, 4, 3]);
    /// assert!(r.is_view());
    /// assert!(x.view().rearrange_with("b (h w) -> b h w", &[("h", 5)]).is_err());
    /// ```
    fn rearrange_with(&self, pattern: &str, sizes: &[(&str, usize)]) -> Result<TensorCow<'a, T, IxDyn>> {
        let r = crate::layout::rearrange::rearrange_layout(&self.layout, pattern, sizes)?;
        match r.view {
            Some(layout) => Ok(TensorBase {
                storage: CowRepr::View(self.storage.0),
                layout,
            }),
            None => {
                let data = crate::iter::gather_c_order(self.storage.0, &r.permuted);
                let layout = Layout::new_order(IxDyn::from(&r.out_shape[..]), Order::RowMajor)?;
                Ok(TensorBase {
                    storage: CowRepr::Owned(data),
                    layout,
                })
            }
        }
    }
}
