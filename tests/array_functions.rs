//! The array functions of the breadth issue against NumPy (tests/golden/arrays/
//! gen_arrays.py): median/quantile/percentile with every method and their `nan*` twins,
//! cov/corrcoef, histogram/bincount, cummax/cummin (PyTorch's rule, written out),
//! atleast_nd, flip over several axes, broadcast_arrays/broadcast_shapes, tril/triu of
//! 1-D input, delete/insert/append, trapezoid, interp, convolve/correlate; on strided,
//! flipped, broadcast, empty and NaN inputs, f32 and f64, with NumPy's error cases.

mod breadth_common;

use breadth_common::*;
use ferrotensor::manip::{self, ConvolveMode, InsertAt};
use ferrotensor::prelude::*;
use ferrotensor::reduce::{Bins, CovArgs, QuantileMethod};
use num_complex::Complex;
use serde_json::Value;

fn tol<T: Golden>() -> f64 {
    if T::EPS > 1e-10 { 2e-6 } else { 1e-12 }
}

fn axes_of(args: &Value) -> Option<Vec<isize>> {
    args.get("axes").filter(|a| !a.is_null()).map(isizes)
}

/// A tensor of f64 from a JSON number or (nested) list.
fn q_tensor(v: &Value) -> Tensor<f64> {
    fn walk(v: &Value, shape: &mut Vec<usize>, data: &mut Vec<f64>, depth: usize) {
        match v.as_array() {
            Some(items) => {
                if shape.len() == depth {
                    shape.push(items.len());
                }
                items.iter().for_each(|x| walk(x, shape, data, depth + 1));
            }
            None => data.push(num(v)),
        }
    }
    let (mut shape, mut data) = (Vec::new(), Vec::new());
    walk(v, &mut shape, &mut data, 0);
    Tensor::from_vec(data, shape).unwrap()
}

/// Checks a 2-tuple result against NumPy's `results`.
fn expect2<A: Golden, B: Golden, D: Dimension, D2: Dimension>(
    r: Result<(Tensor<A, D>, Tensor<B, D2>)>,
    want: &Value,
    op: &str,
    tol: f64,
    ctx: &str,
) {
    match (r, want.get("error")) {
        (Err(e), Some(_)) => assert!(e.to_string().starts_with(op), "{ctx}: {e}"),
        (Ok(_), Some(err)) => panic!("{ctx}: NumPy raised {err}"),
        (Err(e), None) => panic!("{ctx}: unexpected error {e}"),
        (Ok((a, b)), None) => {
            let w = want["results"].as_array().unwrap();
            check(&a, &w[0], tol, 0.0, &format!("{ctx} [0]"));
            check(&b, &w[1], tol, 0.0, &format!("{ctx} [1]"));
        }
    }
}

