//! Golden tests (NumPy, `kind="stable"`) for sort / argsort, topk (PyTorch
//! semantics), searchsorted and unique; plus large parallel runs against std's sort.

use crate::manip_support;
use ferrotensor::prelude::*;
use manip_support::*;
use serde_json::Value;

fn sort_case<T: Gold + SortElement>(c: &Value) -> Result<(), String> {
    let a = base::<T>(input(c, 0));
    let v = view(&a, input(c, 0));
    let axis = arg_i(c, "axis");
    if c["fn"] == "sort" {
        expect(c, v.sort(axis), |t| check(t, &c["out"][0]))
    } else {
        expect(c, v.argsort(axis), |t| check(t, &c["out"][0]))
    }
}

fn by_dtype(
    c: &Value,
    f32_: fn(&Value) -> Result<(), String>,
    f64_: fn(&Value) -> Result<(), String>,
    i64_: fn(&Value) -> Result<(), String>,
) -> Result<(), String> {
    match dtype(c, 0).as_str() {
        "f32" => f32_(c),
        "f64" => f64_(c),
        _ => i64_(c),
    }
}

#[test]
fn golden_sort_argsort() {
    for name in ["sort", "argsort"] {
        run(name, 70, |c| {
            by_dtype(c, sort_case::<f32>, sort_case::<f64>, sort_case::<i64>)
        });
    }
}

fn topk_case<T: Gold + SortElement>(c: &Value) -> Result<(), String> {
    let a = base::<T>(input(c, 0));
    let v = view(&a, input(c, 0));
    let largest = c["args"]["largest"].as_bool().unwrap();
    expect(
        c,
        v.topk(arg_i(c, "k") as usize, arg_i(c, "axis"), largest),
        |(vals, idx)| {
            check(vals, &c["out"][0])?;
            check(idx, &c["out"][1])
        },
    )
}

fn search_case<T: Gold + SortElement>(c: &Value) -> Result<(), String> {
    let (a, q) = (base::<T>(input(c, 0)), base::<T>(input(c, 1)));
    let (av, qv) = (view(&a, input(c, 0)), view(&q, input(c, 1)));
    let side = if c["args"]["side"] == "left" {
        Side::Left
    } else {
        Side::Right
    };
    expect(c, av.searchsorted(&qv, side), |t| check(t, &c["out"][0]))
}

fn unique_case<T: Gold + SortElement>(c: &Value) -> Result<(), String> {
    let a = base::<T>(input(c, 0));
    let u = view(&a, input(c, 0)).unique();
    check(&u.values, &c["out"][0])?;
    check(&u.indices, &c["out"][1])?;
    check(&u.inverse, &c["out"][2])?;
    check(&u.counts, &c["out"][3])
}

#[test]
fn golden_topk_searchsorted_unique() {
    run("topk", 25, |c| {
        by_dtype(c, topk_case::<f32>, topk_case::<f64>, topk_case::<i64>)
    });
    run("searchsorted", 20, |c| {
        by_dtype(
            c,
            search_case::<f32>,
            search_case::<f64>,
            search_case::<i64>,
        )
    });
    run("unique", 20, |c| {
        by_dtype(
            c,
            unique_case::<f32>,
            unique_case::<f64>,
            unique_case::<i64>,
        )
    });
}

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 11
}

fn bits<S: ferrotensor::storage::Storage<Elem = f32>, D: Dimension>(
    t: &TensorBase<S, D>,
) -> Vec<u32> {
    t.to_vec().iter().map(|x| x.to_bits()).collect()
}

fn reference_order(x: f32) -> (bool, f32) {
    (x.is_nan(), if x == 0.0 || x.is_nan() { 0.0 } else { x })
}

#[test]
fn large_parallel_sorts_match_std() {
    let mut seed = 3;
    let n = 400_000;
    let data: Vec<f32> = (0..n)
        .map(|i| match i % 97 {
            0 => f32::NAN,
            1 => -0.0,
            _ => ((lcg(&mut seed) % 20_000) as f32 - 10_000.0) / 7.0,
        })
        .collect();
    let a = Tensor::from_vec(data.clone(), [n]).unwrap();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&i, &j| {
        reference_order(data[i])
            .partial_cmp(&reference_order(data[j]))
            .unwrap()
    });
    let want: Vec<u32> = idx.iter().map(|&i| data[i].to_bits()).collect();
    for threads in [1, 2] {
        let s = ferrotensor::with_num_threads(threads, || a.sort(0).unwrap());
        assert!(bits(&s) == want, "sort with {threads} threads");
        let i = ferrotensor::with_num_threads(threads, || a.argsort(0).unwrap());
        assert!(i.to_vec() == idx, "argsort with {threads} threads");
    }
    // a lane that starts inside its buffer (offset view) sorts like its copy
    let tail = a.slice(s![7..]);
    let by_view = ferrotensor::with_num_threads(2, || tail.sort(0).unwrap());
    let by_copy = ferrotensor::with_num_threads(1, || tail.to_owned().sort(0).unwrap());
    assert!(bits(&by_view) == bits(&by_copy));
    // many rows along either axis, through a transposed view
    let m = a.reshape([800, 500]).unwrap();
    let rows = m.sort(1).unwrap();
    let cols = m.t().sort(0).unwrap();
    assert!(bits(&rows.t()) == bits(&cols));
    for r in 0..800 {
        let row = rows.slice(s![r, ..]).to_vec();
        assert!(
            row.windows(2)
                .all(|w| reference_order(w[0]) <= reference_order(w[1]))
        );
    }
    let (v, i) = m.topk(5, 1, true).unwrap();
    assert_eq!(v.shape(), &[800, 5]);
    assert!(v.slice(s![.., 0]).iter().all(|x| x.is_nan()));
    assert!(bits(&m.take_along_axis(&i, 1).unwrap()) == bits(&v));
    let u = a.unique();
    assert_eq!(u.counts.to_vec().iter().sum::<usize>(), n);
    assert!(u.values.to_vec().last().unwrap().is_nan());
}

