//! Sorted unique elements with first indices, inverse and counts: `unique`.

use super::owned;
use super::radix::par_sort_run;
use super::sort::SortElement;
use crate::layout::{Dimension, Ix1};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// The result of [`TensorBase::unique`] (NumPy `unique` with `return_index`,
/// `return_inverse` and `return_counts`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let u = Tensor::from_vec(vec![3, 1, 3], [3]).unwrap().unique();
/// assert_eq!(u.values.to_vec(), vec![1, 3]);
/// ```
pub struct Unique<T: SortElement, D: Dimension> {
    /// The distinct elements, ascending (NumPy's order: NaNs last, all NaNs one value).
    pub values: Tensor<T, Ix1>,
    /// Row-major flat index of each value's first occurrence.
    pub indices: Tensor<usize, Ix1>,
    /// For every input element (in the input's shape), the position of its value in
    /// `values`.
    pub inverse: Tensor<usize, D>,
    /// How often each value occurs.
    pub counts: Tensor<usize, Ix1>,
}

impl<T: SortElement, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// The sorted distinct elements of the flattened tensor with first-occurrence
    /// indices, the inverse mapping and counts (NumPy `unique`, `equal_nan=True`;
    /// `-0.0` and `0.0` are one value, represented by whichever occurs first).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3, 1, 1, 2], [2, 2]).unwrap();
    /// let u = a.unique();
    /// assert_eq!(u.values.to_vec(), vec![1, 2, 3]);
    /// assert_eq!(u.indices.to_vec(), vec![1, 3, 0]);
    /// assert_eq!(u.inverse.to_vec(), vec![2, 0, 0, 1]);
    /// assert_eq!(u.inverse.shape(), &[2, 2]);
    /// assert_eq!(u.counts.to_vec(), vec![2, 1, 1]);
    /// ```
    pub fn unique(&self) -> Unique<T, D> {
        let op = "unique";
        let flat = self.to_vec();
        let n = flat.len();
        let mut pairs: Vec<(u64, usize)> = flat.iter().enumerate().map(|(i, x)| (x.sort_key(), i)).collect();
        let mut tmp = pairs.clone();
        let threads = if n >= crate::iter::PARALLEL_THRESHOLD {
            crate::threads::num_threads()
        } else {
            1
        };
        if par_sort_run(&mut pairs, &mut tmp, T::KEY_BYTES, threads, &|p: &(u64, usize)| p.0) {
            pairs = tmp;
        }
        let (mut values, mut indices, mut counts) = (Vec::new(), Vec::new(), Vec::new());
        let mut inverse = vec![0usize; n];
        for (j, p) in pairs.iter().enumerate() {
            if j == 0 || p.0 != pairs[j - 1].0 {
                values.push(flat[p.1]);
                indices.push(p.1);
                counts.push(0);
            }
            *counts.last_mut().expect("a group was opened") += 1;
            inverse[p.1] = values.len() - 1;
        }
        let k = values.len();
        Unique {
            values: owned(values, &[k], op).expect("1-D shape of its own length"),
            indices: owned(indices, &[k], op).expect("1-D shape of its own length"),
            inverse: owned(inverse, self.shape(), op).expect("the input's shape"),
            counts: owned(counts, &[k], op).expect("1-D shape of its own length"),
        }
    }
}
