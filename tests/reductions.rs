//! Reductions: accuracy, semantics on every ownership kind, and property tests against a
//! naive reference on random layouts (transposed, stepped, flipped, broadcast).

use ferrotensor::prelude::*;
use proptest::prelude::*;

#[test]
fn sum_of_1e7_f32_tenths_is_pairwise() {
    let a = Tensor::<f32, _>::full([10_000_000], 0.1);
    let s = a.sum();
    assert!((s - 1_000_000.0).abs() <= 1.0, "{s}");
    assert_eq!(s, 1_000_000.1); // NumPy 2.4's value, bit for bit
    assert_eq!(ferrotensor::with_num_threads(1, || a.sum()), s); // thread-count independent
    let naive = a.iter().fold(0.0f32, |x, &y| x + y);
    assert!(
        (naive - 1_000_000.0).abs() > 1000.0,
        "naive summation should drift: {naive}"
    );
    assert!((a.mean() - 0.1).abs() < 1e-6);
}

#[test]
fn parallel_results_do_not_depend_on_threads() {
    let a = Tensor::from_shape_fn([300, 1000], |i: &[usize]| {
        ((i[0] * 31 + i[1] * 17) % 97) as f32 * 0.013 - 0.4
    });
    for axes in [&[0isize][..], &[1], &[0, 1]] {
        let many = a.sum_axes(axes, false).unwrap().to_vec();
        let one = ferrotensor::with_num_threads(1, || a.sum_axes(axes, false).unwrap().to_vec());
        assert_eq!(many, one, "axes {axes:?}");
        let v = a.var_axes(axes, false, 1).unwrap().to_vec();
        assert_eq!(
            v,
            ferrotensor::with_num_threads(1, || a.var_axes(axes, false, 1).unwrap().to_vec())
        );
    }
    assert_eq!(a.t().max().unwrap(), a.max().unwrap());
    assert_eq!(
        a.argmax().unwrap(),
        ferrotensor::with_num_threads(1, || a.argmax().unwrap())
    );
}

#[test]
fn every_ownership_kind() {
    let a = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    let want = a.sum_axes(&[0], false).unwrap().to_vec();
    assert_eq!(a.view().sum_axes(&[0], false).unwrap().to_vec(), want);
    assert_eq!(
        a.clone()
            .into_shared()
            .sum_axes(&[0], false)
            .unwrap()
            .to_vec(),
        want
    );
    assert_eq!(a.reshape([4]).unwrap().sum(), 10.0);
    let mut b = a.clone();
    assert_eq!(b.view_mut().max().unwrap(), 4.0);
    assert_eq!(a.clone().into_cow().argmin().unwrap(), 0);
}

#[test]
fn views_reduce_only_viewed_elements() {
    let a = Tensor::from_vec((0..20).collect::<Vec<i64>>(), [4, 5]).unwrap();
    let v = a.slice(s![1..3, ..;2]); // [[5,7,9],[10,12,14]]
    assert_eq!(v.sum(), 57);
    assert_eq!(
        v.reduce_axes(&[0], false, 0i64, |acc, x| acc + x)
            .unwrap()
            .to_vec(),
        vec![15, 19, 23]
    );
    assert_eq!(
        v.fold_axis(1, 0i64, |acc, x| acc.max(x)).unwrap().to_vec(),
        vec![9, 14]
    );
    let b = Tensor::from_vec(vec![1.0, 2.0], [2]).unwrap();
    let bb = b.broadcast_to([3, 2]).unwrap();
    assert_eq!(bb.sum_axes(&[0], false).unwrap().to_vec(), vec![3.0, 6.0]);
    assert_eq!(bb.flip(1).unwrap().argmax().unwrap(), 0);
}

