//! Memory-mapped safetensors: tensors as views borrowed from the map, no copy.

use super::decode_one;
use super::header::{Header, TensorInfo};
use crate::error::{Error, Result};
use crate::io::{DynTensor, IoElement};
use crate::layout::{IxDyn, Layout, Order};
use crate::storage::ViewRepr;
use crate::tensor::{Tensor, TensorBase, TensorView};
use std::collections::BTreeMap;
use std::path::Path;

const OP: &str = "mmap_safetensors";

/// A safetensors file mapped into memory. Opening reads and validates only the
/// header; [`MmapSafetensors::tensor`] returns a view whose elements are the mapped
/// file's bytes, so pages are read from disk only when touched.
///
/// **Alignment:** a view needs the tensor's data to be aligned for `T` in memory. The
/// map starts on a page boundary, so this holds when the data's file offset is a
/// multiple of the element's alignment, as in every file written by this crate or by
/// the reference implementation (which pad the header to 8 bytes and order tensors by
/// element size). When it does not hold (or on a big-endian machine, or for BOOL data
/// holding bytes other than 0 and 1), `tensor` returns `Err` with a message naming the
/// offset; [`MmapSafetensors::tensor_owned`] and [`MmapSafetensors::tensor_dyn`] copy
/// and work for any file.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter};
/// let path = std::env::temp_dir().join("ferrotensor_doc_mmap.safetensors");
/// let mut w = SafetensorsWriter::new();
/// w.add("emb", &Tensor::<f32, _>::ones([4, 2])).unwrap();
/// w.metadata("model", "demo");
/// w.write(&path).unwrap();
///
/// // SAFETY: nothing modifies the file while it is mapped.
/// let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
/// assert_eq!(st.metadata()["model"], "demo");
/// let emb: TensorView<'_, f32> = st.tensor("emb").unwrap();   // borrowed from the map
/// assert_eq!(emb.shape(), &[4, 2]);
/// assert_eq!(emb.iter().sum::<f32>(), 8.0);
/// assert!(st.tensor::<f64>("emb").is_err());                 // wrong dtype
/// ```
pub struct MmapSafetensors {
    map: memmap2::Mmap,
    header: Header,
}

