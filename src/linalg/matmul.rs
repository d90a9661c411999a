//! NumPy `matmul`: 1-D promotion, batch-axis broadcasting, any strides.
//!
//! The operands' layouts are handed to the kernel as they are (transposed, negative
//! and stride-0 axes included): nothing is copied to satisfy the kernel. Batches of
//! small matrices run in parallel over the batch (f32/f64 products with every
//! dimension ≥ 128 on faer's kernels, the others on the `gemm` crate's); large
//! matrices parallelise inside the kernel. A batched left operand against a broadcast
//! right matrix is folded into one tall product when its batch axes merge with its
//! row axis.

use super::gemm_kernels;
use super::mat::{MatMut, MatRef};
use super::small_kernel::SmallPlan;
use crate::element::Num;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::dim::{DimVec, StrideVec};
use crate::layout::transform::broadcast_shapes;
use crate::layout::{Dimension, IxDyn, Layout, MatmulDim};
use crate::storage::{OwnedRepr, Storage};
use crate::tensor::{Tensor, TensorBase, TensorView};
use rayon::prelude::*;

/// Per-matrix multiply-adds below which a batch is split across threads by matrices
/// instead of inside each product.
const BATCH_PARALLEL_MAX: usize = 256 * 256 * 256;

/// Smallest `m`, `n` and `k` of the f32/f64 products of a batch split by matrices that
/// run on faer's kernels ([`super::faer_kernel`]) instead of the `gemm` crate's. A rule
/// of the shape only. Measured on AMD EPYC Zen 5 (2 threads, 6 runs): `[64,128,128]`
/// batches 0.96–0.98× RSTSR with faer against 1.01–1.07× with the gemm crate (faer's
/// kernels have the lower fixed cost per call); `[4096,64,64]` 4 % slower on faer, so
/// smaller products stay on the gemm crate. Not measured on Intel.
const FAER_MIN: usize = 128;

impl<T: Num, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// Matrix product with NumPy `matmul` semantics (the fallible twin of `%`).
    ///
    /// The result's rank type follows from the operands' ([`MatmulDim`]): `Ix2`·`Ix2`
    /// gives `Ix2`, `Ix2`·`Ix1` gives `Ix1`, `Ix1`·`Ix1` gives `Ix0`, stacks keep the
    /// larger rank; 0-d operands do not compile with fixed ranks (NumPy rejects them).
    ///
    /// A 1-D left operand is treated as a row `(1, n)`, a 1-D right operand as a column
    /// `(n, 1)`, and the added axis is removed from the result (1-D with 1-D gives a 0-d
    /// tensor). All axes but the last two are batch axes and broadcast. `Err` for a 0-d
    /// operand, mismatched core dimensions or batch axes that don't broadcast; the
    /// message names both shapes. Any strides are accepted. Integer products wrap on
    /// overflow as NumPy's do.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap();
    /// let b = Tensor::from_vec(vec![1.0f64, 0.0, 0.0, 1.0, 1.0, 1.0], [3, 2]).unwrap();
    /// let c: Tensor<f64, Ix2> = a.matmul(&b).unwrap();
    /// assert_eq!(c.shape(), &[2, 2]);
    /// let v: Tensor<f64, Ix1> = a.matmul(&Tensor::from_vec(vec![1.0, 1.0, 1.0], [3]).unwrap()).unwrap();
    /// assert_eq!(v.to_vec(), vec![6.0, 15.0]);
    /// assert_eq!(c.to_vec(), vec![4.0, 5.0, 10.0, 11.0]);
    /// // batch broadcasting: (2,1,3,4) @ (5,4,6) -> (2,5,3,6)
    /// let x = Tensor::<f32, _>::ones([2, 1, 3, 4]);
    /// let y = Tensor::<f32, _>::ones([5, 4, 6]);
    /// let xy: Tensor<f32, Ix4> = x.matmul(&y).unwrap();
    /// assert_eq!(xy.shape(), &[2, 5, 3, 6]);
    /// let e = a.matmul(&a).unwrap_err();
    /// assert_eq!(e.to_string(), "matmul: shapes (2, 3) and (2, 3) are not aligned: 3 != 2");
    /// ```
    pub fn matmul<S2: Storage<Elem = T>, D2: Dimension>(&self, rhs: &TensorBase<S2, D2>) -> Result<Tensor<T, D::Output>>
    where
        D: MatmulDim<D2>,
    {
        matmul_views(&dyn_view(self), &dyn_view(rhs))?.into_dim()
    }
}