#[test]
fn axes_errors_and_edge_cases() {
    let a = Tensor::<f64, _>::ones([2, 3]);
    for bad in [&[2isize][..], &[-3], &[0, 0], &[1, -1]] {
        let e = a.sum_axes(bad, false).unwrap_err().to_string();
        assert!(e.starts_with("sum:"), "{e}");
    }
    assert_eq!(a.sum_axes(&[], false).unwrap().shape(), &[2, 3]);
    let s = Tensor::scalar(5.0);
    assert!(s.sum_axes(&[0], false).is_err());
    assert!(
        s.clone().into_dyn().argmax_axis(0).is_err(),
        "0-d at dynamic rank: axis out of range"
    );
    assert_eq!(s.sum(), 5.0);
    assert_eq!(s.argmax().unwrap(), 0);
    assert_eq!(s.sum_axes(&[], true).unwrap().shape(), &[] as &[usize]);
    let e = Tensor::<f64, _>::zeros([0, 3]);
    assert_eq!(e.sum(), 0.0);
    assert_eq!(e.prod(), 1.0);
    assert!(e.mean().is_nan());
    assert!(e.max().unwrap_err().to_string().contains("(0, 3)"));
    assert_eq!(e.max_axes(&[1], false).unwrap().shape(), &[0]);
    assert!(e.max_axes(&[0], false).is_err());
    assert!(e.argmax().is_err());
    assert_eq!(e.logsumexp(), f64::NEG_INFINITY);
    assert_eq!(e.cumsum(0).unwrap().shape(), &[0, 3]);
    assert!(
        Tensor::from_vec(vec![f64::NAN, f64::NAN], [2])
            .unwrap()
            .nanargmin()
            .is_err()
    );
    assert!(
        Tensor::from_vec(vec![f64::NAN, f64::NAN], [2])
            .unwrap()
            .nanmax()
            .unwrap()
            .is_nan()
    );
    let ints = Tensor::from_vec(vec![i32::MAX, 1, 2], [3]).unwrap();
    assert_eq!(ints.sum(), i32::MIN + 2);
    assert_eq!(ints.sum_as::<i64>(), i32::MAX as i64 + 3);
    assert_eq!(ints.mean_as::<f64>(), (i32::MAX as f64 + 3.0) / 3.0);
}

/// A tensor and a view of it with a random layout, plus the view's elements in
/// row-major order.
fn layouts() -> impl Strategy<Value = (Vec<usize>, Vec<i32>, u8, Vec<isize>)> {
    (
        proptest::collection::vec(1usize..5, 1..4),
        any::<u8>(),
        proptest::collection::vec(-3isize..3, 4),
    )
        .prop_flat_map(|(shape, kind, steps)| {
            let n = shape.iter().product::<usize>();
            (
                Just(shape),
                proptest::collection::vec(-50i32..50, n),
                Just(kind),
                Just(steps),
            )
        })
}

fn make_view<'a>(
    base: &'a Tensor<i32, IxDyn>,
    kind: u8,
    steps: &[isize],
) -> TensorView<'a, i32, IxDyn> {
    let nd = base.ndim();
    let mut v = base.view();
    if kind & 1 == 1 {
        v = v.t();
    }
    if kind & 2 == 2 {
        let items: Vec<SliceItem> = (0..nd)
            .map(|k| SliceItem::Range {
                start: None,
                stop: None,
                step: if steps[k] == 0 { 1 } else { steps[k] },
            })
            .collect();
        v = v.slice(items);
    }
    if kind & 4 == 4 {
        v = v.flip(0).unwrap();
    }
    if kind & 8 == 8 {
        let mut shape = vec![2];
        shape.extend_from_slice(v.shape());
        v = v.broadcast_to(shape).unwrap();
    }
    v
}

