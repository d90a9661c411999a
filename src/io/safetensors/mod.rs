//! Hugging Face safetensors files: read, write, and memory-map without copying.
//!
//! Own implementation of the format: an 8-byte little-endian header length, a JSON
//! header (`dtype`, `shape`, `data_offsets` per tensor, optional `__metadata__`
//! string map), then the little-endian, row-major data of every tensor, back to back.
//! Supported dtypes: BOOL, U8…U64, I8…I64, F16, BF16, F32, F64 and C64.
//!
//! ```
//! use ferrotensor::prelude::*;
//! use ferrotensor::io::safetensors::{read_safetensors, SafetensorsWriter};
//! let path = std::env::temp_dir().join("ferrotensor_doc_safetensors_module.safetensors");
//! let mut w = SafetensorsWriter::new();
//! w.add("w", &Tensor::<f32, _>::ones([2, 2])).unwrap();
//! w.add("step", &Tensor::scalar(7i64)).unwrap();
//! w.metadata("format", "pt");
//! w.write(&path).unwrap();
//!
//! let st = read_safetensors(&path).unwrap();
//! assert_eq!(st.metadata["format"], "pt");
//! let wt: Tensor<f32, Ix2> = st.tensors["w"].clone().try_into().unwrap();
//! assert_eq!(wt.to_vec(), vec![1.0; 4]);
//! ```

mod header;
mod mmap;

pub use header::{Header, MAX_HEADER_LEN, TensorInfo, dtype_name};
pub use mmap::MmapSafetensors;

use super::npy::{io_err, write_elements};
use super::{DType, DynTensor, IoElement, with_dtype};
use crate::error::{Error, Result};
use crate::layout::{Dimension, IxDyn};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use header::OP;
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The content of a safetensors file, loaded into owned tensors.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::safetensors::{from_safetensors_bytes, SafetensorsWriter};
/// let mut w = SafetensorsWriter::new();
/// w.add("x", &Tensor::<u8, _>::zeros([3])).unwrap();
/// let st = from_safetensors_bytes(&w.to_bytes().unwrap()).unwrap();
/// assert_eq!(st.tensors["x"].shape(), &[3]);
/// assert!(st.metadata.is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct Safetensors {
    /// The tensors by name.
    pub tensors: BTreeMap<String, DynTensor>,
    /// The `__metadata__` map (empty if absent).
    pub metadata: BTreeMap<String, String>,
}

impl Safetensors {
    /// Takes one tensor out as a typed tensor; `Err` if absent or of another dtype or
    /// rank.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::io::safetensors::{from_safetensors_bytes, SafetensorsWriter};
    /// let mut w = SafetensorsWriter::new();
    /// w.add("x", &Tensor::<i32, _>::arange(3)).unwrap();
    /// let mut st = from_safetensors_bytes(&w.to_bytes().unwrap()).unwrap();
    /// let x: Tensor<i32, Ix1> = st.take("x").unwrap();
    /// assert_eq!(x.to_vec(), vec![0, 1, 2]);
    /// assert!(st.take::<i32, Ix1>("x").is_err());
    /// ```
    pub fn take<T: IoElement, D: Dimension>(&mut self, name: &str) -> Result<Tensor<T, D>> {
        let d = self
            .tensors
            .remove(name)
            .ok_or_else(|| Error::value(OP, format!("no tensor named '{name}'")))?;
        d.try_into()
    }
}

fn decode_one(info: &TensorInfo, bytes: &[u8]) -> Result<DynTensor> {
    let swap = cfg!(target_endian = "big");
    with_dtype!(info.dtype, T => {
        let data = <T as IoElement>::decode(bytes, swap, OP)?;
        Tensor::from_vec(data, IxDyn::from(&info.shape[..])).map(T::into_dyn_tensor)
    })
}

