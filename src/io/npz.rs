//! NumPy `.npz` archives: zip files of `.npy` members, stored (`np.savez`) or deflated
//! (`np.savez_compressed`).
//!
//! [`NpzReader`] reads only the zip directory when opened and one member per request,
//! so loading one array of a large archive reads only that array. Reading takes
//! `&self`: one reader serves any number of reads, from several threads too (they
//! take turns on the underlying reader).
//!
//! ```
//! use ferrotensor::prelude::*;
//! use ferrotensor::io::npz::{NpzReader, NpzWriter};
//! let path = std::env::temp_dir().join("ferrotensor_doc_npz_module.npz");
//! let mut w = NpzWriter::create(&path).unwrap().compressed(true);
//! w.add("weights", &Tensor::<f32, _>::ones([2, 3])).unwrap();
//! w.add("labels", &Tensor::<i64, _>::arange(4)).unwrap();
//! w.finish().unwrap();
//!
//! let r = NpzReader::open(&path).unwrap();
//! assert_eq!(r.names(), vec!["labels", "weights"]);
//! let labels: Tensor<i64, Ix1> = r.read("labels").unwrap();
//! assert_eq!(labels.to_vec(), vec![0, 1, 2, 3]);
//! assert_eq!(r.read_dyn("weights").unwrap().shape(), &[2, 3]);
//! ```

use super::npy::{self, NpyHeader, NpyVersion};
use super::{DType, DynTensor, IoElement};
use crate::error::{Error, Result};
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::sync::Mutex;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

const READ: &str = "read_npz";
const WRITE: &str = "write_npz";

fn zip_err(op: &'static str, e: zip::result::ZipError) -> Error {
    Error::io(op, format!("zip: {e}"))
}

/// A lazily read `.npz` archive.
///
/// Each member `name.npy` is the array `name`, as NumPy names it. An archive that also
/// holds a member named plain `name` (NumPy's `np.load` reads that one for the key
/// `name`) keeps both apart: the plain member is `name` and the other `name.npy`, so
/// [`NpzReader::names`] lists every member once under a distinct name.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::npz::{NpzReader, NpzWriter};
/// let mut buf = std::io::Cursor::new(Vec::new());
/// let mut w = NpzWriter::new(&mut buf);
/// w.add("x", &Tensor::<u8, _>::zeros([2])).unwrap();
/// w.finish().unwrap();
/// let r = NpzReader::new(std::io::Cursor::new(buf.into_inner())).unwrap();
/// assert!(r.read_dyn("x.npy").is_ok());                  // the member name works too
/// assert!(r.read_dyn("y").is_err());
/// ```
pub struct NpzReader<R: Read + Seek> {
    /// Locked for the duration of one member's read: reading needs the reader's cursor.
    zip: Mutex<ZipArchive<R>>,
    /// Array name to member name, one entry per member.
    members: BTreeMap<String, String>,
}

impl NpzReader<std::io::BufReader<std::fs::File>> {
    /// Opens an archive, reading only its directory.
    ///
    /// ```
    /// let e = ferrotensor::io::npz::NpzReader::open("/no/such/file.npz").err().unwrap();
    /// assert!(e.to_string().starts_with("read_npz:"));
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let f = std::fs::File::open(path).map_err(|e| Error::io(READ, format!("{}: {e}", path.display())))?;
        Self::new(std::io::BufReader::new(f))
    }
}

impl<R: Read + Seek> NpzReader<R> {
    /// Reads the directory of an archive from any seekable reader.
    ///
    /// ```
    /// let e = ferrotensor::io::npz::NpzReader::new(std::io::Cursor::new(b"junk".to_vec())).err().unwrap();
    /// assert!(e.to_string().contains("zip"));
    /// ```
    pub fn new(reader: R) -> Result<Self> {
        let zip = ZipArchive::new(reader).map_err(|e| zip_err(READ, e))?;
        let all: std::collections::HashSet<&str> = zip.file_names().collect();
        let members = zip
            .file_names()
            .map(|m| {
                let name = match m.strip_suffix(".npy") {
                    Some(stem) if !all.contains(stem) => stem,
                    _ => m,
                };
                (name.to_string(), m.to_string())
            })
            .collect();
        Ok(NpzReader {
            zip: Mutex::new(zip),
            members,
        })
    }

