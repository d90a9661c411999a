//! Files written by NumPy and the safetensors package (tests/golden/io, made by
//! gen_io.py) read by ferrotensor and compared element by element; and files written by
//! ferrotensor for `gen_io.py --check DIR` (set FERROTENSOR_IO_CHECK_DIR=DIR).

use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter, read_safetensors};
use ferrotensor::io::{DType, DynTensor, npy, npz};
use ferrotensor::prelude::*;
use half::{bf16, f16};
use num_complex::Complex;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn golden() -> PathBuf {
    crate::golden_file::path("io")
}

fn manifest() -> Value {
    crate::golden_file::json("io/manifest.json")
}

fn num(x: f64) -> Value {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        serde_json::json!(x)
    }
}

/// The elements in C order, encoded as gen_io.py encodes them.
fn encode(d: &DynTensor) -> Vec<Value> {
    fn ints<T: ferrotensor::Element + Into<Value>>(t: &Tensor<T>) -> Vec<Value> {
        t.iter().map(|&x| x.into()).collect()
    }
    match d {
        DynTensor::Bool(t) => ints(t),
        DynTensor::I8(t) => ints(t),
        DynTensor::I16(t) => ints(t),
        DynTensor::I32(t) => ints(t),
        DynTensor::I64(t) => ints(t),
        DynTensor::U8(t) => ints(t),
        DynTensor::U16(t) => ints(t),
        DynTensor::U32(t) => ints(t),
        DynTensor::U64(t) => ints(t),
        DynTensor::F16(t) => t.iter().map(|x| num(x.to_f64())).collect(),
        DynTensor::BF16(t) => t.iter().map(|x| num(x.to_f64())).collect(),
        DynTensor::F32(t) => t.iter().map(|&x| num(x as f64)).collect(),
        DynTensor::F64(t) => t.iter().map(|&x| num(x)).collect(),
        DynTensor::C64(t) => t
            .iter()
            .map(|x| Value::Array(vec![num(x.re as f64), num(x.im as f64)]))
            .collect(),
        DynTensor::C128(t) => t
            .iter()
            .map(|x| Value::Array(vec![num(x.re), num(x.im)]))
            .collect(),
    }
}

/// Exact for integers, bools and specials; floats equal up to JSON parsing (1e-12
/// relative) with the sign of zero kept.
fn same_value(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        (Value::Number(a), Value::Number(b)) if a.is_f64() || b.is_f64() => {
            let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            (x - y).abs() <= 1e-12 * y.abs() && x.is_sign_negative() == y.is_sign_negative()
        }
        _ => got == want,
    }
}

fn check_entry(d: &DynTensor, e: &Value, what: &str) {
    assert_eq!(
        d.dtype().name(),
        e["dtype"].as_str().unwrap(),
        "{what}: dtype"
    );
    let shape: Vec<usize> = e["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(d.shape(), &shape[..], "{what}: shape");
    let got = encode(d);
    let want = e["values"].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{what}: element count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(same_value(g, w), "{what}: element {i}: got {g}, want {w}");
    }
}

fn is_fortran_layout(d: &DynTensor) -> bool {
    match d {
        DynTensor::F64(t) => t.is_f_contiguous() && !t.is_contiguous(),
        DynTensor::I32(t) => t.is_f_contiguous() && !t.is_contiguous(),
        _ => false,
    }
}

#[test]
fn npy_files_written_by_numpy() {
    let m = manifest();
    let entries = m["npy"].as_array().unwrap();
    assert!(entries.len() >= 30);
    for e in entries {
        let file = e["file"].as_str().unwrap();
        let path = golden().join(file);
        let d = npy::read_npy_dyn(&path).unwrap_or_else(|err| panic!("{file}: {err}"));
        check_entry(&d, e, file);
        if e["fortran"].as_bool().unwrap() {
            assert!(
                is_fortran_layout(&d),
                "{file}: fortran_order must load as a column-major layout"
            );
        }
        let bytes = std::fs::read(&path).unwrap();
        let v = e["version"].as_array().unwrap();
        assert_eq!(bytes[6] as u64, v[0].as_u64().unwrap(), "{file}: version");
        check_entry(&npy::from_npy_bytes_dyn(&bytes).unwrap(), e, file);
        check_entry(&npy::read_npy_from(&mut &bytes[..]).unwrap(), e, file);
    }
}

