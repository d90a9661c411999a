//! Softmax, norms, linear, upsampling and activations: stability, identities, errors.

use ferrotensor::nn;
use ferrotensor::prelude::*;
use rand::SeedableRng;

/// `f` of every element (the element-wise `mapv` lands on another branch).
fn mapv<A: Element, B: Element, const N: usize>(
    t: &Tensor<A, [usize; N]>,
    f: impl Fn(A) -> B,
) -> Tensor<B, [usize; N]> {
    Tensor::from_vec(t.iter().map(|&a| f(a)).collect(), *t.dim()).unwrap()
}

#[test]
fn softmax_of_100_101_is_finite_and_exact() {
    let x = Tensor::from_vec(vec![100.0f32, 101.0], [2]).unwrap();
    let y = nn::softmax(&x, 0).unwrap();
    let e = (-1.0f64).exp();
    assert!((y[&[0][..]] as f64 - e / (1.0 + e)).abs() < 1e-7);
    assert!((y[&[1][..]] as f64 - 1.0 / (1.0 + e)).abs() < 1e-7);
    let l = nn::log_softmax(&x, -1).unwrap();
    assert!(l.iter().all(|v| v.is_finite()));
    assert!((l[&[1][..]] as f64 + (1.0 + e).ln()).abs() < 1e-6);
    // Far beyond exp's range too.
    let big = Tensor::from_vec(vec![1e30f32, 0.0, -1e30], [3]).unwrap();
    assert_eq!(nn::softmax(&big, 0).unwrap().to_vec(), vec![1.0, 0.0, 0.0]);
    assert_eq!(nn::log_softmax(&big, 0).unwrap().to_vec()[0], 0.0);
}

#[test]
fn softmax_rows_sum_to_one_on_every_axis_and_layout() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let x = mapv(&Tensor::<f32, _>::randn([7, 33, 1029], &mut rng), |v| {
        v * 20.0
    });
    for axis in [-1isize, 0, 1, 2] {
        for view in [x.view(), x.t()] {
            let y = nn::softmax(&view, axis).unwrap();
            let ax = if axis < 0 { 2 } else { axis as usize };
            let shape = y.shape().to_vec();
            let n = shape[ax];
            // Sum along `ax` for a few positions.
            for base in [[0usize, 0, 0], [3, 5, 7], [6, 32, 1028].map(|v| v % 7)] {
                let mut idx = base.to_vec();
                for (d, i) in idx.iter_mut().enumerate() {
                    *i %= shape[d];
                }
                let s: f64 = (0..n)
                    .map(|k| {
                        let mut j = idx.clone();
                        j[ax] = k;
                        y[&j[..]] as f64
                    })
                    .sum();
                assert!((s - 1.0).abs() < 1e-5, "axis {axis}: sum {s}");
            }
            assert!(y.iter().all(|v| (0.0..=1.0).contains(v)));
        }
    }
}

#[test]
fn softmax_matches_log_softmax_and_f16() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let x = Tensor::<f64, _>::randn([5, 300], &mut rng);
    let s = nn::softmax(&x, 1).unwrap();
    let l = nn::log_softmax(&x, 1).unwrap();
    for (a, b) in s.iter().zip(l.iter()) {
        assert!((a.ln() - b).abs() < 1e-12);
    }
    let h = mapv(&x, half::f16::from_f64);
    let sh = nn::softmax(&h, -1).unwrap();
    for (a, b) in sh.iter().zip(s.iter()) {
        assert!((a.to_f64() - b).abs() < 2e-3);
    }
    let nan = Tensor::from_vec(vec![1.0f32, f32::NAN, 2.0, 1.0, 2.0, 3.0], [2, 3]).unwrap();
    let y = nn::softmax(&nan, 1).unwrap().to_vec();
    assert!(y[..3].iter().all(|v| v.is_nan()) && y[3..].iter().all(|v| v.is_finite()));
}

