//! Removing and adding entries along an axis: NumPy's `delete`, `insert`, `append`.

use super::{alloc, c_strides, concatenate, copy_into, narrow, owned, view_with};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::{broadcast_layout, normalize_axis};
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};

/// Where [`TensorBase::insert`] puts its values: NumPy's scalar `obj` (one block before
/// an index) or a sequence (one entry before each listed index of the original).
///
/// ```
/// use ferrotensor::manip::InsertAt;
/// assert_eq!(InsertAt::from(2), InsertAt::Index(2));
/// assert_eq!(InsertAt::from(&[0isize, 3][..]), InsertAt::Indices(&[0, 3]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertAt<'a> {
    /// Before this index (negative counts from the end; the length appends).
    Index(isize),
    /// Before each of these indices of the original axis.
    Indices(&'a [isize]),
}

impl From<isize> for InsertAt<'_> {
    fn from(i: isize) -> Self {
        InsertAt::Index(i)
    }
}

impl<'a> From<&'a [isize]> for InsertAt<'a> {
    fn from(i: &'a [isize]) -> Self {
        InsertAt::Indices(i)
    }
}

impl<'a, const N: usize> From<&'a [isize; N]> for InsertAt<'a> {
    fn from(i: &'a [isize; N]) -> Self {
        InsertAt::Indices(i)
    }
}

