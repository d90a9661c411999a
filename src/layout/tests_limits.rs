//! Unit tests at the edges of the integer range: slicing with every extreme start, stop
//! and step against a model of Python's rules, and the shape limits on every transform.

use super::slice::{SliceItem, slice_indices, slice_layout};
use super::transform::*;
use super::*;

/// Python's `slice(start, stop, step).indices(n)` followed by `len(range(...))`, written
/// the way the Python reference (Objects/sliceobject.c) does, in i128, then walked
/// element by element: the selected indices.
fn python_slice(start: Option<isize>, stop: Option<isize>, step: isize, n: usize) -> Vec<i128> {
    let (n, step) = (n as i128, step as i128);
    let (lower, upper) = if step < 0 { (-1, n - 1) } else { (0, n) };
    let fix = |v: Option<isize>, default: i128| match v {
        None => default,
        Some(v) => {
            let v = v as i128;
            if v < 0 { (v + n).max(lower) } else { v.min(upper) }
        }
    };
    let s = fix(start, if step < 0 { upper } else { lower });
    let e = fix(stop, if step < 0 { lower } else { upper });
    let mut out = Vec::new();
    let mut i = s;
    while (step > 0 && i < e) || (step < 0 && i > e) {
        out.push(i);
        i += step;
    }
    out
}

/// Under Miri (slow, and this is arithmetic rather than memory) every third value.
fn thin<T: Copy>(v: &[T]) -> Vec<T> {
    v.iter().step_by(if cfg!(miri) { 3 } else { 1 }).copied().collect()
}

fn extremes(n: usize) -> Vec<Option<isize>> {
    let n = n as isize;
    let mut v = vec![None];
    for x in [
        isize::MIN,
        isize::MIN + 1,
        -n - 1,
        -n,
        -1,
        0,
        1,
        n - 1,
        n,
        n + 1,
        isize::MAX - 1,
        isize::MAX,
    ] {
        v.push(Some(x));
    }
    thin(&v)
}

#[test]
fn slice_indices_match_python_for_every_extreme_value() {
    for n in thin(&[0usize, 1, 2, 5, 10]) {
        let ni = n as isize;
        let steps = [
            isize::MIN,
            isize::MIN + 1,
            -ni - 1,
            -ni,
            -2,
            -1,
            1,
            2,
            ni.max(1),
            ni + 1,
            isize::MAX - 1,
            isize::MAX,
        ];
        for &step in thin(&steps).iter().filter(|&&s| s != 0) {
            for &start in &extremes(n) {
                for &stop in &extremes(n) {
                    let want = python_slice(start, stop, step, n);
                    let (s, len) = slice_indices(start, stop, step, n).unwrap();
                    assert_eq!(len, want.len(), "n {n} {start:?}:{stop:?}:{step}");
                    if let Some(&first) = want.first() {
                        assert_eq!(s as i128, first, "n {n} {start:?}:{stop:?}:{step}");
                    }
                    // The layout reads exactly those elements.
                    let l = Layout::new_order([n], Order::RowMajor).unwrap();
                    let v = slice_layout(&l, &[SliceItem::Range { start, stop, step }]).unwrap();
                    assert!(v.check_in_buffer(n, "t").is_ok());
                    let got: Vec<i128> = (0..v.shape()[0]).map(|i| v.ravel(&[i]).unwrap() as i128).collect();
                    assert_eq!(got, want, "n {n} {start:?}:{stop:?}:{step}");
                }
            }
        }
    }
}

#[test]
fn step_by_takes_every_isize_step() {
    let l = Layout::new_order([10usize], Order::RowMajor).unwrap();
    for step in [
        isize::MIN,
        isize::MIN + 1,
        -11,
        -10,
        -9,
        -3,
        -1,
        1,
        3,
        9,
        10,
        11,
        isize::MAX,
    ] {
        let v = step_layout(&l, 0, step).unwrap();
        let want = python_slice(None, None, step, 10);
        let got: Vec<i128> = (0..v.shape()[0]).map(|i| v.ravel(&[i]).unwrap() as i128).collect();
        assert_eq!(got, want, "step {step}");
    }
    assert!(step_layout(&l, 0, 0).is_err());
    // A strided axis: a stride times a huge step overflows, and the length-1 result
    // keeps a harmless stride.
    let strided = Layout::new([4usize], [3isize], 1);
    let v = step_layout(&strided, 0, isize::MIN).unwrap();
    assert_eq!((v.shape(), v.offset()), (&[1usize][..], 10));
    assert!(v.check_in_buffer(11, "t").is_ok());
    // Outside a valid layout a long selection with an overflowing stride is an error.
    let bogus = Layout::new([3usize], [isize::MAX], 0);
    assert!(step_layout(&bogus, 0, 2).is_err());
}

