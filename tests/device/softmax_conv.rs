//! softmax / log_softmax and conv2d against the CPU.

use crate::common::*;
use ferrotensor::nn::{Conv2dArgs, conv2d, log_softmax, softmax};
use ferrotensor::prelude::*;
use half::f16;
use rand::Rng;

#[test]
fn softmax_every_layout_and_axis() {
    let Some(dev) = device() else { return };
    for seed in 60..63 {
        let mut r = rng(seed);
        for case in cases(&mut r) {
            let base = randf(&mut r, &case.base).map(|&x| x * 10.0);
            let cpu = apply_cpu(base.view(), &case.steps);
            let g = apply_dev(base.to_device(&dev).unwrap(), &case.steps);
            for axis in -(cpu.ndim() as isize)..cpu.ndim() as isize {
                let what = format!("{} axis {axis}", case.name);
                assert_close(
                    &host(&g.softmax(axis).unwrap()),
                    &softmax(&cpu, axis).unwrap(),
                    1e-5,
                    1e-7,
                    &what,
                );
                assert_close(
                    &host(&g.log_softmax(axis).unwrap()),
                    &log_softmax(&cpu, axis).unwrap(),
                    1e-5,
                    1e-5,
                    &what,
                );
            }
            assert_eq!(
                g.softmax(5).unwrap_err().to_string(),
                softmax(&cpu, 5).unwrap_err().to_string()
            );
        }
    }
}

#[test]
fn softmax_long_rows_nan_and_f16() {
    let Some(dev) = device() else { return };
    let mut r = rng(64);
    let mut t = randf(&mut r, &[3, 5000]);
    t[[1, 17].as_slice()] = f32::NAN;
    t[[2, 3].as_slice()] = f32::NEG_INFINITY;
    let g = t.to_device(&dev).unwrap();
    assert_close(
        &host(&g.softmax(-1).unwrap()),
        &softmax(&t, -1).unwrap(),
        1e-5,
        1e-8,
        "long rows, NaN row, -inf",
    );
    assert_close(
        &host(&g.log_softmax(0).unwrap()),
        &log_softmax(&t, 0).unwrap(),
        1e-5,
        1e-5,
        "axis 0",
    );
    if dev.supports_f16() {
        let h = randf(&mut r, &[4, 50]).cast::<f16>();
        assert_close(
            &host(&h.to_device(&dev).unwrap().softmax(1).unwrap()),
            &softmax(&h, 1).unwrap(),
            1e-2,
            1e-3,
            "f16",
        );
    }
}

#[test]
fn conv2d_as_cpu() {
    let Some(dev) = device() else { return };
    let mut r = rng(70);
    for it in 0..10 {
        let groups = [1, 2, 3][r.random_range(0..3)];
        let (n, c, o) = (
            r.random_range(1..3),
            groups * r.random_range(1..3),
            groups * r.random_range(1..4),
        );
        let (h, w) = (r.random_range(5..12), r.random_range(5..12));
        let (kh, kw) = (r.random_range(1..4), r.random_range(1..4));
        let args = Conv2dArgs {
            stride: [r.random_range(1..3), r.random_range(1..3)],
            padding: [r.random_range(0..2), r.random_range(0..2)],
            dilation: [r.random_range(1..3), r.random_range(1..3)],
            groups,
        };
        // The input is an NHWC tensor permuted to NCHW: strided, read in place.
        let x = randf(&mut r, &[n, h, w, c]);
        let xv = x.permute(&[0, 3, 1, 2]).unwrap();
        let wt = randf(&mut r, &[o, c / groups, kh, kw]);
        let b = Tensor::from_shape_fn([o], |i: &[usize]| i[0] as f32 * 0.5);
        let what = format!("#{it} {args:?} x {:?} w {:?}", xv.shape(), wt.shape());
        let want = conv2d(&xv, &wt, Some(&b), &args);
        let gx = x.to_device(&dev).unwrap().permute(&[0, 3, 1, 2]).unwrap();
        let got = ferrotensor::device::conv2d(
            &gx,
            &wt.to_device(&dev).unwrap(),
            Some(&b.to_device(&dev).unwrap()),
            &args,
        );
        match (got, want) {
            (Ok(gd), Ok(c)) => assert_close(&host(&gd), &c.into_dyn(), 1e-5, 1e-5, &what),
            (Err(d), Err(c)) => assert_eq!(d.to_string(), c.to_string(), "{what}"),
            (d, c) => panic!("{what}: device {:?} cpu {:?}", d.err(), c.err()),
        }
    }
    let x = Tensor::<f32, _>::ones([1, 3, 4, 4])
        .to_device(&dev)
        .unwrap();
    let w = Tensor::<f32, _>::ones([2, 2, 3, 3])
        .to_device(&dev)
        .unwrap();
    let e = ferrotensor::device::conv2d(&x, &w, None, &Conv2dArgs::default()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("conv2d: weight has 2 input channels"),
        "{e}"
    );
}
