//! The network head (global average pool, then a `Linear` at small batch) and the
//! caller-owned pool output: the contiguous global-mean kernel against a plain f64
//! mean (NaN, strided and flipped inputs, many planes, f32 and f64), and `linear`'s
//! few-rows kernel against its GEMM path (the same rows inside a batch of more than
//! eight).

use ferrotensor::nn::{self, Activation, Linear, MaxPool2dArgs};
use ferrotensor::prelude::*;

/// `ferrotensor::Float`'s conversion (not `num_traits`' fallible one of the same name).
trait ToF64 {
    fn to_f64_(self) -> f64;
}
impl<T: Float> ToF64 for T {
    fn to_f64_(self) -> f64 {
        <T as Float>::to_f64(self)
    }
}

fn fill(shape: [usize; 4], seed: usize) -> Tensor<f64, Ix4> {
    Tensor::from_shape_fn(shape, |i| {
        let v = (i[0] * 131 + i[1] * 31 + i[2] * 7 + i[3] * 3 + seed) % 97;
        v as f64 / 16.0 - 3.0
    })
}

/// The mean of every (n, c) plane, in f64, read element by element.
fn plane_means(x: &Tensor<f64, Ix4>) -> Vec<f64> {
    let [n, c, h, w] = *x.dim();
    let mut out = Vec::new();
    for a in 0..n {
        for b in 0..c {
            let mut s = 0.0;
            for i in 0..h {
                for j in 0..w {
                    s += x[[a, b, i, j]];
                }
            }
            out.push(s / (h * w) as f64);
        }
    }
    out
}

fn check_global<T: Float>(x: &Tensor<f64, Ix4>, tol: f64) {
    let want = plane_means(x);
    let xt: Tensor<T, Ix4> = x.map(|&v| T::from_f64(v));
    let got = nn::global_avg_pool2d(&xt).unwrap();
    let [n, c, _, _] = *x.dim();
    assert_eq!(got.shape(), &[n, c, 1, 1]);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let g = g.to_f64_();
        if w.is_nan() {
            assert!(g.is_nan(), "plane {k}: {g} for NaN");
        } else if w.is_infinite() {
            assert_eq!(g, *w, "plane {k}");
        } else {
            assert!(
                (g - w).abs() <= tol * (1.0 + w.abs()),
                "plane {k}: {g} vs {w} ({:?})",
                x.shape()
            );
        }
    }
    let a = nn::adaptive_avg_pool2d(&xt, [1, 1]).unwrap();
    assert_eq!(
        a.to_vec()
            .iter()
            .map(|v| v.to_f64_().to_bits())
            .collect::<Vec<_>>(),
        got.iter()
            .map(|v| v.to_f64_().to_bits())
            .collect::<Vec<_>>()
    );
}

#[test]
fn global_average_pool_equals_the_plane_means() {
    // ResNet's head (7×7, many planes over several tasks), planes of one element, of
    // exactly one and two vectors, and long odd ones.
    for shape in [
        [8, 512, 7, 7],
        [3, 5, 1, 1],
        [2, 3, 4, 4],
        [1, 2, 4, 8],
        [2, 3, 13, 11],
        [1, 1, 37, 29],
    ] {
        let x = fill(shape, 5);
        check_global::<f32>(&x, 1e-5);
        check_global::<f64>(&x, 1e-12);
    }
    // NaN and infinities stay in their planes.
    let mut x = fill([2, 40, 7, 7], 1);
    x[[1, 3, 6, 6]] = f64::NAN;
    x[[0, 39, 0, 0]] = f64::INFINITY;
    check_global::<f32>(&x, 1e-5);
    check_global::<f64>(&x, 1e-12);
    let g = nn::global_avg_pool2d(&x).unwrap();
    assert!(g[[1, 3, 0, 0]].is_nan() && g[[0, 39, 0, 0]] == f64::INFINITY);
    assert!(g.iter().filter(|v| !v.is_finite()).count() == 2);
    // Strided and flipped views are read as their elements.
    let big = fill([2, 6, 9, 14], 3);
    let v = big.slice(s![.., ..;2, ..;-1, 1..;2]);
    let sh = v.shape();
    let copy = Tensor::from_vec(v.to_vec(), [sh[0], sh[1], sh[2], sh[3]]).unwrap();
    let got = nn::global_avg_pool2d(&v).unwrap();
    for (g, w) in got.iter().zip(plane_means(&copy)) {
        assert!((g - w).abs() < 1e-12);
    }
    // On one thread the same values (no cross-task dependence).
    let x = fill([8, 512, 7, 7], 9).map(|&v| v as f32);
    let two = nn::global_avg_pool2d(&x).unwrap();
    let one = ferrotensor::with_num_threads(1, || nn::global_avg_pool2d(&x).unwrap());
    assert_eq!(one.to_vec(), two.to_vec());
}

