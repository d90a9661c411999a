//! NumPy's shape helpers that only compute layouts: `flip` over several axes,
//! `atleast_1d/2d/3d`, `broadcast_arrays` and n-ary `broadcast_shapes`.

use super::{AsDynView, view_with};
use crate::element::Element;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::transform as tf;
use crate::layout::{Dimension, IxDyn, Layout};
use crate::tensor::{Tensor, TensorArc, TensorCow, TensorMut, TensorView};

/// The layout with every axis in `axes` reversed (no repeats).
fn flipped<D: Dimension>(layout: &Layout<D>, axes: &[usize]) -> Layout<D> {
    let mut l = layout.clone();
    for &a in axes {
        l = tf::flip_layout(&l, a as isize).expect("axes were normalised");
    }
    l
}

/// NumPy's `atleast_{k}d` layouts (`k` in 1..=3).
fn at_least<D: Dimension>(layout: &Layout<D>, k: usize) -> Layout<IxDyn> {
    let l = layout.clone().into_dyn();
    let unsq = |l: &Layout<IxDyn>, ax: isize| tf::unsqueeze_layout(l, ax).expect("axis in range");
    match (l.ndim(), k) {
        (nd, _) if nd >= k => l,
        (0, _) => (0..k).fold(l, |l, _| unsq(&l, 0)),
        (1, 2) => unsq(&l, 0),
        (1, 3) => unsq(&unsq(&l, 0), -1),
        (2, 3) => unsq(&l, -1),
        _ => unreachable!("rank {} below {k}", l.ndim()),
    }
}

impl<'a, T: Element, D: Dimension> TensorView<'a, T, D> {
    /// Reverses every axis in `axes` (NumPy's `flip(m, axis=axes)`; no copy). `Err` for
    /// an axis out of range or repeated.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect(), [2, 3]).unwrap();
    /// assert_eq!(a.view().flip_axes(&[0, -1]).unwrap().to_vec(), vec![5, 4, 3, 2, 1, 0]);
    /// assert!(a.view().flip_axes(&[0, 0]).is_err());
    /// ```
    pub fn flip_axes(&self, axes: &[isize]) -> Result<TensorView<'a, T, D>> {
        let ax = tf::normalize_axes(axes, self.ndim(), "flip")?;
        Ok(view_with(self.storage.0, flipped(&self.layout, &ax)))
    }

    /// Reverses every axis (NumPy's `flip(m)` with `axis=None`; no copy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect(), [2, 3]).unwrap();
    /// assert_eq!(a.view().flip_all().to_vec(), vec![5, 4, 3, 2, 1, 0]);
    /// ```
    pub fn flip_all(&self) -> TensorView<'a, T, D> {
        let all: Vec<usize> = (0..self.ndim()).collect();
        view_with(self.storage.0, flipped(&self.layout, &all))
    }

    /// The view with at least one axis (NumPy's `atleast_1d`: a 0-d tensor becomes `(1,)`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::scalar(3).view().atleast_1d().shape(), &[1]);
    /// ```
    pub fn atleast_1d(&self) -> TensorView<'a, T, IxDyn> {
        view_with(self.storage.0, at_least(&self.layout, 1))
    }

    /// The view with at least two axes (NumPy's `atleast_2d`: `()` → `(1, 1)`,
    /// `(n,)` → `(1, n)`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([4]).view().atleast_2d().shape(), &[1, 4]);
    /// ```
    pub fn atleast_2d(&self) -> TensorView<'a, T, IxDyn> {
        view_with(self.storage.0, at_least(&self.layout, 2))
    }

    /// The view with at least three axes (NumPy's `atleast_3d`: `()` → `(1, 1, 1)`,
    /// `(n,)` → `(1, n, 1)`, `(m, n)` → `(m, n, 1)`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<f32, _>::zeros([4]).view().atleast_3d().shape(), &[1, 4, 1]);
    /// assert_eq!(Tensor::<f32, _>::zeros([2, 4]).view().atleast_3d().shape(), &[2, 4, 1]);
    /// ```
    pub fn atleast_3d(&self) -> TensorView<'a, T, IxDyn> {
        view_with(self.storage.0, at_least(&self.layout, 3))
    }
}

