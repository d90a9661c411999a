//! The `.npy` header: magic, version, and the Python dict literal that describes the
//! array (`{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`).

use crate::error::{Error, Result};
use crate::io::DType;

/// The magic string every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// The largest header (dict literal) length accepted, in bytes. NumPy's own reader
/// refuses more than 10 000 by default; real headers are under 1 KiB.
pub const MAX_HEADER_LEN: usize = 1 << 20;
/// The most axes accepted: [`MAX_NDIM`](crate::layout::MAX_NDIM), NumPy's
/// `NPY_MAXDIMS`, the one rank limit of the whole crate.
pub const MAX_DIMS: usize = crate::layout::MAX_NDIM;

/// The `.npy` format version.
///
/// ```
/// use ferrotensor::io::npy::NpyVersion;
/// assert_eq!(NpyVersion::V2.numbers(), (2, 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NpyVersion {
    /// 1.0: 16-bit header length, latin-1 header.
    V1,
    /// 2.0: 32-bit header length, latin-1 header.
    V2,
    /// 3.0: 32-bit header length, UTF-8 header.
    V3,
}

impl NpyVersion {
    /// (major, minor).
    ///
    /// ```
    /// assert_eq!(ferrotensor::io::npy::NpyVersion::V3.numbers(), (3, 0));
    /// ```
    pub fn numbers(self) -> (u8, u8) {
        match self {
            NpyVersion::V1 => (1, 0),
            NpyVersion::V2 => (2, 0),
            NpyVersion::V3 => (3, 0),
        }
    }
    /// Size of the header-length field in bytes (2 for 1.0, else 4).
    fn len_size(self) -> usize {
        if self == NpyVersion::V1 { 2 } else { 4 }
    }
}

/// What a `.npy` header says about the array that follows it.
///
/// ```
/// use ferrotensor::io::{DType, npy::{NpyHeader, NpyVersion}};
/// let bytes = b"\x93NUMPY\x01\x00\x3b\x00{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3), }\n";
/// let (h, data_start) = NpyHeader::parse(bytes).unwrap();
/// assert_eq!(h.dtype, DType::I16);
/// assert!(h.big_endian && h.fortran_order);
/// assert_eq!(h.shape, vec![2, 3]);
/// assert_eq!(h.version, NpyVersion::V1);
/// assert_eq!(data_start, bytes.len());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyHeader {
    /// The format version.
    pub version: NpyVersion,
    /// The element type.
    pub dtype: DType,
    /// True if the data is big-endian.
    pub big_endian: bool,
    /// True if the data is in column-major (Fortran) order.
    pub fortran_order: bool,
    /// The array's shape.
    pub shape: Vec<usize>,
}

