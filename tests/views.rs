//! Axis views, writing through views and copying selections: NumPy values, and
//! property tests that every view op equals a naive gather on random layouts, never
//! copies and never reaches outside its buffer.

use ferrotensor::prelude::*;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

fn x234() -> Tensor<i64, Ix3> {
    Tensor::<i64, _>::arange(24).into_shape([2, 3, 4]).unwrap()
}

#[test]
fn diagonal_matches_numpy() {
    let x = x234();
    // (offset, axis1, axis2) -> NumPy's shape, strides and values.
    type Case<'a> = ((isize, isize, isize), &'a [usize], &'a [isize], &'a [i64]);
    let cases: &[Case] = &[
        ((1, 0, 2), &[3, 2], &[4, 13], &[1, 14, 5, 18, 9, 22]),
        ((-1, 2, 1), &[2, 3], &[12, 5], &[1, 6, 11, 13, 18, 23]),
        ((0, -1, 0), &[3, 2], &[4, 13], &[0, 13, 4, 17, 8, 21]),
        ((5, 0, 1), &[4, 0], &[1, 16], &[]),
        ((-2, 1, 2), &[2, 1], &[12, 5], &[8, 20]),
    ];
    for &((o, a1, a2), shape, strides, values) in cases {
        let d = x.diagonal(o, a1, a2).unwrap();
        assert_eq!(d.shape(), shape);
        assert_eq!(d.to_vec(), values);
        if d.size() > 0 {
            assert_eq!(d.strides(), strides);
        }
    }
    let y = x.slice(s![.., ..;-1, 1..]);
    let d = y.diagonal(1, 1, 2).unwrap();
    assert_eq!(
        (d.strides(), d.to_vec()),
        (&[12isize, -3][..], vec![10, 7, 22, 19])
    );
    assert!(x.diagonal(0, 1, 1).is_err());
    assert!(x.diagonal(0, 0, 3).is_err());
    assert!(Tensor::<i64, _>::arange(3).diagonal(0, 0, 1).is_err());
}

#[test]
fn moveaxis_squeeze_narrow_match_numpy() {
    let x = x234();
    let m = x.moveaxis(1, -1).unwrap();
    assert_eq!(
        (m.shape(), m.strides()),
        (&[2usize, 4, 3][..], &[12isize, 1, 4][..])
    );
    assert!(x.moveaxis(0, 3).is_err());
    let u = x.slice(s![NewAxis, .., 0..1, .., NewAxis]);
    assert_eq!(u.squeeze_axes(&[0, -1]).unwrap().shape(), &[2, 1, 4]);
    assert_eq!(u.squeeze_axes(&[]).unwrap().shape(), u.shape());
    let e = u.squeeze_axes(&[1]).unwrap_err().to_string();
    assert!(
        e.starts_with("squeeze_axes:") && e.contains("(1, 2, 1, 4, 1)"),
        "{e}"
    );
    assert!(u.squeeze_axes(&[0, 0]).is_err());
    let n = x.narrow(2, -3, 2).unwrap();
    assert_eq!(n.to_vec(), x.slice(s![.., .., 1..3]).to_vec());
    assert_eq!(x.narrow(1, 3, 0).unwrap().size(), 0);
    assert!(x.narrow(1, 2, 2).is_err());
    assert!(x.narrow(1, -4, 1).is_err());
}

#[test]
fn assign_broadcasts_from_any_ownership_kind() {
    let mut a = Tensor::<f64, _>::zeros([2, 3]);
    let row = Tensor::from_vec(vec![1.0, 2.0, 3.0], [3]).unwrap();
    a.assign(&row).unwrap();
    assert_eq!(a.to_vec(), vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    let col = Tensor::from_vec(vec![5.0, 6.0], [2, 1])
        .unwrap()
        .into_shared();
    a.assign(&col).unwrap();
    assert_eq!(a.to_vec(), vec![5.0, 5.0, 5.0, 6.0, 6.0, 6.0]);
    a.assign(Tensor::scalar(0.5)).unwrap();
    assert_eq!(a.to_vec(), vec![0.5; 6]);
    let src = Tensor::<f64, _>::arange(6).into_shape([3, 2]).unwrap();
    a.assign(src.t()).unwrap(); // a transposed view
    assert_eq!(a.to_vec(), vec![0.0, 2.0, 4.0, 1.0, 3.0, 5.0]);
    let before = a.to_vec();
    let e = a
        .assign(Tensor::<f64, _>::zeros([2]))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("assign:") && e.contains("(2,)") && e.contains("(2, 3)"),
        "{e}"
    );
    assert_eq!(a.to_vec(), before, "a failed assign writes nothing");
    assert!(a.assign(Tensor::<f64, _>::zeros([1, 2, 3])).is_err());
}