/// A dynamic-rank view of any tensor.
pub(crate) fn dyn_view<T: Num, S: Storage<Elem = T>, D: Dimension>(t: &TensorBase<S, D>) -> TensorView<'_, T, IxDyn> {
    TensorBase {
        storage: crate::storage::ViewRepr(t.storage.buffer()),
        layout: t.layout.clone().into_dyn(),
    }
}

/// `matmul` on dynamic-rank views.
pub(crate) fn matmul_views<T: Num>(
    a: &TensorView<'_, T, IxDyn>,
    b: &TensorView<'_, T, IxDyn>,
) -> Result<Tensor<T, IxDyn>> {
    let (sa, sb) = (a.shape(), b.shape());
    for (i, s) in [sa, sb].iter().enumerate() {
        if s.is_empty() {
            return Err(Error::shape(
                "matmul",
                format!(
                    "shapes {} and {}: operand {i} does not have enough dimensions (has 0, requires at least 1)",
                    fmt_shape(sa),
                    fmt_shape(sb)
                ),
            ));
        }
    }
    // Promote 1-D operands to matrices (stride 0 on the added axis).
    let (mut ash, mut ast): (DimVec, StrideVec) = (sa.into(), a.strides().into());
    let (mut bsh, mut bst): (DimVec, StrideVec) = (sb.into(), b.strides().into());
    if sa.len() == 1 {
        ash.insert(0, 1);
        ast.insert(0, 0);
    }
    if sb.len() == 1 {
        bsh.push(1);
        bst.push(0);
    }
    let (na, nb) = (ash.len(), bsh.len());
    let (m, k, k2, n) = (ash[na - 2], ash[na - 1], bsh[nb - 2], bsh[nb - 1]);
    if k != k2 {
        return Err(Error::shape(
            "matmul",
            format!(
                "shapes {} and {} are not aligned: {} != {}",
                fmt_shape(sa),
                fmt_shape(sb),
                k,
                k2
            ),
        ));
    }
    let batch = broadcast_shapes(&ash[..na - 2], &bsh[..nb - 2], "matmul").map_err(|_| {
        Error::shape(
            "matmul",
            format!(
                "shapes {} and {} have batch dimensions {} and {} that cannot be broadcast together",
                fmt_shape(sa),
                fmt_shape(sb),
                fmt_shape(&ash[..na - 2]),
                fmt_shape(&bsh[..nb - 2])
            ),
        )
    })?;
    let nbatch = batch.len();
    let abs = batch_strides(&ash[..na - 2], &ast[..na - 2], nbatch);
    let bbs = batch_strides(&bsh[..nb - 2], &bst[..nb - 2], nbatch);
    let am = MatRef {
        ptr: a.as_ptr(),
        rs: ast[na - 2],
        cs: ast[na - 1],
    };
    let bm = MatRef {
        ptr: b.as_ptr(),
        rs: bst[nb - 2],
        cs: bst[nb - 1],
    };

    let mut out_shape: DimVec = batch.clone();
    if sa.len() > 1 {
        out_shape.push(m);
    }
    if sb.len() > 1 {
        out_shape.push(n);
    }
    let total = crate::layout::checked_size(&out_shape, "matmul")?;
    let nmat: usize = batch.iter().product();
    let mut out: Vec<T> = super::alloc::output_buffer(total);
    if total > 0 && k > 0 {
        // SAFETY: `a` and `b` are valid views, so every index of their (promoted,
        // batch-broadcast) layouts names an element of their buffers; `out` has capacity
        // for the `nmat * m * n` elements, written row-major, one matrix per batch index.
        unsafe { run_batched(&batch, &abs, &bbs, m, n, k, am, bm, out.as_mut_ptr(), nmat) };
        // SAFETY: with m, n, k > 0 the kernels write every element of every output matrix.
        unsafe { out.set_len(total) };
    } else {
        out.resize(total, T::zero());
    }
    let layout = Layout::new_order(IxDyn(out_shape), crate::Order::RowMajor)?;
    Ok(TensorBase {
        storage: OwnedRepr(out),
        layout,
    })
}