impl NpyHeader {
    /// Parses the header at the start of `bytes`; returns it and the offset where the
    /// data starts. `Err` for a bad magic string, unknown version, truncated or
    /// oversized header, malformed dict, unknown dtype, or an element count or byte
    /// size that overflows.
    ///
    /// ```
    /// use ferrotensor::io::npy::NpyHeader;
    /// let e = NpyHeader::parse(b"\x93NUMPY\x01\x00\xff\xff{").unwrap_err();
    /// assert!(e.to_string().contains("header length 65535 exceeds"));
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<(NpyHeader, usize)> {
        let (version, len) = parse_prelude(bytes, OP)?;
        let start = 8 + version.len_size();
        let end = start
            .checked_add(len)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| Error::io(OP, format!("header length {len} exceeds file size {}", bytes.len())))?;
        let header = parse_dict(&bytes[start..end], version)?;
        Ok((header, end))
    }

    /// Number of data bytes the header describes; `Err` on overflow.
    ///
    /// ```
    /// use ferrotensor::io::{DType, npy::{NpyHeader, NpyVersion}};
    /// let h = NpyHeader { version: NpyVersion::V1, dtype: DType::F64, big_endian: false,
    ///                     fortran_order: false, shape: vec![2, 3] };
    /// assert_eq!(h.data_len().unwrap(), 48);
    /// ```
    pub fn data_len(&self) -> Result<usize> {
        crate::layout::checked_size(&self.shape, OP)?
            .checked_mul(self.dtype.size())
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(|| {
                Error::overflow(
                    OP,
                    format!(
                        "data size of shape {} with {}-byte elements overflows",
                        crate::error::fmt_shape(&self.shape),
                        self.dtype.size()
                    ),
                )
            })
    }

    /// The `descr` string NumPy writes for this dtype and byte order.
    ///
    /// ```
    /// use ferrotensor::io::{DType, npy::NpyHeader};
    /// assert_eq!(NpyHeader::descr(DType::F32, false), "<f4");
    /// assert_eq!(NpyHeader::descr(DType::U8, true), "|u1");
    /// ```
    pub fn descr(dtype: DType, big_endian: bool) -> String {
        let (kind, size) = match dtype {
            DType::Bool => ('b', 1),
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => ('i', dtype.size()),
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => ('u', dtype.size()),
            DType::F16 | DType::F32 | DType::F64 => ('f', dtype.size()),
            DType::BF16 => ('V', 2),
            DType::C64 | DType::C128 => ('c', dtype.size()),
        };
        let order = if size == 1 {
            '|'
        } else if big_endian {
            '>'
        } else {
            '<'
        };
        format!("{order}{kind}{size}")
    }

    /// The complete header bytes (magic, version, length, padded dict) for writing.
    /// With `version: None` the smallest version that fits is chosen (1.0, else 2.0), as
    /// NumPy does.
    pub(crate) fn encode(
        dtype: DType,
        fortran_order: bool,
        shape: &[usize],
        version: Option<NpyVersion>,
    ) -> Result<Vec<u8>> {
        let shape_str = match shape.len() {
            1 => format!("({},)", shape[0]),
            _ => format!(
                "({})",
                shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
            ),
        };
        let dict = format!(
            "{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}",
            NpyHeader::descr(dtype, false),
            if fortran_order { "True" } else { "False" },
            shape_str
        );
        // Total length (magic + version + length field + dict + padding + '\n') is a
        // multiple of 64, as NumPy writes it.
        let padded = |len_size: usize| {
            let unpadded = 8 + len_size + dict.len() + 1;
            unpadded.div_ceil(64) * 64 - 8 - len_size
        };
        let version = version.unwrap_or(if padded(2) <= u16::MAX as usize {
            NpyVersion::V1
        } else {
            NpyVersion::V2
        });
        let hlen = padded(version.len_size());
        let mut out = Vec::with_capacity(8 + version.len_size() + hlen);
        out.extend_from_slice(MAGIC);
        let (major, minor) = version.numbers();
        out.extend_from_slice(&[major, minor]);
        if version == NpyVersion::V1 {
            let l = u16::try_from(hlen)
                .map_err(|_| Error::io("write_npy", format!("header of {hlen} bytes does not fit format 1.0")))?;
            out.extend_from_slice(&l.to_le_bytes());
        } else {
            let l = u32::try_from(hlen).map_err(|_| Error::io("write_npy", "header too long"))?;
            out.extend_from_slice(&l.to_le_bytes());
        }
        out.extend_from_slice(dict.as_bytes());
        out.resize(out.len() + hlen - dict.len() - 1, b' ');
        out.push(b'\n');
        Ok(out)
    }
}

const OP: &str = "read_npy";

/// Checks the magic and version and returns the version and the declared header
/// length. `bytes` needs only the first 12 bytes (10 for version 1.0).
pub(crate) fn parse_prelude(bytes: &[u8], op: &'static str) -> Result<(NpyVersion, usize)> {
    if bytes.len() < 8 || &bytes[..6] != MAGIC {
        let shown = &bytes[..bytes.len().min(6)];
        return Err(Error::io(
            op,
            format!("bad magic string {shown:?}, expected b\"\\x93NUMPY\" (not a .npy file?)"),
        ));
    }
    let version = match (bytes[6], bytes[7]) {
        (1, 0) => NpyVersion::V1,
        (2, 0) => NpyVersion::V2,
        (3, 0) => NpyVersion::V3,
        (a, b) => return Err(Error::io(op, format!("unsupported format version {a}.{b}"))),
    };
    let need = 8 + version.len_size();
    if bytes.len() < need {
        return Err(Error::io(
            op,
            format!("truncated header: {} bytes, the prelude needs {need}", bytes.len()),
        ));
    }
    let len = if version == NpyVersion::V1 {
        u16::from_le_bytes([bytes[8], bytes[9]]) as usize
    } else {
        u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
    };
    if len > MAX_HEADER_LEN {
        return Err(Error::io(
            op,
            format!("header length {len} exceeds the limit of {MAX_HEADER_LEN} bytes"),
        ));
    }
    Ok((version, len))
}

