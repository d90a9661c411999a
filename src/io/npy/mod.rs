//! NumPy `.npy` files: read and write format versions 1.0, 2.0 and 3.0.
//!
//! Every dtype of [`DType`] except bf16 (which NumPy lacks) is read and written; data of
//! either byte order is read (and stored in native order); `fortran_order` files are
//! read as column-major layouts without a transpose copy, and column-major contiguous
//! tensors are written as `fortran_order: True` without a copy. Other layouts are
//! written in row-major order.
//!
//! ```
//! use ferrotensor::prelude::*;
//! use ferrotensor::io::npy;
//! let path = std::env::temp_dir().join("ferrotensor_doc_npy_module.npy");
//! let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap();
//! npy::write_npy(&path, &a).unwrap();
//! let b: Tensor<f32, Ix2> = npy::read_npy(&path).unwrap();
//! assert_eq!(b.to_vec(), a.to_vec());
//! // Unknown element type: load dynamically, then convert.
//! let d = npy::read_npy_dyn(&path).unwrap();
//! assert_eq!(d.dtype(), ferrotensor::io::DType::F32);
//! let c: Tensor<f32, IxDyn> = d.try_into().unwrap();
//! assert_eq!(c.shape(), &[2, 3]);
//! ```

mod header;

pub use header::{MAGIC, MAX_DIMS, MAX_HEADER_LEN, NpyHeader, NpyVersion};

use super::{DType, DynTensor, IoElement, with_dtype};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IxDyn, Order};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use std::io::{Read, Write};
use std::path::Path;

/// Bytes allocated up front when reading data of unknown availability from a stream;
/// beyond this the buffer grows only as data arrives.
const STREAM_PREALLOC: usize = 1 << 26;

pub(crate) fn io_err(op: &'static str, what: &str, e: std::io::Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::io(op, format!("truncated {what}: unexpected end of file")),
        std::io::ErrorKind::OutOfMemory => Error::alloc(op, format!("{what}: {e}")),
        _ => Error::io(op, format!("{what}: {e}")),
    }
}

/// Reads the prelude and header from `r`; `total` is the stream's length if known.
/// Returns the header and the number of bytes read.
fn read_header<R: Read + ?Sized>(r: &mut R, total: Option<u64>, op: &'static str) -> Result<(NpyHeader, usize)> {
    let mut buf = vec![0u8; 8];
    r.read_exact(&mut buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            Error::io(op, "truncated header: file shorter than the 8-byte magic and version")
        }
        _ => io_err(op, "header", e),
    })?;
    // Read as much of the length field as the version needs; parse_prelude checks it.
    let len_size = if buf[..6] == MAGIC[..] && buf[6] == 1 { 2 } else { 4 };
    if buf[..6] == MAGIC[..] && matches!(buf[6], 1..=3) {
        buf.resize(8 + len_size, 0);
        r.read_exact(&mut buf[8..]).map_err(|e| io_err(op, "header", e))?;
    }
    let (version, len) = header::parse_prelude(&buf, op)?;
    let end = header::prelude_len(version) + len;
    if let Some(total) = total
        && end as u64 > total
    {
        return Err(Error::io(op, format!("header length {len} exceeds file size {total}")));
    }
    buf.resize(end, 0);
    r.read_exact(&mut buf[header::prelude_len(version)..])
        .map_err(|e| io_err(op, "header", e))?;
    let (h, used) = NpyHeader::parse(&buf).map_err(|e| rename(e, op))?;
    debug_assert_eq!(used, end);
    Ok((h, end))
}

/// Replaces the operation name of an io error.
fn rename(e: Error, op: &'static str) -> Error {
    match e {
        Error::Io { msg, .. } => Error::io(op, msg),
        Error::Overflow { msg, .. } => Error::overflow(op, msg),
        other => other,
    }
}

