//! The safetensors header: an 8-byte little-endian length, then a JSON object mapping
//! tensor names to `{"dtype", "shape", "data_offsets"}` plus an optional
//! `"__metadata__"` map of strings.

use crate::error::{Error, Result, fmt_shape};
use crate::io::DType;
use serde_json::Value;
use std::collections::BTreeMap;

/// The largest header accepted, in bytes (the reference implementation's limit).
pub const MAX_HEADER_LEN: u64 = 100_000_000;

pub(crate) const OP: &str = "read_safetensors";

/// Where one tensor lives in a safetensors file.
///
/// ```
/// use ferrotensor::io::{DType, safetensors::TensorInfo};
/// let i = TensorInfo { dtype: DType::F32, shape: vec![2, 2], data_offsets: (0, 16) };
/// assert_eq!(i.data_offsets.1 - i.data_offsets.0, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<usize>,
    /// Begin and end of the data, in bytes from the start of the data section.
    pub data_offsets: (usize, usize),
}

/// A parsed and validated safetensors header.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::io::safetensors::{Header, SafetensorsWriter};
/// let mut w = SafetensorsWriter::new();
/// w.add("a", &Tensor::<f32, _>::ones([3])).unwrap();
/// let bytes = w.to_bytes().unwrap();
/// let h = Header::parse(&bytes, bytes.len() as u64).unwrap();
/// assert_eq!(h.tensors["a"].shape, vec![3]);
/// assert_eq!(h.data_start % 8, 0);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The tensors by name.
    pub tensors: BTreeMap<String, TensorInfo>,
    /// The `__metadata__` map (empty if absent).
    pub metadata: BTreeMap<String, String>,
    /// Offset of the data section in the file (8 + header length).
    pub data_start: usize,
}

/// The safetensors name of a dtype, `None` if the format lacks it (complex128).
///
/// ```
/// use ferrotensor::io::{DType, safetensors::dtype_name};
/// assert_eq!(dtype_name(DType::BF16), Some("BF16"));
/// assert_eq!(dtype_name(DType::C128), None);
/// ```
pub fn dtype_name(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Bool => "BOOL",
        DType::I8 => "I8",
        DType::I16 => "I16",
        DType::I32 => "I32",
        DType::I64 => "I64",
        DType::U8 => "U8",
        DType::U16 => "U16",
        DType::U32 => "U32",
        DType::U64 => "U64",
        DType::F16 => "F16",
        DType::BF16 => "BF16",
        DType::F32 => "F32",
        DType::F64 => "F64",
        DType::C64 => "C64",
        DType::C128 => return None,
    })
}

fn parse_dtype(s: &str) -> Option<DType> {
    DType::ALL.into_iter().find(|&d| dtype_name(d) == Some(s))
}

fn bad(msg: impl Into<String>) -> Error {
    Error::io(OP, msg.into())
}

fn as_usize(v: &Value, what: &str, name: &str) -> Result<usize> {
    v.as_u64().and_then(|x| usize::try_from(x).ok()).ok_or_else(|| {
        bad(format!(
            "tensor '{name}': {what} entry {v} is not a non-negative integer that fits usize"
        ))
    })
}

fn parse_info(name: &str, v: &Value) -> Result<TensorInfo> {
    let obj = v
        .as_object()
        .ok_or_else(|| bad(format!("tensor '{name}': entry is not an object")))?;
    let field = |k: &str| {
        obj.get(k)
            .ok_or_else(|| bad(format!("tensor '{name}': missing \"{k}\"")))
    };
    let dtype_str = field("dtype")?
        .as_str()
        .ok_or_else(|| bad(format!("tensor '{name}': \"dtype\" is not a string")))?;
    let dtype = parse_dtype(dtype_str)
        .ok_or_else(|| bad(format!("tensor '{name}': unknown or unsupported dtype \"{dtype_str}\"")))?;
    let shape = field("shape")?
        .as_array()
        .ok_or_else(|| bad(format!("tensor '{name}': \"shape\" is not an array")))?
        .iter()
        .map(|d| as_usize(d, "shape", name))
        .collect::<Result<Vec<usize>>>()?;
    let offs = field("data_offsets")?
        .as_array()
        .filter(|a| a.len() == 2)
        .ok_or_else(|| {
            bad(format!(
                "tensor '{name}': \"data_offsets\" is not an array of two integers"
            ))
        })?;
    let (begin, end) = (
        as_usize(&offs[0], "data_offsets", name)?,
        as_usize(&offs[1], "data_offsets", name)?,
    );
    if end < begin {
        return Err(bad(format!(
            "tensor '{name}': data_offsets [{begin}, {end}] end before they begin"
        )));
    }
    let nbytes = crate::layout::checked_size(&shape, OP)?
        .checked_mul(dtype.size())
        .ok_or_else(|| {
            Error::overflow(
                OP,
                format!("tensor '{name}': byte size of shape {} overflows", fmt_shape(&shape)),
            )
        })?;
    if end - begin != nbytes {
        return Err(bad(format!(
            "tensor '{name}': shape {} of {} needs {nbytes} bytes, data_offsets [{begin}, {end}] hold {}",
            fmt_shape(&shape),
            dtype_str,
            end - begin
        )));
    }
    Ok(TensorInfo {
        dtype,
        shape,
        data_offsets: (begin, end),
    })
}

