//! LU decomposition with partial pivoting and triangular solves: SciPy's `lu`,
//! `lu_factor`, `lu_solve` and `solve_triangular`, batched over leading axes, real and
//! complex.

use super::batch::{Batch, System, push_mat, tensor};
use super::scalar::LinalgScalar;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, MatmulDim, RemoveAxis};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use faer::linalg::triangular_solve as tri;
use faer::{Conj, MatMut, MatRef, Par};

/// Which system a triangular or LU solve answers (SciPy's `trans`: 0, 1, 2).
///
/// ```
/// use ferrotensor::linalg::Trans;
/// assert_eq!(Trans::default(), Trans::N);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Trans {
    /// `a · x = b`.
    #[default]
    N,
    /// `aᵀ · x = b`.
    T,
    /// `aᴴ · x = b` (the same as `T` for real matrices).
    C,
}

/// `P`, `L`, `U` of [`lu`].
type Plu<T, D> = (Tensor<T, D>, Tensor<T, D>, Tensor<T, D>);
/// The packed factors and pivots of [`lu_factor`].
type Factor<T, D> = (Tensor<T, D>, Tensor<usize, <D as RemoveAxis>::Smaller>);

/// The row permutation of faer's LU as SciPy's `P` (`a = P · L · U`): column `j` of
/// `P` is the unit vector of the original row that ended at position `j`.
fn perm_matrix<T: LinalgScalar>(fwd: &[usize], out: &mut Vec<T>) {
    let m = fwd.len();
    let start = out.len();
    out.resize(start + m * m, T::zero());
    for (j, &row) in fwd.iter().enumerate() {
        out[start + row * m + j] = T::one();
    }
}

/// LAPACK's pivots (`ipiv`, 0-based): at step `i` row `i` was swapped with row
/// `piv[i]`. Built by replaying the permutation `fwd` as swaps.
fn lapack_pivots(fwd: &[usize], k: usize) -> Vec<usize> {
    let m = fwd.len();
    let mut at: Vec<usize> = (0..m).collect(); // at[p] = original row now at position p
    let mut pos: Vec<usize> = (0..m).collect(); // pos[r] = position of original row r
    let mut piv = Vec::with_capacity(k);
    for (i, &want) in fwd.iter().take(k).enumerate() {
        let j = pos[want];
        piv.push(j);
        at.swap(i, j);
        pos[at[i]] = i;
        pos[at[j]] = j;
    }
    piv
}

/// The LU decomposition with partial pivoting of each `(..., m, n)` matrix (SciPy's
/// `scipy.linalg.lu(a)`, PyTorch's `torch.linalg.lu`): `a = P · L · U` with `P` an
/// `(..., m, m)` permutation matrix, `L` `(..., m, k)` unit lower triangular and `U`
/// `(..., k, n)` upper triangular, `k = min(m, n)`. The pivot of each column is its
/// largest remaining entry, as LAPACK's. `Err` below two axes.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::lu;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2]).unwrap();
/// let (p, l, u) = lu(&a).unwrap();
/// assert_eq!(p.to_vec(), vec![0.0, 1.0, 1.0, 0.0]);
/// assert_eq!(l.to_vec(), vec![1.0, 0.0, 1.0 / 3.0, 1.0]);
/// let back = &(&p % &l) % &u;
/// assert!(back.to_vec().iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn lu<T: LinalgScalar, S: Storage<Elem = T>, D: Dimension>(a: &TensorBase<S, D>) -> Result<Plu<T, D>> {
    let ba = Batch::of(a, "lu", false)?;
    let (m, n) = (ba.rows, ba.cols);
    let k = m.min(n);
    let (mut ps, mut ls, mut us) = (Vec::new(), Vec::new(), Vec::new());
    for t in 0..ba.count() {
        let f = ba.mat(t).partial_piv_lu();
        perm_matrix(f.P().arrays().0, &mut ps);
        push_mat(&mut ls, f.L());
        push_mat(&mut us, f.U());
    }
    Ok((
        tensor(ps, &ba.batch, &[m, m])?,
        tensor(ls, &ba.batch, &[m, k])?,
        tensor(us, &ba.batch, &[k, n])?,
    ))
}

