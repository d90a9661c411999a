//! Coordinate grids: `meshgrid`.

use super::{AsDynView, view_with};
use crate::element::Element;
use crate::error::Result;
use crate::layout::dim::StrideVec;
use crate::layout::{IxDyn, Layout};
use crate::tensor::Tensor;

/// The axis order of [`meshgrid`]'s outputs (NumPy's `indexing`).
///
/// ```
/// use ferrotensor::prelude::*;
/// assert_ne!(Indexing::Xy, Indexing::Ij);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Indexing {
    /// Cartesian (NumPy's default): with inputs of lengths `n0, n1, n2, …` the outputs
    /// have shape `(n1, n0, n2, …)`.
    #[default]
    Xy,
    /// Matrix: outputs have shape `(n0, n1, n2, …)`.
    Ij,
}

/// Coordinate matrices from coordinate vectors (NumPy `meshgrid`, `copy=True`):
/// output `i` holds input `i` (flattened in row-major order) repeated along every
/// other axis. An empty list gives an empty list. The inputs may mix ranks and
/// ownership kinds; the outputs have as many axes as there are inputs (`IxDyn`).
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
/// let y = Tensor::from_vec(vec![7, 8], [2]).unwrap();
/// let g = meshgrid(&[&x, &y], Indexing::Xy).unwrap();
/// assert_eq!(g[0].shape(), &[2, 3]);
/// assert_eq!(g[0].to_vec(), vec![1, 2, 3, 1, 2, 3]);
/// assert_eq!(g[1].to_vec(), vec![7, 7, 7, 8, 8, 8]);
/// let m = meshgrid(&[&x, &y.view().into_dyn()], Indexing::Ij).unwrap();
/// assert_eq!(m[1].shape(), &[3, 2]);
/// ```
pub fn meshgrid<T: Element>(xs: &[&dyn AsDynView<T>], indexing: Indexing) -> Result<Vec<Tensor<T, IxDyn>>> {
    let flat: Vec<Vec<T>> = xs.iter().map(|x| x.as_dyn_view().to_vec()).collect();
    let k = flat.len();
    let mut shape: Vec<usize> = flat.iter().map(|v| v.len()).collect();
    // Output axis of input i.
    let mut axis_of: Vec<usize> = (0..k).collect();
    if indexing == Indexing::Xy && k > 1 {
        shape.swap(0, 1);
        axis_of.swap(0, 1);
    }
    flat.iter()
        .enumerate()
        .map(|(i, v)| {
            let mut strides = StrideVec::from_elem(0, k);
            strides[axis_of[i]] = 1;
            let layout = Layout::new(IxDyn::from(&shape[..]), strides, 0);
            if layout.size() == 0 {
                return super::owned(Vec::new(), &shape, "meshgrid");
            }
            Ok(view_with(v, layout).to_owned())
        })
        .collect()
}
