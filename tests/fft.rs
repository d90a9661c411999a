//! `ferrotensor::fft` against NumPy's `numpy.fft` (tests/golden/fft/gen_fft.py): every
//! transform on strided, flipped, broadcast, empty and NaN inputs of f32, f64 and both
//! complex types, each norm mode, `n`/`s`/`axes` as NumPy, and NumPy's error cases.
//! Every case runs twice: with the default parallel threshold and with every lane
//! batch split over threads.
//!
//! Tolerance: 5e-6 (single) / 1e-13 (double) relative to the largest output value.

mod breadth_common;

use breadth_common::*;
use ferrotensor::fft::{self, FftElement, FftRealElement, Norm};
use ferrotensor::prelude::*;
use half::f16;
use num_complex::Complex;
use serde_json::Value;

fn norm(args: &Value) -> Norm {
    match args.get("norm").and_then(|n| n.as_str()) {
        None | Some("backward") => Norm::Backward,
        Some("ortho") => Norm::Ortho,
        Some("forward") => Norm::Forward,
        Some(n) => panic!("norm {n}"),
    }
}

fn tol<T: Golden>() -> f64 {
    if T::EPS > 1e-10 { 5e-6 } else { 1e-13 }
}

/// The one-axis arguments `(n, axis)`.
fn one(args: &Value) -> (Option<usize>, isize) {
    let n = args.get("n").map(|v| v.as_u64().unwrap() as usize);
    let axis = args
        .get("axis")
        .map_or(-1, |v| v.as_i64().unwrap() as isize);
    (n, axis)
}

/// The n-axis arguments `(s, axes)`.
fn many(args: &Value) -> (Option<Vec<usize>>, Option<Vec<isize>>) {
    (args.get("s").map(usizes), args.get("axes").map(isizes))
}

/// Runs a transform that takes any input type; false if `name` is not one.
fn run_any<T>(case: &Value, name: &str, ctx: &str) -> bool
where
    T: FftElement + Golden,
    T::Real: Golden,
    Complex<T::Real>: Golden,
{
    let x = input::<T>(&case["x"], 0, case["dtype"].as_str().unwrap());
    let v = view_of(&x, &case["x"]);
    let (args, want) = (&case["args"], &case["want"]);
    let (n, axis) = one(args);
    let (s, axes) = many(args);
    let (s, axes) = (s.as_deref(), axes.as_deref());
    let (t, nm) = (tol::<T>(), norm(args));
    let two = axes.unwrap_or(&[-2, -1]);
    match name {
        "fft" => expect(fft::fft(&v, n, axis, nm), want, name, t, 1.0, ctx),
        "ifft" => expect(fft::ifft(&v, n, axis, nm), want, name, t, 1.0, ctx),
        "irfft" => expect(fft::irfft(&v, n, axis, nm), want, name, t, 1.0, ctx),
        "hfft" => expect(fft::hfft(&v, n, axis, nm), want, name, t, 1.0, ctx),
        "fftn" => expect(fft::fftn(&v, s, axes, nm), want, name, t, 1.0, ctx),
        "ifftn" => expect(fft::ifftn(&v, s, axes, nm), want, name, t, 1.0, ctx),
        "irfftn" => expect(fft::irfftn(&v, s, axes, nm), want, name, t, 1.0, ctx),
        "fft2" => expect(fft::fft2(&v, s, two, nm), want, name, t, 1.0, ctx),
        "ifft2" => expect(fft::ifft2(&v, s, two, nm), want, name, t, 1.0, ctx),
        "irfft2" => expect(fft::irfft2(&v, s, two, nm), want, name, t, 1.0, ctx),
        _ => return false,
    }
    true
}

