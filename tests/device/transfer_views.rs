//! Transfers (bit-exact, every ownership kind, every element type), views (the CPU's
//! layouts, never a kernel), errors (devices, memory) and the backend trait.

use crate::common::*;
use ferrotensor::device::{Backend, Cpu, Device, TensorOps};
use ferrotensor::prelude::*;
use half::f16;

#[test]
fn round_trips_are_bit_exact() {
    let Some(dev) = device() else { return };
    let f: Vec<f32> = vec![
        f32::NAN,
        f32::from_bits(0x7fa0_0001),
        -0.0,
        1e-45,
        f32::MAX,
        f32::NEG_INFINITY,
        3.5,
    ];
    let t = Tensor::from_vec(f.clone(), vec![7]).unwrap();
    let back = t.to_device(&dev).unwrap().to_host().unwrap();
    assert_eq!(
        back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        f.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    let i = Tensor::from_vec(vec![i32::MIN, -1, 0, i32::MAX], vec![2, 2]).unwrap();
    assert_same(&i.to_device(&dev).unwrap().to_host().unwrap(), &i, "i32");
    let u = Tensor::from_vec(vec![u32::MAX, 0, 7], vec![3]).unwrap();
    assert_same(&u.to_device(&dev).unwrap().to_host().unwrap(), &u, "u32");
    let b = Tensor::from_vec(vec![true, false, true], vec![3]).unwrap();
    assert_same(&b.to_device(&dev).unwrap().to_host().unwrap(), &b, "bool");
    let h = Tensor::from_vec(
        vec![
            f16::from_bits(0x7e01),
            f16::from_bits(1),
            f16::MAX,
            f16::NEG_INFINITY,
            f16::from_f32(-0.0),
        ],
        vec![5],
    )
    .unwrap();
    let hb = |t: &Tensor<f16, IxDyn>| t.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    match h.to_device(&dev) {
        Ok(g) => {
            assert_eq!(
                hb(&g.to_host().unwrap()),
                hb(&h),
                "f16 (odd count: padded buffer)"
            );
            // An odd offset into an f16 buffer reads back through the 4-byte alignment.
            let s = g.slice([SliceItem::Range {
                start: Some(1),
                stop: Some(4),
                step: 1,
            }]);
            assert_eq!(
                hb(&s.to_host().unwrap()),
                hb(&h
                    .slice([SliceItem::Range {
                        start: Some(1),
                        stop: Some(4),
                        step: 1
                    }])
                    .to_owned())
            );
        }
        Err(e) => {
            assert!(!dev.supports_f16());
            assert!(
                e.to_string().contains("f16") && e.to_string().contains("not supported"),
                "{e}"
            );
        }
    }
    // 0-d and empty.
    let s = Tensor::scalar(2.5f32);
    assert_eq!(
        s.to_device(&dev)
            .unwrap()
            .to_host()
            .unwrap()
            .to_scalar()
            .unwrap(),
        2.5
    );
    let e = Tensor::<i32, _>::zeros([3, 0, 2]);
    assert_eq!(
        e.to_device(&dev).unwrap().to_host().unwrap().shape(),
        &[3, 0, 2]
    );
}

#[test]
fn to_device_from_every_ownership_kind() {
    let Some(dev) = device() else { return };
    let mut r = rng(80);
    let t = randf(&mut r, &[5, 6]).into_dim::<Ix2>().unwrap();
    let want = t.to_vec();
    let mut m = t.clone();
    assert_eq!(
        t.to_device(&dev).unwrap().to_host().unwrap().to_vec(),
        want,
        "owned"
    );
    assert_eq!(
        t.view()
            .to_device(&dev)
            .unwrap()
            .to_host()
            .unwrap()
            .to_vec(),
        want,
        "view"
    );
    assert_eq!(
        m.view_mut()
            .to_device(&dev)
            .unwrap()
            .to_host()
            .unwrap()
            .to_vec(),
        want,
        "mut view"
    );
    assert_eq!(
        t.reshape([30])
            .unwrap()
            .to_device(&dev)
            .unwrap()
            .to_host()
            .unwrap()
            .to_vec(),
        want,
        "cow"
    );
    assert_eq!(
        t.clone()
            .into_shared()
            .to_device(&dev)
            .unwrap()
            .to_host()
            .unwrap()
            .to_vec(),
        want,
        "arc"
    );
    // A transposed view keeps its strides on the device; a strided one is packed first.
    let gt = t.t().to_device(&dev).unwrap();
    assert_eq!(gt.strides(), t.t().strides());
    assert_eq!(gt.to_host().unwrap().to_vec(), t.t().to_vec());
    let s = t.slice([SliceItem::Range {
        start: None,
        stop: None,
        step: 2,
    }]);
    let gs = s.to_device(&dev).unwrap();
    assert!(gs.is_contiguous());
    assert_eq!(gs.to_host().unwrap().to_vec(), s.to_vec());
    let b = t
        .slice([SliceItem::Index(0)])
        .broadcast_to([1000, 6])
        .unwrap();
    let gb = b.to_device(&dev).unwrap();
    assert_eq!(gb.strides(), &[0, 1], "a broadcast uploads one row");
    assert_eq!(gb.to_host().unwrap().to_vec(), b.to_vec());
}

#[test]
fn views_use_the_cpu_layouts_and_share_the_buffer() {
    let Some(dev) = device() else { return };
    let mut r = rng(81);
    let t = randf(&mut r, &[4, 6, 5]);
    let g = t.to_device(&dev).unwrap();
    let steps: Vec<Vec<Step>> = vec![
        vec![Step::Slice(vec![
            SliceItem::Range {
                start: Some(3),
                stop: Some(0),
                step: -2,
            },
            SliceItem::Index(2),
        ])],
        vec![Step::Permute(vec![2, 0, 1]), Step::Flip(1)],
        vec![
            Step::Slice(vec![SliceItem::NewAxis, SliceItem::Ellipsis]),
            Step::Broadcast(vec![3, 4, 6, 5]),
        ],
    ];
    for s in &steps {
        let (c, d) = (apply_cpu(t.view(), s), apply_dev(g.clone(), s));
        assert_eq!(d.layout(), c.layout(), "{s:?}");
        assert!(d.shares_buffer(&g), "{s:?}: no copy");
        assert_eq!(d.to_host().unwrap().to_vec(), c.to_vec(), "{s:?}");
    }
    assert_eq!(g.squeeze().shape(), t.squeeze().shape());
    assert_eq!(
        g.unsqueeze(-1).unwrap().layout(),
        t.unsqueeze(-1).unwrap().layout()
    );
    assert_eq!(
        g.swap_axes(0, 2).unwrap().layout(),
        t.swap_axes(0, 2).unwrap().layout()
    );
    assert_eq!(
        g.moveaxis(0, -1).unwrap().layout(),
        t.moveaxis(0, -1).unwrap().layout()
    );
    // reshape: a view exactly when NumPy (and the CPU) gives one.
    for (v, dv) in [(t.view(), g.clone()), (t.t(), g.t())] {
        let cr = v.reshape(vec![20, 6]).unwrap();
        let dr = dv.reshape(vec![20, 6]).unwrap();
        assert_eq!(dr.shares_buffer(&g), cr.is_view());
        assert_eq!(dr.to_host().unwrap().to_vec(), cr.to_vec());
    }
    assert_eq!(
        g.reshape([7]).unwrap_err().to_string(),
        t.reshape([7]).unwrap_err().to_string()
    );
    assert_eq!(
        g.try_slice([SliceItem::Index(9)]).unwrap_err().to_string(),
        t.try_slice([SliceItem::Index(9)]).unwrap_err().to_string()
    );
}

#[test]
fn errors_name_the_operation_shapes_and_devices() {
    let Some(dev) = device() else { return };
    let other = Device::wgpu().unwrap();
    assert_ne!(dev, other);
    let a = Tensor::<f32, _>::ones([2, 3]).to_device(&dev).unwrap();
    let b = Tensor::<f32, _>::ones([3]).to_device(&other).unwrap();
    let e = a.try_add(&b).unwrap_err().to_string();
    assert!(
        e.starts_with("add: operands are on different devices: shape (2, 3) on wgpu:"),
        "{e}"
    );
    assert!(e.contains("shape (3,) on wgpu:"), "{e}");
    assert!(
        a.matmul(&b)
            .unwrap_err()
            .to_string()
            .starts_with("matmul: operands are on different devices")
    );
    // Larger than any buffer the device allows: Err, not an abort.
    let n = (dev.max_buffer_bytes() / 4 + 1) as usize;
    let one = Tensor::<f32, _>::zeros([1]);
    let big = one.broadcast_to([n]).unwrap().to_device(&dev).unwrap();
    assert_eq!(
        big.strides(),
        &[0],
        "a broadcast of one element uploads one element"
    );
    let e = big.to_contiguous().unwrap_err().to_string();
    assert!(
        e.starts_with("to_contiguous: out of device memory") && e.contains(&format!("({n},)")),
        "{e}"
    );
    let e = big.try_map_float("exp").unwrap_err().to_string();
    assert!(e.starts_with("exp: out of device memory"), "{e}");
}

fn pipeline<B: Backend>(dev: &B, x: &Tensor<f32, Ix2>) -> ferrotensor::Result<Tensor<f32, IxDyn>> {
    let g = dev.upload(x)?;
    let p = g.matmul(&g.t())?.softmax(-1)?;
    let q = p.try_add(&p)?.tanh().exp();
    q.sum_axes(&[1], false)?.to_host()
}

#[test]
fn one_generic_function_runs_on_either_backend() {
    let Some(dev) = device() else { return };
    let mut r = rng(82);
    let x = randf(&mut r, &[9, 13]).into_dim::<Ix2>().unwrap();
    let on_cpu = pipeline(&Cpu, &x).unwrap();
    let on_gpu = pipeline(&dev, &x).unwrap();
    assert_close(&on_gpu, &on_cpu, 1e-5, 1e-5, "same code, both devices");
    assert!(Backend::name(&dev).contains("wgpu:"));
}
