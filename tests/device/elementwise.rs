//! Unary, binary, comparison, cast and copy kernels against the CPU on every layout.

use crate::common::*;
use ferrotensor::device::DeviceTensor;
use ferrotensor::prelude::*;
use half::f16;

type Unary<T> = (
    &'static str,
    fn(&Tensor<T, IxDyn>) -> Tensor<T, IxDyn>,
    fn(&DeviceTensor<T, IxDyn>) -> DeviceTensor<T, IxDyn>,
);

fn float_unaries() -> Vec<Unary<f32>> {
    vec![
        ("exp", |t| t.exp(), |g| g.exp()),
        ("ln", |t| t.ln(), |g| g.ln()),
        ("sqrt", |t| t.sqrt(), |g| g.sqrt()),
        ("tanh", |t| t.tanh(), |g| g.tanh()),
        ("sigmoid", |t| t.sigmoid(), |g| g.sigmoid()),
        ("relu", |t| t.relu(), |g| g.relu()),
        ("abs", |t| t.abs(), |g| g.abs()),
        ("neg", |t| t.neg(), |g| g.neg()),
    ]
}

#[test]
fn unary_f32_on_every_layout() {
    let Some(dev) = device() else { return };
    for seed in 0..6 {
        let mut r = rng(seed);
        for case in cases(&mut r) {
            let base = randf(&mut r, &case.base);
            let cpu = apply_cpu(base.view(), &case.steps);
            let g = apply_dev(base.to_device(&dev).unwrap(), &case.steps);
            assert_eq!(
                g.layout(),
                cpu.layout(),
                "{}: the device view has the CPU's layout",
                case.name
            );
            for (name, f, fd) in float_unaries() {
                let want = f(&cpu.to_owned());
                let got = host(&fd(&g));
                // The device's exp/log are accurate to a few ulp; tanh and sigmoid build on exp.
                assert_close(
                    &got,
                    &want,
                    1e-5,
                    1e-6,
                    &format!("{name} {} seed {seed}", case.name),
                );
            }
        }
    }
}

#[test]
fn unary_special_values_as_cpu() {
    let Some(dev) = device() else { return };
    let vals = vec![
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1e-30,
        -1e-30,
        88.0,
        89.0,
        -104.0,
        -110.0,
        1e30,
        -1e30,
        0.2,
        -0.2,
        0.25,
        20.0,
        -20.0,
    ];
    let t = Tensor::from_vec(vals, vec![18]).unwrap();
    let g = t.to_device(&dev).unwrap();
    for (name, f, fd) in float_unaries() {
        assert_close(&host(&fd(&g)), &f(&t), 1e-5, 1e-30, name);
    }
    let bits = |t: &Tensor<f32, IxDyn>| t.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&host(&g.neg())),
        bits(&t.neg()),
        "neg flips only the sign bit"
    );
    assert_eq!(
        bits(&host(&g.abs())),
        bits(&t.abs()),
        "abs clears only the sign bit"
    );
}

#[test]
fn unary_f16_and_integers() {
    let Some(dev) = device() else { return };
    let mut r = rng(7);
    for case in cases(&mut r) {
        let base = randf(&mut r, &case.base);
        let h = base.cast::<f16>();
        let cpu = apply_cpu(h.view(), &case.steps).to_owned();
        if dev.supports_f16() {
            let g = apply_dev(h.to_device(&dev).unwrap(), &case.steps);
            for (name, got, want) in [
                ("exp", host(&g.exp()), cpu.exp()),
                ("tanh", host(&g.tanh()), cpu.tanh()),
                ("relu", host(&g.relu()), cpu.relu()),
                ("neg", host(&g.neg()), cpu.neg()),
            ] {
                // Both compute in f32 and round once to f16: at most one f16 ulp apart.
                assert_close(
                    &got,
                    &want,
                    1e-3,
                    1e-4,
                    &format!("f16 {name} {}", case.name),
                );
            }
        }
        let bi = randi(&mut r, &case.base);
        let ci = apply_cpu(bi.view(), &case.steps).to_owned();
        let gi = apply_dev(bi.to_device(&dev).unwrap(), &case.steps);
        assert_same(
            &host(&gi.abs()),
            &ci.abs(),
            &format!("i32 abs {}", case.name),
        );
        assert_same(
            &host(&gi.neg()),
            &ci.neg(),
            &format!("i32 neg {}", case.name),
        );
        let bu = bi.cast::<u32>();
        let cu = apply_cpu(bu.view(), &case.steps).to_owned();
        let gu = apply_dev(bu.to_device(&dev).unwrap(), &case.steps);
        assert_same(
            &host(&gu.neg()),
            &cu.neg(),
            &format!("u32 neg {}", case.name),
        );
    }
    let extremes = Tensor::from_vec(vec![i32::MIN, i32::MAX, 0, -1], vec![4]).unwrap();
    let g = extremes.to_device(&dev).unwrap();
    assert_same(&host(&g.abs()), &extremes.abs(), "");
    assert_same(&host(&g.neg()), &extremes.neg(), "");
}

