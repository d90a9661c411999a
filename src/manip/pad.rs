//! Padding (NumPy `np.pad`): constant, edge, reflect, symmetric and wrap modes.

use super::{alloc, owned};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use rayon::prelude::*;

/// How [`TensorBase::pad`] fills the new elements (NumPy's `mode`). With `n` elements
/// along an axis, position `t` relative to the first original element reads:
///
/// | mode | source index | `[1, 2, 3]` padded by 2 |
/// |---|---|---|
/// | `Constant(v)` | none: `v` | `v v 1 2 3 v v` |
/// | `Edge` | `clamp(t, 0, n-1)` | `1 1 1 2 3 3 3` |
/// | `Reflect` | mirror without repeating the edge, period `2(n-1)` | `3 2 1 2 3 2 1` |
/// | `Symmetric` | mirror repeating the edge, period `2n` | `2 1 1 2 3 3 2` |
/// | `Wrap` | `t mod n` | `2 3 1 2 3 1 2` |
///
/// Widths larger than the axis continue the pattern periodically, which is what NumPy's
/// iterative padding produces.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
/// assert_eq!(a.pad(&[(2, 2)], PadMode::Reflect).unwrap().to_vec(), vec![3, 2, 1, 2, 3, 2, 1]);
/// assert_eq!(a.pad(&[(1, 0)], PadMode::Constant(0)).unwrap().to_vec(), vec![0, 1, 2, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadMode<T> {
    /// Fill with a value.
    Constant(T),
    /// Repeat the edge element (`replicate` in PyTorch).
    Edge,
    /// Mirror around the edge element, not repeating it.
    Reflect,
    /// Mirror around the edge, repeating the edge element.
    Symmetric,
    /// Continue from the other end (`circular` in PyTorch).
    Wrap,
}

