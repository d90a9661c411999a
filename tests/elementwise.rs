//! The element-wise engine against a naive per-element loop on random layouts
//! (property tests), closures, in-place operations, large (tiled, parallel) cases,
//! dynamic vs fixed rank, and f16/bf16 through f32.

use ferrotensor::prelude::*;
use half::{bf16, f16};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// A random strided view of `base`: random steps (±1, ±2) per axis, then a random
/// axis permutation.
fn random_view<'a>(base: &'a Tensor<i64>, rng: &mut StdRng) -> TensorView<'a, i64> {
    let items: Vec<SliceItem> = (0..base.ndim())
        .map(|_| SliceItem::Range {
            start: None,
            stop: None,
            step: [1, 2, -1, -2][rng.random_range(0..4)],
        })
        .collect();
    let v = base.view().slice(items);
    let mut perm: Vec<isize> = (0..v.ndim() as isize).collect();
    perm.shuffle(rng);
    v.permute(&perm).unwrap()
}

fn random_base(rng: &mut StdRng, shape: Vec<usize>) -> Tensor<i64> {
    let n = shape.iter().product();
    Tensor::from_vec(
        (0..n).map(|_| rng.random_range(-1000..1000)).collect(),
        shape,
    )
    .unwrap()
}

/// All multi-indices of `shape` in row-major order.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![];
    let n: usize = shape.iter().product();
    for mut flat in 0..n {
        let mut idx = vec![0; shape.len()];
        for ax in (0..shape.len()).rev() {
            idx[ax] = flat % shape[ax];
            flat /= shape[ax];
        }
        out.push(idx);
    }
    out
}

/// The element of `t` read at broadcast index `idx` (NumPy rules, right-aligned).
fn at_broadcast(t: &TensorView<'_, i64>, idx: &[usize]) -> i64 {
    let lead = idx.len() - t.ndim();
    let i: Vec<usize> = (0..t.ndim())
        .map(|k| if t.shape()[k] == 1 { 0 } else { idx[lead + k] })
        .collect();
    t[&i[..]]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn engine_matches_naive_loop_on_random_layouts(seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let rank = rng.random_range(1..=4);
        let base_shape: Vec<usize> = (0..rank).map(|_| rng.random_range(1..=7)).collect();
        let base_a = random_base(&mut rng, base_shape);
        let a = random_view(&base_a, &mut rng);
        // b: a's shape with some axes set to 1 and some leading axes dropped, itself a
        // strided view (flipped axes) of a bigger buffer.
        let drop = rng.random_range(0..=a.ndim());
        let b_shape: Vec<usize> = a.shape()[drop..].iter().map(|&d| if rng.random_bool(0.3) { 1 } else { d }).collect();
        let big: Vec<usize> = b_shape.iter().map(|&d| d * 2).collect();
        let base_b = random_base(&mut rng, big);
        let items: Vec<SliceItem> = b_shape.iter().map(|&d| {
            let d = d as isize;
            if rng.random_bool(0.5) { SliceItem::Range { start: None, stop: Some(d), step: 1 } }
            else { SliceItem::Range { start: Some(2 * d - 1), stop: None, step: -2 } }
        }).collect();
        let b = base_b.view().slice(items);
        prop_assert_eq!(b.shape(), &b_shape[..]);

        let got = a.zip_map(&b, |x, y| x * 31 + y).unwrap();
        prop_assert_eq!(got.shape(), a.shape());
        let want: Vec<i64> = indices(a.shape()).iter().map(|i| a[&i[..]] * 31 + at_broadcast(&b, i)).collect();
        prop_assert_eq!(got.to_vec(), want.clone());
        // operators and owned operands take the same path
        prop_assert_eq!((&a * 31 + &b).to_vec(), want.clone());
        let mut acc = a.to_owned();
        acc *= 31;
        acc += &b;
        prop_assert_eq!(acc.to_vec(), want);
        // map on the strided view, and copies keep logical order
        let naive: Vec<i64> = indices(a.shape()).iter().map(|i| -a[&i[..]]).collect();
        prop_assert_eq!((-&a).to_vec(), naive);
        prop_assert_eq!(a.to_owned().to_vec(), a.iter().copied().collect::<Vec<_>>());
    }

    #[test]
    fn in_place_writes_through_strided_mutable_views(seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let (r, c) = (rng.random_range(1..9), rng.random_range(1..9));
        let mut base = random_base(&mut rng, vec![r, c]);
        let orig = base.clone();
        let row = random_base(&mut rng, vec![c.div_ceil(2)]);
        {
            let mut v = base.slice_mut(s![.., ..;-2]);
            v += &row;
        }
        for i in 0..r {
            for col in 0..c {
                let from_end = c - 1 - col;
                let add = if from_end % 2 == 0 { row[[from_end / 2]] } else { 0 };
                prop_assert_eq!(base[[i, col]], orig[[i, col]] + add);
            }
        }
    }
}

