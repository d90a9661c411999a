//! Dimension types: fixed rank `[usize; N]` ([`Ix0`] … [`Ix6`]) and dynamic rank
//! [`IxDyn`], plus [`IntoShape`] which turns shape arguments into them.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let fixed = Tensor::<f32, _>::zeros([2, 3]);        // Tensor<f32, Ix2>
//! let dynamic = Tensor::<f32, _>::zeros(vec![2, 3]);  // Tensor<f32, IxDyn>
//! assert_eq!(fixed.shape(), dynamic.shape());
//! ```

use crate::error::{Error, Result, fmt_shape};
use smallvec::SmallVec;
use std::fmt::Debug;
use std::hash::Hash;

/// Inline capacity of dynamic shapes: up to this many axes need no heap allocation.
pub const INLINE_AXES: usize = 6;

/// Shape or index storage of dynamic rank (inline up to 6 axes).
pub type DimVec = SmallVec<[usize; INLINE_AXES]>;
/// Stride storage of dynamic rank (inline up to 6 axes).
pub type StrideVec = SmallVec<[isize; INLINE_AXES]>;

/// A rank type: a fixed-size array `[usize; N]` or the dynamic [`IxDyn`].
///
/// ```
/// use ferrotensor::{Dimension, IxDyn};
/// assert_eq!(<[usize; 2] as Dimension>::NDIM, Some(2));
/// assert_eq!(<IxDyn as Dimension>::NDIM, None);
/// assert_eq!([2usize, 3].size(), 6);
/// ```
pub trait Dimension: Clone + PartialEq + Eq + Debug + Hash + Send + Sync + 'static {
    /// The rank, if it is fixed by the type.
    const NDIM: Option<usize>;
    /// Strides (signed, in elements) for this rank.
    type Strides: Clone + PartialEq + Eq + Debug + Hash + Send + Sync + 'static + AsRef<[isize]> + AsMut<[isize]>;
    /// The lengths as a slice.
    fn slice(&self) -> &[usize];
    /// The lengths as a mutable slice.
    fn slice_mut(&mut self) -> &mut [usize];
    /// A value of `ndim` zeros. Panics if the type's rank is fixed and differs.
    fn zeros(ndim: usize) -> Self;
    /// Strides of `ndim` zeros. Panics if the type's rank is fixed and differs.
    fn zero_strides(ndim: usize) -> Self::Strides;
    /// Builds a value from a slice; `None` if the rank does not fit the type.
    fn from_dims(dims: &[usize]) -> Option<Self>;
    /// Builds strides from a slice; `None` if the rank does not fit the type.
    fn strides_from(strides: &[isize]) -> Option<Self::Strides>;
    /// Number of axes.
    #[inline]
    fn ndim(&self) -> usize {
        self.slice().len()
    }
    /// Product of the lengths (1 for rank 0); wraps silently only if the caller
    /// never checked it: layouts are checked with [`Dimension::size_checked`] when built.
    #[inline]
    fn size(&self) -> usize {
        self.slice().iter().product()
    }
    /// Product of the lengths, `None` on overflow.
    fn size_checked(&self) -> Option<usize> {
        self.slice().iter().try_fold(1usize, |a, &d| a.checked_mul(d))
    }
    /// The same lengths as a dynamic-rank [`IxDyn`].
    fn to_dyn(&self) -> IxDyn {
        IxDyn::from(self.slice())
    }
}

/// Converts between rank types, checking the rank.
///
/// ```
/// use ferrotensor::layout::dim::into_dimension;
/// let d: [usize; 2] = into_dimension(&[2, 3], "into_dim").unwrap();
/// assert_eq!(d, [2, 3]);
/// assert!(into_dimension::<[usize; 3]>(&[2, 3], "into_dim").is_err());
/// ```
pub fn into_dimension<D2: Dimension>(dims: &[usize], op: &'static str) -> Result<D2> {
    D2::from_dims(dims).ok_or_else(|| {
        Error::shape(
            op,
            format!(
                "cannot convert shape {} of rank {} to rank {}",
                fmt_shape(dims),
                dims.len(),
                D2::NDIM.map_or("dynamic".to_string(), |n| n.to_string())
            ),
        )
    })
}

impl<const N: usize> Dimension for [usize; N] {
    const NDIM: Option<usize> = Some(N);
    type Strides = [isize; N];
    #[inline(always)]
    fn slice(&self) -> &[usize] {
        self
    }
    #[inline(always)]
    fn slice_mut(&mut self) -> &mut [usize] {
        self
    }
    fn zeros(ndim: usize) -> Self {
        assert_eq!(ndim, N, "rank {ndim} does not fit a rank-{N} dimension");
        [0; N]
    }
    fn zero_strides(ndim: usize) -> Self::Strides {
        assert_eq!(ndim, N, "rank {ndim} does not fit a rank-{N} dimension");
        [0; N]
    }
    fn from_dims(dims: &[usize]) -> Option<Self> {
        dims.try_into().ok()
    }
    fn strides_from(strides: &[isize]) -> Option<Self::Strides> {
        strides.try_into().ok()
    }
}