/// Naive reference: fold over the reduced axes in row-major order.
fn naive<A: Copy>(
    v: &TensorView<'_, i32, IxDyn>,
    mask: &[bool],
    init: A,
    f: impl Fn(A, i32) -> A,
) -> (Vec<usize>, Vec<A>) {
    let shape = v.shape().to_vec();
    let out_shape: Vec<usize> = shape
        .iter()
        .zip(mask)
        .filter(|p| !*p.1)
        .map(|p| *p.0)
        .collect();
    let n_out: usize = out_shape.iter().product();
    let mut out = vec![init; n_out];
    for (idx, &x) in v.indexed_iter() {
        let mut o = 0;
        for (k, &i) in idx.slice().iter().enumerate() {
            if !mask[k] {
                o = o * shape[k] + i;
            }
        }
        out[o] = f(out[o], x);
    }
    (out_shape, out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn reductions_match_naive((shape, data, kind, steps) in layouts(), axes_bits in any::<u8>()) {
        let base = Tensor::from_vec(data, shape).unwrap();
        let v = make_view(&base, kind, &steps);
        let nd = v.ndim();
        let mask: Vec<bool> = (0..nd).map(|k| axes_bits >> k & 1 == 1).collect();
        let axes: Vec<isize> = (0..nd).filter(|&k| mask[k]).map(|k| k as isize - if k % 2 == 1 { nd as isize } else { 0 }).collect();
        let (s, want) = naive(&v, &mask, 0i64, |a, x| a + x as i64);
        let got = v.sum_axes_as::<i64>(&axes, false).unwrap();
        prop_assert_eq!(got.shape(), &s[..]);
        prop_assert_eq!(got.to_vec(), want);
        let (_, want) = naive(&v, &mask, i32::MIN, |a, x| a.max(x));
        prop_assert_eq!(v.max_axes(&axes, false).unwrap().to_vec(), want);
        let (_, want) = naive(&v, &mask, 1i32, |a, x| a.wrapping_mul(x));
        prop_assert_eq!(v.prod_axes(&axes, false).unwrap().to_vec(), want);
        let (_, want) = naive(&v, &mask, 0usize, |a, x| a + (x != 0) as usize);
        prop_assert_eq!(v.count_nonzero_axes(&axes, true).unwrap().to_vec(), want);
        let (_, want) = naive(&v, &mask, 0i64, |a, x| a.wrapping_mul(3).wrapping_add(x as i64));
        prop_assert_eq!(v.reduce_axes(&axes, false, 0i64, |a, x| a.wrapping_mul(3).wrapping_add(x as i64)).unwrap().to_vec(), want);
        // argmax along one axis: first occurrence.
        let ax = (axes_bits as usize) % nd;
        let got = v.argmax_axis(ax as isize).unwrap().to_vec();
        let vals = v.to_vec();
        let sh = v.shape().to_vec();
        let inner: usize = sh[ax + 1..].iter().product();
        let outer: usize = sh[..ax].iter().product();
        let mut want = Vec::new();
        for o in 0..outer {
            for i in 0..inner {
                let at = |j: usize| vals[(o * sh[ax] + j) * inner + i];
                let best = (0..sh[ax]).fold(0, |b, j| if at(j) > at(b) { j } else { b });
                want.push(best);
            }
        }
        prop_assert_eq!(got, want);
        let flat = v.argmax().unwrap();
        prop_assert_eq!(flat, (0..vals.len()).fold(0, |b, j| if vals[j] > vals[b] { j } else { b }));
        // cumsum along the axis.
        let cs = v.cumsum(ax as isize).unwrap().to_vec();
        for o in 0..outer {
            for i in 0..inner {
                let mut acc = 0i32;
                for j in 0..sh[ax] {
                    let k = (o * sh[ax] + j) * inner + i;
                    acc = acc.wrapping_add(vals[k]);
                    prop_assert_eq!(cs[k], acc);
                }
            }
        }
    }

    #[test]
    fn float_sums_close_to_f64_reference((shape, data, kind, steps) in layouts(), axes_bits in any::<u8>()) {
        let base = Tensor::from_vec(data, shape).unwrap();
        let v = make_view(&base, kind, &steps);
        let f: Tensor<f32, IxDyn> = Tensor::from_vec(v.iter().map(|&x| x as f32 * 0.37).collect(), v.shape().to_vec()).unwrap();
        let nd = f.ndim();
        let axes: Vec<isize> = (0..nd as isize).filter(|&k| axes_bits >> k & 1 == 1).collect();
        let exact = f.mean_axes_as::<f64>(&axes, false).unwrap().to_vec();
        let got = f.t().mean_axes(&axes.iter().map(|&a| nd as isize - 1 - a).collect::<Vec<_>>(), false).unwrap();
        let got_t: Vec<f32> = if got.ndim() > 1 { got.t().to_vec() } else { got.to_vec() };
        for (g, e) in got_t.iter().zip(&exact) {
            prop_assert!((*g as f64 - e).abs() <= 1e-5 * (1.0 + e.abs()), "{} vs {}", g, e);
        }
    }
}

#[test]
fn half_sums_accumulate_in_f32_and_round_once() {
    use half::{bf16, f16};
    // NumPy 2.4: np.full(10000, 0.1, np.float16).sum() == 1e3 and .mean() == 0.1; an f16
    // accumulator would stall near 256.
    let a = Tensor::<f16, _>::full([10_000], f16::from_f32(0.1));
    assert_eq!(a.sum(), f16::from_f32(1000.0));
    assert_eq!(a.mean(), f16::from_f32(0.1));
    assert_eq!(a.nansum(), f16::from_f32(1000.0));
    // Also over a non-innermost axis (NumPy rounds to float16 per row there and gives
    // 256 for this column; ferrotensor rounds once).
    let b = a.reshape([2500, 4]).unwrap();
    let col = f16::from_f32(2500.0 * f16::from_f32(0.1).to_f32());
    assert_eq!(b.sum_axes(&[0], false).unwrap().to_vec(), vec![col; 4]);
    assert_eq!(
        b.sum_axes(&[1], false).unwrap().to_vec()[0],
        f16::from_f32(0.4)
    );
    assert_eq!(b.t().sum(), f16::from_f32(1000.0));
    // var/std/mean as NumPy: y = tile([0.1, 0.3], 5000) gives 0.01001, 0.10004, 0.2.
    let y = Tensor::from_shape_fn([10_000], |i: &[usize]| {
        f16::from_f32(if i[0].is_multiple_of(2) { 0.1 } else { 0.3 })
    });
    assert_eq!(y.mean(), f16::from_f32(0.2));
    assert_eq!(y.var(0), f16::from_f32(0.01001));
    assert_eq!(y.std(0), f16::from_f32(0.10004));
    assert_eq!(y.var_axes(&[0], false, 0).unwrap().to_vec(), vec![y.var(0)]);
    // nanmean/nansum: NumPy gives 0.2 and 1.2e3.
    let z = Tensor::from_shape_fn([9_000], |i: &[usize]| {
        f16::from_f32([0.1, f32::NAN, 0.3][i[0] % 3])
    });
    assert_eq!(z.nanmean(), f16::from_f32(0.2));
    assert_eq!(z.nansum(), f16::from_f32(1200.0));
    assert_eq!(
        z.nanmean_axes(&[0], true).unwrap().to_vec(),
        vec![f16::from_f32(0.2)]
    );
    // L2 norm: squares and sum in f32 (sqrt(10000 · 0.1²) = 10).
    assert_eq!(a.norm(NormOrd::L2), f16::from_f32(10.0));
    // Overflow only at the final rounding, as NumPy's float16 sums.
    let big = Tensor::<f16, _>::full([3], f16::from_f32(40_000.0));
    assert!(big.sum().is_infinite());
    assert_eq!(big.mean(), f16::from_f32(40_000.0));
    // bf16 likewise (no NumPy type): 10000 · bf16(0.1) = 1000.977 in f32 → 1000.0.
    let c = Tensor::<bf16, _>::full([10_000], bf16::from_f32(0.1));
    assert_eq!(c.sum(), bf16::from_f32(1000.977));
    assert_eq!(c.mean(), bf16::from_f32(0.1));
    assert_eq!(
        c.sum_axes(&[0], false).unwrap().to_vec(),
        vec![bf16::from_f32(1000.977)]
    );
    // Thread-count independence holds for half sums too.
    assert_eq!(
        ferrotensor::with_num_threads(1, || b.sum_axes(&[0], false).unwrap().to_vec()),
        vec![col; 4]
    );
    // Integer accumulation into f16 via sum_as also goes through f32.
    let ints = Tensor::<i32, _>::ones([5000]);
    assert_eq!(ints.sum_as::<f16>(), f16::from_f32(5000.0));
}