fn floats<T>(case: &Value, name: &str, ctx: &str)
where
    T: Golden + Float,
{
    let b = bases::<T>(case);
    let v = views(&b, case);
    let (args, want) = (&case["args"], &case["want"]);
    let t = tol::<T>();
    let method = || {
        args["method"]
            .as_str()
            .unwrap()
            .parse::<QuantileMethod>()
            .unwrap()
    };
    let keep = args
        .get("keepdims")
        .and_then(|k| k.as_bool())
        .unwrap_or(false);
    match name {
        "median" | "nanmedian" => {
            let nan = name == "nanmedian";
            match axes_of(args) {
                None => {
                    let m = if nan { v[0].nanmedian() } else { v[0].median() };
                    check(&Tensor::scalar(m), want, t, 0.0, ctx);
                }
                Some(ax) => {
                    let r = if nan {
                        v[0].nanmedian_axes(&ax, keep)
                    } else {
                        v[0].median_axes(&ax, keep)
                    };
                    expect(r, want, name, t, 0.0, ctx);
                }
            }
        }
        "quantile" | "nanquantile" | "percentile" | "nanpercentile" => {
            let q = q_tensor(&args["q"]);
            let all: Vec<isize> = (0..v[0].ndim() as isize).collect();
            let ax = axes_of(args).unwrap_or(all);
            let r = match name {
                "quantile" => v[0].quantile_axes(&q, &ax, method(), keep),
                "nanquantile" => v[0].nanquantile_axes(&q, &ax, method(), keep),
                "percentile" => v[0].percentile_axes(&q, &ax, method(), keep),
                _ => v[0].nanpercentile_axes(&q, &ax, method(), keep),
            };
            expect(r, want, name, t, 0.0, ctx);
            if q.ndim() == 0 && axes_of(args).is_none() {
                let qs = q.to_scalar().unwrap();
                let r = match name {
                    "quantile" => v[0].quantile(qs, method()),
                    "nanquantile" => v[0].nanquantile(qs, method()),
                    "percentile" => v[0].percentile(qs, method()),
                    _ => v[0].nanpercentile(qs, method()),
                };
                expect(r.map(Tensor::scalar), want, name, t, 0.0, ctx);
            }
        }
        "quantile_inf" => {
            let a =
                Tensor::from_vec(vec![T::one(), T::one() + T::one(), T::infinity()], [3]).unwrap();
            let q = Tensor::from_vec(vec![0.0, 0.5, 0.75, 1.0], [4]).unwrap();
            expect(
                a.quantile_axes(&q, &[0], QuantileMethod::Linear, false),
                want,
                "quantile",
                t,
                0.0,
                ctx,
            );
        }
        "cov" | "corrcoef" => {
            let fw: Option<Vec<u64>> = args.get("fweights").map(|w| {
                w.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap())
                    .collect()
            });
            let aw: Option<Vec<f64>> = args
                .get("aweights")
                .map(|w| w.as_array().unwrap().iter().map(num).collect());
            let rowvar = args.get("rowvar").and_then(|r| r.as_bool()).unwrap_or(true);
            let r = if name == "cov" {
                let a = CovArgs {
                    rowvar,
                    bias: args.get("bias").and_then(|r| r.as_bool()).unwrap_or(false),
                    ddof: args.get("ddof").map(|d| d.as_u64().unwrap() as usize),
                    fweights: fw.as_deref(),
                    aweights: aw.as_deref(),
                };
                ferrotensor::reduce::cov(&v, &a)
            } else if ctx.contains("\"bcast\"") {
                // NumPy's reference for this case is a constant (ones) input.
                let ones = Tensor::<T, _>::ones(vec![2, 4]);
                ferrotensor::reduce::corrcoef(&[&ones], rowvar)
            } else {
                ferrotensor::reduce::corrcoef(&v, rowvar)
            };
            // NumPy works in float64: compare f32 results to its rounded values loosely.
            expect(
                r,
                want,
                name,
                if T::EPS > 1e-10 { 2e-5 } else { 1e-12 },
                1.0,
                ctx,
            );
        }
        "histogram" => {
            let bins_v = &args["bins"];
            let edges: Vec<T> = bins_v.as_array().map_or(Vec::new(), |e| {
                e.iter().map(|x| T::from_f64(num(x))).collect()
            });
            let bins = match bins_v.as_u64() {
                Some(n) => Bins::Count(n as usize),
                None => Bins::Edges(&edges),
            };
            let range = args
                .get("range")
                .map(|r| (T::from_f64(num(&r[0])), T::from_f64(num(&r[1]))));
            let density = args
                .get("density")
                .and_then(|d| d.as_bool())
                .unwrap_or(false);
            let n = v[0].size();
            let fw: Vec<f64> = (0..n).map(|i| (i % 5) as f64 * 0.25).collect();
            match (args.get("weights").and_then(|w| w.as_str()), density) {
                (None, false) => expect2(v[0].histogram(bins, range), want, name, t, ctx),
                (w, true) => expect2(
                    v[0].histogram_density(bins, range, w.map(|_| &fw[..])),
                    want,
                    name,
                    1e-12,
                    ctx,
                ),
                (Some("int"), false) => {
                    let w = Tensor::from_vec(
                        (0..n).map(|i| (i % 3 + 1) as i64).collect(),
                        v[0].shape().to_vec(),
                    )
                    .unwrap();
                    expect2(v[0].histogram_weighted(bins, range, &w), want, name, t, ctx)
                }
                (Some(_), false) => {
                    let w = Tensor::from_vec(fw.clone(), v[0].shape().to_vec()).unwrap();
                    expect2(
                        v[0].histogram_weighted(bins, range, &w),
                        want,
                        name,
                        1e-12,
                        ctx,
                    )
                }
            }
        }
        "cummax" | "cummin" => {
            let axis = args["axis"].as_i64().unwrap() as isize;
            let r = if name == "cummax" {
                v[0].cummax(axis)
            } else {
                v[0].cummin(axis)
            };
            expect2(r, want, name, 0.0, ctx);
        }
        "trapezoid" => expect(
            v[0].trapezoid(
                T::from_f64(num(&args["dx"])),
                args["axis"].as_i64().unwrap() as isize,
            ),
            want,
            name,
            t,
            1.0,
            ctx,
        ),
        "trapezoid_x" => expect(
            v[0].trapezoid_x(&v[1], args["axis"].as_i64().unwrap() as isize),
            want,
            "trapezoid",
            t,
            1.0,
            ctx,
        ),
        "interp" => {
            let vec_of = |k: &str| -> Tensor<T, Ix1> {
                let d: Vec<T> = args[k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| T::from_f64(num(x)))
                    .collect();
                let n = d.len();
                Tensor::from_vec(d, [n]).unwrap()
            };
            let opt = |k: &str| {
                args.get(k)
                    .filter(|x| !x.is_null())
                    .map(|x| T::from_f64(num(x)))
            };
            let r = manip::interp(
                &v[0],
                &vec_of("xp"),
                &vec_of("fp"),
                opt("left"),
                opt("right"),
                opt("period"),
            );
            expect(r, want, name, t, 0.0, ctx);
        }
        "tril" | "triu" => {
            let k = args["k"].as_i64().unwrap() as isize;
            let r = if name == "tril" {
                v[0].tril(k)
            } else {
                v[0].triu(k)
            };
            expect(r, want, name, 0.0, 0.0, ctx);
        }
        _ => panic!("{ctx}: unknown float function"),
    }
}

