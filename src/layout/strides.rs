//! Default strides and NumPy's contiguity rules.

use super::Order;

/// Writes the contiguous strides of `shape` in `order` into `out` (length-1 and empty
/// axes get the stride they would have if every length were at least 1).
///
/// ```
/// use ferrotensor::{layout::default_strides, Order};
/// let mut s = [0isize; 3];
/// default_strides(&[2, 3, 4], Order::RowMajor, &mut s);
/// assert_eq!(s, [12, 4, 1]);
/// default_strides(&[2, 3, 4], Order::ColMajor, &mut s);
/// assert_eq!(s, [1, 2, 6]);
/// ```
pub fn default_strides(shape: &[usize], order: Order, out: &mut [isize]) {
    debug_assert_eq!(shape.len(), out.len());
    let mut acc: isize = 1;
    let mut step = |ax: usize| {
        out[ax] = acc;
        acc = acc.wrapping_mul(shape[ax].max(1) as isize);
    };
    match order {
        Order::RowMajor => (0..shape.len()).rev().for_each(&mut step),
        Order::ColMajor => (0..shape.len()).for_each(&mut step),
    }
}

fn contiguous_in(shape: &[usize], strides: &[isize], axes: impl Iterator<Item = usize>) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected: isize = 1;
    for ax in axes {
        if shape[ax] == 1 {
            continue;
        }
        if strides[ax] != expected {
            return false;
        }
        expected *= shape[ax] as isize;
    }
    true
}

/// NumPy's C-contiguity: length-1 axes may have any stride, empty arrays are contiguous.
///
/// ```
/// assert!(ferrotensor::layout::is_c_contiguous(&[2, 3], &[3, 1]));
/// assert!(!ferrotensor::layout::is_c_contiguous(&[2, 3], &[1, 2]));
/// assert!(ferrotensor::layout::is_c_contiguous(&[0, 3], &[7, 7]));
/// ```
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    contiguous_in(shape, strides, (0..shape.len()).rev())
}

/// NumPy's F-contiguity (column-major).
///
/// ```
/// assert!(ferrotensor::layout::is_f_contiguous(&[2, 3], &[1, 2]));
/// assert!(ferrotensor::layout::is_f_contiguous(&[1, 3], &[5, 1]));
/// ```
pub fn is_f_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    contiguous_in(shape, strides, 0..shape.len())
}
