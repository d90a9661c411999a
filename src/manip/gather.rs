//! Gathering and scattering along an axis: NumPy `take_along_axis` /
//! `put_along_axis`, PyTorch `gather` / `scatter` / `scatter_add`.

use super::index::{IndexElement, resolve};
use super::{c_strides, owned};
use crate::element::{Element, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::iter::Plan;
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, Layout};
use crate::storage::{Storage, StorageMut};
use crate::tensor::{Tensor, TensorBase};

/// Calls `f(offsets)` for every position of `shape` in row-major order, with each
/// operand's buffer offset; stops at the first error.
pub(crate) fn walk<const N: usize>(
    shape: &[usize],
    strides: [&[isize]; N],
    base: [usize; N],
    mut f: impl FnMut([usize; N]) -> Result<()>,
) -> Result<()> {
    let plan = Plan::<N>::new(shape, strides, base, false);
    let mut res = Ok(());
    plan.for_each_run(|offs, len| {
        if res.is_err() {
            return;
        }
        for i in 0..len as isize {
            if let Err(e) = f(std::array::from_fn(|k| (offs[k] + i * plan.inner[k]) as usize)) {
                res = Err(e);
                return;
            }
        }
    });
    res
}

/// The normalised axis, the broadcast shape, and the array's and the index's strides
/// over that shape.
type AlongAxis = (usize, Vec<usize>, Vec<isize>, Vec<isize>);

/// NumPy's shape rule for `take_along_axis` / `put_along_axis`: the index shape
/// broadcast against the array's on every axis but `axis`. Returns the shape and the
/// array's and the index's strides broadcast to it (the array's `axis` stride is 0).
fn along_axis_shape<D: Dimension, D2: Dimension>(
    arr: &Layout<D>,
    idx: &Layout<D2>,
    axis: isize,
    op: &'static str,
) -> Result<AlongAxis> {
    let (a, b) = (arr.shape(), idx.shape());
    if a.len() != b.len() {
        return Err(Error::shape(
            op,
            format!(
                "`indices` and `arr` must have the same number of dimensions, got shapes {} and {}",
                fmt_shape(b),
                fmt_shape(a)
            ),
        ));
    }
    let ax = normalize_axis(axis, a.len(), op)?;
    let mut shape = Vec::with_capacity(a.len());
    let (mut ast, mut ist) = (Vec::new(), Vec::new());
    for d in 0..a.len() {
        let n = if d == ax {
            b[d]
        } else if a[d] == b[d] || b[d] == 1 {
            a[d]
        } else if a[d] == 1 {
            b[d]
        } else {
            return Err(Error::shape(
                op,
                format!(
                    "shape mismatch: indices of shape {} cannot be broadcast with array of shape {} outside axis {ax}",
                    fmt_shape(b),
                    fmt_shape(a)
                ),
            ));
        };
        shape.push(n);
        ast.push(if d == ax || (a[d] == 1 && n != 1) {
            0
        } else {
            arr.strides()[d]
        });
        ist.push(if b[d] == 1 && n != 1 { 0 } else { idx.strides()[d] });
    }
    Ok((ax, shape, ast, ist))
}

