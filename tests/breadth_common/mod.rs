//! Helpers shared by the golden tests of the FFT, array-function and linear-algebra
//! additions: loading `tests/golden/<area>/*.json`, rebuilding the inputs that
//! `tests/golden/breadth_inputs.py` describes (formula-filled, NaN at given positions,
//! then viewed), and comparing results with NumPy's.
#![allow(dead_code)]

use ferrotensor::prelude::*;
use half::f16;
use num_complex::Complex;
use serde_json::Value;

/// The cases of `tests/golden/<path>`.
pub fn load(path: &str) -> Vec<Value> {
    let full = format!("{}/tests/golden/{}", env!("CARGO_MANIFEST_DIR"), path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    v["cases"].as_array().expect("cases").clone()
}

/// A JSON number, or "nan" / "inf" / "-inf".
pub fn num(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "nan" => f64::NAN,
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        Value::Bool(b) => *b as u8 as f64,
        _ => v.as_f64().unwrap_or_else(|| panic!("not a number: {v}")),
    }
}

/// A JSON value as `(re, im)`: a pair for complex numbers, `(x, 0)` otherwise.
pub fn pair(v: &Value) -> (f64, f64) {
    match v.as_array() {
        Some(p) => (num(&p[0]), num(&p[1])),
        None => (num(v), 0.0),
    }
}

pub fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("u64") as usize)
        .collect()
}

pub fn isizes(v: &Value) -> Vec<isize> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_i64().expect("i64") as isize)
        .collect()
}

/// Element types of golden inputs and results.
pub trait Golden: Element {
    /// Built from the fill formula's real and imaginary values.
    fn make(re: f64, im: f64) -> Self;
    /// `(re, im)` as f64.
    fn pair(self) -> (f64, f64);
    /// Machine epsilon of the precision (1 for integers: compared exactly).
    const EPS: f64;
}

macro_rules! golden_real {
    ($($t:ty => $eps:expr, $from:expr, $to:expr);* $(;)?) => {$(
        impl Golden for $t {
            fn make(re: f64, _im: f64) -> Self { $from(re) }
            fn pair(self) -> (f64, f64) { ($to(self), 0.0) }
            const EPS: f64 = $eps;
        }
    )*};
}
golden_real!(
    f16 => 9.77e-4, f16::from_f64, |x: f16| x.to_f64();
    f32 => f32::EPSILON as f64, |x| x as f32, |x: f32| x as f64;
    f64 => f64::EPSILON, |x| x, |x| x;
    i32 => 0.0, |x| x as i32, |x: i32| x as f64;
    i64 => 0.0, |x| x as i64, |x: i64| x as f64;
    usize => 0.0, |x| x as usize, |x: usize| x as f64;
    bool => 0.0, |x| x != 0.0, |x: bool| x as u8 as f64;
);
impl Golden for Complex<f32> {
    fn make(re: f64, im: f64) -> Self {
        Complex::new(re as f32, im as f32)
    }
    fn pair(self) -> (f64, f64) {
        (self.re as f64, self.im as f64)
    }
    const EPS: f64 = f32::EPSILON as f64;
}
impl Golden for Complex<f64> {
    fn make(re: f64, im: f64) -> Self {
        Complex::new(re, im)
    }
    fn pair(self) -> (f64, f64) {
        (self.re, self.im)
    }
    const EPS: f64 = f64::EPSILON;
}

/// The fill formula of `breadth_inputs.py` for element `i` of operand `op`.
pub fn fill_value(i: usize, op: usize) -> (f64, f64) {
    let i = i as i64;
    let re = ((i * 7 + 3 + 5 * op as i64) % 11) - 5;
    let im = ((i * 5 + 1 + 3 * op as i64) % 13) - 6;
    (re as f64, im as f64)
}

/// The base tensor of operand `op` for `spec` (`{"shape", "nan"}`), before views.
pub fn base<T: Golden>(spec: &Value, op: usize, complex: bool, int: bool) -> Tensor<T> {
    let shape = usizes(&spec["shape"]);
    let n: usize = shape.iter().product();
    let given = spec.get("data").and_then(|d| d.as_array()).map(|d| {
        d.iter()
            .map(|v| {
                let (re, im) = pair(v);
                T::make(re, if complex { im } else { 0.0 })
            })
            .collect::<Vec<T>>()
    });
    let mut data: Vec<T> = given.unwrap_or_else(|| {
        (0..n)
            .map(|i| {
                let (re, im) = fill_value(i, op);
                if int {
                    T::make(re, 0.0)
                } else if complex {
                    T::make(re / 4.0, im / 8.0)
                } else {
                    T::make(re / 4.0, 0.0)
                }
            })
            .collect()
    });
    assert_eq!(data.len(), n, "data of {spec}");
    if let Some(nans) = spec.get("nan").and_then(|v| v.as_array()) {
        for p in nans.iter().map(|p| p.as_u64().unwrap()) {
            // NumPy's `x[p] = nan` on a complex array stores nan + 0j.
            data[p as usize] = T::make(f64::NAN, 0.0);
        }
    }
    Tensor::from_vec(data, shape).unwrap()
}

/// The input of `spec` for dtype name `dtype` (see [`base`]).
pub fn input<T: Golden>(spec: &Value, op: usize, dtype: &str) -> Tensor<T> {
    base(
        spec,
        op,
        dtype.starts_with('c'),
        dtype.starts_with('i') || dtype == "bool",
    )
}