#[test]
fn axis_errors_name_op_and_shape() {
    let x = Tensor::<f32, _>::zeros([2, 3]);
    let e = nn::softmax(&x, 2).unwrap_err().to_string();
    assert!(e.starts_with("softmax:") && e.contains("(2, 3)"), "{e}");
    assert!(
        nn::log_softmax(&x, -3)
            .unwrap_err()
            .to_string()
            .starts_with("log_softmax:")
    );
    assert!(nn::softmax(&Tensor::<f32, _>::scalar(1.0), 0).is_err());
    assert_eq!(
        nn::softmax(&Tensor::<f32, _>::zeros([0, 3]), 1)
            .unwrap()
            .shape(),
        &[0, 3]
    );
}

#[test]
fn norm_and_linear_errors() {
    let x = Tensor::<f64, _>::zeros([2, 3, 4]);
    let w3 = Tensor::<f64, _>::ones([3]);
    assert!(
        nn::layer_norm(&x, &[3], None, None, 1e-5)
            .unwrap_err()
            .to_string()
            .contains("(2, 3, 4)")
    );
    assert!(
        nn::layer_norm(&x, &[4], Some(&w3), None, 1e-5)
            .unwrap_err()
            .to_string()
            .contains("weight")
    );
    assert!(nn::rms_norm(&x, &[], None, 1e-5).is_err());
    let m = Tensor::<f64, _>::zeros([4]);
    assert!(
        nn::batch_norm(&x, &m, &m, None, None, 1e-5)
            .unwrap_err()
            .to_string()
            .starts_with("batch_norm:")
    );
    assert!(nn::batch_norm(&x, &w3, &w3, None, None, 1e-5).is_ok());
    let w = Tensor::<f64, _>::zeros([5, 3]);
    let e = nn::linear(&x, &w, None).unwrap_err().to_string();
    assert!(e.starts_with("linear:") && e.contains("(5, 3)"), "{e}");
    let b = Tensor::<f64, _>::zeros([4]);
    assert!(nn::linear(&x, &Tensor::<f64, _>::zeros([5, 4]), Some(&b)).is_err());
}

#[test]
fn linear_reads_a_transposed_weight_without_copy_and_matches_sums() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let x = Tensor::<f32, _>::randn([3, 4, 6], &mut rng);
    let wt = Tensor::<f32, _>::randn([6, 5], &mut rng); // weight = wt.t(): (5, 6)
    let b = Tensor::<f32, _>::randn([5], &mut rng);
    let y = nn::linear(&x, &wt.t(), Some(&b)).unwrap();
    assert_eq!(y.shape(), &[3, 4, 5]);
    for (i, j, o) in [(0, 0, 0), (2, 3, 4), (1, 2, 3)] {
        let want: f32 = (0..6).map(|k| x[[i, j, k]] * wt[[k, o]]).sum::<f32>() + b[[o]];
        assert!((y[&[i, j, o][..]] - want).abs() < 1e-4);
    }
}

#[test]
fn upsample_scales_and_errors() {
    let x = Tensor::<f32, _>::from_shape_fn([1, 1, 2, 3], |i| (i[2] * 3 + i[3]) as f32);
    let y = nn::upsample_nearest2d(&x, [4usize, 6]).unwrap();
    assert_eq!(y.to_vec()[..6], [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]);
    let z = nn::upsample_bilinear2d(&x, [2usize, 3], false).unwrap();
    assert_eq!(z.to_vec(), x.to_vec()); // same size: identity
    let a = nn::upsample_bilinear2d(&x, [1.5, 1.5], true).unwrap();
    assert_eq!(a.shape(), &[1, 1, 3, 4]);
    assert_eq!((a[[0, 0, 0, 0]], a[[0, 0, 2, 3]]), (0.0, 5.0)); // corners align
    assert!(
        nn::upsample_nearest2d(&x, [0.0, 2.0])
            .unwrap_err()
            .to_string()
            .starts_with("upsample_nearest2d:")
    );
    assert!(nn::upsample_bilinear2d(&x, [0usize, 2], false).is_err());
    assert!(nn::upsample_nearest2d(&Tensor::<f32, _>::zeros([2, 3]), [2usize, 2]).is_err());
    assert!(nn::adaptive_avg_pool2d(&Tensor::<f32, _>::zeros([2, 3]), [1, 1]).is_err());
}