/// The packed LU factors and pivots of each `(..., m, n)` matrix (SciPy's
/// `lu_factor(a)`): `lu` holds `U` on and above the diagonal and the multipliers of
/// the unit `L` below it; `piv` (`(..., k)`) says that row `i` was swapped with row
/// `piv[i]` (LAPACK's `ipiv`, 0-based). Feed both to [`lu_solve`].
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::lu_factor;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2]).unwrap();
/// let (lu, piv) = lu_factor(&a).unwrap();
/// assert_eq!(piv.to_vec(), vec![1, 1]);
/// assert_eq!(lu.to_vec(), vec![3.0, 4.0, 1.0 / 3.0, 2.0 - 4.0 / 3.0]);
/// ```
pub fn lu_factor<T: LinalgScalar, S: Storage<Elem = T>, D: RemoveAxis>(a: &TensorBase<S, D>) -> Result<Factor<T, D>> {
    let ba = Batch::of(a, "lu_factor", false)?;
    let (m, n) = (ba.rows, ba.cols);
    let k = m.min(n);
    let (mut lus, mut pivs) = (Vec::new(), Vec::new());
    for t in 0..ba.count() {
        let f = ba.mat(t).partial_piv_lu();
        let (l, u) = (f.L(), f.U());
        for i in 0..m {
            for j in 0..n {
                lus.push(if i <= j { u[(i, j)] } else { l[(i, j)] });
            }
        }
        pivs.extend(lapack_pivots(f.P().arrays().0, k));
    }
    Ok((tensor(lus, &ba.batch, &[m, n])?, tensor(pivs, &ba.batch, &[k])?))
}

/// Solves `tri · x = rhs` in place for a triangular `tri` as `trans` asks.
fn triangular<T: LinalgScalar>(t: MatRef<'_, T>, lower: bool, unit: bool, trans: Trans, rhs: MatMut<'_, T>) {
    let conj = if trans == Trans::C { Conj::Yes } else { Conj::No };
    let (t, lower) = match trans {
        Trans::N => (t, lower),
        Trans::T | Trans::C => (t.transpose(), !lower),
    };
    match (lower, unit) {
        (true, false) => tri::solve_lower_triangular_in_place_with_conj(t, conj, rhs, Par::Seq),
        (true, true) => tri::solve_unit_lower_triangular_in_place_with_conj(t, conj, rhs, Par::Seq),
        (false, false) => tri::solve_upper_triangular_in_place_with_conj(t, conj, rhs, Par::Seq),
        (false, true) => tri::solve_unit_upper_triangular_in_place_with_conj(t, conj, rhs, Par::Seq),
    }
}

fn singular_at<T: LinalgScalar>(m: MatRef<'_, T>, op: &'static str) -> Result<()> {
    match (0..m.nrows()).find(|&i| m[(i, i)] == T::zero()) {
        Some(i) => Err(Error::value(
            op,
            format!("singular matrix: resolution failed at diagonal {i}"),
        )),
        None => Ok(()),
    }
}

/// Solves `a · x = b` (or `aᵀ`/`aᴴ` with `trans`) for triangular `a` (SciPy's
/// `solve_triangular(a, b, trans, lower, unit_diagonal)`), reading only the triangle
/// `lower` names; `unit_diagonal` takes the diagonal as ones. `a` is `(..., n, n)`, `b`
/// `(n,)` or `(..., n, k)` with batch axes broadcasting. `Err` for shapes that do not
/// fit or a zero on the diagonal (naming it).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::{Trans, solve_triangular};
/// let a = Tensor::from_vec(vec![2.0f64, 0.0, 1.0, 4.0], [2, 2]).unwrap();
/// let b = Tensor::from_vec(vec![2.0, 9.0], [2]).unwrap();
/// let x = solve_triangular(&a, &b, Trans::N, true, false).unwrap();
/// assert_eq!(x.to_vec(), vec![1.0, 2.0]);
/// assert!(solve_triangular(&Tensor::<f64, _>::zeros([2, 2]), &b, Trans::N, true, false).is_err());
/// ```
pub fn solve_triangular<
    T: LinalgScalar,
    S: Storage<Elem = T>,
    D: MatmulDim<D2>,
    S2: Storage<Elem = T>,
    D2: Dimension,
