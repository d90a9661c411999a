//! Reductions against the CPU: random axis sets, keepdims, every layout, NaN, empty,
//! long (several passes) and wide (one thread per output) reductions.

use crate::common::*;
use ferrotensor::device::{DeviceElement, DeviceTensor};
use ferrotensor::prelude::*;
use rand::Rng;

/// Random axis subsets of a rank-`nd` tensor, with negative axes mixed in.
fn axis_sets(r: &mut rand::rngs::StdRng, nd: usize) -> Vec<Vec<isize>> {
    let mut sets = vec![vec![], (0..nd as isize).collect()];
    for _ in 0..3 {
        let mut s = Vec::new();
        for a in 0..nd as isize {
            if r.random_bool(0.5) {
                s.push(if r.random_bool(0.5) {
                    a - nd as isize
                } else {
                    a
                });
            }
        }
        sets.push(s);
    }
    sets
}

/// The device's and the CPU's result of one reduction agree: both `Ok` and `same`
/// holds for the host copy, or both `Err` with the same message.
#[track_caller]
fn agree<T: DeviceElement, D: Dimension, C: std::fmt::Debug>(
    dev: Result<DeviceTensor<T, D>>,
    cpu: Result<C>,
    what: &str,
    same: impl FnOnce(&Tensor<T, IxDyn>, &C),
) {
    match (dev, cpu) {
        (Ok(d), Ok(c)) => same(&host(&d), &c),
        (Err(d), Err(c)) => assert_eq!(d.to_string(), c.to_string(), "{what}"),
        (d, c) => panic!("{what}: device {d:?} cpu {c:?}"),
    }
}

/// Asserts the device's `u32` indices equal the CPU's `usize` ones, shape and values.
#[track_caller]
fn assert_same_indices<D: Dimension>(dev: &Tensor<u32, IxDyn>, cpu: &Tensor<usize, D>, what: &str) {
    assert_eq!(dev.shape(), cpu.shape(), "{what}: shapes");
    let want: Vec<u32> = cpu.iter().map(|&x| x as u32).collect();
    assert_eq!(dev.to_vec(), want, "{what}");
}

