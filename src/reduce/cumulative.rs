//! Cumulative sums and products along an axis.

use crate::element::Num;
use crate::error::Result;
use crate::iter::{PARALLEL_THRESHOLD, Plan, SendPtr};
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, Layout, Order};
use crate::storage::{OwnedRepr, Storage};
use crate::tensor::{Tensor, TensorBase};

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// `out[…, i, …] = op(out[…, i−1, …], x[…, i, …])` along `axis`, into a new
    /// row-major tensor of the same shape.
    fn scan_axis(&self, axis: isize, op: &'static str, f: impl Fn(T, T) -> T + Sync) -> Result<Tensor<T, D>> {
        let ax = normalize_axis(axis, self.ndim(), op)?;
        let layout = Layout::new_order(self.dim().clone(), Order::RowMajor)?;
        let mut out = vec![T::zero(); layout.size()];
        let (shape, strides, ostr) = (self.shape(), self.strides(), layout.strides());
        let (n, sa, osa) = (shape[ax], strides[ax], ostr[ax]);
        let pick = |v: &[usize]| -> Vec<usize> { (0..shape.len()).filter(|&k| k != ax).map(|k| v[k]).collect() };
        let ks = pick(shape);
        let kst: Vec<isize> = (0..shape.len()).filter(|&k| k != ax).map(|k| strides[k]).collect();
        let kos: Vec<isize> = (0..shape.len()).filter(|&k| k != ax).map(|k| ostr[k]).collect();
        if !out.is_empty() {
            let plan = Plan::<2>::new(&ks, [&kst, &kos], [self.offset(), 0], true);
            let [kis, kosi] = plan.inner;
            let inner = plan.inner_len <= 1 || sa.unsigned_abs() <= kis.unsigned_abs();
            let buf = self.buffer();
            let ptr = SendPtr(out.as_mut_ptr());
            let body = |[io, oo]: [isize; 2], len: usize| {
                // SAFETY: the output is a fresh row-major buffer; (kept index, i) pairs
                // map to distinct in-bounds offsets, and each kept index belongs to
                // exactly one caller.
                let w = |o: isize, v: T| unsafe { *ptr.get().offset(o) = v };
                // SAFETY: as above, for reading back an element this caller wrote.
                let r = |o: isize| unsafe { *ptr.get().offset(o) };
                if inner {
                    for j in 0..len as isize {
                        let (ib, ob) = (io + j * kis, oo + j * kosi);
                        let mut acc = buf[ib as usize];
                        w(ob, acc);
                        for i in 1..n as isize {
                            acc = f(acc, buf[(ib + i * sa) as usize]);
                            w(ob + i * osa, acc);
                        }
                    }
                } else {
                    for j in 0..len as isize {
                        w(oo + j * kosi, buf[(io + j * kis) as usize]);
                    }
                    for i in 1..n as isize {
                        for j in 0..len as isize {
                            let prev = r(oo + j * kosi + (i - 1) * osa);
                            w(oo + j * kosi + i * osa, f(prev, buf[(io + j * kis + i * sa) as usize]));
                        }
                    }
                }
            };
            if out.len() >= PARALLEL_THRESHOLD {
                plan.par_for_each_run(0, body);
            } else {
                plan.for_each_run(body);
            }
        }
        Ok(TensorBase {
            storage: OwnedRepr(out),
            layout,
        })
    }

    /// Cumulative sum along `axis` (NumPy's `cumsum(a, axis)`; integers wrap).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    /// assert_eq!(a.cumsum(0).unwrap().to_vec(), vec![1, 2, 4, 6]);
    /// assert_eq!(a.cumsum(-1).unwrap().to_vec(), vec![1, 3, 3, 7]);
    /// ```
    pub fn cumsum(&self, axis: isize) -> Result<Tensor<T, D>> {
        self.scan_axis(axis, "cumsum", |a, b| a.wadd(b))
    }

    /// Cumulative product along `axis` (integers wrap).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], [4]).unwrap();
    /// assert_eq!(a.cumprod(0).unwrap().to_vec(), vec![1, 2, 6, 24]);
    /// ```
    pub fn cumprod(&self, axis: isize) -> Result<Tensor<T, D>> {
        self.scan_axis(axis, "cumprod", |a, b| a.wmul(b))
    }
}
