//! NumPy-compatible text formatting of n-dimensional arrays.
//!
//! [`format_array`] reproduces NumPy 2.x `str(a)` byte for byte: the choice
//! between positional and scientific notation, shortest round-trip digits
//! (NumPy's Dragon4 with round-half-to-even), column alignment, summarisation
//! of large arrays with `...`, and line wrapping. The subset of
//! `np.set_printoptions` that is supported lives in [`PrintOptions`].
//!
//! The module is standalone: it only needs a logical shape and an element
//! accessor, so any tensor type (contiguous, strided, views) can use it.
//!
//! ```
//! use ferrotensor::display::{format_array, PrintOptions};
//!
//! let data = [1.5f64, 2.0, 3.0];
//! let s = format_array(&[3], &|i: &[usize]| data[i[0]], &PrintOptions::default());
//! assert_eq!(s, "[1.5 2.  3. ]");
//! ```
//!
//! # `bfloat16`
//!
//! NumPy has no `bfloat16` type. [`half::bf16`] values are printed with the
//! same rules NumPy applies to `float16` / `float32`, parametrised by the
//! type: digits are bf16's own shortest round-trip digits (Dragon4 over the
//! bf16 bit pattern), the decimal precision is `2` (`floor(-log10(2^-7))`, as
//! `ml_dtypes.finfo(bfloat16).precision`), so arrays switch to scientific
//! notation at `max|x| >= 1e2`, and a 0-d bf16 array prints positionally iff
//! `1e-4 <= |x| < 1e2` (NumPy uses `10^precision` for `float16` and
//! `float32` scalars too).
//!
//! # `edgeitems = 0`
//!
//! Like NumPy, a summarised axis with `edgeitems == 0` still prints its last
//! element, and NumPy's column widths are then computed from the whole axis
//! (`a[-0:]` is the full axis); this quirk is reproduced.

mod dragon4;
mod float_format;
mod layout;

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;

use float_format::FloatingFormat;

/// Print options as NumPy's `np.set_printoptions` subset.
///
/// The defaults are NumPy's defaults.
///
/// ```
/// use ferrotensor::display::{format_array, PrintOptions};
///
/// let opts = PrintOptions { precision: 3, ..PrintOptions::default() };
/// let data = [1.0f64 / 3.0, 2.0];
/// assert_eq!(format_array(&[2], &|i: &[usize]| data[i[0]], &opts), "[0.333 2.   ]");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PrintOptions {
    /// Maximum number of fraction digits of floats (NumPy `precision`, default 8).
    pub precision: usize,
    /// Arrays with more than this many elements are summarised with `...`
    /// (NumPy `threshold`, default 1000).
    pub threshold: usize,
    /// Number of items shown at each end of a summarised axis
    /// (NumPy `edgeitems`, default 3).
    pub edgeitems: usize,
    /// Maximum number of characters per line (NumPy `linewidth`, default 75).
    pub linewidth: usize,
    /// Never use scientific notation for small values; they round to zero
    /// instead (NumPy `suppress`, default `false`).
    pub suppress: bool,
}

impl Default for PrintOptions {
    /// NumPy's defaults: precision 8, threshold 1000, edgeitems 3,
    /// linewidth 75, suppress `false`.
    ///
    /// ```
    /// use ferrotensor::display::PrintOptions;
    ///
    /// let o = PrintOptions::default();
    /// assert_eq!((o.precision, o.threshold, o.edgeitems, o.linewidth, o.suppress), (8, 1000, 3, 75, false));
    /// ```
    fn default() -> Self {
        PrintOptions {
            precision: 8,
            threshold: 1000,
            edgeitems: 3,
            linewidth: 75,
            suppress: false,
        }
    }
}

/// The binary floating-point formats that can be printed.
///
/// ```
/// use ferrotensor::display::{FloatKind, PrintElement, PrintValue};
///
/// assert_eq!(1.5f32.print_value(), PrintValue::Float(1.5, FloatKind::F32));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// IEEE binary16 (`half::f16`, NumPy `float16`).
    F16,
    /// bfloat16 (`half::bf16`; no NumPy equivalent, see the module docs).
    BF16,
    /// IEEE binary32 (`f32`, NumPy `float32`).
    F32,
    /// IEEE binary64 (`f64`, NumPy `float64`).
    F64,
}

/// A type-erased element value, as seen by the formatter.
///
/// ```
/// use ferrotensor::display::{PrintElement, PrintValue};
///
/// assert_eq!(true.print_value(), PrintValue::Bool(true));
/// assert_eq!(u64::MAX.print_value(), PrintValue::Int(u64::MAX as i128));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrintValue {
    /// A boolean, printed `True` / `False`.
    Bool(bool),
    /// An integer of any supported width (all of them fit in `i128`).
    Int(i128),
    /// A float stored exactly as `f64`, with the format it must be printed in
    /// (digits and notation thresholds depend on the format).
    Float(f64, FloatKind),
}

/// Element types that can be printed like NumPy prints them.
///
/// Implemented for `bool`, all primitive integers up to 64 bits (and
/// `isize`/`usize`), `f32`, `f64`, [`half::f16`] and [`half::bf16`].
///
/// ```
/// use ferrotensor::display::{FloatKind, PrintElement, PrintValue};
///
/// let h = half::f16::from_f32(0.5);
/// assert_eq!(h.print_value(), PrintValue::Float(0.5, FloatKind::F16));
/// assert_eq!((-3i8).print_value(), PrintValue::Int(-3));
/// ```
pub trait PrintElement: Copy {
    /// Converts the element to the value the formatter works on.
    fn print_value(self) -> PrintValue;
}