#[test]
fn large_transposed_and_broadcast_cases_use_tiles_and_threads() {
    // Big enough to cross the parallel threshold and the tiling size, odd sizes so
    // tiles are ragged.
    let (r, c) = (517, 389);
    let a = Tensor::<f32, _>::from_shape_fn([r, c], |i: &[usize]| (i[0] * c + i[1]) as f32);
    let b = Tensor::<f32, _>::from_shape_fn([c, r], |i: &[usize]| (i[0] * r + i[1]) as f32 * 0.5);
    let s = &a + &b.t();
    let t = a.t().to_owned();
    for i in (0..r).step_by(37) {
        for j in (0..c).step_by(13) {
            assert_eq!(s[[i, j]], (i * c + j) as f32 + (j * r + i) as f32 * 0.5);
            assert_eq!(t[[j, i]], (i * c + j) as f32);
        }
    }
    assert_eq!(s[[r - 1, c - 1]], a[[r - 1, c - 1]] + b[[c - 1, r - 1]]);
    // same-shape contiguous operands take the slice fast path, split over threads
    let twice = &a + &a;
    assert_eq!(twice[[r - 1, 7]], 2.0 * a[[r - 1, 7]]);
    // single-threaded gives the same result
    let s1 = ferrotensor::with_num_threads(1, || &a + &b.t());
    assert_eq!(s1.to_vec(), s.to_vec());
    // negative strides and broadcasting on a large case
    let f = a.flip(1).unwrap();
    let col = Tensor::<f32, _>::from_shape_fn([r, 1], |i: &[usize]| i[0] as f32);
    let g = &f - &col;
    assert_eq!(g[&[3usize, 0][..]], a[[3, c - 1]] - 3.0);
    // in place with a transposed right side, and into a column-major left side
    let mut acc = a.clone();
    acc += &b.t();
    assert_eq!(acc.to_vec(), s.to_vec());
    let mut fm = Tensor::from_vec_order(a.t().to_vec(), [r, c], Order::ColMajor).unwrap();
    assert_eq!(fm.to_vec(), a.to_vec());
    assert!(fm.is_f_contiguous());
    fm -= &a;
    fm += &s;
    assert_eq!(fm.to_vec(), s.to_vec());
    // an exp over a transposed view equals the exp of the contiguous copy
    assert_eq!(a.t().exp().to_vec(), t.exp().to_vec());
}

#[test]
fn dynamic_rank_gives_the_same_results_as_fixed_rank() {
    let a = Tensor::<f64, _>::from_shape_fn([6, 5, 4], |i: &[usize]| {
        (i[0] * 20 + i[1] * 4 + i[2]) as f64
    });
    let d = a.clone().into_dyn();
    let fixed: Tensor<f64, Ix3> = &a * &a.flip(1).unwrap();
    let dynamic: Tensor<f64, IxDyn> = &d * &d.flip(1).unwrap();
    assert_eq!(fixed.to_vec(), dynamic.to_vec());
    assert_eq!(dynamic.shape(), &[6, 5, 4]);
}

