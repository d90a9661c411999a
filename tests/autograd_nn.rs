//! Gradients of `matmul`, `linear` and the `nn`-mirroring functions (softmax, losses,
//! normalisation, convolution, pooling) against central finite differences in f64,
//! and the errors of `backward` and of the operations.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` beside `&[x.clone(), y.clone()]`.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod autograd_support;

use autograd_support::*;
use ferrotensor::autograd::{self, BatchNormArgs, Var};
use ferrotensor::nn::Conv2dArgs;
use ferrotensor::prelude::*;

#[test]
fn matmul_promotion_and_batch_broadcasting() {
    let mut r = rng(20);
    let cases: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![3, 4], vec![4, 5]),
        (vec![4], vec![4, 5]),
        (vec![3, 4], vec![4]),
        (vec![4], vec![4]),
        (vec![2, 3, 4], vec![4, 5]),
        (vec![3, 4], vec![2, 4, 5]),
        (vec![2, 1, 3, 4], vec![5, 4, 2]),
        (vec![4], vec![2, 4, 3]),
        (vec![2, 3, 4], vec![4]),
        (vec![3, 0], vec![0, 2]),
        (vec![0, 4], vec![4, 2]),
    ];
    for (sa, sb) in cases {
        let (a, b) = (randn(&sa, &mut r), randn(&sb, &mut r));
        gradcheck(&format!("matmul {sa:?} @ {sb:?}"), &[a, b], |v| {
            v[0].matmul(&v[1])
        });
    }
    let (a, b) = (randn(&[5, 3], &mut r), randn(&[5, 4], &mut r));
    gradcheck("matmul of transposed views", &[a, b], |v| {
        v[0].t().matmul(&v[1])
    });
    let (x, w, b) = (
        randn(&[6, 4], &mut r),
        randn(&[3, 4], &mut r),
        randn(&[3], &mut r),
    );
    gradcheck("linear", &[x.clone(), w.clone(), b], |v| {
        autograd::linear(&v[0], &v[1], Some(&v[2]))
    });
    gradcheck("linear without bias", &[x, w], |v| {
        autograd::linear(&v[0], &v[1], None)
    });
}

#[test]
fn softmax_and_log_softmax_along_each_axis() {
    let mut r = rng(21);
    let x = randn(&[3, 4, 2], &mut r);
    for axis in [0, 1, 2, -1] {
        gradcheck(&format!("softmax {axis}"), &[x.clone()], |v| {
            autograd::softmax(&v[0], axis)
        });
        gradcheck(&format!("log_softmax {axis}"), &[x.clone()], |v| {
            autograd::log_softmax(&v[0], axis)
        });
    }
    gradcheck(
        "softmax of a strided input",
        &[col_major(&randn(&[4, 5], &mut r))],
        |v| autograd::softmax(&v[0].t(), 1),
    );
}

#[test]
fn losses() {
    let mut r = rng(22);
    let logits = randn(&[5, 4], &mut r);
    let labels = Tensor::from_vec(vec![0i64, 3, 1, 1, 2], [5]).unwrap();
    gradcheck("cross_entropy", &[logits.clone()], |v| {
        autograd::cross_entropy(&v[0], &labels)
    });
    let logits3 = randn(&[2, 3, 4], &mut r);
    let labels3 = Tensor::from_vec(vec![0i64, 2, 1, 1, 2, 0, 0, 1], [2, 4]).unwrap();
    gradcheck("cross_entropy (N, C, d)", &[logits3.clone()], |v| {
        autograd::cross_entropy(&v[0], &labels3)
    });
    gradcheck("nll_loss", &[logits.clone()], |v| {
        autograd::nll_loss(&autograd::log_softmax(&v[0], 1)?, &labels)
    });
    let (x, y) = (randn(&[3, 4], &mut r), randn(&[3, 4], &mut r));
    gradcheck("mse_loss", &[x.clone(), y.clone()], |v| {
        autograd::mse_loss(&v[0], &v[1])
    });
    gradcheck(
        "mse_loss broadcast",
        &[x.clone(), randn(&[4], &mut r)],
        |v| autograd::mse_loss(&v[0], &v[1]),
    );
    let p = uniform(&[3, 4], 0.0, 1.0, &mut r);
    gradcheck("bce_with_logits", &[x.clone(), p], |v| {
        autograd::bce_with_logits(&v[0], &v[1])
    });
    // cross_entropy equals nll_loss of log_softmax, and PyTorch's value on a known case.
    let l = Var::new(logits.clone());
    let a = autograd::cross_entropy(&l, &labels)
        .unwrap()
        .value()
        .to_scalar()
        .unwrap();
    let b = autograd::nll_loss(&autograd::log_softmax(&l, 1).unwrap(), &labels)
        .unwrap()
        .value()
        .to_scalar()
        .unwrap();
    assert!((a - b).abs() < 1e-14);
    let z = Var::new(Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [1, 3]).unwrap());
    let ce = autograd::cross_entropy(&z, &Tensor::from_vec(vec![2i64], [1]).unwrap()).unwrap();
    // torch.nn.functional.cross_entropy(torch.tensor([[1., 2., 3.]]), torch.tensor([2]))
    assert!((ce.value().to_scalar().unwrap() - 0.40760596444438013).abs() < 1e-15);
}

