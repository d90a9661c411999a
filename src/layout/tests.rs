//! Unit tests for the layout functions.

use super::reshape::{nocopy_strides, reshape_layout};
use super::slice::{SliceItem, slice_indices, slice_layout};
use super::transform::*;
use super::*;

fn c(shape: &[usize]) -> Layout<IxDyn> {
    Layout::new_order(IxDyn::from(shape), Order::RowMajor).unwrap()
}

#[test]
fn default_strides_both_orders_with_zero_and_one_lengths() {
    let mut s = [0isize; 4];
    default_strides(&[2, 0, 1, 3], Order::RowMajor, &mut s);
    assert_eq!(s, [3, 3, 3, 1]);
    default_strides(&[2, 0, 1, 3], Order::ColMajor, &mut s);
    assert_eq!(s, [1, 2, 2, 2]);
}

#[test]
fn contiguity_rules_follow_numpy() {
    assert!(is_c_contiguous(&[], &[]));
    assert!(is_f_contiguous(&[], &[]));
    assert!(is_c_contiguous(&[3, 1], &[1, 100]));
    assert!(is_f_contiguous(&[3, 1], &[1, 100]));
    assert!(!is_c_contiguous(&[3, 2], &[1, 3]));
    assert!(is_c_contiguous(&[3, 0, 2], &[-5, 9, 4]));
    assert!(!is_c_contiguous(&[3], &[-1]));
    assert!(!is_c_contiguous(&[2, 3], &[6, 2]));
}

#[test]
fn overflow_is_an_error_not_a_wrap() {
    assert!(Layout::new_order([usize::MAX, 2], Order::RowMajor).is_err());
    assert!(Layout::new_order([1usize << 62, 4], Order::RowMajor).is_err());
    assert!(checked_size(&[1 << 40, 1 << 40], "x").is_err());
    assert!(byte_size::<u64>(usize::MAX / 4).is_err());
    assert_eq!(byte_size::<u16>(10).unwrap(), 20);
    let l = Layout::new([2usize, 2], [isize::MAX, 1], 0);
    assert!(l.check_in_buffer(100, "t").is_err());
    let l = Layout::new([usize::MAX, 3], [1isize, 1], 0);
    assert!(l.check_in_buffer(100, "t").is_err());
}

#[test]
fn buffer_bounds_are_checked_for_negative_and_positive_strides() {
    let l = Layout::new([3usize], [-1isize], 1);
    assert!(l.check_in_buffer(10, "t").is_err()); // reaches index -1
    let l = Layout::new([3usize], [-1isize], 2);
    assert!(l.check_in_buffer(3, "t").is_ok());
    assert!(l.check_in_buffer(2, "t").is_err());
    let empty = Layout::new([0usize, 5], [5isize, 1], 1000);
    assert!(empty.check_in_buffer(0, "t").is_ok());
    assert_eq!(empty.extent().unwrap(), None);
}

#[test]
fn ravel_and_unravel_round_trip() {
    let shape = [3usize, 4, 5];
    for flat in 0..60 {
        let idx = unravel_index(flat, &shape).unwrap();
        assert_eq!(ravel_multi_index(&idx, &shape).unwrap(), flat);
        assert_eq!(c(&shape).ravel(&idx).unwrap(), flat);
    }
    assert!(unravel_index(60, &shape).is_err());
    assert!(ravel_multi_index(&[0, 4, 0], &shape).is_err());
    assert!(ravel_multi_index(&[0, 0], &shape).is_err());
    assert!(c(&shape).ravel(&[0, 0]).is_err());
}

#[test]
fn rank_conversions_check_the_rank() {
    let l = c(&[2, 3]);
    let f: Layout<[usize; 2]> = l.clone().into_dim().unwrap();
    assert_eq!(f.strides(), &[3, 1]);
    assert!(l.into_dim::<[usize; 3]>().is_err());
    assert_eq!(f.into_dyn().shape(), &[2, 3]);
}

#[test]
fn slice_indices_match_python() {
    // (start, stop, step, n) -> python len(range(*slice(start, stop, step).indices(n)))
    type Case = (Option<isize>, Option<isize>, isize, usize, usize, isize);
    let cases: &[Case] = &[
        (Some(8), Some(2), -2, 10, 3, 8),
        (Some(100), None, -1, 10, 10, 9),
        (Some(-100), None, -1, 10, 0, -1),
        (Some(0), Some(4), -2, 10, 0, 0),
        (Some(-100), Some(100), 1, 10, 10, 0),
        (Some(1), None, -2, 10, 1, 1),
        (None, None, 3, 10, 4, 0),
        (None, None, -3, 10, 4, 9),
        (Some(-3), Some(-1), 1, 10, 2, 7),
        (None, None, 1, 0, 0, 0),
        (None, None, -1, 0, 0, -1),
    ];
    for &(s, e, st, n, len, start) in cases {
        let (got_start, got_len) = slice_indices(s, e, st, n).unwrap();
        assert_eq!(got_len, len, "{s:?}:{e:?}:{st} on {n}");
        if len > 0 {
            assert_eq!(got_start, start);
        }
    }
    assert!(slice_indices(None, None, 0, 3).is_err());
}

