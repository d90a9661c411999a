//! Property tests: ravel/unravel round trips and `iter()` order on random strided layouts.

use ferrotensor::layout::{ravel_multi_index, unravel_index};
use ferrotensor::prelude::*;
use proptest::prelude::*;

/// A random tensor plus a random chain of view operations; returns the view's values
/// computed by `iter()` and by a naive index walk.
fn strided_case(shape: Vec<usize>, ops: Vec<(u8, usize, i8)>) -> (Vec<i64>, Vec<i64>, Vec<usize>) {
    let n: usize = shape.iter().product();
    let base = Tensor::from_vec((0..n as i64).collect::<Vec<_>>(), shape.clone()).unwrap();
    let mut v = base.view();
    for (kind, ax, k) in ops {
        if v.ndim() == 0 {
            break;
        }
        let ax = (ax % v.ndim()) as isize;
        v = match kind % 4 {
            0 => v.flip(ax).unwrap(),
            1 => {
                let mut p: Vec<isize> = (0..v.ndim() as isize).collect();
                p.rotate_left(1);
                v.permute(&p).unwrap()
            }
            2 => {
                let step = if k == 0 { 1 } else { k as isize };
                let mut items = vec![
                    SliceItem::Range {
                        start: None,
                        stop: None,
                        step: 1
                    };
                    v.ndim()
                ];
                items[ax as usize] = SliceItem::Range {
                    start: None,
                    stop: None,
                    step: step.clamp(-3, 3),
                };
                v.slice(&items).into_dim().unwrap()
            }
            _ => v.t(),
        };
    }
    let got: Vec<i64> = v.iter().copied().collect();
    let mut naive = Vec::new();
    let shp = v.shape().to_vec();
    let total: usize = shp.iter().product();
    for flat in 0..total {
        let idx = unravel_index(flat, &shp).unwrap();
        naive.push(v[&idx[..]]);
    }
    (got, naive, shp)
}

proptest! {
    #[test]
    fn ravel_unravel_round_trip(shape in prop::collection::vec(1usize..6, 0..5), seed in 0usize..10_000) {
        let n: usize = shape.iter().product();
        let flat = seed % n;
        let idx = unravel_index(flat, &shape).unwrap();
        prop_assert_eq!(ravel_multi_index(&idx, &shape).unwrap(), flat);
    }

    #[test]
    fn iter_order_equals_naive_index_walk(
        shape in prop::collection::vec(0usize..5, 1..5),
        ops in prop::collection::vec((0u8..4, 0usize..4, -3i8..4), 0..5),
    ) {
        let (got, naive, shp) = strided_case(shape, ops);
        prop_assert_eq!(&got, &naive);
        prop_assert_eq!(got.len(), shp.iter().product::<usize>());
    }

    #[test]
    fn to_vec_and_into_owned_equal_iter(
        shape in prop::collection::vec(0usize..5, 1..5),
        ops in prop::collection::vec((0u8..4, 0usize..4, -3i8..4), 0..5),
    ) {
        let n: usize = shape.iter().product();
        let base = Tensor::from_vec((0..n as i64).collect::<Vec<_>>(), shape.clone()).unwrap();
        let mut v = base.view();
        for (kind, ax, _) in ops {
            let ax = (ax % v.ndim()) as isize;
            v = if kind % 2 == 0 { v.flip(ax).unwrap() } else { v.t() };
        }
        let it: Vec<i64> = v.iter().copied().collect();
        prop_assert_eq!(&v.to_vec(), &it);
        let owned = v.into_owned();
        prop_assert!(owned.is_contiguous());
        prop_assert_eq!(owned.to_vec(), it);
    }
}
