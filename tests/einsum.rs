//! einsum (≥ 60 specs) and the dot family (dot, vdot, inner, outer, kron, trace,
//! tensordot) against NumPy golden cases, including error cases and non-contiguous
//! operands.

use crate::linalg_common;

use ferrotensor::linalg::einsum;
use ferrotensor::prelude::*;
use linalg_common::*;

fn einsum_cases<T: Num>(dtype: &str, tol: f64) -> (usize, usize) {
    let g = golden();
    let (mut ok, mut errs) = (0, 0);
    for case in cases(&g, "einsum", dtype) {
        let bases = operands::<T>(case);
        let views = operand_views(&bases, case);
        let spec = case["spec"].as_str().unwrap();
        let r = einsum(spec, &views.iter().map(|t| t as _).collect::<Vec<_>>());
        if case.get("error").is_some() {
            let Err(e) = r else {
                panic!("{spec} {case} should fail")
            };
            assert!(e.to_string().starts_with("einsum:"), "{e}");
            errs += 1;
        } else {
            let r = r.unwrap_or_else(|e| panic!("{spec}: {e}"));
            check(case, &r, tol);
            ok += 1;
        }
    }
    (ok, errs)
}

#[test]
fn einsum_f64_golden() {
    let (ok, errs) = einsum_cases::<f64>("f64", 1e-12);
    assert!(ok >= 70, "{ok} specs");
    assert!(errs >= 7);
}

#[test]
fn einsum_i64_golden() {
    let (ok, _) = einsum_cases::<i64>("i64", 0.0);
    assert!(ok >= 65, "{ok} specs");
}

fn dot_cases<T: Num>(dtype: &str, tol: f64) -> usize {
    let g = golden();
    let mut n = 0;
    for case in cases(&g, "dot", dtype) {
        let bases = operands::<T>(case);
        let v = operand_views(&bases, case);
        let op = case["op"].as_str().unwrap();
        let r: Result<Tensor<T>> = match op {
            "dot" => v[0].dot(&v[1]),
            "vdot" => v[0].vdot(&v[1]).map(|x| Tensor::scalar(x).into_dyn()),
            "inner" => v[0].inner(&v[1]),
            "outer" => v[0].outer(&v[1]).map(|o| o.into_dyn()),
            "kron" => v[0].kron(&v[1]),
            "trace" => v[0].trace(),
            "tensordot0" => v[0].tensordot(&v[1], 0),
            "tensordot1" => v[0].tensordot(&v[1], 1),
            "tensordot2" => v[0].tensordot(&v[1], 2),
            "tensordotx" => v[0].tensordot(&v[1], ([1, 0], [0, 1])),
            _ => panic!("unknown op {op}"),
        };
        if case.get("error").is_some() {
            let Err(e) = r else {
                panic!("{case} should fail")
            };
            let name = if op.starts_with("tensordot") {
                "tensordot"
            } else {
                op
            };
            assert!(e.to_string().starts_with(&format!("{name}:")), "{e}");
        } else {
            check(case, &r.unwrap_or_else(|e| panic!("{case}: {e}")), tol);
        }
        n += 1;
    }
    n
}

#[test]
fn dot_family_golden() {
    assert!(dot_cases::<f64>("f64", 1e-12) >= 34);
    assert!(dot_cases::<i64>("i64", 0.0) >= 34);
    assert!(dot_cases::<f32>("f32", 1e-5) >= 34);
}

#[test]
fn einsum_views_are_not_copied_for_diagonals_and_greedy_order_is_right() {
    // A chain where the greedy order matters for cost but not for the value.
    let a = Tensor::from_shape_fn(vec![30, 2], |i| (i[0] + i[1]) as f64);
    let b = Tensor::from_shape_fn(vec![2, 30], |i| (i[0] * 3 + i[1]) as f64);
    let c = Tensor::from_shape_fn(vec![30, 4], |i| (i[0] as f64) - i[1] as f64);
    let r = einsum("ij,jk,kl->il", &[&a, &b.view(), &c]).unwrap();
    let want = (&(&a % &b) % &c).to_vec();
    assert_eq!(r.to_vec(), want);
    let e = einsum("ij,jk", &[&a, &c]).unwrap_err().to_string();
    assert!(e.contains("einsum"), "{e}");
}

#[test]
fn vdot_conjugates_complex() {
    use num_complex::Complex;
    let a = Tensor::from_vec(vec![Complex::new(1.0, 2.0), Complex::new(0.0, 1.0)], [2]).unwrap();
    let b = Tensor::from_vec(vec![Complex::new(3.0, 0.0), Complex::new(1.0, 1.0)], [2]).unwrap();
    // conj(1+2i)*3 + conj(i)*(1+i) = 3-6i + (1 - i) = 4 - 7i
    assert_eq!(a.vdot(&b).unwrap(), Complex::new(4.0, -7.0));
}