/// Runs a transform of real input; false if `name` is not one.
fn run_real<T>(case: &Value, name: &str, ctx: &str) -> bool
where
    T: FftRealElement + Golden,
    Complex<T::Real>: Golden,
{
    let x = input::<T>(&case["x"], 0, case["dtype"].as_str().unwrap());
    let v = view_of(&x, &case["x"]);
    let (args, want) = (&case["args"], &case["want"]);
    let (n, axis) = one(args);
    let (s, axes) = many(args);
    let (s, axes) = (s.as_deref(), axes.as_deref());
    let (t, nm) = (tol::<T>(), norm(args));
    let two = axes.unwrap_or(&[-2, -1]);
    match name {
        "rfft" => expect(fft::rfft(&v, n, axis, nm), want, name, t, 1.0, ctx),
        "ihfft" => expect(fft::ihfft(&v, n, axis, nm), want, name, t, 1.0, ctx),
        "rfftn" => expect(fft::rfftn(&v, s, axes, nm), want, name, t, 1.0, ctx),
        "rfft2" => expect(fft::rfft2(&v, s, two, nm), want, name, t, 1.0, ctx),
        _ => return false,
    }
    true
}

fn run_shift<T: Golden>(case: &Value, name: &str, ctx: &str) {
    let x = input::<T>(&case["x"], 0, case["dtype"].as_str().unwrap());
    let v = view_of(&x, &case["x"]);
    let axes = case["args"].get("axes").map(isizes);
    let r = if name == "fftshift" {
        fft::fftshift(&v, axes.as_deref())
    } else {
        fft::ifftshift(&v, axes.as_deref())
    };
    expect(r, &case["want"], name, 0.0, 0.0, ctx);
}