#[test]
fn layer_norm_with_and_without_affine() {
    let mut r = rng(23);
    let x = randn(&[3, 2, 4], &mut r);
    let (w, b) = (randn(&[2, 4], &mut r), randn(&[2, 4], &mut r));
    gradcheck("layer_norm last axis", &[x.clone()], |v| {
        autograd::layer_norm(&v[0], &[4], None, None, 1e-5)
    });
    gradcheck(
        "layer_norm two axes, affine",
        &[x.clone(), w.clone(), b.clone()],
        |v| autograd::layer_norm(&v[0], &[2, 4], Some(&v[1]), Some(&v[2]), 1e-5),
    );
    gradcheck(
        "layer_norm flat weight only",
        &[x.clone(), randn(&[8], &mut r)],
        |v| autograd::layer_norm(&v[0], &[2, 4], Some(&v[1]), None, 1e-3),
    );
    // Forward equals nn::layer_norm.
    let y = autograd::layer_norm(&Var::new(x.clone()), &[4], None, None, 1e-5).unwrap();
    let want = ferrotensor::nn::layer_norm(&x, &[4], None, None, 1e-5).unwrap();
    assert!(y.value().allclose(&want, 1e-12, 1e-12, false).unwrap());
}

#[test]
fn batch_norm_training_and_evaluation() {
    let mut r = rng(24);
    for shape in [vec![6, 3], vec![2, 3, 4, 5]] {
        let x = randn(&shape, &mut r);
        let (w, b) = (randn(&[3], &mut r), randn(&[3], &mut r));
        let args = BatchNormArgs::default();
        gradcheck(
            &format!("batch_norm training {shape:?}"),
            &[x.clone(), w.clone(), b.clone()],
            |v| autograd::batch_norm(&v[0], None, None, Some(&v[1]), Some(&v[2]), &args),
        );
        gradcheck(
            &format!("batch_norm training no affine {shape:?}"),
            &[x.clone()],
            |v| autograd::batch_norm(&v[0], None, None, None, None, &args),
        );
        let rm = randn(&[3], &mut r).into_dim::<Ix1>().unwrap();
        let rv = uniform(&[3], 0.5, 2.0, &mut r).into_dim::<Ix1>().unwrap();
        let eval = BatchNormArgs {
            training: false,
            ..args
        };
        gradcheck(
            &format!("batch_norm eval {shape:?}"),
            &[x.clone(), w.clone(), b.clone()],
            |v| {
                let (mut m, mut s) = (rm.clone(), rv.clone());
                autograd::batch_norm(
                    &v[0],
                    Some(&mut m),
                    Some(&mut s),
                    Some(&v[1]),
                    Some(&v[2]),
                    &eval,
                )
            },
        );
        // Evaluation equals nn::batch_norm.
        let (mut m, mut s) = (rm.clone(), rv.clone());
        let y = autograd::batch_norm(
            &Var::new(x.clone()),
            Some(&mut m),
            Some(&mut s),
            None,
            None,
            &eval,
        )
        .unwrap();
        let want = ferrotensor::nn::batch_norm(&x, &rm, &rv, None, None, 1e-5).unwrap();
        assert!(y.value().allclose(&want, 1e-12, 1e-12, false).unwrap());
        // Running statistics: (1 − m)·old + m·batch, variance unbiased.
        let (mut m, mut s) = (rm.clone(), rv.clone());
        let _ = autograd::batch_norm(
            &Var::new(x.clone()),
            Some(&mut m),
            Some(&mut s),
            None,
            None,
            &args,
        )
        .unwrap();
        let axes: Vec<isize> = (0..shape.len() as isize).filter(|&a| a != 1).collect();
        let mean = x.mean_axes(&axes, false).unwrap();
        let var = x.var_axes(&axes, false, 1).unwrap();
        for c in 0..3 {
            let em = 0.9 * rm[[c]] + 0.1 * mean[&[c][..]];
            let ev = 0.9 * rv[[c]] + 0.1 * var[&[c][..]];
            assert!((m[[c]] - em).abs() < 1e-12 && (s[[c]] - ev).abs() < 1e-12);
        }
    }
}

