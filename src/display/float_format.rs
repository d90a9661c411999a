//! Port of NumPy's `FloatingFormat` (array elements, `floatmode='maxprec'`,
//! `sign='-'`) and of the float scalar `str` used for 0-d arrays.

use super::FloatKind;
use super::dragon4::{Decomposed, Options, Trim, positional, scientific};

impl FloatKind {
    /// Rounds an `f64` to the nearest value of this type (returned as `f64`,
    /// which represents every value of every supported type exactly).
    pub(crate) fn round(self, x: f64) -> f64 {
        match self {
            FloatKind::F16 => half::f16::from_f64(x).to_f64(),
            FloatKind::BF16 => half::bf16::from_f64(x).to_f64(),
            FloatKind::F32 => f64::from(x as f32),
            FloatKind::F64 => x,
        }
    }

    /// Decomposes a finite value of this type into mantissa and exponent.
    fn decompose(self, x: f64) -> Decomposed {
        match self {
            FloatKind::F16 => Decomposed::from_bits(u64::from(half::f16::from_f64(x).to_bits()), 10, 5),
            FloatKind::BF16 => Decomposed::from_bits(u64::from(half::bf16::from_f64(x).to_bits()), 7, 8),
            FloatKind::F32 => Decomposed::from_bits(u64::from((x as f32).to_bits()), 23, 8),
            FloatKind::F64 => Decomposed::from_bits(x.to_bits(), 52, 11),
        }
    }

    /// `np.finfo(dtype).precision`, i.e. `floor(-log10(eps))`
    /// (bf16: `eps = 2^-7` gives 2, as `ml_dtypes.finfo(bfloat16)` reports).
    fn decimal_precision(self) -> i32 {
        match self {
            FloatKind::F16 => 3,
            FloatKind::BF16 => 2,
            FloatKind::F32 => 6,
            FloatKind::F64 => 15,
        }
    }

    /// Upper bound (exclusive) of the positional range of the scalar `str`.
    fn scalar_positional_max(self) -> f64 {
        match self {
            FloatKind::F16 => 1e3,
            FloatKind::BF16 => 1e2,
            FloatKind::F32 => 1e6,
            FloatKind::F64 => 1e16,
        }
    }
}

fn non_finite_str(x: f64) -> &'static str {
    if x.is_nan() {
        "nan"
    } else if x < 0.0 {
        "-inf"
    } else {
        "inf"
    }
}

/// Formats a float like NumPy's scalar `str` (`str(np.float32(x))`).
pub(crate) fn format_scalar(x: f64, kind: FloatKind) -> String {
    if !x.is_finite() {
        return non_finite_str(x).to_string();
    }
    let d = kind.decompose(x);
    let abs = x.abs();
    if abs == 0.0 || (abs < kind.scalar_positional_max() && abs >= 1e-4) {
        positional(&d, &Options::unique(-1, Trim::LeaveOneZero))
    } else {
        scientific(&d, &Options::unique(-1, Trim::DptZeros))
    }
}

/// The formatter NumPy builds once per printed array (`FloatingFormat`).
#[derive(Clone, Debug)]
pub(crate) struct FloatingFormat {
    kind: FloatKind,
    exp_format: bool,
    precision: i32,
    min_digits: i32,
    trim: Trim,
    pad_left: i32,
    pad_right: i32,
    exp_size: i32,
}

fn split2(s: &str, sep: char) -> (&str, &str) {
    match s.find(sep) {
        Some(i) => (&s[..i], &s[i + sep.len_utf8()..]),
        None => (s, ""),
    }
}

impl FloatingFormat {
    /// `FloatingFormat.__init__` + `fillFormat` over the shown elements.
    pub(crate) fn new(data: &[f64], kind: FloatKind, precision: usize, suppress: bool) -> Self {
        let precision = i32::try_from(precision).unwrap_or(i32::MAX).min(100_000);
        let finite: Vec<f64> = data.iter().copied().filter(|x| x.is_finite()).collect();
        let mut f = FloatingFormat {
            kind,
            exp_format: false,
            precision,
            min_digits: -1,
            trim: Trim::Zeros,
            pad_left: 0,
            pad_right: 0,
            exp_size: -1,
        };

        // Notation choice, with every comparison done in the element type.
        let mut nonzero = finite.iter().filter(|&&x| x != 0.0).map(|x| x.abs());
        if let Some(first) = nonzero.next() {
            let (min_val, max_val) = nonzero.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x)));
            let cutoff = kind.round(10f64.powi(kind.decimal_precision().min(8)));
            let ratio = kind.round(max_val / min_val);
            if max_val >= cutoff || (!suppress && (min_val < kind.round(1e-4) || ratio > kind.round(1000.0))) {
                f.exp_format = true;
            }
        }

        if finite.is_empty() {
            f.pad_left = 0;
            f.pad_right = 0;
            f.trim = Trim::Zeros;
            f.exp_size = -1;
            f.min_digits = -1;
        } else if f.exp_format {
            let opts = Options::unique(precision, Trim::Zeros);
            let (mut int_len, mut frac_len, mut exp_len) = (0usize, 0usize, 0usize);
            for &x in &finite {
                let s = scientific(&kind.decompose(x), &opts);
                let (mantissa, exp) = split2(&s, 'e');
                let (int_part, frac_part) = split2(mantissa, '.');
                int_len = int_len.max(int_part.len());
                frac_len = frac_len.max(frac_part.len());
                exp_len = exp_len.max(exp.len());
            }
            f.exp_size = exp_len as i32 - 1;
            f.trim = Trim::Keep;
            f.precision = frac_len as i32;
            f.min_digits = f.precision;
            f.pad_left = int_len as i32;
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            let opts = Options::unique(precision, Trim::Zeros);
            let (mut int_len, mut frac_len) = (0usize, 0usize);
            for &x in &finite {
                let s = positional(&kind.decompose(x), &opts);
                let (int_part, frac_part) = split2(&s, '.');
                int_len = int_len.max(int_part.len());
                frac_len = frac_len.max(frac_part.len());
            }
            f.pad_left = int_len as i32;
            f.pad_right = frac_len as i32;
            f.exp_size = -1;
            f.trim = Trim::Zeros;
            f.min_digits = 0;
        }

        if finite.len() != data.len() {
            let neginf = i32::from(data.contains(&f64::NEG_INFINITY));
            let offset = f.pad_right + 1;
            f.pad_left = f.pad_left.max(3 - offset).max(3 + neginf - offset);
        }
        f
    }

    /// `FloatingFormat.__call__`.
    pub(crate) fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let ret = non_finite_str(x);
            let pad = (self.pad_left + self.pad_right + 1 - ret.len() as i32).max(0) as usize;
            return format!("{}{}", " ".repeat(pad), ret);
        }
        let d = self.kind.decompose(x);
        let opts = Options {
            unique: true,
            precision: self.precision,
            min_digits: self.min_digits,
            trim: self.trim,
            pad_left: self.pad_left,
            pad_right: self.pad_right,
            exp_digits: self.exp_size,
        };
        if self.exp_format {
            scientific(&d, &opts)
        } else {
            positional(&d, &opts)
        }
    }
}
