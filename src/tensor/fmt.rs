//! `Display` (NumPy's `str(a)`) and `Debug` (adds shape, strides, offset, dtype).

use super::TensorBase;
use crate::display::{PrintElement, PrintOptions, format_array};
use crate::element::Element;
use crate::layout::Dimension;
use crate::storage::Storage;
use std::fmt;

impl<T: Element + PrintElement, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Formats like NumPy's `str(a)` under the given print options.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, 2.5], [2]).unwrap();
    /// let opts = PrintOptions { precision: 1, ..Default::default() };
    /// assert_eq!(a.format_with(&opts), "[1.  2.5]");
    /// ```
    pub fn format_with(&self, opts: &PrintOptions) -> String {
        let get = |idx: &[usize]| self[idx];
        format_array(self.shape(), &get, opts)
    }
}

impl<T: Element + PrintElement, S: Storage<Elem = T>, D: Dimension> fmt::Display for TensorBase<S, D> {
    /// NumPy's `str(a)` with default print options.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.format_with(&PrintOptions::default()))
    }
}

impl<T: Element + PrintElement, S: Storage<Elem = T>, D: Dimension> fmt::Debug for TensorBase<S, D> {
    /// The values as `Display` prints them, then shape, strides, offset and dtype.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, shape={}, strides={}, offset={}, dtype={}",
            self,
            crate::error::fmt_shape(self.shape()),
            crate::error::fmt_shape(self.strides()),
            self.offset(),
            T::NAME
        )
    }
}