/// Reads a whole safetensors file into owned tensors (one copy of each tensor's
/// bytes; nothing else is buffered). `Err` for any malformed file.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::safetensors::{read_safetensors, SafetensorsWriter};
/// let path = std::env::temp_dir().join("ferrotensor_doc_read_safetensors.safetensors");
/// let mut w = SafetensorsWriter::new();
/// w.add("b", &Tensor::from_vec(vec![true, false], [2]).unwrap()).unwrap();
/// w.write(&path).unwrap();
/// let st = read_safetensors(&path).unwrap();
/// assert_eq!(st.tensors["b"].dtype(), ferrotensor::io::DType::Bool);
/// std::fs::write(&path, b"\x10\0\0\0\0\0\0\0{}").unwrap();
/// assert!(read_safetensors(&path).is_err());
/// ```
pub fn read_safetensors(path: impl AsRef<Path>) -> Result<Safetensors> {
    let path = path.as_ref();
    let ferr = |e: std::io::Error| Error::io(OP, format!("{}: {e}", path.display()));
    let mut f = std::io::BufReader::new(std::fs::File::open(path).map_err(ferr)?);
    let file_len = f.get_ref().metadata().map_err(ferr)?.len();
    let mut prefix = vec![0u8; 8];
    f.read_exact(&mut prefix).map_err(|_| {
        Error::io(
            OP,
            format!("truncated header: file of {file_len} bytes is shorter than 8"),
        )
    })?;
    let n = u64::from_le_bytes(prefix[..8].try_into().expect("8 bytes"));
    if n <= MAX_HEADER_LEN && 8 + n <= file_len {
        prefix.resize(8 + n as usize, 0);
        f.read_exact(&mut prefix[8..]).map_err(|e| io_err(OP, "header", e))?;
    }
    let header = Header::parse(&prefix, file_len)?;
    let mut by_offset: Vec<(&String, &TensorInfo)> = header.tensors.iter().collect();
    by_offset.sort_by_key(|(_, i)| i.data_offsets);
    let mut tensors = BTreeMap::new();
    let mut buf = Vec::new();
    f.seek(SeekFrom::Start(header.data_start as u64))
        .map_err(|e| io_err(OP, "seek", e))?;
    for (name, info) in by_offset {
        let need = info.data_offsets.1 - info.data_offsets.0;
        buf.try_reserve_exact(need.saturating_sub(buf.len())).map_err(|_| {
            Error::alloc(
                OP,
                format!("tensor '{name}': cannot allocate {need} bytes to read its data"),
            )
        })?;
        buf.resize(need, 0);
        f.read_exact(&mut buf).map_err(|e| io_err(OP, "data", e))?;
        tensors.insert(name.clone(), decode_one(info, &buf)?);
    }
    Ok(Safetensors {
        tensors,
        metadata: header.metadata,
    })
}

/// Parses safetensors bytes into owned tensors.
///
/// ```
/// let e = ferrotensor::io::safetensors::from_safetensors_bytes(b"\x02\0\0\0\0\0\0\0{}").unwrap();
/// assert!(e.tensors.is_empty());
/// assert!(ferrotensor::io::safetensors::from_safetensors_bytes(b"\x02\0\0\0\0\0\0\0[]").is_err());
/// ```
pub fn from_safetensors_bytes(bytes: &[u8]) -> Result<Safetensors> {
    let header = Header::parse(bytes, bytes.len() as u64)?;
    let data = &bytes[header.data_start..];
    let mut tensors = BTreeMap::new();
    for (name, info) in &header.tensors {
        let (b, e) = info.data_offsets;
        tensors.insert(name.clone(), decode_one(info, &data[b..e])?);
    }
    Ok(Safetensors {
        tensors,
        metadata: header.metadata,
    })
}

/// Collects tensors and metadata, then writes a safetensors file.
///
/// Tensors are stored by decreasing element size, then by name (as the reference
/// implementation does), and the header is padded with spaces to a multiple of 8
/// bytes, so every tensor's data is aligned to its element size in the file and in a
/// memory map of it. Any layout is accepted and written row-major.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::safetensors::SafetensorsWriter;
/// let mut w = SafetensorsWriter::new();
/// w.add("t", &Tensor::<f64, _>::zeros([2, 3]).t()).unwrap();
/// assert!(w.add("t", &Tensor::<f64, _>::zeros([1])).is_err());            // duplicate
/// assert!(w.add("__metadata__", &Tensor::<f64, _>::zeros([1])).is_err()); // reserved
/// assert_eq!(w.to_bytes().unwrap().len() % 8, 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct SafetensorsWriter {
    tensors: BTreeMap<String, Entry>,
    metadata: BTreeMap<String, String>,
}

const WRITE: &str = "write_safetensors";

/// A tensor waiting to be written: dtype, shape, little-endian row-major bytes.
type Entry = (DType, Vec<usize>, Vec<u8>);

