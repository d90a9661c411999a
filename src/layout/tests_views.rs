//! Unit tests for the view transforms added on top of slicing: moveaxis, squeeze_axes,
//! narrow, step, diagonal, merge/split and rearrange — layouts only, no data.

use super::rearrange::rearrange_layout;
use super::reshape::{merge_axes_layout, split_axis_layout};
use super::transform::*;
use super::*;

fn c(shape: &[usize]) -> Layout<IxDyn> {
    Layout::new_order(IxDyn::from(shape), Order::RowMajor).unwrap()
}

#[test]
fn empty_results_stay_inside_any_buffer() {
    let l = c(&[3, 4]);
    let d = diagonal_layout(&l, 9, 0, 1).unwrap();
    assert_eq!(d.shape(), &[0]);
    assert!(d.check_in_buffer(12, "t").is_ok());
    let n = narrow_layout(&l, 1, 4, 0).unwrap();
    assert_eq!((n.shape(), n.offset()), (&[3usize, 0][..], 0));
    let s = step_layout(&c(&[0]), 0, -2).unwrap();
    assert_eq!(s.shape(), &[0]);
    assert!(diagonal_layout(&l, isize::MIN, 0, 1).unwrap().shape() == [0]);
    assert!(diagonal_layout(&l, isize::MAX, 0, 1).unwrap().shape() == [0]);
}

#[test]
fn moveaxis_is_a_permutation_and_checks_axes() {
    let l = c(&[2, 3, 4, 5]);
    let m = moveaxis_layout(&l, 1, 3).unwrap();
    assert_eq!(m.shape(), &[2, 4, 5, 3]);
    assert_eq!(moveaxis_layout(&m, 3, 1).unwrap(), l);
    assert!(moveaxis_layout(&l, 0, -5).is_err());
}

#[test]
fn merge_and_split_round_trip_on_strided_layouts() {
    // arange(60).reshape(3, 4, 5)[:, ::-1, 1:]: axes 1 and 2 don't chain
    let l = Layout::new(
        IxDyn::from(&[3usize, 4, 4][..]),
        [20isize, -5, 1].into_iter().collect(),
        16,
    );
    assert!(merge_axes_layout(&l, 1, 2).is_err());
    let m = merge_axes_layout(&l, 0, 0).unwrap();
    assert_eq!(m, l);
    let s = split_axis_layout(&l, 1, &[2, 2]).unwrap();
    assert_eq!(
        (s.shape(), s.strides()),
        (&[3usize, 2, 2, 4][..], &[20isize, -10, -5, 1][..])
    );
    assert_eq!(merge_axes_layout(&s, 1, 2).unwrap(), l);
    assert!(split_axis_layout(&l, -1, &[3, -1]).is_err());
}

#[test]
fn rearrange_plans_split_permute_merge() {
    let l = c(&[2, 6, 5]);
    let r = rearrange_layout(&l, "b (h w) c -> c b h w", &[("w", 3)]).unwrap();
    assert_eq!(r.permuted.shape(), &[5, 2, 2, 3]);
    assert_eq!(r.permuted.strides(), &[1, 30, 15, 5]);
    assert_eq!(r.view.as_ref().unwrap(), &r.permuted);
    let r = rearrange_layout(&l, "b (h w) c -> (b h) (w c)", &[("w", 3)]).unwrap();
    assert_eq!(r.view.unwrap().strides(), &[15, 1]);
    let r = rearrange_layout(&l, "b x c -> (c b) x", &[]).unwrap();
    assert!(r.view.is_none());
    assert_eq!(r.out_shape, vec![10, 6]);
    // whitespace and underscores, units on both sides
    let r = rearrange_layout(&l, "  batch_1(x)c->1 (c)batch_1 x ", &[]).unwrap();
    assert_eq!(r.out_shape, vec![1, 5, 2, 6]);
}