/// Source index along one axis for output position `i` (`None`: the constant).
fn source(mode_kind: u8, i: usize, before: usize, n: usize) -> Option<usize> {
    let t = i as isize - before as isize;
    let n_i = n as isize;
    if (0..n_i).contains(&t) {
        return Some(t as usize);
    }
    let u = match mode_kind {
        0 => return None,
        1 => t.clamp(0, n_i - 1),
        2 => {
            if n == 1 {
                0
            } else {
                let p = 2 * (n_i - 1);
                let u = t.rem_euclid(p);
                if u >= n_i { p - u } else { u }
            }
        }
        3 => {
            let p = 2 * n_i;
            let u = t.rem_euclid(p);
            if u >= n_i { p - 1 - u } else { u }
        }
        _ => t.rem_euclid(n_i),
    };
    Some(u as usize)
}

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Pads every axis with `(before, after)` new elements (NumPy `np.pad`). `widths`
    /// holds one pair per axis, or a single pair used for every axis. `Err` for a wrong
    /// number of pairs, or for padding a zero-length axis with a mode other than
    /// `Constant`. The result is row-major; each element is written once.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// let p = a.pad(&[(0, 1), (1, 0)], PadMode::Edge).unwrap();
    /// assert_eq!(p.shape(), &[3, 3]);
    /// assert_eq!(p.to_vec(), vec![1, 1, 2, 3, 3, 4, 3, 3, 4]);
    /// let w = a.pad(&[(1, 1)], PadMode::Wrap).unwrap();          // one pair for all axes
    /// assert_eq!(w.shape(), &[4, 4]);
    /// assert!(a.pad(&[(1, 1), (1, 1), (1, 1)], PadMode::Edge).is_err());
    /// ```
    pub fn pad(&self, widths: &[(usize, usize)], mode: PadMode<T>) -> Result<Tensor<T, D>> {
        let op = "pad";
        let shape = self.shape();
        let nd = shape.len();
        let widths: Vec<(usize, usize)> = match widths.len() {
            1 => vec![widths[0]; nd],
            k if k == nd => widths.to_vec(),
            0 if nd == 0 => Vec::new(),
            k => {
                return Err(Error::shape(
                    op,
                    format!(
                        "{k} (before, after) pairs given for an array of shape {}",
                        fmt_shape(shape)
                    ),
                ));
            }
        };
        let (kind, value) = match mode {
            PadMode::Constant(v) => (0u8, v),
            PadMode::Edge => (1, T::default()),
            PadMode::Reflect => (2, T::default()),
            PadMode::Symmetric => (3, T::default()),
            PadMode::Wrap => (4, T::default()),
        };
        if kind != 0
            && let Some(ax) = (0..nd).find(|&k| shape[k] == 0 && widths[k] != (0, 0))
        {
            return Err(Error::value(
                op,
                format!(
                    "can't extend empty axis {ax} of shape {} using modes other than 'constant'",
                    fmt_shape(shape)
                ),
            ));
        }
        let mut out_shape = Vec::with_capacity(nd);
        for (k, &(b, a)) in widths.iter().enumerate() {
            let d = shape[k]
                .checked_add(b)
                .and_then(|d| d.checked_add(a))
                .ok_or_else(|| Error::overflow(op, "padded length overflows usize"))?;
            out_shape.push(d);
        }
        let mut out = alloc::<T>(&out_shape, op)?;
        if out.is_empty() {
            return owned(out, &out_shape, op);
        }
        if nd == 0 {
            out[0] = self.storage.buffer()[self.offset()];
            return owned(out, &out_shape, op);
        }
        if self.size() == 0 {
            out.iter_mut().for_each(|x| *x = value);
            return owned(out, &out_shape, op);
        }
        // Per-axis maps from output position to source offset contribution.
        let strides = self.strides();
        let maps: Vec<Vec<Option<isize>>> = (0..nd)
            .map(|k| {
                (0..out_shape[k])
                    .map(|i| source(kind, i, widths[k].0, shape[k]).map(|s| s as isize * strides[k]))
                    .collect()
            })
            .collect();
        let buf = self.storage.buffer();
        let base = self.offset() as isize;
        let row_len = out_shape[nd - 1];
        let (before, n) = (widths[nd - 1].0, shape[nd - 1]);
        let st = strides[nd - 1];
        let outer = &out_shape[..nd - 1];
        let last_map = &maps[nd - 1];
        let fill_row = |r: usize, row: &mut [T]| {
            let mut rest = r;
            let mut off = base;
            for k in (0..outer.len()).rev() {
                let i = rest % outer[k];
                rest /= outer[k];
                match maps[k][i] {
                    Some(o) => off += o,
                    None => {
                        row.iter_mut().for_each(|x| *x = value);
                        return;
                    }
                }
            }
            let (head, tail) = row.split_at_mut(before);
            let (mid, tail) = tail.split_at_mut(n);
            for (x, m) in head.iter_mut().zip(&last_map[..before]) {
                *x = m.map_or(value, |o| buf[(off + o) as usize]);
            }
            if st == 1 {
                mid.copy_from_slice(&buf[off as usize..off as usize + n]);
            } else {
                for (j, x) in mid.iter_mut().enumerate() {
                    *x = buf[(off + j as isize * st) as usize];
                }
            }
            for (x, m) in tail.iter_mut().zip(&last_map[before + n..]) {
                *x = m.map_or(value, |o| buf[(off + o) as usize]);
            }
        };
        if out.len() >= crate::iter::PARALLEL_THRESHOLD && crate::threads::num_threads() > 1 {
            let rows_per_task = (out.len() / row_len).div_ceil(crate::threads::num_threads() * 8).max(1);
            out.par_chunks_mut(row_len * rows_per_task)
                .enumerate()
                .for_each(|(t, block)| {
                    for (j, row) in block.chunks_mut(row_len).enumerate() {
                        fill_row(t * rows_per_task + j, row);
                    }
                });
        } else {
            for (r, row) in out.chunks_mut(row_len).enumerate() {
                fill_row(r, row);
            }
        }
        owned(out, &out_shape, op)
    }
}
