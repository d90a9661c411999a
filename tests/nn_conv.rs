//! Convolution and pooling: the hand-checkable cases, errors, and large problems (many
//! im2col tiles, threads) against a naive reference.

use ferrotensor::nn::{self, Conv2dArgs, ConvTranspose2dArgs};
use ferrotensor::prelude::*;
use rand::SeedableRng;

#[test]
fn two_channels_of_1_to_16_with_the_course_kernel() {
    let x = Tensor::<f32, _>::from_shape_fn([1, 2, 4, 4], |i| (i[2] * 4 + i[3] + 1) as f32);
    let k = [1.0f32, 2., 3., 3., 2., 1., 1., 2., 3.];
    let w = Tensor::from_vec(k.repeat(2), [1, 2, 3, 3]).unwrap();
    let y = nn::conv2d(&x, &w, None, &Conv2dArgs::default()).unwrap();
    assert_eq!(y.shape(), &[1, 1, 2, 2]);
    assert_eq!(y.to_vec(), vec![220.0, 256.0, 364.0, 400.0]);
    // f64, a shared tensor and a view give the same.
    let x64 = Tensor::<f64, _>::from_shape_fn([1, 2, 4, 4], |i| (i[2] * 4 + i[3] + 1) as f64)
        .into_shared();
    let w64 = Tensor::from_vec(k.map(f64::from).repeat(2), [1, 2, 3, 3]).unwrap();
    assert_eq!(
        nn::conv2d(&x64, &w64.view(), None, &Conv2dArgs::default())
            .unwrap()
            .to_vec(),
        vec![220.0, 256.0, 364.0, 400.0]
    );
}

#[test]
fn max_pool_2x2_stride_2() {
    let x = Tensor::from_vec(
        vec![
            1.0f32, 2., 3., 4., 2., 3., 4., 5., 3., 4., 5., 6., 4., 5., 6., 7.,
        ],
        [1, 1, 4, 4],
    )
    .unwrap();
    let y = nn::max_pool2d(&x, [2, 2], [2, 2], [0, 0]).unwrap();
    assert_eq!(y.shape(), &[1, 1, 2, 2]);
    assert_eq!(y.to_vec(), vec![3.0, 5.0, 5.0, 7.0]);
    let a = nn::avg_pool2d(&x, [2, 2], [2, 2], [0, 0]).unwrap();
    assert_eq!(a.to_vec(), vec![2.0, 4.0, 4.0, 6.0]);
}

#[test]
fn max_pool_pads_with_minus_infinity_and_propagates_nan() {
    let x = Tensor::<f64, _>::full([1, 1, 2, 2], -5.0);
    let y = nn::max_pool2d(&x, [3, 3], [1, 1], [1, 1]).unwrap();
    assert_eq!(y.to_vec(), vec![-5.0; 4]);
    let mut z = Tensor::<f64, _>::zeros([1, 1, 2, 2]);
    z[[0, 0, 1, 1]] = f64::NAN;
    let y = nn::max_pool2d(&z, [2, 2], [1, 1], [0, 0]).unwrap();
    assert!(y[[0, 0, 0, 0]].is_nan());
}

/// Direct definition of PyTorch's conv2d.
fn naive(
    x: &Tensor<f64, Ix4>,
    w: &Tensor<f64, Ix4>,
    b: Option<&Tensor<f64, Ix1>>,
    a: &Conv2dArgs,
) -> Tensor<f64, Ix4> {
    let [n, _, h, wd] = *x.dim();
    let [o, cg, kh, kw] = *w.dim();
    let oh = (h + 2 * a.padding[0] - a.dilation[0] * (kh - 1) - 1) / a.stride[0] + 1;
    let ow = (wd + 2 * a.padding[1] - a.dilation[1] * (kw - 1) - 1) / a.stride[1] + 1;
    let og = o / a.groups;
    Tensor::from_shape_fn([n, o, oh, ow], |i| {
        let (ni, oc, r, c) = (i[0], i[1], i[2], i[3]);
        let mut s = b.map_or(0.0, |b| b[[oc]]);
        for ci in 0..cg {
            for ki in 0..kh {
                for kj in 0..kw {
                    let ih =
                        (r * a.stride[0] + ki * a.dilation[0]) as isize - a.padding[0] as isize;
                    let iw =
                        (c * a.stride[1] + kj * a.dilation[1]) as isize - a.padding[1] as isize;
                    if ih >= 0 && iw >= 0 && (ih as usize) < h && (iw as usize) < wd {
                        s += x[[ni, (oc / og) * cg + ci, ih as usize, iw as usize]]
                            * w[[oc, ci, ki, kj]];
                    }
                }
            }
        }
        s
    })
}