/// Dynamic rank: any number of axes, stored inline (no heap allocation) up to 6.
///
/// ```
/// use ferrotensor::{Dimension, IxDyn};
/// let d = IxDyn::from(&[2usize, 3, 4][..]);
/// assert_eq!(d.ndim(), 3);
/// assert_eq!(d.size(), 24);
/// assert!(!d.spilled());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct IxDyn(pub DimVec);

impl IxDyn {
    /// True if the axes were moved to the heap (more than 6 axes).
    ///
    /// ```
    /// assert!(ferrotensor::IxDyn::from(&[1usize; 7][..]).spilled());
    /// ```
    pub fn spilled(&self) -> bool {
        self.0.spilled()
    }
}

impl Debug for IxDyn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.as_slice().fmt(f)
    }
}

impl From<&[usize]> for IxDyn {
    fn from(s: &[usize]) -> Self {
        IxDyn(SmallVec::from_slice(s))
    }
}
impl From<Vec<usize>> for IxDyn {
    fn from(s: Vec<usize>) -> Self {
        IxDyn(SmallVec::from_vec(s))
    }
}

impl Dimension for IxDyn {
    const NDIM: Option<usize> = None;
    type Strides = StrideVec;
    #[inline(always)]
    fn slice(&self) -> &[usize] {
        &self.0
    }
    #[inline(always)]
    fn slice_mut(&mut self) -> &mut [usize] {
        &mut self.0
    }
    fn zeros(ndim: usize) -> Self {
        IxDyn(SmallVec::from_elem(0, ndim))
    }
    fn zero_strides(ndim: usize) -> Self::Strides {
        SmallVec::from_elem(0, ndim)
    }
    fn from_dims(dims: &[usize]) -> Option<Self> {
        Some(IxDyn::from(dims))
    }
    fn strides_from(strides: &[isize]) -> Option<Self::Strides> {
        Some(SmallVec::from_slice(strides))
    }
}

/// Rank 0 (a scalar tensor).
pub type Ix0 = [usize; 0];
/// Rank 1.
pub type Ix1 = [usize; 1];
/// Rank 2.
pub type Ix2 = [usize; 2];
/// Rank 3.
pub type Ix3 = [usize; 3];
/// Rank 4.
pub type Ix4 = [usize; 4];
/// Rank 5.
pub type Ix5 = [usize; 5];
/// Rank 6.
pub type Ix6 = [usize; 6];

/// Anything usable as a shape: arrays give fixed rank, `Vec`s and slices give [`IxDyn`],
/// a single `usize` gives rank 1.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<i32, _>::zeros([2, 2]);      // Ix2
/// let b = Tensor::<i32, _>::zeros(&[2usize, 2][..]); // IxDyn
/// let c = Tensor::<i32, _>::zeros(4);           // Ix1
/// assert_eq!(a.size() + b.size(), 2 * c.size());
/// ```
pub trait IntoShape {
    /// The rank type the shape gives.
    type Dim: Dimension;
    /// Converts into the dimension value.
    fn into_dim(self) -> Self::Dim;
}

impl<const N: usize> IntoShape for [usize; N] {
    type Dim = [usize; N];
    fn into_dim(self) -> Self::Dim {
        self
    }
}
impl<const N: usize> IntoShape for &[usize; N] {
    type Dim = [usize; N];
    fn into_dim(self) -> Self::Dim {
        *self
    }
}
impl IntoShape for usize {
    type Dim = [usize; 1];
    fn into_dim(self) -> Self::Dim {
        [self]
    }
}
impl IntoShape for Vec<usize> {
    type Dim = IxDyn;
    fn into_dim(self) -> Self::Dim {
        IxDyn::from(self)
    }
}
impl IntoShape for &Vec<usize> {
    type Dim = IxDyn;
    fn into_dim(self) -> Self::Dim {
        IxDyn::from(self.as_slice())
    }
}
impl IntoShape for &[usize] {
    type Dim = IxDyn;
    fn into_dim(self) -> Self::Dim {
        IxDyn::from(self)
    }
}
impl IntoShape for IxDyn {
    type Dim = IxDyn;
    fn into_dim(self) -> Self::Dim {
        self
    }
}
impl IntoShape for &IxDyn {
    type Dim = IxDyn;
    fn into_dim(self) -> Self::Dim {
        self.clone()
    }
}