/// The inputs of a case as owned base tensors (the views are taken by [`views`]).
pub fn bases<T: Golden>(case: &Value) -> Vec<Tensor<T>> {
    let dt = case["dtype"].as_str().unwrap();
    case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, x)| input::<T>(x, i, dt))
        .collect()
}

/// The views a case's inputs describe, over the tensors of [`bases`].
pub fn views<'a, T: Golden>(b: &'a [Tensor<T>], case: &Value) -> Vec<TensorView<'a, T>> {
    b.iter()
        .zip(case["inputs"].as_array().unwrap())
        .map(|(t, x)| view_of(t, x))
        .collect()
}

/// `spec`'s view ops (its `ops`, if any) applied to `t`.
pub fn view_of<'a, T: Element>(t: &'a Tensor<T>, spec: &Value) -> TensorView<'a, T> {
    match spec.get("ops") {
        Some(ops) => apply_view_ops(t.view(), ops),
        None => t.view(),
    }
}

/// The golden generators' view ops applied to `v` in order: `["swap"]` (the last two
/// axes), `["flip", axis]`, `["step", axis]` (every second element) and
/// `["bcast", shape]`.
pub fn apply_view_ops<'a, T: Element>(mut v: TensorView<'a, T>, ops: &Value) -> TensorView<'a, T> {
    for o in ops.as_array().expect("view ops") {
        let name = o[0].as_str().unwrap();
        v = match name {
            "swap" => v.swap_axes(-1, -2).unwrap(),
            "flip" => v.flip(o[1].as_i64().unwrap() as isize).unwrap(),
            "step" => {
                let ax = o[1].as_i64().unwrap() as usize;
                let items: Vec<SliceItem> = (0..v.ndim())
                    .map(|i| SliceItem::Range {
                        start: None,
                        stop: None,
                        step: if i == ax { 2 } else { 1 },
                    })
                    .collect();
                v.slice(items)
            }
            "bcast" => v.broadcast_to(usizes(&o[1])).unwrap(),
            _ => panic!("unknown view op {name}"),
        };
    }
    v
}

/// Compares `got` with NumPy's encoded result `want` (`{"shape", "dtype", "data"}`):
/// equal shapes and dtype names, and each value within `tol · (|w| + scale · max|want|)`
/// plus a few ulps (`scale` 1 for transforms, whose error grows with the whole signal;
/// 0 for element-wise results). NaN must meet NaN (for complex numbers: a NaN in either
/// part), infinities must match exactly. Integers compare exactly.
pub fn check<T: Golden, D: Dimension>(
    got: &Tensor<T, D>,
    want: &Value,
    tol: f64,
    scale: f64,
    ctx: &str,
) {
    assert_eq!(got.shape(), &usizes(&want["shape"])[..], "{ctx}: shape");
    if let Some(dt) = want.get("dtype").and_then(|d| d.as_str()) {
        let ours = T::NAME;
        let same =
            ours == dt || (ours == "uintp" && dt == "int64") || (ours == "intp" && dt == "int64");
        assert!(same, "{ctx}: dtype {ours}, NumPy {dt}");
    }
    let w: Vec<(f64, f64)> = want["data"].as_array().unwrap().iter().map(pair).collect();
    assert_eq!(w.len(), got.size(), "{ctx}: size");
    let big = w
        .iter()
        .flat_map(|&(a, b)| [a.abs(), b.abs()])
        .filter(|x| x.is_finite())
        .fold(0.0f64, f64::max);
    for (i, (g, &(wr, wi))) in got.iter().map(|x| x.pair()).zip(&w).enumerate() {
        let (gr, gi) = g;
        if wr.is_nan() || wi.is_nan() {
            assert!(
                gr.is_nan() || gi.is_nan(),
                "{ctx}: [{i}] got ({gr}, {gi}), NumPy has NaN ({wr}, {wi})"
            );
            continue;
        }
        for (gv, wv) in [(gr, wr), (gi, wi)] {
            if T::EPS == 0.0 || wv.is_infinite() {
                assert_eq!(gv, wv, "{ctx}: [{i}] got {gv}, want {wv}");
            } else {
                let bound = tol * (wv.abs() + scale * big) + 4.0 * T::EPS * wv.abs() + 1e-300;
                assert!(
                    (gv - wv).abs() <= bound,
                    "{ctx}: [{i}] got {gv}, want {wv} (|diff| {} > {bound})",
                    (gv - wv).abs()
                );
            }
        }
    }
}

/// Asserts that `r` failed when NumPy raised (naming `op` in the message), else checks
/// the value with [`check`].
pub fn expect<T: Golden, D: Dimension>(
    r: Result<Tensor<T, D>>,
    want: &Value,
    op: &str,
    tol: f64,
    scale: f64,
    ctx: &str,
) {
    match (r, want.get("error")) {
        (Err(e), Some(_)) => assert!(
            e.to_string().starts_with(op),
            "{ctx}: error {e} does not name {op}"
        ),
        (Ok(t), Some(err)) => panic!(
            "{ctx}: NumPy raised {err} but we returned shape {:?}",
            t.shape()
        ),
        (Err(e), None) => panic!("{ctx}: unexpected error {e}"),
        (Ok(t), None) => check(&t, want, tol, scale, ctx),
    }
}