#[test]
fn large_conv_over_many_tiles_matches_naive() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(42);
    // K = 2·5·5 = 50 rows: 1 MiB / (50·8 B) = 2621 positions per tile, 60·64 = 3840
    // positions → several tiles per image, batch 2, groups 3, threads.
    let x = Tensor::<f64, _>::randn([2, 6, 60, 64], &mut rng);
    let w = Tensor::<f64, _>::randn([9, 2, 5, 5], &mut rng);
    let b = Tensor::<f64, _>::randn([9], &mut rng);
    for a in [
        Conv2dArgs {
            padding: [2, 2],
            groups: 3,
            ..Default::default()
        },
        Conv2dArgs {
            stride: [2, 1],
            padding: [1, 2],
            dilation: [1, 2],
            groups: 3,
        },
    ] {
        let want = naive(&x, &w, Some(&b), &a);
        for threads in [1, 2] {
            let got = ferrotensor::with_num_threads(threads, || {
                nn::conv2d(&x, &w, Some(&b), &a).unwrap()
            });
            assert_eq!(got.shape(), want.shape());
            for (g, e) in got.iter().zip(want.iter()) {
                assert!((g - e).abs() < 1e-9 * (1.0 + e.abs()), "{g} vs {e}");
            }
        }
    }
}

#[test]
fn pointwise_conv_on_a_sliced_view() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let big = Tensor::<f64, _>::randn([2, 4, 9, 10], &mut rng);
    let x = big.slice(s![.., 1.., ..;2, 1..]).into_dim::<Ix4>().unwrap(); // (2, 3, 5, 9), strided
    let w = Tensor::<f64, _>::randn([5, 3, 1, 1], &mut rng);
    let got = nn::conv2d(&x, &w, None, &Conv2dArgs::default()).unwrap();
    let want = naive(&x.to_owned(), &w, None, &Conv2dArgs::default());
    for (g, e) in got.iter().zip(want.iter()) {
        assert!((g - e).abs() < 1e-12);
    }
}

#[test]
fn conv2d_errors_name_the_operation_and_shapes() {
    let x = Tensor::<f32, _>::zeros([1, 4, 5, 5]);
    let w = Tensor::<f32, _>::zeros([6, 2, 3, 3]);
    let ok = Conv2dArgs {
        groups: 2,
        ..Default::default()
    };
    assert!(nn::conv2d(&x, &w, None, &ok).is_ok());
    let err = |r: Result<Tensor<f32, Ix4>>| r.unwrap_err().to_string();
    let e = err(nn::conv2d(&x, &w, None, &Conv2dArgs::default()));
    assert!(
        e.starts_with("conv2d:") && e.contains("(1, 4, 5, 5)") && e.contains("(6, 2, 3, 3)"),
        "{e}"
    );
    let e = err(nn::conv2d(&x, &w, None, &Conv2dArgs { groups: 3, ..ok }));
    assert!(e.contains("groups"), "{e}");
    let w5 = Tensor::<f32, _>::zeros([5, 2, 3, 3]);
    assert!(err(nn::conv2d(&x, &w5, None, &ok)).contains("output channels 5"));
    let b = Tensor::<f32, _>::zeros([5]);
    assert!(err(nn::conv2d(&x, &w, Some(&b), &ok)).contains("bias"));
    for a in [
        Conv2dArgs {
            stride: [0, 1],
            ..ok
        },
        Conv2dArgs {
            dilation: [1, 0],
            ..ok
        },
        Conv2dArgs { groups: 0, ..ok },
    ] {
        assert!(err(nn::conv2d(&x, &w, None, &a)).starts_with("conv2d:"));
    }
    let e = err(nn::conv2d(
        &x,
        &w,
        None,
        &Conv2dArgs {
            dilation: [3, 1],
            ..ok
        },
    ));
    assert!(e.contains("larger than the padded input"), "{e}");
    assert!(
        nn::conv2d(
            &x,
            &w,
            None,
            &Conv2dArgs {
                dilation: [3, 1],
                padding: [1, 0],
                ..ok
            }
        )
        .is_ok()
    );
    let x3 = Tensor::<f32, _>::zeros([4, 5, 5]);
    // (The result has the input's rank type, Ix3 here: an error either way.)
    assert!(
        nn::conv2d(&x3, &w, None, &ok)
            .unwrap_err()
            .to_string()
            .contains("4-D")
    );
}

