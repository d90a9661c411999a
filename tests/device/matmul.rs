//! matmul against the CPU: odd sizes, strided and transposed operands, batch
//! broadcasting, 1-D promotion, integers, f16, empty and error cases.

use crate::common::*;
use ferrotensor::prelude::*;
use half::f16;
use rand::Rng;

#[test]
fn matmul_random_shapes_and_layouts() {
    let Some(dev) = device() else { return };
    let mut r = rng(50);
    let sizes = [1usize, 3, 17, 63, 64, 65, 130];
    for it in 0..24 {
        let (m, k, n) = (
            sizes[r.random_range(0..7)],
            sizes[r.random_range(0..7)],
            sizes[r.random_range(0..7)],
        );
        let a = randf(&mut r, &[m, k]);
        let bt = randf(&mut r, &[n, k]);
        let (ga, gbt) = (a.to_device(&dev).unwrap(), bt.to_device(&dev).unwrap());
        let what = format!("({m}, {k}) @ ({k}, {n}) #{it}");
        // b is a transposed view: read through its strides, never copied.
        let want = a.matmul(&bt.t()).unwrap();
        assert_close(
            &host(&ga.matmul(&gbt.t()).unwrap()),
            &want,
            1e-5,
            1e-4,
            &what,
        );
        let fa = a.flip(0).unwrap();
        let gfa = ga.flip(0).unwrap();
        assert_close(
            &host(&gfa.matmul(&gbt.t()).unwrap()),
            &fa.matmul(&bt.t()).unwrap(),
            1e-5,
            1e-4,
            &format!("flipped {what}"),
        );
    }
}

#[test]
fn matmul_batches_vectors_ints_f16() {
    let Some(dev) = device() else { return };
    let mut r = rng(51);
    let x = randf(&mut r, &[2, 1, 5, 7]);
    let y = randf(&mut r, &[3, 7, 4]);
    let (gx, gy) = (x.to_device(&dev).unwrap(), y.to_device(&dev).unwrap());
    assert_close(
        &host(&gx.matmul(&gy).unwrap()),
        &x.matmul(&y).unwrap(),
        1e-5,
        1e-5,
        "batch broadcast",
    );
    let v = randf(&mut r, &[7]);
    let gv = v.to_device(&dev).unwrap();
    assert_close(
        &host(&gx.matmul(&gv).unwrap()),
        &x.matmul(&v).unwrap(),
        1e-5,
        1e-5,
        "matrix @ vector",
    );
    assert_close(
        &host(&gv.matmul(&gy).unwrap()),
        &v.matmul(&y).unwrap(),
        1e-5,
        1e-5,
        "vector @ matrix",
    );
    assert_close(
        &host(&gv.matmul(&gv).unwrap()),
        &v.matmul(&v).unwrap(),
        1e-5,
        1e-5,
        "vector @ vector (0-d)",
    );
    let ai = randi(&mut r, &[33, 70]);
    let bi = randi(&mut r, &[70, 9]);
    let gai = ai.to_device(&dev).unwrap();
    assert_same(
        &host(&gai.matmul(&bi.to_device(&dev).unwrap()).unwrap()),
        &ai.matmul(&bi).unwrap(),
        "i32 exact",
    );
    if dev.supports_f16() {
        let (ah, bh) = (
            randf(&mut r, &[20, 30]).cast::<f16>(),
            randf(&mut r, &[30, 11]).cast::<f16>(),
        );
        let got = host(
            &ah.to_device(&dev)
                .unwrap()
                .matmul(&bh.to_device(&dev).unwrap())
                .unwrap(),
        );
        assert_close(&got, &ah.matmul(&bh).unwrap(), 1e-2, 1e-2, "f16");
    }
    // k = 0 gives zeros; an empty batch gives an empty result.
    let z = Tensor::<f32, _>::zeros(vec![3, 0]).to_device(&dev).unwrap();
    let z2 = Tensor::<f32, _>::zeros(vec![0, 4]).to_device(&dev).unwrap();
    assert_eq!(host(&z.matmul(&z2).unwrap()).to_vec(), vec![0.0; 12]);
    // More than 65535 workgroups (one per 1 x 1 product).
    let many = randf(&mut r, &[70000, 1, 2]);
    let gm = many.to_device(&dev).unwrap();
    assert_close(
        &host(&gm.matmul(&gm.permute(&[0, 2, 1]).unwrap()).unwrap()),
        &many.matmul(&many.permute(&[0, 2, 1]).unwrap()).unwrap(),
        1e-6,
        1e-6,
        "70000 batches",
    );
}

#[test]
fn matmul_errors_as_cpu() {
    let Some(dev) = device() else { return };
    let a = Tensor::<f32, _>::zeros(vec![2, 3]);
    let b = Tensor::<f32, _>::zeros(vec![2, 3, 4, 5]);
    let c = Tensor::<f32, _>::zeros(vec![4, 5, 2]);
    let s = Tensor::scalar(1.0f32).into_dyn();
    let g = |t: &Tensor<f32, IxDyn>| t.to_device(&dev).unwrap();
    for (x, y) in [(&a, &a), (&b, &c), (&s, &a), (&a, &s)] {
        assert_eq!(
            g(x).matmul(&g(y)).unwrap_err().to_string(),
            x.matmul(y).unwrap_err().to_string()
        );
    }
}
