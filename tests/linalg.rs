//! Decompositions and solvers (f32/f64 through faer): results checked by reconstruction
//! (A·x = b, Q·R = A, U·S·Vᵀ = A, L·Lᵀ = A, A·V = V·diag(w)) and against NumPy values
//! from tests/golden/gen_linalg.py; error cases for singular and non-square input.
//!
//! Tolerances: f64 results within 1e-9 (relative to the operands' scale), f32 within 1e-3.

use crate::linalg_common;

use ferrotensor::linalg::*;
use ferrotensor::prelude::*;
use linalg_common::*;
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{what}: got {g}, want {w}"
        );
    }
}

fn mat(shape: &[usize], data: Vec<f64>) -> Tensor<f64> {
    Tensor::from_vec(data, shape.to_vec()).unwrap()
}

/// Batched transpose of the last two axes as an owned tensor.
fn tr(t: &Tensor<f64>) -> Tensor<f64> {
    t.swap_axes(-1, -2).unwrap().to_owned()
}

/// `u * s` with `s` broadcast over the rows (u: (..., m, k), s: (..., k)).
fn scale_cols(u: &Tensor<f64>, s: &Tensor<f64>) -> Tensor<f64> {
    let k = *s.shape().last().unwrap();
    let m = u.shape()[u.ndim() - 2];
    let (uv, sv) = (u.to_vec(), s.to_vec());
    let data = uv
        .iter()
        .enumerate()
        .map(|(i, &x)| x * sv[(i / (m * k)) * k + i % k])
        .collect();
    mat(u.shape(), data)
}

#[test]
fn square_routines_match_numpy_and_reconstruct() {
    let g = golden();
    for case in g["linalg"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("det").is_some())
    {
        let shape = usizes(&case["shape"]);
        let a = mat(&shape, floats(&case["a"]));
        let spd = mat(&shape, floats(&case["spd"]));
        let mut bshape = shape.clone();
        *bshape.last_mut().unwrap() = 2;
        let b = mat(&bshape, floats(&case["b"]));
        close(
            &det(&a).unwrap().to_vec(),
            &floats(&case["det"]),
            1e-9,
            "det",
        );
        let (s, l) = slogdet(&a).unwrap();
        close(&s.to_vec(), &floats(&case["sign"]), 0.0, "slogdet sign");
        close(&l.to_vec(), &floats(&case["logdet"]), 1e-9, "logdet");
        close(
            &inv(&a).unwrap().to_vec(),
            &floats(&case["inv"]),
            1e-9,
            "inv",
        );
        let x = solve(&a, &b).unwrap();
        close(&x.to_vec(), &floats(&case["solve"]), 1e-9, "solve");
        close(&(&a % &x).to_vec(), &b.to_vec(), 1e-9, "A x = b");
        let (w, v) = eigh(&spd, Uplo::Lower).unwrap();
        close(&w.to_vec(), &floats(&case["eigvalsh"]), 1e-9, "eigvalsh");
        close(
            &(&spd % &v).to_vec(),
            &scale_cols(&v, &w).to_vec(),
            1e-9,
            "A V = V diag(w)",
        );
        close(
            &(tr(&v) % &v).to_vec(),
            &Tensor::<f64, _>::eye(shape[shape.len() - 1])
                .broadcast_to(shape.clone())
                .unwrap()
                .to_vec(),
            1e-9,
            "VᵀV = I",
        );
        let (u, sv, vh) = svd(&a, false).unwrap();
        close(
            &sv.to_vec(),
            &floats(&case["svals"]),
            1e-9,
            "singular values",
        );
        close(
            &(&scale_cols(&u, &sv) % &vh).to_vec(),
            &a.to_vec(),
            1e-9,
            "U S Vh = A",
        );
        let (uf, _, vhf) = svd(&a, true).unwrap();
        assert_eq!((uf.shape(), vhf.shape()), (&shape[..], &shape[..]));
        let (q, r) = qr(&a).unwrap();
        close(&(&q % &r).to_vec(), &a.to_vec(), 1e-9, "Q R = A");
        let rv = r.to_vec();
        let n = shape[shape.len() - 1];
        assert!(
            rv.iter()
                .enumerate()
                .all(|(i, &x)| (i % (n * n)) / n <= i % n || x == 0.0),
            "R is upper triangular"
        );
        let c = cholesky(&spd, false).unwrap();
        close(&c.to_vec(), &floats(&case["cholesky"]), 1e-9, "cholesky");
        close(&(&c % &tr(&c)).to_vec(), &spd.to_vec(), 1e-9, "L Lᵀ = A");
        let rank: Vec<f64> = matrix_rank(&a).unwrap().iter().map(|&x| x as f64).collect();
        close(&rank, &floats(&case["rank"]), 0.0, "rank");
        close(
            &pinv(&a, None).unwrap().to_vec(),
            &floats(&case["pinv"]),
            1e-8,
            "pinv",
        );
    }
}