#[test]
fn conv2d_every_argument() {
    let mut r = rng(25);
    let cases = [
        ([2, 3, 6, 5], [4, 3, 3, 3], Conv2dArgs::default()),
        (
            [1, 2, 7, 7],
            [3, 2, 3, 2],
            Conv2dArgs {
                stride: [2, 3],
                padding: [1, 2],
                ..Default::default()
            },
        ),
        (
            [2, 2, 8, 8],
            [2, 2, 3, 3],
            Conv2dArgs {
                dilation: [2, 1],
                padding: [2, 1],
                ..Default::default()
            },
        ),
        (
            [1, 4, 5, 5],
            [6, 2, 3, 3],
            Conv2dArgs {
                groups: 2,
                stride: [2, 2],
                padding: [1, 1],
                ..Default::default()
            },
        ),
        (
            [2, 3, 4, 4],
            [3, 1, 1, 1],
            Conv2dArgs {
                groups: 3,
                ..Default::default()
            },
        ),
        (
            [1, 2, 9, 6],
            [2, 2, 2, 2],
            Conv2dArgs {
                stride: [3, 2],
                dilation: [2, 2],
                padding: [1, 0],
                groups: 1,
            },
        ),
    ];
    for (xs, ws, args) in cases {
        let (x, w, b) = (
            randn(&xs, &mut r),
            randn(&ws, &mut r),
            randn(&[ws[0]], &mut r),
        );
        gradcheck(
            &format!("conv2d {xs:?} {ws:?} {args:?}"),
            &[x.clone(), w.clone(), b],
            |v| autograd::conv2d(&v[0], &v[1], Some(&v[2]), &args),
        );
        gradcheck(&format!("conv2d no bias {xs:?} {ws:?}"), &[x, w], |v| {
            autograd::conv2d(&v[0], &v[1], None, &args)
        });
    }
    let (x, w) = (randn(&[1, 2, 4, 4], &mut r), randn(&[1, 2, 2, 2], &mut r));
    gradcheck("conv2d of a permuted input", &[x, w], |v| {
        autograd::conv2d(
            &v[0].permute(&[0, 1, 3, 2])?,
            &v[1],
            None,
            &Conv2dArgs::default(),
        )
    });
}

