//! NumPy `tensordot`: contraction over paired axes as one matrix product.

use super::contract::contract;
use super::matmul::dyn_view;
use crate::element::Num;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// Which axes `tensordot` contracts, as NumPy's `axes` argument.
///
/// ```
/// use ferrotensor::linalg::TensordotAxes;
/// let last_two: TensordotAxes = 2.into();
/// let pairs: TensordotAxes = ([1, 0], [0, 1]).into();
/// assert_eq!(pairs, TensordotAxes::Pairs(vec![1, 0], vec![0, 1]));
/// assert_eq!(last_two, TensordotAxes::Last(2));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensordotAxes {
    /// The last `n` axes of the left operand with the first `n` of the right one.
    Last(usize),
    /// Left axes `.0[i]` with right axes `.1[i]` (negative axes count from the end).
    Pairs(Vec<isize>, Vec<isize>),
}

impl From<usize> for TensordotAxes {
    fn from(n: usize) -> Self {
        TensordotAxes::Last(n)
    }
}
impl<const N: usize> From<([isize; N], [isize; N])> for TensordotAxes {
    fn from((a, b): ([isize; N], [isize; N])) -> Self {
        TensordotAxes::Pairs(a.to_vec(), b.to_vec())
    }
}
impl From<(Vec<isize>, Vec<isize>)> for TensordotAxes {
    fn from((a, b): (Vec<isize>, Vec<isize>)) -> Self {
        TensordotAxes::Pairs(a, b)
    }
}

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// NumPy `tensordot`: sums products over the paired axes; the result's axes are the
    /// remaining axes of `self` then those of `rhs`. `Err` for axes out of range or
    /// repeated, or paired lengths that differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f64, _>::ones([3, 4, 5]);
    /// let b = Tensor::<f64, _>::ones([4, 3, 2]);
    /// let c = a.tensordot(&b, ([1, 0], [0, 1])).unwrap();
    /// assert_eq!(c.shape(), &[5, 2]);
    /// assert_eq!(c.to_vec()[0], 12.0);
    /// assert_eq!(a.tensordot(&b, 0).unwrap().shape(), &[3, 4, 5, 4, 3, 2]);
    /// assert!(a.tensordot(&b, 1).is_err());
    /// ```
    pub fn tensordot<S2: Storage<Elem = T>, D2: Dimension>(
        &self,
        rhs: &TensorBase<S2, D2>,
        axes: impl Into<TensordotAxes>,
    ) -> Result<Tensor<T, IxDyn>> {
        let (a, b) = (dyn_view(self), dyn_view(rhs));
        let (na, nb) = (a.ndim(), b.ndim());
        let err = |msg: String| {
            Error::shape(
                "tensordot",
                format!("shapes {} and {}: {msg}", fmt_shape(a.shape()), fmt_shape(b.shape())),
            )
        };
        let (xa, xb): (Vec<usize>, Vec<usize>) = match axes.into() {
            TensordotAxes::Last(n) => {
                if n > na || n > nb {
                    return Err(err(format!("cannot contract {n} axes")));
                }
                ((na - n..na).collect(), (0..n).collect())
            }
            TensordotAxes::Pairs(pa, pb) => {
                if pa.len() != pb.len() {
                    return Err(err(format!("axes lists {pa:?} and {pb:?} differ in length")));
                }
                let norm = |v: &[isize], nd| -> Result<Vec<usize>> {
                    v.iter().map(|&x| normalize_axis(x, nd, "tensordot")).collect()
                };
                (norm(&pa, na)?, norm(&pb, nb)?)
            }
        };
        for (list, nd) in [(&xa, na), (&xb, nb)] {
            let mut seen = vec![false; nd];
            for &x in list {
                if std::mem::replace(&mut seen[x], true) {
                    return Err(Error::axis("tensordot", format!("repeated axis {x} in {list:?}")));
                }
            }
        }
        for (&x, &y) in xa.iter().zip(&xb) {
            if a.shape()[x] != b.shape()[y] {
                return Err(err(format!(
                    "shape-mismatch for sum: axis {x} has length {} and axis {y} has length {}",
                    a.shape()[x],
                    b.shape()[y]
                )));
            }
        }
        let free_a: Vec<usize> = (0..na).filter(|i| !xa.contains(i)).collect();
        let free_b: Vec<usize> = (0..nb).filter(|i| !xb.contains(i)).collect();
        contract(&a, &b, &[], &[], &free_a, &free_b, &xa, &xb)
    }
}
