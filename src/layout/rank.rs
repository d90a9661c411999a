//! Rank-type arithmetic: the rank type of a result computed from the operands' rank
//! types, so results keep a fixed rank ([`Ix2`](super::Ix2), …) wherever it is known at
//! compile time and are [`IxDyn`] only where the rank depends on run-time values.
//!
//! | trait | result rank | example |
//! |---|---|---|
//! | [`DimMax`] | broadcasting: the larger rank | `Ix2` with `Ix1` → `Ix2` |
//! | [`RemoveAxis`] | one axis fewer (single-axis reductions) | `Ix3` → `Ix2` |
//! | [`InsertAxis`] | one axis more (`stack`) | `Ix2` → `Ix3` |
//! | [`AtLeast`] | at least `K` axes (`hstack`, `vstack`, `dstack`) | `Ix1` with `K = 2` → `Ix2` |
//! | [`MatmulDim`] | NumPy `matmul` | `Ix2`·`Ix1` → `Ix1`, `Ix3`·`Ix2` → `Ix3` |
//! | [`DotDim`] | NumPy `dot`, `inner` | `Ix3`·`Ix2` → `Ix3`, `Ix1`·`Ix1` → `Ix0` |
//! | [`DiagDim`] | NumPy `diag` | `Ix1` → `Ix2`, `Ix2` → `Ix1` |
//!
//! Any operand of rank type [`IxDyn`] makes the result `IxDyn`. The fixed ranks are
//! `Ix0` … `Ix6`.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f32, _>::ones([2, 3]);
//! let v = Tensor::<f32, _>::ones([3]);
//! let b: Tensor<f32, Ix2> = &a + &v;
//! let s: Tensor<f32, Ix1> = a.sum_axis(0).unwrap();
//! let p: Tensor<f32, Ix1> = a.matmul(&v).unwrap();
//! assert_eq!((b.shape(), s.shape(), p.shape()), (&[2, 3][..], &[3][..], &[2][..]));
//! ```

use super::{Dimension, IxDyn};

/// The rank type of the result of broadcasting rank types `Self` and `Other` together:
/// the larger of the two fixed ranks (as ndarray's `DimMax`), or [`IxDyn`] if either
/// is dynamic.
///
/// Every pair of rank types implements it, and `D: DimMax<D, Output = D>` holds for any
/// `D`, so generic code over one rank type needs no bound.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f32, _>::ones([2, 3]);
/// let b = Tensor::<f32, _>::ones([3]);
/// let c: Tensor<f32, <Ix2 as DimMax<Ix1>>::Output> = &a + &b;   // Ix2
/// assert_eq!(c.shape(), &[2, 3]);
/// let d: Tensor<f32, IxDyn> = &a + &b.into_dyn();
/// assert_eq!(d.shape(), &[2, 3]);
/// fn twice<D: Dimension>(x: &Tensor<f32, D>) -> Tensor<f32, D> {
///     x + x
/// }
/// assert_eq!(twice(&a).shape(), &[2, 3]);
/// ```
pub trait DimMax<Other: Dimension>: Dimension {
    /// The result's rank type.
    type Output: Dimension;
}

impl<D: Dimension> DimMax<D> for D {
    type Output = D;
}
impl<const N: usize> DimMax<IxDyn> for [usize; N]
where
    [usize; N]: Dimension,
{
    type Output = IxDyn;
}
impl<const N: usize> DimMax<[usize; N]> for IxDyn
where
    [usize; N]: Dimension,
{
    type Output = IxDyn;
}

/// `$n: $m => $out, …;` implements `Trait<[usize; $m]> for [usize; $n]` with `Output = [usize; $out]`.
macro_rules! rank_table {
    ($tr:ident; $($n:literal: $($m:literal => $o:literal),*;)*) => {$($(
        impl $tr<[usize; $m]> for [usize; $n] {
            type Output = [usize; $o];
        }
    )*)*};
}

rank_table!(DimMax;
    0: 1 => 1, 2 => 2, 3 => 3, 4 => 4, 5 => 5, 6 => 6;
    1: 0 => 1, 2 => 2, 3 => 3, 4 => 4, 5 => 5, 6 => 6;
    2: 0 => 2, 1 => 2, 3 => 3, 4 => 4, 5 => 5, 6 => 6;
    3: 0 => 3, 1 => 3, 2 => 3, 4 => 4, 5 => 5, 6 => 6;
    4: 0 => 4, 1 => 4, 2 => 4, 3 => 4, 5 => 5, 6 => 6;
    5: 0 => 5, 1 => 5, 2 => 5, 3 => 5, 4 => 5, 6 => 6;
    6: 0 => 6, 1 => 6, 2 => 6, 3 => 6, 4 => 6, 5 => 6;
);