#[test]
fn activations_match_their_definitions() {
    let v: Vec<f64> = (-80..=80).map(|i| i as f64 / 8.0).collect();
    let x = Tensor::from_vec(v.clone(), [161]).unwrap();
    let xf = mapv(&x, |a| a as f32);
    type Case = (
        &'static str,
        fn(f64) -> f64,
        Tensor<f64, Ix1>,
        Tensor<f32, Ix1>,
    );
    let sig = |a: f64| 1.0 / (1.0 + (-a).exp());
    let cases: Vec<Case> = vec![
        ("relu", |a| a.max(0.0), nn::relu(&x), nn::relu(&xf)),
        (
            "relu6",
            |a| a.clamp(0.0, 6.0),
            nn::relu6(&x),
            nn::relu6(&xf),
        ),
        (
            "leaky",
            |a| if a < 0.0 { 0.01 * a } else { a },
            nn::leaky_relu(&x, 0.01),
            nn::leaky_relu(&xf, 0.01),
        ),
        (
            "elu",
            |a| if a > 0.0 { a } else { 1.5 * a.exp_m1() },
            nn::elu(&x, 1.5),
            nn::elu(&xf, 1.5),
        ),
        (
            "hardsigmoid",
            |a| ((a + 3.0).clamp(0.0, 6.0)) / 6.0,
            nn::hardsigmoid(&x),
            nn::hardsigmoid(&xf),
        ),
        (
            "hardswish",
            |a| a * ((a + 3.0).clamp(0.0, 6.0)) / 6.0,
            nn::hardswish(&x),
            nn::hardswish(&xf),
        ),
        (
            "sigmoid",
            |a| 1.0 / (1.0 + (-a).exp()),
            nn::sigmoid(&x),
            nn::sigmoid(&xf),
        ),
        (
            "silu",
            |a| a / (1.0 + (-a).exp()),
            nn::silu(&x),
            nn::silu(&xf),
        ),
        (
            "gelu",
            |a| 0.5 * a * (1.0 + libm::erf(a / 2f64.sqrt())),
            nn::gelu(&x),
            nn::gelu(&xf),
        ),
        (
            "gelu_tanh",
            |a| {
                0.5 * a
                    * (1.0
                        + ((2.0 / std::f64::consts::PI).sqrt() * (a + 0.044715 * a * a * a)).tanh())
            },
            nn::gelu_tanh(&x),
            nn::gelu_tanh(&xf),
        ),
        ("tanh", f64::tanh, nn::tanh(&x), nn::tanh(&xf)),
    ];
    let _ = sig;
    for (name, f, y, yf) in cases {
        for ((a, g), gf) in v.iter().zip(y.iter()).zip(yf.iter()) {
            let w = f(*a);
            assert!(
                (g - w).abs() <= 1e-14 * (1.0 + w.abs()),
                "{name}({a}) = {g}, want {w}"
            );
            assert!(
                (*gf as f64 - w).abs() <= 1e-6 * (1.0 + w.abs()),
                "{name} f32 ({a}) = {gf}, want {w}"
            );
        }
    }
    assert!(nn::relu(&Tensor::from_vec(vec![f32::NAN], [1]).unwrap())[[0]].is_nan());
    // Any layout; the rank type is kept.
    let m = Tensor::<f32, _>::from_shape_fn([3, 4], |i| i[0] as f32 - i[1] as f32);
    let r: Tensor<f32, Ix2> = nn::relu(&m.t());
    assert_eq!(
        r.to_vec(),
        m.t()
            .to_vec()
            .iter()
            .map(|v| v.max(0.0))
            .collect::<Vec<_>>()
    );
    // Large input runs in parallel chunks.
    let big = Tensor::<f32, _>::from_shape_fn([300_000], |i| (i[0] as f32 - 150_000.0) * 1e-4);
    let s = nn::sigmoid(&big);
    assert!(
        s.iter()
            .zip(big.iter())
            .all(|(y, x)| (*y as f64 - sig(*x as f64)).abs() < 1e-6)
    );
}
