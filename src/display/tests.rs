//! Hand-written tests; expected strings were produced with NumPy 2.4
//! (`str(a)` / `np.array2string(a, ...)`), except the bf16 ones (no NumPy type).

use super::{PrintElement, PrintOptions, format_array};

fn fmt1<T: PrintElement>(data: &[T], opts: &PrintOptions) -> String {
    format_array(&[data.len()], &|i: &[usize]| data[i[0]], opts)
}

fn fmt_nd<T: PrintElement>(shape: &[usize], data: &[T], opts: &PrintOptions) -> String {
    format_array(
        shape,
        &|idx: &[usize]| {
            let flat = idx.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i);
            data[flat]
        },
        opts,
    )
}

fn d() -> PrintOptions {
    PrintOptions::default()
}

#[test]
fn reference_examples() {
    assert_eq!(fmt1(&[1.5f64, 2.0, 3.0], &d()), "[1.5 2.  3. ]");
    let m: Vec<f64> = (0..6).map(f64::from).collect();
    assert_eq!(fmt_nd(&[2, 3], &m, &d()), "[[0. 1. 2.]\n [3. 4. 5.]]");
    let sci = [1.0, 2.5, -3.25, 1e-9, 100.0, 0.123456789];
    assert_eq!(
        fmt_nd(&[2, 3], &sci, &d()),
        "[[ 1.00000000e+00  2.50000000e+00 -3.25000000e+00]\n [ 1.00000000e-09  1.00000000e+02  1.23456789e-01]]"
    );
    let big: Vec<i64> = (0..2000).collect();
    assert_eq!(fmt1(&big, &d()), "[   0    1    2 ... 1997 1998 1999]");
}

#[test]
// -27777.3125 is exact in f32; its shortest form is the tie -27777.312.
#[allow(clippy::excessive_precision)]
fn float_details() {
    // f32: exact further digits in scientific mode, ties to even.
    assert_eq!(
        fmt1(&[6001442816.0f32, 1.2345678], &d()),
        "[6.0014428e+09 1.2345678e+00]"
    );
    assert_eq!(fmt1(&[-27777.3125f32, 100.0], &d()), "[-27777.312    100.   ]");
    assert_eq!(fmt1(&[f32::NAN, f32::NEG_INFINITY, 1.5], &d()), "[ nan -inf  1.5]");
    assert_eq!(
        fmt1(&[half::f16::from_f32(0.1), half::f16::from_f32(0.2)], &d()),
        "[0.1 0.2]"
    );
    assert_eq!(fmt1(&[1e10f64, 1e-10], &d()), "[1.e+10 1.e-10]");
}

#[test]
fn scalars() {
    let z = |x: f64| format_array(&[], &|_: &[usize]| x, &d());
    assert_eq!(z(1.0), "1.0");
    assert_eq!(z(1e16), "1e+16");
    assert_eq!(z(-0.0), "-0.0");
    assert_eq!(z(f64::NAN), "nan");
    assert_eq!(format_array(&[], &|_: &[usize]| 1e6f32, &d()), "1e+06");
    assert_eq!(format_array(&[], &|_: &[usize]| 999999.94f32, &d()), "999999.94");
    assert_eq!(format_array(&[], &|_: &[usize]| true, &d()), "True");
    assert_eq!(format_array(&[], &|_: &[usize]| -7i32, &d()), "-7");
}

#[test]
fn ints_bools_and_nesting() {
    assert_eq!(fmt1(&[true, false], &d()), "[ True False]");
    assert_eq!(fmt1(&[-128i8, 127], &d()), "[-128  127]");
    assert_eq!(
        fmt1(&[u64::MAX, 0], &d()),
        "[18446744073709551615                    0]"
    );
    let a: Vec<i32> = (0..12).collect();
    assert_eq!(
        fmt_nd(&[2, 3, 2], &a, &d()),
        "[[[ 0  1]\n  [ 2  3]\n  [ 4  5]]\n\n [[ 6  7]\n  [ 8  9]\n  [10 11]]]"
    );
    assert_eq!(fmt_nd::<f32>(&[2, 0], &[], &d()), "[]");
    assert_eq!(fmt_nd::<bool>(&[0], &[], &d()), "[]");
}

#[test]
fn option_precision() {
    let o = PrintOptions { precision: 3, ..d() };
    assert_eq!(
        fmt1(&[std::f64::consts::PI, std::f64::consts::E, 100.0], &o),
        "[  3.142   2.718 100.   ]"
    );
}

#[test]
fn option_threshold_edgeitems() {
    let o = PrintOptions {
        threshold: 5,
        edgeitems: 1,
        ..d()
    };
    let m: Vec<f64> = (0..12).map(f64::from).collect();
    assert_eq!(fmt_nd(&[3, 4], &m, &o), "[[ 0. ...  3.]\n ...\n [ 8. ... 11.]]");
    let o = PrintOptions {
        threshold: 5,
        edgeitems: 2,
        ..d()
    };
    let v: Vec<i64> = (0..10).collect();
    assert_eq!(fmt1(&v, &o), "[0 1 ... 8 9]");
}

#[test]
fn option_suppress() {
    let data = [1e-9f64, 0.5, 123.25];
    assert_eq!(fmt1(&data, &d()), "[1.0000e-09 5.0000e-01 1.2325e+02]");
    let o = PrintOptions { suppress: true, ..d() };
    assert_eq!(fmt1(&data, &o), "[  0.     0.5  123.25]");
}

#[test]
fn option_linewidth() {
    let o = PrintOptions { linewidth: 30, ..d() };
    let v: Vec<f64> = (0..15).map(f64::from).collect();
    assert_eq!(
        fmt1(&v, &o),
        "[ 0.  1.  2.  3.  4.  5.  6.\n  7.  8.  9. 10. 11. 12. 13.\n 14.]"
    );
}

#[test]
fn summarised_reads_only_shown_elements() {
    use std::cell::Cell;
    let reads = Cell::new(0usize);
    let get = |i: &[usize]| {
        reads.set(reads.get() + 1);
        assert!(i[0] < 3 || i[0] >= 999_997, "read hidden element {i:?}");
        assert!(i[1] < 3 || i[1] >= 997, "read hidden element {i:?}");
        (i[0] + i[1]) as u32
    };
    let s = format_array(&[1_000_000, 1000], &get, &d());
    assert_eq!(reads.get(), 36);
    assert!(s.starts_with("[[      0       1       2 ...     997     998     999]\n"));
}

#[test]
fn bf16_uses_its_own_digits() {
    let b = half::bf16::from_f64;
    // bf16(0.1) = 0.10009765625 and bf16(2.72) = 2.71875; their shortest
    // bf16 round-trip forms are "0.1" and "2.72".
    assert_eq!(fmt1(&[b(0.1), b(2.72)], &d()), "[0.1  2.72]");
    // Scientific notation from 1e2 on (finfo precision 2).
    assert_eq!(fmt1(&[b(100.0), b(1.0)], &d()), "[1.e+02 1.e+00]");
    assert_eq!(format_array(&[], &|_: &[usize]| b(99.5), &d()), "99.5");
    assert_eq!(format_array(&[], &|_: &[usize]| b(100.0), &d()), "1e+02");
}