#[test]
fn rectangular_and_rank_deficient_match_numpy() {
    let g = golden();
    for case in g["linalg"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("lstsq").is_some())
    {
        let shape = usizes(&case["shape"]);
        let a = mat(&shape, floats(&case["a"]));
        let y = mat(&[shape[0], 2], floats(&case["y"]));
        let r = lstsq(&a, &y, None).unwrap();
        close(&r.solution.to_vec(), &floats(&case["lstsq"]), 1e-9, "lstsq");
        assert_eq!(r.rank as u64, case["lstsq_rank"].as_u64().unwrap());
        assert_eq!(
            r.residuals.size(),
            0,
            "rank-deficient: no residuals (NumPy)"
        );
        close(
            &r.singular_values.to_vec(),
            &floats(&case["svals"]),
            1e-9,
            "lstsq singular values",
        );
        assert_eq!(
            matrix_rank(&a).unwrap().to_scalar().unwrap() as f64,
            floats(&case["rank"])[0]
        );
        close(
            &pinv(&a, None).unwrap().to_vec(),
            &floats(&case["pinv"]),
            1e-8,
            "pinv",
        );
        let ords = [
            LinalgNormOrd::Fro,
            LinalgNormOrd::Nuc,
            LinalgNormOrd::Inf,
            LinalgNormOrd::NegInf,
            LinalgNormOrd::P(1.0),
            LinalgNormOrd::P(-1.0),
            LinalgNormOrd::P(2.0),
            LinalgNormOrd::P(-2.0),
        ];
        let got: Vec<f64> = ords.iter().map(|&o| norm_ord(&a, o).unwrap()).collect();
        close(&got, &floats(&case["norms"]), 1e-9, "norms");
        let (q, rr) = qr(&a).unwrap();
        close(
            &(&q % &rr).to_vec(),
            &a.to_vec(),
            1e-9,
            "rectangular Q R = A",
        );
        let (u, s, vh) = svd(&a, false).unwrap();
        close(
            &(&scale_cols(&u, &s) % &vh).to_vec(),
            &a.to_vec(),
            1e-9,
            "rectangular U S Vh = A",
        );
    }
}

#[test]
fn full_rank_lstsq_has_residuals_and_vector_rhs() {
    let a = mat(&[4, 2], vec![1.0, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0]);
    let y = mat(&[4], vec![1.0, 2.0, 2.0, 4.0]);
    let r = lstsq(&a, &y, None).unwrap();
    // NumPy: x = [0.9, 0.9], residuals = [0.7]
    close(&r.solution.to_vec(), &[0.9, 0.9], 1e-12, "x");
    close(&r.residuals.to_vec(), &[0.7], 1e-12, "residuals");
    assert!(lstsq(&a, &mat(&[3], vec![1.0; 3]), None).is_err());
}

#[test]
fn f32_reconstruction() {
    let a = Tensor::from_shape_fn(vec![3, 5, 5], |i| {
        ((i[0] * 7 + i[1] * 3 + i[2] * 5) % 11) as f32 - 5.0 + if i[1] == i[2] { 10.0 } else { 0.0 }
    });
    let b = Tensor::from_shape_fn(vec![5], |i| i[0] as f32 - 2.0);
    let x = solve(&a, &b).unwrap();
    assert_eq!(x.shape(), &[3, 5]);
    let back = &a % x.unsqueeze(-1).unwrap();
    for t in 0..3 {
        let col = back.slice(s![t, .., 0]).to_vec();
        assert!(
            col.iter()
                .zip(b.to_vec())
                .all(|(p, q)| (p - q).abs() < 1e-3),
            "{col:?}"
        );
    }
    let ai = inv(&a).unwrap();
    let eye = (&a % &ai).to_vec();
    for (i, v) in eye.iter().enumerate() {
        let want = if (i % 25) / 5 == i % 5 { 1.0 } else { 0.0 };
        assert!((v - want).abs() < 1e-3);
    }
}