impl SafetensorsWriter {
    /// An empty writer.
    ///
    /// ```
    /// let w = ferrotensor::io::safetensors::SafetensorsWriter::new();
    /// assert_eq!(w.to_bytes().unwrap(), b"\x08\0\0\0\0\0\0\0{}      ");
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tensor (its bytes are copied now); `Err` for a repeated or reserved name
    /// or a dtype the format lacks (complex128).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut w = ferrotensor::io::safetensors::SafetensorsWriter::new();
    /// w.add("bf", &Tensor::<half::bf16, _>::zeros([2])).unwrap();
    /// assert!(w.add("c", &Tensor::<num_complex::Complex<f64>, _>::zeros([2])).is_err());
    /// ```
    pub fn add<T: IoElement, S: Storage<Elem = T>, D: Dimension>(
        &mut self,
        name: &str,
        t: &TensorBase<S, D>,
    ) -> Result<&mut Self> {
        if name == "__metadata__" || self.tensors.contains_key(name) {
            return Err(Error::value(
                WRITE,
                format!("tensor name '{name}' is reserved or used twice"),
            ));
        }
        if dtype_name(T::DTYPE).is_none() {
            return Err(Error::value(WRITE, format!("safetensors has no {} dtype", T::DTYPE)));
        }
        let mut bytes = Vec::with_capacity(crate::layout::byte_size::<T>(t.size())?);
        write_elements(&mut bytes, t, false).map_err(|e| io_err(WRITE, "write", e))?;
        self.tensors
            .insert(name.to_string(), (T::DTYPE, t.shape().to_vec(), bytes));
        Ok(self)
    }

    /// Adds a dynamically typed tensor.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::io::DynTensor;
    /// let mut w = ferrotensor::io::safetensors::SafetensorsWriter::new();
    /// w.add_dyn("d", &DynTensor::from(Tensor::<i8, _>::zeros([2]))).unwrap();
    /// ```
    pub fn add_dyn(&mut self, name: &str, t: &DynTensor) -> Result<&mut Self> {
        super::dyn_tensor::each_variant!(t, x => self.add(name, x))
    }

    /// Sets a `__metadata__` entry.
    ///
    /// ```
    /// let mut w = ferrotensor::io::safetensors::SafetensorsWriter::new();
    /// w.metadata("format", "pt");
    /// assert!(String::from_utf8(w.to_bytes().unwrap()).unwrap().contains("\"format\":\"pt\""));
    /// ```
    pub fn metadata(&mut self, key: &str, value: &str) -> &mut Self {
        self.metadata.insert(key.to_string(), value.to_string());
        self
    }

    /// The tensors in file order: decreasing element size, then name.
    fn ordered(&self) -> Vec<(&String, &Entry)> {
        let mut v: Vec<_> = self.tensors.iter().collect();
        v.sort_by(|a, b| b.1.0.size().cmp(&a.1.0.size()).then(a.0.cmp(b.0)));
        v
    }

    fn header_bytes(&self) -> Vec<u8> {
        let mut obj = serde_json::Map::new();
        if !self.metadata.is_empty() {
            let m = self
                .metadata
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            obj.insert("__metadata__".into(), serde_json::Value::Object(m));
        }
        let mut pos = 0usize;
        for (name, (dtype, shape, bytes)) in self.ordered() {
            let info = serde_json::json!({
                "dtype": dtype_name(*dtype).expect("checked in add"),
                "shape": shape,
                "data_offsets": [pos, pos + bytes.len()],
            });
            pos += bytes.len();
            obj.insert(name.clone(), info);
        }
        let mut text = serde_json::Value::Object(obj).to_string().into_bytes();
        text.resize(text.len().div_ceil(8) * 8, b' ');
        text
    }

    /// Writes the file to any writer.
    ///
    /// ```
    /// let mut out = Vec::new();
    /// ferrotensor::io::safetensors::SafetensorsWriter::new().write_to(&mut out).unwrap();
    /// assert_eq!(out.len(), 16);
    /// ```
    pub fn write_to<W: Write + ?Sized>(&self, w: &mut W) -> Result<()> {
        let header = self.header_bytes();
        let werr = |e| io_err(WRITE, "write", e);
        w.write_all(&(header.len() as u64).to_le_bytes()).map_err(werr)?;
        w.write_all(&header).map_err(werr)?;
        for (_, (_, _, bytes)) in self.ordered() {
            w.write_all(bytes).map_err(werr)?;
        }
        Ok(())
    }

    /// The file as bytes.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut w = ferrotensor::io::safetensors::SafetensorsWriter::new();
    /// w.add("a", &Tensor::<u16, _>::zeros([4])).unwrap();
    /// assert!(w.to_bytes().unwrap().ends_with(&[0u8; 8]));
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_to(&mut out)?;
        Ok(out)
    }

    /// Writes the file to `path`.
    ///
    /// ```
    /// let path = std::env::temp_dir().join("ferrotensor_doc_st_write.safetensors");
    /// ferrotensor::io::safetensors::SafetensorsWriter::new().write(&path).unwrap();
    /// assert_eq!(std::fs::metadata(&path).unwrap().len(), 16);
    /// ```
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let f = std::fs::File::create(path).map_err(|e| Error::io(WRITE, format!("{}: {e}", path.display())))?;
        let mut w = std::io::BufWriter::new(f);
        self.write_to(&mut w)?;
        w.flush().map_err(|e| io_err(WRITE, "write", e))
    }
}
