//! Triangles and diagonals: `tril`, `triu`, `diag`.

use super::{alloc, owned};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{DiagDim, Dimension};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Keeps `a[.., i, j]` where `j - i <= k` or `j - i >= k`, zeroing the rest.
    fn triangle(&self, k: isize, lower: bool, op: &'static str) -> Result<Tensor<T, D>> {
        let shape = self.shape().to_vec();
        let nd = shape.len();
        if nd < 2 {
            return Err(Error::shape(
                op,
                format!(
                    "input must be at least 2-d, got shape {} (NumPy broadcasts a 1-D input to (n, n): use broadcast_to first)",
                    fmt_shape(&shape)
                ),
            ));
        }
        let mut out = self.to_vec();
        let (m, n) = (shape[nd - 2], shape[nd - 1]);
        if m * n > 0 {
            for mat in out.chunks_mut(m * n) {
                for (i, row) in mat.chunks_mut(n).enumerate() {
                    let edge = (i as isize + k).clamp(-1, n as isize);
                    let zero = if lower {
                        (edge + 1).clamp(0, n as isize) as usize..n
                    } else {
                        0..edge.clamp(0, n as isize) as usize
                    };
                    row[zero].iter_mut().for_each(|x| *x = T::default());
                }
            }
        }
        owned(out, &shape, op)
    }

    /// The lower triangle of the last two axes (NumPy `tril`): elements with
    /// `j - i > k` become zero (`k = 0` the main diagonal, `k < 0` below it). Batched
    /// over leading axes. `Err` for fewer than 2 axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 3]).unwrap();
    /// assert_eq!(a.tril(0).unwrap().to_vec(), vec![1, 0, 0, 4, 5, 0, 7, 8, 9]);
    /// assert_eq!(a.tril(-1).unwrap().to_vec(), vec![0, 0, 0, 4, 0, 0, 7, 8, 0]);
    /// ```
    pub fn tril(&self, k: isize) -> Result<Tensor<T, D>> {
        self.triangle(k, true, "tril")
    }

    /// The upper triangle of the last two axes (NumPy `triu`): elements with
    /// `j - i < k` become zero. Batched over leading axes. `Err` for fewer than 2 axes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 3]).unwrap();
    /// assert_eq!(a.triu(1).unwrap().to_vec(), vec![0, 2, 3, 0, 0, 6, 0, 0, 0]);
    /// ```
    pub fn triu(&self, k: isize) -> Result<Tensor<T, D>> {
        self.triangle(k, false, "triu")
    }

    /// NumPy `diag`: a 1-D input of length `n` gives the `(n + |k|, n + |k|)` matrix with
    /// the input on diagonal `k` (zeros elsewhere); a 2-D input gives a 1-D copy of its
    /// diagonal `k` (empty if `k` lies outside). The rank type follows ([`DiagDim`]:
    /// `Ix1` gives `Ix2`, `Ix2` gives `Ix1`); other fixed ranks do not compile, and at
    /// dynamic rank they are an `Err`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let v = Tensor::from_vec(vec![1, 2], [2]).unwrap();
    /// let d: Tensor<i32, Ix2> = v.diag(1).unwrap();
    /// assert_eq!(d.to_vec(), vec![0, 1, 0, 0, 0, 2, 0, 0, 0]);
    /// let m = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    /// assert_eq!(m.diag(0).unwrap().to_vec(), vec![1, 5]);
    /// assert_eq!(m.diag(-1).unwrap().to_vec(), vec![4]);
    /// ```
    pub fn diag(&self, k: isize) -> Result<Tensor<T, D::Output>>
    where
        D: DiagDim,
    {
        let op = "diag";
        let buf = self.storage.buffer();
        let st = self.strides();
        let (off, ku) = (self.offset() as isize, k.unsigned_abs());
        match self.ndim() {
            1 => {
                let n = self.shape()[0];
                let size = n
                    .checked_add(ku)
                    .ok_or_else(|| Error::overflow(op, "matrix size overflows"))?;
                let shape = [size, size];
                let mut out = alloc::<T>(&shape, op)?;
                for i in 0..n {
                    let (r, c) = if k >= 0 { (i, i + ku) } else { (i + ku, i) };
                    out[r * size + c] = buf[(off + i as isize * st[0]) as usize];
                }
                owned(out, &shape, op)
            }
            2 => {
                let (m, n) = (self.shape()[0] as isize, self.shape()[1] as isize);
                let (r0, c0) = if k >= 0 { (0, k) } else { (-k, 0) };
                let len = (m - r0).min(n - c0).max(0) as usize;
                let out: Vec<T> = (0..len as isize)
                    .map(|i| buf[(off + (r0 + i) * st[0] + (c0 + i) * st[1]) as usize])
                    .collect();
                owned(out, &[len], op)
            }
            _ => Err(Error::shape(
                op,
                format!("input must be 1-d or 2-d, got shape {}", fmt_shape(self.shape())),
            )),
        }
    }
}