/// The borrowing twins of the view methods above for the other ownership kinds.
macro_rules! borrowing {
    ($($ty:ident $(<$lt:lifetime>)?),*) => {$(
        impl<$($lt,)? T: Element, D: Dimension> $ty<$($lt,)? T, D> {
            /// Reverses every axis in `axes`. See [`TensorView::flip_axes`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::from_vec(vec![1, 2], [2]).unwrap().flip_axes(&[0]).unwrap().to_vec(), vec![2, 1]);
            /// ```
            pub fn flip_axes(&self, axes: &[isize]) -> Result<TensorView<'_, T, D>> {
                self.view().flip_axes(axes)
            }
            /// Reverses every axis. See [`TensorView::flip_all`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::from_vec(vec![1, 2], [2]).unwrap().flip_all().to_vec(), vec![2, 1]);
            /// ```
            pub fn flip_all(&self) -> TensorView<'_, T, D> {
                self.view().flip_all()
            }
            /// At least one axis. See [`TensorView::atleast_1d`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::scalar(1.0).atleast_1d().shape(), &[1]);
            /// ```
            pub fn atleast_1d(&self) -> TensorView<'_, T, IxDyn> {
                self.view().atleast_1d()
            }
            /// At least two axes. See [`TensorView::atleast_2d`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::scalar(1.0).atleast_2d().shape(), &[1, 1]);
            /// ```
            pub fn atleast_2d(&self) -> TensorView<'_, T, IxDyn> {
                self.view().atleast_2d()
            }
            /// At least three axes. See [`TensorView::atleast_3d`].
            ///
            /// ```
            /// use ferrotensor::prelude::*;
            /// assert_eq!(Tensor::scalar(1.0).atleast_3d().shape(), &[1, 1, 1]);
            /// ```
            pub fn atleast_3d(&self) -> TensorView<'_, T, IxDyn> {
                self.view().atleast_3d()
            }
        }
    )*};
}
borrowing!(Tensor, TensorArc, TensorCow<'b>, TensorMut<'b>);

/// The shape every one of `shapes` broadcasts to (NumPy's `broadcast_shapes(*shapes)`;
/// no shapes give `()`). `Err` naming the first two shapes that do not broadcast.
///
/// ```
/// use ferrotensor::manip::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[vec![8, 1, 6, 1], vec![7, 1, 5], vec![5]]).unwrap(), vec![8, 7, 6, 5]);
/// assert_eq!(broadcast_shapes(&[[2usize, 3], [1, 3]]).unwrap(), vec![2, 3]);
/// assert!(broadcast_shapes(&[vec![2], vec![3]]).is_err());
/// ```
pub fn broadcast_shapes<S: AsRef<[usize]>>(shapes: &[S]) -> Result<Vec<usize>> {
    let op = "broadcast_shapes";
    let mut out: Vec<usize> = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        out = tf::broadcast_shapes(&out, s.as_ref(), op)
            .map_err(|_| {
                let first = shapes
                    .iter()
                    .position(|t| tf::broadcast_shapes(t.as_ref(), s.as_ref(), op).is_err())
                    .unwrap_or(0);
                Error::shape(
                    op,
                    format!(
                        "shape mismatch: objects cannot be broadcast to a single shape; mismatch is between arg {first} with shape {} and arg {i} with shape {}",
                        fmt_shape(shapes[first].as_ref()),
                        fmt_shape(s.as_ref())
                    ),
                )
            })?
            .to_vec();
    }
    Ok(out)
}

/// Views of every input broadcast to their common shape (NumPy's
/// `broadcast_arrays(*args)`; stride 0 on stretched axes, no copy). `Err` if the shapes
/// do not broadcast. The inputs are a slice of references of any ranks and ownership
/// kinds (`&[&a, &b.view()]`, see [`AsDynView`]); the views borrow the tensors.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::manip::broadcast_arrays;
/// let a = Tensor::from_vec(vec![1, 2, 3], [1, 3]).unwrap();
/// let b = Tensor::from_vec(vec![10, 20], [2, 1]).unwrap();
/// let bd = b.view().into_dyn();
/// let v = broadcast_arrays(&[&a, &bd]).unwrap();
/// assert_eq!((v[0].shape(), v[1].to_vec()), (&[2usize, 3][..], vec![10, 10, 10, 20, 20, 20]));
/// ```
pub fn broadcast_arrays<'a, T: Element>(inputs: &[&'a dyn AsDynView<T>]) -> Result<Vec<TensorView<'a, T, IxDyn>>> {
    let views: Vec<TensorView<'a, T, IxDyn>> = inputs.iter().map(|&v| v.as_dyn_view()).collect();
    let shapes: Vec<&[usize]> = views.iter().map(|v| v.shape()).collect();
    let target = broadcast_shapes(&shapes).map_err(|e| match e {
        Error::Shape { msg, .. } => Error::shape("broadcast_arrays", msg),
        other => other,
    })?;
    views
        .into_iter()
        .map(|v| {
            let l = tf::broadcast_layout(&v.layout, &target, "broadcast_arrays")?;
            Ok(view_with(v.storage.0, l))
        })
        .collect()
}