#[test]
fn binary_with_broadcasting_and_scalars() {
    let Some(dev) = device() else { return };
    for seed in 10..16 {
        let mut r = rng(seed);
        let cs = cases(&mut r);
        for (ca, cb) in cs
            .iter()
            .zip(cs.iter().rev())
            .filter(|(_, cb)| !cb.base.is_empty())
        {
            let (ba, bb) = (randf(&mut r, &ca.base), randf(&mut r, &cb.base));
            let (va, vb) = (
                apply_cpu(ba.view(), &ca.steps),
                apply_cpu(bb.view(), &cb.steps),
            );
            let ga = apply_dev(ba.to_device(&dev).unwrap(), &ca.steps);
            let gb = apply_dev(bb.to_device(&dev).unwrap(), &cb.steps);
            // Broadcast b's trailing shape against a's: a length-1 axis stretches.
            let vb1 = vb.slice([
                SliceItem::Ellipsis,
                SliceItem::Range {
                    start: Some(0),
                    stop: Some(1),
                    step: 1,
                },
            ]);
            let gb1 = gb.slice([
                SliceItem::Ellipsis,
                SliceItem::Range {
                    start: Some(0),
                    stop: Some(1),
                    step: 1,
                },
            ]);
            let cpu_ok = va.try_add(&vb1);
            let dev_ok = ga.try_add(&gb1);
            assert_eq!(
                cpu_ok.is_ok(),
                dev_ok.is_ok(),
                "{} + {}: same broadcast verdict",
                ca.name,
                cb.name
            );
            if let Err(e) = &cpu_ok {
                assert_eq!(dev_ok.unwrap_err().to_string(), e.to_string());
                continue;
            }
            let what = format!("{} with {} seed {seed}", ca.name, cb.name);
            assert_close_f32(&host(&(&ga + &gb1)), &(&va + &vb1), &format!("add {what}"));
            assert_close_f32(&host(&(&ga - &gb1)), &(&va - &vb1), &format!("sub {what}"));
            assert_close_f32(&host(&(&ga * &gb1)), &(&va * &vb1), &format!("mul {what}"));
            assert_close_f32(&host(&(&ga / &gb1)), &(&va / &vb1), &format!("div {what}"));
            assert_close_f32(
                &host(&ga.maximum(&gb1).unwrap()),
                &va.maximum(&vb1).unwrap(),
                &format!("maximum {what}"),
            );
            assert_close_f32(
                &host(&ga.minimum(&gb1).unwrap()),
                &va.minimum(&vb1).unwrap(),
                &format!("minimum {what}"),
            );
            assert_same(
                &host(&ga.lt(&gb1)),
                &va.lt(&vb1).unwrap(),
                &format!("lt {what}"),
            );
            assert_same(
                &host(&ga.ge(&gb1)),
                &va.ge(&vb1).unwrap(),
                &format!("ge {what}"),
            );
            // Scalars on either side keep the tensor's rank type.
            assert_close_f32(
                &host(&(&ga * 2.5)),
                &(&va * 2.5),
                &format!("scalar mul {what}"),
            );
            assert_close_f32(
                &host(&(1.5 - &ga)),
                &(1.5 - &va),
                &format!("scalar sub {what}"),
            );
            assert_same(
                &host(&ga.gt(0.5f32)),
                &va.gt(0.5f32).unwrap(),
                &format!("scalar gt {what}"),
            );
        }
    }
}

