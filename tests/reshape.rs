//! Reshape against NumPy: golden cases (tests/golden/reshape.json) for the view-or-copy
//! decision, strides and values on transposed, sliced and reversed inputs; the no-copy
//! variants (`reshape_view`, `merge_axes`, `split_axis`) and `into_shape`.

use crate::common;
use ferrotensor::prelude::*;
use serde_json::Value;

fn order(case: &Value) -> Order {
    if case["order"] == "F" {
        Order::ColMajor
    } else {
        Order::RowMajor
    }
}

#[test]
fn golden_reshape_matches_numpy() {
    let cases: Vec<Value> = common::load("reshape.json")
        .into_iter()
        .filter(|c| c.get("op").is_none())
        .collect();
    assert!(cases.len() >= 1000);
    let (mut views, mut copies, mut errs) = (0, 0, 0);
    for case in &cases {
        let x = common::base(case);
        let v = common::pre(&x, case);
        let new = common::isizes(&case["new"]);
        let r = if new.contains(&-1) {
            v.reshape_infer(&new)
        } else {
            let shape: Vec<usize> = new.iter().map(|&d| d as usize).collect();
            v.reshape_order(shape, order(case))
        };
        if !case["ok"].as_bool().unwrap() {
            assert!(r.is_err(), "expected Err, case {case}");
            if !new.contains(&-1) {
                let shape: Vec<usize> = new.iter().map(|&d| d as usize).collect();
                assert!(v.reshape_view_order(shape, order(case)).is_err());
            }
            errs += 1;
            continue;
        }
        let r = r.unwrap_or_else(|e| panic!("{e}, case {case}"));
        common::check(&r, case, "reshape");
        // With an explicit shape (no -1), NumPy keeps the strides of an equal shape.
        let mut explicit = case.clone();
        if new.contains(&-1) {
            explicit.as_object_mut().unwrap().remove("strides");
        }
        let shape = r.shape().to_vec();
        let no_copy = v.reshape_view_order(shape.clone(), order(case));
        match case.get("view").and_then(Value::as_bool) {
            Some(true) => {
                views += 1;
                assert!(r.is_view(), "NumPy gives a view, case {case}");
                assert!(std::ptr::eq(r.buffer(), x.buffer()));
                common::check(
                    &no_copy.expect("reshape_view of a view"),
                    &explicit,
                    "reshape_view",
                );
            }
            Some(false) => {
                copies += 1;
                assert!(!r.is_view(), "NumPy copies, case {case}");
                assert!(r.is_contiguous() || order(case) == Order::ColMajor);
                let e = no_copy.expect_err("reshape_view must refuse to copy");
                assert!(e.to_string().contains("reshape_view"), "{e}");
            }
            None => assert_eq!(r.size(), 0),
        }
        // into_shape of an owned tensor with this layout keeps the buffer exactly when
        // NumPy gives a view.
        if order(case) == Order::RowMajor && r.size() > 0 {
            let owned = Tensor::from_raw_parts(x.buffer().to_vec(), v.layout().clone()).unwrap();
            let p = owned.buffer().as_ptr();
            let o = owned.into_shape(shape).unwrap();
            assert_eq!(
                o.buffer().as_ptr() == p,
                r.is_view(),
                "into_shape, case {case}"
            );
            common::check(&o, &explicit, "into_shape");
        }
    }
    assert!(
        views > 500 && copies > 150 && errs > 20,
        "{views} views, {copies} copies, {errs} errors"
    );
}

#[test]
fn golden_merge_and_split_axes_match_numpy() {
    let cases: Vec<Value> = common::load("reshape.json")
        .into_iter()
        .filter(|c| c.get("op").is_some())
        .collect();
    let (mut merged, mut refused, mut split) = (0, 0, 0);
    for case in &cases {
        let x = common::base(case);
        let v = common::pre(&x, case);
        let r = if case["op"] == "merge" {
            // NumPy-style negative axes in the case; merge_axes takes usize ranges.
            let nd = v.ndim() as i64;
            let (s, e) = (
                case["start"].as_i64().unwrap(),
                case["end"].as_i64().unwrap(),
            );
            let (s, e) = (s.rem_euclid(nd) as usize, e.rem_euclid(nd) as usize);
            let r = v.merge_axes(s..=e);
            if e + 1 == nd as usize {
                let from = v.merge_axes(s..).map(|m| m.to_vec()).ok();
                assert_eq!(from, r.as_ref().map(|m| m.to_vec()).ok());
            }
            r
        } else {
            split += 1;
            v.split_axis(
                case["axis"].as_i64().unwrap() as isize,
                &common::isizes(&case["sizes"]),
            )
        };
        if case["ok"].as_bool().unwrap() {
            let r = r.unwrap_or_else(|e| panic!("{e}, case {case}"));
            common::check(&r, case, "merge/split");
            assert!(std::ptr::eq(r.buffer(), x.buffer()));
            merged += (case["op"] == "merge") as usize;
        } else {
            assert!(r.is_err(), "expected Err, case {case}");
            refused += (case["op"] == "merge") as usize;
        }
    }
    assert!(
        merged > 150 && refused > 20 && split > 150,
        "{merged} merged, {refused} refused, {split} split"
    );
}