#[test]
fn closures_map_zip_map_and_in_place() {
    let a = Tensor::from_vec(vec![1i32, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    let m: Tensor<u64, Ix2> = a.map(|&x| (x as u64) << 40);
    assert_eq!(m[[1, 2]], 6 << 40);
    let halves = a.t().mapv(|x| x as f32 / 2.0);
    assert_eq!(halves.to_vec(), vec![0.5, 2.0, 1.0, 2.5, 1.5, 3.0]);
    let col = Tensor::from_vec(vec![10i64, 20], [2, 1]).unwrap();
    let z = a.zip_map(&col, |x, y| x as i64 * y).unwrap();
    assert_eq!(z.to_vec(), vec![10, 20, 30, 80, 100, 120]);
    let e = a
        .zip_map(&Tensor::<i64, _>::zeros([4]), |x, y| x as i64 + y)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "zip_map: operands could not be broadcast together with shapes (2, 3) (4,)"
    );
    let mut b = a.clone();
    b.map_inplace(|x| *x -= 1);
    b.mapv_inplace(|x| x * 2);
    assert_eq!(b.to_vec(), vec![0, 2, 4, 6, 8, 10]);
    let mut s = a.clone().into_shared();
    let keep = s.clone();
    s.zip_map_inplace(Tensor::from_vec(vec![1, 1, 1], [3]).unwrap(), |x, y| {
        *x += y
    })
    .unwrap();
    assert_eq!(s.to_vec(), vec![2, 3, 4, 5, 6, 7]);
    assert_eq!(
        keep.to_vec(),
        a.to_vec(),
        "a shared buffer is copied before writing"
    );
    let err = b
        .zip_map_inplace(Tensor::<i32, _>::ones([4, 2, 3]), |x, y| *x += y)
        .unwrap_err();
    assert!(
        err.to_string().contains("non-broadcastable output"),
        "{err}"
    );
}

#[test]
fn half_precision_computes_through_f32() {
    let xs = [-2.5f32, -0.75, 0.0, 0.3, 1.0, 4.0];
    let h = Tensor::from_vec(xs.iter().map(|&x| f16::from_f32(x)).collect(), [6]).unwrap();
    let b = Tensor::from_vec(xs.iter().map(|&x| bf16::from_f32(x)).collect(), [6]).unwrap();
    for (k, &x) in xs.iter().enumerate() {
        let x16 = f16::from_f32(x).to_f32();
        assert_eq!(h.exp().to_vec()[k], f16::from_f32(x16.exp()));
        assert_eq!(h.tanh().to_vec()[k], f16::from_f32(x16.tanh()));
        let xb = bf16::from_f32(x).to_f32();
        assert_eq!(
            b.sigmoid().to_vec()[k].to_f32(),
            bf16::from_f32(1.0 / (1.0 + (-xb).exp())).to_f32()
        );
    }
    let sum = &h + &h;
    assert_eq!(sum.to_vec()[5], f16::from_f32(8.0));
}

#[test]
fn empty_and_zero_dimensional_tensors() {
    let e = Tensor::<f32, _>::zeros([0, 3]);
    assert_eq!((&e + 1.0).shape(), &[0, 3]);
    assert_eq!(e.exp().shape(), &[0, 3]);
    let s = Tensor::scalar(2.0f64);
    let r = &s * &Tensor::from_vec(vec![1.0, 2.0], [2]).unwrap();
    assert_eq!(r.shape(), &[2]);
    assert_eq!((&s + 1.0).to_scalar().unwrap(), 3.0);
    let z = Tensor::<f32, _>::zeros(vec![])
        .try_add(&Tensor::<f32, _>::zeros([0]))
        .unwrap();
    assert_eq!(z.shape(), &[0]);
}

#[test]
fn unary_float_functions_on_strided_views() {
    let a = Tensor::<f64, _>::from_shape_fn([4, 5], |i: &[usize]| {
        i[0] as f64 * 0.7 - i[1] as f64 * 0.4
    });
    let v = a.slice(s![..;-1, 1..;2]);
    let got = v.sin();
    let want: Vec<f64> = v.iter().map(|x| x.sin()).collect();
    assert_eq!(got.to_vec(), want);
    assert_eq!(
        v.powi(2).to_vec(),
        v.iter().map(|x| x.powi(2)).collect::<Vec<_>>()
    );
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    assert_eq!(
        bits(v.powf(1.5).to_vec()),
        bits(v.iter().map(|x| x.powf(1.5)).collect())
    );
    let r = Tensor::from_vec(vec![0.5f32, 1.5, 2.5, -0.5, -1.5], [5])
        .unwrap()
        .round();
    assert_eq!(r.to_vec(), vec![0.0, 2.0, 2.0, -0.0, -2.0]);
    let i = Tensor::from_vec(vec![i32::MIN, -3, 0, 7], [4]).unwrap();
    assert_eq!(i.abs().to_vec(), vec![i32::MIN, 3, 0, 7]);
    assert_eq!(i.sign().to_vec(), vec![-1, -1, 0, 1]);
    assert_eq!(i.square().to_vec(), vec![0, 9, 0, 49]);
    assert_eq!((-&i).to_vec(), vec![i32::MIN, 3, 0, -7]);
}
