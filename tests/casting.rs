//! `cast::<U>()` between element types, checked against NumPy's `astype` results
//! (values computed with NumPy 2.x; NaN and out-of-range float → int saturate, which
//! NumPy leaves platform-defined).

use ferrotensor::prelude::*;
use half::{bf16, f16};
use num_complex::Complex;

#[test]
fn float_to_int_truncates_toward_zero_and_saturates() {
    let a = Tensor::from_vec(
        vec![
            -2.9f64,
            -0.5,
            0.5,
            2.9,
            1e20,
            -1e20,
            f64::NAN,
            f64::INFINITY,
        ],
        [8],
    )
    .unwrap();
    assert_eq!(
        a.cast::<i32>().to_vec(),
        vec![-2, 0, 0, 2, i32::MAX, i32::MIN, 0, i32::MAX]
    );
    assert_eq!(
        a.cast::<u16>().to_vec(),
        vec![0, 0, 0, 2, u16::MAX, 0, 0, u16::MAX]
    );
    assert_eq!(a.t().cast::<i64>().to_vec()[..4], [-2, 0, 0, 2]);
}

#[test]
fn int_to_int_wraps_as_numpy() {
    // np.array([300, -1, 128, 65535]).astype(np.int8) -> [44, -1, -128, -1]
    let a = Tensor::from_vec(vec![300i64, -1, 128, 65535], [4]).unwrap();
    assert_eq!(a.cast::<i8>().to_vec(), vec![44, -1, -128, -1]);
    assert_eq!(a.cast::<u8>().to_vec(), vec![44, 255, 128, 255]);
    assert_eq!(
        Tensor::from_vec(vec![u64::MAX], [1])
            .unwrap()
            .cast::<i64>()
            .to_vec(),
        vec![-1]
    );
}

#[test]
fn int_to_float_rounds_once() {
    // 2^24 + 1 is not an f32: round to nearest even, as np.float32(16777217)
    let a = Tensor::from_vec(vec![16_777_217i64, i64::MAX], [2]).unwrap();
    assert_eq!(a.cast::<f32>().to_vec(), vec![16_777_216.0, 9.223372e18]);
    assert_eq!(
        Tensor::from_vec(vec![70000i32, 2049], [2])
            .unwrap()
            .cast::<f16>()
            .to_vec(),
        vec![f16::INFINITY, f16::from_f32(2048.0)]
    );
    assert_eq!(
        Tensor::from_vec(vec![257u16], [1])
            .unwrap()
            .cast::<bf16>()
            .to_vec(),
        vec![bf16::from_f32(256.0)]
    );
}

#[test]
fn float_narrowing_and_widening() {
    let a = Tensor::from_vec(vec![0.1f64, 1e39, -1e-50], [3]).unwrap();
    let f = a.cast::<f32>().to_vec();
    assert_eq!(f[0], 0.1f32);
    assert_eq!(f[1], f32::INFINITY);
    assert!(f[2] == 0.0 && f[2].is_sign_negative());
    assert_eq!(a.cast::<f32>().cast::<f64>().to_vec()[0], 0.1f32 as f64);
    let h = Tensor::from_vec(vec![f16::from_f32(1.5), f16::NAN], [2]).unwrap();
    let back = h.cast::<f64>().to_vec();
    assert_eq!(back[0], 1.5);
    assert!(back[1].is_nan());
}

#[test]
fn bool_casts() {
    let a = Tensor::from_vec(vec![0.0f32, -0.0, 2.5, f32::NAN], [4]).unwrap();
    assert_eq!(a.cast::<bool>().to_vec(), vec![false, false, true, true]);
    let b = Tensor::from_vec(vec![true, false], [2]).unwrap();
    assert_eq!(b.cast::<u8>().to_vec(), vec![1, 0]);
    assert_eq!(b.cast::<f64>().to_vec(), vec![1.0, 0.0]);
    assert_eq!(b.cast::<bool>().to_vec(), vec![true, false]);
}

#[test]
fn complex_casts() {
    let a = Tensor::from_vec(vec![1.5f64, -2.0], [2]).unwrap();
    assert_eq!(
        a.cast::<Complex<f32>>().to_vec(),
        vec![Complex::new(1.5f32, 0.0), Complex::new(-2.0, 0.0)]
    );
    let c = Tensor::from_vec(vec![Complex::new(2.7f64, 9.0), Complex::new(0.0, 1.0)], [2]).unwrap();
    assert_eq!(
        c.cast::<f64>().to_vec(),
        vec![2.7, 0.0],
        "the real part, as NumPy"
    );
    assert_eq!(c.cast::<i32>().to_vec(), vec![2, 0]);
    assert_eq!(c.cast::<bool>().to_vec(), vec![true, true]);
    assert_eq!(
        c.cast::<Complex<f32>>().to_vec()[0],
        Complex::new(2.7f32, 9.0)
    );
}