/// Reads the data the header describes and builds the tensor.
fn read_data<T: IoElement, R: Read + ?Sized>(
    r: &mut R,
    h: &NpyHeader,
    remaining: Option<u64>,
    op: &'static str,
) -> Result<Tensor<T, IxDyn>> {
    let nbytes = h.data_len().map_err(|e| rename(e, op))?;
    let swap = h.big_endian != cfg!(target_endian = "big");
    let data = match remaining {
        Some(rem) => {
            if nbytes as u64 > rem {
                return Err(Error::io(
                    op,
                    format!(
                        "data of shape {} {} needs {nbytes} bytes, only {rem} follow the header",
                        fmt_shape(&h.shape),
                        h.dtype
                    ),
                ));
            }
            T::read_from(r, nbytes / h.dtype.size(), swap).map_err(|e| io_err(op, "data", e))?
        }
        None => {
            let mut bytes = Vec::new();
            bytes.try_reserve_exact(nbytes.min(STREAM_PREALLOC)).map_err(|_| {
                Error::alloc(
                    op,
                    format!("cannot allocate {} bytes to read data", nbytes.min(STREAM_PREALLOC)),
                )
            })?;
            r.take(nbytes as u64)
                .read_to_end(&mut bytes)
                .map_err(|e| io_err(op, "data", e))?;
            if bytes.len() != nbytes {
                return Err(Error::io(
                    op,
                    format!(
                        "truncated data: shape {} {} needs {nbytes} bytes, found {}",
                        fmt_shape(&h.shape),
                        h.dtype,
                        bytes.len()
                    ),
                ));
            }
            T::decode(&bytes, swap, op)?
        }
    };
    let order = if h.fortran_order {
        Order::ColMajor
    } else {
        Order::RowMajor
    };
    Tensor::from_vec_order(data, IxDyn::from(&h.shape[..]), order).map_err(|e| rename(e, op))
}

fn check_dtype<T: IoElement>(h: &NpyHeader, op: &'static str) -> Result<()> {
    if h.dtype != T::DTYPE {
        return Err(Error::io(
            op,
            format!(
                "file has dtype {} ('{}'), expected {}",
                h.dtype,
                NpyHeader::descr(h.dtype, h.big_endian),
                T::DTYPE
            ),
        ));
    }
    Ok(())
}

fn into_dim<T: IoElement, D: Dimension>(t: Tensor<T, IxDyn>, op: &'static str) -> Result<Tensor<T, D>> {
    let shape = fmt_shape(t.shape());
    t.into_dim::<D>().map_err(|_| {
        Error::shape(
            op,
            format!(
                "array of shape {shape} does not have rank {}",
                D::NDIM.map_or("dynamic".into(), |n| n.to_string())
            ),
        )
    })
}

fn read_dyn<R: Read + ?Sized>(r: &mut R, total: Option<u64>, op: &'static str) -> Result<DynTensor> {
    let (h, used) = read_header(r, total, op)?;
    let rem = total.map(|t| t - used as u64);
    with_dtype!(h.dtype, T => read_data::<T, _>(r, &h, rem, op).map(T::into_dyn_tensor))
}

fn read_typed<T: IoElement, D: Dimension, R: Read + ?Sized>(
    r: &mut R,
    total: Option<u64>,
    op: &'static str,
) -> Result<Tensor<T, D>> {
    let (h, used) = read_header(r, total, op)?;
    check_dtype::<T>(&h, op)?;
    let rem = total.map(|t| t - used as u64);
    into_dim(read_data::<T, _>(r, &h, rem, op)?, op)
}

fn open(path: &Path, op: &'static str) -> Result<(std::io::BufReader<std::fs::File>, u64)> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(op, format!("{}: {e}", path.display())))?;
    let len = f
        .metadata()
        .map_err(|e| Error::io(op, format!("{}: {e}", path.display())))?
        .len();
    Ok((std::io::BufReader::new(f), len))
}

/// Reads a `.npy` file whose element type is `T` and rank fits `D`; `Err` if the file
/// is malformed, or holds another dtype or rank.
///
/// ```
/// use ferrotensor::prelude::*;
/// let path = std::env::temp_dir().join("ferrotensor_doc_read_npy.npy");
/// ferrotensor::io::npy::write_npy(&path, &Tensor::<i64, _>::arange(3)).unwrap();
/// let t: Tensor<i64, Ix1> = ferrotensor::io::npy::read_npy(&path).unwrap();
/// assert_eq!(t.to_vec(), vec![0, 1, 2]);
/// assert!(ferrotensor::io::npy::read_npy::<f32, Ix1>(&path).is_err());
/// ```
pub fn read_npy<T: IoElement, D: Dimension>(path: impl AsRef<Path>) -> Result<Tensor<T, D>> {
    let (mut r, len) = open(path.as_ref(), "read_npy")?;
    read_typed(&mut r, Some(len), "read_npy")
}