/// Strides of an operand's batch axes broadcast (right-aligned) to `n` axes.
fn batch_strides(shape: &[usize], strides: &[isize], n: usize) -> StrideVec {
    let mut out = StrideVec::from_elem(0, n);
    let lead = n - shape.len();
    for i in 0..shape.len() {
        out[lead + i] = if shape[i] == 1 { 0 } else { strides[i] };
    }
    out
}

/// Buffer offset (in elements) of batch matrix `flat` (row-major over `batch`).
#[inline]
fn batch_offset(mut flat: usize, batch: &[usize], strides: &[isize]) -> isize {
    let mut off = 0isize;
    for ax in (0..batch.len()).rev() {
        let d = batch[ax];
        off += (flat % d) as isize * strides[ax];
        flat /= d;
    }
    off
}

/// Runs the batch of products into `out` (contiguous `nmat × m × n`).
///
/// # Safety
/// `a` and `b` with batch strides `abs`/`bbs` must name readable elements for every
/// batch index of `batch` and every in-range matrix index; `out` must be writable for
/// `nmat*m*n` elements.
#[allow(clippy::too_many_arguments)]
unsafe fn run_batched<T: Num>(
    batch: &[usize],
    abs: &[isize],
    bbs: &[isize],
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    out: *mut T,
    nmat: usize,
) {
    let threads = crate::threads::num_threads();
    // Fold: b is the same matrix for every batch index and a's batch axes continue its
    // row axis with a single stride, so the batch is one (nmat*m × k) @ (k × n) product.
    if nmat > 1 && bbs.iter().all(|&s| s == 0) && folds_into_rows(batch, abs, m, a.rs) {
        let c = MatMut {
            ptr: out,
            rs: n as isize,
            cs: 1,
        };
        // SAFETY: the folded rows `r = flat*m + i` are at `r * a.rs`, which is exactly the
        // batch offset plus `i * a.rs` (checked by `folds_into_rows`); out is nmat*m × n.
        return unsafe { gemm_kernels::gemm(nmat * m, n, k, a, b, c, threads) };
    }
    let mat = m * n;
    let optr = SendPtr(out);
    // Products for batch indices `lo..hi`, walking the batch with an odometer (no
    // division per matrix).
    let range = |lo: usize, hi: usize, kernel_threads: usize| {
        let mut idx = crate::layout::unravel_index(lo, batch).unwrap_or_default();
        let (mut ao, mut bo) = (batch_offset(lo, batch, abs), batch_offset(lo, batch, bbs));
        let small = SmallPlan::new::<T>(m, n, k, b.cs, 1);
        let use_faer = kernel_threads == 1 && super::faer_kernel::supported::<T>() && m.min(n).min(k) >= FAER_MIN;
        for flat in lo..hi {
            let c = MatMut {
                ptr: optr.get().wrapping_add(flat * mat),
                rs: n as isize,
                cs: 1,
            };
            if use_faer {
                // SAFETY: as below; T is f32 or f64 and m, n, k > 0 (`use_faer`).
                unsafe { super::faer_kernel::gemm_faer(m, n, k, a.shifted(ao), b.shifted(bo), c) };
            } else {
                // SAFETY: batch matrix `flat` of each operand is in bounds (caller's
                // contract) and output matrix `flat` is the disjoint range
                // flat*mat..(flat+1)*mat of `out`.
                unsafe { gemm_kernels::gemm_with(&small, m, n, k, a.shifted(ao), b.shifted(bo), c, kernel_threads) };
            }
            for ax in (0..batch.len()).rev() {
                idx[ax] += 1;
                ao += abs[ax];
                bo += bbs[ax];
                if idx[ax] < batch[ax] {
                    break;
                }
                ao -= abs[ax] * batch[ax] as isize;
                bo -= bbs[ax] * batch[ax] as isize;
                idx[ax] = 0;
            }
        }
    };
    if nmat >= 2 && threads > 1 && m * n * k <= BATCH_PARALLEL_MAX && nmat * m * n * k >= 32 * 32 * 32 {
        let per = nmat.div_ceil(threads * 4).max(1);
        (0..nmat.div_ceil(per)).into_par_iter().for_each(|chunk| {
            range(chunk * per, ((chunk + 1) * per).min(nmat), 1);
        });
    } else {
        range(0, nmat, threads);
    }
}

