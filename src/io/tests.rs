//! Unit tests of the readers and writers on in-memory bytes (small, so that they also
//! run under Miri, which checks the byte casts of every dtype): round trips of every
//! dtype and layout kind, both byte orders, streams, archives read through `&self`, and
//! safetensors headers with repeated keys.

use super::npy::{self, NpyVersion};
use super::npz::{NpzReader, NpzWriter};
use super::safetensors::{SafetensorsWriter, from_safetensors_bytes};
use super::{DType, DynTensor, IoElement};
use crate::prelude::*;
use num_complex::Complex;

fn roundtrip_npy<T: IoElement>(values: Vec<T>) {
    let n = values.len();
    let t = Tensor::from_vec(values, [n]).unwrap();
    // Under Miri one version (the versions differ only in the header, tested natively).
    let versions: &[NpyVersion] = if cfg!(miri) {
        &[NpyVersion::V1]
    } else {
        &[NpyVersion::V1, NpyVersion::V2, NpyVersion::V3]
    };
    for &v in versions {
        let mut bytes = Vec::new();
        npy::write_npy_to(&mut bytes, &t, Some(v)).unwrap();
        let back: Tensor<T, Ix1> = npy::from_npy_bytes(&bytes).unwrap();
        assert_eq!(back.to_vec(), t.to_vec(), "{:?} {v:?}", T::DTYPE);
        let streamed = npy::read_npy_from(&mut &bytes[..]).unwrap();
        assert_eq!(streamed.dtype(), T::DTYPE);
        let typed: Tensor<T, IxDyn> = streamed.try_into().unwrap();
        assert_eq!(typed.to_vec(), t.to_vec());
    }
}

#[test]
fn npy_round_trips_every_dtype() {
    roundtrip_npy(vec![true, false, true]);
    roundtrip_npy(vec![-1i8, 2]);
    roundtrip_npy(vec![-300i16, 7]);
    roundtrip_npy(vec![i32::MIN, 1]);
    roundtrip_npy(vec![i64::MAX, -2]);
    roundtrip_npy(vec![255u8, 0]);
    roundtrip_npy(vec![65535u16]);
    roundtrip_npy(vec![u32::MAX, 3]);
    roundtrip_npy(vec![u64::MAX]);
    roundtrip_npy(vec![half::f16::from_f32(1.5), half::f16::NEG_INFINITY]);
    roundtrip_npy(vec![1.25f32, -0.0]);
    roundtrip_npy(vec![f64::MIN_POSITIVE, 2.0]);
    roundtrip_npy(vec![Complex::new(1.0f32, -2.0)]);
    roundtrip_npy(vec![Complex::new(0.5f64, 3.0), Complex::new(-1.0, 0.0)]);
}

#[test]
fn npy_layouts_and_byte_orders() {
    // A column-major tensor is written in memory order and read back column-major.
    let f = Tensor::from_vec_order(vec![1i32, 2, 3, 4, 5, 6], [2, 3], Order::ColMajor).unwrap();
    let b = npy::to_npy_bytes(&f).unwrap();
    let back: Tensor<i32, Ix2> = npy::from_npy_bytes(&b).unwrap();
    assert!(back.is_f_contiguous() && !back.is_contiguous());
    assert_eq!(back.to_vec(), f.to_vec());
    // A strided view is written in logical order.
    let a = Tensor::<u16, _>::arange(12).into_shape([3, 4]).unwrap();
    let v = a.slice(s![..;-1, 1..;2]);
    let back: Tensor<u16, IxDyn> = npy::from_npy_bytes(&npy::to_npy_bytes(&v).unwrap()).unwrap();
    assert_eq!(back.to_vec(), v.to_vec());
    // Big-endian data is swapped on read.
    let mut be = b"\x93NUMPY\x01\x00".to_vec();
    let dict = "{'descr': '>u2', 'fortran_order': False, 'shape': (2,), }";
    be.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    be.extend_from_slice(dict.as_bytes());
    be.extend_from_slice(&[0x01, 0x02, 0xff, 0x00]);
    let t: Tensor<u16, Ix1> = npy::from_npy_bytes(&be).unwrap();
    assert_eq!(t.to_vec(), vec![0x0102, 0xff00]);
    // Empty and 0-d arrays.
    let e = Tensor::<f64, _>::zeros([0, 3]);
    let back: Tensor<f64, Ix2> = npy::from_npy_bytes(&npy::to_npy_bytes(&e).unwrap()).unwrap();
    assert_eq!(back.shape(), &[0, 3]);
    let s = Tensor::scalar(7u8);
    let back: Tensor<u8, Ix0> = npy::from_npy_bytes(&npy::to_npy_bytes(&s).unwrap()).unwrap();
    assert_eq!(back.to_scalar().unwrap(), 7);
    // Truncated data from a stream is an error, not a short tensor.
    let full = npy::to_npy_bytes(&Tensor::<f32, _>::ones([4])).unwrap();
    assert!(npy::read_npy_from(&mut &full[..full.len() - 2]).is_err());
}

