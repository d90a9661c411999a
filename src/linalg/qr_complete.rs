//! The complete QR decomposition (NumPy `qr(mode='complete')`), batched.

use super::LinalgScalar;
use super::batch::{Batch, push_mat, tensor};
use crate::error::Result;
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};

/// The complete QR decomposition of each `(..., m, n)` matrix: `Q` is `(..., m, m)`
/// orthogonal (unitary for complex input) and `R` `(..., m, n)` upper triangular (zero below the diagonal), so that
/// `a = Q·R` (NumPy's `mode='complete'`; [`qr`](super::qr) gives the reduced factors,
/// which are these for `m ≤ n`).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::qr_complete;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 2]).unwrap();
/// let (q, r) = qr_complete(&a).unwrap();
/// assert_eq!((q.shape(), r.shape()), (&[3usize, 3][..], &[3usize, 2][..]));
/// let back = &q % &r;
/// assert!(back.to_vec().iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
/// let qtq = &q.t() % &q;
/// assert!((qtq.to_vec()[4] - 1.0).abs() < 1e-12 && qtq.to_vec()[1].abs() < 1e-12);
/// ```
pub fn qr_complete<T: LinalgScalar, S: Storage<Elem = T>, D: Dimension>(
    a: &TensorBase<S, D>,
) -> Result<(Tensor<T, IxDyn>, Tensor<T, IxDyn>)> {
    let ba = Batch::of(a, "qr_complete", false)?;
    let (m, n) = (ba.rows, ba.cols);
    let (mut qs, mut rs) = (Vec::new(), Vec::new());
    for t in 0..ba.count() {
        let f = ba.mat(t).qr();
        push_mat(&mut qs, f.compute_Q().as_ref());
        let r = f.R();
        for i in 0..m {
            for j in 0..n {
                rs.push(if j >= i && i < r.nrows() { r[(i, j)] } else { T::zero() });
            }
        }
    }
    Ok((tensor(qs, &ba.batch, &[m, m])?, tensor(rs, &ba.batch, &[m, n])?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    #[test]
    fn batched_tall_and_wide_reconstruct() {
        for shape in [[2usize, 4, 2], [2, 2, 3], [1, 3, 3]] {
            let n: usize = shape.iter().product();
            let a = Tensor::<f64>::arange(n)
                .mapv(|x| (x * 0.37).sin())
                .into_shape(shape)
                .unwrap();
            let (q, r) = qr_complete(&a).unwrap();
            assert_eq!(q.shape(), &[shape[0], shape[1], shape[1]]);
            assert_eq!(r.shape(), a.shape());
            let back = q.matmul(&r).unwrap();
            for (x, y) in back.to_vec().iter().zip(a.to_vec()) {
                assert!((x - y).abs() < 1e-12);
            }
            let rv = r.to_vec();
            for b in 0..shape[0] {
                for i in 0..shape[1] {
                    for j in 0..i.min(shape[2]) {
                        assert_eq!(rv[(b * shape[1] + i) * shape[2] + j], 0.0);
                    }
                }
            }
        }
        assert!(qr_complete(&Tensor::<f32, _>::zeros([3])).is_err());
    }

    #[test]
    fn complex_tall_matrix_gives_a_unitary_q() {
        use num_complex::Complex;
        let a = Tensor::from_shape_fn([3, 2], |ix: &[usize]| {
            let (i, j) = (ix[0] as f64, ix[1] as f64);
            Complex::new((i * 2.0 + j) * 0.5 - 1.0, (i + 3.0 * j) * 0.25)
        });
        let (q, r) = qr_complete(&a).unwrap();
        assert_eq!((q.shape(), r.shape()), (&[3usize, 3][..], &[3usize, 2][..]));
        for (x, y) in q.matmul(&r).unwrap().to_vec().iter().zip(a.to_vec()) {
            assert!((x - y).norm() < 1e-12);
        }
        // Qᴴ·Q = I
        let qh = q.t().mapv(|z| z.conj());
        let qhq = qh.matmul(&q).unwrap().to_vec();
        for i in 0..3 {
            for j in 0..3 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((qhq[i * 3 + j] - Complex::new(want, 0.0)).norm() < 1e-12);
            }
        }
        assert_eq!(r.to_vec()[4], Complex::new(0.0, 0.0));
    }
}