/// True if row `flat*m + i` of the batched left operand sits at `(flat*m + i) * rs`
/// for every batch index, i.e. the batch axes and the row axis merge into one axis.
fn folds_into_rows(batch: &[usize], abs: &[isize], m: usize, rs: isize) -> bool {
    let mut expect = rs * m as isize;
    for ax in (0..batch.len()).rev() {
        if batch[ax] != 1 && abs[ax] != expect {
            return false;
        }
        expect *= batch[ax] as isize;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch of `nmat` products on `threads` threads (lengths that are not multiples
    /// of the thread count), with a transposed right operand, against a naive product;
    /// small integers, so every result is exact.
    fn batch_on_threads<T: Num + Into<f64>>(threads: usize, nmat: usize, m: usize, k: usize, n: usize) {
        let a = Tensor::<T, _>::from_shape_fn([nmat, m, k], |i: &[usize]| {
            T::from_f64(((i[0] * 5 + i[1] * 3 + i[2]) % 11) as f64 - 5.0)
        });
        let bt = Tensor::<T, _>::from_shape_fn([nmat, n, k], |i: &[usize]| {
            T::from_f64(((i[0] + i[1] * 7 + i[2] * 2) % 9) as f64 - 4.0)
        });
        let b = bt.permute(&[0, 2, 1]).unwrap();
        let c = crate::with_num_threads(threads, || a.matmul(&b).unwrap());
        assert_eq!(c.shape(), &[nmat, m, n]);
        let f = |t: Vec<T>| t.into_iter().map(Into::into).collect::<Vec<f64>>();
        let (av, bv, cv) = (f(a.to_vec()), f(bt.to_vec()), f(c.to_vec()));
        for q in 0..nmat {
            for i in 0..m {
                let ar = &av[(q * m + i) * k..][..k];
                for j in 0..n {
                    let br = &bv[(q * n + j) * k..][..k];
                    let want: f64 = ar.iter().zip(br).map(|(x, y)| x * y).sum();
                    assert_eq!(cv[(q * m + i) * n + j], want, "{nmat}×{m}×{k}×{n} at ({q}, {i}, {j})");
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "too large for Miri")]
    fn batches_split_over_threads_match_the_definition() {
        batch_on_threads::<f32>(3, 7, 20, 24, 18);
        batch_on_threads::<f64>(2, 5, 33, 17, 40);
        batch_on_threads::<f32>(3, 11, 8, 8, 8);
        batch_on_threads::<i32>(2, 9, 12, 10, 7);
        // faer's kernels (every dimension ≥ FAER_MIN), odd sizes around the tiles.
        batch_on_threads::<f32>(2, 3, 130, 128, 129);
        batch_on_threads::<f64>(3, 2, 128, 131, 140);
    }
}
