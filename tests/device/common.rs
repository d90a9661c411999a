//! Shared helpers: the device, random tensors, the layouts every kernel is tried on,
//! and comparison with the CPU result.

use ferrotensor::device::{Device, DeviceElement, DeviceTensor};
use ferrotensor::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::OnceLock;

/// The test device, opened once per test binary; `None` (after a note) when no adapter
/// exists and `FERROTENSOR_REQUIRE_DEVICE` is not `1`.
pub fn device() -> Option<Device> {
    static DEV: OnceLock<Option<Device>> = OnceLock::new();
    DEV.get_or_init(|| match Device::wgpu() {
        Ok(d) => {
            eprintln!("device tests on {d:?}");
            Some(d)
        }
        Err(e) => {
            if std::env::var("FERROTENSOR_REQUIRE_DEVICE").is_ok_and(|v| v == "1") {
                panic!("FERROTENSOR_REQUIRE_DEVICE=1 but {e}");
            }
            eprintln!("skipping device tests: {e}");
            None
        }
    })
    .clone()
}

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// One view step, applied alike to a CPU view and a device tensor.
#[derive(Clone, Debug)]
pub enum Step {
    Slice(Vec<SliceItem>),
    Permute(Vec<isize>),
    Flip(isize),
    Broadcast(Vec<usize>),
}

pub fn apply_cpu<'a, T: Element>(
    mut v: TensorView<'a, T, IxDyn>,
    steps: &[Step],
) -> TensorView<'a, T, IxDyn> {
    for s in steps {
        v = match s {
            Step::Slice(items) => v.slice(items),
            Step::Permute(p) => v.permute(p).unwrap(),
            Step::Flip(a) => v.flip(*a).unwrap(),
            Step::Broadcast(sh) => v.broadcast_to(sh.clone()).unwrap(),
        };
    }
    v
}

pub fn apply_dev<T: DeviceElement>(
    mut g: DeviceTensor<T, IxDyn>,
    steps: &[Step],
) -> DeviceTensor<T, IxDyn> {
    for s in steps {
        g = match s {
            Step::Slice(items) => g.slice(items),
            Step::Permute(p) => g.permute(p).unwrap(),
            Step::Flip(a) => g.flip(*a).unwrap(),
            Step::Broadcast(sh) => g.broadcast_to(sh.clone()).unwrap(),
        };
    }
    g
}

/// A named case: a base shape and the view steps that make the operand's layout.
pub struct Case {
    pub name: &'static str,
    pub base: Vec<usize>,
    pub steps: Vec<Step>,
}

fn range(start: isize, step: isize) -> SliceItem {
    SliceItem::Range {
        start: Some(start),
        stop: None,
        step,
    }
}

/// The layouts every element-wise kernel is tried on, for a random result shape of
/// rank 1 to 4 (odd lengths, so no workgroup is full): contiguous, transposed,
/// flipped, offset and strided, broadcast, zero-length and 0-d.
pub fn cases(r: &mut StdRng) -> Vec<Case> {
    let nd = r.random_range(1..=4);
    let shape: Vec<usize> = (0..nd)
        .map(|_| r.random_range(1..=13usize) * 2 + 1)
        .collect();
    let rev: Vec<usize> = shape.iter().rev().copied().collect();
    let perm: Vec<isize> = (0..nd as isize).rev().collect();
    let mut bigger = shape.clone();
    bigger[0] = shape[0] * 2 + 1;
    let mut one = shape.clone();
    one[nd - 1] = 1;
    let mut zero = shape.clone();
    zero[0] = 0;
    vec![
        Case {
            name: "contiguous",
            base: shape.clone(),
            steps: vec![],
        },
        Case {
            name: "transposed",
            base: rev,
            steps: vec![Step::Permute(perm)],
        },
        Case {
            name: "flipped",
            base: shape.clone(),
            steps: vec![Step::Flip(0), Step::Flip(-1)],
        },
        Case {
            name: "offset+strided",
            base: bigger,
            steps: vec![Step::Slice(vec![range(1, 2)])],
        },
        Case {
            name: "negative step",
            base: shape.clone(),
            steps: vec![Step::Slice(vec![range(-1, -1)])],
        },
        Case {
            name: "broadcast",
            base: one,
            steps: vec![Step::Broadcast(shape.clone())],
        },
        Case {
            name: "zero-length",
            base: zero,
            steps: vec![],
        },
        Case {
            name: "0-d",
            base: vec![],
            steps: vec![],
        },
    ]
}

/// Random `f32` data in `[-3, 3)`.
pub fn randf(r: &mut StdRng, shape: &[usize]) -> Tensor<f32, IxDyn> {
    Tensor::from_shape_fn(shape.to_vec(), |_: &[usize]| r.random_range(-3.0f32..3.0))
}

/// Random `i32` data in `[-50, 50)`.
pub fn randi(r: &mut StdRng, shape: &[usize]) -> Tensor<i32, IxDyn> {
    Tensor::from_shape_fn(shape.to_vec(), |_: &[usize]| r.random_range(-50..50))
}

/// Asserts equal shapes and values within `rtol`/`atol` (NaN matches NaN, ±∞ itself).
#[track_caller]
pub fn assert_close<T: Element + Into<f64>>(
    got: &Tensor<T, IxDyn>,
    want: &Tensor<T, IxDyn>,
    rtol: f64,
    atol: f64,
    what: &str,
) {
    assert_eq!(got.shape(), want.shape(), "{what}: shapes");
    for (i, (&g, &w)) in got.iter().zip(want.iter()).enumerate() {
        let (g, w): (f64, f64) = (g.into(), w.into());
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= atol + rtol * w.abs();
        assert!(ok, "{what}: element {i}: device {g} vs cpu {w}");
    }
}

/// `f32` results compared within a few ulp-ish tolerance.
#[track_caller]
pub fn assert_close_f32(got: &Tensor<f32, IxDyn>, want: &Tensor<f32, IxDyn>, what: &str) {
    assert_close(got, want, 2e-6, 1e-6, what);
}

/// The host copy of a device tensor, as dynamic rank.
pub fn host<T: DeviceElement, D: Dimension>(g: &DeviceTensor<T, D>) -> Tensor<T, IxDyn> {
    g.to_host().unwrap().into_dyn()
}

/// Asserts equal shapes and exactly equal elements.
#[track_caller]
pub fn assert_same<T: Element, D1: Dimension, D2: Dimension>(
    got: &Tensor<T, D1>,
    want: &Tensor<T, D2>,
    what: &str,
) {
    assert_eq!(got.shape(), want.shape(), "{what}: shapes");
    assert_eq!(got.to_vec(), want.to_vec(), "{what}");
}
