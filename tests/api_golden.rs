//! The conveniences added by the API-conventions issue against NumPy and PyTorch
//! (`tests/golden/api.json`, made by `tests/golden/gen_api.py`): `round_decimals`,
//! shifts at and beyond the bit width, fractional `ddof`, `add_at`,
//! `sliding_window_view` and the descending stable sort.

use ferrotensor::prelude::*;
use half::f16;
use serde_json::Value;

fn cases(op: &str) -> Vec<Value> {
    let all = crate::golden_file::cases("api.json");
    let picked: Vec<Value> = all.into_iter().filter(|c| c["op"] == op).collect();
    assert!(!picked.is_empty(), "no {op} cases");
    picked
}

fn shape(a: &Value) -> Vec<usize> {
    crate::golden_file::usizes(&a["shape"])
}

fn f64s(a: &Value) -> Vec<f64> {
    crate::golden_file::floats(&a["data"])
}

fn i128s(a: &Value) -> Vec<i128> {
    a["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            x.as_i64()
                .map(i128::from)
                .unwrap_or_else(|| x.as_u64().unwrap() as i128)
        })
        .collect()
}

fn dtype(a: &Value) -> &str {
    a["dtype"].as_str().unwrap()
}

fn float_tensor<T: Float>(a: &Value) -> Tensor<T, IxDyn> {
    Tensor::from_vec(f64s(a).into_iter().map(T::from_f64).collect(), shape(a)).unwrap()
}

/// Equal as NumPy prints them: same bits for numbers (so `-0.0 != 0.0`), NaN == NaN.
fn same_f64(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits())
}

#[test]
fn round_decimals_matches_numpy() {
    let mut n = 0;
    for c in cases("round_decimals") {
        let d = c["decimals"].as_i64().unwrap() as i32;
        let want = f64s(&c["out"]);
        let got: Vec<f64> = match dtype(&c["x"]) {
            "float64" => float_tensor::<f64>(&c["x"]).round_decimals(d).to_vec(),
            "float32" => {
                let x = float_tensor::<f32>(&c["x"]);
                // A strided view gives the same values as the contiguous input.
                let flipped = x
                    .flip(0)
                    .unwrap()
                    .round_decimals(d)
                    .flip(0)
                    .unwrap()
                    .to_vec();
                let r = x.round_decimals(d).to_vec();
                assert_eq!(
                    r.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    flipped.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                );
                r.into_iter().map(f64::from).collect()
            }
            t => panic!("dtype {t}"),
        };
        assert!(
            same_f64(&got, &want),
            "decimals {d} {}: {got:?} vs {want:?}",
            dtype(&c["x"])
        );
        n += 1;
    }
    assert_eq!(n, 18);
    // f16 rounds each step in f16, as NumPy's float16 loops: np.round(np.float16(
    // [2.675, -1.25, 0.35, 1.45, 100.7]), 1) -> [2.69921875, -1.2001953125, 0.39990234375,
    // 1.400390625, 100.6875] (0.35 · 10 rounds to 3.5 in f16, then to 4).
    let h = Tensor::from_vec(
        [2.675, -1.25, 0.35, 1.45, 100.7]
            .map(f16::from_f64)
            .to_vec(),
        [5],
    )
    .unwrap();
    let want = [
        2.69921875,
        -1.2001953125,
        0.39990234375,
        1.400390625,
        100.6875,
    ]
    .map(f16::from_f64);
    assert_eq!(h.round_decimals(1).to_vec(), want.to_vec());
}