#[test]
fn typed_reads_of_numpy_files() {
    let g = golden();
    let a: Tensor<f32, Ix2> = npy::read_npy(g.join("float32_be.npy")).unwrap();
    assert_eq!(a[[0, 1]], -1.25);
    let b: Tensor<Complex<f64>, IxDyn> = npy::read_npy(g.join("complex128_be.npy")).unwrap();
    assert_eq!(b[&[0usize, 2][..]], Complex::new(0.0, -0.5));
    assert_eq!(b[&[0usize, 1][..]], Complex::new(-0.5, -0.25));
    let c: Tensor<f16, Ix2> = npy::read_npy(g.join("float16_le.npy")).unwrap();
    assert!(c[[1, 1]].is_nan() && c[[0, 2]] == f16::INFINITY && c[[1, 0]] == f16::NEG_INFINITY);
    assert!(c[[1, 2]].to_f64() == 0.0 && c[[1, 2]].is_sign_negative());
    let s: Tensor<f32, Ix0> = npy::read_npy(g.join("float32_0d.npy")).unwrap();
    assert_eq!(s.to_scalar().unwrap(), 0.5);
    let f: Tensor<i32, Ix3> = npy::read_npy(g.join("int32_fortran_be.npy")).unwrap();
    assert_eq!(f.strides(), &[1, 2, 6]);
    assert_eq!((f[[0, 0, 1]], f[[1, 0, 0]]), (i32::MAX, 22));
    let e: Tensor<i64, Ix2> = npy::read_npy(g.join("int64_empty.npy")).unwrap();
    assert_eq!(e.shape(), &[0, 3]);
    let err = npy::read_npy::<f64, Ix2>(g.join("float32_le.npy"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("float32") && err.contains("float64"), "{err}");
    let err = npy::read_npy::<f32, Ix3>(g.join("float32_le.npy"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("rank 3"), "{err}");
}

#[test]
fn npz_archives_written_by_numpy() {
    let m = manifest();
    for e in m["npz"].as_array().unwrap() {
        let file = e["file"].as_str().unwrap();
        let member = e["member"].as_str().unwrap();
        let r = npz::NpzReader::open(golden().join(file)).unwrap();
        assert_eq!(r.names(), vec!["a", "b", "c", "d"]);
        let d = r
            .read_dyn(member)
            .unwrap_or_else(|err| panic!("{file}:{member}: {err}"));
        check_entry(&d, e, &format!("{file}:{member}"));
        if e["fortran"].as_bool().unwrap() {
            assert!(is_fortran_layout(&d));
        }
    }
    let r = npz::NpzReader::open(golden().join("deflated.npz")).unwrap();
    let a: Tensor<f32, Ix2> = r.read("a").unwrap();
    assert_eq!(a.to_vec()[..2], [0.5, -1.25]);
    assert!(
        r.read_dyn("nope")
            .unwrap_err()
            .to_string()
            .contains("no array named 'nope'")
    );
}

#[test]
fn safetensors_written_by_the_package() {
    let m = manifest();
    let all = read_safetensors(golden().join("all.safetensors")).unwrap();
    assert_eq!(all.metadata.get("format").map(String::as_str), Some("np"));
    assert_eq!(all.metadata.get("note").map(String::as_str), Some("golden"));
    let bf = read_safetensors(golden().join("bf16.safetensors")).unwrap();
    // SAFETY: the golden files are not modified while mapped.
    let mapped = unsafe { MmapSafetensors::open(golden().join("all.safetensors")) }.unwrap();
    let entries = m["safetensors"].as_array().unwrap();
    assert_eq!(entries.len(), 16);
    for e in entries {
        let file = e["file"].as_str().unwrap();
        let member = e["member"].as_str().unwrap();
        let st = if file == "all.safetensors" { &all } else { &bf };
        check_entry(&st.tensors[member], e, &format!("{file}:{member}"));
        if file == "all.safetensors" {
            check_entry(&mapped.tensor_dyn(member).unwrap(), e, member);
        }
    }
    // Views borrowed from the map: the same memory on every call, values as loaded.
    let v1 = mapped.tensor::<f32>("t_float32").unwrap();
    let v2 = mapped.tensor::<f32>("t_float32").unwrap();
    assert_eq!(v1.as_ptr(), v2.as_ptr());
    let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
    let owned = all.tensors["t_float32"]
        .clone()
        .into_typed::<f32>()
        .unwrap();
    assert_eq!(bits(v1.to_vec()), bits(owned.to_vec()));
    assert_eq!(
        mapped.tensor::<bool>("t_bool").unwrap().to_vec(),
        vec![true, false, false, true, false, false]
    );
    assert_eq!(
        mapped
            .tensor::<Complex<f32>>("t_complex64")
            .unwrap()
            .shape(),
        &[2, 3]
    );
    assert_eq!(mapped.tensor::<i32>("empty").unwrap().shape(), &[0, 2]);
    assert_eq!(
        mapped.tensor::<f64>("scalar").unwrap().to_scalar().unwrap(),
        0.5
    );
    assert!(mapped.tensor::<f64>("t_float32").is_err());
    assert_eq!(bf.tensors["w"].dtype(), DType::BF16);
}

fn check_dir() -> PathBuf {
    match std::env::var_os("FERROTENSOR_IO_CHECK_DIR") {
        Some(d) => PathBuf::from(d),
        None => std::env::temp_dir().join(format!("ferrotensor_io_check_{}", std::process::id())),
    }
}

fn golden_dyn(name: &str) -> DynTensor {
    npy::read_npy_dyn(golden().join(name)).unwrap()
}

/// Writes the files `gen_io.py --check DIR` verifies, and reads each back here too.
#[test]
fn write_files_for_numpy_check() {
    let dir = check_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let names = [
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ];
    let write_dyn = |d: &DynTensor, path: &Path| {
        macro_rules! w {
            ($($v:ident),*) => {
                match d { $(DynTensor::$v(t) => npy::write_npy(path, t).unwrap(),)* _ => unreachable!() }
            };
        }
        w!(
            Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, C64, C128
        );
    };
    for n in names {
        // Big-endian sources: ferrotensor decodes to native order and writes little-endian.
        let src = if n.len() > 4 && !n.ends_with('8') {
            format!("{n}_be.npy")
        } else {
            format!("{n}_le.npy")
        };
        let d = golden_dyn(&src);
        let path = dir.join(format!("{n}.npy"));
        write_dyn(&d, &path);
        assert_eq!(
            encode(&npy::read_npy_dyn(&path).unwrap()),
            encode(&d),
            "{n}"
        );
    }
    // Column-major: written as fortran_order=True without a copy; read back column-major.
    let f: Tensor<f64, Ix2> = npy::read_npy(golden().join("float64_fortran.npy")).unwrap();
    npy::write_npy(dir.join("fortran.npy"), &f).unwrap();
    let header = std::fs::read(dir.join("fortran.npy")).unwrap();
    assert!(String::from_utf8_lossy(&header[..128]).contains("'fortran_order': True"));
    let back: Tensor<f64, Ix2> = npy::read_npy(dir.join("fortran.npy")).unwrap();
    assert!(back.is_f_contiguous());
    // A strided view (transposed and flipped) is written in row-major order.
    let i: Tensor<i32, Ix2> = npy::read_npy(golden().join("int32_le.npy")).unwrap();
    let tv = i.t().flip(0).unwrap();
    npy::write_npy(dir.join("transposed.npy"), &tv).unwrap();
    let back: Tensor<i32, Ix2> = npy::read_npy(dir.join("transposed.npy")).unwrap();
    assert_eq!(back.to_vec(), tv.to_vec());
    write_dyn(&golden_dyn("float32_0d.npy"), &dir.join("scalar.npy"));
    write_dyn(&golden_dyn("int64_empty.npy"), &dir.join("empty.npy"));
    let u: Tensor<u16, Ix2> = npy::read_npy(golden().join("uint16_le.npy")).unwrap();
    for (k, v) in [
        (1, npy::NpyVersion::V1),
        (2, npy::NpyVersion::V2),
        (3, npy::NpyVersion::V3),
    ] {
        let p = dir.join(format!("v{k}.npy"));
        npy::write_npy_version(&p, &u, Some(v)).unwrap();
        assert_eq!(npy::read_npy::<u16, Ix2>(&p).unwrap().to_vec(), u.to_vec());
    }
    for (file, compressed) in [("stored.npz", false), ("deflated.npz", true)] {
        let mut w = npz::NpzWriter::create(dir.join(file))
            .unwrap()
            .compressed(compressed);
        w.add_dyn("a", &golden_dyn("float32_le.npy")).unwrap();
        w.add_dyn("b", &golden_dyn("int16_be.npy")).unwrap();
        w.add_dyn("c", &golden_dyn("complex128_le.npy")).unwrap();
        w.finish().unwrap();
        let r = npz::NpzReader::open(dir.join(file)).unwrap();
        assert_eq!(
            encode(&r.read_dyn("c").unwrap()),
            encode(&golden_dyn("complex128_le.npy"))
        );
    }
    let mut st = SafetensorsWriter::new();
    for n in names.iter().filter(|&&n| n != "complex128") {
        st.add_dyn(&format!("t_{n}"), &golden_dyn(&format!("{n}_le.npy")))
            .unwrap();
    }
    st.add_dyn("scalar", &golden_dyn("float32_0d.npy")).unwrap();
    st.metadata("writer", "ferrotensor")
        .metadata("kind", "check");
    st.write(dir.join("all.safetensors")).unwrap();
    let back = read_safetensors(dir.join("all.safetensors")).unwrap();
    assert_eq!(back.tensors.len(), 14);
    assert_eq!(
        encode(&back.tensors["t_uint64"]),
        encode(&golden_dyn("uint64_le.npy"))
    );
    let bf = Tensor::from_vec(
        [1.0f32, -2.5, 0.15625, f32::INFINITY, -0.0, 2.0]
            .map(bf16::from_f32)
            .to_vec(),
        [2, 3],
    )
    .unwrap();
    let mut w = SafetensorsWriter::new();
    w.add("w", &bf).unwrap();
    w.write(dir.join("bf16.safetensors")).unwrap();
    // SAFETY: the file is not modified while mapped.
    let m = unsafe { MmapSafetensors::open(dir.join("bf16.safetensors")) }.unwrap();
    assert_eq!(m.tensor::<bf16>("w").unwrap().to_vec(), bf.to_vec());
    if std::env::var_os("FERROTENSOR_IO_CHECK_DIR").is_none() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