impl MmapSafetensors {
    /// Maps the file and validates its header.
    ///
    /// # Safety
    /// The file must not be modified (by this or another process) while the map or any
    /// view borrowed from it is alive: the views would see the bytes change under them,
    /// which Rust's shared references forbid. This is the contract of every file
    /// memory map (`memmap2::Mmap::map`).
    ///
    /// ```
    /// let e = unsafe { ferrotensor::io::safetensors::MmapSafetensors::open("/no/such.safetensors") };
    /// assert!(e.is_err());
    /// ```
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let f = std::fs::File::open(path).map_err(|e| Error::io(OP, format!("{}: {e}", path.display())))?;
        // SAFETY: the caller guarantees the file is not modified while mapped (see the
        // function's contract); the map is read-only.
        let map =
            unsafe { memmap2::Mmap::map(&f) }.map_err(|e| Error::io(OP, format!("{}: mmap: {e}", path.display())))?;
        let header = Header::parse(&map, map.len() as u64)?;
        Ok(MmapSafetensors { map, header })
    }

    /// The validated header.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter};
    /// # let path = std::env::temp_dir().join("ferrotensor_doc_mmap_header.safetensors");
    /// # let mut w = SafetensorsWriter::new();
    /// # w.add("a", &Tensor::<u8, _>::zeros([3])).unwrap();
    /// # w.write(&path).unwrap();
    /// let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
    /// assert_eq!(st.header().tensors["a"].data_offsets, (0, 3));
    /// ```
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The tensor names, sorted.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter};
    /// # let path = std::env::temp_dir().join("ferrotensor_doc_mmap_names.safetensors");
    /// # let mut w = SafetensorsWriter::new();
    /// # w.add("b", &Tensor::<u8, _>::zeros([3])).unwrap();
    /// # w.add("a", &Tensor::<u8, _>::zeros([3])).unwrap();
    /// # w.write(&path).unwrap();
    /// let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
    /// assert_eq!(st.names(), vec!["a", "b"]);
    /// ```
    pub fn names(&self) -> Vec<&str> {
        self.header.tensors.keys().map(String::as_str).collect()
    }

    /// The `__metadata__` map.
    ///
    /// ```
    /// # use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter};
    /// # let path = std::env::temp_dir().join("ferrotensor_doc_mmap_meta.safetensors");
    /// # SafetensorsWriter::new().metadata("k", "v").write(&path).unwrap();
    /// let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
    /// assert_eq!(st.metadata()["k"], "v");
    /// ```
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.header.metadata
    }

    /// Dtype, shape and offsets of one tensor.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter};
    /// # let path = std::env::temp_dir().join("ferrotensor_doc_mmap_info.safetensors");
    /// # let mut w = SafetensorsWriter::new();
    /// # w.add("a", &Tensor::<i16, _>::zeros([3, 1])).unwrap();
    /// # w.write(&path).unwrap();
    /// let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
    /// assert_eq!(st.info("a").unwrap().shape, vec![3, 1]);
    /// assert!(st.info("zz").is_none());
    /// ```
    pub fn info(&self, name: &str) -> Option<&TensorInfo> {
        self.header.tensors.get(name)
    }

    fn bytes(&self, name: &str) -> Result<(&TensorInfo, &[u8])> {
        let info = self
            .info(name)
            .ok_or_else(|| Error::value(OP, format!("no tensor named '{name}'")))?;
        let (b, e) = info.data_offsets;
        let start = self.header.data_start;
        // The header check guarantees the ranges lie inside the map.
        Ok((info, &self.map[start + b..start + e]))
    }

    /// A view of one tensor borrowed from the map (no copy). `Err` if the name is
    /// unknown, the dtype is not `T`, the data is misaligned for `T` (the message names
    /// the offset; use [`MmapSafetensors::tensor_owned`] to copy), BOOL data holds a
    /// byte other than 0 or 1, or the machine is big-endian.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter};
    /// # let path = std::env::temp_dir().join("ferrotensor_doc_mmap_tensor.safetensors");
    /// # let mut w = SafetensorsWriter::new();
    /// # w.add("a", &Tensor::<i64, _>::arange(6).into_shape([2, 3]).unwrap()).unwrap();
    /// # w.write(&path).unwrap();
    /// let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
    /// let a = st.tensor::<i64>("a").unwrap();
    /// assert_eq!(a.to_vec(), vec![0, 1, 2, 3, 4, 5]);
    /// ```
    pub fn tensor<T: IoElement>(&self, name: &str) -> Result<TensorView<'_, T, IxDyn>> {
        let (info, bytes) = self.bytes(name)?;
        if info.dtype != T::DTYPE {
            return Err(Error::value(
                OP,
                format!("tensor '{name}' has dtype {}, expected {}", info.dtype, T::DTYPE),
            ));
        }
        if cfg!(target_endian = "big") && info.dtype.scalar_size() > 1 {
            return Err(Error::value(
                OP,
                format!(
                    "tensor '{name}': little-endian data cannot be viewed on a big-endian machine; use tensor_owned"
                ),
            ));
        }
        let elems: &[T] = if bytes.is_empty() {
            &[]
        } else {
            T::cast_bytes(bytes).ok_or_else(|| {
                let off = self.header.data_start + info.data_offsets.0;
                if !(bytes.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>()) {
                    Error::value(
                        OP,
                        format!(
                            "tensor '{name}' starts at file offset {off}, not aligned to {} bytes for {}; \
                             cannot view it without a copy (use tensor_owned)",
                            std::mem::align_of::<T>(),
                            T::DTYPE
                        ),
                    )
                } else {
                    Error::value(OP, format!("tensor '{name}': BOOL data holds bytes other than 0 and 1"))
                }
            })?
        };
        let layout = Layout::new_order(IxDyn::from(&info.shape[..]), Order::RowMajor)?;
        TensorBase::from_parts(ViewRepr(elems), layout, OP)
    }

    /// An owned copy of one tensor of element type `T` (works for any alignment).
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter};
    /// # let path = std::env::temp_dir().join("ferrotensor_doc_mmap_owned.safetensors");
    /// # let mut w = SafetensorsWriter::new();
    /// # w.add("a", &Tensor::<u32, _>::zeros([2])).unwrap();
    /// # w.write(&path).unwrap();
    /// let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
    /// let a: Tensor<u32> = st.tensor_owned("a").unwrap();
    /// assert_eq!(a.to_vec(), vec![0, 0]);
    /// ```
    pub fn tensor_owned<T: IoElement>(&self, name: &str) -> Result<Tensor<T, IxDyn>> {
        self.tensor_dyn(name)?.try_into()
    }

    /// An owned copy of one tensor of any dtype.
    ///
    /// ```
    /// # use ferrotensor::prelude::*;
    /// # use ferrotensor::io::safetensors::{MmapSafetensors, SafetensorsWriter};
    /// # let path = std::env::temp_dir().join("ferrotensor_doc_mmap_dyn.safetensors");
    /// # let mut w = SafetensorsWriter::new();
    /// # w.add("a", &Tensor::<half::f16, _>::zeros([2])).unwrap();
    /// # w.write(&path).unwrap();
    /// let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
    /// assert_eq!(st.tensor_dyn("a").unwrap().dtype(), ferrotensor::io::DType::F16);
    /// ```
    pub fn tensor_dyn(&self, name: &str) -> Result<DynTensor> {
        let (info, bytes) = self.bytes(name)?;
        decode_one(info, bytes)
    }
}