#[test]
fn pooling() {
    let mut r = rng(26);
    let x = randn(&[2, 3, 7, 6], &mut r);
    for (k, s, p) in [
        ([2, 2], [2, 2], [0, 0]),
        ([3, 2], [1, 2], [1, 1]),
        ([3, 3], [2, 1], [1, 0]),
    ] {
        gradcheck(
            &format!("max_pool2d {k:?} {s:?} {p:?}"),
            &[x.clone()],
            |v| autograd::max_pool2d(&v[0], k, s, p),
        );
        gradcheck(
            &format!("avg_pool2d {k:?} {s:?} {p:?}"),
            &[x.clone()],
            |v| autograd::avg_pool2d(&v[0], k, s, p),
        );
    }
    // Ties go to the first maximum of the window, as PyTorch.
    let t = Var::new(Tensor::<f64, _>::ones([1, 1, 2, 2]));
    let g = autograd::max_pool2d(&t, [2, 2], [2, 2], [0, 0])
        .unwrap()
        .sum()
        .backward()
        .unwrap();
    assert_eq!(g.get(&t).unwrap().to_vec(), vec![1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn backward_needs_a_scalar_loss() {
    let x = Var::new(Tensor::<f64, _>::ones([2, 3]));
    let e = x.exp().backward().unwrap_err();
    assert_eq!(
        e.to_string(),
        "backward: the loss must be a 0-d tensor (a scalar), got shape (2, 3); reduce it first (e.g. .sum() or .mean())"
    );
    let one = x.sum_axes(&[0, 1], true).unwrap();
    assert!(
        one.backward()
            .unwrap_err()
            .to_string()
            .contains("got shape (1, 1)")
    );
    assert!(x.sum().backward().is_ok());
}

#[test]
fn shape_errors_are_the_tensor_operations_errors() {
    let a = Var::new(Tensor::<f64, _>::ones([2, 3]));
    let b = Var::new(Tensor::<f64, _>::ones([4, 5]));
    let (ta, tb) = (a.value(), b.value());
    let same = |got: ferrotensor::Error, want: ferrotensor::Error| {
        assert_eq!(got.to_string(), want.to_string())
    };
    same(a.try_add(&b).unwrap_err(), ta.try_add(tb).unwrap_err());
    same(a.try_sub(&b).unwrap_err(), ta.try_sub(tb).unwrap_err());
    same(a.try_mul(&b).unwrap_err(), ta.try_mul(tb).unwrap_err());
    same(a.try_div(&b).unwrap_err(), ta.try_div(tb).unwrap_err());
    same(a.matmul(&b).unwrap_err(), ta.matmul(tb).unwrap_err());
    same(a.maximum(&b).unwrap_err(), ta.maximum(tb).unwrap_err());
    same(a.reshape([4]).unwrap_err(), ta.reshape([4]).unwrap_err());
    same(a.permute(&[0]).unwrap_err(), ta.permute(&[0]).unwrap_err());
    same(
        a.sum_axes(&[2], false).unwrap_err(),
        ta.sum_axes(&[2], false).unwrap_err(),
    );
    same(
        a.mean_axes(&[0, 0], false).unwrap_err(),
        ta.mean_axes(&[0, 0], false).unwrap_err(),
    );
    same(
        a.max_axes(&[-3], false).unwrap_err(),
        ta.max_axes(&[-3], false).unwrap_err(),
    );
    same(
        a.broadcast_to([3, 3]).unwrap_err(),
        ta.broadcast_to([3, 3]).unwrap_err(),
    );
    same(
        a.try_slice(s![.., 7]).unwrap_err(),
        ta.try_slice(s![.., 7]).unwrap_err(),
    );
    same(a.flip(2).unwrap_err(), ta.flip(2).unwrap_err());
    same(a.unsqueeze(4).unwrap_err(), ta.unsqueeze(4).unwrap_err());
    same(
        a.index_select(1, &[3]).unwrap_err(),
        ta.index_select(1, &[3]).unwrap_err(),
    );
    same(a.cumsum(2).unwrap_err(), ta.cumsum(2).unwrap_err());
    same(
        autograd::softmax(&a, 2).unwrap_err(),
        ferrotensor::nn::softmax(ta, 2).unwrap_err(),
    );
    same(
        autograd::concatenate(&[&a, &b], 0).unwrap_err(),
        concatenate(&[ta, tb], 0).unwrap_err(),
    );
    let img = Var::new(Tensor::<f64, _>::ones([1, 3, 4, 4]));
    let w = Var::new(Tensor::<f64, _>::ones([2, 2, 3, 3]));
    same(
        autograd::conv2d(&img, &w, None, &Conv2dArgs::default()).unwrap_err(),
        ferrotensor::nn::conv2d(img.value(), w.value(), None, &Conv2dArgs::default()).unwrap_err(),
    );
    same(
        autograd::max_pool2d(&a, [2, 2], [2, 2], [0, 0]).unwrap_err(),
        ferrotensor::nn::max_pool2d(ta, [2, 2], [2, 2], [0, 0]).unwrap_err(),
    );
    let cond = Tensor::from_vec(vec![true, false, true], [3]).unwrap();
    same(
        autograd::where_(&cond, &a, &b).unwrap_err(),
        ferrotensor::where_(&cond, ta, tb).unwrap_err(),
    );
    let idx = Tensor::from_vec(vec![0i64, 5], [1, 2]).unwrap();
    same(
        a.gather(1, &idx).unwrap_err(),
        ta.gather(1, &idx).unwrap_err(),
    );
    same(
        a.pad(&[(1, 1), (0, 0), (1, 1)], PadMode::Reflect)
            .unwrap_err(),
        ta.pad(&[(1, 1), (0, 0), (1, 1)], PadMode::Reflect)
            .unwrap_err(),
    );
    same(
        a.var_axes(&[5], false, 0).unwrap_err(),
        ta.var_axes(&[5], false, 0).unwrap_err(),
    );
    same(
        autograd::log_softmax(&a, -3).unwrap_err(),
        ferrotensor::nn::log_softmax(ta, -3).unwrap_err(),
    );
    same(
        autograd::linear(&a, &b, None).unwrap_err(),
        ferrotensor::nn::linear(ta, tb, None).unwrap_err(),
    );
    same(
        autograd::avg_pool2d(&img, [5, 5], [1, 1], [0, 0]).unwrap_err(),
        ferrotensor::nn::avg_pool2d(img.value(), [5, 5], [1, 1], [0, 0]).unwrap_err(),
    );
    // Element-wise losses fail as the element-wise subtraction does.
    same(
        autograd::mse_loss(&a, &b).unwrap_err(),
        ta.try_sub(tb).unwrap_err(),
    );
    assert!(
        autograd::bce_with_logits(&a, &b)
            .unwrap_err()
            .to_string()
            .contains("(2, 3) (4, 5)")
    );
    // Losses name themselves and the shapes.
    let e =
        autograd::cross_entropy(&a, &Tensor::from_vec(vec![0i64, 1, 2], [3]).unwrap()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cross_entropy: input of shape (2, 3)"),
        "{e}"
    );
    let e =
        autograd::cross_entropy(&a, &Tensor::from_vec(vec![0i64, 3], [2]).unwrap()).unwrap_err();
    assert!(
        e.to_string()
            .contains("target 3 is out of range for 3 classes"),
        "{e}"
    );
    let e = autograd::nll_loss(&a, &Tensor::from_vec(vec![0i64, -1], [2]).unwrap()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("nll_loss: target -1 is out of range for 3 classes"),
        "{e}"
    );
    let e = autograd::layer_norm(&a, &[2], None, None, 1e-5).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("layer_norm: normalized_shape (2,)"),
        "{e}"
    );
    let e = autograd::batch_norm(&a, None, None, Some(&b), None, &BatchNormArgs::default())
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("batch_norm: weight of shape (4, 5)"),
        "{e}"
    );
    let e = autograd::batch_norm(
        &a,
        None,
        None,
        None,
        None,
        &BatchNormArgs {
            training: false,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("evaluation mode needs running_mean"),
        "{e}"
    );
}

#[test]
#[should_panic(
    expected = "multiply: operands could not be broadcast together with shapes (2,) (3,)"
)]
fn operators_panic_with_the_tensor_message() {
    let a = Var::new(Tensor::<f32, _>::ones([2]));
    let b = Var::new(Tensor::<f32, _>::ones([3]));
    let _ = &a * &b;
}