/// Bytes in the prelude (magic, version, length field) for `version`.
pub(crate) fn prelude_len(version: NpyVersion) -> usize {
    8 + version.len_size()
}

/// A value of the header dict.
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::io(OP, format!("malformed header: {}", msg.into()))
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }
    fn expect(&mut self, c: u8) -> Result<()> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(x) => Err(bad(format!(
                "expected '{}' at byte {}, found '{}'",
                c as char,
                self.pos,
                x.escape_ascii()
            ))),
            None => Err(bad(format!("expected '{}', found the end", c as char))),
        }
    }
    fn string(&mut self) -> Result<String> {
        let q = self.peek().ok_or_else(|| bad("expected a string, found the end"))?;
        if q != b'\'' && q != b'"' {
            return Err(bad(format!("expected a string at byte {}", self.pos)));
        }
        let start = self.pos + 1;
        let len = self.s[start..]
            .iter()
            .position(|&c| c == q)
            .ok_or_else(|| bad("unterminated string"))?;
        let raw = &self.s[start..start + len];
        if raw.contains(&b'\\') {
            return Err(bad("escape sequences in strings are not supported"));
        }
        self.pos = start + len + 1;
        std::str::from_utf8(raw)
            .map(str::to_owned)
            .map_err(|_| bad("string is not valid text"))
    }
    fn integer(&mut self) -> Result<usize> {
        self.skip_ws();
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(bad(format!("expected a non-negative integer at byte {start}")));
        }
        let digits = std::str::from_utf8(&self.s[start..self.pos]).expect("ASCII digits");
        // Python 2 era files write longs as `3L`.
        if self.s.get(self.pos) == Some(&b'L') {
            self.pos += 1;
        }
        digits
            .parse::<usize>()
            .map_err(|_| Error::overflow(OP, format!("shape entry {digits} overflows usize")))
    }
    fn value(&mut self) -> Result<Value> {
        match self.peek() {
            Some(b'\'' | b'"') => Ok(Value::Str(self.string()?)),
            Some(b'(') => {
                self.pos += 1;
                let mut dims = Vec::new();
                loop {
                    if self.peek() == Some(b')') {
                        self.pos += 1;
                        break;
                    }
                    if dims.len() == MAX_DIMS {
                        return Err(bad(format!("shape has more than {MAX_DIMS} dimensions")));
                    }
                    dims.push(self.integer()?);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b')') => {
                            // `(3)` is an int in Python, not a tuple.
                            if dims.len() == 1 {
                                return Err(bad("a one-element shape needs a trailing comma: (n,)"));
                            }
                        }
                        _ => return Err(bad("expected ',' or ')' in shape")),
                    }
                }
                Ok(Value::Tuple(dims))
            }
            Some(b'T') if self.s[self.pos..].starts_with(b"True") => {
                self.pos += 4;
                Ok(Value::Bool(true))
            }
            Some(b'F') if self.s[self.pos..].starts_with(b"False") => {
                self.pos += 5;
                Ok(Value::Bool(false))
            }
            Some(b'[') => Err(Error::io(OP, "structured dtypes (a list descr) are not supported")),
            _ => Err(bad(format!("unexpected value at byte {}", self.pos))),
        }
    }
}

