//! NumPy golden cases (tests/golden/gen_elementwise.py): broadcast shapes incl. errors,
//! every binary op on mixed layouts (transposed, negative strides, stride 0), integer
//! division/remainder signs, NaN behaviour of maximum/minimum, unary functions.

use ferrotensor::prelude::*;
use serde_json::Value;

use crate::golden_file::{floats, i64s as ints, usizes as shape};

fn golden() -> Value {
    crate::golden_file::json("elementwise.json")
}

/// The operand's view as the Python generator built it.
fn view<'a, T: Element>(base: &'a Tensor<T>, recipe: &str) -> TensorCow<'a, T> {
    match recipe {
        "c" => base.view().into_cow(),
        "t" => base.t().into_cow(),
        "flip" => base.flip(0).unwrap().into_cow(),
        "step" => base.slice(s![..;-2]).into_cow(),
        "bcast_row" => base.slice(s![..1]).into_cow(),
        "col" => base.reshape(vec![base.size(), 1]).unwrap(),
        r => panic!("unknown recipe {r}"),
    }
}

/// Distance in units in the last place (0 for equal values; NaN and zero signs exact).
fn ulps(got: f64, want: f64) -> u64 {
    if want.is_nan() {
        return if got.is_nan() { 0 } else { u64::MAX };
    }
    if want == 0.0 {
        return if got == 0.0 && got.is_sign_negative() == want.is_sign_negative() {
            0
        } else {
            u64::MAX
        };
    }
    if got.is_sign_negative() != want.is_sign_negative() {
        return u64::MAX;
    }
    got.to_bits().abs_diff(want.to_bits())
}

#[test]
fn broadcast_shapes_match_numpy() {
    let g = golden();
    let cases = g["broadcast"].as_array().unwrap();
    assert!(cases.len() >= 15);
    for c in cases {
        let (sa, sb) = (shape(&c["a"]), shape(&c["b"]));
        let a = Tensor::<f32, _>::zeros(sa.clone());
        let b = Tensor::<f32, _>::zeros(sb.clone());
        let r = a.try_add(&b);
        match &c["out"] {
            Value::Null => {
                let e = r.unwrap_err().to_string();
                assert!(e.starts_with("add: operands could not be broadcast"), "{e}");
            }
            out => assert_eq!(r.unwrap().shape(), &shape(out)[..], "{sa:?} with {sb:?}"),
        }
    }
}

fn float_op(op: &str, a: &TensorCow<'_, f64>, b: &TensorCow<'_, f64>) -> Tensor<f64> {
    let r = match op {
        "add" => {
            let r = a.try_add(b).unwrap();
            assert_eq!(r.to_vec().len(), (a + b).size());
            Ok(r)
        }
        "subtract" => Ok(a - b),
        "multiply" => Ok(a * b),
        "divide" => a.try_div(b),
        "remainder" => a.remainder(b),
        "fmod" => a.fmod(b),
        "floor_divide" => a.floor_divide(b),
        "power" => a.pow(b),
        "maximum" => a.maximum(b),
        "minimum" => a.minimum(b),
        "fmax" => a.fmax(b),
        "fmin" => a.fmin(b),
        "arctan2" => a.atan2(b),
        "hypot" => a.hypot(b),
        "copysign" => a.copysign(b),
        op => panic!("unknown op {op}"),
    };
    r.unwrap()
}

fn int_op(op: &str, a: &TensorCow<'_, i64>, b: &TensorCow<'_, i64>) -> Tensor<i64> {
    let r = match op {
        "add" => Ok(a + b),
        "subtract" => a.try_sub(b),
        "multiply" => a.try_mul(b),
        "remainder" => a.remainder(b),
        "fmod" => a.fmod(b),
        "floor_divide" => a.floor_divide(b),
        "maximum" => a.maximum(b),
        "minimum" => a.minimum(b),
        op => panic!("unknown op {op}"),
    };
    r.unwrap()
}