fn run_case(case: &Value) {
    let name = case["fn"].as_str().unwrap();
    let dt = case["dtype"].as_str().unwrap();
    let ctx = format!("{name} {dt} x={} args={}", case["x"], case["args"]);
    if name.ends_with("freq") {
        let (n, d) = (
            case["args"]["n"].as_u64().unwrap() as usize,
            num(&case["args"]["d"]),
        );
        let r = if name == "fftfreq" {
            fft::fftfreq(n, d)
        } else {
            fft::rfftfreq(n, d)
        };
        expect(r, &case["want"], name, 1e-15, 0.0, &ctx);
        let r32 = if name == "fftfreq" {
            fft::fftfreq(n, d as f32)
        } else {
            fft::rfftfreq(n, d as f32)
        };
        if let Ok(r32) = r32 {
            let want: Vec<f32> = case["want"]["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| num(v) as f32)
                .collect();
            assert_eq!(r32.to_vec(), want, "{ctx}: f32");
        }
        return;
    }
    if name.ends_with("shift") {
        match dt {
            "f64" => run_shift::<f64>(case, name, &ctx),
            "i64" => run_shift::<i64>(case, name, &ctx),
            _ => panic!("{ctx}: dtype"),
        }
        return;
    }
    let done = match dt {
        "f16" => run_any::<f16>(case, name, &ctx) || run_real::<f16>(case, name, &ctx),
        "f32" => run_any::<f32>(case, name, &ctx) || run_real::<f32>(case, name, &ctx),
        "f64" => run_any::<f64>(case, name, &ctx) || run_real::<f64>(case, name, &ctx),
        "c64" => run_any::<Complex<f32>>(case, name, &ctx),
        "c128" => run_any::<Complex<f64>>(case, name, &ctx),
        _ => panic!("{ctx}: dtype"),
    };
    assert!(done, "{ctx}: no such function");
}

#[test]
fn every_transform_matches_numpy() {
    let cases = load("fft/fft.json");
    assert!(cases.len() > 1000);
    for case in &cases {
        run_case(case);
    }
}

#[test]
fn every_transform_matches_numpy_with_lanes_split_over_threads() {
    let cases = load("fft/fft.json");
    ferrotensor::iter::with_parallel_threshold(0, || {
        for case in &cases {
            run_case(case);
        }
    });
}

#[test]
fn round_trips_hold_for_large_and_awkward_lengths() {
    // Lengths with large prime factors (Rader, Bluestein) and powers of two, along an
    // inner axis of a transposed view, in both precisions.
    for n in [1usize, 2, 3, 127, 256, 1000, 1021, 4096, 10007] {
        let x = Tensor::from_shape_fn([n, 3], |i: &[usize]| {
            ((i[0] * 31 + i[1] * 7) % 17) as f64 - 8.0
        });
        let v = x.t();
        let y = fft::fft(&v, None, 1, Norm::Ortho).unwrap();
        let back = fft::ifft(&y, None, 1, Norm::Ortho).unwrap();
        for (a, b) in back.to_vec().iter().zip(v.to_owned().to_vec()) {
            assert!((a.re - b).abs() < 1e-9 && a.im.abs() < 1e-9, "n = {n}");
        }
        let xf = x.mapv(|v| v as f32);
        let h = fft::rfft(&xf, None, 0, Norm::Backward).unwrap();
        assert_eq!(h.shape(), &[n / 2 + 1, 3]);
        let back = fft::irfft(&h, Some(n), 0, Norm::Backward).unwrap();
        for (a, b) in back.to_vec().iter().zip(xf.to_vec()) {
            assert!((a - b).abs() < 1e-3, "n = {n}: {a} vs {b}");
        }
    }
}

#[test]
fn parseval_holds_for_a_large_batched_transform() {
    // 2^17 points in 64 lanes along axis 0: the blocked, threaded path.
    let x = Tensor::from_shape_fn([2048, 64], |i: &[usize]| {
        ((i[0] * 13 + i[1] * 5) % 23) as f64 - 11.0
    });
    let y = fft::fft(&x, None, 0, Norm::Ortho).unwrap();
    let e_in: f64 = x.iter().map(|v| v * v).sum();
    let e_out: f64 = y.iter().map(|c| c.norm_sqr()).sum();
    assert!((e_in - e_out).abs() < 1e-9 * e_in);
    let seq = ferrotensor::with_num_threads(1, || fft::fft(&x, None, 0, Norm::Ortho).unwrap());
    assert_eq!(seq.to_vec(), y.to_vec(), "threads do not change the result");
}

#[test]
fn rank_types_and_errors() {
    let x = Tensor::<f32, _>::ones([3, 4]);
    let y: Tensor<Complex<f32>, Ix2> = fft::fft(&x, None, 0, Norm::Backward).unwrap();
    assert_eq!(y.shape(), &[3, 4]);
    let r: Tensor<f32, Ix2> = fft::irfft(&y, None, 1, Norm::Backward).unwrap();
    assert_eq!(r.shape(), &[3, 6]);
    let e = fft::fft(&x, Some(0), 0, Norm::Backward)
        .err()
        .expect("an error")
        .to_string();
    assert!(e.starts_with("fft:") && e.contains("(0)"), "{e}");
    let e = fft::fft(&x, None, 2, Norm::Backward)
        .err()
        .expect("an error")
        .to_string();
    assert!(e.starts_with("fft:") && e.contains("axis 2"), "{e}");
    let e = fft::fftn(&x, Some(&[2]), Some(&[0, 1]), Norm::Backward)
        .err()
        .expect("an error")
        .to_string();
    assert!(
        e.starts_with("fftn:") && e.contains("different lengths"),
        "{e}"
    );
    let e = fft::rfftn(&x, None, Some(&[]), Norm::Backward)
        .err()
        .expect("an error")
        .to_string();
    assert!(e.starts_with("rfftn:"), "{e}");
    let s = Tensor::scalar(1.0f64);
    assert!(
        fft::fft(&s, None, -1, Norm::Backward)
            .err()
            .expect("an error")
            .to_string()
            .starts_with("fft:")
    );
    assert!(
        fft::fftfreq(3, 0.0f64)
            .unwrap_err()
            .to_string()
            .starts_with("fftfreq:")
    );
}