fn ints(case: &Value, name: &str, ctx: &str) {
    let b = bases::<i64>(case);
    let v = views(&b, case);
    let (args, want) = (&case["args"], &case["want"]);
    match name {
        "bincount" => {
            if args.get("negate").is_some() {
                let neg = v[0].mapv(|x| -x.abs() - 1);
                let r = if neg.size() > 0 {
                    neg.bincount(0)
                } else {
                    Tensor::from_vec(vec![-1i64], [1]).unwrap().bincount(0)
                };
                expect(r, want, name, 0.0, 0.0, ctx);
                return;
            }
            let a = v[0].mapv(|x| x.abs());
            let m = args["minlength"].as_u64().unwrap() as usize;
            if args.get("weights").is_some() {
                let w = Tensor::from_vec(
                    (0..a.size()).map(|i| i as f64 * 0.5 - 1.0).collect(),
                    a.shape().to_vec(),
                )
                .unwrap();
                expect(a.bincount_weighted(&w, m), want, name, 1e-12, 0.0, ctx);
            } else {
                expect(a.bincount(m), want, name, 0.0, 0.0, ctx);
            }
        }
        "cummax" | "cummin" => {
            let axis = args["axis"].as_i64().unwrap() as isize;
            let r = if name == "cummax" {
                v[0].cummax(axis)
            } else {
                v[0].cummin(axis)
            };
            // The reference ran in float64; values are small integers.
            let r = r.map(|(a, i)| (a.mapv(|x| x as f64), i));
            expect2(r, want, name, 0.0, ctx);
        }
        "atleast_1d" => check(&v[0].atleast_1d().to_owned(), want, 0.0, 0.0, ctx),
        "atleast_2d" => check(&v[0].atleast_2d().to_owned(), want, 0.0, 0.0, ctx),
        "atleast_3d" => check(&v[0].atleast_3d().to_owned(), want, 0.0, 0.0, ctx),
        "flip" => {
            let r = match axes_of(args) {
                None => Ok(v[0].flip_all()),
                Some(ax) => v[0].flip_axes(&ax),
            };
            expect(r.map(|x| x.to_owned()), want, name, 0.0, 0.0, ctx);
        }
        "broadcast_arrays" => {
            match manip::broadcast_arrays(&v.iter().map(|x| x as _).collect::<Vec<_>>()) {
                Ok(out) => {
                    let w = want["results"].as_array().expect("results");
                    assert_eq!(out.len(), w.len(), "{ctx}");
                    for (o, w) in out.iter().zip(w) {
                        check(&o.to_owned(), w, 0.0, 0.0, ctx);
                    }
                }
                Err(e) => {
                    assert!(want.get("error").is_some(), "{ctx}: {e}");
                    assert!(e.to_string().starts_with("broadcast_arrays"), "{e}");
                }
            }
        }
        "broadcast_shapes" => {
            let shapes: Vec<Vec<usize>> = args["shapes"]
                .as_array()
                .unwrap()
                .iter()
                .map(usizes)
                .collect();
            let r = manip::broadcast_shapes(&shapes).map(|s| {
                let n = s.len();
                Tensor::from_vec(s.into_iter().map(|x| x as i64).collect(), [n]).unwrap()
            });
            expect(r, want, name, 0.0, 0.0, ctx);
        }
        "delete" => {
            let obj = isizes(&args["obj"]);
            expect(
                v[0].delete(&obj, args["axis"].as_i64().unwrap() as isize),
                want,
                name,
                0.0,
                0.0,
                ctx,
            );
        }
        "insert" => {
            let axis = args["axis"].as_i64().unwrap() as isize;
            let list;
            let at = match args["obj"].as_i64() {
                Some(i) => InsertAt::Index(i as isize),
                None => {
                    list = isizes(&args["obj"]);
                    InsertAt::Indices(&list)
                }
            };
            expect(v[0].insert(at, &v[1], axis), want, name, 0.0, 0.0, ctx);
        }
        "append" => expect(
            v[0].append(&v[1], args["axis"].as_i64().unwrap() as isize),
            want,
            name,
            0.0,
            0.0,
            ctx,
        ),
        _ => panic!("{ctx}: unknown integer function"),
    }
}

