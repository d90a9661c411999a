//! NumPy golden cases for every reduction (tests/golden/gen_reductions.py): random
//! shapes up to 4-D, random axis subsets, keepdims, non-contiguous views (permuted,
//! stepped slices, flipped, broadcast), the empty-axis matrix, NaN and tie cases.

use ferrotensor::prelude::*;
use serde_json::Value;

#[derive(Clone, Copy, Debug)]
enum V {
    I(i64),
    F(f64),
}

impl V {
    fn f(self) -> f64 {
        match self {
            V::I(i) => i as f64,
            V::F(f) => f,
        }
    }
}

fn parse(v: &Value) -> V {
    match v {
        Value::Number(n) if n.is_i64() => V::I(n.as_i64().unwrap()),
        Value::Number(n) if n.is_u64() => V::I(n.as_u64().unwrap() as i64),
        Value::Number(n) => V::F(n.as_f64().unwrap()),
        Value::String(_) => V::F(crate::golden_file::float(v)),
        Value::Bool(b) => V::I(*b as i64),
        _ => panic!("bad value {v}"),
    }
}

type Out = Result<(Vec<usize>, Vec<V>)>;

fn ok<T: Element>(t: Tensor<T, IxDyn>, f: impl Fn(T) -> V) -> Out {
    Ok((t.shape().to_vec(), t.iter().map(|&x| f(x)).collect()))
}
/// An arg-reduction result with NumPy's `keepdims` applied (the axis put back).
fn keep(
    t: Tensor<usize, IxDyn>,
    axis: isize,
    keepdims: bool,
) -> ferrotensor::Result<Tensor<usize, IxDyn>> {
    if keepdims {
        Ok(t.unsqueeze(axis)?.to_owned())
    } else {
        Ok(t)
    }
}
fn scalar(x: V) -> Out {
    Ok((vec![], vec![x]))
}

fn apply_views<'a, T: Element>(
    mut v: TensorView<'a, T, IxDyn>,
    ops: &Value,
) -> TensorView<'a, T, IxDyn> {
    for op in ops.as_array().unwrap() {
        let op = op.as_array().unwrap();
        v = match op[0].as_str().unwrap() {
            "permute" => {
                let p: Vec<isize> = op[1]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_i64().unwrap() as isize)
                    .collect();
                v.permute(&p).unwrap()
            }
            "slice" => {
                let items: Vec<SliceItem> = op[1]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|it| {
                        let it = it.as_array().unwrap();
                        SliceItem::Range {
                            start: it[0].as_i64().map(|x| x as isize),
                            stop: it[1].as_i64().map(|x| x as isize),
                            step: it[2].as_i64().unwrap() as isize,
                        }
                    })
                    .collect();
                v.slice(items)
            }
            "flip" => v.flip(op[1].as_i64().unwrap() as isize).unwrap(),
            "broadcast" => {
                let s: Vec<usize> = op[1]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap() as usize)
                    .collect();
                v.broadcast_to(s).unwrap()
            }
            o => panic!("unknown view op {o}"),
        };
    }
    v
}

struct Case {
    op: String,
    axes: Option<Vec<isize>>,
    keepdims: bool,
    ddof: usize,
}

