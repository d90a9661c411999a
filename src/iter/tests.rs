//! Engine tests (small enough to run under Miri: `cargo +nightly miri test --lib iter`).

use super::*;
use crate::prelude::*;

#[test]
fn plan_merges_contiguous_axes_and_drops_ones() {
    let p = Plan::<1>::new(&[2, 1, 3, 4], [&[12, 99, 4, 1]], [0], true);
    assert_eq!((p.inner_len, p.outer.len()), (24, 0));
    let t = Plan::<1>::new(&[3, 4], [&[1, 3]], [0], true);
    assert_eq!(
        (t.inner_len, t.inner[0]),
        (12, 1),
        "reordering merges a transposed contiguous layout"
    );
    let logical = Plan::<1>::new(&[3, 4], [&[1, 3]], [0], false);
    assert_eq!(
        (logical.inner_len, logical.inner[0], logical.outer.as_slice()),
        (4, 3, &[3usize][..])
    );
    let e = Plan::<2>::new(&[3, 0], [&[1, 1], &[1, 1]], [0, 0], true);
    assert!(e.empty);
    assert_eq!(e.len(), 0);
}

#[test]
fn parallel_split_covers_every_element_once() {
    use std::sync::Mutex;
    for (shape, strides) in [
        (vec![7usize, 5], vec![5isize, 1]),
        (vec![3, 1000], vec![1000, 1]),
        (vec![2, 3, 4], vec![1, 2, 6]),
    ] {
        let plan = Plan::<1>::new(&shape, [&strides], [0], true);
        let seen = Mutex::new(vec![0u32; plan.len()]);
        let inner = plan.inner[0];
        crate::with_num_threads(2, || {
            plan.par_for_each_run(1, |[o], len| {
                let mut s = seen.lock().unwrap();
                for i in 0..len as isize {
                    s[(o + i * inner) as usize] += 1;
                }
            })
        });
        assert!(seen.into_inner().unwrap().iter().all(|&c| c == 1), "{shape:?}");
    }
}

#[test]
fn apply_kernels_handle_strided_broadcast_and_negative_layouts() {
    let a = Tensor::from_vec((0..12).map(|x| x as f64).collect(), [3, 4]).unwrap();
    let b = Tensor::from_vec(vec![10.0, 20.0, 30.0, 40.0], [4]).unwrap();
    let bb = b.broadcast_to([3, 4]).unwrap();
    let af = a.flip(1).unwrap();
    let out = zip::zip_new(
        &[3, 4],
        Src::new(af.buffer(), af.strides(), af.offset()),
        Src::new(bb.buffer(), bb.strides(), bb.offset()),
        |x, y| x + y,
    );
    let expect: Vec<f64> = (0..3)
        .flat_map(|i| (0..4).map(move |j| (i * 4 + 3 - j) as f64 + 10.0 * (j + 1) as f64))
        .collect();
    assert_eq!(out, expect);

    // write through a transposed (strided) output
    let mut buf = vec![0i32; 6];
    let src = Tensor::from_vec((0..6).collect::<Vec<i32>>(), [2, 3]).unwrap();
    zip_into(
        &[2, 3],
        Dst::new(&mut buf, &[1, 2], 0),
        Src::new(src.buffer(), src.strides(), 0),
        |o, x| *o = x,
    );
    assert_eq!(buf, vec![0, 3, 1, 4, 2, 5]);

    let mut ones = vec![1u8; 5];
    for_each_mut(&[5], Dst::new(&mut ones, &[-1], 4), |x| *x += 1);
    assert_eq!(ones, vec![2; 5]);
}

#[test]
fn iter_mut_on_negative_and_transposed_layouts() {
    let mut a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), [2, 3]).unwrap();
    {
        let mut v = a.slice_mut(s![..;-1, ..;2]);
        for (k, x) in v.iter_mut().enumerate() {
            *x = 100 + k as i32;
        }
    }
    assert_eq!(a.to_vec(), vec![102, 1, 103, 100, 4, 101]);
    let t: Vec<i32> = a.t().iter().copied().collect();
    assert_eq!(t, vec![102, 100, 1, 4, 103, 101]);
}

#[test]
#[should_panic(expected = "outside its buffer")]
fn engine_refuses_layouts_outside_the_buffer() {
    let mut out = vec![0u8; 3];
    for_each_mut(&[4], Dst::new(&mut out, &[1], 0), |x| *x = 1);
}