#[test]
fn binary_nan_inf_zero_as_cpu() {
    let Some(dev) = device() else { return };
    let xs = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -2.0,
    ];
    let n = xs.len();
    let a = Tensor::from_shape_fn(vec![n, n], |i: &[usize]| xs[i[0]]);
    let b = Tensor::from_shape_fn(vec![n, n], |i: &[usize]| xs[i[1]]);
    let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
    assert_close(&host(&(&ga / &gb)), &(&a / &b), 0.0, 0.0, "div");
    assert_close(&host(&(&ga + &gb)), &(&a + &b), 0.0, 0.0, "add");
    assert_close(&host(&(&ga * &gb)), &(&a * &b), 0.0, 0.0, "mul");
    assert_close(
        &host(&ga.maximum(&gb).unwrap()),
        &a.maximum(&b).unwrap(),
        0.0,
        0.0,
        "maximum",
    );
    assert_close(
        &host(&ga.minimum(&gb).unwrap()),
        &a.minimum(&b).unwrap(),
        0.0,
        0.0,
        "minimum",
    );
    for (name, got, want) in [
        ("eq", host(&ga.eq(&gb)), a.eq(&b).unwrap()),
        ("ne", host(&ga.ne(&gb)), a.ne(&b).unwrap()),
        ("lt", host(&ga.lt(&gb)), a.lt(&b).unwrap()),
        ("le", host(&ga.le(&gb)), a.le(&b).unwrap()),
        ("gt", host(&ga.gt(&gb)), a.gt(&b).unwrap()),
        ("ge", host(&ga.ge(&gb)), a.ge(&b).unwrap()),
    ] {
        assert_same(&got, &want, name);
    }
}

#[test]
fn integer_arithmetic_wraps_and_zero_division_is_err() {
    let Some(dev) = device() else { return };
    let mut r = rng(3);
    let a = randi(&mut r, &[7, 9]);
    let b = randi(&mut r, &[9]).map(|&x| if x == 0 { 3 } else { x });
    let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
    assert_same(&host(&(&ga / &gb)), &(&a / &b), "div");
    assert_same(&host(&(&ga * &gb)), &(&a * &b), "mul");
    let big = Tensor::from_vec(vec![i32::MAX, i32::MIN, i32::MIN], vec![3]).unwrap();
    let gbig = big.to_device(&dev).unwrap();
    assert_same(&host(&(&gbig + 1)), &(&big + 1), "add wraps");
    assert_same(
        &host(&(&gbig / -1)),
        &big.try_div(&Tensor::scalar(-1)).unwrap(),
        "MIN / -1 wraps",
    );
    let z = Tensor::from_vec(vec![1, 0, 2], vec![3])
        .unwrap()
        .to_device(&dev)
        .unwrap();
    let e = gbig.try_div(&z).unwrap_err();
    assert_eq!(
        e.to_string(),
        "divide: integer division by zero (divisor of shape (3,))"
    );
    let u = Tensor::from_vec(vec![3u32, 0], vec![2])
        .unwrap()
        .to_device(&dev)
        .unwrap();
    assert!(u.try_div(0u32).is_err());
    assert_eq!(
        host(&(&u - 5u32)).to_vec(),
        vec![u32::MAX - 1, u32::MAX - 4],
        "u32 wraps"
    );
}