#[test]
fn writes_through_views_reach_the_parent() {
    let mut a = Tensor::<i32, _>::zeros([4, 4]);
    a.slice_mut(s![1..3, 1..3])
        .assign(Tensor::<i32, _>::ones([2, 2]))
        .unwrap();
    a.diagonal_mut(0, 0, 1).unwrap().fill(7);
    a.step_by_mut(1, -3).unwrap().slice_mut(s![0]).fill(9);
    a.permute_mut(&[1, 0]).unwrap()[[3, 2]] = 4; // a[2, 3]
    a.narrow_mut(0, -1, 1).unwrap().fill(-1);
    assert_eq!(
        a.to_vec(),
        vec![9, 0, 0, 9, 0, 7, 1, 0, 0, 1, 7, 4, -1, -1, -1, -1]
    );
    // A writable view of a view, then writing through the inner one.
    let mut v = a.view_mut();
    let mut inner = v.slice_mut(s![..;3, ..;3]);
    inner.assign(Tensor::<i32, _>::full([2, 2], 3)).unwrap();
    assert_eq!((a[[0, 0]], a[[0, 3]], a[[3, 0]], a[[3, 3]]), (3, 3, 3, 3));
    // A copy-on-write view copies before a write and leaves the source alone.
    let src = Tensor::<i32, _>::zeros([3]);
    let mut c = src.view().into_cow();
    c.slice_mut(s![1..]).fill(5);
    assert_eq!((c.to_vec(), src.to_vec()), (vec![0, 5, 5], vec![0, 0, 0]));
    // A shared tensor copies only when shared.
    let s1 = Tensor::<i32, _>::zeros([2]).into_shared();
    let s2 = s1.clone();
    let mut s1 = s1;
    s1.assign(Tensor::from_vec(vec![1, 2], [2]).unwrap())
        .unwrap();
    assert_eq!((s1.to_vec(), s2.to_vec()), (vec![1, 2], vec![0, 0]));
}

#[test]
fn copying_selections_match_numpy() {
    let x = x234();
    assert_eq!(
        x.take(&[0, -1, 5, 23]).unwrap().to_vec(),
        vec![0, 23, 5, 23]
    );
    assert_eq!(x.t().take(&[1, 2, 3]).unwrap().to_vec(), vec![12, 4, 16]);
    let e = x.take(&[24]).unwrap_err().to_string();
    assert!(e.contains("take") && e.contains("24"), "{e}");
    assert!(x.take(&[-25]).is_err());
    assert_eq!(x.take(&[]).unwrap().shape(), &[0]);
    let s = x.index_select(1, &[2, 0, -1]).unwrap();
    assert_eq!(s.shape(), &[2, 3, 4]);
    assert_eq!(
        s.to_vec(),
        vec![
            8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23, 12, 13, 14, 15, 20, 21, 22, 23
        ]
    );
    let f = x.flip(2).unwrap().index_select(-1, &[0, 0]).unwrap();
    assert_eq!(f.to_vec(), vec![3, 3, 7, 7, 11, 11, 15, 15, 19, 19, 23, 23]);
    assert_eq!(x.index_select(0, &[]).unwrap().shape(), &[0, 3, 4]);
    assert!(x.index_select(1, &[3]).is_err());
    assert!(x.index_select(1, &[-4]).is_err());
    assert!(x.index_select(3, &[0]).is_err());
    let mask = x.to_vec().iter().map(|v| v % 5 == 0).collect::<Vec<_>>();
    let mask = Tensor::from_vec(mask, [2, 3, 4]).unwrap();
    assert_eq!(
        x.mask_select(&mask).unwrap().to_vec(),
        vec![0, 5, 10, 15, 20]
    );
    assert_eq!(
        x.t().mask_select(&mask.t()).unwrap().to_vec(),
        vec![0, 20, 5, 10, 15]
    );
    let e = x
        .mask_select(&Tensor::<bool, _>::zeros([2, 3]))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("mask_select:") && e.contains("(2, 3)") && e.contains("(2, 3, 4)"),
        "{e}"
    );
}

// ---------- property tests: random layouts against naive gathers ----------

/// A random view of a random `arange` buffer: permuted, sliced with steps, flipped.
fn random_view<'a>(rng: &mut StdRng, x: &'a Tensor<i64>) -> TensorView<'a, i64> {
    let mut v = x.view();
    let nd = v.ndim() as isize;
    if rng.random_bool(0.5) {
        let mut p: Vec<isize> = (0..nd).collect();
        p.shuffle(rng);
        v = v.permute(&p).unwrap();
    }
    if rng.random_bool(0.6) {
        let items: Vec<SliceItem> = v
            .shape()
            .iter()
            .map(|&n| {
                let n = n as isize;
                let step = [1, 1, 2, -1, -2, 3][rng.random_range(0..6)];
                let start = if rng.random_bool(0.5) {
                    None
                } else {
                    Some(rng.random_range(-n as i64 - 1..=n as i64 + 1) as isize)
                };
                SliceItem::Range {
                    start,
                    stop: None,
                    step,
                }
            })
            .collect();
        v = v.try_slice(&items).unwrap().into_dim().unwrap();
    }
    if nd > 0 && rng.random_bool(0.4) {
        v = v.flip(rng.random_range(0..nd as i64) as isize).unwrap();
    }
    v
}

