//! The linear algebra of the breadth issue against NumPy and SciPy
//! (tests/golden/linalg_more/gen_linalg_more.py): lu/lu_factor/lu_solve/solve_triangular,
//! eig/eigvals/eigvalsh/eigh, svd/svdvals, cholesky (lower and upper), qr, det/slogdet,
//! inv/solve, lstsq/pinv/matrix_rank, matrix_power, multi_dot, cond, matrix_norm,
//! vector_norm, norm, and the array API's vecdot/cross/diagonal/trace/matrix_transpose/
//! outer; f32, f64, Complex<f32> and Complex<f64>, batched, strided, flipped, broadcast,
//! empty and NaN inputs. Unique results are compared with NumPy's values; eigenvalues
//! as multisets; eigenvectors and QR/SVD factors by reconstruction.

mod breadth_common;

use breadth_common::*;
use ferrotensor::linalg::{self, LinalgNormOrd, LinalgScalar, PowerElement, Trans, Uplo};
use ferrotensor::manip::AsDynView;
use ferrotensor::prelude::*;
use num_complex::Complex;
use serde_json::Value;

/// Relative tolerance for a precision (scaled by the largest value of the result).
fn tol<T: Golden>() -> f64 {
    if T::EPS > 1e-10 { 3e-4 } else { 1e-9 }
}

/// `want` with its dtype dropped (index types differ: SciPy's int32 pivots, our usize).
fn untyped(want: &Value) -> Value {
    let mut w = want.clone();
    if let Some(o) = w.as_object_mut() {
        o.remove("dtype");
    }
    w
}

fn results(want: &Value) -> &Vec<Value> {
    want["results"].as_array().expect("results")
}

/// Conjugate transpose of the last two axes.
fn adjoint<T: LinalgScalar>(t: &Tensor<T>) -> Tensor<T> {
    t.swap_axes(-1, -2).unwrap().mapv(|x| x.conj())
}

/// Asserts `got ≈ want` element-wise within `tol` of the larger's scale.
fn close<T: Golden>(got: &Tensor<T>, want: &Tensor<T>, tol: f64, ctx: &str) {
    assert_eq!(got.shape(), want.shape(), "{ctx}: shape");
    let scale = want
        .iter()
        .map(|x| x.pair())
        .flat_map(|(a, b)| [a.abs(), b.abs()])
        .fold(1.0, f64::max);
    for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
        let ((gr, gi), (wr, wi)) = (g.pair(), w.pair());
        assert!(
            (gr - wr).abs() <= tol * scale && (gi - wi).abs() <= tol * scale,
            "{ctx}: [{i}] got ({gr}, {gi}), want ({wr}, {wi})"
        );
    }
}

/// Matches `got` to `want` as multisets of complex numbers.
fn same_multiset(got: &[(f64, f64)], want: &[(f64, f64)], tol: f64, ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}: count");
    let scale = want
        .iter()
        .flat_map(|&(a, b)| [a.abs(), b.abs()])
        .fold(1.0, f64::max);
    let mut used = vec![false; got.len()];
    for &(wr, wi) in want {
        let best = (0..got.len())
            .filter(|&k| !used[k])
            .min_by(|&a, &b| {
                let d = |k: usize| (got[k].0 - wr).hypot(got[k].1 - wi);
                d(a).partial_cmp(&d(b)).unwrap()
            })
            .expect("an unmatched value");
        let d = (got[best].0 - wr).hypot(got[best].1 - wi);
        assert!(
            d <= tol * scale,
            "{ctx}: no value near ({wr}, {wi}); closest ({}, {})",
            got[best].0,
            got[best].1
        );
        used[best] = true;
    }
}

/// The Hermitian matrix an `eigh`/`eigvalsh` call sees: the `uplo` triangle mirrored.
fn hermitian_of<T: LinalgScalar>(a: &Tensor<T>, upper: bool) -> Tensor<T> {
    let n = a.shape()[a.ndim() - 1];
    let shape = a.shape().to_vec();
    let v = a.to_vec();
    let mut out = v.clone();
    for (blk, o) in v.chunks(n * n).zip(out.chunks_mut(n * n)) {
        for i in 0..n {
            for j in 0..n {
                let read = if upper { i <= j } else { i >= j };
                o[i * n + j] = if read {
                    blk[i * n + j]
                } else {
                    blk[j * n + i].conj()
                };
            }
        }
    }
    Tensor::from_vec(out, shape).unwrap()
}