#[test]
fn cast_between_all_types_as_cpu() {
    let Some(dev) = device() else { return };
    let f = Tensor::from_vec(
        vec![
            -3.9f32,
            3.9,
            0.5,
            -0.5,
            f32::NAN,
            f32::INFINITY,
            -1e10,
            1e10,
            16777217.0,
            65519.0,
            65520.0,
            -0.0,
            0.0,
            2147483520.0,
            4294967040.0,
        ],
        vec![15],
    )
    .unwrap();
    let i = Tensor::from_vec(
        vec![
            i32::MIN,
            i32::MAX,
            -1,
            0,
            1,
            16777217,
            16777219,
            65504,
            70000,
        ],
        vec![9],
    )
    .unwrap();
    let gf = f.to_device(&dev).unwrap();
    let gi = i.to_device(&dev).unwrap();
    assert_same(&host(&gf.cast::<i32>().unwrap()), &f.cast::<i32>(), "");
    assert_same(&host(&gf.cast::<u32>().unwrap()), &f.cast::<u32>(), "");
    assert_same(&host(&gf.cast::<bool>().unwrap()), &f.cast::<bool>(), "");
    assert_eq!(
        host(&gi.cast::<f32>().unwrap()).to_vec(),
        i.cast::<f32>().to_vec()
    );
    assert_same(&host(&gi.cast::<u32>().unwrap()), &i.cast::<u32>(), "");
    assert_eq!(
        host(&gi.cast::<u32>().unwrap().cast::<f32>().unwrap()).to_vec(),
        i.cast::<u32>().cast::<f32>().to_vec()
    );
    assert_same(&host(&gi.cast::<bool>().unwrap()), &i.cast::<bool>(), "");
    assert_same(
        &host(&gi.cast::<bool>().unwrap().cast::<i32>().unwrap()),
        &i.cast::<bool>().cast::<i32>(),
        "",
    );
    if dev.supports_f16() {
        let bits = |t: Tensor<f16, IxDyn>| t.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(host(&gf.cast::<f16>().unwrap())),
            bits(f.cast::<f16>()),
            "f32 -> f16 rounds as the CPU"
        );
        assert_eq!(
            bits(host(&gi.cast::<f16>().unwrap())),
            bits(i.cast::<f16>()),
            "i32 -> f16 rounds as the CPU"
        );
        let h = f.cast::<f16>();
        assert_close(
            &host(&h.to_device(&dev).unwrap().cast::<f32>().unwrap()),
            &h.cast::<f32>(),
            0.0,
            0.0,
            "f16 -> f32",
        );
    }
}

#[test]
fn to_contiguous_copies_bits_on_every_layout() {
    let Some(dev) = device() else { return };
    let mut r = rng(21);
    for case in cases(&mut r) {
        let base = randf(&mut r, &case.base).map(|&x| {
            if x > 2.5 {
                f32::from_bits(0x7fc0_1234)
            } else {
                x
            }
        });
        let cpu = apply_cpu(base.view(), &case.steps).to_owned();
        let g = apply_dev(base.to_device(&dev).unwrap(), &case.steps)
            .to_contiguous()
            .unwrap();
        assert!(g.is_contiguous());
        let bits = |t: &Tensor<f32, IxDyn>| t.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&host(&g)), bits(&cpu), "{}", case.name);
        if dev.supports_f16() {
            let h = base.cast::<f16>();
            let cpu = apply_cpu(h.view(), &case.steps).to_owned();
            let g = apply_dev(h.to_device(&dev).unwrap(), &case.steps)
                .to_contiguous()
                .unwrap();
            let hb = |t: &Tensor<f16, IxDyn>| t.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(hb(&host(&g)), hb(&cpu), "f16 {}", case.name);
        }
    }
}

#[test]
fn more_workgroups_than_one_dispatch_dimension() {
    let Some(dev) = device() else { return };
    // 65536 workgroups of 256 plus a partial one: the dispatch folds into two dimensions.
    let n = 65536 * 256 + 77;
    let t = Tensor::from_shape_fn(vec![n], |i: &[usize]| (i[0] % 1000) as f32 - 500.0);
    let g = t.to_device(&dev).unwrap();
    let got = host(&g.flip(0).unwrap().relu());
    let want = t.flip(0).unwrap().relu();
    assert_eq!(got.to_vec(), want.to_vec());
    let s = host(&(&g + &g).sum().unwrap()).to_vec()[0];
    assert_eq!(s, (&t + &t).sum());
}