/// A constant of `shape` with fixed values in `[−scale, scale]` (weights, targets).
fn fixed(shape: &[usize], scale: f64) -> Var<f64> {
    Var::constant(Tensor::<f64, _>::from_shape_fn(shape.to_vec(), |i| {
        let k = i.iter().fold(0usize, |a, &x| a * 7 + x + 1);
        ((k * 37 % 17) as f64 / 8.0 - 1.0) * scale
    }))
}

/// Class labels `(N, d…)` for logits `(N, C, d…)`, all in `0..C`.
fn labels_for(v: &Var<f64>) -> Tensor<i64> {
    let s = v.shape();
    let mut shape = vec![s[0]];
    shape.extend_from_slice(&s[2..]);
    Tensor::from_shape_fn(shape, |i| (i.iter().sum::<usize>() % s[1]) as i64)
}

/// `nn`-mirroring functions of one `(N, C, H, W)` input for the layout sweep (weights,
/// labels and targets are constants built from the input's shape); those marked need
/// more than one element per normalised group.
fn nn_ops() -> Vec<OneInput> {
    vec![
        (
            "conv2d",
            |v| {
                let args = Conv2dArgs {
                    padding: [1, 1],
                    ..Default::default()
                };
                let w = fixed(&[2, v.shape()[1], 2, 2], 0.5);
                autograd::conv2d(v, &w, Some(&fixed(&[2], 1.0)), &args)
            },
            false,
        ),
        (
            "conv2d strided, dilated",
            |v| {
                let args = Conv2dArgs {
                    stride: [2, 1],
                    dilation: [1, 2],
                    padding: [1, 2],
                    groups: 1,
                };
                autograd::conv2d(v, &fixed(&[3, v.shape()[1], 2, 2], 0.5), None, &args)
            },
            false,
        ),
        (
            "max_pool2d",
            |v| autograd::max_pool2d(v, [2, 2], [1, 1], [1, 1]),
            false,
        ),
        (
            "avg_pool2d",
            |v| autograd::avg_pool2d(v, [2, 2], [2, 1], [1, 1]),
            false,
        ),
        ("softmax", |v| autograd::softmax(v, 1), false),
        ("log_softmax", |v| autograd::log_softmax(v, -1), false),
        (
            "cross_entropy",
            |v| autograd::cross_entropy(v, &labels_for(v)),
            false,
        ),
        (
            "nll_loss",
            |v| autograd::nll_loss(&autograd::log_softmax(v, 1)?, &labels_for(v)),
            false,
        ),
        (
            "mse_loss",
            |v| autograd::mse_loss(v, &fixed(v.shape(), 1.0)),
            false,
        ),
        (
            "mse_loss, target broadcast",
            |v| autograd::mse_loss(v, &fixed(&[v.shape()[3]], 1.0)),
            false,
        ),
        (
            "bce_with_logits",
            |v| autograd::bce_with_logits(v, &(&fixed(v.shape(), 0.5) + 0.5)),
            false,
        ),
        (
            "layer_norm",
            |v| autograd::layer_norm(v, &v.shape()[2..], None, None, 1e-5),
            true,
        ),
        (
            "batch_norm",
            |v| autograd::batch_norm(v, None, None, None, None, &BatchNormArgs::default()),
            true,
        ),
        (
            "linear over W",
            |v| {
                let w = fixed(&[3, v.shape()[3]], 0.5);
                autograd::linear(v, &w, Some(&fixed(&[3], 1.0)))
            },
            false,
        ),
    ]
}