fn signal<T: Golden + Num>(case: &Value, name: &str, ctx: &str) {
    let b = bases::<T>(case);
    let v = views(&b, case);
    let mode: ConvolveMode = case["args"]["mode"].as_str().unwrap().parse().unwrap();
    let r = if name == "convolve" {
        manip::convolve(&v[0], &v[1], mode)
    } else {
        manip::correlate(&v[0], &v[1], mode)
    };
    let t = if T::EPS == 0.0 { 0.0 } else { tol::<T>() };
    expect(r, &case["want"], name, t, 1.0, ctx);
}

#[test]
fn every_array_function_matches_numpy() {
    let cases = load("arrays/arrays.json");
    assert!(cases.len() > 1500);
    for case in &cases {
        let name = case["fn"].as_str().unwrap();
        let dt = case["dtype"].as_str().unwrap();
        let ctx = format!(
            "{name} {dt} inputs={} args={}",
            case["inputs"], case["args"]
        );
        match (name, dt) {
            ("convolve" | "correlate", "f64") => signal::<f64>(case, name, &ctx),
            ("convolve" | "correlate", "f32") => signal::<f32>(case, name, &ctx),
            ("convolve" | "correlate", "i64") => signal::<i64>(case, name, &ctx),
            ("convolve" | "correlate", "c128") => signal::<Complex<f64>>(case, name, &ctx),
            ("bincount", "i32") => {
                // The same cases in i32: the counts must agree.
                let b = bases::<i32>(case);
                let v = views(&b, case);
                let a = v[0].mapv(|x| x.abs());
                let m = case["args"]["minlength"].as_u64().unwrap() as usize;
                if case["args"].get("weights").is_none() {
                    expect(a.bincount(m), &case["want"], name, 0.0, 0.0, &ctx);
                }
            }
            (_, "f32") => floats::<f32>(case, name, &ctx),
            (_, "f64") => floats::<f64>(case, name, &ctx),
            (_, "i64") => ints(case, name, &ctx),
            _ => panic!("{ctx}: dtype"),
        }
    }
}