fn base(rng: &mut StdRng) -> Tensor<i64> {
    let nd = rng.random_range(0..=4);
    let shape: Vec<usize> = (0..nd)
        .map(|_| {
            if rng.random_bool(0.05) {
                0
            } else {
                rng.random_range(1..=4)
            }
        })
        .collect();
    let n = shape.iter().product();
    Tensor::<i64, _>::arange(n).into_shape(shape).unwrap()
}

/// `r` is a view of `x`'s buffer that stays inside it, and `r[i] == v[map(i)]` for every
/// index `i` of `r`.
fn check_gather<S: ferrotensor::storage::Storage<Elem = i64>, D: Dimension>(
    r: &TensorBase<S, D>,
    x: &Tensor<i64>,
    v: &TensorView<'_, i64>,
    map: impl Fn(&[usize]) -> Vec<usize>,
) {
    assert!(std::ptr::eq(r.buffer(), x.buffer()), "a view op copied");
    r.layout()
        .check_in_buffer(r.buffer().len(), "test")
        .unwrap();
    if r.size() > 0 {
        let p = r.as_ptr() as usize;
        let b = x.buffer().as_ptr() as usize;
        assert!(p >= b && p < b + x.buffer().len() * 8);
    }
    for (idx, &val) in r.indexed_iter() {
        let j = map(idx.slice());
        assert_eq!(
            val,
            *v.get(&j[..]).unwrap(),
            "at {:?} -> {:?}",
            idx.slice(),
            j
        );
    }
}

