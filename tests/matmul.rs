//! matmul / `%` against NumPy golden cases (shapes, values, broadcast batches, 1-D
//! promotion, zero sizes, every error case) on contiguous, transposed, flipped, stepped
//! and stride-0 broadcast operands, for f32, f64, i32 and i64.

use crate::linalg_common;

use ferrotensor::prelude::*;
use linalg_common::*;

fn run_cases<T: Num>(dtype: &str, tol: f64) -> usize {
    let g = golden();
    let mut n = 0;
    for case in cases(&g, "matmul", dtype) {
        let kind = case["kind"].as_str().unwrap();
        let (ta, tb) = (
            base::<T>(&case["a"], 0, kind),
            base::<T>(&case["b"], 1, kind),
        );
        let (a, b) = (view_of(&ta, &case["a"]), view_of(&tb, &case["b"]));
        let r = a.matmul(&b);
        if case.get("error").is_some() {
            let Err(e) = r else {
                panic!("{case} should fail")
            };
            let msg = e.to_string();
            assert!(msg.starts_with("matmul:"), "{msg}");
            assert!(
                msg.contains(&ferrotensor::error::fmt_shape(a.shape())),
                "{msg}"
            );
            assert!(
                msg.contains(&ferrotensor::error::fmt_shape(b.shape())),
                "{msg}"
            );
        } else {
            check(case, &r.unwrap(), tol);
        }
        n += 1;
    }
    n
}

#[test]
fn golden_f64() {
    assert!(run_cases::<f64>("f64", 1e-12) >= 37);
}
#[test]
fn golden_f32() {
    assert!(run_cases::<f32>("f32", 1e-5) >= 37);
}
#[test]
fn golden_i32_wraps() {
    assert!(run_cases::<i32>("i32", 0.0) >= 39);
}
#[test]
fn golden_i64() {
    assert!(run_cases::<i64>("i64", 0.0) >= 39);
}

