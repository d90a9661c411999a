//! Helpers shared by the golden view tests: loading `tests/golden/*.json` (made by
//! `tests/golden/gen_views.py`) and rebuilding NumPy's inputs with the crate's views.
#![allow(dead_code)]

use ferrotensor::prelude::*;
use serde_json::Value;

pub use crate::golden_file::{i64s, isizes, usizes};

/// The cases of one golden file.
pub fn load(name: &str) -> Vec<Value> {
    crate::golden_file::cases(name)
}

fn opt(v: &Value) -> Option<isize> {
    v.as_i64().map(|x| x as isize)
}

/// Decodes `["r", start, stop, step] | ["i", k] | ["n"] | ["e"]`.
pub fn items(v: &Value) -> Vec<SliceItem> {
    v.as_array()
        .expect("items")
        .iter()
        .map(|it| match it[0].as_str().expect("kind") {
            "r" => SliceItem::Range {
                start: opt(&it[1]),
                stop: opt(&it[2]),
                step: opt(&it[3]).unwrap_or(1),
            },
            "i" => SliceItem::Index(it[1].as_i64().unwrap() as isize),
            "n" => SliceItem::NewAxis,
            "e" => SliceItem::Ellipsis,
            k => panic!("unknown item kind {k}"),
        })
        .collect()
}

/// `arange(prod(base))` shaped as the case's `base`.
pub fn base(case: &Value) -> Tensor<i64> {
    let shape = usizes(&case["base"]);
    let n: usize = shape.iter().product();
    Tensor::<i64, _>::arange(n).into_shape(shape).unwrap()
}

/// The case's `pre` operations applied with the crate's views.
pub fn pre<'a>(x: &'a Tensor<i64>, case: &Value) -> TensorView<'a, i64> {
    let mut v = x.view();
    for op in case["pre"].as_array().expect("pre") {
        v = match op[0].as_str().unwrap() {
            "perm" => v.permute(&isizes(&op[1])).unwrap(),
            "flip" => v.flip(op[1].as_i64().unwrap() as isize).unwrap(),
            "slice" => v.try_slice(items(&op[1])).unwrap(),
            k => panic!("unknown pre op {k}"),
        };
    }
    v
}

/// Checks a result against the case: shape and values always, strides and offset
/// when NumPy recorded them (non-empty views).
pub fn check<S: ferrotensor::storage::Storage<Elem = i64>, D: Dimension>(
    r: &TensorBase<S, D>,
    case: &Value,
    what: &str,
) {
    assert_eq!(
        r.shape(),
        &usizes(&case["shape"])[..],
        "{what}: shape, case {case}"
    );
    assert_eq!(
        r.to_vec(),
        i64s(&case["values"]),
        "{what}: values, case {case}"
    );
    if let Some(s) = case.get("strides") {
        assert_eq!(r.strides(), &isizes(s)[..], "{what}: strides, case {case}");
        assert_eq!(
            r.offset() as i64,
            case["offset"].as_i64().unwrap(),
            "{what}: offset, case {case}"
        );
    }
    r.layout()
        .check_in_buffer(r.buffer().len(), "test")
        .expect("in buffer");
}
