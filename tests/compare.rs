//! Comparison and selection: eq/ne/lt/le/gt/ge, where_, clip, isnan/isinf/isfinite,
//! isclose/allclose, against NumPy's answers.

use ferrotensor::prelude::*;

#[test]
fn comparisons_broadcast_and_handle_nan() {
    let a = Tensor::from_vec(vec![1.0, f64::NAN, 3.0], [3]).unwrap();
    let b = Tensor::from_vec(vec![1.0, 3.0], [2, 1]).unwrap();
    assert_eq!(
        a.eq(&b).unwrap().to_vec(),
        vec![true, false, false, false, false, true]
    );
    assert_eq!(
        a.ne(&b).unwrap().to_vec(),
        vec![false, true, true, true, true, false]
    );
    assert_eq!(
        a.lt(&b).unwrap().to_vec(),
        vec![false, false, false, true, false, false]
    );
    assert_eq!(
        a.ge(&b).unwrap().to_vec(),
        vec![true, false, true, false, false, true]
    );
    assert_eq!(a.gt(&b).unwrap().shape(), &[2, 3]);
    assert_eq!(a.le(&a).unwrap().to_vec(), vec![true, false, true]);
    let e = a.eq(&Tensor::<f64, _>::zeros([2])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "equal: operands could not be broadcast together with shapes (3,) (2,)"
    );
    let i = Tensor::from_vec(vec![1, 5], [2]).unwrap();
    assert_eq!(
        i.t().gt(&Tensor::scalar(2)).unwrap().to_vec(),
        vec![false, true]
    );
    assert_eq!(i.t().gt(2).unwrap().to_vec(), vec![false, true]);
    assert_eq!(
        a.lt(2.0).unwrap().to_vec(),
        vec![true, false, false],
        "NaN compares false"
    );
    assert_eq!(a.ne(f64::NAN).unwrap().to_vec(), vec![true; 3]);
}

#[test]
fn where_broadcasts_three_operands() {
    let c = Tensor::from_vec(vec![true, false, true], [3]).unwrap();
    let a = Tensor::from_vec(vec![1.0, 2.0], [2, 1]).unwrap();
    let b = Tensor::scalar(-1.0);
    let w = ferrotensor::ops::where_(&c, &a, &b).unwrap();
    assert_eq!(w.shape(), &[2, 3]);
    assert_eq!(w.to_vec(), vec![1.0, -1.0, 1.0, 2.0, -1.0, 2.0]);
    let e = where_(&c, &a, &Tensor::<f64, _>::zeros([4])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "where: operands could not be broadcast together with shapes (3,) (2, 1) (4,)"
    );
}

#[test]
fn clip_and_classification() {
    let a = Tensor::from_vec(vec![-5, 0, 5, 10], [4]).unwrap();
    assert_eq!(a.clip(0, 6).unwrap().to_vec(), vec![0, 0, 5, 6]);
    let lo = Tensor::from_vec(vec![1, 2], [2, 1]).unwrap();
    let c: Tensor<i32, Ix2> = a.clip(&lo, 6).unwrap();
    assert_eq!(c.to_vec(), vec![1, 1, 5, 6, 2, 2, 5, 6]);
    let e = a.clip(0, &Tensor::<i32, _>::zeros([3])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "clip: operands could not be broadcast together with shapes (4,) () (3,)"
    );
    let f = Tensor::from_vec(vec![1.0f32, f32::NAN, f32::INFINITY, -f32::INFINITY], [4]).unwrap();
    assert_eq!(f.isnan().to_vec(), vec![false, true, false, false]);
    assert_eq!(f.isinf().to_vec(), vec![false, false, true, true]);
    assert_eq!(f.isfinite().to_vec(), vec![true, false, false, false]);
    assert_eq!(a.isnan().to_vec(), vec![false; 4]);
}

#[test]
fn isclose_matches_numpy() {
    // np.isclose([1e10, 1e-7, 1.0, inf, -inf, nan], [1.00001e10, 1e-8, 1.0 + 1e-6, inf, inf, nan])
    //   -> [ True, False,  True,  True, False, False]
    let a = Tensor::from_vec(
        vec![1e10, 1e-7, 1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN],
        [6],
    )
    .unwrap();
    let b = Tensor::from_vec(
        vec![
            1.00001e10,
            1e-8,
            1.0 + 1e-6,
            f64::INFINITY,
            f64::INFINITY,
            f64::NAN,
        ],
        [6],
    )
    .unwrap();
    assert_eq!(
        a.isclose(&b, 1e-5, 1e-8, false).unwrap().to_vec(),
        vec![true, false, true, true, false, false]
    );
    assert!(a.isclose(&b, 1e-5, 1e-8, true).unwrap().to_vec()[5]);
    assert!(!a.allclose(&b, 1e-5, 1e-8, true).unwrap());
    assert!(a.allclose(&a, 0.0, 0.0, true).unwrap());
    assert!(
        a.isclose(&Tensor::<f64, _>::zeros([2]), 1e-5, 1e-8, false)
            .is_err()
    );
}