macro_rules! common_ops {
    ($v:ident, $c:ident, $conv:expr, $ax:ident, $kd:ident) => {
        match ($c.op.as_str(), $ax) {
            ("sum", None) => scalar($conv($v.sum())),
            ("sum", Some(a)) => ok($v.sum_axes(a, $kd)?, $conv),
            ("prod", None) => scalar($conv($v.prod())),
            ("prod", Some(a)) => ok($v.prod_axes(a, $kd)?, $conv),
            ("max", None) => scalar($conv($v.max()?)),
            ("max", Some(a)) => ok($v.max_axes(a, $kd)?, $conv),
            ("min", None) => scalar($conv($v.min()?)),
            ("min", Some(a)) => ok($v.min_axes(a, $kd)?, $conv),
            ("ptp", None) => scalar($conv($v.ptp()?)),
            ("ptp", Some(a)) => ok($v.ptp_axes(a, $kd)?, $conv),
            ("argmax", None) => scalar(V::I($v.argmax()? as i64)),
            ("argmax", Some(a)) => ok(keep($v.argmax_axis(a[0])?, a[0], $kd)?, |x| V::I(x as i64)),
            ("argmin", None) => scalar(V::I($v.argmin()? as i64)),
            ("argmin", Some(a)) => ok(keep($v.argmin_axis(a[0])?, a[0], $kd)?, |x| V::I(x as i64)),
            ("all", None) => scalar(V::I($v.all() as i64)),
            ("all", Some(a)) => ok($v.all_axes(a, $kd)?, |x| V::I(x as i64)),
            ("any", None) => scalar(V::I($v.any() as i64)),
            ("any", Some(a)) => ok($v.any_axes(a, $kd)?, |x| V::I(x as i64)),
            ("count_nonzero", None) => scalar(V::I($v.count_nonzero() as i64)),
            ("count_nonzero", Some(a)) => ok($v.count_nonzero_axes(a, $kd)?, |x| V::I(x as i64)),
            ("cumsum", Some(a)) => ok($v.cumsum(a[0])?.into_dyn(), $conv),
            ("cumprod", Some(a)) => ok($v.cumprod(a[0])?.into_dyn(), $conv),
            _ => Err(ferrotensor::Error::value("golden", "not common")),
        }
    };
}

fn eval_float<T: Float + Into<f64>>(v: &TensorView<'_, T, IxDyn>, c: &Case) -> Out {
    let conv = |x: T| V::F(x.into());
    let ax = c.axes.as_deref();
    let kd = c.keepdims;
    if let Ok(r) = common_ops!(v, c, conv, ax, kd) {
        return Ok(r);
    }
    match (c.op.as_str(), ax) {
        ("mean", None) => scalar(conv(v.mean())),
        ("mean", Some(a)) => ok(v.mean_axes(a, kd)?, conv),
        ("var", None) => scalar(conv(v.var(c.ddof))),
        ("var", Some(a)) => ok(v.var_axes(a, kd, c.ddof)?, conv),
        ("std", None) => scalar(conv(v.std(c.ddof))),
        ("std", Some(a)) => ok(v.std_axes(a, kd, c.ddof)?, conv),
        ("logsumexp", None) => scalar(conv(v.logsumexp())),
        ("logsumexp", Some(a)) => ok(v.logsumexp_axes(a, kd)?, conv),
        ("nansum", None) => scalar(conv(v.nansum())),
        ("nansum", Some(a)) => ok(v.nansum_axes(a, kd)?, conv),
        ("nanmean", None) => scalar(conv(v.nanmean())),
        ("nanmean", Some(a)) => ok(v.nanmean_axes(a, kd)?, conv),
        ("nanmax", None) => scalar(conv(v.nanmax()?)),
        ("nanmax", Some(a)) => ok(v.nanmax_axes(a, kd)?, conv),
        ("nanmin", None) => scalar(conv(v.nanmin()?)),
        ("nanmin", Some(a)) => ok(v.nanmin_axes(a, kd)?, conv),
        ("nanargmax", None) => scalar(V::I(v.nanargmax()? as i64)),
        ("nanargmax", Some(a)) => ok(keep(v.nanargmax_axis(a[0])?, a[0], kd)?, |x| V::I(x as i64)),
        ("nanargmin", None) => scalar(V::I(v.nanargmin()? as i64)),
        ("nanargmin", Some(a)) => ok(keep(v.nanargmin_axis(a[0])?, a[0], kd)?, |x| V::I(x as i64)),
        (n, a) if n.starts_with("norm") => {
            let ord = match n {
                "norm1" => NormOrd::L1,
                "norm2" => NormOrd::L2,
                _ => NormOrd::Inf,
            };
            match a {
                None => scalar(conv(v.norm(ord))),
                Some(a) => ok(v.norm_axes(ord, a, kd)?, conv),
            }
        }
        (o, _) => panic!("unhandled float op {o}"),
    }
}

fn eval_int<
    T: Num + PartialOrd + Into<i64> + num_traits::AsPrimitive<i64> + num_traits::AsPrimitive<f64>,