#[test]
fn binary_ops_on_mixed_layouts_match_numpy() {
    let g = golden();
    let cases = g["binary"].as_array().unwrap();
    assert!(cases.len() > 150);
    let mut ops_seen = std::collections::BTreeSet::new();
    for c in cases {
        let op = c["op"].as_str().unwrap();
        ops_seen.insert(op.to_string());
        let (ja, jb) = (&c["a"], &c["b"]);
        let want_shape = shape(&c["out_shape"]);
        let ctx = format!("{op} {} {} / {}", c["dtype"], ja["view"], jb["view"]);
        if c["dtype"] == "float64" {
            let ba = Tensor::from_vec(floats(&ja["data"]), shape(&ja["shape"])).unwrap();
            let bb = Tensor::from_vec(floats(&jb["data"]), shape(&jb["shape"])).unwrap();
            let (a, b) = (
                view(&ba, ja["view"].as_str().unwrap()),
                view(&bb, jb["view"].as_str().unwrap()),
            );
            let got = float_op(op, &a, &b);
            assert_eq!(got.shape(), &want_shape[..], "{ctx}");
            let tol = if matches!(op, "power" | "arctan2" | "hypot") {
                2
            } else {
                0
            };
            // NumPy's choice between +0 and -0 on ties of maximum/minimum/fmax/fmin
            // depends on its code path (contiguous SIMD vs scalar), so zero signs are
            // not compared there.
            let zero_sign = !matches!(op, "maximum" | "minimum" | "fmax" | "fmin");
            for (k, (g, w)) in got.to_vec().into_iter().zip(floats(&c["out"])).enumerate() {
                let tie_zero = !zero_sign && g == 0.0 && w == 0.0;
                assert!(
                    tie_zero || ulps(g, w) <= tol,
                    "{ctx} element {k}: got {g}, NumPy {w}"
                );
            }
        } else {
            let ba = Tensor::from_vec(ints(&ja["data"]), shape(&ja["shape"])).unwrap();
            let bb = Tensor::from_vec(ints(&jb["data"]), shape(&jb["shape"])).unwrap();
            let (a, b) = (
                view(&ba, ja["view"].as_str().unwrap()),
                view(&bb, jb["view"].as_str().unwrap()),
            );
            let got = int_op(op, &a, &b);
            assert_eq!(got.shape(), &want_shape[..], "{ctx}");
            assert_eq!(got.to_vec(), ints(&c["out"]), "{ctx}");
        }
    }
    assert_eq!(ops_seen.len(), 15, "{ops_seen:?}");
}

#[test]
fn unary_functions_match_numpy() {
    let g = golden();
    for c in g["unary"].as_array().unwrap() {
        let op = c["op"].as_str().unwrap();
        let x = Tensor::from_vec(floats(&c["x"]), vec![c["x"].as_array().unwrap().len()]).unwrap();
        let got = match op {
            "exp" => x.exp(),
            "exp2" => x.exp2(),
            "expm1" => x.expm1(),
            "ln" => x.ln(),
            "log2" => x.log2(),
            "log10" => x.log10(),
            "log1p" => x.log1p(),
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "asin" => x.asin(),
            "acos" => x.acos(),
            "atan" => x.atan(),
            "sinh" => x.sinh(),
            "cosh" => x.cosh(),
            "tanh" => x.tanh(),
            "asinh" => x.asinh(),
            "acosh" => x.acosh(),
            "atanh" => x.atanh(),
            "abs" => x.abs(),
            "neg" => -&x,
            "recip" => x.recip(),
            "square" => x.square(),
            "sqrt" => x.sqrt(),
            "cbrt" => x.cbrt(),
            "floor" => x.floor(),
            "ceil" => x.ceil(),
            "round" => x.round(),
            "trunc" => x.trunc(),
            "sign" => x.sign(),
            "relu" => x.relu(),
            "sigmoid" => x.sigmoid(),
            "softplus" => x.softplus(),
            "silu" => x.silu(),
            "gelu" => x.gelu(),
            "gelu_tanh" => x.gelu_tanh(),
            op => panic!("unknown unary {op}"),
        };
        // NumPy's own composites (sigmoid, gelu, …) carry a few ulps of error.
        let tol = if matches!(
            op,
            "sigmoid" | "softplus" | "silu" | "gelu" | "gelu_tanh" | "sinh" | "cosh" | "tan"
        ) {
            8
        } else {
            2
        };
        for ((g, w), xv) in got
            .to_vec()
            .into_iter()
            .zip(floats(&c["out"]))
            .zip(x.to_vec())
        {
            let near_zero = w.abs() < 1e-300 && g.abs() < 1e-300 && !w.is_nan();
            if xv.is_infinite() && matches!(op, "silu" | "gelu" | "gelu_tanh") {
                // NumPy's composite gives NaN at -inf; the limits are -0 and +inf.
                assert_eq!(g, if xv > 0.0 { f64::INFINITY } else { 0.0 }, "{op}({xv})");
                continue;
            }
            assert!(
                near_zero && op != "sign" || ulps(g, w) <= tol,
                "{op}({xv}): got {g:e}, NumPy {w:e}"
            );
        }
    }
}