fn cmp_eigen<T>(a: &Tensor<T>, w: &Tensor<T::Cx>, v: &Tensor<T::Cx>, tol: f64, ctx: &str)
where
    T: LinalgScalar,
    T::Cx: Golden,
{
    // a·v = v·diag(w), with a as complex; and unit columns.
    let ac = a.mapv(|x| <T as LinalgScalar>::cx(x.to_complex()));
    let n = w.shape()[w.ndim() - 1];
    let lhs = ac.matmul(v).unwrap();
    let wv = w.to_vec();
    let vv = v.to_vec();
    let rhs: Vec<T::Cx> = vv
        .iter()
        .enumerate()
        .map(|(i, &x)| x * wv[(i / (n * n)) * n + i % n])
        .collect();
    let rhs = Tensor::from_vec(rhs, v.shape().to_vec()).unwrap();
    close(&lhs, &rhs, tol * 10.0, &format!("{ctx}: a·v = v·w"));
    for blk in vv.chunks(n * n) {
        for j in 0..n {
            let norm: f64 = (0..n)
                .map(|i| blk[i * n + j].modulus().to_f64().powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                (norm - 1.0).abs() < tol * 10.0,
                "{ctx}: column {j} has norm {norm}"
            );
        }
    }
}

fn ord_of(v: &Value) -> Option<LinalgNormOrd> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(match s.as_str() {
            "fro" => LinalgNormOrd::Fro,
            "nuc" => LinalgNormOrd::Nuc,
            "inf" => LinalgNormOrd::Inf,
            "-inf" => LinalgNormOrd::NegInf,
            o => panic!("ord {o}"),
        }),
        _ => Some(LinalgNormOrd::P(v.as_f64().unwrap())),
    }
}

fn trans_of(v: &Value) -> Trans {
    match v.as_u64().unwrap() {
        0 => Trans::N,
        1 => Trans::T,
        _ => Trans::C,
    }
}