#[test]
fn sum_mean_max_min_over_any_axes() {
    let Some(dev) = device() else { return };
    for seed in 30..34 {
        let mut r = rng(seed);
        for case in cases(&mut r) {
            let base = randf(&mut r, &case.base);
            let cpu = apply_cpu(base.view(), &case.steps);
            let g = apply_dev(base.to_device(&dev).unwrap(), &case.steps);
            let bi = randi(&mut r, &case.base);
            let ci = apply_cpu(bi.view(), &case.steps);
            let gi = apply_dev(bi.to_device(&dev).unwrap(), &case.steps);
            for axes in axis_sets(&mut r, cpu.ndim()) {
                for keep in [false, true] {
                    let what = format!("{} axes {axes:?} keepdims {keep} seed {seed}", case.name);
                    // Tree order differs from the CPU's pairwise order: a few ulp of the sum.
                    assert_close(
                        &host(&g.sum_axes(&axes, keep).unwrap()),
                        &cpu.sum_axes(&axes, keep).unwrap(),
                        1e-5,
                        1e-5,
                        &what,
                    );
                    assert_close(
                        &host(&g.mean_axes(&axes, keep).unwrap()),
                        &cpu.mean_axes(&axes, keep).unwrap(),
                        1e-5,
                        1e-6,
                        &what,
                    );
                    assert_same(
                        &host(&gi.sum_axes(&axes, keep).unwrap()),
                        &ci.sum_axes(&axes, keep).unwrap(),
                        &what,
                    );
                    agree(
                        g.max_axes(&axes, keep),
                        cpu.max_axes(&axes, keep),
                        &what,
                        |d, c| assert_same(d, c, &what),
                    );
                    if let Ok(c) = ci.min_axes(&axes, keep) {
                        assert_same(&host(&gi.min_axes(&axes, keep).unwrap()), &c, &what);
                    }
                }
                if let Some(&a) = axes.first() {
                    let what = format!("single axis {} axis {a} seed {seed}", case.name);
                    assert_close(
                        &host(&g.sum_axis(a).unwrap()),
                        &cpu.sum_axis(a).unwrap(),
                        1e-5,
                        1e-5,
                        &what,
                    );
                    assert_close(
                        &host(&g.mean_axis(a).unwrap()),
                        &cpu.mean_axis(a).unwrap(),
                        1e-5,
                        1e-6,
                        &what,
                    );
                    assert_same(
                        &host(&gi.sum_axis(a).unwrap()),
                        &ci.sum_axis(a).unwrap(),
                        &what,
                    );
                    agree(g.max_axis(a), cpu.max_axis(a), &what, |d, c| {
                        assert_same(d, c, &what)
                    });
                    if let Ok(c) = ci.min_axis(a) {
                        assert_same(&host(&gi.min_axis(a).unwrap()), &c, &what);
                    }
                    let what = format!("argmax {} axis {a}", case.name);
                    agree(g.argmax_axis(a), cpu.argmax_axis(a), &what, |d, c| {
                        assert_same_indices(d, c, &what)
                    });
                    if let Ok(c) = ci.argmin_axis(a) {
                        assert_same_indices(&host(&gi.argmin_axis(a).unwrap()), &c, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn nan_ties_and_empty_as_cpu() {
    let Some(dev) = device() else { return };
    let t = Tensor::from_vec(
        vec![1.0f32, 5.0, 5.0, f32::NAN, 2.0, f32::NAN, 0.0, 7.0, 7.0],
        vec![3, 3],
    )
    .unwrap();
    let g = t.to_device(&dev).unwrap();
    assert_close(
        &host(&g.max_axes(&[1], false).unwrap()),
        &t.max_axes(&[1], false).unwrap(),
        0.0,
        0.0,
        "max NaN",
    );
    assert_close(
        &host(&g.min_axes(&[0], false).unwrap()),
        &t.min_axes(&[0], false).unwrap(),
        0.0,
        0.0,
        "min NaN",
    );
    assert_close(
        &host(&g.sum_axes(&[1], false).unwrap()),
        &t.sum_axes(&[1], false).unwrap(),
        0.0,
        0.0,
        "sum NaN",
    );
    assert_same_indices(
        &host(&g.argmax_axis(1).unwrap()),
        &t.argmax_axis(1).unwrap(),
        "argmax NaN",
    );
    assert_eq!(
        host(&g.argmax().unwrap()).to_vec(),
        vec![t.argmax().unwrap() as u32],
        "first NaN, flattened"
    );
    let e = Tensor::<f32, _>::zeros(vec![0, 3]);
    let ge = e.to_device(&dev).unwrap();
    assert_same(
        &host(&ge.sum_axes(&[0], false).unwrap()),
        &e.sum_axes(&[0], false).unwrap(),
        "empty sum",
    );
    assert!(
        host(&ge.mean_axes(&[0], false).unwrap())
            .iter()
            .all(|x| x.is_nan()),
        "empty mean is NaN"
    );
    assert_eq!(
        ge.max_axes(&[0], false).unwrap_err().to_string(),
        e.max_axes(&[0], false).unwrap_err().to_string()
    );
    assert_eq!(
        ge.argmax().unwrap_err().to_string(),
        e.argmax().unwrap_err().to_string()
    );
    assert_eq!(
        host(&ge.max_axes(&[1], false).unwrap()).shape(),
        &[0],
        "no outputs, no error"
    );
    let s = Tensor::scalar(4.5f32).into_dyn();
    assert_eq!(
        host(&s.to_device(&dev).unwrap().sum().unwrap()).to_vec(),
        vec![4.5],
        "0-d"
    );
    assert!(g.sum_axes(&[2], false).is_err());
}

#[test]
fn long_and_wide_reductions() {
    let Some(dev) = device() else { return };
    let mut r = rng(40);
    // Long: 3 passes (4096 elements per workgroup per pass), strided (every other).
    let long = randf(&mut r, &[2, 3 * 4096 * 4096 / 1024 + 13]);
    let cpu = long.slice(s![.., ..;-2]);
    let g = long.to_device(&dev).unwrap();
    let gv = g.slice(s![.., ..;-2]);
    assert_close(
        &host(&gv.sum_axes(&[1], false).unwrap()),
        &cpu.sum_axes(&[1], false).unwrap(),
        1e-4,
        1e-3,
        "long sum",
    );
    assert_same(
        &host(&gv.max_axes(&[1], true).unwrap()),
        &cpu.max_axes(&[1], true).unwrap(),
        "long max",
    );
    assert_same_indices(
        &host(&gv.argmin_axis(1).unwrap()),
        &cpu.argmin_axis(1).unwrap(),
        "long argmin over partials",
    );
    // Wide: many outputs over a strided axis (one thread per output).
    let wide = randi(&mut r, &[300, 5000]);
    let gw = wide.to_device(&dev).unwrap();
    assert_same(
        &host(&gw.sum_axes(&[0], false).unwrap()),
        &wide.sum_axes(&[0], false).unwrap(),
        "wide sum",
    );
    assert_same_indices(
        &host(&gw.argmax_axis(0).unwrap()),
        &wide.argmax_axis(0).unwrap(),
        "wide argmax",
    );
}