/// Rank types with at least one axis: the result of removing one (a single-axis
/// reduction such as [`sum_axis`](crate::TensorBase::sum_axis)) has rank type
/// `Smaller` (ndarray's trait of the same name).
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f64, _>::ones([2, 3, 4]);
/// let s: Tensor<f64, <Ix3 as RemoveAxis>::Smaller> = a.sum_axis(1).unwrap();
/// let t: Tensor<f64, Ix2> = s;
/// assert_eq!(t.shape(), &[2, 4]);
/// ```
pub trait RemoveAxis: Dimension {
    /// The rank type with one axis fewer.
    type Smaller: Dimension;
}

/// Every rank type: the result of inserting one axis (as [`stack`](crate::manip::stack)
/// does) has rank type `Larger`; `Ix6` gives [`IxDyn`].
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f64, _>::ones([2, 3]);
/// let s: Tensor<f64, <Ix2 as InsertAxis>::Larger> = stack(&[&a, &a], 0).unwrap();
/// let t: Tensor<f64, Ix3> = s;
/// assert_eq!(t.shape(), &[2, 2, 3]);
/// ```
pub trait InsertAxis: Dimension {
    /// The rank type with one axis more.
    type Larger: Dimension;
}

macro_rules! remove_insert {
    ($($smaller:ty => $larger:ty;)*) => {$(
        impl RemoveAxis for $larger {
            type Smaller = $smaller;
        }
        impl InsertAxis for $smaller {
            type Larger = $larger;
        }
    )*};
}
remove_insert!(
    [usize; 0] => [usize; 1];
    [usize; 1] => [usize; 2];
    [usize; 2] => [usize; 3];
    [usize; 3] => [usize; 4];
    [usize; 4] => [usize; 5];
    [usize; 5] => [usize; 6];
);
impl InsertAxis for [usize; 6] {
    type Larger = IxDyn;
}
impl RemoveAxis for IxDyn {
    type Smaller = IxDyn;
}
impl InsertAxis for IxDyn {
    type Larger = IxDyn;
}

/// The rank type after NumPy's `atleast_{K}d` (used by `hstack` with `K = 1`,
/// `vstack` with `K = 2` and `dstack` with `K = 3`): `max(rank, K)` axes.
///
/// ```
/// use ferrotensor::prelude::*;
/// let v = Tensor::<i32, _>::zeros([3]);
/// let s: Tensor<i32, <Ix1 as AtLeast<2>>::Output> = vstack(&[&v, &v]).unwrap();
/// let t: Tensor<i32, Ix2> = s;
/// assert_eq!(t.shape(), &[2, 3]);
/// ```
pub trait AtLeast<const K: usize>: Dimension {
    /// The result's rank type.
    type Output: Dimension;
}

macro_rules! at_least {
    ($($n:literal: $($k:literal => $o:literal),*;)*) => {$($(
        impl AtLeast<$k> for [usize; $n] {
            type Output = [usize; $o];
        }
    )*)*};
}
at_least!(
    0: 1 => 1, 2 => 2, 3 => 3;
    1: 1 => 1, 2 => 2, 3 => 3;
    2: 1 => 2, 2 => 2, 3 => 3;
    3: 1 => 3, 2 => 3, 3 => 3;
    4: 1 => 4, 2 => 4, 3 => 4;
    5: 1 => 5, 2 => 5, 3 => 5;
    6: 1 => 6, 2 => 6, 3 => 6;
);
impl<const K: usize> AtLeast<K> for IxDyn {
    type Output = IxDyn;
}

/// The rank type of NumPy `matmul(Self, Rhs)`: a 1-D operand loses its axis
/// (`Ix1`·`Ix1` → `Ix0`, `Ix2`·`Ix1` → `Ix1`), and stacks of matrices broadcast their
/// batch axes (`Ix3`·`Ix2` → `Ix3`). 0-d operands are not implemented (NumPy rejects
/// them); an [`IxDyn`] operand gives `IxDyn`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let m = Tensor::<f64, _>::eye(3);
/// let v = Tensor::<f64, _>::ones([3]);
/// let mv: Tensor<f64, <Ix2 as MatmulDim<Ix1>>::Output> = m.matmul(&v).unwrap();
/// let x: Tensor<f64, Ix1> = mv;
/// let vv: Tensor<f64, Ix0> = v.matmul(&v).unwrap();
/// assert_eq!((x.shape(), vv.to_scalar().unwrap()), (&[3][..], 3.0));
/// ```
pub trait MatmulDim<Rhs: Dimension>: Dimension {
    /// The result's rank type.
    type Output: Dimension;
}