#[test]
fn integer_indices_at_the_ends_of_isize() {
    let l = Layout::new_order([3usize, 4], Order::RowMajor).unwrap();
    for i in [isize::MIN, isize::MIN + 1, -4, 3, isize::MAX] {
        assert!(slice_layout(&l, &[SliceItem::Index(i)]).is_err(), "{i}");
    }
    let v = slice_layout(&l, &[SliceItem::Index(-3), SliceItem::Index(-1)]).unwrap();
    assert_eq!((v.ndim(), v.offset()), (0, 3));
}

#[test]
fn flip_and_diagonal_survive_extreme_strides_and_offsets() {
    let l = Layout::new([1usize, 3], [isize::MIN, 1], 0);
    let f = flip_layout(&l, 0).unwrap();
    assert_eq!((f.strides(), f.offset()), (&[isize::MIN, 1][..], 0));
    let f = flip_layout(&l, 1).unwrap();
    assert_eq!((f.strides(), f.offset()), (&[isize::MIN, -1][..], 2));
    let sq = Layout::new_order([3usize, 3], Order::RowMajor).unwrap();
    for k in [isize::MIN, isize::MIN + 1, -3, 3, isize::MAX] {
        let d = diagonal_layout(&sq, k, 0, 1).unwrap();
        assert_eq!(d.shape(), &[0], "{k}");
    }
    let one = Layout::new([1usize, 1], [isize::MAX, 1], 0);
    let d = diagonal_layout(&one, 0, 0, 1).unwrap();
    assert_eq!((d.shape(), d.strides()), (&[1usize][..], &[0isize][..]));
    assert!(narrow_layout(&sq, 0, isize::MIN, 0).is_err());
    assert!(narrow_layout(&sq, 0, isize::MAX, 0).is_err());
    assert_eq!(narrow_layout(&sq, 0, -3, 3).unwrap().offset(), 0);
}

#[test]
fn the_shape_limits_hold_on_every_path() {
    assert_eq!(check_shape(&[0, isize::MAX as usize], "t").unwrap(), 0);
    assert!(check_shape(&[0, isize::MAX as usize + 1], "t").is_err());
    assert!(check_shape(&[2, 0, 1 << 62], "t").is_err());
    assert_eq!(check_shape(&[1 << 31, 0, 1 << 31], "t").unwrap(), 0);
    assert!(check_ndim(MAX_NDIM, "t").is_ok() && check_ndim(MAX_NDIM + 1, "t").is_err());
    // Layout constructors and buffer checks.
    assert!(Layout::new_order([0usize, 1 << 32, 1 << 32], Order::RowMajor).is_err());
    assert!(Layout::new_order(IxDyn::from(&[1usize; 65][..]), Order::RowMajor).is_err());
    let l = Layout::new([0usize, usize::MAX], [1isize, 1], 0);
    assert!(l.check_in_buffer(0, "t").is_err());
    // Broadcast, unsqueeze, reshape, slicing.
    let one = Layout::new_order([1usize], Order::RowMajor).unwrap();
    assert!(broadcast_layout(&one, &[0, 1 << 32, 1 << 32], "b").is_err());
    assert!(broadcast_layout(&one, &[1; 65], "b").is_err());
    assert_eq!(broadcast_layout(&one, &[1; 64], "b").unwrap().ndim(), 64);
    assert!(broadcast_shapes(&[1 << 40, 1], &[1, 1 << 40], "add").is_err());
    assert!(broadcast_shapes(&[0, 1], &[1, usize::MAX], "add").is_err());
    let wide = Layout::new_order(IxDyn::from(&[1usize; 64][..]), Order::RowMajor).unwrap();
    assert!(unsqueeze_layout(&wide, 0).is_err());
    assert!(reshape::reshape_layout(&one, IxDyn::from(&[1usize; 65][..]), Order::RowMajor, "r").is_err());
    let empty = Layout::new_order([0usize], Order::RowMajor).unwrap();
    assert!(reshape::reshape_layout(&empty, [0usize, usize::MAX], Order::RowMajor, "r").is_err());
    let e = slice_layout(&wide, &[SliceItem::NewAxis]).unwrap_err();
    assert_eq!(e.to_string(), "slice: a result of 65 axes exceeds the limit of 64 axes");
    assert_eq!(
        slice_layout(&wide, &[SliceItem::NewAxis, SliceItem::Index(0)])
            .unwrap()
            .ndim(),
        64
    );
}