    /// The array names, sorted: member names without the `.npy` suffix, except where
    /// that would give the name of another member (see [`NpzReader`]).
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::npz::{NpzReader, NpzWriter};
    /// # let mut buf = std::io::Cursor::new(Vec::new());
    /// # let mut w = NpzWriter::new(&mut buf);
    /// # w.add("b", &Tensor::<u8, _>::zeros([1])).unwrap();
    /// # w.add("a", &Tensor::<u8, _>::zeros([1])).unwrap();
    /// # w.finish().unwrap();
    /// let r = NpzReader::new(std::io::Cursor::new(buf.into_inner())).unwrap();
    /// assert_eq!(r.names(), vec!["a", "b"]);
    /// ```
    pub fn names(&self) -> Vec<String> {
        self.members.keys().cloned().collect()
    }

    /// The member that holds array `name` (an array name, or a member's own name).
    fn member_name<'s>(&'s self, name: &'s str) -> Result<&'s str> {
        if let Some(m) = self.members.get(name) {
            return Ok(m);
        }
        if self.members.values().any(|m| m == name) {
            return Ok(name);
        }
        Err(Error::io(READ, format!("no array named '{name}' in the archive")))
    }

    /// Reads one array of element type `T` and rank `D`.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::npz::{NpzReader, NpzWriter};
    /// # let mut buf = std::io::Cursor::new(Vec::new());
    /// # let mut w = NpzWriter::new(&mut buf);
    /// # w.add("a", &Tensor::<f64, _>::zeros([2, 2])).unwrap();
    /// # w.finish().unwrap();
    /// let r = NpzReader::new(std::io::Cursor::new(buf.into_inner())).unwrap();
    /// let a: Tensor<f64, Ix2> = r.read("a").unwrap();
    /// assert!(r.read::<f32, Ix2>("a").is_err());
    /// ```
    pub fn read<T: IoElement, D: Dimension>(&self, name: &str) -> Result<Tensor<T, D>> {
        let d = self.read_dyn(name)?;
        let found = d.dtype();
        let shape = crate::error::fmt_shape(d.shape());
        match d.into_typed::<T>() {
            Ok(t) => t.into_dim::<D>().map_err(|_| {
                Error::shape(
                    READ,
                    format!(
                        "array '{name}' of shape {shape} does not have rank {}",
                        D::NDIM.map_or("dynamic".into(), |n| n.to_string())
                    ),
                )
            }),
            Err(_) => Err(Error::io(
                READ,
                format!("array '{name}' has dtype {found}, expected {}", T::DTYPE),
            )),
        }
    }

    /// Reads one array of any supported dtype.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::npz::{NpzReader, NpzWriter};
    /// # let mut buf = std::io::Cursor::new(Vec::new());
    /// # let mut w = NpzWriter::new(&mut buf);
    /// # w.add("a", &Tensor::<bool, _>::zeros([3])).unwrap();
    /// # w.finish().unwrap();
    /// let r = NpzReader::new(std::io::Cursor::new(buf.into_inner())).unwrap();
    /// assert_eq!(r.read_dyn("a").unwrap().dtype(), ferrotensor::io::DType::Bool);
    /// ```
    pub fn read_dyn(&self, name: &str) -> Result<DynTensor> {
        let member = self.member_name(name)?;
        // A panic while another read held the lock leaves the archive usable: each
        // read seeks to its member first.
        let mut zip = self.zip.lock().unwrap_or_else(|e| e.into_inner());
        let mut f = zip.by_name(member).map_err(|e| zip_err(READ, e))?;
        npy::read_npy_from(&mut f).map_err(|e| match e {
            Error::Io { msg, .. } => Error::io(READ, format!("array '{name}': {msg}")),
            other => other,
        })
    }

    /// Reads every array.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::npz::{NpzReader, NpzWriter};
    /// # let mut buf = std::io::Cursor::new(Vec::new());
    /// # let mut w = NpzWriter::new(&mut buf);
    /// # w.add("a", &Tensor::<bool, _>::zeros([3])).unwrap();
    /// # w.finish().unwrap();
    /// let r = NpzReader::new(std::io::Cursor::new(buf.into_inner())).unwrap();
    /// assert_eq!(r.read_all().unwrap().len(), 1);
    /// ```
    pub fn read_all(&self) -> Result<BTreeMap<String, DynTensor>> {
        let mut out = BTreeMap::new();
        for name in self.names() {
            let t = self.read_dyn(&name)?;
            out.insert(name, t);
        }
        Ok(out)
    }
}