#[test]
fn golden_random_floats() {
    let g = golden();
    for case in g["matmul_random"].as_array().unwrap() {
        let data = |k: &str| -> Vec<f64> {
            case[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        let (sa, sb) = (usizes(&case["a_shape"]), usizes(&case["b_shape"]));
        if case["dtype"] == "f32" {
            let a = Tensor::from_vec(data("a").iter().map(|&x| x as f32).collect(), sa).unwrap();
            let b = Tensor::from_vec(data("b").iter().map(|&x| x as f32).collect(), sb).unwrap();
            check(case, &(&a % &b), 1e-5);
        } else {
            let a = Tensor::from_vec(data("a"), sa).unwrap();
            let b = Tensor::from_vec(data("b"), sb).unwrap();
            check(case, &(&a % &b), 1e-12);
        }
    }
}

/// Naive reference for one 2-D product, in f64.
fn reference(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

#[test]
fn large_and_strided_match_reference() {
    // Sizes past the small path and the blocking sizes, through every kernel.
    let (m, k, n) = (131, 300, 77);
    let a = Tensor::from_shape_fn(vec![m, k], |i| ((i[0] * 3 + i[1] * 5) % 13) as f64 - 6.0);
    let b = Tensor::from_shape_fn(vec![k, n], |i| ((i[0] * 7 + i[1] * 2) % 11) as f64 - 5.0);
    let want = reference(&a.to_vec(), &b.to_vec(), m, k, n);
    assert_eq!((&a % &b).to_vec(), want);
    // a.t().t() style: transposed copies viewed back, flipped twice.
    let at = a.t().to_owned();
    assert_eq!((at.t() % &b).to_vec(), want);
    let af = a.flip(0).unwrap().to_owned();
    assert_eq!((af.flip(0).unwrap() % b.view()).to_vec(), want);
    let ai = a.mapv_ref_i64();
    let bi = b.mapv_ref_i64();
    let got: Vec<f64> = (&ai % &bi).iter().map(|&x| x as f64).collect();
    assert_eq!(got, want);
    let a32 = Tensor::from_vec(a.iter().map(|&x| x as f32).collect(), vec![m, k]).unwrap();
    let b32 = Tensor::from_vec(b.iter().map(|&x| x as f32).collect(), vec![k, n]).unwrap();
    let got: Vec<f64> = (a32.t().to_owned().t() % &b32)
        .iter()
        .map(|&x| x as f64)
        .collect();
    assert_eq!(got, want);
}

trait ToI64 {
    fn mapv_ref_i64(&self) -> Tensor<i64>;
}
impl ToI64 for Tensor<f64> {
    fn mapv_ref_i64(&self) -> Tensor<i64> {
        Tensor::from_vec(
            self.iter().map(|&x| x as i64).collect(),
            self.shape().to_vec(),
        )
        .unwrap()
    }
}

#[test]
fn half_complex_and_bf16() {
    use half::{bf16, f16};
    use num_complex::Complex;
    let (m, k, n) = (20, 33, 18);
    let fa = |i: &[usize]| ((i[0] + 2 * i[1]) % 5) as f64 - 2.0;
    let fb = |i: &[usize]| ((3 * i[0] + i[1]) % 4) as f64 - 1.0;
    let a = Tensor::from_shape_fn(vec![m, k], fa);
    let b = Tensor::from_shape_fn(vec![k, n], fb);
    let want = reference(&a.to_vec(), &b.to_vec(), m, k, n);
    let ah = Tensor::from_shape_fn(vec![m, k], |i| f16::from_f64(fa(i)));
    let bh = Tensor::from_shape_fn(vec![k, n], |i| f16::from_f64(fb(i)));
    assert_eq!(
        (&ah % &bh).iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
        want
    );
    let ab = Tensor::from_shape_fn(vec![m, k], |i| bf16::from_f64(fa(i)));
    let bb = Tensor::from_shape_fn(vec![k, n], |i| bf16::from_f64(fb(i)));
    assert_eq!(
        (ab.view() % bb.t().to_owned().t())
            .iter()
            .map(|x| x.to_f64())
            .collect::<Vec<_>>(),
        want
    );
    let ac = Tensor::from_shape_fn(vec![m, k], |i| Complex::new(fa(i), 1.0));
    let bc = Tensor::from_shape_fn(vec![k, n], |i| Complex::new(fb(i), -1.0));
    let got = &ac % &bc;
    for i in 0..m {
        for j in 0..n {
            let mut s = Complex::new(0.0, 0.0);
            for p in 0..k {
                s += ac[&[i, p][..]] * bc[&[p, j][..]];
            }
            assert_eq!(got[&[i, j][..]], s);
        }
    }
}

#[test]
fn operators_on_every_ownership_kind() {
    let a = Tensor::from_vec(vec![1i32, 2, 3, 4], [2, 2]).unwrap();
    let b = Tensor::from_vec(vec![5i32, 6, 7, 8], vec![2, 2]).unwrap();
    let want = vec![19, 22, 43, 50];
    let sa = a.clone().into_shared();
    assert_eq!((&a % &b).to_vec(), want);
    assert_eq!((a.view() % &b).to_vec(), want);
    assert_eq!((&a.view() % b.view()).to_vec(), want);
    assert_eq!((&sa % &b).to_vec(), want);
    assert_eq!((sa.clone() % b.view()).to_vec(), want);
    assert_eq!((a.view() % b.clone().into_shared()).to_vec(), want);
    assert_eq!((a.clone() % b.clone()).to_vec(), want);
    assert_eq!((&a % b.clone().into_shared()).to_vec(), want);
}

#[test]
#[should_panic(expected = "matmul: shapes (2, 2) and (3,) are not aligned: 2 != 3")]
fn operator_panics_with_message() {
    let a = Tensor::<f32, _>::ones([2, 2]);
    let b = Tensor::<f32, _>::ones([3]);
    let _ = &a % &b;
}

#[test]
fn batched_parallel_and_folded_paths() {
    // Many small matrices (parallel over the batch), a broadcast right operand (folded
    // into one tall product) and a stride-0 left batch.
    let a = Tensor::from_shape_fn(vec![64, 12, 10], |i| {
        ((i[0] + i[1] * 3 + i[2]) % 7) as i64 - 3
    });
    let b = Tensor::from_shape_fn(vec![10, 9], |i| ((i[0] * 2 + i[1]) % 5) as i64 - 2);
    let r = &a % &b;
    let rb = a.matmul(&b.broadcast_to(vec![64, 10, 9]).unwrap()).unwrap();
    assert_eq!(r.to_vec(), rb.to_vec());
    for t in 0..64 {
        let at = a.slice(s![t]).to_owned();
        assert_eq!((&at % &b).to_vec(), r.slice(s![t]).to_vec());
    }
    let a1 = a.slice(s![0..1]).to_owned();
    let r1 = a1
        .broadcast_to(vec![64, 12, 10])
        .unwrap()
        .matmul(&b)
        .unwrap();
    assert_eq!(r1.slice(s![63]).to_vec(), r.slice(s![0]).to_vec());
    let one = ferrotensor::with_num_threads(1, || (&a % &b).to_vec());
    assert_eq!(one, r.to_vec());
}

#[test]
fn shapes_only_cases() {
    let ones = |s: Vec<usize>| Tensor::<f64, _>::ones(s);
    assert_eq!((ones(vec![4]) % ones(vec![5, 4, 6])).shape(), &[5, 6]);
    assert_eq!(
        (ones(vec![7, 1, 2, 3]) % ones(vec![5, 3, 4])).shape(),
        &[7, 5, 2, 4]
    );
    let z = ones(vec![2, 0]) % ones(vec![0, 3]);
    assert_eq!((z.shape(), z.to_vec()), (&[2usize, 3][..], vec![0.0; 6]));
    let e = ones(vec![2, 3, 4])
        .matmul(&ones(vec![3, 4, 5]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("(2, 3, 4)") && e.contains("(3, 4, 5)"), "{e}");
    // A 0-d operand of fixed rank does not compile (no `MatmulDim` for `Ix0`); at
    // dynamic rank it is an error, as in NumPy.
    let s = Tensor::scalar(1.0f64).into_dyn();
    assert!(s.matmul(&ones(vec![3])).is_err());
}

mod random_layouts {
    //! Property test: matmul on random shapes, batch broadcasting and strides
    //! (transposed, flipped, stepped operands) equals a naive reference, for the gemm
    //! crate (f64), the generic kernel (i64) and the small kernel.
    use ferrotensor::prelude::*;
    use proptest::prelude::*;

    /// A view of `t` (shape `[.., r, c]` stored possibly transposed / flipped / stepped).
    fn strided<'a>(
        t: &'a Tensor<i64>,
        transposed: bool,
        flip: bool,
        step: bool,
    ) -> TensorView<'a, i64> {
        let mut v = t.view();
        if transposed {
            v = v.swap_axes(-1, -2).unwrap();
        }
        if flip {
            v = v.flip(-1).unwrap();
        }
        if step {
            let items: Vec<SliceItem> = (0..v.ndim())
                .map(|i| SliceItem::Range {
                    start: None,
                    stop: None,
                    step: if i + 2 == v.ndim() { 2 } else { 1 },
                })
                .collect();
            v = v.slice(items);
        }
        v
    }

    /// Builds the base tensor so that `strided(.., flags)` has logical shape `shape`.
    fn base(shape: &[usize], transposed: bool, step: bool, seed: i64) -> Tensor<i64> {
        let mut s = shape.to_vec();
        let nd = s.len();
        if step {
            s[nd - 2] *= 2;
        }
        if transposed {
            s.swap(nd - 1, nd - 2);
        }
        let n: usize = s.iter().product();
        Tensor::from_vec((0..n as i64).map(|i| (i * 7 + seed) % 9 - 4).collect(), s).unwrap()
    }

    fn reference(a: &TensorView<'_, i64>, b: &TensorView<'_, i64>) -> Vec<i64> {
        let (sa, sb) = (a.shape(), b.shape());
        let (m, k, n) = (sa[sa.len() - 2], sa[sa.len() - 1], sb[sb.len() - 1]);
        // Both operands are 3-D here: the batch length is the larger of the two.
        let batch = &[sa[0].max(sb[0])][..];
        let nb: usize = batch.iter().product();
        let mut out = Vec::new();
        for t in 0..nb {
            let idx = |s: &[usize]| -> Vec<usize> {
                // batch index for an operand whose batch dims are `s` (same rank or 1s).
                let mut rest = t;
                let mut v = vec![0; batch.len()];
                for ax in (0..batch.len()).rev() {
                    v[ax] = rest % batch[ax];
                    rest /= batch[ax];
                }
                v.iter()
                    .zip(s)
                    .map(|(&i, &d)| if d == 1 { 0 } else { i })
                    .collect()
            };
            let (ia, ib) = (idx(&sa[..sa.len() - 2]), idx(&sb[..sb.len() - 2]));
            for i in 0..m {
                for j in 0..n {
                    let mut s = 0i64;
                    for p in 0..k {
                        let mut x = ia.clone();
                        x.extend([i, p]);
                        let mut y = ib.clone();
                        y.extend([p, j]);
                        s += a[&x[..]] * b[&y[..]];
                    }
                    out.push(s);
                }
            }
        }
        out
    }

    trait ToF32 {
        fn mapv_f32(&self) -> Tensor<f32>;
    }
    impl ToF32 for TensorView<'_, i64> {
        fn mapv_f32(&self) -> Tensor<f32> {
            Tensor::from_vec(
                self.iter().map(|&x| x as f32).collect(),
                self.shape().to_vec(),
            )
            .unwrap()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn matmul_matches_reference(
            m in 1usize..30, k in 0usize..30, n in 1usize..30,
            batch in 1usize..4, a_b1 in any::<bool>(), b_b1 in any::<bool>(),
            ta in any::<bool>(), tb in any::<bool>(), fa in any::<bool>(), fb in any::<bool>(),
            sa in any::<bool>(), sb in any::<bool>(),
        ) {
            let ash = [if a_b1 { 1 } else { batch }, m, k];
            let bsh = [if b_b1 { 1 } else { batch }, k, n];
            let (ba, bb) = (base(&ash, ta, sa, 1), base(&bsh, tb, sb, 5));
            let (a, b) = (strided(&ba, ta, fa, sa), strided(&bb, tb, fb, sb));
            prop_assert_eq!(a.shape(), &ash[..]);
            let want = reference(&a, &b);
            prop_assert_eq!(a.matmul(&b).unwrap().to_vec(), want.clone());
            let af = Tensor::from_vec(a.iter().map(|&x| x as f64).collect(), a.shape().to_vec()).unwrap();
            let bf = Tensor::from_vec(b.iter().map(|&x| x as f64).collect(), b.shape().to_vec()).unwrap();
            let got: Vec<i64> = (af.flip(1).unwrap().flip(1).unwrap() % bf.t().t()).iter().map(|&x| x as i64).collect();
            prop_assert_eq!(got, want.clone());
            // Negative row strides with unit column strides (the small f64 kernel's
            // column-major path, and gemm's negative-stride handling).
            let (ar, br) = (af.flip(1).unwrap().to_owned(), bf.flip(1).unwrap().to_owned());
            let got: Vec<i64> = (ar.flip(1).unwrap() % br.flip(1).unwrap()).iter().map(|&x| x as i64).collect();
            prop_assert_eq!(got, want.clone());
            let a32 = Tensor::from_vec(a.iter().map(|&x| x as f32).collect(), a.shape().to_vec()).unwrap();
            let got: Vec<i64> = (&a32 % b.mapv_f32()).iter().map(|&x| x as i64).collect();
            prop_assert_eq!(got, want);
        }
    }
}