#[test]
fn slice_layout_errors() {
    let l = c(&[2, 3]);
    let r = SliceItem::Range {
        start: None,
        stop: None,
        step: 1,
    };
    assert!(slice_layout(&l, &[r, r, r]).is_err());
    assert!(slice_layout(&l, &[SliceItem::Ellipsis, SliceItem::Ellipsis]).is_err());
    assert!(slice_layout(&l, &[SliceItem::Index(2)]).is_err());
    assert!(slice_layout(&l, &[SliceItem::Index(-3)]).is_err());
    let v = slice_layout(&l, &[SliceItem::Index(-1), SliceItem::NewAxis]).unwrap();
    assert_eq!(
        (v.shape(), v.strides(), v.offset()),
        (&[1usize, 3][..], &[0isize, 1][..], 3)
    );
}

#[test]
fn reshape_view_or_copy_matches_reference_examples() {
    let x = c(&[2, 3, 4]);
    let step2 = slice_layout(
        &x,
        &[
            SliceItem::Ellipsis,
            SliceItem::Range {
                start: None,
                stop: None,
                step: 2,
            },
        ],
    )
    .unwrap();
    let r = reshape_layout(&step2, IxDyn::from(&[12usize][..]), Order::RowMajor, "r")
        .unwrap()
        .unwrap();
    assert_eq!(r.strides(), &[2]);
    let rows = slice_layout(
        &x,
        &[
            SliceItem::Range {
                start: None,
                stop: None,
                step: 1,
            },
            SliceItem::Range {
                start: Some(1),
                stop: None,
                step: 1,
            },
        ],
    )
    .unwrap();
    assert!(
        reshape_layout(&rows, [2usize, 8], Order::RowMajor, "r")
            .unwrap()
            .is_some()
    );
    assert!(
        reshape_layout(&rows, [4usize, 4], Order::RowMajor, "r")
            .unwrap()
            .is_none()
    );
    let t = reversed_layout(&x);
    assert!(
        reshape_layout(&t, [12usize, 2], Order::RowMajor, "r")
            .unwrap()
            .is_none()
    );
    assert!(
        reshape_layout(&t, [12usize, 2], Order::ColMajor, "r")
            .unwrap()
            .is_some()
    );
    let mut out = [0isize; 3];
    assert!(nocopy_strides(&[6], &[2], &[1, 2, 3], Order::RowMajor, &mut out));
    assert_eq!(out, [12, 6, 2]);
}

#[test]
fn transforms() {
    let l = c(&[2, 3]);
    assert!(permute_layout(&l, &[0]).is_err());
    assert!(permute_layout(&l, &[0, 2]).is_err());
    assert_eq!(permute_layout(&l, &[-1, 0]).unwrap().strides(), &[1, 3]);
    let f = flip_layout(&l, -1).unwrap();
    assert_eq!((f.strides(), f.offset()), (&[3isize, -1][..], 2));
    assert!(flip_layout(&l, 2).is_err());
    assert!(broadcast_layout(&l, &[3], "b").is_err());
    assert!(broadcast_layout(&l, &[4, 3], "b").is_err());
    let b = broadcast_layout(&l, &[5, 2, 3], "b").unwrap();
    assert_eq!(b.strides(), &[0, 3, 1]);
    assert_eq!(broadcast_shapes(&[1, 3], &[3, 1], "x").unwrap().as_slice(), &[3, 3]);
    assert_eq!(broadcast_shapes(&[1], &[0], "x").unwrap().as_slice(), &[0]);
    assert!(unsqueeze_layout(&l, 3).is_err());
    assert_eq!(unsqueeze_layout(&l, -3).unwrap().shape(), &[1, 2, 3]);
    assert!(check_no_alias(&b, "x").is_err());
    assert!(check_no_alias(&f, "x").is_ok());
    assert_eq!(normalize_axes(&[1, -2], 2, "x").unwrap(), vec![1, 0]);
    assert!(normalize_axes(&[1, -1], 2, "x").is_err());
}