/// Writes a `.npz` archive, one array at a time.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::npz::NpzWriter;
/// let path = std::env::temp_dir().join("ferrotensor_doc_npz_writer.npz");
/// let mut w = NpzWriter::create(&path).unwrap();
/// w.add("a", &Tensor::<f32, _>::zeros([2])).unwrap();
/// assert!(w.add("a", &Tensor::<f32, _>::zeros([2])).is_err());   // names are unique
/// w.finish().unwrap();
/// ```
pub struct NpzWriter<W: Write + Seek> {
    zip: ZipWriter<W>,
    compressed: bool,
    names: std::collections::HashSet<String>,
}

impl NpzWriter<std::io::BufWriter<std::fs::File>> {
    /// Creates (or truncates) an archive file.
    ///
    /// ```
    /// assert!(ferrotensor::io::npz::NpzWriter::create("/no/such/dir/x.npz").is_err());
    /// ```
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let f = std::fs::File::create(path).map_err(|e| Error::io(WRITE, format!("{}: {e}", path.display())))?;
        Ok(Self::new(std::io::BufWriter::new(f)))
    }
}

impl<W: Write + Seek> NpzWriter<W> {
    /// An archive writer over any seekable writer; members are stored uncompressed
    /// (like `np.savez`) unless [`NpzWriter::compressed`] is set.
    ///
    /// ```
    /// let w = ferrotensor::io::npz::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// assert!(w.finish().is_ok());
    /// ```
    pub fn new(writer: W) -> Self {
        NpzWriter {
            zip: ZipWriter::new(writer),
            compressed: false,
            names: Default::default(),
        }
    }

    /// Deflate the members written from now on (like `np.savez_compressed`).
    ///
    /// ```
    /// let w = ferrotensor::io::npz::NpzWriter::new(std::io::Cursor::new(Vec::new())).compressed(true);
    /// assert!(w.finish().is_ok());
    /// ```
    pub fn compressed(mut self, yes: bool) -> Self {
        self.compressed = yes;
        self
    }

    /// Adds an array as member `name.npy`; `Err` if the name was used already.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut w = ferrotensor::io::npz::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// w.add("t", &Tensor::<i16, _>::zeros([2, 2]).t()).unwrap();
    /// w.finish().unwrap();
    /// ```
    pub fn add<T: IoElement, S: Storage<Elem = T>, D: Dimension>(
        &mut self,
        name: &str,
        t: &TensorBase<S, D>,
    ) -> Result<()> {
        if !self.names.insert(name.to_string()) {
            return Err(Error::value(WRITE, format!("array name '{name}' is used twice")));
        }
        if T::DTYPE == DType::BF16 {
            return Err(Error::value(
                WRITE,
                "NumPy has no bfloat16 dtype; convert to float32 first",
            ));
        }
        let nbytes = (t.size() as u64).saturating_mul(T::DTYPE.size() as u64);
        let options = SimpleFileOptions::default()
            .compression_method(if self.compressed {
                CompressionMethod::Deflated
            } else {
                CompressionMethod::Stored
            })
            .large_file(nbytes >= (1 << 32) - (1 << 20));
        self.zip
            .start_file(format!("{name}.npy"), options)
            .map_err(|e| zip_err(WRITE, e))?;
        let fortran = !t.is_contiguous() && t.is_f_contiguous();
        let header = NpyHeader::encode(T::DTYPE, fortran, t.shape(), None::<NpyVersion>)?;
        self.zip
            .write_all(&header)
            .map_err(|e| npy::io_err(WRITE, "write", e))?;
        npy::write_elements(&mut self.zip, t, fortran).map_err(|e| npy::io_err(WRITE, "write", e))
    }

    /// Adds a dynamically typed array.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use ferrotensor::io::DynTensor;
    /// let mut w = ferrotensor::io::npz::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// w.add_dyn("d", &DynTensor::from(Tensor::<u32, _>::zeros([2]))).unwrap();
    /// w.finish().unwrap();
    /// ```
    pub fn add_dyn(&mut self, name: &str, t: &DynTensor) -> Result<()> {
        super::dyn_tensor::each_variant!(t, x => self.add(name, x))
    }

    /// Writes the zip directory and returns the writer.
    ///
    /// ```
    /// let w = ferrotensor::io::npz::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// let bytes = w.finish().unwrap().into_inner();
    /// assert_eq!(&bytes[..4], b"PK\x05\x06");                   // an empty archive
    /// ```
    pub fn finish(self) -> Result<W> {
        self.zip.finish().map_err(|e| zip_err(WRITE, e))
    }
}
