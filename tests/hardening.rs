//! The edges of the integer range and of memory (issue 14): slicing with any `isize`
//! step, shapes whose nonzero lengths overflow, allocations that cannot succeed, one
//! rank limit on every path, and ambiguous file contents. Every case is either NumPy's
//! answer or an `Err`/panic that names the operation and the shape, never a wrong
//! answer, an abort, or an internal assertion.

use ferrotensor::io::safetensors::from_safetensors_bytes;
use ferrotensor::io::{npy, npz};
use ferrotensor::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The message of the panic `f` raises.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

// ---- 1. slicing with huge steps (NumPy's answers in the comments) ----

#[test]
fn huge_slice_steps_select_what_numpy_selects() {
    let a = Tensor::<i64, _>::arange(10);
    // np.arange(10)[::-sys.maxsize - 1] == [9], [::sys.maxsize] == [0]
    assert_eq!(a.try_slice(s![..;isize::MIN]).unwrap().to_vec(), vec![9]);
    assert_eq!(a.try_slice(s![..;isize::MAX]).unwrap().to_vec(), vec![0]);
    assert_eq!(
        a.try_slice(s![..;isize::MIN + 1]).unwrap().to_vec(),
        vec![9]
    );
    assert_eq!(a.try_slice(s![3..;isize::MAX]).unwrap().to_vec(), vec![3]);
    assert_eq!(a.try_slice(s![..4;isize::MIN]).unwrap().to_vec(), vec![9]);
    assert_eq!(
        a.try_slice(s![isize::MIN..isize::MAX;isize::MAX])
            .unwrap()
            .to_vec(),
        vec![0]
    );
    assert_eq!(
        a.try_slice(s![isize::MAX..isize::MIN;isize::MIN])
            .unwrap()
            .to_vec(),
        vec![9]
    );
    assert!(a.try_slice(s![isize::MAX..;1]).unwrap().is_empty());
    assert!(a.try_slice(s![isize::MIN..;-1]).unwrap().is_empty());
    assert_eq!(
        a.try_slice(s![isize::MIN]).unwrap_err().to_string(),
        "slice: index -9223372036854775808 is out of bounds for axis 0 with size 10"
    );
    assert!(a.try_slice(s![isize::MAX]).is_err());
    // step_by is `[::step]` on one axis.
    assert_eq!(a.step_by(0, isize::MIN).unwrap().to_vec(), vec![9]);
    assert_eq!(a.step_by(0, isize::MAX).unwrap().to_vec(), vec![0]);
    // A second huge step on the length-1 result, and on an empty axis.
    let one = a.try_slice(s![..;isize::MIN]).unwrap();
    assert_eq!(one.try_slice(s![..;isize::MIN]).unwrap().to_vec(), vec![9]);
    assert_eq!(one.flip(0).unwrap().to_vec(), vec![9]);
    let empty = Tensor::<i64, _>::arange(0);
    assert!(empty.try_slice(s![..;isize::MIN]).unwrap().is_empty());
    // Writable views take the same path.
    let mut m = Tensor::<i64, _>::arange(10);
    m.try_slice_mut(s![..;isize::MIN]).unwrap().fill(-1);
    assert_eq!(m.to_vec(), vec![0, 1, 2, 3, 4, 5, 6, 7, 8, -1]);
}

#[test]
fn huge_offsets_in_narrow_and_diagonal_are_errors_or_empty() {
    let a = Tensor::<i32, _>::arange(12).into_shape([3, 4]).unwrap();
    assert!(a.narrow(1, isize::MIN, 1).is_err());
    assert!(a.narrow(1, isize::MAX, 0).is_err());
    assert!(a.diagonal(isize::MAX, 0, 1).unwrap().is_empty());
    assert!(a.diagonal(isize::MIN, 0, 1).unwrap().is_empty());
    assert_eq!(a.diagonal(-2, 0, 1).unwrap().to_vec(), vec![8]);
}

// ---- 2. broadcast_to a shape whose element count overflows ----