#[test]
fn npz_archives_read_through_a_shared_reference() {
    let mut buf = std::io::Cursor::new(Vec::new());
    // Deflated natively; stored under Miri, which reports a Tree Borrows violation inside
    // zlib-rs's deflate teardown (flate2's backend, not code of ours).
    let mut w = NpzWriter::new(&mut buf).compressed(!cfg!(miri));
    w.add("a", &Tensor::<i64, _>::arange(5)).unwrap();
    w.add("b", &Tensor::from_vec(vec![true, false], [1, 2]).unwrap())
        .unwrap();
    assert!(w.add("a", &Tensor::<i64, _>::arange(1)).is_err());
    w.finish().unwrap();
    let r = NpzReader::new(std::io::Cursor::new(buf.into_inner())).unwrap();
    assert_eq!(r.names(), vec!["a", "b"]);
    let a: Tensor<i64, Ix1> = r.read("a").unwrap();
    let b = r.read_dyn("b.npy").unwrap();
    assert_eq!(
        (a.to_vec(), b.dtype(), b.shape()),
        (vec![0, 1, 2, 3, 4], DType::Bool, &[1usize, 2][..])
    );
    assert!(r.read::<f32, Ix1>("a").is_err());
    assert!(r.read::<i64, Ix2>("a").is_err());
    assert_eq!(r.read_all().unwrap().len(), 2);
}

#[test]
fn safetensors_round_trip_and_refuse_repeated_keys() {
    let mut w = SafetensorsWriter::new();
    w.add("w", &Tensor::<f32, _>::ones([2, 2]).t()).unwrap();
    w.add("h", &Tensor::from_vec(vec![half::bf16::from_f32(0.5)], [1]).unwrap())
        .unwrap();
    w.metadata("k", "v");
    let bytes = w.to_bytes().unwrap();
    let st = from_safetensors_bytes(&bytes).unwrap();
    assert_eq!(st.metadata["k"], "v");
    let wt: Tensor<f32, Ix2> = st.tensors["w"].clone().try_into().unwrap();
    assert_eq!(wt.to_vec(), vec![1.0; 4]);
    assert!(matches!(st.tensors["h"], DynTensor::BF16(_)));
    // The same header with a key written twice.
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&bytes[8..8 + n]).unwrap().trim_end();
    let twice = header.replacen(
        "\"__metadata__\":{\"k\":\"v\"}",
        "\"__metadata__\":{\"k\":\"v\",\"k\":\"w\"}",
        1,
    );
    assert_ne!(twice, header, "the writer's header format changed");
    let mut bad = (twice.len() as u64).to_le_bytes().to_vec();
    bad.extend_from_slice(twice.as_bytes());
    bad.extend_from_slice(&bytes[8 + n..]);
    let e = from_safetensors_bytes(&bad).unwrap_err();
    assert!(e.to_string().contains("key \"k\" appears twice"), "{e}");
}

#[test]
fn readers_refuse_shapes_past_the_limits() {
    let dict = |shape: &str| {
        let d = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend_from_slice(&(d.len() as u16).to_le_bytes());
        v.extend_from_slice(d.as_bytes());
        v
    };
    assert!(npy::from_npy_bytes_dyn(&dict("(0, 9223372036854775808)")).is_err());
    assert_eq!(
        npy::from_npy_bytes_dyn(&dict("(0, 9223372036854775807)"))
            .unwrap()
            .shape(),
        &[0, isize::MAX as usize]
    );
    let json = r#"{"t":{"dtype":"F32","shape":[4294967296,4294967296,0],"data_offsets":[0,0]}}"#;
    let mut st = (json.len() as u64).to_le_bytes().to_vec();
    st.extend_from_slice(json.as_bytes());
    assert!(from_safetensors_bytes(&st).is_err());
}
