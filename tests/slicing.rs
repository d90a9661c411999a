//! Basic slicing against NumPy: golden cases (tests/golden/slicing.json) and the
//! reference examples, plus the rank-keeping and step views.

use crate::common;
use ferrotensor::prelude::*;

#[test]
fn golden_slicing_matches_numpy() {
    let cases = common::load("slicing.json");
    assert!(cases.len() >= 2000);
    let (mut ok, mut err) = (0, 0);
    for case in &cases {
        let x = common::base(case);
        let v = common::pre(&x, case);
        let items = common::items(&case["items"]);
        let r = v.try_slice(&items);
        if case["ok"].as_bool().unwrap() {
            let r = r.unwrap_or_else(|e| panic!("{e} for case {case}"));
            common::check(&r, case, "slice");
            assert!(std::ptr::eq(r.buffer(), x.buffer()), "a slice never copies");
            ok += 1;
        } else {
            assert!(r.is_err(), "expected Err for case {case}");
            err += 1;
        }
    }
    assert!(ok > 1500 && err > 100, "{ok} ok, {err} errors");
}

#[test]
fn reference_examples() {
    let a = Tensor::<i32, _>::arange(10);
    assert_eq!(a.slice(s![8..2;-2]).to_vec(), vec![8, 6, 4]);
    assert_eq!(
        a.slice(s![100..;-1]).to_vec(),
        (0..10).rev().collect::<Vec<_>>()
    );
    assert_eq!(a.slice(s![-100..;-1]).size(), 0);
    assert_eq!(a.slice(s![0..4;-2]).size(), 0);
    assert_eq!(a.slice(s![-100..100]).size(), 10);
    assert_eq!(a.slice(s![1..;-2]).to_vec(), vec![1]);
    let n = 3usize;
    assert_eq!(a.slice(s![n..;n as i64]).to_vec(), vec![3, 6, 9]);
}

#[test]
fn slice_errors_are_errs_naming_slice() {
    let a = Tensor::<i32, _>::zeros([2, 3]);
    for items in [
        vec![SliceItem::Range {
            start: None,
            stop: None,
            step: 0,
        }],
        vec![SliceItem::Index(2)],
        vec![SliceItem::Index(-3)],
        vec![
            SliceItem::Index(0),
            SliceItem::Index(0),
            SliceItem::Index(0),
        ],
        vec![SliceItem::Ellipsis, SliceItem::Ellipsis],
    ] {
        let e = a.try_slice(&items).unwrap_err();
        assert!(e.to_string().starts_with("slice:"), "{e}");
    }
}

#[test]
#[should_panic(expected = "out of bounds")]
fn slice_panics_with_the_error_message() {
    let a = Tensor::<i32, _>::zeros([2]);
    let _ = a.slice(s![5]);
}

#[test]
fn slice_ranges_keeps_fixed_rank() {
    let a = Tensor::<i32, _>::arange(24).into_shape([2, 3, 4]).unwrap();
    let v: TensorView<'_, i32, Ix3> = a.slice_ranges(s![.., 1..;-1, Ellipsis]).unwrap();
    assert_eq!(v.to_vec(), a.slice(s![.., 1..;-1]).to_vec());
    let w: TensorView<'_, i32, Ix3> = v.slice_ranges(s![..;-1]).unwrap();
    assert_eq!(w.shape(), &[2, 2, 4]);
    assert!(a.slice_ranges(s![.., NewAxis]).is_err());
    assert!(a.slice_ranges(s![1]).is_err());
    assert!(a.slice_ranges(s![.., .., .., ..]).is_err());
    assert!(a.slice_ranges(s![..;0]).is_err());
    let mut m = a.clone();
    let mut mv: TensorMut<'_, i32, Ix3> = m.slice_ranges_mut(s![.., .., ..;3]).unwrap();
    mv.fill(-1);
    assert_eq!(m.slice(s![0, 0]).to_vec(), vec![-1, 1, 2, -1]);
}

#[test]
fn step_by_equals_python_step_slices() {
    let a = Tensor::<i32, _>::arange(30).into_shape([5, 6]).unwrap();
    for k in [-7isize, -3, -2, -1, 1, 2, 4, 7] {
        for ax in [0isize, 1, -1] {
            let mut items = vec![
                SliceItem::Range {
                    start: None,
                    stop: None,
                    step: 1
                };
                2
            ];
            items[ax.rem_euclid(2) as usize] = SliceItem::Range {
                start: None,
                stop: None,
                step: k,
            };
            let s = a.step_by(ax, k).unwrap();
            let r = a.slice(&items);
            assert_eq!(
                (s.shape(), s.strides(), s.to_vec()),
                (r.shape(), r.strides(), r.to_vec())
            );
        }
    }
    assert!(a.step_by(0, 0).is_err());
    assert!(a.step_by(2, 1).is_err());
    let e = Tensor::<i32, _>::zeros([0]);
    assert_eq!(e.step_by(0, -2).unwrap().size(), 0);
}

#[test]
fn slice_mut_writes_reach_the_parent() {
    let mut a = Tensor::<i32, _>::zeros([3, 4]);
    {
        let mut v = a.slice_mut(s![1.., ..;-2]);
        v[[0, 0]] = 5; // a[1, 3]
        v.fill(2);
        v[[1, 1]] = 9; // a[2, 1]
    }
    assert_eq!(a.to_vec(), vec![0, 0, 0, 0, 0, 2, 0, 2, 0, 9, 0, 2]);
}