/// Runs a shift case for one integer type: operator, `try_` twin, scalar count and
/// compound assignment all agree with NumPy.
fn shift_case<T: Integer + TryFrom<i128>>(c: &Value, left: bool) {
    let conv = |v: Vec<i128>| -> Vec<T> {
        v.into_iter()
            .map(|x| T::try_from(x).ok().unwrap())
            .collect()
    };
    let x = Tensor::from_vec(conv(i128s(&c["x"])), shape(&c["x"])).unwrap();
    let y = Tensor::from_vec(conv(i128s(&c["y"])), shape(&c["y"])).unwrap();
    let want = conv(i128s(&c["out"]));
    let (op, twin) = if left {
        (&x << &y, x.try_shl(&y).unwrap())
    } else {
        (&x >> &y, x.try_shr(&y).unwrap())
    };
    assert_eq!(op.to_vec(), want, "{} {}", c["op"], dtype(&c["x"]));
    assert_eq!(twin.to_vec(), want);
    let mut z = x.clone();
    if left {
        z <<= &y;
    } else {
        z >>= &y;
    }
    assert_eq!(z.to_vec(), want);
    // Column 0 of the count grid is one scalar count for every row.
    let k = y.to_vec()[0];
    let col: Vec<T> = (0..x.shape()[0]).map(|i| want[i * x.shape()[1]]).collect();
    let xs = x.slice(s![.., 0]);
    let by_scalar = if left { &xs << k } else { &xs >> k };
    assert_eq!(by_scalar.to_vec(), col);
    // A negative count (signed types) is an error naming the operation, whether it
    // comes as a scalar or inside a count tensor; nothing is written in place.
    if let Ok(neg) = T::try_from(-1) {
        let name = if left { "left_shift" } else { "right_shift" };
        let mut counts = y.to_vec();
        counts[1] = neg;
        let yn = Tensor::from_vec(counts, y.shape().to_vec()).unwrap();
        let (e1, e2) = if left {
            (x.try_shl(neg).err().unwrap(), x.try_shl(&yn).err().unwrap())
        } else {
            (x.try_shr(neg).err().unwrap(), x.try_shr(&yn).err().unwrap())
        };
        assert_eq!(e1.to_string(), format!("{name}: negative shift count"));
        assert!(
            e2.to_string()
                .starts_with(&format!("{name}: negative shift count")),
            "{e2}"
        );
        let mut z = x.clone();
        let e3 = if left {
            z.try_shl_assign(&yn)
        } else {
            z.try_shr_assign(&yn)
        };
        assert!(e3.is_err() && z.to_vec() == x.to_vec());
    }
}

#[test]
fn shifts_match_numpy() {
    let mut n = 0;
    for op in ["left_shift", "right_shift"] {
        for c in cases(op) {
            let left = op == "left_shift";
            match dtype(&c["x"]) {
                "int8" => shift_case::<i8>(&c, left),
                "uint8" => shift_case::<u8>(&c, left),
                "int16" => shift_case::<i16>(&c, left),
                "int32" => shift_case::<i32>(&c, left),
                "int64" => shift_case::<i64>(&c, left),
                "uint32" => shift_case::<u32>(&c, left),
                "uint64" => shift_case::<u64>(&c, left),
                t => panic!("dtype {t}"),
            }
            n += 1;
        }
    }
    assert_eq!(n, 14);
}

fn moments_case<T: Float>(c: &Value, tol: f64) {
    let x = float_tensor::<T>(&c["x"]);
    let ddof = c["ddof"].as_f64().unwrap();
    let var = c["op"] == "var";
    let got: Vec<f64> = match c["axis"].as_i64() {
        None => vec![if var { x.var(ddof) } else { x.std(ddof) }.to_f64()],
        Some(ax) => {
            let r = if var {
                x.var_axis(ax as isize, ddof)
            } else {
                x.std_axis(ax as isize, ddof)
            }
            .unwrap();
            let s = if var {
                x.var_axes(&[ax as isize], false, ddof)
            } else {
                x.std_axes(&[ax as isize], false, ddof)
            };
            let r: Vec<f64> = r.to_vec().into_iter().map(|v| v.to_f64()).collect();
            let s: Vec<f64> = s
                .unwrap()
                .to_vec()
                .into_iter()
                .map(|v| v.to_f64())
                .collect();
            assert!(same_f64(&r, &s), "single-axis and axes forms agree");
            r
        }
    };
    let want = f64s(&c["out"]);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * w.abs().max(1e-300);
        assert!(ok, "{} ddof {ddof} axis {}: {g} vs {w}", c["op"], c["axis"]);
    }
}

#[test]
fn fractional_ddof_matches_numpy() {
    let mut n = 0;
    for op in ["var", "std"] {
        for c in cases(op) {
            match dtype(&c["x"]) {
                "float64" => moments_case::<f64>(&c, 1e-13),
                "float32" => moments_case::<f32>(&c, 2e-6),
                t => panic!("dtype {t}"),
            }
            n += 1;
        }
    }
    assert_eq!(n, 108);
}

