//! Sorted unique elements with first indices, inverse and counts: `unique`.

use super::owned;
use super::radix::par_sort_run;
use super::sort::SortElement;
use crate::element::{Element, Float};
use crate::layout::{Dimension, Ix1};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use num_complex::Complex;

/// The result of [`TensorBase::unique`] (NumPy `unique` with `return_index`,
/// `return_inverse` and `return_counts`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let u = Tensor::from_vec(vec![3, 1, 3], [3]).unwrap().unique();
/// assert_eq!(u.values.to_vec(), vec![1, 3]);
/// ```
pub struct Unique<T: Element, D: Dimension> {
    /// The distinct elements, ascending (NumPy's order: NaNs last; all NaNs one value
    /// for [`TensorBase::unique`], one value each for [`TensorBase::unique_nan_distinct`]).
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
        self.unique_by_key(true)
    }

    /// [`TensorBase::unique`] with every NaN a value of its own (NumPy
    /// `unique(equal_nan=False)`, the Python array API standard's `unique_*`): NaNs still
    /// sort last, one entry, count 1 and inverse position each.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![f64::NAN, 1.0, f64::NAN, 1.0], [4]).unwrap();
    /// let u = a.unique_nan_distinct();
    /// assert_eq!(u.values.size(), 3);
    /// assert_eq!(u.counts.to_vec(), vec![2, 1, 1]);
    /// assert_eq!(u.inverse.to_vec(), vec![1, 0, 2, 0]);
    /// assert_eq!(a.unique().counts.to_vec(), vec![2, 2]);
    /// ```
    pub fn unique_nan_distinct(&self) -> Unique<T, D> {
        self.unique_by_key(false)
    }

    // `x == x` is false only for NaN, which `SortElement` has no other test for
    #[allow(clippy::eq_op)]
    fn unique_by_key(&self, equal_nan: bool) -> Unique<T, D> {
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
        // NaN != NaN: with `equal_nan` off each NaN opens a group of its own
        group_sorted(
            &flat,
            &pairs,
            |a, b| a.0 == b.0 && (equal_nan || flat[a.1] == flat[a.1]),
            self.shape(),
            op,
        )
    }
}

impl<F: Float + SortElement, S: Storage<Elem = Complex<F>>, D: Dimension> TensorBase<S, D>
where
    Complex<F>: Element,
{
    /// The distinct complex elements in lexicographic order (real part, then imaginary
    /// part, each in NumPy's float order with NaN last), with first indices, inverse and
    /// counts. Every element with a NaN part is a value of its own, as in the Python
    /// array API standard's `unique_*` functions.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use num_complex::Complex;
    /// let z = Tensor::from_vec(vec![Complex::new(1.0f64, 2.0), Complex::new(1.0, -1.0), Complex::new(1.0, 2.0)], [3]).unwrap();
    /// let u = z.unique_complex();
    /// assert_eq!(u.values.to_vec(), vec![Complex::new(1.0, -1.0), Complex::new(1.0, 2.0)]);
    /// assert_eq!(u.counts.to_vec(), vec![1, 2]);
    /// assert_eq!(u.inverse.to_vec(), vec![1, 0, 1]);
    /// ```
    pub fn unique_complex(&self) -> Unique<Complex<F>, D> {
        let flat = self.to_vec();
        let mut keys: Vec<((u64, u64), usize)> = flat
            .iter()
            .enumerate()
            .map(|(i, z)| ((z.re.sort_key(), z.im.sort_key()), i))
            .collect();
        keys.sort_unstable();
        let nan = |z: &Complex<F>| z.re.is_nan() || z.im.is_nan();
        group_sorted(
            &flat,
            &keys,
            |a, b| a.0 == b.0 && !nan(&flat[a.1]),
            self.shape(),
            "unique",
        )
    }
}

/// Groups `keys` (sorted `(key, flat index)` pairs over `flat`) into a [`Unique`]:
/// `same(prev, next)` says whether `next` continues `prev`'s group.
fn group_sorted<T: Element, K, D: Dimension>(
    flat: &[T],
    keys: &[(K, usize)],
    same: impl Fn(&(K, usize), &(K, usize)) -> bool,
    shape: &[usize],
    op: &'static str,
) -> Unique<T, D> {
    let n = flat.len();
    let (mut values, mut indices, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    let mut inverse = vec![0usize; n];
    for (j, p) in keys.iter().enumerate() {
        if j == 0 || !same(&keys[j - 1], p) {
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
        inverse: owned(inverse, shape, op).expect("the input's shape"),
        counts: owned(counts, &[k], op).expect("1-D shape of its own length"),
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use num_complex::Complex;

    #[test]
    fn nan_distinct_on_a_flipped_view() {
        let a = Tensor::from_vec(vec![f32::NAN, -0.0, 2.0, 0.0, f32::NAN, 2.0], [2, 3]).unwrap();
        let v = a.flip(1).unwrap();
        let u = v.unique_nan_distinct();
        assert_eq!(u.values.size(), 4);
        assert_eq!(u.counts.to_vec(), vec![2, 2, 1, 1]);
        assert_eq!(u.inverse.shape(), &[2, 3]);
        assert_eq!(u.inverse.to_vec(), vec![1, 0, 2, 1, 3, 0]);
        assert_eq!(u.indices.to_vec(), vec![1, 0, 2, 4]);
        assert_eq!(v.unique().values.size(), 3);
    }

    #[test]
    fn complex_groups_lexicographically() {
        let nan = f64::NAN;
        let z = Tensor::from_vec(
            vec![
                Complex::new(2.0, 0.0),
                Complex::new(nan, 0.0),
                Complex::new(-1.0, 5.0),
                Complex::new(2.0, 0.0),
                Complex::new(0.0, nan),
            ],
            [5],
        )
        .unwrap();
        let u = z.unique_complex();
        let vals = u.values.to_vec();
        assert_eq!(vals.len(), 4);
        assert_eq!(vals[0], Complex::new(-1.0, 5.0));
        assert!(vals[1].im.is_nan() && vals[3].re.is_nan());
        assert_eq!(vals[2], Complex::new(2.0, 0.0));
        assert_eq!(u.counts.to_vec(), vec![1, 1, 2, 1]);
        assert_eq!(u.inverse.to_vec(), vec![2, 3, 0, 2, 1]);
        assert!(Tensor::<Complex<f32>, _>::zeros([0]).unique_complex().values.is_empty());
    }
}
