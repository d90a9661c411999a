//! Unit tests of the tensor type: constructors, conversions between ownership kinds,
//! element access, and the panics of the infallible twins (their message and the
//! caller's location). Small sizes, so that they also run under Miri.

use crate::error::Error;
use crate::layout::{Dimension, Layout};
use crate::prelude::*;
use num_complex::Complex;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

thread_local! {
    static LAST_PANIC: RefCell<Option<(String, String, u32)>> = const { RefCell::new(None) };
}

/// The message and location (file, line) of the panic `f` raises. A panic hook records
/// them per thread and then runs the previous hook, so tests running beside this one
/// are unaffected.
fn panic_of(f: impl FnOnce()) -> (String, String, u32) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let (file, line) = info
                .location()
                .map_or((String::new(), 0), |l| (l.file().to_string(), l.line()));
            LAST_PANIC.with(|p| *p.borrow_mut() = Some((msg, file, line)));
            previous(info);
        }));
    });
    assert!(catch_unwind(AssertUnwindSafe(f)).is_err(), "expected a panic");
    LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .expect("the hook saw the panic")
}

#[test]
fn fill_constructors_give_their_value_for_every_kind_of_type() {
    assert_eq!(Tensor::<f32, _>::zeros([2, 3]).to_vec(), vec![0.0; 6]);
    assert_eq!(Tensor::<i64, _>::ones([3]).to_vec(), vec![1; 3]);
    assert_eq!(Tensor::<bool, _>::zeros([2]).to_vec(), vec![false; 2]);
    assert_eq!(Tensor::full([2], true).to_vec(), vec![true; 2]);
    let c = Complex::new(1.0f64, -2.0);
    assert_eq!(Tensor::full([2, 1], c).to_vec(), vec![c; 2]);
    assert_eq!(
        Tensor::<Complex<f32>, _>::zeros([1]).to_vec(),
        vec![Complex::new(0.0, 0.0)]
    );
    assert_eq!(Tensor::<half::f16, _>::ones([2]).to_vec(), vec![half::f16::ONE; 2]);
    let neg = Tensor::full([3], -0.0f32);
    assert!(neg.iter().all(|x| x.to_bits() == (-0.0f32).to_bits()));
    assert_eq!(Tensor::<u8, _>::zeros([0, 5]).shape(), &[0, 5]);
    assert_eq!(Tensor::<u8, _>::zeros([]).to_vec(), vec![0]);
    let t = Tensor::<i32, _>::try_full(vec![2, 2], 9).unwrap();
    assert_eq!((t.shape(), t.to_vec()), (&[2usize, 2][..], vec![9; 4]));
    assert!(t.is_contiguous() && t.offset() == 0);
    let like = Tensor::<f64, _>::ones([2, 2]);
    assert_eq!(Tensor::<u8, _>::zeros_like(&like).to_vec(), vec![0; 4]);
    assert_eq!(Tensor::<u8, _>::ones_like(&like).to_vec(), vec![1; 4]);
    assert_eq!(Tensor::full_like(&like, 5i16).to_vec(), vec![5; 4]);
    // A like-constructor of a broadcast view allocates its full size.
    let b = like.broadcast_to([3, 2, 2]).unwrap();
    assert_eq!(Tensor::<u8, _>::zeros_like(&b).size(), 12);
}

#[test]
fn try_constructors_name_the_operation_the_shape_and_the_kind_of_failure() {
    let e = Tensor::<f32, _>::try_zeros([0, 1 << 32, 1 << 32]).unwrap_err();
    assert!(matches!(e, Error::Overflow { op: "zeros", .. }), "{e:?}");
    let e = Tensor::<f32, _>::try_ones(vec![1; 65]).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "ones", .. }), "{e:?}");
    let e = Tensor::try_full([1usize << 62], 1u16).unwrap_err();
    assert_eq!(
        e.to_string(),
        "full: cannot allocate shape (4611686018427387904,) of uint16: 9223372036854775808 bytes exceed isize::MAX"
    );
    assert!(matches!(e, Error::Alloc { .. }));
    let e = Tensor::<u8, _>::from_vec(vec![1, 2], [3]).unwrap_err();
    assert_eq!(e.to_string(), "from_vec: 2 elements do not fit shape (3,) of size 3");
    let e = Tensor::<u8, _>::from_vec_order(vec![], [0, usize::MAX], Order::ColMajor).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("from_vec_order: shape (0, 18446744073709551615) overflows")
    );
    let e = Tensor::<u8, _>::from_slice(&[], [usize::MAX, 0]).unwrap_err();
    assert!(e.to_string().starts_with("from_slice: shape"), "{e}");
}