fn run<T>(case: &Value, name: &str, ctx: &str)
where
    T: LinalgScalar + Golden + PowerElement,
    T::Real: Golden,
    T::Cx: Golden + LinalgScalar,
{
    let b = bases::<T>(case);
    let v = views(&b, case);
    let (args, want) = (&case["args"], &case["want"]);
    let t = tol::<T>();
    let failed = want.get("error").is_some();
    let owned = |i: usize| v[i].to_owned();
    match name {
        "lu" => match linalg::lu(&v[0]) {
            Ok((p, l, u)) => {
                assert!(!failed, "{ctx}: NumPy raised");
                close(
                    &p.matmul(&l).unwrap().matmul(&u).unwrap(),
                    &owned(0),
                    t,
                    &format!("{ctx}: P·L·U"),
                );
                if !T::IS_COMPLEX {
                    let w = results(want);
                    check(&p, &w[0], t, 1.0, &format!("{ctx}: P"));
                    check(&l, &w[1], t, 1.0, &format!("{ctx}: L"));
                    check(&u, &w[2], t, 1.0, &format!("{ctx}: U"));
                }
            }
            Err(e) => assert!(failed, "{ctx}: {e}"),
        },
        "lu_factor" => match linalg::lu_factor(&v[0]) {
            Ok((lu, piv)) => {
                let w = results(want);
                if !T::IS_COMPLEX {
                    check(&lu, &w[0], t, 1.0, &format!("{ctx}: lu"));
                    check(&piv, &untyped(&w[1]), 0.0, 0.0, &format!("{ctx}: piv"));
                }
                // The factors solve the system whatever the pivot choice.
                let n = v[0].shape()[v[0].ndim() - 1];
                if v[0].shape()[v[0].ndim() - 2] == n {
                    let rhs = Tensor::<T, _>::ones(vec![n, 1]);
                    let x = linalg::lu_solve(&lu, &piv, &rhs, Trans::N).unwrap();
                    let back = v[0].matmul(&x).unwrap();
                    let ones = Tensor::<T, _>::ones(back.shape().to_vec());
                    close(&back, &ones, t * 10.0, &format!("{ctx}: a·lu_solve(1)"));
                }
            }
            Err(e) => panic!("{ctx}: {e}"),
        },
        "lu_solve" => {
            let (lu, piv) = linalg::lu_factor(&v[0]).unwrap();
            expect(
                linalg::lu_solve(&lu, &piv, &v[1], trans_of(&args["trans"])),
                want,
                name,
                t,
                1.0,
                ctx,
            );
        }
        "solve_triangular" => {
            let r = linalg::solve_triangular(
                &v[0],
                &v[1],
                trans_of(&args["trans"]),
                args["lower"].as_bool().unwrap(),
                args["unit"].as_bool().unwrap(),
            );
            expect(r, want, name, t, 1.0, ctx);
        }
        "eig" => match linalg::eig(&v[0]) {
            Ok((w, vecs)) => {
                let r = results(want);
                let got: Vec<(f64, f64)> = w.iter().map(|x| x.pair()).collect();
                let exp: Vec<(f64, f64)> =
                    r[0]["data"].as_array().unwrap().iter().map(pair).collect();
                // Per matrix of the batch.
                let n = v[0].shape()[v[0].ndim() - 1].max(1);
                for (k, (g, e)) in got.chunks(n).zip(exp.chunks(n)).enumerate() {
                    same_multiset(g, e, t * 10.0, &format!("{ctx}: eigenvalues of matrix {k}"));
                }
                cmp_eigen::<T>(&owned(0), &w, &vecs, t, ctx);
            }
            Err(e) => {
                assert!(failed, "{ctx}: {e}");
                assert!(e.to_string().starts_with("eig"), "{e}");
            }
        },
        "eigvals" => match linalg::eigvals(&v[0]) {
            Ok(w) => {
                let got: Vec<(f64, f64)> = w.iter().map(|x| x.pair()).collect();
                let exp: Vec<(f64, f64)> =
                    want["data"].as_array().unwrap().iter().map(pair).collect();
                let n = v[0].shape()[v[0].ndim() - 1].max(1);
                for (g, e) in got.chunks(n).zip(exp.chunks(n)) {
                    same_multiset(g, e, t * 10.0, ctx);
                }
            }
            Err(e) => assert!(failed, "{ctx}: {e}"),
        },
        "eigvalsh" | "eigh" => {
            let upper = args["uplo"].as_str().unwrap() == "U";
            let uplo = if upper { Uplo::Upper } else { Uplo::Lower };
            if name == "eigvalsh" {
                expect(linalg::eigvalsh(&v[0], uplo), want, name, t, 1.0, ctx);
            } else {
                match linalg::eigh(&v[0], uplo) {
                    Ok((w, vecs)) => {
                        let r = results(want);
                        check(&w, &r[0], t, 1.0, &format!("{ctx}: w"));
                        let h = hermitian_of(&owned(0), upper);
                        if h.iter().all(|x| x.all_finite()) {
                            let wd = w.to_vec();
                            let n = wd.len() / (h.size() / h.shape()[h.ndim() - 1].pow(2)).max(1);
                            let scaled: Vec<T> = vecs
                                .to_vec()
                                .iter()
                                .enumerate()
                                .map(|(i, &x)| x * T::from_real(wd[(i / (n * n)) * n + i % n]))
                                .collect();
                            let scaled = Tensor::from_vec(scaled, vecs.shape().to_vec()).unwrap();
                            let back = scaled.matmul(&adjoint(&vecs)).unwrap();
                            close(&back, &h, t * 10.0, &format!("{ctx}: V·diag(w)·Vᴴ"));
                        }
                    }
                    Err(e) => assert!(failed, "{ctx}: {e}"),
                }
            }
        }
        "svdvals" => expect(linalg::svdvals(&v[0]), want, name, t, 1.0, ctx),
        "svd" => match linalg::svd(&v[0], args["full"].as_bool().unwrap()) {
            Ok((u, s, vh)) => {
                let r = results(want);
                check(&s, &r[1], t, 1.0, &format!("{ctx}: s"));
                assert_eq!(u.shape(), &usizes(&r[0]["shape"])[..], "{ctx}: U shape");
                assert_eq!(vh.shape(), &usizes(&r[2]["shape"])[..], "{ctx}: Vh shape");
                let k = s.shape()[s.ndim() - 1];
                let (m, n) = (v[0].shape()[v[0].ndim() - 2], v[0].shape()[v[0].ndim() - 1]);
                let uk = u.slice(s![Ellipsis, ..k]).to_owned();
                let vk = vh.slice(s![Ellipsis, ..k, ..]).to_owned();
                let sv = s.to_vec();
                let us: Vec<T> = uk
                    .to_vec()
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| x * T::from_real(sv[(i / (m * k)) * k + i % k]))
                    .collect();
                let us = Tensor::from_vec(us, uk.shape().to_vec()).unwrap();
                let back = us.matmul(&vk).unwrap();
                assert_eq!(back.shape()[back.ndim() - 1], n);
                close(&back, &owned(0), t * 10.0, &format!("{ctx}: U·S·Vh"));
            }
            Err(e) => assert!(failed, "{ctx}: {e}"),
        },
        "cholesky" => {
            let upper = args["upper"].as_bool().unwrap();
            expect(linalg::cholesky(&v[0], upper), want, name, t, 1.0, ctx);
        }
        "qr" => match linalg::qr(&v[0]) {
            Ok((q, r)) => {
                let w = results(want);
                assert_eq!(q.shape(), &usizes(&w[0]["shape"])[..], "{ctx}: Q shape");
                close(
                    &q.matmul(&r).unwrap(),
                    &owned(0),
                    t * 10.0,
                    &format!("{ctx}: Q·R"),
                );
                let qhq = adjoint(&q).matmul(&q).unwrap();
                let k = q.shape()[q.ndim() - 1];
                let eye = Tensor::<T, _>::eye(k)
                    .broadcast_to(qhq.shape().to_vec())
                    .unwrap()
                    .to_owned();
                close(&qhq, &eye, t * 10.0, &format!("{ctx}: QᴴQ"));
                // |R| is unique: compare moduli with NumPy's.
                let rm = r.mapv(|x| T::from_real(x.modulus()));
                let want_r: Vec<f64> = w[1]["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| {
                        let (a, b) = pair(x);
                        a.hypot(b)
                    })
                    .collect();
                let want_r = Tensor::from_vec(
                    want_r.into_iter().map(|x| T::make(x, 0.0)).collect(),
                    r.shape().to_vec(),
                )
                .unwrap();
                close(&rm, &want_r, t * 10.0, &format!("{ctx}: |R|"));
            }
            Err(e) => panic!("{ctx}: {e}"),
        },
        "det" => expect(linalg::det(&v[0]), want, name, t, 1.0, ctx),
        "slogdet" => match linalg::slogdet(&v[0]) {
            Ok((sign, logabs)) => {
                let w = results(want);
                check(&sign, &w[0], t, 1.0, &format!("{ctx}: sign"));
                check(&logabs, &w[1], t, 1.0, &format!("{ctx}: logabsdet"));
            }
            Err(e) => panic!("{ctx}: {e}"),
        },
        "inv" => expect(linalg::inv(&v[0]), want, name, t, 1.0, ctx),
        "solve" => expect(linalg::solve(&v[0], &v[1]), want, name, t, 1.0, ctx),
        "lstsq" => {
            let r = linalg::lstsq(&v[0], &v[1], None).unwrap();
            let w = results(want);
            check(&r.solution, &w[0], t, 1.0, &format!("{ctx}: x"));
            check(&r.residuals, &w[1], t, 1.0, &format!("{ctx}: residuals"));
            assert_eq!(r.rank as f64, num(&w[2]["data"][0]), "{ctx}: rank");
            check(&r.singular_values, &w[3], t, 1.0, &format!("{ctx}: s"));
        }
        "pinv" => expect(linalg::pinv(&v[0], None), want, name, t, 1.0, ctx),
        "matrix_rank" => expect(
            linalg::matrix_rank(&v[0]),
            &untyped(want),
            name,
            0.0,
            0.0,
            ctx,
        ),
        "matrix_power" => expect(
            linalg::matrix_power(&v[0], args["n"].as_i64().unwrap()),
            want,
            name,
            t,
            1.0,
            ctx,
        ),
        "multi_dot" => {
            let refs: Vec<&dyn AsDynView<T>> = v.iter().map(|x| x as _).collect();
            expect(linalg::multi_dot(&refs), want, name, t, 1.0, ctx)
        }
        "cond" => {
            // Rounding decides the size of a singular matrix's condition number: any
            // value beyond 1/(100·eps) (or infinity) matches any other such value.
            let r = linalg::cond(&v[0], ord_of(&args["p"]));
            let (huge, tiny) = (0.01 / T::EPS, 100.0 * T::EPS);
            let want_huge = want.get("data").is_some_and(|d| {
                d.as_array()
                    .unwrap()
                    .iter()
                    .any(|x| num(x) > huge || num(x) < tiny)
            });
            match r {
                Ok(c) if want_huge => {
                    for (g, w) in c
                        .iter()
                        .map(|x| x.pair().0)
                        .zip(want["data"].as_array().unwrap().iter().map(num))
                    {
                        if w > huge {
                            assert!(g > huge, "{ctx}: got {g}, NumPy {w} (ill-conditioned)");
                        } else if w < tiny {
                            assert!(g < tiny, "{ctx}: got {g}, NumPy {w} (ill-conditioned, -2)");
                        } else {
                            assert!(
                                (g - w).abs() <= t * 10.0 * w.abs(),
                                "{ctx}: got {g}, want {w}"
                            );
                        }
                    }
                }
                r => expect(r, want, name, t * 10.0, 0.0, ctx),
            }
        }
        "matrix_norm" => {
            let ord = ord_of(&args["ord"]).unwrap();
            expect(
                linalg::matrix_norm(&v[0], args["keepdims"].as_bool().unwrap(), ord),
                want,
                name,
                t,
                1.0,
                ctx,
            );
        }
        "vector_norm" => {
            let ord = num(&args["ord"]);
            let axes = args.get("axes").filter(|a| !a.is_null()).map(isizes);
            let r = linalg::vector_norm(
                &v[0],
                axes.as_deref(),
                args["keepdims"].as_bool().unwrap(),
                ord,
            );
            expect(r, want, name, t, 1.0, ctx);
        }
        "norm" => check(&Tensor::scalar(linalg::norm(&v[0])), want, t, 1.0, ctx),
        _ => generic(case, name, ctx, &v, t),
    }
}