#[test]
fn broadcast_to_an_overflowing_shape_is_an_error() {
    let a = Tensor::<f32, _>::ones([1]);
    let e = a.broadcast_to([1usize << 32, 1 << 32]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "broadcast_to: shape (4294967296, 4294967296) overflows: the product of its nonzero axis lengths exceeds isize::MAX"
    );
    assert!(a.broadcast_to([0, 1usize << 32, 1 << 32]).is_err());
    assert!(a.broadcast_to(vec![1; 65]).is_err());
    // The largest shape that fits is a view, not a copy.
    let big = a.broadcast_to([1usize << 31, 1 << 31]).unwrap();
    assert_eq!(big.size(), 1 << 62);
    // Operators broadcast through the same shape check.
    let row = Tensor::<u8, _>::zeros([1, 3]);
    let tall = Tensor::<u8, _>::zeros([4, 1]);
    assert_eq!(
        ferrotensor::layout::transform::broadcast_shapes(&[1usize << 32, 1], &[1, 1 << 32], "add")
            .unwrap_err()
            .to_string(),
        "add: shape (4294967296, 4294967296) overflows: the product of its nonzero axis lengths exceeds isize::MAX"
    );
    assert_eq!((&row + &tall).shape(), &[4, 3]);
}

// ---- 3. empty shapes with overflowing nonzero axes ----

#[test]
fn empty_shapes_whose_other_axes_overflow_are_refused_in_any_order() {
    for shape in [
        vec![0, 1 << 32, 1 << 32],
        vec![1 << 32, 0, 1 << 32],
        vec![1 << 32, 1 << 32, 0],
    ] {
        let e = Tensor::<f64, _>::try_zeros(shape.clone())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("zeros: shape ("), "{e}");
        assert!(e.contains("overflows"), "{e}");
        assert!(Tensor::<f64, _>::from_vec(vec![], shape.clone()).is_err());
        assert!(Tensor::<f64, _>::zeros([0]).reshape(shape.clone()).is_err());
    }
    assert!(Tensor::<u8, _>::from_vec(vec![], [0, usize::MAX]).is_err());
    assert!(Tensor::<u8, _>::from_vec(vec![], [usize::MAX, 0]).is_err());
    let msg = panic_message(|| {
        Tensor::<f64, _>::zeros([0, 1 << 32, 1 << 32]);
    });
    assert_eq!(
        msg,
        "zeros: shape (0, 4294967296, 4294967296) overflows: the product of its nonzero axis lengths exceeds isize::MAX"
    );
    // Shapes at the limit still work, and their reductions are empty tensors.
    let ok = Tensor::<f64, _>::zeros([0, 1 << 31, 1 << 31]);
    assert_eq!(ok.t().to_owned().shape(), &[1 << 31, 1 << 31, 0]);
    assert_eq!(ok.sum_axes(&[1, 2], false).unwrap().shape(), &[0]);
    assert_eq!(ok.mean_axes(&[1], false).unwrap().shape(), &[0, 1 << 31]);
    assert_eq!(ok.argmax_axis(2).unwrap().shape(), &[0, 1 << 31]);
    assert!(ok.argmax_axis(0).is_err());
    // Reducing the empty axis leaves 2^62 outputs (2^65 bytes): an Err, as NumPy's
    // MemoryError, never "capacity overflow".
    for e in [
        ok.sum_axes(&[0], false).unwrap_err(),
        ok.mean_axes(&[0], true).unwrap_err(),
    ] {
        assert!(
            e.to_string()
                .contains("cannot allocate the 4611686018427387904 outputs"),
            "{e}"
        );
    }
}

fn npy_bytes(dict: &str) -> Vec<u8> {
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    v.extend_from_slice(dict.as_bytes());
    v
}

fn safetensors_bytes(json: &str) -> Vec<u8> {
    let mut v = (json.len() as u64).to_le_bytes().to_vec();
    v.extend_from_slice(json.as_bytes());
    v
}