fn check_view_ops(seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let x = base(&mut rng);
    let v = random_view(&mut rng, &x);
    let nd = v.ndim();
    let shape = v.shape().to_vec();
    check_gather(&v.t(), &x, &v, |i| i.iter().rev().copied().collect());
    if nd == 0 {
        assert_eq!(v.merge_axes(..).unwrap().to_vec(), v.to_vec());
        return;
    }
    let ax = rng.random_range(0..nd);
    let n = shape[ax];
    // permute / moveaxis
    let mut p: Vec<usize> = (0..nd).collect();
    p.shuffle(&mut rng);
    let pi: Vec<isize> = p.iter().map(|&a| a as isize).collect();
    check_gather(&v.permute(&pi).unwrap(), &x, &v, |i| {
        let mut j = vec![0; nd];
        for (k, &a) in p.iter().enumerate() {
            j[a] = i[k];
        }
        j
    });
    let dst = rng.random_range(0..nd);
    check_gather(
        &v.moveaxis(ax as isize, dst as isize - nd as isize).unwrap(),
        &x,
        &v,
        |i| {
            let mut rest: Vec<usize> = i.to_vec();
            let moved = rest.remove(dst);
            rest.insert(ax, moved);
            rest
        },
    );
    // flip, step_by, narrow
    check_gather(&v.flip(ax as isize).unwrap(), &x, &v, |i| {
        let mut j = i.to_vec();
        j[ax] = n - 1 - i[ax];
        j
    });
    let k = [-3isize, -2, -1, 1, 2, 3][rng.random_range(0..6)];
    check_gather(&v.step_by(ax as isize, k).unwrap(), &x, &v, |i| {
        let mut j = i.to_vec();
        j[ax] = if k > 0 {
            i[ax] * k as usize
        } else {
            n - 1 - i[ax] * (-k) as usize
        };
        j
    });
    let start = rng.random_range(0..=n);
    let len = rng.random_range(0..=n - start);
    check_gather(
        &v.narrow(ax as isize, start as isize, len).unwrap(),
        &x,
        &v,
        |i| {
            let mut j = i.to_vec();
            j[ax] += start;
            j
        },
    );
    // diagonal
    if nd >= 2 {
        let a2 = (ax + rng.random_range(1..nd)) % nd;
        let off = rng.random_range(-3i64..=3) as isize;
        check_gather(
            &v.diagonal(off, ax as isize, a2 as isize).unwrap(),
            &x,
            &v,
            |i| {
                let t = i[i.len() - 1];
                let mut rest = i[..i.len() - 1].iter();
                (0..nd)
                    .map(|a| {
                        if a == ax {
                            t + off.min(0).unsigned_abs()
                        } else if a == a2 {
                            t + off.max(0) as usize
                        } else {
                            *rest.next().unwrap()
                        }
                    })
                    .collect()
            },
        );
    }
    // unsqueeze / squeeze_axes / broadcast_to
    let u = v.unsqueeze(ax as isize).unwrap();
    check_gather(&u, &x, &v, |i| {
        let mut j = i.to_vec();
        j.remove(ax);
        j
    });
    check_gather(&u.squeeze_axes(&[ax as isize]).unwrap(), &x, &v, |i| {
        i.to_vec()
    });
    let mut big = vec![2usize];
    big.extend_from_slice(&shape);
    check_gather(&v.clone().broadcast_to(big).unwrap(), &x, &v, |i| {
        i[1..].to_vec()
    });
    // reshape family: a view reads the same row-major sequence; a refusal means NumPy copies.
    let rowmajor = v.to_vec();
    let e = rng.random_range(ax..nd);
    let copy_needed = !v
        .reshape(
            [
                shape[..ax].to_vec(),
                vec![shape[ax..=e].iter().product()],
                shape[e + 1..].to_vec(),
            ]
            .concat(),
        )
        .unwrap()
        .is_view();
    match v.merge_axes(ax..=e) {
        Ok(m) => {
            assert!(!copy_needed);
            assert!(std::ptr::eq(m.buffer(), x.buffer()));
            m.layout()
                .check_in_buffer(m.buffer().len(), "test")
                .unwrap();
            assert_eq!(m.to_vec(), rowmajor);
        }
        Err(_) => assert!(copy_needed),
    }
    let s = v.split_axis(ax as isize, &[1, -1, 1]).unwrap();
    assert!(std::ptr::eq(s.buffer(), x.buffer()));
    assert_eq!(s.to_vec(), rowmajor);
    let names: Vec<String> = (0..nd).map(|k| format!("a{k}")).collect();
    let pattern = format!(
        "{} -> {}",
        names.join(" "),
        p.iter()
            .map(|&k| names[k].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let r = v.rearrange(&pattern).unwrap();
    assert!(r.is_view());
    assert_eq!(r.to_vec(), v.permute(&pi).unwrap().to_vec());
    let flat = v
        .rearrange(&format!("{} -> ({})", names.join(" "), names.join(" ")))
        .unwrap();
    assert_eq!(flat.to_vec(), rowmajor);
    assert_eq!(flat.is_view(), v.reshape([v.size()]).unwrap().is_view());
    // copying selections agree with gathers
    let idx: Vec<isize> = (0..3)
        .filter(|_| n > 0)
        .map(|_| rng.random_range(-(n as i64)..n as i64) as isize)
        .collect();
    let sel = v.index_select(ax as isize, &idx).unwrap();
    check_selection(&sel, &v, ax, &idx);
    // assign into an owned copy through the same layout writes exactly those elements
    let mut owned = Tensor::from_raw_parts(x.buffer().to_vec(), v.layout().clone()).unwrap();
    owned
        .assign(Tensor::<i64, _>::full(vec![1; nd], -1))
        .unwrap();
    let touched = owned.buffer().iter().filter(|&&y| y == -1).count();
    assert_eq!(touched, v.size());
}

fn check_selection(sel: &Tensor<i64>, v: &TensorView<'_, i64>, ax: usize, idx: &[isize]) {
    let n = v.shape()[ax] as isize;
    for (i, &val) in sel.indexed_iter() {
        let mut j = i.slice().to_vec();
        j[ax] = idx[j[ax]].rem_euclid(n) as usize;
        assert_eq!(val, *v.get(&j[..]).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn view_ops_equal_naive_gathers(seed in any::<u64>()) {
        check_view_ops(seed);
    }

    #[test]
    fn take_and_mask_select_follow_row_major_order(seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let x = base(&mut rng);
        let v = random_view(&mut rng, &x);
        let flat = v.to_vec();
        let n = flat.len() as isize;
        let idx: Vec<isize> = (0..5).filter(|_| n > 0).map(|_| rng.random_range(-n as i64..n as i64) as isize).collect();
        let want: Vec<i64> = idx.iter().map(|&i| flat[i.rem_euclid(n.max(1)) as usize]).collect();
        prop_assert_eq!(v.take(&idx).unwrap().to_vec(), want);
        prop_assert!(v.take(&[n]).is_err());
        let mask: Vec<bool> = (0..flat.len()).map(|_| rng.random_bool(0.5)).collect();
        let want: Vec<i64> = flat.iter().zip(&mask).filter(|(_, m)| **m).map(|(v, _)| *v).collect();
        let m = Tensor::from_vec(mask, v.shape().to_vec()).unwrap();
        prop_assert_eq!(v.mask_select(&m).unwrap().to_vec(), want);
    }
}
