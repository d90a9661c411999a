//! The crate's error type.
//!
//! Every fallible operation returns [`Result`], whose error names the operation and the
//! shapes involved, so a failure can be understood without a debugger.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::<f64, _>::zeros([2, 3]);
//! let err = a.try_slice(s![5]).unwrap_err();
//! assert!(err.to_string().contains("slice"));
//! ```

use std::fmt;

/// The error of every fallible ferrotensor operation.
///
/// Each variant carries the name of the operation that failed and a message that
/// names the shapes (or indices, axes, sizes) involved.
///
/// ```
/// use ferrotensor::Error;
/// let e = Error::shape("matmul", "shapes (2, 3) and (4, 5) are not aligned: 3 != 4");
/// assert_eq!(e.to_string(), "matmul: shapes (2, 3) and (4, 5) are not aligned: 3 != 4");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Shapes that do not fit the operation (mismatch, not broadcastable, wrong size).
    #[error("{op}: {msg}")]
    Shape {
        /// The operation.
        op: &'static str,
        /// What was wrong, naming the shapes.
        msg: String,
    },
    /// An index out of range.
    #[error("{op}: {msg}")]
    Index {
        /// The operation.
        op: &'static str,
        /// What was wrong, naming the index and the shape.
        msg: String,
    },
    /// An axis out of range or repeated.
    #[error("{op}: {msg}")]
    Axis {
        /// The operation.
        op: &'static str,
        /// What was wrong, naming the axis and the rank.
        msg: String,
    },
    /// A size or byte-count computation that would overflow `usize`/`isize`.
    #[error("{op}: {msg}")]
    Overflow {
        /// The operation.
        op: &'static str,
        /// What overflowed.
        msg: String,
    },
    /// A value that the operation cannot take (zero step, empty input, zero divisor, …).
    #[error("{op}: {msg}")]
    Value {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        msg: String,
    },
    /// A compute device refused the operation: no adapter, operands on different
    /// devices, an element type the device lacks, out of device memory, device lost.
    #[error("{op}: {msg}")]
    Device {
        /// The operation.
        op: &'static str,
        /// What was wrong, naming the shapes and the devices.
        msg: String,
    },
    /// Reading or writing a file or byte stream failed, or its content is malformed.
    #[error("{op}: {msg}")]
    Io {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        msg: String,
    },
}

impl Error {
    /// A [`Error::Shape`] error.
    ///
    /// ```
    /// let e = ferrotensor::Error::shape("add", "shapes (2,) and (3,) differ");
    /// assert!(e.to_string().starts_with("add:"));
    /// ```
    pub fn shape(op: &'static str, msg: impl Into<String>) -> Self {
        Error::Shape { op, msg: msg.into() }
    }
    /// An [`Error::Index`] error.
    ///
    /// ```
    /// let e = ferrotensor::Error::index("get", "index 5 is out of bounds for axis 0 with size 3");
    /// assert!(e.to_string().contains("out of bounds"));
    /// ```
    pub fn index(op: &'static str, msg: impl Into<String>) -> Self {
        Error::Index { op, msg: msg.into() }
    }
    /// An [`Error::Axis`] error.
    ///
    /// ```
    /// let e = ferrotensor::Error::axis("sum", "axis 3 is out of bounds for array of dimension 2");
    /// assert!(e.to_string().starts_with("sum:"));
    /// ```
    pub fn axis(op: &'static str, msg: impl Into<String>) -> Self {
        Error::Axis { op, msg: msg.into() }
    }
    /// An [`Error::Overflow`] error.
    ///
    /// ```
    /// let e = ferrotensor::Error::overflow("zeros", "element count overflows usize");
    /// assert!(e.to_string().contains("overflow"));
    /// ```
    pub fn overflow(op: &'static str, msg: impl Into<String>) -> Self {
        Error::Overflow { op, msg: msg.into() }
    }
    /// An [`Error::Value`] error.
    ///
    /// ```
    /// let e = ferrotensor::Error::value("slice", "slice step cannot be zero");
    /// assert!(e.to_string().contains("zero"));
    /// ```
    pub fn value(op: &'static str, msg: impl Into<String>) -> Self {
        Error::Value { op, msg: msg.into() }
    }
    /// An [`Error::Io`] error.
    ///
    /// ```
    /// let e = ferrotensor::Error::io("read_npy", "bad magic string");
    /// assert!(e.to_string().contains("magic"));
    /// ```
    pub fn io(op: &'static str, msg: impl Into<String>) -> Self {
        Error::Io { op, msg: msg.into() }
    }
    /// An [`Error::Device`] error.
    ///
    /// ```
    /// let e = ferrotensor::Error::device("add", "operands are on different devices");
    /// assert!(e.to_string().starts_with("add:"));
    /// ```
    pub fn device(op: &'static str, msg: impl Into<String>) -> Self {
        Error::Device { op, msg: msg.into() }
    }
}

/// `std::result::Result` with [`Error`] as the default error type.
///
/// ```
/// use ferrotensor::Result;
/// fn f() -> Result<i32, String> { Ok(1) }
/// assert_eq!(f(), Ok(1));
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Formats a shape the way NumPy does: `(2, 3)`, `(5,)`, `()`.
///
/// ```
/// assert_eq!(ferrotensor::error::fmt_shape(&[2, 3]), "(2, 3)");
/// assert_eq!(ferrotensor::error::fmt_shape(&[5]), "(5,)");
/// assert_eq!(ferrotensor::error::fmt_shape::<usize>(&[]), "()");
/// ```
pub fn fmt_shape<T: fmt::Display>(shape: &[T]) -> String {
    match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => {
            let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    }
}