#[test]
fn file_headers_with_overflowing_empty_shapes_are_errors() {
    for shape in [
        "(0, 4294967296, 4294967296)",
        "(4294967296, 4294967296, 0)",
        "(0, 18446744073709551615)",
    ] {
        let b = npy_bytes(&format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}"
        ));
        let e = npy::from_npy_bytes_dyn(&b).unwrap_err().to_string();
        assert!(
            e.starts_with("read_npy: shape ") && e.contains("overflows"),
            "{e}"
        );
        assert!(npy::read_npy_from(&mut &b[..]).is_err());
    }
    for shape in ["[0, 4294967296, 4294967296]", "[4294967296, 0, 4294967296]"] {
        let json =
            format!(r#"{{"t": {{"dtype": "F32", "shape": {shape}, "data_offsets": [0, 0]}}}}"#);
        let e = from_safetensors_bytes(&safetensors_bytes(&json))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("read_safetensors: shape ") && e.contains("overflows"),
            "{e}"
        );
    }
}

// ---- 4. allocation ----

#[test]
fn sizes_past_isize_max_bytes_are_errors_and_named_panics() {
    let e = Tensor::<f64, _>::try_zeros([1usize << 61]).unwrap_err();
    assert!(matches!(e, Error::Alloc { .. }));
    assert_eq!(
        e.to_string(),
        "zeros: cannot allocate shape (2305843009213693952,) of float64: 18446744073709551616 bytes exceed isize::MAX"
    );
    assert!(Tensor::<f64, _>::try_ones([1usize << 61]).is_err());
    assert!(Tensor::try_full([1usize << 62, 2], 1u8).is_err());
    let msg = panic_message(|| {
        Tensor::<f64, _>::zeros([1usize << 61]);
    });
    assert!(
        msg.starts_with("zeros: cannot allocate shape (2305843009213693952,) of float64"),
        "{msg}"
    );
    let msg = panic_message(|| {
        Tensor::<i32, _>::ones([1usize << 62]);
    });
    assert!(
        msg.starts_with("ones: cannot allocate shape (4611686018427387904,) of int32"),
        "{msg}"
    );
    let msg = panic_message(|| {
        Tensor::linspace(0.0f64, 1.0, usize::MAX);
    });
    assert!(
        msg.starts_with("linspace: shape (18446744073709551615,) overflows"),
        "{msg}"
    );
    // A copy of a broadcast view larger than memory: a named panic, not an abort.
    let one = Tensor::<f64, _>::zeros([1]);
    let view = one.broadcast_to([1usize << 31, 1 << 31]).unwrap();
    let msg = panic_message(|| {
        view.to_owned();
    });
    assert!(
        msg.starts_with("to_owned: cannot allocate shape (2147483648, 2147483648) of float64"),
        "{msg}"
    );
}

#[test]
fn allocations_the_system_refuses_are_errors_not_aborts() {
    // 2^62 bytes fit isize::MAX but no x86-64 or AArch64 address space.
    let e = Tensor::<f64, _>::try_zeros([1usize << 59]).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("the allocator refused 4611686018427387904 bytes"),
        "{e}"
    );
    assert!(Tensor::<f64, _>::try_full([1usize << 29, 1 << 30], 2.0).is_err());
    let msg = panic_message(|| {
        Tensor::<f64, _>::zeros([1usize << 59]);
    });
    assert!(
        msg.starts_with("zeros: cannot allocate shape (576460752303423488,) of float64"),
        "{msg}"
    );
    let msg = panic_message(|| {
        Tensor::<u8, _>::from_shape_fn([1usize << 62], |_| 1);
    });
    assert!(msg.starts_with("from_shape_fn: cannot allocate"), "{msg}");
    let msg = panic_message(|| {
        Tensor::<u16, _>::arange(1usize << 61);
    });
    assert!(msg.starts_with("arange: cannot allocate"), "{msg}");
}