>(
    a: &TensorBase<S, D>,
    b: &TensorBase<S2, D2>,
    trans: Trans,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Tensor<T, D::Output>> {
    let op = "solve_triangular";
    let sys = System::of(a, b, op)?;
    let mut out = Vec::with_capacity(sys.b.count() * sys.b.rows * sys.b.cols);
    for t in 0..sys.a.count() {
        let m = sys.a.mat(t);
        if !unit_diagonal {
            singular_at(m.as_ref(), op)?;
        }
        let mut x = sys.b.mat(t);
        triangular(m.as_ref(), lower, unit_diagonal, trans, x.as_mut());
        push_mat(&mut out, x.as_ref());
    }
    sys.finish(out)
}

/// Solves `a · x = b` (or `aᵀ`/`aᴴ` with `trans`) from [`lu_factor`]'s output (SciPy's
/// `lu_solve((lu, piv), b, trans)`); `b` as in [`solve_triangular`]. `Err` if the
/// shapes do not fit, the factors are not square or the pivots are out of range.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::{Trans, lu_factor, lu_solve};
/// let a = Tensor::from_vec(vec![3.0f64, 1.0, 1.0, 2.0], [2, 2]).unwrap();
/// let (lu, piv) = lu_factor(&a).unwrap();
/// let b = Tensor::from_vec(vec![9.0, 8.0], [2]).unwrap();
/// let x = lu_solve(&lu, &piv, &b, Trans::N).unwrap().to_vec();
/// assert!((x[0] - 2.0).abs() < 1e-12 && (x[1] - 3.0).abs() < 1e-12);
/// ```
pub fn lu_solve<T, S, D, S2, D2, S3, D3>(
    lu: &TensorBase<S, D>,
    piv: &TensorBase<S3, D3>,
    b: &TensorBase<S2, D2>,
    trans: Trans,
) -> Result<Tensor<T, D::Output>>
where
    T: LinalgScalar,
    S: Storage<Elem = T>,
    D: MatmulDim<D2>,
    S2: Storage<Elem = T>,
    D2: Dimension,
    S3: Storage<Elem = usize>,
    D3: Dimension,
{
    let op = "lu_solve";
    let sys = System::of(lu, b, op)?;
    let n = sys.a.rows;
    let lu_batch = &lu.shape()[..lu.ndim() - 2];
    let want: Vec<usize> = lu_batch.iter().copied().chain([n]).collect();
    if piv.shape() != want.as_slice() {
        return Err(Error::shape(
            op,
            format!(
                "pivots of shape {} do not fit factors of shape {}",
                fmt_shape(piv.shape()),
                fmt_shape(lu.shape())
            ),
        ));
    }
    // Pivots broadcast with the factors' batch (which the system may have stretched).
    let full: Vec<usize> = sys.batch.iter().copied().chain([n]).collect();
    let pv = piv.view().into_dyn().broadcast_to(full)?.to_vec();
    if let Some(&p) = pv.iter().find(|&&p| p >= n) {
        return Err(Error::index(op, format!("pivot {p} is out of range for {n} rows")));
    }
    let mut out = Vec::with_capacity(sys.b.count() * n * sys.b.cols);
    for t in 0..sys.a.count() {
        let m = sys.a.mat(t);
        let p = &pv[t * n..][..n];
        let mut x = sys.b.mat(t);
        let swap = |x: &mut faer::Mat<T>, order: &mut dyn Iterator<Item = usize>| {
            for i in order {
                if p[i] != i {
                    for c in 0..x.ncols() {
                        let (u, v) = (x[(i, c)], x[(p[i], c)]);
                        x[(i, c)] = v;
                        x[(p[i], c)] = u;
                    }
                }
            }
        };
        if trans == Trans::N {
            // P·a = L·U: apply the swaps to b, then L and U.
            swap(&mut x, &mut (0..n));
            triangular(m.as_ref(), true, true, Trans::N, x.as_mut());
            triangular(m.as_ref(), false, false, Trans::N, x.as_mut());
        } else {
            // aᵀ = Uᵀ·Lᵀ·P: solve with Uᵀ, then Lᵀ, then undo the swaps in reverse.
            triangular(m.as_ref(), false, false, trans, x.as_mut());
            triangular(m.as_ref(), true, true, trans, x.as_mut());
            swap(&mut x, &mut (0..n).rev());
        }
        push_mat(&mut out, x.as_ref());
    }
    sys.finish(out)
}