#[test]
// Each caught panic costs Miri about ten seconds, and no unsafe code runs here.
#[cfg_attr(miri, ignore)]
fn infallible_constructors_panic_at_the_callers_line() {
    let zeros_line = line!() + 2;
    let (msg, file, line) = panic_of(|| {
        Tensor::<f64, _>::zeros([1usize << 61]);
    });
    assert!(
        msg.starts_with("zeros: cannot allocate shape (2305843009213693952,) of float64"),
        "{msg}"
    );
    assert_eq!((file.as_str(), line), (file!(), zeros_line));
    let (msg, file, _) = panic_of(|| {
        Tensor::<i8, _>::ones(vec![1; 70]);
    });
    assert!(
        msg.starts_with("ones: shape (1, 1, 1, 1, 1, 1, 1, 1, …) has 70 axes"),
        "{msg}"
    );
    assert_eq!(file, file!());
    let (msg, file, _) = panic_of(|| {
        Tensor::linspace(0.0f32, f32::INFINITY, 3);
    });
    assert_eq!(
        (msg.as_str(), file.as_str()),
        ("linspace: start and stop must be finite, got 0.0 and inf", file!())
    );
    let (msg, file, _) = panic_of(|| {
        Tensor::arange_step(1, 2, 0);
    });
    assert_eq!(
        (msg.as_str(), file.as_str()),
        ("arange_step: step must not be zero, got arange(1, 2, 0)", file!())
    );
    let (msg, file, _) = panic_of(|| {
        Tensor::<u8, _>::eye(1usize << 32);
    });
    assert!(
        msg.starts_with("eye: shape (4294967296, 4294967296) overflows"),
        "{msg}"
    );
    assert_eq!(file, file!());
}

#[test]
// Each caught panic costs Miri about ten seconds, and no unsafe code runs here.
#[cfg_attr(miri, ignore)]
fn index_panics_name_the_index_and_shape_at_the_callers_line() {
    let mut a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
    let (msg, file, _) = panic_of(|| {
        let _ = a[[2, 0]];
    });
    assert_eq!(msg, "index: index [2, 0] is out of bounds for shape (2, 3)");
    assert_eq!(file, file!());
    let (msg, file, _) = panic_of(|| {
        a[&[0usize, 0, 0][..]] = 1;
    });
    assert_eq!(msg, "index: index [0, 0, 0] is out of bounds for shape (2, 3)");
    assert_eq!(file, file!());
    let v = Tensor::<f64, _>::zeros([1]);
    let big = v.broadcast_to([1usize << 31, 1 << 31]).unwrap();
    let (msg, file, _) = panic_of(|| {
        big.to_vec();
    });
    assert!(
        msg.starts_with("to_vec: cannot allocate shape (2147483648, 2147483648) of float64"),
        "{msg}"
    );
    assert_eq!(file, file!());
}

#[test]
fn sequence_constructors() {
    assert_eq!(Tensor::<u8, _>::arange(4).to_vec(), vec![0, 1, 2, 3]);
    assert!(Tensor::<f32, _>::arange(0).is_empty());
    assert_eq!(Tensor::arange_step(10i8, -10, -7).to_vec(), vec![10, 3, -4]);
    assert_eq!(Tensor::arange_step(0.0f64, -1.0, 0.5).size(), 0);
    assert_eq!(
        Tensor::try_arange_step(0.5f32, 2.0, 0.5).unwrap().to_vec(),
        vec![0.5, 1.0, 1.5]
    );
    assert_eq!(Tensor::linspace(2.0f64, 2.0, 1).to_vec(), vec![2.0]);
    assert!(Tensor::<f64, _>::linspace(0.0, 1.0, 0).is_empty());
    assert_eq!(Tensor::linspace(1.0f32, 0.0, 3).to_vec(), vec![1.0, 0.5, 0.0]);
    assert_eq!(Tensor::<i32, _>::eye(3).to_vec(), vec![1, 0, 0, 0, 1, 0, 0, 0, 1]);
    assert!(Tensor::<i32, _>::eye(0).is_empty());
    assert_eq!(Tensor::scalar(4u8).to_scalar().unwrap(), 4);
    let f = Tensor::from_shape_fn([2, 2, 2], |i: &[usize]| (i[0] * 4 + i[1] * 2 + i[2]) as u8);
    assert_eq!(f.to_vec(), (0..8).collect::<Vec<u8>>());
    assert!(Tensor::from_shape_fn([0, 3], |_: &[usize]| 1u8).is_empty());
}

