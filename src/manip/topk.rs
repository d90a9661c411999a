//! The `k` largest or smallest elements along an axis: `topk`.

use super::sort::SortElement;
use super::{alloc, axis_last, lane_offsets, restore_axis};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::layout::transform::normalize_axis;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use rayon::prelude::*;

impl<T: SortElement, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// The `k` largest (or smallest) elements of each lane along `axis` and their
    /// indices (PyTorch `topk(k, dim, largest, sorted=True)`): values sorted descending
    /// for `largest`, ascending otherwise; equal values by lower index first; NaN counts
    /// as larger than every number (NumPy's sort order). The axis has length `k` in both
    /// results. `Err` for `k` larger than the axis or an axis out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 5, 3, 5, 2], [5]).unwrap();
    /// let (v, i) = a.topk(3, 0, true).unwrap();
    /// assert_eq!((v.to_vec(), i.to_vec()), (vec![5, 5, 3], vec![1, 3, 2]));
    /// let (v, i) = a.topk(2, -1, false).unwrap();
    /// assert_eq!((v.to_vec(), i.to_vec()), (vec![1, 2], vec![0, 4]));
    /// assert!(a.topk(6, 0, true).is_err());
    /// ```
    pub fn topk(&self, k: usize, axis: isize, largest: bool) -> Result<(Tensor<T, D>, Tensor<usize, D>)> {
        let op = "topk";
        let ax = normalize_axis(axis, self.ndim(), op)?;
        let v = axis_last(&self.view(), ax);
        let mut moved = v.shape().to_vec();
        let nd = moved.len();
        let n = moved[nd - 1];
        if k > n {
            return Err(Error::index(
                op,
                format!(
                    "k = {k} is out of range for axis {ax} of length {n} (shape {})",
                    fmt_shape(self.shape())
                ),
            ));
        }
        moved[nd - 1] = k;
        let mut vals = alloc::<T>(&moved, op)?;
        let mut idxs = alloc::<usize>(&moved, op)?;
        if k > 0 {
            let offs = lane_offsets(v.shape(), v.strides(), v.offset());
            let (buf, st) = (v.storage.0, v.strides()[nd - 1]);
            let lane = |pairs: &mut Vec<(u64, usize)>, vl: &mut [T], il: &mut [usize], o: isize| {
                pairs.clear();
                pairs.extend((0..n).map(|i| {
                    let key = buf[(o + i as isize * st) as usize].sort_key();
                    (if largest { !key } else { key }, i)
                }));
                if k < n {
                    pairs.select_nth_unstable(k - 1);
                }
                pairs[..k].sort_unstable();
                for ((x, j), p) in vl.iter_mut().zip(il.iter_mut()).zip(&pairs[..k]) {
                    *j = p.1;
                    *x = buf[(o + p.1 as isize * st) as usize];
                }
            };
            if self.size() >= crate::iter::PARALLEL_THRESHOLD && crate::threads::num_threads() > 1 {
                vals.par_chunks_mut(k)
                    .zip(idxs.par_chunks_mut(k))
                    .zip(offs.par_iter())
                    .for_each_init(Vec::new, |p, ((vl, il), &o)| lane(p, vl, il, o));
            } else {
                let mut p = Vec::with_capacity(n);
                for ((vl, il), &o) in vals.chunks_mut(k).zip(idxs.chunks_mut(k)).zip(&offs) {
                    lane(&mut p, vl, il, o);
                }
            }
        }
        Ok((restore_axis(vals, &moved, ax, op)?, restore_axis(idxs, &moved, ax, op)?))
    }
}