/// `i` resolved against a length `n` (negative from the end); `Err` outside `-n..n`
/// (`..=n` if `end_ok`).
fn resolve(i: isize, n: usize, end_ok: bool, axis: usize, op: &'static str) -> Result<usize> {
    let hi = if end_ok { n as isize } else { n as isize - 1 };
    if i < -(n as isize) || i > hi {
        return Err(Error::index(
            op,
            format!("index {i} is out of bounds for axis {axis} with size {n}"),
        ));
    }
    Ok(if i < 0 { (i + n as isize) as usize } else { i as usize })
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// The tensor without the entries `indices` along `axis` (NumPy's
    /// `delete(arr, obj, axis)`; repeated indices delete once; for NumPy's `axis=None`
    /// flatten first). `Err` for an index or axis out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec((0..12).collect(), [3, 4]).unwrap();
    /// assert_eq!(a.delete(&[1, -1], 1).unwrap().to_vec(), vec![0, 2, 4, 6, 8, 10]);
    /// assert_eq!(a.delete(&[0], 0).unwrap().shape(), &[2, 4]);
    /// assert!(a.delete(&[4], 1).is_err());
    /// ```
    pub fn delete(&self, indices: &[isize], axis: isize) -> Result<Tensor<T, D>> {
        let op = "delete";
        let ax = normalize_axis(axis, self.ndim(), op)?;
        let n = self.shape()[ax];
        let mut keep = vec![true; n];
        for &i in indices {
            keep[resolve(i, n, false, ax, op)?] = false;
        }
        let mut shape = self.shape().to_vec();
        shape[ax] = keep.iter().filter(|&&k| k).count();
        let mut out = alloc::<T>(&shape, op)?;
        if !out.is_empty() {
            let cs = c_strides(&shape);
            let v = self.view();
            let mut at = 0;
            // Copy each run of kept entries in one go.
            let mut i = 0;
            while i < n {
                if !keep[i] {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < n && keep[i] {
                    i += 1;
                }
                copy_into(&mut out, &cs, at * cs[ax] as usize, &narrow(&v, ax, start, i - start));
                at += i - start;
            }
        }
        owned(out, &shape, op)
    }

    /// The tensor with `values` inserted along `axis` (NumPy's `insert(arr, obj,
    /// values, axis)`; for NumPy's `axis=None` flatten first). With
    /// [`InsertAt::Index`] the values form one block before that index: `values` gets
    /// leading length-1 axes up to the input's rank, its first axis is moved to `axis`,
    /// and it broadcasts against the input's other axes (so a 1-D `values` inserted
    /// along axis 1 becomes one column). With [`InsertAt::Indices`] one entry goes
    /// before each listed index of the original (indices may repeat; equal ones keep
    /// their order), and `values` broadcasts to the inserted block. `Err` for an index
    /// or axis out of range or values that do not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let col = Tensor::from_vec(vec![7, 8], [2]).unwrap();
    /// assert_eq!(a.insert(1, &col, 1).unwrap().to_vec(), vec![1, 7, 2, 3, 8, 4]);
    /// let nine = Tensor::scalar(9);
    /// assert_eq!(a.insert(&[0, 2], &nine, 1).unwrap().to_vec(), vec![9, 1, 2, 9, 9, 3, 4, 9]);
    /// ```
    pub fn insert<'i, S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        at: impl Into<InsertAt<'i>>,
        values: &TensorBase<S2, D2>,
        axis: isize,
    ) -> Result<Tensor<T, D>> {
        let op = "insert";
        let nd = self.ndim();
        let ax = normalize_axis(axis, nd, op)?;
        let n = self.shape()[ax];
        let vals = values.view().into_dyn();
        // Where each inserted entry goes in the result, and the block of values.
        // NumPy: a scalar index or a one-element list inserts a block (a scalar after
        // moving the values' first axis to `axis`); longer lists insert one entry each.
        let (block_at, move_first) = match at.into() {
            InsertAt::Index(i) => (Some(i), true),
            InsertAt::Indices(&[i]) => (Some(i), false),
            InsertAt::Indices(list) => {
                let mut idx: Vec<usize> = list
                    .iter()
                    .map(|&i| resolve(i, n, true, ax, op))
                    .collect::<Result<_>>()?;
                // A stable argsort, then each index moves past the earlier insertions.
                let mut order: Vec<usize> = (0..idx.len()).collect();
                order.sort_by_key(|&j| idx[j]);
                for (rank, &j) in order.iter().enumerate() {
                    idx[j] += rank;
                }
                let mut target = self.shape().to_vec();
                target[ax] = idx.len();
                let l = broadcast_layout(&vals.layout, &target, op)?;
                return self.insert_entries(&idx, &view_with(vals.storage.0, l), ax);
            }
        };
        let idx = resolve(block_at.unwrap_or(0), n, true, ax, op)?;
        if vals.ndim() > nd {
            return Err(Error::shape(
                op,
                format!(
                    "values of shape {} have more dimensions than the array of shape {}",
                    fmt_shape(vals.shape()),
                    fmt_shape(self.shape())
                ),
            ));
        }
        let mut v = vals;
        while v.ndim() < nd {
            v = v.unsqueeze(0)?;
        }
        if move_first {
            v = v.moveaxis(0, ax as isize)?;
        }
        let k = v.shape()[ax];
        let mut target = self.shape().to_vec();
        target[ax] = k;
        let l = broadcast_layout(&v.layout, &target, op)?;
        let positions: Vec<usize> = (idx..idx + k).collect();
        self.insert_entries(&positions, &view_with(v.storage.0, l), ax)
    }

    /// The result of inserting entry `j` of `block` (along `ax`) at position
    /// `positions[j]` of the result; the input's entries fill the other positions.
    fn insert_entries(&self, positions: &[usize], block: &TensorView<'_, T, IxDyn>, ax: usize) -> Result<Tensor<T, D>> {
        let op = "insert";
        let n = self.shape()[ax];
        let mut shape = self.shape().to_vec();
        shape[ax] = n + positions.len();
        let mut out = alloc::<T>(&shape, op)?;
        if !out.is_empty() {
            let cs = c_strides(&shape);
            let mut is_new = vec![false; shape[ax]];
            for (j, &p) in positions.iter().enumerate() {
                is_new[p] = true;
                // Later entries for the same place win, as NumPy's fancy assignment.
                copy_into(&mut out, &cs, p * cs[ax] as usize, &narrow(block, ax, j, 1));
            }
            let v = self.view();
            let mut src = 0;
            for (p, &new) in is_new.iter().enumerate() {
                if !new {
                    copy_into(&mut out, &cs, p * cs[ax] as usize, &narrow(&v, ax, src, 1));
                    src += 1;
                }
            }
        }
        owned(out, &shape, op)
    }

    /// The tensor with `values` appended along `axis` (NumPy's `append(arr, values,
    /// axis)`: the ranks must match; for NumPy's `axis=None` flatten both first). `Err`
    /// if the other axes differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let b = Tensor::from_vec(vec![5, 6], [1, 2]).unwrap();
    /// assert_eq!(a.append(&b, 0).unwrap().to_vec(), vec![1, 2, 3, 4, 5, 6]);
    /// assert!(a.append(&b, 1).is_err());
    /// ```
    pub fn append<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        values: &TensorBase<S2, D2>,
        axis: isize,
    ) -> Result<Tensor<T, D>> {
        let op = "append";
        if values.ndim() != self.ndim() {
            return Err(Error::shape(
                op,
                format!(
                    "all the input arrays must have the same number of dimensions: shapes {} and {}",
                    fmt_shape(self.shape()),
                    fmt_shape(values.shape())
                ),
            ));
        }
        let joined = concatenate(&[&self.view().into_dyn(), &values.view().into_dyn()], axis).map_err(|e| match e {
            Error::Shape { msg, .. } => Error::shape(op, msg),
            Error::Axis { msg, .. } => Error::axis(op, msg),
            other => other,
        })?;
        joined.into_dim()
    }
}