/// Reads a `.npy` file of any supported dtype.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::{npy, DType};
/// let path = std::env::temp_dir().join("ferrotensor_doc_read_npy_dyn.npy");
/// npy::write_npy(&path, &Tensor::<u16, _>::zeros([2, 2])).unwrap();
/// let d = npy::read_npy_dyn(&path).unwrap();
/// assert_eq!((d.dtype(), d.shape()), (DType::U16, &[2usize, 2][..]));
/// ```
pub fn read_npy_dyn(path: impl AsRef<Path>) -> Result<DynTensor> {
    let (mut r, len) = open(path.as_ref(), "read_npy")?;
    read_dyn(&mut r, Some(len), "read_npy")
}

/// Parses `.npy` bytes of element type `T`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::npy;
/// let bytes = npy::to_npy_bytes(&Tensor::from_vec(vec![true, false], [2]).unwrap()).unwrap();
/// let t: Tensor<bool, IxDyn> = npy::from_npy_bytes(&bytes).unwrap();
/// assert_eq!(t.to_vec(), vec![true, false]);
/// assert!(npy::from_npy_bytes::<bool, IxDyn>(&bytes[..bytes.len() - 1]).is_err());
/// ```
pub fn from_npy_bytes<T: IoElement, D: Dimension>(bytes: &[u8]) -> Result<Tensor<T, D>> {
    read_typed(&mut &bytes[..], Some(bytes.len() as u64), "read_npy")
}

/// Parses `.npy` bytes of any supported dtype.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::npy;
/// let bytes = npy::to_npy_bytes(&Tensor::<f64, _>::ones([3])).unwrap();
/// assert_eq!(npy::from_npy_bytes_dyn(&bytes).unwrap().shape(), &[3]);
/// assert!(npy::from_npy_bytes_dyn(b"not a npy file").is_err());
/// ```
pub fn from_npy_bytes_dyn(bytes: &[u8]) -> Result<DynTensor> {
    read_dyn(&mut &bytes[..], Some(bytes.len() as u64), "read_npy")
}

/// Reads one `.npy` array of any supported dtype from a stream of unknown length (a
/// socket, a decompressor). Memory grows only as data arrives, so a header that claims
/// a huge shape cannot make it allocate more than the stream delivers.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::npy;
/// let bytes = npy::to_npy_bytes(&Tensor::<i8, _>::arange(4)).unwrap();
/// let d = npy::read_npy_from(&mut std::io::Cursor::new(bytes)).unwrap();
/// assert_eq!(d.size(), 4);
/// ```
pub fn read_npy_from<R: Read + ?Sized>(r: &mut R) -> Result<DynTensor> {
    read_dyn(r, None, "read_npy")
}

/// Writes a tensor to a `.npy` file (format 1.0 unless the header needs 2.0).
///
/// ```
/// use ferrotensor::prelude::*;
/// let path = std::env::temp_dir().join("ferrotensor_doc_write_npy.npy");
/// let a = Tensor::from_vec_order(vec![1, 2, 3, 4, 5, 6], [2, 3], Order::ColMajor).unwrap();
/// ferrotensor::io::npy::write_npy(&path, &a).unwrap();      // fortran_order: True, no copy
/// let b: Tensor<i32, Ix2> = ferrotensor::io::npy::read_npy(&path).unwrap();
/// assert!(b.is_f_contiguous());
/// assert_eq!(b.to_vec(), a.to_vec());
/// ```
pub fn write_npy<T: IoElement, S: Storage<Elem = T>, D: Dimension>(
    path: impl AsRef<Path>,
    t: &TensorBase<S, D>,
) -> Result<()> {
    write_npy_version(path, t, None)
}