/// The array API functions, which also take integers.
fn generic<T: Golden + Num>(case: &Value, name: &str, ctx: &str, v: &[TensorView<'_, T>], t: f64) {
    let (args, want) = (&case["args"], &case["want"]);
    let t = if T::EPS == 0.0 { 0.0 } else { t };
    let off = || args["offset"].as_i64().unwrap() as isize;
    match name {
        "vecdot" => expect(
            linalg::vecdot(&v[0], &v[1], args["axis"].as_i64().unwrap() as isize),
            want,
            name,
            t,
            1.0,
            ctx,
        ),
        "cross" => expect(
            linalg::cross(&v[0], &v[1], args["axis"].as_i64().unwrap() as isize),
            want,
            name,
            t,
            1.0,
            ctx,
        ),
        "diagonal" => expect(
            linalg::diagonal(&v[0], off()).map(|d| d.to_owned()),
            want,
            name,
            t,
            1.0,
            ctx,
        ),
        "trace" => expect(linalg::trace(&v[0], off()), want, name, t, 1.0, ctx),
        "matrix_transpose" => expect(
            linalg::matrix_transpose(&v[0]).map(|d| d.to_owned()),
            want,
            name,
            t,
            1.0,
            ctx,
        ),
        "outer" => expect(linalg::outer(&v[0], &v[1]), want, name, t, 1.0, ctx),
        _ => panic!("{ctx}: unknown function"),
    }
}

#[test]
fn linear_algebra_matches_numpy_and_scipy() {
    let cases = load("linalg_more/linalg_more.json");
    assert!(cases.len() > 2500);
    // Every case runs; the failures are listed together at the end.
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["fn"].as_str().unwrap();
        let dt = case["dtype"].as_str().unwrap();
        let inputs = case["inputs"].to_string();
        let inputs = if inputs.len() > 300 {
            format!("{}…", &inputs[..300])
        } else {
            inputs
        };
        let ctx = format!("{name} {dt} args={} inputs={inputs}", case["args"]);
        let outcome = std::panic::catch_unwind(|| match dt {
            "f32" => run::<f32>(case, name, &ctx),
            "f64" => run::<f64>(case, name, &ctx),
            "c64" => run::<Complex<f32>>(case, name, &ctx),
            "c128" => run::<Complex<f64>>(case, name, &ctx),
            "i64" => {
                let b = bases::<i64>(case);
                let v = views(&b, case);
                if name == "matrix_power" {
                    let r = linalg::matrix_power(&v[0], case["args"]["n"].as_i64().unwrap());
                    expect(r, &case["want"], name, 0.0, 0.0, &ctx);
                } else {
                    generic(case, name, &ctx, &v, 0.0);
                }
            }
            _ => panic!("{ctx}: dtype"),
        });
        if let Err(e) = outcome {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| ctx.clone());
            failures.push(msg);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Errors that NumPy's and SciPy's argument checks raise, named by operation and shape.
#[test]
fn bad_shapes_and_arguments_are_named_errors() {
    let v = Tensor::<f64, _>::ones(vec![3]);
    let sq = Tensor::<f64, _>::eye(3).into_dyn();
    let rect = Tensor::<f64, _>::ones(vec![2, 3]);
    let has = |e: ferrotensor::Error, op: &str, what: &str| {
        let s = e.to_string();
        assert!(
            s.starts_with(op) && s.contains(what),
            "{s}: wants {op} … {what}"
        );
    };
    has(linalg::lu(&v).err().unwrap(), "lu", "(3,)");
    has(linalg::lu_factor(&v).err().unwrap(), "lu_factor", "(3,)");
    has(
        linalg::solve_triangular(&rect, &v, Trans::N, true, false)
            .err()
            .unwrap(),
        "solve_triangular",
        "(2, 3)",
    );
    has(
        linalg::solve_triangular(&sq, &Tensor::<f64, _>::ones(vec![4]), Trans::N, true, false)
            .err()
            .unwrap(),
        "solve_triangular",
        "(4,)",
    );
    let (lu, piv) = linalg::lu_factor(&sq).unwrap();
    has(
        linalg::lu_solve(&lu, &Tensor::<usize, _>::zeros(vec![2]), &v, Trans::N)
            .err()
            .unwrap(),
        "lu_solve",
        "(2,)",
    );
    has(
        linalg::lu_solve(
            &lu,
            &Tensor::from_vec(vec![0usize, 7, 2], [3]).unwrap(),
            &v,
            Trans::N,
        )
        .err()
        .unwrap(),
        "lu_solve",
        "7",
    );
    assert_eq!(piv.shape(), &[3]);
    has(
        linalg::matrix_power(&rect, 2).err().unwrap(),
        "matrix_power",
        "(2, 3)",
    );
    has(
        linalg::matrix_power(&v, 2).err().unwrap(),
        "matrix_power",
        "(3,)",
    );
    has(
        linalg::multi_dot(&[&sq]).err().unwrap(),
        "multi_dot",
        "at least two",
    );
    has(
        linalg::multi_dot(&[&sq, &rect, &sq]).err().unwrap(),
        "multi_dot",
        "(2, 3)",
    );
    has(
        linalg::cond(&Tensor::<f64, _>::zeros(vec![0, 0]), None)
            .err()
            .unwrap(),
        "cond",
        "(0, 0)",
    );
    has(
        linalg::cond(&rect, Some(LinalgNormOrd::Fro)).err().unwrap(),
        "cond",
        "(2, 3)",
    );
    has(linalg::eig(&rect).err().unwrap(), "eig", "(2, 3)");
    has(
        linalg::eigvalsh(&rect, Uplo::Upper).err().unwrap(),
        "eigvalsh",
        "(2, 3)",
    );
    has(linalg::svdvals(&v).err().unwrap(), "svdvals", "(3,)");
    has(
        linalg::cholesky(&rect, true).err().unwrap(),
        "cholesky",
        "(2, 3)",
    );
    let singular = Tensor::<Complex<f64>, _>::zeros(vec![2, 2]);
    has(linalg::inv(&singular).err().unwrap(), "inv", "singular");
    has(
        linalg::matrix_power(&singular, -1).err().unwrap(),
        "inv",
        "singular",
    );
}