#[test]
fn arange_and_linspace_refuse_nan_and_infinity() {
    let e = Tensor::try_arange_step(0.0f64, f64::INFINITY, 1.0).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("arange_step: cannot compute the length of arange(0.0, inf, 1.0)"),
        "{e}"
    );
    assert!(Tensor::try_arange_step(0.0f64, 1.0, f64::NAN).is_err());
    assert!(Tensor::try_arange_step(f64::NAN, 1.0, 1.0).is_err());
    assert!(Tensor::try_arange_step(f32::NEG_INFINITY, 0.0, 1.0).is_err());
    assert!(Tensor::try_arange_step(0.0f64, 1e300, 1e-300).is_err());
    assert!(Tensor::try_arange_step(i64::MIN, i64::MAX, 1).is_err());
    assert!(Tensor::try_arange_step(0, 3, 0).is_err());
    let msg = panic_message(|| {
        Tensor::arange_step(0.0f32, 1.0, f32::NAN);
    });
    assert!(
        msg.starts_with("arange_step: cannot compute the length"),
        "{msg}"
    );
    let msg = panic_message(|| {
        Tensor::linspace(f64::NAN, 1.0, 4);
    });
    assert_eq!(
        msg,
        "linspace: start and stop must be finite, got NaN and 1.0"
    );
    assert!(Tensor::try_linspace(0.0f32, f32::INFINITY, 2).is_err());
    // Finite arguments are unchanged.
    assert_eq!(
        Tensor::try_arange_step(1.0f64, 2.0, 0.5).unwrap().to_vec(),
        vec![1.0, 1.5]
    );
    assert_eq!(
        Tensor::try_arange_step(u64::MAX - 2, u64::MAX, 1)
            .unwrap()
            .to_vec(),
        vec![u64::MAX - 2, u64::MAX - 1]
    );
    assert_eq!(
        Tensor::try_linspace(0.0f64, 1.0, 3).unwrap().to_vec(),
        vec![0.0, 0.5, 1.0]
    );
}

// ---- 5. one rank limit, ambiguous file contents ----

#[test]
fn new_axes_share_the_rank_limit_of_every_other_path() {
    assert_eq!(ferrotensor::layout::MAX_NDIM, 64);
    assert_eq!(npy::MAX_DIMS, ferrotensor::layout::MAX_NDIM);
    let a = Tensor::<f32, _>::zeros([3]);
    let items = vec![SliceItem::NewAxis; 4096];
    assert_eq!(
        a.try_slice(&items).unwrap_err().to_string(),
        "slice: a result of 4097 axes exceeds the limit of 64 axes"
    );
    let mut items = vec![SliceItem::NewAxis; 63];
    items.push(SliceItem::Ellipsis);
    assert_eq!(a.try_slice(&items).unwrap().ndim(), 64);
    items.push(SliceItem::NewAxis);
    assert!(a.try_slice(&items).is_err());
    // An index removes an axis, so one more NewAxis fits.
    items.push(SliceItem::Index(0));
    assert_eq!(a.try_slice(&items).unwrap().ndim(), 64);
    let full = Tensor::<f32, _>::zeros(vec![1; 64]);
    assert!(full.unsqueeze(0).is_err());
    assert!(Tensor::<f32, _>::try_zeros(vec![1; 65]).is_err());
    assert!(Tensor::<f32, _>::zeros([4]).reshape(vec![1; 65]).is_err());
}

#[test]
fn file_readers_share_the_rank_limit() {
    let ones = |n: usize| vec!["1"; n].join(", ");
    let b = npy_bytes(&format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, 4), }}",
        ones(63)
    ));
    assert_eq!(
        npy::from_npy_bytes_dyn(&[&b[..], &[0u8; 16][..]].concat())
            .unwrap()
            .shape()
            .len(),
        64
    );
    let b = npy_bytes(&format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, 4), }}",
        ones(64)
    ));
    assert!(npy::from_npy_bytes_dyn(&b).is_err());
    let json = |n: usize| {
        format!(
            r#"{{"t": {{"dtype": "U8", "shape": [{}], "data_offsets": [0, 1]}}}}"#,
            ones(n)
        )
    };
    let ok = [safetensors_bytes(&json(64)), vec![7]].concat();
    assert_eq!(
        from_safetensors_bytes(&ok).unwrap().tensors["t"]
            .shape()
            .len(),
        64
    );
    let e = from_safetensors_bytes(&[safetensors_bytes(&json(65)), vec![7]].concat()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "read_safetensors: shape (1, 1, 1, 1, 1, 1, 1, 1, …) has 65 axes, more than the limit of 64 axes"
    );
    assert!(from_safetensors_bytes(&[safetensors_bytes(&json(1000)), vec![7]].concat()).is_err());
}

