//! Shared helpers of the `manip_*` golden tests: load `tests/golden/manip.json`
//! (made by `tests/golden/gen_manip.py`), rebuild each input view, compare outputs.
#![allow(dead_code)]

use ferrotensor::prelude::*;
use serde_json::Value;

/// Element types stored in the golden file.
pub trait Gold: Element {
    fn from_json(v: &Value) -> Self;
    /// Bit-exact equality (sign of zero included), NaN equal to NaN.
    fn same(a: Self, b: Self) -> bool;
}

use crate::golden_file::{float, usizes};

impl Gold for f64 {
    fn from_json(v: &Value) -> Self {
        float(v)
    }
    fn same(a: Self, b: Self) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }
}
impl Gold for f32 {
    fn from_json(v: &Value) -> Self {
        float(v) as f32
    }
    fn same(a: Self, b: Self) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }
}
impl Gold for i64 {
    fn from_json(v: &Value) -> Self {
        v.as_i64().expect("int")
    }
    fn same(a: Self, b: Self) -> bool {
        a == b
    }
}
impl Gold for usize {
    fn from_json(v: &Value) -> Self {
        v.as_u64().expect("non-negative int") as usize
    }
    fn same(a: Self, b: Self) -> bool {
        a == b
    }
}
impl Gold for bool {
    fn from_json(v: &Value) -> Self {
        v.as_bool().expect("bool")
    }
    fn same(a: Self, b: Self) -> bool {
        a == b
    }
}

/// The base (C-contiguous) tensor of an encoded array.
pub fn base<T: Gold>(a: &Value) -> Tensor<T, IxDyn> {
    let data: Vec<T> = a["v"]
        .as_array()
        .expect("data")
        .iter()
        .map(T::from_json)
        .collect();
    Tensor::from_vec(data, usizes(&a["s"])).expect("golden shape matches data")
}

/// The input view of an encoded array over its base.
pub fn view<'a, T: Gold>(b: &'a Tensor<T, IxDyn>, a: &Value) -> TensorView<'a, T, IxDyn> {
    let all = |step: isize| SliceItem::Range {
        start: None,
        stop: None,
        step,
    };
    match a["x"].as_str().expect("view kind") {
        "c" => b.view(),
        "t" => b.t(),
        "f" => b.flip(0).unwrap(),
        "s" => b.slice(vec![all(2), SliceItem::Ellipsis]),
        "n" => b.slice(vec![SliceItem::Ellipsis, all(-2)]),
        k => panic!("unknown view kind {k}"),
    }
}

/// Compares a result with an encoded expected array (shape and every element).
pub fn check<T: Gold, S: ferrotensor::storage::Storage<Elem = T>, D: Dimension>(
    got: &TensorBase<S, D>,
    want: &Value,
) -> Result<(), String> {
    let w: Tensor<T, IxDyn> = base(want);
    if got.shape() != w.shape() {
        return Err(format!("shape {:?}, expected {:?}", got.shape(), w.shape()));
    }
    let (g, e) = (got.to_vec(), w.to_vec());
    if !g.iter().zip(&e).all(|(&a, &b)| T::same(a, b)) {
        return Err(format!("data {g:?}, expected {e:?}"));
    }
    Ok(())
}

/// Checks a list of results against the case's outputs.
pub fn check_all<T: Gold, S: ferrotensor::storage::Storage<Elem = T>, D: Dimension>(
    got: &[TensorBase<S, D>],
    case: &Value,
) -> Result<(), String> {
    let outs = case["out"].as_array().expect("outputs");
    if got.len() != outs.len() {
        return Err(format!("{} outputs, expected {}", got.len(), outs.len()));
    }
    for (k, (g, w)) in got.iter().zip(outs).enumerate() {
        check(g, w).map_err(|e| format!("output {k}: {e}"))?;
    }
    Ok(())
}

/// Outcome of a case: compares `Ok` results, or expects an error when the case says so.
pub fn expect<R>(
    case: &Value,
    r: ferrotensor::Result<R>,
    cmp: impl FnOnce(&R) -> Result<(), String>,
) -> Result<(), String> {
    match (case.get("err").is_some(), r) {
        (true, Err(_)) => Ok(()),
        (true, Ok(_)) => Err("expected an error".into()),
        (false, Err(e)) => Err(format!("unexpected error: {e}")),
        (false, Ok(v)) => cmp(&v),
    }
}

pub fn arg_i(case: &Value, k: &str) -> isize {
    case["args"][k]
        .as_i64()
        .unwrap_or_else(|| panic!("arg {k}")) as isize
}
pub fn arg_opt(case: &Value, k: &str) -> Option<isize> {
    case["args"][k].as_i64().map(|v| v as isize)
}
pub fn dtype(case: &Value, i: usize) -> String {
    case["in"][i]["d"].as_str().unwrap().to_string()
}
pub fn input(case: &Value, i: usize) -> &Value {
    &case["in"][i]
}
pub fn args_usize(case: &Value, k: &str) -> Vec<usize> {
    usizes(&case["args"][k])
}

/// Runs `f` on every golden case of function `name`, failing with all mismatches.
pub fn run(name: &str, min_cases: usize, f: impl Fn(&Value) -> Result<(), String>) {
    let root: Value = crate::golden_file::json("manip.json");
    let cases: Vec<&Value> = root["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["fn"] == name)
        .collect();
    assert!(
        cases.len() >= min_cases,
        "{name}: only {} golden cases",
        cases.len()
    );
    let failures: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            f(c).err()
                .map(|e| format!("{name} case {i} ({}): {e}", c["args"]))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