fn check_linear_rows<T: Float>(tol: f64) {
    // 1..=8 rows take the dot-product kernel, 12 the GEMM: every row of the 12-row
    // product equals the same row computed alone and within a batch of up to eight.
    for &(o, i) in &[(1000usize, 512usize), (7, 3), (33, 17), (5, 64)] {
        let x = Tensor::<f64, _>::from_shape_fn([12, i], |k| {
            ((k[0] * 13 + k[1] * 7) % 23) as f64 / 8.0 - 1.4
        })
        .map(|&v| T::from_f64(v));
        let w = Tensor::<f64, _>::from_shape_fn([o, i], |k| {
            ((k[0] * 5 + k[1] * 11) % 19) as f64 / 16.0 - 0.6
        })
        .map(|&v| T::from_f64(v));
        let b =
            Tensor::<f64, _>::from_shape_fn([o], |k| k[0] as f64 / 10.0).map(|&v| T::from_f64(v));
        let fc = Linear::new(&w, Some(&b))
            .unwrap()
            .with_activation(Activation::Relu);
        let all = fc.forward(&x).unwrap();
        let plain = nn::relu(&nn::linear(&x, &w, Some(&b)).unwrap());
        for m in 1..=8 {
            let part = x.slice(s![..m, ..]);
            let got = fc.forward(&part).unwrap();
            let got_plain = nn::relu(&nn::linear(&part, &w, Some(&b)).unwrap());
            assert_eq!(got.shape(), &[m, o]);
            for r in 0..m {
                for j in 0..o {
                    let (g, p, e) = (
                        got[[r, j]].to_f64_(),
                        got_plain[[r, j]].to_f64_(),
                        all[[r, j]].to_f64_(),
                    );
                    let lim = tol * (1.0 + e.abs()) * (i as f64).sqrt();
                    assert!(
                        (g - e).abs() <= lim && (p - plain[[r, j]].to_f64_()).abs() <= lim,
                        "o={o} i={i} m={m} ({r}, {j}): {g} {p} vs {e}"
                    );
                }
            }
        }
    }
}

#[test]
fn linear_with_few_rows_equals_its_gemm_path() {
    check_linear_rows::<f32>(2e-6);
    check_linear_rows::<f64>(1e-14);
    check_linear_rows::<half::bf16>(2e-2);
    // A transposed (not row-major) weight keeps the GEMM path; a NaN input row gives a
    // NaN row only.
    let w = Tensor::<f32, _>::from_shape_fn([6, 10], |k| (k[0] + 2 * k[1]) as f32 / 7.0);
    let mut x = Tensor::<f32, _>::from_shape_fn([3, 6], |k| (k[0] * 6 + k[1]) as f32 / 5.0);
    let y = nn::linear(&x, &w.t(), None).unwrap();
    let yc = nn::linear(&x, &w.t().to_owned(), None).unwrap();
    for (a, b) in y.iter().zip(yc.iter()) {
        assert!((a - b).abs() < 1e-4);
    }
    x[[1, 2]] = f32::NAN;
    let y = nn::linear(&x, &w.t().to_owned(), None).unwrap();
    assert!(y.slice(s![1, ..]).iter().all(|v| v.is_nan()));
    assert!(
        y.slice(s![0, ..])
            .iter()
            .chain(y.slice(s![2, ..]).iter())
            .all(|v| v.is_finite())
    );
}

#[test]
fn max_pool_into_reuses_one_output_and_matches() {
    let x = fill([2, 4, 15, 15], 2).map(|&v| v as f32);
    let args = MaxPool2dArgs {
        stride: [2, 2],
        padding: [1, 1],
        ..MaxPool2dArgs::new([3, 3])
    };
    let want = nn::max_pool2d_with(&x, &args).unwrap();
    let mut out = Tensor::<f32, _>::full([2, 4, 8, 8], f32::NAN);
    let p = out.as_ptr();
    for _ in 0..3 {
        nn::max_pool2d_into(&x, &args, &mut out).unwrap();
        assert_eq!(out.to_vec(), want.to_vec());
    }
    assert_eq!(out.as_ptr(), p, "written in place");
    let e = nn::max_pool2d_into(&x, &args, &mut Tensor::<f32, _>::zeros([2, 4, 7, 7])).unwrap_err();
    assert!(e.to_string().contains("(2, 4, 8, 8)"), "{e}");
}