impl PrintElement for bool {
    fn print_value(self) -> PrintValue {
        PrintValue::Bool(self)
    }
}

macro_rules! impl_int_element {
    ($($t:ty),*) => {$(
        impl PrintElement for $t {
            fn print_value(self) -> PrintValue {
                PrintValue::Int(self as i128)
            }
        }
    )*};
}
impl_int_element!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl PrintElement for f32 {
    fn print_value(self) -> PrintValue {
        PrintValue::Float(f64::from(self), FloatKind::F32)
    }
}

impl PrintElement for f64 {
    fn print_value(self) -> PrintValue {
        PrintValue::Float(self, FloatKind::F64)
    }
}

impl PrintElement for half::f16 {
    fn print_value(self) -> PrintValue {
        PrintValue::Float(self.to_f64(), FloatKind::F16)
    }
}

impl PrintElement for half::bf16 {
    fn print_value(self) -> PrintValue {
        PrintValue::Float(self.to_f64(), FloatKind::BF16)
    }
}

/// Per-array element formatter (NumPy's `BoolFormat` / `IntegerFormat` /
/// `FloatingFormat`).
enum ElementFormat {
    Bool,
    Int { width: usize },
    Float(FloatingFormat),
}

impl ElementFormat {
    fn new(values: &[PrintValue], opts: &PrintOptions) -> Self {
        match values.first() {
            Some(PrintValue::Int(_)) => {
                let ints = values.iter().filter_map(|v| match v {
                    PrintValue::Int(i) => Some(*i),
                    _ => None,
                });
                let (lo, hi) = ints.fold((i128::MAX, i128::MIN), |(lo, hi), i| (lo.min(i), hi.max(i)));
                let width = lo.to_string().len().max(hi.to_string().len());
                ElementFormat::Int { width }
            }
            Some(PrintValue::Float(_, kind)) => {
                let floats: Vec<f64> = values
                    .iter()
                    .filter_map(|v| match v {
                        PrintValue::Float(x, _) => Some(*x),
                        _ => None,
                    })
                    .collect();
                ElementFormat::Float(FloatingFormat::new(&floats, *kind, opts.precision, opts.suppress))
            }
            _ => ElementFormat::Bool,
        }
    }

    fn format(&self, v: PrintValue) -> String {
        match (self, v) {
            (ElementFormat::Int { width }, PrintValue::Int(i)) => format!("{i:>width$}"),
            (ElementFormat::Float(f), PrintValue::Float(x, _)) => f.format(x),
            (_, PrintValue::Bool(b)) => if b { " True" } else { "False" }.to_string(),
            // Mixed kinds cannot occur: every element comes from one `T`.
            (_, v) => format_scalar(v),
        }
    }
}

/// `str` of a NumPy scalar (used for 0-d arrays, ignoring print options).
fn format_scalar(v: PrintValue) -> String {
    match v {
        PrintValue::Bool(b) => if b { "True" } else { "False" }.to_string(),
        PrintValue::Int(i) => i.to_string(),
        PrintValue::Float(x, kind) => float_format::format_scalar(x, kind),
    }
}

/// Format an array like NumPy `str(a)`.
///
/// `shape` is the logical shape (0-d = empty slice) and `get(index)` returns
/// the element at a multi-index (row-major logical indexing). Only the shown
/// elements are read: a summarised array (more than `opts.threshold`
/// elements) reads at most `2 * edgeitems` indices per axis. A 0-d array is
/// printed like a NumPy scalar (print options do not apply), an array with a
/// zero-length axis prints as `[]`.
///
/// ```
/// use ferrotensor::display::{format_array, PrintOptions};
///
/// let opts = PrintOptions::default();
/// let m = format_array(&[2, 3], &|i: &[usize]| (i[0] * 3 + i[1]) as f64, &opts);
/// assert_eq!(m, "[[0. 1. 2.]\n [3. 4. 5.]]");
///
/// let big = format_array(&[2000], &|i: &[usize]| i[0] as i64, &opts);
/// assert_eq!(big, "[   0    1    2 ... 1997 1998 1999]");
///
/// assert_eq!(format_array(&[], &|_: &[usize]| 1e16f64, &opts), "1e+16");
/// assert_eq!(format_array(&[2, 0], &|_: &[usize]| 0u8, &opts), "[]");
/// ```
pub fn format_array<T: PrintElement>(shape: &[usize], get: &dyn Fn(&[usize]) -> T, opts: &PrintOptions) -> String {
    if shape.is_empty() {
        return format_scalar(get(&[]).print_value());
    }
    if shape.contains(&0) {
        return "[]".to_string();
    }
    let size = shape.iter().fold(1usize, |acc, &n| acc.saturating_mul(n));
    let summarise = size > opts.threshold;
    let shown = layout::Shown::new(shape, summarise, opts.edgeitems, &|idx| get(idx).print_value());
    let fmt = ElementFormat::new(shown.values(), opts);
    layout::format_nested(&shown, &|v| fmt.format(v), opts.linewidth)
}
