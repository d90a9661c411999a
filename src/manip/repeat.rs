//! Repeating and rotating: `repeat`, `tile`, `roll`.

use super::{alloc, c_strides, copy_into, narrow, owned};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Repeats each element along `axis` (NumPy `repeat`). `repeats` holds one count
    /// for every element along the axis, or a single count for all; `axis = None`
    /// works on the row-major flattening and gives a 1-D result. `Err` for a count list
    /// of another length or an axis out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// assert_eq!(a.repeat(&[2], None).unwrap().to_vec(), vec![1, 1, 2, 2, 3, 3, 4, 4]);
    /// let r = a.repeat(&[1, 2], Some(0)).unwrap();
    /// assert_eq!((r.shape(), r.to_vec()), (&[3usize, 2][..], vec![1, 2, 3, 4, 3, 4]));
    /// assert!(a.repeat(&[1, 2, 3], Some(1)).is_err());
    /// ```
    pub fn repeat(&self, repeats: &[usize], axis: Option<isize>) -> Result<Tensor<T, IxDyn>> {
        let op = "repeat";
        let src = self.to_vec();
        let (shape, ax) = match axis {
            None => (vec![self.size()], 0),
            Some(a) => (self.shape().to_vec(), normalize_axis(a, self.ndim(), op)?),
        };
        let n = shape[ax];
        if repeats.len() != 1 && repeats.len() != n {
            return Err(Error::shape(
                op,
                format!(
                    "operands could not be broadcast together with shape ({n},) ({},)",
                    repeats.len()
                ),
            ));
        }
        let count = |i: usize| if repeats.len() == 1 { repeats[0] } else { repeats[i] };
        let m = (0..n).try_fold(0usize, |acc, i| acc.checked_add(count(i)));
        let mut out_shape = shape.clone();
        out_shape[ax] = m.ok_or_else(|| Error::overflow(op, "repeated length overflows usize"))?;
        let total = crate::layout::checked_size(&out_shape, op)?;
        let outer: usize = shape[..ax].iter().product();
        let inner: usize = shape[ax + 1..].iter().product();
        let mut out = Vec::with_capacity(total);
        for o in 0..outer {
            for i in 0..n {
                let start = (o * n + i) * inner;
                let block = &src[start..start + inner];
                for _ in 0..count(i) {
                    out.extend_from_slice(block);
                }
            }
        }
        owned(out, &out_shape, op)
    }

    /// Repeats the whole tensor `reps[i]` times along each axis (NumPy `tile`). A
    /// shorter `reps` is padded with leading 1s; a longer one adds leading axes to the
    /// tensor. The result has `max(ndim, reps.len())` axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2], [2]).unwrap();
    /// let t = a.tile(&[2, 2]).unwrap();
    /// assert_eq!((t.shape(), t.to_vec()), (&[2usize, 4][..], vec![1, 2, 1, 2, 1, 2, 1, 2]));
    /// ```
    pub fn tile(&self, reps: &[usize]) -> Result<Tensor<T, IxDyn>> {
        let op = "tile";
        let d = self.ndim().max(reps.len());
        let pad = |v: &[usize]| -> Vec<usize> {
            let mut p = vec![1; d - v.len()];
            p.extend_from_slice(v);
            p
        };
        let (shape, reps) = (pad(self.shape()), pad(reps));
        let mut sst = vec![0isize; d - self.ndim()];
        sst.extend_from_slice(self.strides());
        let mut out_shape = Vec::with_capacity(d);
        for k in 0..d {
            out_shape.push(
                shape[k]
                    .checked_mul(reps[k])
                    .ok_or_else(|| Error::overflow(op, "tiled length overflows usize"))?,
            );
        }
        let mut out = alloc::<T>(&out_shape, op)?;
        if out.is_empty() {
            return owned(out, &out_shape, op);
        }
        let cs = c_strides(&out_shape);
        let (mut it_shape, mut ost, mut ist) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..d {
            it_shape.extend([reps[k], shape[k]]);
            ost.extend([shape[k] as isize * cs[k], cs[k]]);
            ist.extend([0, sst[k]]);
        }
        crate::iter::zip_into(
            &it_shape,
            crate::iter::Dst::new(&mut out, &ost, 0),
            crate::iter::Src::new(self.storage.buffer(), &ist, self.offset()),
            |o, x| *o = x,
        );
        owned(out, &out_shape, op)
    }

    /// Rotates elements by `shift` positions along `axis` (NumPy `roll`): elements
    /// pushed past the end come back at the start; a negative shift rotates the other
    /// way. `axis = None` rolls the row-major flattening and keeps the shape.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    /// assert_eq!(a.roll(1, None).unwrap().to_vec(), vec![6, 1, 2, 3, 4, 5]);
    /// assert_eq!(a.roll(-1, Some(1)).unwrap().to_vec(), vec![2, 3, 1, 5, 6, 4]);
    /// ```
    pub fn roll(&self, shift: isize, axis: Option<isize>) -> Result<Tensor<T, D>> {
        let op = "roll";
        let shape = self.shape().to_vec();
        let Some(axis) = axis else {
            let mut v = self.to_vec();
            if !v.is_empty() {
                let s = shift.rem_euclid(v.len() as isize) as usize;
                v.rotate_right(s);
            }
            return owned(v, &shape, op);
        };
        if self.ndim() == 0 {
            return Err(Error::axis(
                op,
                format!("axis {axis} is out of bounds for array of shape {}", fmt_shape(&shape)),
            ));
        }
        let ax = normalize_axis(axis, self.ndim(), op)?;
        let mut out = alloc::<T>(&shape, op)?;
        let n = shape[ax];
        if out.is_empty() {
            return owned(out, &shape, op);
        }
        let s = shift.rem_euclid(n as isize) as usize;
        let cs = c_strides(&shape);
        let v = self.view();
        copy_into(&mut out, &cs, s * cs[ax] as usize, &narrow(&v, ax, 0, n - s));
        if s > 0 {
            copy_into(&mut out, &cs, 0, &narrow(&v, ax, n - s, s));
        }
        owned(out, &shape, op)
    }
}