>(
    v: &TensorView<'_, T, IxDyn>,
    c: &Case,
) -> Out {
    let conv = |x: T| V::I(x.into());
    let ax = c.axes.as_deref();
    let kd = c.keepdims;
    if let Ok(r) = common_ops!(v, c, conv, ax, kd) {
        return Ok(r);
    }
    match (c.op.as_str(), ax) {
        ("sum_i64", None) => scalar(V::I(v.sum_as::<i64>())),
        ("sum_i64", Some(a)) => ok(v.sum_axes_as::<i64>(a, kd)?, V::I),
        ("mean_f64", None) => scalar(V::F(v.mean_as::<f64>())),
        ("mean_f64", Some(a)) => ok(v.mean_axes_as::<f64>(a, kd)?, V::F),
        (o, _) => panic!("unhandled int op {o}"),
    }
}

fn same(got: V, want: V, tol: f64) -> bool {
    match (got, want) {
        (V::I(a), V::I(b)) if tol == 0.0 => a == b,
        _ => {
            let (a, b) = (got.f(), want.f());
            (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol
        }
    }
}

fn run_entry<T: Element>(
    e: &Value,
    parse_elem: impl Fn(&Value) -> T,
    eval: impl Fn(&TensorView<'_, T, IxDyn>, &Case) -> Out,
) -> (usize, Vec<String>) {
    let shape: Vec<usize> = e["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    let data: Vec<T> = e["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(&parse_elem)
        .collect();
    let base = Tensor::from_vec(data, shape.clone()).unwrap();
    let view = apply_views(base.view(), &e["view"]);
    let mut fails = Vec::new();
    let mut n = 0;
    for c in e["cases"].as_array().unwrap() {
        n += 1;
        let case = Case {
            op: c["op"].as_str().unwrap().to_string(),
            axes: c["axes"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_i64().unwrap() as isize).collect()),
            keepdims: c["keepdims"].as_bool().unwrap(),
            ddof: c["ddof"].as_u64().unwrap() as usize,
        };
        let got = eval(&view, &case);
        let what = format!(
            "{} axes={:?} keepdims={} ddof={} on {} {:?} view {}",
            case.op, case.axes, case.keepdims, case.ddof, e["dtype"], shape, e["view"]
        );
        match (got, c.get("err")) {
            (Err(_), Some(_)) => {}
            (Ok(r), Some(_)) => fails.push(format!("{what}: expected Err, got {r:?}")),
            (Err(err), None) => fails.push(format!("{what}: unexpected Err {err}")),
            (Ok((s, vals)), None) => {
                let ws: Vec<usize> = c["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap() as usize)
                    .collect();
                let wv: Vec<V> = c["out"].as_array().unwrap().iter().map(parse).collect();
                let tol = c["tol"].as_f64().unwrap();
                if s != ws
                    || vals.len() != wv.len()
                    || !vals.iter().zip(&wv).all(|(&g, &w)| same(g, w, tol))
                {
                    fails.push(format!(
                        "{what}: got {s:?} {vals:?}, NumPy {ws:?} {wv:?} (tol {tol:e})"
                    ));
                }
            }
        }
    }
    (n, fails)
}

#[test]
fn numpy_golden_reductions() {
    let doc: Value = crate::golden_file::json("reductions.json");
    let (mut total, mut fails) = (0, Vec::new());
    for e in doc["entries"].as_array().unwrap() {
        let (n, f) = match e["dtype"].as_str().unwrap() {
            "f64" => run_entry(e, |x| parse(x).f(), eval_float::<f64>),
            "f32" => run_entry(e, |x| parse(x).f() as f32, eval_float::<f32>),
            "i32" => run_entry(e, |x| x.as_i64().unwrap() as i32, eval_int::<i32>),
            "i64" => run_entry(e, |x| x.as_i64().unwrap(), eval_int::<i64>),
            d => panic!("dtype {d}"),
        };
        total += n;
        fails.extend(f);
    }
    assert!(total > 6000, "only {total} golden cases");
    assert!(
        fails.is_empty(),
        "{} of {total} golden cases differ:\n{}",
        fails.len(),
        fails[..fails.len().min(30)].join("\n")
    );
}