rank_table!(MatmulDim;
    1: 1 => 0, 2 => 1, 3 => 2, 4 => 3, 5 => 4, 6 => 5;
    2: 1 => 1, 2 => 2, 3 => 3, 4 => 4, 5 => 5, 6 => 6;
    3: 1 => 2, 2 => 3, 3 => 3, 4 => 4, 5 => 5, 6 => 6;
    4: 1 => 3, 2 => 4, 3 => 4, 4 => 4, 5 => 5, 6 => 6;
    5: 1 => 4, 2 => 5, 3 => 5, 4 => 5, 5 => 5, 6 => 6;
    6: 1 => 5, 2 => 6, 3 => 6, 4 => 6, 5 => 6, 6 => 6;
);
impl MatmulDim<IxDyn> for IxDyn {
    type Output = IxDyn;
}
macro_rules! matmul_dyn {
    ($($n:literal)*) => {$(
        impl MatmulDim<IxDyn> for [usize; $n] {
            type Output = IxDyn;
        }
        impl MatmulDim<[usize; $n]> for IxDyn {
            type Output = IxDyn;
        }
    )*};
}
matmul_dyn!(1 2 3 4 5 6);

/// The rank type of NumPy `dot(Self, Rhs)` and `inner(Self, Rhs)`: `N + M − 2` axes
/// (the contracted pair removed), or the other operand's rank when one is 0-d (a
/// scalar product); more than six axes give [`IxDyn`], as does an `IxDyn` operand.
///
/// ```
/// use ferrotensor::prelude::*;
/// let a = Tensor::<f64, _>::ones([2, 3, 4]);
/// let b = Tensor::<f64, _>::ones([5, 4, 6]);
/// let d: Tensor<f64, <Ix3 as DotDim<Ix3>>::Output> = a.dot(&b).unwrap();
/// let e: Tensor<f64, Ix4> = d;
/// assert_eq!(e.shape(), &[2, 3, 5, 6]);
/// ```
pub trait DotDim<Rhs: Dimension>: Dimension {
    /// The result's rank type.
    type Output: Dimension;
}

/// `$n: $m => $out, …;` implements `DotDim<[usize; $m]> for [usize; $n]`.
macro_rules! dot_table {
    ($($n:literal: $($m:literal => $o:ty),*;)*) => {$($(
        impl DotDim<[usize; $m]> for [usize; $n] {
            type Output = $o;
        }
    )*)*};
}
dot_table!(
    0: 0 => [usize; 0], 1 => [usize; 1], 2 => [usize; 2], 3 => [usize; 3], 4 => [usize; 4], 5 => [usize; 5], 6 => [usize; 6];
    1: 0 => [usize; 1], 1 => [usize; 0], 2 => [usize; 1], 3 => [usize; 2], 4 => [usize; 3], 5 => [usize; 4], 6 => [usize; 5];
    2: 0 => [usize; 2], 1 => [usize; 1], 2 => [usize; 2], 3 => [usize; 3], 4 => [usize; 4], 5 => [usize; 5], 6 => [usize; 6];
    3: 0 => [usize; 3], 1 => [usize; 2], 2 => [usize; 3], 3 => [usize; 4], 4 => [usize; 5], 5 => [usize; 6], 6 => IxDyn;
    4: 0 => [usize; 4], 1 => [usize; 3], 2 => [usize; 4], 3 => [usize; 5], 4 => [usize; 6], 5 => IxDyn, 6 => IxDyn;
    5: 0 => [usize; 5], 1 => [usize; 4], 2 => [usize; 5], 3 => [usize; 6], 4 => IxDyn, 5 => IxDyn, 6 => IxDyn;
    6: 0 => [usize; 6], 1 => [usize; 5], 2 => [usize; 6], 3 => IxDyn, 4 => IxDyn, 5 => IxDyn, 6 => IxDyn;
);
impl<D: Dimension> DotDim<IxDyn> for D {
    type Output = IxDyn;
}
impl<const N: usize> DotDim<[usize; N]> for IxDyn
where
    [usize; N]: Dimension,
{
    type Output = IxDyn;
}

/// The rank type of NumPy `diag`: a vector gives a matrix (`Ix1` → `Ix2`), a matrix
/// gives a vector (`Ix2` → `Ix1`); other fixed ranks are not implemented (NumPy
/// rejects them) and `IxDyn` gives `IxDyn`.
///
/// ```
/// use ferrotensor::prelude::*;
/// let v = Tensor::from_vec(vec![1, 2], [2]).unwrap();
/// let m: Tensor<i32, <Ix1 as DiagDim>::Output> = v.diag(0).unwrap();
/// let back: Tensor<i32, Ix1> = m.diag(0).unwrap();
/// assert_eq!(back.to_vec(), vec![1, 2]);
/// ```
pub trait DiagDim: Dimension {
    /// The result's rank type.
    type Output: Dimension;
}
impl DiagDim for [usize; 1] {
    type Output = [usize; 2];
}
impl DiagDim for [usize; 2] {
    type Output = [usize; 1];
}
impl DiagDim for IxDyn {
    type Output = IxDyn;
}