#[test]
fn safetensors_duplicate_keys_are_errors() {
    let entry = r#"{"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}"#;
    let file = |json: String| [safetensors_bytes(&json), vec![5]].concat();
    let e =
        from_safetensors_bytes(&file(format!(r#"{{"a": {entry}, "a": {entry}}}"#))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "read_safetensors: key \"a\" appears twice in one JSON object"
    );
    // Equal after unescaping.
    assert!(
        from_safetensors_bytes(&file(format!(r#"{{"a": {entry}, "\u0061": {entry}}}"#))).is_err()
    );
    // Inside a tensor's entry and inside the metadata.
    let twice = r#"{"dtype": "U8", "dtype": "U8", "shape": [1], "data_offsets": [0, 1]}"#;
    assert!(from_safetensors_bytes(&file(format!(r#"{{"a": {twice}}}"#))).is_err());
    let meta = r#"{"__metadata__": {"k": "1", "k": "2"}, "a": "#;
    assert!(from_safetensors_bytes(&file(format!("{meta}{entry}}}"))).is_err());
    // Equal values under different keys, and keys repeated in different objects, are fine.
    let ok = format!(r#"{{"__metadata__": {{"dtype": "x", "a": "a"}}, "a": {entry}}}"#);
    assert_eq!(
        from_safetensors_bytes(&file(ok)).unwrap().metadata["dtype"],
        "x"
    );
    // A string value that looks like a key is not one.
    let tricky = format!(r#"{{"__metadata__": {{"k": "a\": ", "j": "a\": "}}, "a": {entry}}}"#);
    assert!(from_safetensors_bytes(&file(tricky)).is_ok());
}

/// An archive with members `dup.npy` (array `[1.0]`), `dup` (`[2.0]`) and `only.npy`
/// (`[3.0]`), written with the zip crate (`NpzWriter` always appends `.npy`).
fn npz_with_dup() -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, v) in [("dup.npy", 1.0f32), ("dup", 2.0), ("only.npy", 3.0)] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(&npy::to_npy_bytes(&Tensor::full([1], v)).unwrap())
            .unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn npz_members_with_and_without_the_suffix_stay_distinct() {
    let r = npz::NpzReader::new(std::io::Cursor::new(npz_with_dup())).unwrap();
    assert_eq!(r.names(), vec!["dup", "dup.npy", "only"]);
    // As np.load: the key "dup" reads the member named exactly "dup".
    let plain: Tensor<f32, Ix1> = r.read("dup").unwrap();
    let suffixed: Tensor<f32, Ix1> = r.read("dup.npy").unwrap();
    assert_eq!((plain.to_vec(), suffixed.to_vec()), (vec![2.0], vec![1.0]));
    assert_eq!(r.read_dyn("only.npy").unwrap().shape(), &[1]);
    let all = r.read_all().unwrap();
    assert_eq!(
        all.keys().collect::<Vec<_>>(),
        vec!["dup", "dup.npy", "only"]
    );
    assert!(
        r.read_dyn("missing")
            .unwrap_err()
            .to_string()
            .contains("no array named 'missing'")
    );
}

#[test]
fn npz_reads_take_a_shared_reference_from_several_threads() {
    let r = npz::NpzReader::new(std::io::Cursor::new(npz_with_dup())).unwrap();
    let (a, b): (Tensor<f32, Ix1>, Tensor<f32, Ix1>) =
        (r.read("only").unwrap(), r.read("dup").unwrap());
    assert_eq!((a.to_vec(), b.to_vec()), (vec![3.0], vec![2.0]));
    let sums: Vec<f32> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let r = &r;
                s.spawn(move || {
                    let name = ["dup", "dup.npy", "only"][i % 3];
                    (0..20)
                        .map(|_| r.read::<f32, Ix1>(name).unwrap()[[0]])
                        .sum::<f32>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(sums, vec![40.0, 20.0, 60.0, 40.0]);
}