/// Parses a descr string such as `<f4`, `>c16`, `|b1`, `=i8`.
pub(crate) fn parse_descr(descr: &str) -> Result<(DType, bool)> {
    let b = descr.as_bytes();
    let unknown = || Error::io(OP, format!("unknown or unsupported dtype descr '{descr}'"));
    if b.len() < 2 {
        return Err(unknown());
    }
    let (big_endian, rest) = match b[0] {
        b'<' => (false, &descr[1..]),
        b'>' => (true, &descr[1..]),
        b'|' | b'=' => (cfg!(target_endian = "big"), &descr[1..]),
        _ => (cfg!(target_endian = "big"), descr),
    };
    let dtype = match rest {
        "b1" | "?" => DType::Bool,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "f2" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        "c8" => DType::C64,
        "c16" => DType::C128,
        _ => return Err(unknown()),
    };
    Ok((dtype, big_endian))
}

fn parse_dict(raw: &[u8], version: NpyVersion) -> Result<NpyHeader> {
    let text: std::borrow::Cow<'_, str> = if version == NpyVersion::V3 {
        std::str::from_utf8(raw)
            .map_err(|e| Error::io(OP, format!("header is not valid UTF-8: {e}")))?
            .into()
    } else {
        // latin-1: every byte is the code point of the same value.
        raw.iter().map(|&b| b as char).collect::<String>().into()
    };
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    p.expect(b'{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        if p.peek() == Some(b'}') {
            p.pos += 1;
            break;
        }
        let key = p.string()?;
        p.expect(b':')?;
        let value = p.value()?;
        match (key.as_str(), value) {
            ("descr", Value::Str(s)) if descr.is_none() => descr = Some(s),
            ("fortran_order", Value::Bool(b)) if fortran.is_none() => fortran = Some(b),
            ("shape", Value::Tuple(t)) if shape.is_none() => shape = Some(t),
            ("descr" | "fortran_order" | "shape", _) => {
                return Err(bad(format!("key '{key}' is repeated or has a value of the wrong type")));
            }
            _ => return Err(bad(format!("unexpected key '{key}'"))),
        }
        match p.peek() {
            Some(b',') => p.pos += 1,
            Some(b'}') => {}
            _ => return Err(bad("expected ',' or '}' after a value")),
        }
    }
    if p.s[p.pos..].iter().any(|c| !c.is_ascii_whitespace()) {
        return Err(bad("unexpected text after the dict"));
    }
    let descr = descr.ok_or_else(|| bad("missing key 'descr'"))?;
    let (dtype, big_endian) = parse_descr(&descr)?;
    let header = NpyHeader {
        version,
        dtype,
        big_endian,
        fortran_order: fortran.ok_or_else(|| bad("missing key 'fortran_order'"))?,
        shape: shape.ok_or_else(|| bad("missing key 'shape'"))?,
    };
    header.data_len()?;
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_dict(dict: &str) -> Vec<u8> {
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        v.extend_from_slice(dict.as_bytes());
        v
    }

    #[test]
    fn parses_variants() {
        let (h, _) = NpyHeader::parse(&with_dict(
            "{\"shape\": (), \"descr\": \"<c16\", \"fortran_order\": False}",
        ))
        .unwrap();
        assert_eq!((h.dtype, h.shape.len()), (DType::C128, 0));
        let (h, _) = NpyHeader::parse(&with_dict(
            "{'descr':'|u1','fortran_order':False,'shape':(3L, 0,),}  \n",
        ))
        .unwrap();
        assert_eq!(h.shape, vec![3, 0]);
    }

    #[test]
    fn rejects_malformed() {
        for d in [
            "{'descr': '<f4', 'fortran_order': False}",
            "{'descr': '<f3', 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4)}",
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk",
            "{'descr': '<f4",
            "",
        ] {
            assert!(NpyHeader::parse(&with_dict(d)).is_err(), "{d}");
        }
    }

    #[test]
    fn encode_pads_to_64() {
        for v in [NpyVersion::V1, NpyVersion::V2, NpyVersion::V3] {
            let h = NpyHeader::encode(DType::F32, true, &[3], Some(v)).unwrap();
            assert_eq!(h.len() % 64, 0);
            let (p, end) = NpyHeader::parse(&h).unwrap();
            assert_eq!((p.version, p.fortran_order, p.shape, end), (v, true, vec![3], h.len()));
        }
    }
}