/// PyTorch's shape rule for `gather`/`scatter`: same rank, and `index.shape[d] <=
/// limit.shape[d]` on every axis except `skip`.
fn check_within(index: &[usize], limit: &[usize], skip: Option<usize>, what: &str, op: &'static str) -> Result<()> {
    let ok = index.len() == limit.len() && (0..index.len()).all(|d| Some(d) == skip || index[d] <= limit[d]);
    if !ok {
        return Err(Error::shape(
            op,
            format!(
                "index of shape {} must have the rank of {what} (shape {}) and no larger size on any axis{}",
                fmt_shape(index),
                fmt_shape(limit),
                skip.map_or(String::new(), |d| format!(" but {d}"))
            ),
        ));
    }
    Ok(())
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Picks elements along `axis` by an index tensor of the same rank (NumPy
    /// `take_along_axis`): `out[.., i, ..] = a[.., indices[.., i, ..], ..]`. The other
    /// axes broadcast against each other; negative indices count from the end. `Err` for
    /// a rank mismatch, shapes that don't broadcast, or an index out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![30, 10, 20, 5, 6, 4], [2, 3]).unwrap();
    /// let i = a.argsort(1).unwrap();
    /// assert_eq!(a.take_along_axis(&i, 1).unwrap().to_vec(), vec![10, 20, 30, 4, 5, 6]);
    /// let last = Tensor::from_vec(vec![-1i64], [1, 1]).unwrap();
    /// assert_eq!(a.take_along_axis(&last, 1).unwrap().to_vec(), vec![20, 4]);
    /// ```
    pub fn take_along_axis<I: IndexElement, S2: Storage<Elem = I>, D2: Dimension>(
        &self,
        indices: &TensorBase<S2, D2>,
        axis: isize,
    ) -> Result<Tensor<T, D>> {
        let op = "take_along_axis";
        let (ax, shape, ast, ist) = along_axis_shape(&self.layout, &indices.layout, axis, op)?;
        let (buf, ibuf) = (self.storage.buffer(), indices.storage.buffer());
        let (n, sa) = (self.shape()[ax], self.strides()[ax]);
        let mut out = Vec::with_capacity(shape.iter().product());
        walk(&shape, [&ast, &ist], [self.offset(), indices.offset()], |[ao, io]| {
            let k = resolve(ibuf[io], n, true, ax, op)?;
            out.push(buf[(ao as isize + k as isize * sa) as usize]);
            Ok(())
        })?;
        owned(out, &shape, op)
    }

    /// PyTorch `gather`: `out[p] = a[p with p[axis] replaced by index[p]]`. The index
    /// has the input's rank and no larger length on any axis but `axis`; the output has
    /// the index's shape. No broadcasting; indices must lie in `0..len` (`Err`
    /// otherwise, as for mismatched shapes).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let idx = Tensor::from_vec(vec![0i64, 0, 1, 0], [2, 2]).unwrap();
    /// assert_eq!(a.gather(1, &idx).unwrap().to_vec(), vec![1, 1, 4, 3]);
    /// let bad = Tensor::from_vec(vec![2i64], [1, 1]).unwrap();
    /// assert!(a.gather(1, &bad).is_err());
    /// ```
    pub fn gather<I: IndexElement, S2: Storage<Elem = I>, D2: Dimension>(
        &self,
        axis: isize,
        index: &TensorBase<S2, D2>,
    ) -> Result<Tensor<T, D>> {
        let op = "gather";
        let ax = normalize_axis(axis, self.ndim().max(1), op)?;
        check_within(index.shape(), self.shape(), Some(ax), "the input", op)?;
        let shape = index.shape().to_vec();
        let (buf, ibuf) = (self.storage.buffer(), index.storage.buffer());
        let mut st = self.strides().to_vec();
        let (n, sa) = match st.get_mut(ax) {
            Some(s) => (self.shape()[ax], std::mem::replace(s, 0)),
            None => (1, 0),
        };
        let mut out = Vec::with_capacity(index.size());
        walk(
            &shape,
            [&st, index.strides()],
            [self.offset(), index.offset()],
            |[ao, io]| {
                let k = resolve(ibuf[io], n, false, ax, op)?;
                out.push(buf[(ao as isize + k as isize * sa) as usize]);
                Ok(())
            },
        )?;
        owned(out, &shape, op)
    }

    /// Shared body of `scatter` and `scatter_add`.
    fn scatter_with<I: IndexElement, S2: Storage<Elem = I>, D2: Dimension, S3: Storage<Elem = T>, D3: Dimension>(
        &self,
        axis: isize,
        index: &TensorBase<S2, D2>,
        src: &TensorBase<S3, D3>,
        op: &'static str,
        f: impl Fn(&mut T, T),
    ) -> Result<Tensor<T, D>> {
        let ax = normalize_axis(axis, self.ndim().max(1), op)?;
        check_within(index.shape(), self.shape(), Some(ax), "the input", op)?;
        check_within(index.shape(), src.shape(), None, "src", op)?;
        let shape = self.shape().to_vec();
        let mut out = self.to_vec();
        let cs = c_strides(&shape);
        let mut ost = cs.clone();
        let (n, so) = match ost.get_mut(ax) {
            Some(s) => (shape[ax], std::mem::replace(s, 0)),
            None => (1, 0),
        };
        let (ibuf, sbuf) = (index.storage.buffer(), src.storage.buffer());
        // Validate every index before writing, so an error leaves nothing half done.
        let mut targets = Vec::with_capacity(index.size());
        walk(
            index.shape(),
            [&ost, index.strides(), src.strides()],
            [0, index.offset(), src.offset()],
            |[oo, io, so_]| {
                let k = resolve(ibuf[io], n, false, ax, op)?;
                targets.push((oo as isize + k as isize * so, sbuf[so_]));
                Ok(())
            },
        )?;
        for (o, v) in targets {
            f(&mut out[o as usize], v);
        }
        owned(out, &shape, op)
    }

    /// PyTorch `scatter` (out of place): a copy of `self` with `out[p with p[axis]
    /// replaced by index[p]] = src[p]` for every position `p` of `index`. The index has
    /// the rank of both, is no larger than `src` on any axis and no larger than `self`
    /// on axes other than `axis`. Repeated targets keep the last write in row-major
    /// order of `index`. `Err` for shape violations and indices outside `0..len`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::zeros([2, 3]);
    /// let idx = Tensor::from_vec(vec![2i64, 0], [2, 1]).unwrap();
    /// let src = Tensor::from_vec(vec![7, 8], [2, 1]).unwrap();
    /// assert_eq!(a.scatter(1, &idx, &src).unwrap().to_vec(), vec![0, 0, 7, 8, 0, 0]);
    /// ```
    pub fn scatter<I: IndexElement, S2: Storage<Elem = I>, D2: Dimension, S3: Storage<Elem = T>, D3: Dimension>(
        &self,
        axis: isize,
        index: &TensorBase<S2, D2>,
        src: &TensorBase<S3, D3>,
    ) -> Result<Tensor<T, D>> {
        self.scatter_with(axis, index, src, "scatter", |o, v| *o = v)
    }

    /// NumPy `put_along_axis`: writes `values` (broadcast to the index shape) at the
    /// positions [`TensorBase::take_along_axis`] would read, in place. Repeated targets
    /// keep the last write. `Err` as for `take_along_axis`, or when `values` does not
    /// broadcast; nothing is written on error.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut a = Tensor::from_vec(vec![3, 1, 2, 9, 8, 7], [2, 3]).unwrap();
    /// let i = Tensor::from_vec(vec![0usize, 2], [2, 1]).unwrap();
    /// a.put_along_axis(&i, &Tensor::scalar(0), 1).unwrap();
    /// assert_eq!(a.to_vec(), vec![0, 1, 2, 9, 8, 0]);
    /// ```
    pub fn put_along_axis<I: IndexElement, S2: Storage<Elem = I>, D2: Dimension, S3: Storage<Elem = T>, D3: Dimension>(
        &mut self,
        indices: &TensorBase<S2, D2>,
        values: &TensorBase<S3, D3>,
        axis: isize,
    ) -> Result<()>
    where
        S: StorageMut,
    {
        let op = "put_along_axis";
        self.storage.make_unique(&mut self.layout);
        let (ax, shape, ast, ist) = along_axis_shape(&self.layout, &indices.layout, axis, op)?;
        let vl = crate::layout::transform::broadcast_layout(&values.layout, &shape, op)?;
        let (n, sa) = (self.shape()[ax], self.strides()[ax]);
        let (ibuf, vbuf) = (indices.storage.buffer(), values.storage.buffer());
        let mut targets = Vec::with_capacity(shape.iter().product());
        walk(
            &shape,
            [&ast, &ist, vl.strides()],
            [self.offset(), indices.offset(), vl.offset()],
            |[ao, io, vo]| {
                let k = resolve(ibuf[io], n, true, ax, op)?;
                targets.push((ao as isize + k as isize * sa, vbuf[vo]));
                Ok(())
            },
        )?;
        let buf = self.storage.buffer_mut();
        for (o, v) in targets {
            buf[o as usize] = v;
        }
        Ok(())
    }
}

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// PyTorch `scatter_add` (out of place): like [`TensorBase::scatter`] but adds
    /// `src[p]` to the target, so repeated targets accumulate.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<i32, _>::zeros([3]);
    /// let idx = Tensor::from_vec(vec![0i64, 2, 0, 0], [4]).unwrap();
    /// let src = Tensor::from_vec(vec![1, 2, 3, 4], [4]).unwrap();
    /// assert_eq!(a.scatter_add(0, &idx, &src).unwrap().to_vec(), vec![8, 0, 2]);
    /// ```
    pub fn scatter_add<I: IndexElement, S2: Storage<Elem = I>, D2: Dimension, S3: Storage<Elem = T>, D3: Dimension>(
        &self,
        axis: isize,
        index: &TensorBase<S2, D2>,
        src: &TensorBase<S3, D3>,
    ) -> Result<Tensor<T, D>> {
        self.scatter_with(axis, index, src, "scatter_add", |o, v| *o = o.wadd(v))
    }
}