#[test]
fn conversions_copy_only_when_they_say_so() {
    let a = Tensor::<i32, _>::arange(6).into_shape([2, 3]).unwrap();
    let p = a.as_ptr();
    // Views never copy; owned copies are compact and row-major.
    assert_eq!(a.view().as_ptr(), p);
    let t = a.t().to_owned();
    assert_eq!((t.to_vec(), t.strides()), (vec![0, 3, 1, 4, 2, 5], &[2isize, 1][..]));
    assert_ne!(t.as_ptr(), p);
    assert!(a.as_standard_layout().is_view());
    assert!(!a.t().as_standard_layout().is_view());
    assert_eq!(a.t().as_standard_layout().to_vec(), t.to_vec());
    // Owned and unique shared tensors move; views and shared ones copy.
    let shared = a.into_shared();
    assert_eq!(shared.as_ptr(), p);
    let other = shared.clone();
    let copy = shared.into_owned();
    assert_ne!(copy.as_ptr(), p);
    let back = other.into_owned();
    assert_eq!(back.as_ptr(), p);
    let v = back.clone().into_vec();
    assert_eq!(v, vec![0, 1, 2, 3, 4, 5]);
    // into_vec of a strided owned tensor gathers in logical order.
    let sliced = back.slice(s![.., ..;-2]).to_owned();
    assert_eq!(sliced.into_vec(), vec![2, 0, 5, 3]);
    // into_shape keeps the buffer when a view is possible, else copies.
    let b2 = back.clone();
    let p2 = b2.as_ptr();
    assert_eq!(b2.into_shape([6]).unwrap().as_ptr(), p2);
    let strided = Tensor::from_raw_parts(back.to_vec(), Layout::new([3usize, 2], [1isize, 3], 0)).unwrap();
    let p3 = strided.as_ptr();
    let flat = strided.into_shape([6]).unwrap();
    assert_ne!(flat.as_ptr(), p3);
    assert_eq!(flat.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    assert!(back.clone().into_shape([4]).is_err());
    assert!(back.clone().into_shape(vec![0, usize::MAX]).is_err());
    // Rank conversions.
    let d = back.clone().into_dyn();
    assert_eq!(d.ndim(), 2);
    assert!(d.clone().into_dim::<Ix3>().is_err());
    assert_eq!(d.into_dim::<Ix2>().unwrap().dim(), &[2, 3]);
    assert!(back.to_scalar().is_err());
}

#[test]
fn writes_through_shared_and_copy_on_write_tensors_copy_first() {
    let a = Tensor::<f32, _>::zeros([2, 2]);
    let mut c = a.t().into_cow();
    assert!(c.is_view());
    c.view_mut()[[0, 1]] = 1.0;
    assert!(!c.is_view());
    assert!(c.is_contiguous());
    assert_eq!((c.to_vec(), a.to_vec()), (vec![0.0, 1.0, 0.0, 0.0], vec![0.0; 4]));
    let mut s = Tensor::<f32, _>::ones([3]).into_shared();
    let keep = s.clone();
    *s.get_mut([1]).unwrap() = 5.0;
    assert_eq!((s.to_vec(), keep.to_vec()), (vec![1.0, 5.0, 1.0], vec![1.0; 3]));
    let p = s.as_ptr();
    s.iter_mut().for_each(|x| *x += 1.0);
    assert_eq!(s.as_ptr(), p);
    let owned = keep.clone().into_owned_keep_layout();
    assert_ne!(owned.as_ptr(), keep.as_ptr());
    assert_eq!(keep.into_cow().to_vec(), vec![1.0; 3]);
    assert_eq!(s.as_slice_mut().unwrap(), &[2.0, 6.0, 2.0]);
}

#[test]
fn raw_parts_are_checked_against_the_buffer_and_the_limits() {
    let (v, l) = Tensor::<u8, _>::arange(6).into_shape([2, 3]).unwrap().into_raw_parts();
    assert_eq!((v.len(), l.strides()), (6, &[3isize, 1][..]));
    let t = Tensor::from_raw_parts(v.clone(), Layout::new([3usize, 2], [1isize, 3], 0)).unwrap();
    assert_eq!(t.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    assert!(Tensor::from_raw_parts(v.clone(), Layout::new([3usize, 2], [1isize, 3], 1)).is_err());
    assert!(Tensor::from_raw_parts(v.clone(), Layout::new([3usize, 2], [1isize, 1], 0)).is_err());
    assert!(Tensor::from_raw_parts(v.clone(), Layout::new([0usize, usize::MAX], [1isize, 1], 0)).is_err());
    let rev = Tensor::from_raw_parts(v, Layout::new([6usize], [-1isize], 5)).unwrap();
    assert_eq!(rev.to_vec(), vec![5, 4, 3, 2, 1, 0]);
}

#[test]
fn access_and_iteration_follow_the_layout() {
    let a = Tensor::<i32, _>::arange(12).into_shape([3, 4]).unwrap();
    let v = a.slice(s![..;-1, 1..;2]);
    assert_eq!(v.shape(), &[3, 2]);
    assert_eq!(v.get([0, 0]), Some(&9));
    assert_eq!(v.get([3, 0]), None);
    assert_eq!(v.get([0usize]), None);
    assert_eq!(v.iter().copied().collect::<Vec<_>>(), vec![9, 11, 5, 7, 1, 3]);
    let idx: Vec<_> = v
        .indexed_iter()
        .map(|(i, &x)| (i.slice().to_vec(), x))
        .take(2)
        .collect();
    assert_eq!(idx, vec![(vec![0, 0], 9), (vec![0, 1], 11)]);
    assert_eq!(v[&[2usize, 1][..]], 3);
    let mut m = a.clone();
    m.slice_mut(s![.., 0]).fill(-1);
    assert_eq!(m.slice(s![.., 0]).to_vec(), vec![-1; 3]);
    assert_eq!((&m).into_iter().filter(|&&x| x < 0).count(), 3);
}