#[test]
fn pool_and_transpose_errors() {
    let x = Tensor::<f32, _>::zeros([1, 1, 4, 4]);
    let e = nn::max_pool2d(&x, [3, 3], [1, 1], [2, 1])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("max_pool2d:") && e.contains("half"), "{e}");
    assert!(
        nn::avg_pool2d(&x, [5, 5], [1, 1], [0, 0])
            .unwrap_err()
            .to_string()
            .contains("larger")
    );
    assert!(nn::avg_pool2d(&x, [2, 2], [0, 1], [0, 0]).is_err());
    assert!(nn::avg_pool2d(&x, [0, 2], [1, 1], [0, 0]).is_err());
    let w = Tensor::<f32, _>::zeros([2, 1, 3, 3]);
    let e = nn::conv_transpose2d(&x, &w, None, &ConvTranspose2dArgs::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("conv_transpose2d:") && e.contains("(2, 1, 3, 3)"),
        "{e}"
    );
    let w1 = Tensor::<f32, _>::zeros([1, 1, 3, 3]);
    let a = ConvTranspose2dArgs {
        output_padding: [1, 1],
        ..Default::default()
    };
    assert!(nn::conv_transpose2d(&x, &w1, None, &a).is_err());
    let a = ConvTranspose2dArgs {
        output_padding: [1, 1],
        stride: [2, 2],
        ..Default::default()
    };
    assert_eq!(
        nn::conv_transpose2d(&x, &w1, None, &a).unwrap().shape(),
        &[1, 1, 10, 10]
    );
}

#[test]
fn conv_transpose_is_the_adjoint_of_conv() {
    // <conv(x), y> == <x, conv_transpose(y)> for the same weight and arguments.
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let x = Tensor::<f64, _>::randn([2, 4, 9, 8], &mut rng);
    let w = Tensor::<f64, _>::randn([6, 2, 3, 2], &mut rng);
    let a = Conv2dArgs {
        stride: [2, 2],
        padding: [1, 1],
        dilation: [1, 2],
        groups: 2,
    };
    let cx = nn::conv2d(&x, &w, None, &a).unwrap();
    let y = Tensor::<f64, _>::randn(*cx.dim(), &mut rng);
    // conv weight (O, C/g, kh, kw) is conv_transpose's (C_in = O, O_out/g = C/g, ...).
    let t = ConvTranspose2dArgs {
        stride: a.stride,
        padding: a.padding,
        dilation: a.dilation,
        groups: 2,
        output_padding: [0, 1],
    };
    let ty = nn::conv_transpose2d(&y, &w, None, &t).unwrap();
    assert_eq!(ty.shape(), x.shape());
    let lhs: f64 = cx.iter().zip(y.iter()).map(|(a, b)| a * b).sum();
    let rhs: f64 = x.iter().zip(ty.iter()).map(|(a, b)| a * b).sum();
    assert!(
        (lhs - rhs).abs() < 1e-9 * lhs.abs().max(1.0),
        "{lhs} vs {rhs}"
    );
}

#[test]
fn f32_convs_on_views_match_naive() {
    // f32 takes the direct kernel on AVX-512 machines (phase-split input, 8 × 48
    // blocks): strided view input, groups, bias, stride 2 with a 7×7 kernel, dilation,
    // output channels not a multiple of 8, several tiles per image on 2 threads.
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let big = Tensor::<f32, _>::randn([3, 6, 30, 33], &mut rng);
    let x = big.slice(s![.., .., 1.., ..;1]).into_dim::<Ix4>().unwrap(); // (3, 6, 29, 33)
    let x64 = Tensor::from_vec(x.iter().map(|&v| f64::from(v)).collect(), *x.dim()).unwrap();
    let to64 = |t: &Tensor<f32, Ix4>| {
        Tensor::from_vec(t.iter().map(|&v| f64::from(v)).collect(), *t.dim()).unwrap()
    };
    for (ws, a) in [
        (
            [12, 3, 3, 3],
            Conv2dArgs {
                padding: [1, 1],
                groups: 2,
                ..Default::default()
            },
        ),
        (
            [10, 6, 7, 7],
            Conv2dArgs {
                stride: [2, 2],
                padding: [3, 3],
                ..Default::default()
            },
        ),
        (
            [9, 6, 3, 2],
            Conv2dArgs {
                stride: [1, 2],
                padding: [2, 0],
                dilation: [2, 3],
                groups: 1,
            },
        ),
    ] {
        let w = Tensor::<f32, _>::randn(ws, &mut rng);
        let b = Tensor::<f32, _>::randn([ws[0]], &mut rng);
        let b64 = Tensor::from_vec(b.iter().map(|&v| f64::from(v)).collect(), [ws[0]]).unwrap();
        let want = naive(&x64, &to64(&w), Some(&b64), &a);
        for threads in [1, 2] {
            let got = ferrotensor::with_num_threads(threads, || {
                nn::conv2d(&x, &w, Some(&b), &a).unwrap()
            });
            assert_eq!(got.shape(), want.shape());
            for (g, e) in got.iter().zip(want.iter()) {
                assert!(
                    (f64::from(*g) - e).abs() < 1e-4 * (1.0 + e.abs()),
                    "{a:?}: {g} vs {e}"
                );
            }
        }
    }
}