#[test]
fn sort_other_element_types() {
    let b = Tensor::from_vec(vec![true, false, true, false], [4]).unwrap();
    assert_eq!(b.sort(0).unwrap().to_vec(), vec![false, false, true, true]);
    assert_eq!(b.argsort(0).unwrap().to_vec(), vec![1, 3, 0, 2]);
    let u = Tensor::from_vec(vec![300u16, 2, 65535, 0], [4]).unwrap();
    assert_eq!(u.sort(0).unwrap().to_vec(), vec![0, 2, 300, 65535]);
    let i = Tensor::from_vec(vec![i8::MIN, 5, -1, i8::MAX], [4]).unwrap();
    assert_eq!(i.sort(0).unwrap().to_vec(), vec![i8::MIN, -1, 5, i8::MAX]);
    let h = Tensor::from_vec(
        vec![
            half::f16::from_f32(2.0),
            half::f16::NAN,
            half::f16::from_f32(-3.0),
        ],
        [3],
    )
    .unwrap();
    assert_eq!(h.argsort(0).unwrap().to_vec(), vec![2, 0, 1]);
    let e = Tensor::<f32, _>::zeros([0, 3]);
    assert_eq!(e.sort(1).unwrap().shape(), &[0, 3]);
    assert_eq!(e.argsort(0).unwrap().shape(), &[0, 3]);
    assert_eq!(e.topk(0, 0, true).unwrap().0.shape(), &[0, 3]);
    let e = Tensor::scalar(1.0f32).sort(0).unwrap_err().to_string();
    assert!(e.starts_with("sort:"), "{e}");
    let e = Tensor::<f32, _>::zeros([2, 3])
        .topk(4, 1, true)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("topk:") && e.contains("(2, 3)"), "{e}");
    assert!(
        Tensor::<f32, _>::zeros([2, 3])
            .searchsorted(&Tensor::scalar(0.0f32), Side::Left)
            .is_err()
    );
}

/// Floats with many ties, signed zeros, infinities, subnormals and NaN payloads.
fn nasty(n: usize, seed: &mut u64) -> Vec<f32> {
    (0..n)
        .map(|_| {
            let r = lcg(seed);
            match r % 16 {
                0 => f32::from_bits(0x7fc0_0000 | ((r >> 8) as u32 & 0x3f_ffff)),
                1 => f32::from_bits(0xff80_0001 + (r >> 8) as u32 % 100),
                2 => -0.0,
                3 => 0.0,
                4 => f32::INFINITY,
                5 => f32::NEG_INFINITY,
                6 => f32::from_bits(((r >> 8) as u32 % 1000) | ((r as u32 & 1) << 31)),
                7..=10 => ((r >> 8) % 7) as f32 - 3.0,
                _ => f32::from_bits((r >> 4) as u32),
            }
        })
        .collect()
}

