//! Copying selections: `index_select`, `take` and `mask_select` (NumPy fancy and
//! boolean indexing for the common cases). Each returns a new owned tensor.

use super::{Tensor, TensorBase};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::dim::StrideVec;
use crate::layout::{Dimension, Ix1, Layout, Order};
use crate::storage::{OwnedRepr, Storage};

/// Turns a possibly negative index into `0..n`; `Err` (NumPy's message) if out of range.
fn normalize_index(i: isize, n: usize, axis: usize, op: &'static str) -> Result<usize> {
    let j = if i < 0 { i + n as isize } else { i };
    if j < 0 || j >= n as isize {
        return Err(Error::index(
            op,
            format!("index {i} is out of bounds for axis {axis} with size {n}"),
        ));
    }
    Ok(j as usize)
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// The elements at `indices` along `axis` (NumPy `take(indices, axis)`, PyTorch
    /// `index_select`), in the order given and with repeats; negative indices count from
    /// the end. `Err` for an axis or index out of range. Always copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
    /// let s = a.index_select(1, &[2, 0, -1]).unwrap();
    /// assert_eq!(s.shape(), &[2, 3]);
    /// assert_eq!(s.to_vec(), vec![2, 0, 2, 5, 3, 5]);
    /// assert!(a.index_select(0, &[2]).is_err());
    /// ```
    pub fn index_select(&self, axis: isize, indices: &[isize]) -> Result<Tensor<T, D>> {
        let ax = crate::layout::transform::normalize_axis(axis, self.ndim(), "index_select")?;
        let n = self.shape()[ax];
        let idx: Vec<usize> = indices
            .iter()
            .map(|&i| normalize_index(i, n, ax, "index_select"))
            .collect::<Result<_>>()?;
        let mut shape = self.layout.shape.clone();
        shape.slice_mut()[ax] = idx.len();
        let out_layout = Layout::new_order(shape, Order::RowMajor)?;
        let mut out = vec![T::default(); out_layout.size()];
        if !out.is_empty() {
            // One engine copy per selected index: the input with `axis` fixed at `i`
            // into the output with `axis` fixed at `k`.
            let rest = |l: &[usize]| -> Vec<usize> { (0..l.len()).filter(|&a| a != ax).map(|a| l[a]).collect() };
            let sub_shape = rest(self.shape());
            let pick = |s: &[isize]| -> StrideVec { (0..s.len()).filter(|&a| a != ax).map(|a| s[a]).collect() };
            let (in_st, out_st) = (pick(self.strides()), pick(out_layout.strides()));
            for (k, &i) in idx.iter().enumerate() {
                let in_off = (self.layout.offset as isize + i as isize * self.strides()[ax]) as usize;
                let out_off = k * out_layout.strides()[ax] as usize;
                crate::iter::zip_into(
                    &sub_shape,
                    crate::iter::Dst::new(&mut out, &out_st, out_off),
                    crate::iter::Src::new(self.storage.buffer(), &in_st, in_off),
                    |o, x| *o = x,
                );
            }
        }
        Ok(TensorBase {
            storage: OwnedRepr(out),
            layout: out_layout,
        })
    }

    /// The elements at flat `indices` into the row-major flattening (NumPy `take`
    /// without an axis); negative indices count from the end. `Err` for an index out of
    /// range. Always copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
    /// assert_eq!(a.t().take(&[0, 1, -1]).unwrap().to_vec(), vec![0, 3, 5]);
    /// assert!(a.take(&[6]).is_err());
    /// ```
    pub fn take(&self, indices: &[isize]) -> Result<Tensor<T, Ix1>> {
        let n = self.size();
        let buf = self.storage.buffer();
        let data: Vec<T> = indices
            .iter()
            .map(|&i| {
                let mut rest = normalize_index(i, n, 0, "take")?;
                let mut off = self.layout.offset as isize;
                for (&d, &s) in self.shape().iter().zip(self.strides()).rev() {
                    off += (rest % d) as isize * s;
                    rest /= d;
                }
                Ok(buf[off as usize])
            })
            .collect::<Result<_>>()?;
        let len = data.len();
        Ok(TensorBase {
            storage: OwnedRepr(data),
            layout: Layout::new_order([len], Order::RowMajor)?,
        })
    }

    /// The elements where `mask` is true, in row-major order, as a 1-D tensor (NumPy
    /// `a[mask]`). `mask` is a bool tensor of any ownership kind with exactly this
    /// tensor's shape; `Err` otherwise. Always copies.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
    /// let m = Tensor::from_vec(vec![false, true, false, true, false, true], [2, 3]).unwrap();
    /// assert_eq!(a.mask_select(&m).unwrap().to_vec(), vec![1, 3, 5]);
    /// assert!(a.mask_select(&Tensor::<bool, _>::zeros([3, 2])).is_err());
    /// ```
    pub fn mask_select<S2: Storage<Elem = bool>, D2: Dimension>(
        &self,
        mask: &TensorBase<S2, D2>,
    ) -> Result<Tensor<T, Ix1>> {
        if mask.shape() != self.shape() {
            return Err(Error::shape(
                "mask_select",
                format!(
                    "boolean index of shape {} does not match indexed array of shape {}",
                    fmt_shape(mask.shape()),
                    fmt_shape(self.shape())
                ),
            ));
        }
        let data: Vec<T> = self
            .iter()
            .zip(mask.iter())
            .filter(|&(_, &m)| m)
            .map(|(&x, _)| x)
            .collect();
        let len = data.len();
        Ok(TensorBase {
            storage: OwnedRepr(data),
            layout: Layout::new_order([len], Order::RowMajor)?,
        })
    }
}