#[test]
fn nn_functions_on_every_layout_and_edge_shape() {
    let shapes = [
        vec![2, 3, 4, 3],
        vec![1, 1, 3, 3],
        vec![2, 3, 1, 1],
        vec![0, 2, 3, 3],
        vec![2, 2, 0, 3],
    ];
    // Normalising groups of one element (or none) has no gradient to check.
    let small = |s: &[usize]| s.iter().product::<usize>() < 2 * s[1].max(1) || s[2] * s[3] < 2;
    let checked = layout_sweep(27, &shapes, &nn_ops(), small);
    assert!(checked > 300, "{checked}");
}

#[test]
fn nn_weights_and_targets_on_mixed_layouts_and_broadcasts() {
    let mut r = rng(28);
    let (x, w) = (randn(&[2, 3, 5, 4], &mut r), randn(&[3, 3, 2, 2], &mut r));
    let args = Conv2dArgs {
        stride: [1, 2],
        padding: [1, 0],
        ..Default::default()
    };
    let (fx, fw) = (randn(&[5, 3], &mut r), randn(&[2, 3], &mut r));
    for (lx, leaf_x, view_x) in layouts(&x) {
        for (lw, leaf_w, view_w) in layouts(&w) {
            gradcheck(
                &format!("conv2d {lx} input, {lw} weight"),
                &[leaf_x.clone(), leaf_w.clone()],
                |v| autograd::conv2d(&view_x(&v[0]), &view_w(&v[1]), None, &args),
            );
        }
    }
    for (lx, leaf_x, view_x) in layouts(&fx) {
        for (lw, leaf_w, view_w) in layouts(&fw) {
            gradcheck(
                &format!("linear {lx} input, {lw} weight"),
                &[leaf_x.clone(), leaf_w.clone(), randn(&[2], &mut r)],
                |v| autograd::linear(&view_x(&v[0]), &view_w(&v[1]), Some(&v[2])),
            );
        }
    }
    // Either operand of the element-wise losses may broadcast against the other. (A
    // mean over no elements is NaN, as in PyTorch: nothing to differentiate.)
    for (sa, sb) in broadcast_pairs(&mut r) {
        if sa.contains(&0) || sb.contains(&0) {
            continue;
        }
        let (a, b) = (randn(&sa, &mut r), uniform(&sb, 0.0, 1.0, &mut r));
        gradcheck(
            &format!("mse_loss {sa:?} {sb:?}"),
            &[a.clone(), b.clone()],
            |v| autograd::mse_loss(&v[0], &v[1]),
        );
        gradcheck(&format!("bce_with_logits {sa:?} {sb:?}"), &[a, b], |v| {
            autograd::bce_with_logits(&v[0], &v[1])
        });
    }
    let (a, b) = (randn(&[3, 4], &mut r), randn(&[3, 4], &mut r));
    for (la, leaf_a, view_a) in layouts(&a) {
        for (lb, leaf_b, view_b) in layouts(&b) {
            gradcheck(
                &format!("mse_loss {la} with {lb}"),
                &[leaf_a.clone(), leaf_b.clone()],
                |v| autograd::mse_loss(&view_a(&v[0]), &view_b(&v[1])),
            );
            gradcheck(
                &format!("bce_with_logits {la} with {lb}"),
                &[leaf_a.clone(), leaf_b.clone()],
                |v| autograd::bce_with_logits(&view_a(&v[0]), &view_b(&v[1])),
            );
        }
    }
}

