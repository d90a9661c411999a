//! `logsumexp` against an f64 reference with SciPy's semantics (`scipy.special.logsumexp`:
//! −∞ for an empty or all −∞ run, +∞ if any +∞, NaN if any NaN), on shapes that reach
//! every path: rows fused from cache (odd lengths, lengths not a multiple of 16 or of the
//! 2048-value pieces, one-element rows), the engine (down the rows, all elements, strided
//! and transposed views, reversed rows), f32 and f64. Run with `FERROTENSOR_ISA=portable`
//! to check the portable kernels the same way.

use ferrotensor::prelude::*;

/// SciPy's `logsumexp` of `xs`, evaluated in f64.
fn reference(xs: &[f64]) -> f64 {
    if xs.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if m.is_infinite() {
        return m; // any +∞, or empty / all −∞
    }
    xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln() + m
}

/// `got` agrees with `want`: the same special value, or within `tol` relative to
/// `max(1, |want|)` (the absolute error of `ln Σ` is a few ulp of 1, the added maximum's
/// rounding a few ulp of the result).
fn close(got: f64, want: f64, tol: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= tol * want.abs().max(1.0)
}

/// Deterministic values in `[lo, hi)`.
fn values(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

/// Checks `logsumexp` of the 2-D view `v` over axis 1, axis 0 and all elements, with
/// and without `keepdims`, against [`reference`] of the view's lanes.
fn check_view<T: Float, D: Dimension>(v: &TensorView<'_, T, D>, tol: f64, what: &str) {
    let (r, c) = (v.shape()[0], v.shape()[1]);
    let lane = |i: usize, axis: usize| -> Vec<f64> {
        let l = if axis == 1 {
            v.slice(s![i, ..]).to_vec()
        } else {
            v.slice(s![.., i]).to_vec()
        };
        l.iter().map(|x| Float::to_f64(*x)).collect()
    };
    for axis in [1usize, 0] {
        let (outs, len) = if axis == 1 { (r, c) } else { (c, r) };
        let got = v.logsumexp_axes(&[axis as isize], false).unwrap();
        assert_eq!(got.shape(), &[outs], "{what} axis {axis}");
        let kept = v.logsumexp_axes(&[axis as isize], true).unwrap();
        let want_shape = if axis == 1 { [r, 1] } else { [1, c] };
        assert_eq!(kept.shape(), &want_shape, "{what} axis {axis} keepdims");
        for (i, (g, k)) in got.to_vec().iter().zip(kept.to_vec()).enumerate() {
            let want = reference(&lane(i, axis));
            assert!(
                close(Float::to_f64(*g), want, tol),
                "{what} [{r}, {c}] axis {axis} lane {i} (length {len}): {} vs {want}",
                Float::to_f64(*g)
            );
            assert_eq!(
                Float::to_f64(*g).to_bits(),
                Float::to_f64(k).to_bits(),
                "{what}: keepdims differs"
            );
        }
    }
    let all: Vec<f64> = v.to_vec().iter().map(|x| Float::to_f64(*x)).collect();
    let (got, want) = (Float::to_f64(v.logsumexp()), reference(&all));
    assert!(
        close(got, want, tol),
        "{what} [{r}, {c}] all: {got} vs {want}"
    );
}

/// Every layout of one [r, c] data set: contiguous, transposed, every other column,
/// reversed rows, and a row-strided window (contiguous rows, not a contiguous tensor).
fn check_layouts<T: Float>(data: &[f64], r: usize, c: usize, tol: f64, what: &str) {
    let a = Tensor::from_vec(data.iter().map(|&x| T::from_f64(x)).collect(), [r, c]).unwrap();
    check_view(&a.view(), tol, what);
    check_view(&a.t(), tol, &format!("{what}, transposed"));
    check_view(
        &a.slice(s![.., ..;2]),
        tol,
        &format!("{what}, every other column"),
    );
    check_view(
        &a.slice(s![..;-1, ..]),
        tol,
        &format!("{what}, reversed rows"),
    );
    if c > 1 {
        check_view(&a.slice(s![.., 1..]), tol, &format!("{what}, columns 1.."));
    }
}

/// The row lengths: 1, short, around 16 and 128 (the vector width and the pairwise
/// leaf), around 2048 (the map pieces) and 1024 · 2ᵏ (the eight-leaf subtrees).
const COLS: [usize; 14] = [
    1, 2, 7, 15, 16, 17, 100, 129, 1000, 1024, 2047, 2049, 4096, 5003,
];

fn random_shapes<T: Float>(tol: f64, name: &str) {
    for (k, &c) in COLS.iter().enumerate() {
        for r in [1usize, 3, 8] {
            // Moderate values, and values far from 0 (the maximum matters).
            let mut d = values(r * c, (k * 31 + r) as u64, -30.0, 30.0);
            if r == 3 {
                for x in &mut d[c..] {
                    *x += 70.0;
                }
            }
            check_layouts::<T>(&d, r, c, tol, &format!("{name} [{r}, {c}]"));
        }
    }
}

#[test]
fn random_shapes_f32_against_f64() {
    random_shapes::<f32>(32.0 * f32::EPSILON as f64, "f32");
}

#[test]
fn random_shapes_f64_against_f64() {
    random_shapes::<f64>(32.0 * f64::EPSILON, "f64");
}

/// Rows of −∞, +∞ and NaN, mixed with finite values, at lengths on both sides of the
/// fused paths' vector and piece boundaries.
fn special_rows<T: Float>(tol: f64, name: &str) {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    for c in [1usize, 5, 16, 33, 2049, 4096] {
        let r = 8;
        let mut d = values(r * c, c as u64, -5.0, 5.0);
        let row = |i: usize| i * c..(i + 1) * c;
        let rg = row(0);
        d[rg].fill(-inf); // all −∞: −∞
        let rg = row(1);
        d[rg.start + c / 2] = inf; // one +∞: +∞
        let rg = row(2);
        d[rg.end - 1] = nan; // one NaN (last): NaN
        let rg = row(3);
        d[rg.start] = -inf; // a −∞ among finite values: ignored
        let rg = row(4);
        d[rg.start] = inf;
        d[rg.end - 1] = -inf; // +∞ and −∞: +∞
        let rg = row(5);
        d[rg.start] = nan;
        d[rg.end - 1] = inf; // NaN and +∞: NaN
        let rg = row(6);
        d[rg].fill(inf); // all +∞: +∞
        // Row 7 stays finite.
        let a = Tensor::from_vec(d.iter().map(|&x| T::from_f64(x)).collect(), [r, c]).unwrap();
        let got = a.logsumexp_axes(&[1], false).unwrap().to_vec();
        let wants = [-inf, inf, nan, f64::NAN, inf, nan, inf, f64::NAN];
        for (i, g) in got.iter().enumerate() {
            let g = Float::to_f64(*g);
            let want = reference(&d[row(i)]);
            // With one column the later special value overwrote the earlier one.
            if c > 1 && i != 3 && i != 7 {
                assert!(
                    close(want, wants[i], 0.0),
                    "the reference of row {i}: {want}"
                );
            }
            assert!(
                close(g, want, tol),
                "{name} row {i} of length {c}: {g} vs {want}"
            );
        }
        check_layouts::<T>(&d, r, c, tol, &format!("{name} special rows, length {c}"));
    }
}

#[test]
fn special_rows_f32() {
    special_rows::<f32>(32.0 * f32::EPSILON as f64, "f32");
}

#[test]
fn special_rows_f64() {
    special_rows::<f64>(32.0 * f64::EPSILON, "f64");
}

#[test]
fn empty_axes_give_minus_infinity() {
    let a = Tensor::<f32, _>::zeros([3, 0]);
    let r = a.logsumexp_axes(&[1], false).unwrap();
    assert_eq!(r.to_vec(), vec![f32::NEG_INFINITY; 3]);
    assert_eq!(a.logsumexp_axes(&[1], true).unwrap().shape(), &[3, 1]);
    assert_eq!(a.logsumexp_axes(&[0], false).unwrap().shape(), &[0]);
    assert_eq!(a.logsumexp(), f32::NEG_INFINITY);
    assert_eq!(
        a.t().logsumexp_axes(&[0], false).unwrap().to_vec(),
        vec![f32::NEG_INFINITY; 3]
    );
    let b = Tensor::<f64, _>::zeros([0, 4]);
    assert_eq!(
        b.logsumexp_axes(&[0], false).unwrap().to_vec(),
        vec![f64::NEG_INFINITY; 4]
    );
    assert_eq!(b.logsumexp(), f64::NEG_INFINITY);
}

/// The fused rows run on two threads above the parallel threshold: the same bits on one.
#[test]
fn fused_rows_do_not_depend_on_the_thread_count() {
    let (r, c) = (300, 1000);
    let d: Vec<f32> = values(r * c, 7, -20.0, 20.0)
        .iter()
        .map(|&x| x as f32)
        .collect();
    let a = Tensor::from_vec(d, [r, c]).unwrap();
    let many = a.logsumexp_axes(&[1], false).unwrap().to_vec();
    let one = ferrotensor::with_num_threads(1, || a.logsumexp_axes(&[1], false).unwrap().to_vec());
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&many), bits(&one));
}