/// Writes a tensor to a `.npy` file in a given format version (`None`: the smallest
/// that fits, as NumPy chooses).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::npy::{self, NpyVersion};
/// let path = std::env::temp_dir().join("ferrotensor_doc_write_npy_v3.npy");
/// npy::write_npy_version(&path, &Tensor::<f32, _>::ones([2]), Some(NpyVersion::V3)).unwrap();
/// assert_eq!(&std::fs::read(&path).unwrap()[6..8], &[3, 0]);
/// ```
pub fn write_npy_version<T: IoElement, S: Storage<Elem = T>, D: Dimension>(
    path: impl AsRef<Path>,
    t: &TensorBase<S, D>,
    version: Option<NpyVersion>,
) -> Result<()> {
    let path = path.as_ref();
    let f = std::fs::File::create(path).map_err(|e| Error::io("write_npy", format!("{}: {e}", path.display())))?;
    let mut w = std::io::BufWriter::new(f);
    write_npy_to(&mut w, t, version)?;
    w.flush().map_err(|e| io_err("write_npy", "write", e))
}

/// Writes a tensor in `.npy` format to any writer.
///
/// ```
/// use ferrotensor::prelude::*;
/// let mut out = Vec::new();
/// ferrotensor::io::npy::write_npy_to(&mut out, &Tensor::<u8, _>::zeros([3]), None).unwrap();
/// assert_eq!(out.len(), 128 + 3);
/// ```
pub fn write_npy_to<T: IoElement, S: Storage<Elem = T>, D: Dimension, W: Write + ?Sized>(
    w: &mut W,
    t: &TensorBase<S, D>,
    version: Option<NpyVersion>,
) -> Result<()> {
    if T::DTYPE == DType::BF16 {
        return Err(Error::value(
            "write_npy",
            "NumPy has no bfloat16 dtype; convert to float32 first",
        ));
    }
    let fortran = !t.is_contiguous() && t.is_f_contiguous();
    let header = NpyHeader::encode(T::DTYPE, fortran, t.shape(), version)?;
    w.write_all(&header).map_err(|e| io_err("write_npy", "write", e))?;
    write_elements(w, t, fortran).map_err(|e| io_err("write_npy", "write", e))
}

/// Serialises a tensor to `.npy` bytes.
///
/// ```
/// use ferrotensor::prelude::*;
/// let b = ferrotensor::io::npy::to_npy_bytes(&Tensor::<f32, _>::zeros([2])).unwrap();
/// assert_eq!(&b[..6], b"\x93NUMPY");
/// ```
pub fn to_npy_bytes<T: IoElement, S: Storage<Elem = T>, D: Dimension>(t: &TensorBase<S, D>) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_npy_to(&mut out, t, None)?;
    Ok(out)
}

/// Writes the elements little-endian: in memory order when the tensor is C- or (with
/// `fortran`) F-contiguous, else in logical row-major order through a small buffer.
pub(crate) fn write_elements<T: IoElement, S: Storage<Elem = T>, D: Dimension, W: Write + ?Sized>(
    w: &mut W,
    t: &TensorBase<S, D>,
    fortran: bool,
) -> std::io::Result<()> {
    let n = t.size();
    if n == 0 {
        return Ok(());
    }
    if t.is_contiguous() || fortran {
        let o = t.offset();
        return write_le(w, &t.buffer()[o..o + n]);
    }
    let mut chunk = Vec::with_capacity(n.min(1 << 14));
    for &x in t.iter() {
        chunk.push(x);
        if chunk.len() == chunk.capacity() {
            write_le(w, &chunk)?;
            chunk.clear();
        }
    }
    write_le(w, &chunk)
}

/// Writes elements in little-endian byte order.
pub(crate) fn write_le<T: IoElement, W: Write + ?Sized>(w: &mut W, xs: &[T]) -> std::io::Result<()> {
    if cfg!(target_endian = "little") {
        w.write_all(T::as_bytes(xs))
    } else {
        for c in xs.chunks(4096) {
            let mut b = T::as_bytes(c).to_vec();
            super::dtype::swap_bytes(&mut b, T::DTYPE.scalar_size());
            w.write_all(&b)?;
        }
        Ok(())
    }
}
