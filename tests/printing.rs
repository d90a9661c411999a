//! Printing through tensors of every ownership kind and layout (the formatter itself is
//! checked against 515 NumPy golden cases in `src/display/golden_tests.rs`).

use ferrotensor::prelude::*;

#[test]
fn display_matches_numpy_examples() {
    assert_eq!(
        Tensor::from_vec(vec![1.5, 2., 3.], [3])
            .unwrap()
            .to_string(),
        "[1.5 2.  3. ]"
    );
    let a = Tensor::from_vec((0..6).map(|x| x as f64).collect(), [2, 3]).unwrap();
    assert_eq!(a.to_string(), "[[0. 1. 2.]\n [3. 4. 5.]]");
    let m = Tensor::from_vec(vec![1.0, 2.5, -3.25, 1e-9, 100.0, 0.123456789012], [2, 3]).unwrap();
    assert_eq!(
        m.to_string(),
        "[[ 1.00000000e+00  2.50000000e+00 -3.25000000e+00]\n [ 1.00000000e-09  1.00000000e+02  1.23456789e-01]]"
    );
    assert_eq!(
        Tensor::<i64>::arange(2000).to_string(),
        "[   0    1    2 ... 1997 1998 1999]"
    );
    assert_eq!(Tensor::scalar(1.0f64).to_string(), "1.0");
    assert_eq!(Tensor::scalar(1e16f64).to_string(), "1e+16");
    assert_eq!(
        Tensor::from_vec(vec![true, false], [2])
            .unwrap()
            .to_string(),
        "[ True False]"
    );
    assert_eq!(Tensor::<f32, _>::zeros([2, 0]).to_string(), "[]");
}

#[test]
fn views_print_their_logical_elements() {
    let a = Tensor::from_vec((0..12).collect::<Vec<i32>>(), [3, 4]).unwrap();
    assert_eq!(a.t().to_string(), a.t().to_owned().to_string());
    assert_eq!(
        a.slice(s![..;-1, 1..3]).to_string(),
        "[[ 9 10]\n [ 5  6]\n [ 1  2]]"
    );
    let shared = a.clone().into_shared();
    assert_eq!(shared.to_string(), a.to_string());
    assert_eq!(a.view().into_cow().to_string(), a.to_string());
    let big = Tensor::from_shape_fn([50, 50], |i: &[usize]| (i[0] * 50 + i[1]) as f32);
    let s = big.t().to_string();
    // NumPy: max/min > 1e3 over the shown values switches to scientific notation.
    assert!(
        s.starts_with(
            "[[0.000e+00 5.000e+01 1.000e+02 ... 2.350e+03 2.400e+03 2.450e+03]\n [1.000e+00"
        ),
        "{s}"
    );
    assert!(s.contains("...\n"));
}

#[test]
fn print_options_per_call_and_debug() {
    let a = Tensor::from_vec(vec![1.0 / 3.0, 2.0 / 3.0], [2]).unwrap();
    let opts = PrintOptions {
        precision: 3,
        ..Default::default()
    };
    assert_eq!(a.format_with(&opts), "[0.333 0.667]");
    let d = format!("{:?}", a.view().flip(0).unwrap());
    assert!(
        d.contains("shape=(2,)") && d.contains("strides=(-1,)") && d.contains("offset=1"),
        "{d}"
    );
    assert!(d.contains("dtype=float64"));
    let h = Tensor::from_vec(
        vec![half::f16::from_f32(0.5), half::f16::from_f32(1.0)],
        [2],
    )
    .unwrap();
    assert_eq!(h.to_string(), "[0.5 1. ]");
}