#[test]
fn batched_solve_broadcasts_and_errors_name_shapes() {
    let a = Tensor::from_shape_fn(vec![2, 1, 3, 3], |i| {
        if i[2] == i[3] { 2.0 + i[0] as f64 } else { 0.5 }
    });
    let b = Tensor::from_shape_fn(vec![4, 3, 2], |i| (i[0] + i[1] + i[2]) as f64);
    let x = solve(&a, &b).unwrap();
    assert_eq!(x.shape(), &[2, 4, 3, 2]);
    let back = &a % &x;
    close(
        &back.to_vec(),
        &b.broadcast_to(vec![2, 4, 3, 2]).unwrap().to_vec(),
        1e-12,
        "batched A x = b",
    );
    let e = solve(&a, &Tensor::<f64, _>::ones(vec![4, 2, 2]))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("solve:") && e.contains("(2, 1, 3, 3)") && e.contains("(4, 2, 2)"),
        "{e}"
    );
}

#[test]
fn singular_and_non_square_inputs_are_errors() {
    let sing = mat(&[3, 3], vec![1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 0.0, 1.0]);
    let rhs = mat(&[3], vec![1.0, 2.0, 3.0]);
    assert!(
        solve(&sing, &rhs)
            .unwrap_err()
            .to_string()
            .contains("singular")
    );
    assert!(
        inv(&sing)
            .unwrap_err()
            .to_string()
            .starts_with("inv: singular")
    );
    assert_eq!(
        det(&mat(&[2, 2], vec![1.0, 2.0, 2.0, 4.0]))
            .unwrap()
            .to_scalar()
            .unwrap(),
        0.0
    );
    let (s, l) = slogdet(&mat(&[2, 2], vec![0.0; 4])).unwrap();
    assert_eq!(
        (s.to_scalar().unwrap(), l.to_scalar().unwrap()),
        (0.0, f64::NEG_INFINITY)
    );
    let rect = Tensor::<f64, _>::ones(vec![2, 3]);
    for e in [
        inv(&rect).unwrap_err(),
        det(&rect).unwrap_err(),
        cholesky(&rect, false).unwrap_err(),
        eigh(&rect, Uplo::Lower).unwrap_err(),
    ] {
        assert!(
            e.to_string().contains("(2, 3)") && e.to_string().contains("square"),
            "{e}"
        );
    }
    assert!(solve(&rect, &rhs).is_err());
    let vec1 = Tensor::<f64, _>::ones(vec![3]);
    assert!(
        inv(&vec1)
            .unwrap_err()
            .to_string()
            .contains("two-dimensional")
    );
    let not_pd = mat(&[2, 2], vec![1.0, 3.0, 3.0, 1.0]);
    assert!(
        cholesky(&not_pd, false)
            .unwrap_err()
            .to_string()
            .contains("positive definite")
    );
    let nan = mat(&[2, 2], vec![f64::NAN, 1.0, 1.0, 1.0]);
    assert!(
        solve(&nan, &mat(&[2], vec![1.0, 1.0])).is_err(),
        "NaN never passes silently"
    );
    assert_eq!(norm(&mat(&[2, 2], vec![1.0, 2.0, 2.0, 4.0])), 5.0);
}

#[test]
fn empty_matrices() {
    let e = Tensor::<f64, _>::zeros(vec![0, 0]);
    assert_eq!(det(&e).unwrap().to_scalar().unwrap(), 1.0);
    assert_eq!(inv(&e).unwrap().shape(), &[0, 0]);
    let batch = Tensor::<f64, _>::zeros(vec![0, 3, 3]);
    assert_eq!(inv(&batch).unwrap().shape(), &[0, 3, 3]);
    assert_eq!(det(&batch).unwrap().shape(), &[0]);
}