#[test]
fn selection_matches_a_full_sort_on_large_lanes() {
    // Lanes above the parallel threshold, with duplicates and NaN.
    let n = 300_001;
    let data: Vec<f64> = (0..n)
        .map(|i| ((i as u64 * 2654435761) % 1000) as f64 / 7.0)
        .collect();
    let a = Tensor::from_vec(data.clone(), [n]).unwrap();
    let mut sorted = data.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(a.median(), sorted[n / 2]);
    let q = a.quantile(0.3, QuantileMethod::Lower).unwrap();
    assert_eq!(q, sorted[((n - 1) as f64 * 0.3).floor() as usize]);
    let m = Tensor::from_vec(data[..300_000].to_vec(), [3, 100_000]).unwrap();
    let rows = m.median_axes(&[1], false).unwrap().to_vec();
    for (r, got) in rows.iter().enumerate() {
        let mut lane = data[r * 100_000..(r + 1) * 100_000].to_vec();
        lane.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(*got, (lane[49_999] + lane[50_000]) / 2.0);
    }
    let mut with_nan = data.clone();
    with_nan[12345] = f64::NAN;
    let b = Tensor::from_vec(with_nan, [n]).unwrap();
    assert!(b.median().is_nan());
    assert!(!b.nanmedian().is_nan());
}

#[test]
fn errors_name_the_operation() {
    let a = Tensor::<f64, _>::ones([3, 4]);
    let m = QuantileMethod::Linear;
    assert!(
        a.quantile(2.0, m)
            .unwrap_err()
            .to_string()
            .starts_with("quantile:")
    );
    assert!(
        a.percentile(200.0, m)
            .unwrap_err()
            .to_string()
            .starts_with("percentile:")
    );
    assert!(
        a.median_axes(&[2], false)
            .unwrap_err()
            .to_string()
            .starts_with("median:")
    );
    assert!("nope".parse::<QuantileMethod>().is_err());
    let e = a.histogram(Bins::Count(0), None).unwrap_err().to_string();
    assert!(e.starts_with("histogram:"), "{e}");
    let e = a.cummax(3).unwrap_err().to_string();
    assert!(e.starts_with("cummax:"), "{e}");
    let e = a.delete(&[9], 0).unwrap_err().to_string();
    assert!(
        e.starts_with("delete:") && e.contains("out of bounds"),
        "{e}"
    );
    let e = a
        .insert(7, &Tensor::scalar(1.0), 1)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("insert:"), "{e}");
    let e = manip::broadcast_shapes(&[vec![2], vec![3]])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("broadcast_shapes:") && e.contains("(2,)") && e.contains("(3,)"),
        "{e}"
    );
    let e = manip::convolve(
        &Tensor::<f64, _>::zeros([0]),
        &a.slice(s![0]),
        ConvolveMode::Full,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("convolve:") && e.contains("empty"), "{e}");
    let one = Tensor::from_vec(vec![1.0, 2.0], [2]).unwrap();
    assert!(
        Tensor::from_vec(vec![1.0, 2.0], [2])
            .unwrap()
            .tril(0)
            .unwrap_err()
            .to_string()
            .starts_with("tril:")
    );
    assert!(one.view().into_dyn().triu(0).is_ok());
    let e = ferrotensor::reduce::cov(&[&Tensor::<f64, _>::zeros([2, 2, 2])], &CovArgs::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cov:") && e.contains("(2, 2, 2)"), "{e}");
}
