//! Shared helpers for the golden linear-algebra tests: rebuild the operands that
//! `tests/golden/gen_linalg.py` describes (formula-filled, then viewed, with the view ops
//! and the small fill formula of [`crate::breadth_common`]) and compare results with
//! NumPy's.
#![allow(dead_code)]

use ferrotensor::prelude::*;
use serde_json::Value;

/// The parsed golden file.
pub fn golden() -> Value {
    crate::golden_file::json("linalg.json")
}

/// The generator's fill formula (`fill` in gen_linalg.py).
pub fn fill(n: usize, op: usize, kind: &str) -> Vec<i64> {
    (0..n as i64)
        .map(|i| {
            if kind == "big" {
                ((i * 7919 + 13 + 101 * op as i64) % 200003) - 100000
            } else {
                crate::breadth_common::fill_value(i as usize, op).0 as i64
            }
        })
        .collect()
}

pub use crate::golden_file::usizes;

/// The base tensor of operand `op` (owned, row-major).
pub fn base<T: Num>(spec: &Value, op: usize, kind: &str) -> Tensor<T> {
    let shape = usizes(&spec[0]);
    let n = shape.iter().product();
    let data = fill(n, op, kind)
        .into_iter()
        .map(|x| T::from_f64(x as f64))
        .collect();
    Tensor::from_vec(data, shape).unwrap()
}

/// Applies the spec's view ops (its second item) to `t`.
pub fn view_of<'a, T: Num>(t: &'a Tensor<T>, spec: &Value) -> TensorView<'a, T> {
    crate::breadth_common::apply_view_ops(t.view(), &spec[1])
}

/// Checks `got` against the case's `shape` and `data` (exact for integers, relative
/// tolerance `tol` for floats).
pub fn check<T: Num>(case: &Value, got: &Tensor<T>, tol: f64) {
    assert_eq!(got.shape(), &usizes(&case["shape"])[..], "shape of {case}");
    let want = case["data"].as_array().unwrap();
    assert_eq!(want.len(), got.size());
    for (g, w) in got.iter().zip(want) {
        if T::IS_INT {
            assert_eq!(g.as_i128(), w.as_i64().unwrap() as i128, "case {case}");
        } else {
            let (g, w) = (g.as_f64(), w.as_f64().unwrap());
            assert!(
                (g - w).abs() <= tol * (1.0 + w.abs()),
                "case {case}: got {g}, want {w}"
            );
        }
    }
}

/// The cases of one golden section with one dtype.
pub fn cases<'g>(g: &'g Value, section: &str, dtype: &'g str) -> impl Iterator<Item = &'g Value> {
    g[section]
        .as_array()
        .unwrap()
        .iter()
        .filter(move |c| c["dtype"] == dtype)
}

/// The formula-filled base tensors of a case's `operands`.
pub fn operands<T: Num>(case: &Value) -> Vec<Tensor<T>> {
    case["operands"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, o)| base::<T>(o, i, "small"))
        .collect()
}

/// The views a case's `operands` describe, over `bases` from [`operands`].
pub fn operand_views<'a, T: Num>(bases: &'a [Tensor<T>], case: &Value) -> Vec<TensorView<'a, T>> {
    let specs = case["operands"].as_array().unwrap();
    bases
        .iter()
        .zip(specs)
        .map(|(b, s)| view_of(b, s))
        .collect()
}
