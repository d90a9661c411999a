//! Masks and nonzero positions: `nonzero`, `argwhere`, `masked_fill`.

use super::owned;
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::Src;
use crate::layout::transform::broadcast_layout;
use crate::layout::{Dimension, Ix1, Ix2};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

impl<T: Element, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Row-major flat positions of the elements that are not zero (`T::default()`:
    /// `0`, `0.0`, `-0.0` or `false`; NaN counts as nonzero).
    fn nonzero_flat(&self) -> Vec<usize> {
        let zero = T::default();
        self.iter()
            .enumerate()
            .filter(|&(_, x)| *x != zero)
            .map(|(i, _)| i)
            .collect()
    }

    /// The indices of the nonzero elements, one 1-D tensor per axis, in row-major order
    /// (NumPy `nonzero`). `Err` for a 0-d input, as NumPy 2.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0, 5, 0, 7], [2, 2]).unwrap();
    /// let nz = a.nonzero().unwrap();
    /// assert_eq!(nz[0].to_vec(), vec![0, 1]);
    /// assert_eq!(nz[1].to_vec(), vec![1, 1]);
    /// ```
    pub fn nonzero(&self) -> Result<Vec<Tensor<usize, Ix1>>> {
        let op = "nonzero";
        if self.ndim() == 0 {
            return Err(Error::shape(
                op,
                "calling nonzero on 0d arrays is not allowed; use atleast_1d / unsqueeze first",
            ));
        }
        let flat = self.nonzero_flat();
        let shape = self.shape();
        let mut out: Vec<Vec<usize>> = vec![Vec::with_capacity(flat.len()); shape.len()];
        for &p in &flat {
            let mut rest = p;
            for ax in (0..shape.len()).rev() {
                out[ax].push(rest % shape[ax]);
                rest /= shape[ax];
            }
        }
        out.into_iter().map(|v| owned(v.clone(), &[v.len()], op)).collect()
    }

    /// The indices of the nonzero elements as rows of a `(count, ndim)` tensor (NumPy
    /// `argwhere`; a 0-d input gives `(1, 0)` or `(0, 0)`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![0, 5, 0, 7], [2, 2]).unwrap();
    /// let w = a.argwhere();
    /// assert_eq!((w.shape(), w.to_vec()), (&[2usize, 2][..], vec![0, 1, 1, 1]));
    /// ```
    pub fn argwhere(&self) -> Tensor<usize, Ix2> {
        let flat = self.nonzero_flat();
        let shape = self.shape();
        let nd = shape.len();
        let mut out = vec![0usize; flat.len() * nd];
        for (r, &p) in flat.iter().enumerate() {
            let mut rest = p;
            for ax in (0..nd).rev() {
                out[r * nd + ax] = rest % shape[ax];
                rest /= shape[ax];
            }
        }
        owned(out, &[flat.len(), nd], "argwhere").expect("argwhere shape matches its data")
    }

    /// A copy with `value` wherever `mask` is true (PyTorch `masked_fill`); the mask
    /// broadcasts to this tensor's shape. `Err` if it does not broadcast.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    /// let m = Tensor::from_vec(vec![true, false], [2]).unwrap();   // per column
    /// assert_eq!(a.masked_fill(&m, 0.0).unwrap().to_vec(), vec![0.0, 2.0, 0.0, 4.0]);
    /// assert!(a.masked_fill(&Tensor::from_vec(vec![true; 3], [3]).unwrap(), 0.0).is_err());
    /// ```
    pub fn masked_fill<S2: Storage<Elem = bool>, D2: Dimension>(
        &self,
        mask: &TensorBase<S2, D2>,
        value: T,
    ) -> Result<Tensor<T, D>> {
        let op = "masked_fill";
        let shape = self.shape().to_vec();
        let ml = broadcast_layout(&mask.layout, &shape, op).map_err(|_| {
            Error::shape(
                op,
                format!(
                    "mask of shape {} does not broadcast to the input's shape {}",
                    fmt_shape(mask.shape()),
                    fmt_shape(&shape)
                ),
            )
        })?;
        let out = crate::iter::zip::zip_new(
            &shape,
            Src::of(self.storage.buffer(), &self.layout),
            Src::of(mask.storage.buffer(), &ml),
            |x: T, m: bool| if m { value } else { x },
        );
        owned(out, &shape, op)
    }
}