/// The first key that appears twice in one object of `text`, which must be valid JSON
/// (keys are compared after unescaping, so `"a"` and `"\u0061"` are the same key).
fn duplicate_key(text: &str) -> Option<String> {
    use std::collections::HashSet;
    let b = text.as_bytes();
    // One entry per open container: the keys seen so far, or `None` for an array.
    let mut open: Vec<Option<HashSet<String>>> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => open.push(Some(HashSet::new())),
            b'[' => open.push(None),
            b'}' | b']' => {
                open.pop();
            }
            b'"' => {
                let start = i;
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if let (Some(b':'), Some(Some(keys))) = (b.get(j), open.last_mut()) {
                    let key: String = serde_json::from_str(&text[start..=i]).ok()?;
                    if !keys.insert(key.clone()) {
                        return Some(key);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

impl Header {
    /// Parses and validates the header at the start of `prefix` (which must hold at
    /// least the 8-byte length and the header) of a file of `file_len` bytes. Checks
    /// the length against the file and a 100 MB limit, UTF-8, JSON, known dtypes,
    /// shape/size agreement, and that the tensors' byte ranges neither overlap nor
    /// leave holes and exactly cover the data section.
    ///
    /// ```
    /// use ferrotensor::io::safetensors::Header;
    /// let e = Header::parse(&[255; 8], 120).unwrap_err();
    /// assert!(e.to_string().contains("header length"));
    /// ```
    pub fn parse(prefix: &[u8], file_len: u64) -> Result<Header> {
        if prefix.len() < 8 {
            return Err(bad(format!(
                "truncated header: {} bytes, the header length alone needs 8",
                prefix.len()
            )));
        }
        let n = u64::from_le_bytes(prefix[..8].try_into().expect("8 bytes"));
        if n > MAX_HEADER_LEN {
            return Err(bad(format!(
                "header length {n} exceeds the limit of {MAX_HEADER_LEN} bytes"
            )));
        }
        if 8 + n > file_len {
            return Err(bad(format!("header length {n} exceeds file size {file_len}")));
        }
        let n = n as usize;
        let raw = prefix.get(8..8 + n).ok_or_else(|| {
            bad(format!(
                "truncated header: needs {} bytes, have {}",
                8 + n,
                prefix.len()
            ))
        })?;
        let text = std::str::from_utf8(raw).map_err(|e| bad(format!("header is not valid UTF-8: {e}")))?;
        if !text.starts_with('{') {
            return Err(bad("header does not start with '{'"));
        }
        let json: Value = serde_json::from_str(text).map_err(|e| bad(format!("header is not valid JSON: {e}")))?;
        // serde_json keeps the last of two equal keys; a header that names a tensor (or
        // a field) twice is ambiguous, so it is refused.
        if let Some(key) = duplicate_key(text) {
            return Err(bad(format!("key \"{key}\" appears twice in one JSON object")));
        }
        let obj = json.as_object().ok_or_else(|| bad("header is not a JSON object"))?;
        let mut tensors = BTreeMap::new();
        let mut metadata = BTreeMap::new();
        for (k, v) in obj {
            if k == "__metadata__" {
                let m = v.as_object().ok_or_else(|| bad("__metadata__ is not an object"))?;
                for (mk, mv) in m {
                    let s = mv
                        .as_str()
                        .ok_or_else(|| bad(format!("__metadata__ value of '{mk}' is not a string")))?;
                    metadata.insert(mk.clone(), s.to_string());
                }
            } else {
                tensors.insert(k.clone(), parse_info(k, v)?);
            }
        }
        let data_len = file_len - 8 - n as u64;
        let mut ranges: Vec<(&String, (usize, usize))> = tensors.iter().map(|(k, i)| (k, i.data_offsets)).collect();
        ranges.sort_by_key(|&(_, r)| r);
        let mut pos = 0usize;
        for (name, (b, e)) in ranges {
            if b < pos {
                return Err(bad(format!(
                    "tensor '{name}': data_offsets [{b}, {e}] overlap the previous tensor (ends at {pos})"
                )));
            }
            if b > pos {
                return Err(bad(format!(
                    "tensor '{name}': data_offsets [{b}, {e}] leave a hole after byte {pos}"
                )));
            }
            pos = e;
        }
        if pos as u64 != data_len {
            return Err(bad(format!(
                "tensors cover {pos} data bytes, the file has {data_len} after the header"
            )));
        }
        Ok(Header {
            tensors,
            metadata,
            data_start: 8 + n,
        })
    }
}