#[test]
fn reference_view_or_copy_examples() {
    let x = Tensor::<i32, _>::arange(24).into_shape([2, 3, 4]).unwrap();
    assert!(x.slice(s![.., .., ..;2]).reshape([12]).unwrap().is_view());
    assert!(x.slice(s![.., 1.., ..]).reshape([2, 8]).unwrap().is_view());
    assert!(!x.slice(s![.., 1.., ..]).reshape([4, 4]).unwrap().is_view());
    assert!(!x.t().reshape([12, 2]).unwrap().is_view());
    assert!(x.slice(s![.., 1.., ..]).reshape_view([4, 4]).is_err());
    assert_eq!(
        x.slice(s![.., 1.., ..])
            .reshape_view([2, 8])
            .unwrap()
            .strides(),
        &[12, 1]
    );
}

#[test]
fn merge_axes_ranges_and_errors() {
    let x = Tensor::<i32, _>::arange(24).into_shape([2, 3, 4]).unwrap();
    assert_eq!(x.merge_axes(..).unwrap().shape(), &[24]);
    assert_eq!(x.merge_axes(1..).unwrap().shape(), &[2, 12]);
    assert_eq!(x.merge_axes(..=1).unwrap().shape(), &[6, 4]);
    assert_eq!(x.merge_axes(0..2).unwrap().shape(), &[6, 4]);
    assert_eq!(x.merge_axes(1..=1).unwrap().shape(), &[2, 3, 4]);
    let (a, b) = (2usize, 1usize);
    assert!(x.merge_axes(a..=b).is_err());
    assert!(x.merge_axes(1..1).is_err());
    assert!(x.merge_axes(0..=3).is_err());
    assert!(x.merge_axes(3..).is_err());
    let e = x.t().merge_axes(0..=1).unwrap_err().to_string();
    assert!(
        e.starts_with("merge_axes:") && e.contains("(4, 3, 2)"),
        "{e}"
    );
    // A reversed axis merges with its neighbour when the strides still chain.
    let f = x.flip(0).unwrap();
    assert!(f.merge_axes(0..=1).is_err());
    let g = x.flip(2).unwrap();
    assert!(g.merge_axes(1..=2).is_err());
    assert_eq!(
        x.slice(s![..;-1, .., ..])
            .merge_axes(1..=2)
            .unwrap()
            .strides(),
        &[-12, 1]
    );
    // 0-d: PyTorch flattens to one element.
    let s = Tensor::scalar(7);
    assert_eq!(s.merge_axes(..).unwrap().to_vec(), vec![7]);
    assert_eq!(s.merge_axes(0..=0).unwrap().shape(), &[1]);
    assert!(s.merge_axes(0..=1).is_err());
}

#[test]
fn split_axis_errors_name_the_shape() {
    let x = Tensor::<i32, _>::zeros([2, 6]);
    assert_eq!(x.split_axis(-1, &[2, 3]).unwrap().shape(), &[2, 2, 3]);
    assert_eq!(x.split_axis(0, &[-1]).unwrap().shape(), &[2, 6]);
    let e = x.split_axis(1, &[4, -1]).unwrap_err().to_string();
    assert!(e.contains("split_axis") && e.contains("(2, 6)"), "{e}");
    assert!(x.split_axis(1, &[-1, -1]).is_err());
    assert!(x.split_axis(1, &[2, 2]).is_err());
    assert!(x.split_axis(1, &[-2, -3]).is_err());
    assert!(x.split_axis(2, &[1]).is_err());
}

#[test]
fn into_shape_keeps_the_buffer_of_views_and_copies_otherwise() {
    let a = Tensor::<i32, _>::arange(12);
    let p = a.as_ptr();
    let b = a.into_shape([3, 4]).unwrap();
    assert_eq!(b.as_ptr(), p);
    let t = Tensor::from_raw_parts(b.to_vec(), b.t().layout().clone()).unwrap(); // owned transpose
    let q = t.as_ptr();
    let c = t.into_shape([12]).unwrap();
    assert_ne!(c.as_ptr(), q);
    assert_eq!(c.to_vec(), vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
    assert!(Tensor::<i32, _>::arange(12).into_shape([5]).is_err());
}