#[test]
fn nn_functions_share_sub_expressions() {
    let mut r = rng(29);
    let x = randn(&[1, 2, 4, 4], &mut r);
    gradcheck(
        "conv2d of x with a window of x as weight",
        &[x.clone()],
        |v| {
            let w = v[0].slice(s![.., .., 1..3, 0..2]); // (1, 2, 2, 2)
            let y = autograd::conv2d(&v[0], &w, None, &Conv2dArgs::default())?; // (1, 1, 3, 3)
            let skip = autograd::avg_pool2d(&v[0].sum_axes(&[1], true)?, [2, 2], [1, 1], [0, 0])?;
            Ok(&(&y * &autograd::softmax(&y, -1)?) + &skip)
        },
    );
    gradcheck("pools of one input added", &[x.clone()], |v| {
        let a = autograd::max_pool2d(&v[0], [2, 2], [2, 2], [0, 0])?;
        let b = autograd::avg_pool2d(&v[0], [2, 2], [2, 2], [0, 0])?;
        Ok(&(&a * &b) + &autograd::max_pool2d(&v[0].flip(-1)?, [2, 2], [2, 2], [0, 0])?)
    });
    gradcheck("norms and losses of one input", &[x.clone()], |v| {
        let ln = autograd::layer_norm(&v[0], &[4, 4], None, None, 1e-5)?;
        let bn = autograd::batch_norm(&v[0], None, None, None, None, &BatchNormArgs::default())?;
        let ce = autograd::cross_entropy(&v[0], &labels_for(&v[0]))?;
        let mse = autograd::mse_loss(&v[0], &v[0].flip(2)?)?;
        let bce = autograd::bce_with_logits(&v[0], &v[0].sigmoid())?;
        Ok(&(&(&(&ln * &bn).sum() + &ce) + &mse) + &bce)
    });
    let (h, w) = (randn(&[4, 3], &mut r), randn(&[3, 3], &mut r));
    gradcheck("linear applied twice with one weight", &[h, w], |v| {
        let y = autograd::linear(&v[0], &v[1], None)?.tanh();
        autograd::linear(&y, &v[1], Some(&v[1].sum_axes(&[0], false)?))
    });
}