#[test]
fn add_at_matches_numpy() {
    let (mut ok, mut errs) = (0, 0);
    for c in cases("add_at") {
        let axis = c["axis"].as_i64().unwrap() as isize;
        let idx: Vec<i64> = c["indices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        let idx = Tensor::from_vec(idx.clone(), [idx.len()]).unwrap();
        let got = match dtype(&c["a"]) {
            "float64" => {
                let mut a = float_tensor::<f64>(&c["a"]);
                let before = a.to_vec();
                let r = a.add_at(axis, &idx, float_tensor::<f64>(&c["values"]));
                if r.is_err() {
                    assert_eq!(a.to_vec(), before, "nothing is written on error");
                }
                r.map(|_| a.to_vec())
            }
            "int64" => {
                let data: Vec<i64> = i128s(&c["a"]).into_iter().map(|x| x as i64).collect();
                let mut a = Tensor::from_vec(data, shape(&c["a"])).unwrap();
                let vals: Vec<i64> = i128s(&c["values"]).into_iter().map(|x| x as i64).collect();
                let v = Tensor::from_vec(vals, shape(&c["values"])).unwrap();
                // Through a mutable view: writes land in the tensor.
                let r = a.view_mut().add_at(axis, &idx, v.view());
                r.map(|_| a.to_vec().into_iter().map(|x| x as f64).collect())
            }
            t => panic!("dtype {t}"),
        };
        if c.get("error").is_some() {
            let e = got.unwrap_err().to_string();
            assert!(e.starts_with("add_at:"), "{e}");
            errs += 1;
        } else {
            assert_eq!(got.unwrap(), f64s_or_ints(&c["out"]), "case {c}");
            ok += 1;
        }
    }
    assert_eq!((ok, errs), (14, 6));
}

fn f64s_or_ints(a: &Value) -> Vec<f64> {
    if dtype(a).starts_with("float") {
        f64s(a)
    } else {
        i128s(a).into_iter().map(|x| x as f64).collect()
    }
}

#[test]
fn sliding_window_view_matches_numpy() {
    let (mut ok, mut errs) = (0, 0);
    for c in cases("sliding_window_view") {
        let data: Vec<i64> = i128s(&c["x"]).into_iter().map(|x| x as i64).collect();
        let x = Tensor::from_vec(data, shape(&c["x"])).unwrap();
        let window: Vec<usize> = c["window"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let axes: Option<Vec<isize>> = c["axes"]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_i64().unwrap() as isize).collect());
        let r = x.sliding_window_view(&window, axes.as_deref());
        if c.get("error").is_some() {
            assert!(
                r.unwrap_err()
                    .to_string()
                    .starts_with("sliding_window_view:")
            );
            errs += 1;
        } else {
            let w = r.unwrap();
            assert_eq!(w.shape(), &shape(&c["out"])[..], "case {c}");
            let want: Vec<i64> = i128s(&c["out"]).into_iter().map(|x| x as i64).collect();
            assert_eq!(w.to_vec(), want, "case {c}");
            if w.size() > 0 {
                assert_eq!(w.as_ptr(), x.as_ptr(), "a view, not a copy");
            }
            ok += 1;
        }
    }
    assert_eq!((ok, errs), (9, 3));
}

fn sort_case<T: SortElement>(x: Tensor<T, IxDyn>, c: &Value, to_f64: impl Fn(T) -> f64) {
    let axis = c["axis"].as_i64().unwrap() as isize;
    let want_i: Vec<usize> = i128s(&c["indices"])
        .into_iter()
        .map(|x| x as usize)
        .collect();
    let want_v = f64s_or_ints(&c["values"]);
    // Also through a transposed view of a transposed copy (a strided input).
    let tt = x.t().to_owned();
    for v in [x.view(), tt.t()] {
        let s = v.sort_descending(axis).unwrap();
        let got: Vec<f64> = s.to_vec().into_iter().map(&to_f64).collect();
        assert!(
            same_f64(&got, &want_v),
            "sort_descending axis {axis}: {got:?} vs {want_v:?}"
        );
        assert_eq!(
            v.argsort_descending(axis).unwrap().to_vec(),
            want_i,
            "argsort_descending axis {axis}"
        );
    }
}

#[test]
fn descending_sort_matches_pytorch() {
    let mut n = 0;
    for c in cases("sort_descending") {
        let ints = |c: &Value| -> Vec<i128> { i128s(&c["x"]) };
        match dtype(&c["x"]) {
            "float64" => sort_case(float_tensor::<f64>(&c["x"]), &c, |v| v),
            "float32" => sort_case(float_tensor::<f32>(&c["x"]), &c, f64::from),
            "int32" => sort_case(
                Tensor::from_vec(
                    ints(&c).into_iter().map(|x| x as i32).collect(),
                    shape(&c["x"]),
                )
                .unwrap(),
                &c,
                f64::from,
            ),
            "int64" => sort_case(
                Tensor::from_vec(
                    ints(&c).into_iter().map(|x| x as i64).collect(),
                    shape(&c["x"]),
                )
                .unwrap(),
                &c,
                |v| v as f64,
            ),
            "uint8" => sort_case(
                Tensor::from_vec(
                    ints(&c).into_iter().map(|x| x as u8).collect(),
                    shape(&c["x"]),
                )
                .unwrap(),
                &c,
                f64::from,
            ),
            t => panic!("dtype {t}"),
        }
        n += 1;
    }
    assert_eq!(n, 12);
}