/// The bits of std's stable sort of `v` in NumPy's order.
fn stable_bits(v: &[f32]) -> Vec<u32> {
    let mut v = v.to_vec();
    v.sort_by(|x, y| {
        reference_order(*x)
            .partial_cmp(&reference_order(*y))
            .unwrap()
    });
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn f32_sort_is_bit_identical_to_a_stable_sort() {
    let mut seed = 5;
    let lens = (0..100).chain([1000, 100_000, 300_000]);
    for n in lens {
        let data = nasty(n, &mut seed);
        let want = stable_bits(&data);
        let a = Tensor::from_vec(data.clone(), [n]).unwrap();
        for threads in [1, 2] {
            let s = ferrotensor::with_num_threads(threads, || a.sort(0).unwrap());
            assert!(bits(&s) == want, "n = {n}, {threads} threads");
        }
        // a reversed (strided) lane
        let r = a.slice(s![..;-1]).sort(0).unwrap();
        let mut rev = data.clone();
        rev.reverse();
        assert!(bits(&r) == stable_bits(&rev), "reversed n = {n}");
    }
    // rows along either axis (contiguous and strided lanes)
    for (rows, cols) in [(3, 5), (64, 100), (300, 4096), (2000, 70)] {
        let data = nasty(rows * cols, &mut seed);
        let m = Tensor::from_vec(data.clone(), [rows, cols]).unwrap();
        let by_row = m.sort(1).unwrap();
        let by_col = m.t().sort(0).unwrap();
        assert!(bits(&by_row.t()) == bits(&by_col));
        let got = bits(&by_row);
        for r in 0..rows {
            let want = stable_bits(&data[r * cols..(r + 1) * cols]);
            assert!(
                got[r * cols..(r + 1) * cols] == want[..],
                "row {r} of {rows} x {cols}"
            );
        }
    }
}

/// The bits of std's stable sort of `v` in NumPy's order (`f64`).
fn stable_bits64(v: &[f64]) -> Vec<u64> {
    let ord = |x: f64| (x.is_nan(), if x == 0.0 || x.is_nan() { 0.0 } else { x });
    let mut v = v.to_vec();
    v.sort_by(|x, y| ord(*x).partial_cmp(&ord(*y)).unwrap());
    v.iter().map(|x| x.to_bits()).collect()
}

/// Lanes of `n` elements shaped to stress each path: random with specials, already
/// sorted, reversed, all equal, few distinct values, organ pipe.
fn patterned(n: usize, pattern: usize, seed: &mut u64) -> Vec<f32> {
    let mut v = nasty(n, seed);
    match pattern {
        0 => {}
        1 => v = stable_bits(&v).into_iter().map(f32::from_bits).collect(),
        2 => {
            v = stable_bits(&v).into_iter().map(f32::from_bits).collect();
            v.reverse();
        }
        3 => v.iter_mut().for_each(|x| *x = 1.5),
        4 => v.iter_mut().for_each(|x| *x = (lcg(seed) % 3) as f32 - 1.0),
        _ => v
            .iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = i.min(n - i) as f32),
    }
    v
}

#[test]
fn sort_lengths_around_every_threshold() {
    let mut seed = 17;
    let lens = [
        1, 2, 15, 16, 17, 31, 32, 33, 255, 256, 257, 271, 272, 273, 4095, 4096, 4097, 65_535,
        65_536, 100_000,
    ];
    for &n in &lens {
        for pattern in 0..6 {
            let data = patterned(n, pattern, &mut seed);
            let want = stable_bits(&data);
            let a = Tensor::from_vec(data.clone(), [n]).unwrap();
            for threads in [1, 2] {
                let s = ferrotensor::with_num_threads(threads, || a.sort(-1).unwrap());
                assert!(
                    bits(&s) == want,
                    "f32 n = {n} pattern {pattern}, {threads} threads"
                );
            }
            // as rows of a matrix (several lanes), along either axis, and flipped
            let m = Tensor::from_vec([data.clone(), data.clone()].concat(), [2, n]).unwrap();
            let rows = bits(&m.sort(1).unwrap());
            assert!(
                rows[..n] == want[..] && rows[n..] == want[..],
                "rows n = {n} pattern {pattern}"
            );
            let cols = m.t().sort(0).unwrap();
            assert!(bits(&cols.t()) == rows, "columns n = {n} pattern {pattern}");
            let mut rev = data.clone();
            rev.reverse();
            let flipped = bits(&m.slice(s![.., ..;-1]).sort(1).unwrap());
            assert!(
                flipped[..n] == stable_bits(&rev)[..],
                "flipped n = {n} pattern {pattern}"
            );
            // f64 (a separate path)
            let d: Vec<f64> = data.iter().map(|&x| x as f64).collect();
            let want64 = stable_bits64(&d);
            let a64 = Tensor::from_vec(d, [n]).unwrap();
            let got: Vec<u64> = a64
                .sort(0)
                .unwrap()
                .to_vec()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert!(got == want64, "f64 n = {n} pattern {pattern}");
            // argsort stays stable
            let idx = a.argsort(0).unwrap().to_vec();
            let mut want_idx: Vec<usize> = (0..n).collect();
            want_idx.sort_by(|&i, &j| {
                reference_order(data[i])
                    .partial_cmp(&reference_order(data[j]))
                    .unwrap()
            });
            assert!(idx == want_idx, "argsort n = {n} pattern {pattern}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn sort_matches_a_total_order_sort(
        lanes in 1usize..4,
        bits_in in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..1200),
        pick in proptest::collection::vec(0u8..8, 0..1200),
    ) {
        // raw bit patterns (every NaN payload, subnormals, ±0, ±inf), mixed with a few
        // repeated values so ties are common
        let n = bits_in.len().min(pick.len());
        let lane: Vec<f32> = (0..n)
            .map(|i| match pick[i] {
                0 => 0.0,
                1 => -0.0,
                2 => 1.0,
                _ => f32::from_bits(bits_in[i]),
            })
            .collect();
        let data: Vec<f32> = (0..lanes).flat_map(|k| lane.iter().map(move |x| x * (k as f32 + 1.0))).collect();
        let m = Tensor::from_vec(data.clone(), [lanes, n]).unwrap();
        let got = bits(&m.sort(1).unwrap());
        for k in 0..lanes {
            proptest::prop_assert!(got[k * n..(k + 1) * n] == stable_bits(&data[k * n..(k + 1) * n])[..]);
        }
    }
}
