//! A port of NumPy's Dragon4 float-to-decimal conversion
//! (`numpy/_core/src/multiarray/dragon4.c`), restricted to the features used by
//! `str(ndarray)`: unique (shortest round-trip) digit generation with optional
//! maximum / minimum digit cutoffs, positional and scientific layouts, the four
//! trim modes and left / right padding.
//!
//! The algorithm works on exact big-integer ratios, so every decision (digit
//! values, uniqueness margins, the final round-half-to-even) is identical to
//! NumPy's C implementation.

use std::cmp::Ordering;

/// How trailing zeros and the decimal point are post-processed
/// (NumPy's `trim` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trim {
    /// `'k'`: keep trailing zeros and the decimal point.
    Keep,
    /// `'.'`: trim trailing zeros, keep the decimal point.
    Zeros,
    /// `'0'`: trim trailing zeros but leave one zero after the point.
    LeaveOneZero,
    /// `'-'`: trim trailing zeros and the decimal point.
    DptZeros,
}

/// Whether digit cutoffs count all significant digits or fraction digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cutoff {
    Total,
    Fraction,
}

/// A binary floating-point value decomposed as `mantissa * 2^exponent`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decomposed {
    /// `true` when the sign bit is set (including `-0.0`).
    pub negative: bool,
    mantissa: u64,
    exponent: i32,
    mantissa_bit: u32,
    unequal_margins: bool,
}

impl Decomposed {
    /// Decomposes the raw bits of a finite IEEE-like binary float with
    /// `mant_bits` explicit mantissa bits and `exp_bits` exponent bits.
    pub(crate) fn from_bits(bits: u64, mant_bits: u32, exp_bits: u32) -> Self {
        let mant_mask = (1u64 << mant_bits) - 1;
        let exp_mask = (1u64 << exp_bits) - 1;
        let float_mantissa = bits & mant_mask;
        let float_exponent = ((bits >> mant_bits) & exp_mask) as i32;
        let negative = (bits >> (mant_bits + exp_bits)) & 1 == 1;
        let bias = (1i32 << (exp_bits - 1)) - 1;
        if float_exponent != 0 {
            Decomposed {
                negative,
                mantissa: (1u64 << mant_bits) | float_mantissa,
                exponent: float_exponent - bias - mant_bits as i32,
                mantissa_bit: mant_bits,
                unequal_margins: float_exponent != 1 && float_mantissa == 0,
            }
        } else {
            Decomposed {
                negative,
                mantissa: float_mantissa,
                exponent: 1 - bias - mant_bits as i32,
                mantissa_bit: if float_mantissa == 0 {
                    0
                } else {
                    63 - float_mantissa.leading_zeros()
                },
                unequal_margins: false,
            }
        }
    }
}

/// Minimal arbitrary-precision unsigned integer (little-endian 32-bit limbs,
/// no trailing zero limbs).
#[derive(Clone, Debug)]
struct Big {
    limbs: Vec<u32>,
}

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big {
            limbs: vec![v as u32, (v >> 32) as u32],
        };
        b.normalize();
        b
    }

    fn pow2(e: u32) -> Big {
        let mut b = Big::from_u64(1);
        b.shl(e);
        b
    }

    fn normalize(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    fn shl(&mut self, n: u32) {
        if self.is_zero() || n == 0 {
            return;
        }
        let blocks = (n / 32) as usize;
        let bits = n % 32;
        let mut out = vec![0u32; blocks];
        if bits == 0 {
            out.extend_from_slice(&self.limbs);
        } else {
            let mut carry = 0u32;
            for &l in &self.limbs {
                out.push((l << bits) | carry);
                carry = l >> (32 - bits);
            }
            if carry != 0 {
                out.push(carry);
            }
        }
        self.limbs = out;
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in &mut self.limbs {
            let p = u64::from(*l) * u64::from(m) + carry;
            *l = p as u32;
            carry = p >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
        self.normalize();
    }

    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        if n > 0 {
            self.mul_small(10u32.pow(n));
        }
    }

    fn add(&self, other: &Big) -> Big {
        let len = self.limbs.len().max(other.limbs.len());
        let mut out = Vec::with_capacity(len + 1);
        let mut carry = 0u64;
        for i in 0..len {
            let a = u64::from(*self.limbs.get(i).unwrap_or(&0));
            let b = u64::from(*other.limbs.get(i).unwrap_or(&0));
            let s = a + b + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        if carry != 0 {
            out.push(carry as u32);
        }
        let mut b = Big { limbs: out };
        b.normalize();
        b
    }

    /// `self -= other`; requires `self >= other`.
    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.limbs.len() {
            let b = i64::from(*other.limbs.get(i).unwrap_or(&0));
            let mut d = i64::from(self.limbs[i]) - b - borrow;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            } else {
                borrow = 0;
            }
            self.limbs[i] = d as u32;
        }
        debug_assert_eq!(borrow, 0);
        self.normalize();
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }

    /// Returns `floor(self / divisor)` (which must be `< 10`) and leaves the
    /// remainder in `self`.
    fn div_rem_digit(&mut self, divisor: &Big) -> u8 {
        let mut q = 0u8;
        while self.cmp(divisor) != Ordering::Less {
            self.sub_assign(divisor);
            q += 1;
        }
        debug_assert!(q < 10);
        q
    }
}

/// Size of NumPy's Dragon4 output buffer; only bounds the digit count when no
/// cutoff is requested in non-unique mode (never the case here).
const BUFFER_SIZE: i32 = 16384;

/// Core Dragon4 digit generation. Returns the ASCII digits and the base-10
/// exponent of the first digit.
fn dragon4(d: &Decomposed, unique: bool, cutoff_mode: Cutoff, cutoff_max: i32, cutoff_min: i32) -> (Vec<u8>, i32) {
    let mantissa = d.mantissa;
    let exponent = d.exponent;
    if mantissa == 0 {
        return (vec![b'0'], 0);
    }
    let is_even = mantissa & 1 == 0;
    let mut value = Big::from_u64(mantissa);
    let mut scale;
    let mut margin_low;
    let factor = if d.unequal_margins { 2 } else { 1 };
    if exponent > 0 {
        value.shl(exponent as u32 + factor);
        scale = Big::from_u64(1 << factor);
        margin_low = Big::pow2(exponent as u32);
    } else {
        value.shl(factor);
        scale = Big::pow2((-exponent) as u32 + factor);
        margin_low = Big::from_u64(1);
    }
    let margin_high = |low: &Big| {
        let mut h = low.clone();
        if d.unequal_margins {
            h.shl(1);
        }
        h
    };

    // NumPy uses the literal 0.30102999566398119521373889472449 (same f64).
    const LOG10_2: f64 = std::f64::consts::LOG10_2;
    let mut digit_exponent = (f64::from(d.mantissa_bit as i32 + exponent) * LOG10_2 - 0.69).ceil() as i32;
    if cutoff_max >= 0 && cutoff_mode == Cutoff::Fraction && digit_exponent <= -cutoff_max {
        digit_exponent = -cutoff_max + 1;
    }
    match digit_exponent.cmp(&0) {
        Ordering::Greater => scale.mul_pow10(digit_exponent as u32),
        Ordering::Less => {
            value.mul_pow10((-digit_exponent) as u32);
            margin_low.mul_pow10((-digit_exponent) as u32);
        }
        Ordering::Equal => {}
    }
    if value.cmp(&scale) != Ordering::Less {
        digit_exponent += 1;
    } else {
        value.mul_small(10);
        margin_low.mul_small(10);
    }

    let mut cutoff_max_exponent = digit_exponent - BUFFER_SIZE;
    if cutoff_max >= 0 {
        let desired = match cutoff_mode {
            Cutoff::Total => digit_exponent - cutoff_max,
            Cutoff::Fraction => -cutoff_max,
        };
        cutoff_max_exponent = cutoff_max_exponent.max(desired);
    }
    let mut cutoff_min_exponent = digit_exponent;
    if cutoff_min >= 0 {
        let desired = match cutoff_mode {
            Cutoff::Total => digit_exponent - cutoff_min,
            Cutoff::Fraction => -cutoff_min,
        };
        cutoff_min_exponent = cutoff_min_exponent.min(desired);
    }
    let mut out_exponent = digit_exponent - 1;

    let mut digits = Vec::new();
    let mut output_digit;
    let (low, high);
    if unique {
        loop {
            digit_exponent -= 1;
            output_digit = value.div_rem_digit(&scale);
            let value_high = value.add(&margin_high(&margin_low));
            let c = value.cmp(&margin_low);
            let l = if is_even {
                c != Ordering::Greater
            } else {
                c == Ordering::Less
            };
            let c = value_high.cmp(&scale);
            let h = if is_even {
                c != Ordering::Less
            } else {
                c == Ordering::Greater
            };
            if ((l || h) && digit_exponent <= cutoff_min_exponent) || digit_exponent == cutoff_max_exponent {
                low = l;
                high = h;
                break;
            }
            digits.push(b'0' + output_digit);
            value.mul_small(10);
            margin_low.mul_small(10);
        }
    } else {
        low = false;
        high = false;
        loop {
            digit_exponent -= 1;
            output_digit = value.div_rem_digit(&scale);
            if value.is_zero() || digit_exponent == cutoff_max_exponent {
                break;
            }
            digits.push(b'0' + output_digit);
            value.mul_small(10);
        }
    }

    let mut round_down = low;
    if low == high {
        value.shl(1);
        let compare = value.cmp(&scale);
        round_down = compare == Ordering::Less;
        if compare == Ordering::Equal {
            round_down = output_digit & 1 == 0;
        }
    }
    if round_down {
        digits.push(b'0' + output_digit);
    } else if output_digit == 9 {
        loop {
            match digits.pop() {
                None => {
                    digits.push(b'1');
                    out_exponent += 1;
                    break;
                }
                Some(b'9') => {}
                Some(dg) => {
                    digits.push(dg + 1);
                    break;
                }
            }
        }
    } else {
        digits.push(b'0' + output_digit + 1);
    }
    (digits, out_exponent)
}

/// Parameters shared by the positional and scientific formatters; `-1` means
/// "not given", exactly as in NumPy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub unique: bool,
    pub precision: i32,
    pub min_digits: i32,
    pub trim: Trim,
    pub pad_left: i32,
    pub pad_right: i32,
    pub exp_digits: i32,
}

impl Options {
    /// Unique digits, no cutoffs, no padding, with the given trim mode.
    pub(crate) fn unique(precision: i32, trim: Trim) -> Self {
        Options {
            unique: true,
            precision,
            min_digits: -1,
            trim,
            pad_left: -1,
            pad_right: -1,
            exp_digits: -1,
        }
    }
}

/// NumPy's `dragon4_positional` with `fractional=True` and `sign=False`.
pub(crate) fn positional(d: &Decomposed, o: &Options) -> String {
    let mut buf = String::new();
    let has_sign = i32::from(d.negative);
    if d.negative {
        buf.push('-');
    }
    let (digits, print_exponent) = dragon4(d, o.unique, Cutoff::Fraction, o.precision, o.min_digits);
    let num_digits = digits.len() as i32;
    let mut num_fraction_digits = 0i32;
    let num_whole_digits;
    if print_exponent >= 0 {
        num_whole_digits = print_exponent + 1;
        if num_digits <= num_whole_digits {
            buf.extend(digits.iter().map(|&c| c as char));
            for _ in 0..(num_whole_digits - num_digits) {
                buf.push('0');
            }
        } else {
            let w = num_whole_digits as usize;
            buf.extend(digits[..w].iter().map(|&c| c as char));
            buf.push('.');
            buf.extend(digits[w..].iter().map(|&c| c as char));
            num_fraction_digits = num_digits - num_whole_digits;
        }
    } else {
        let zeros = -(print_exponent + 1);
        buf.push_str("0.");
        for _ in 0..zeros {
            buf.push('0');
        }
        buf.extend(digits.iter().map(|&c| c as char));
        num_fraction_digits = num_digits + zeros;
        num_whole_digits = 1;
    }
    if o.trim != Trim::DptZeros && num_fraction_digits == 0 {
        buf.push('.');
    }
    let add_digits = if o.unique { o.min_digits } else { o.precision };
    let desired_fraction_digits = add_digits.max(0);
    if o.trim == Trim::LeaveOneZero {
        if num_fraction_digits == 0 {
            buf.push('0');
            num_fraction_digits += 1;
        }
    } else if o.trim == Trim::Keep && desired_fraction_digits > num_fraction_digits {
        for _ in 0..(desired_fraction_digits - num_fraction_digits) {
            buf.push('0');
        }
        num_fraction_digits = desired_fraction_digits;
    }
    if o.trim != Trim::Keep && num_fraction_digits > 0 {
        while buf.ends_with('0') {
            buf.pop();
            num_fraction_digits -= 1;
        }
        if buf.ends_with('.') {
            if o.trim == Trim::LeaveOneZero {
                buf.push('0');
                num_fraction_digits += 1;
            } else if o.trim == Trim::DptZeros {
                buf.pop();
            }
        }
    }
    if o.pad_right >= num_fraction_digits {
        if o.trim == Trim::DptZeros && num_fraction_digits == 0 {
            buf.push(' ');
        }
        for _ in 0..(o.pad_right - num_fraction_digits) {
            buf.push(' ');
        }
    }
    if o.pad_left > num_whole_digits + has_sign {
        let shift = (o.pad_left - num_whole_digits - has_sign) as usize;
        buf.insert_str(0, &" ".repeat(shift));
    }
    buf
}

/// NumPy's `dragon4_scientific` with `sign=False`.
pub(crate) fn scientific(d: &Decomposed, o: &Options) -> String {
    let mut buf = String::new();
    let left_chars = 1 + i32::from(d.negative);
    if o.pad_left > left_chars {
        buf.push_str(&" ".repeat((o.pad_left - left_chars) as usize));
    }
    if d.negative {
        buf.push('-');
    }
    let (digits, print_exponent) = dragon4(
        d,
        o.unique,
        Cutoff::Total,
        if o.precision < 0 { -1 } else { o.precision + 1 },
        if o.min_digits < 0 { -1 } else { o.min_digits + 1 },
    );
    buf.push(digits[0] as char);
    let mut num_fraction_digits = digits.len() as i32 - 1;
    if num_fraction_digits > 0 {
        buf.push('.');
        buf.extend(digits[1..].iter().map(|&c| c as char));
    }
    if o.trim != Trim::DptZeros && num_fraction_digits == 0 {
        buf.push('.');
    }
    let add_digits = (if o.unique { o.min_digits } else { o.precision }).max(0);
    if o.trim == Trim::LeaveOneZero {
        if num_fraction_digits == 0 {
            buf.push('0');
            num_fraction_digits += 1;
        }
    } else if o.trim == Trim::Keep && add_digits > num_fraction_digits {
        for _ in 0..(add_digits - num_fraction_digits) {
            buf.push('0');
        }
    }
    if o.trim != Trim::Keep && num_fraction_digits > 0 {
        while buf.ends_with('0') {
            buf.pop();
        }
        if o.trim == Trim::LeaveOneZero && buf.ends_with('.') {
            buf.push('0');
        }
    }
    let exp_digits = if o.exp_digits < 0 { 2 } else { o.exp_digits.min(5) } as usize;
    buf.push('e');
    buf.push(if print_exponent >= 0 { '+' } else { '-' });
    buf.push_str(&format!(
        "{:0width$}",
        print_exponent.unsigned_abs(),
        width = exp_digits
    ));
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64_dec(x: f64) -> Decomposed {
        Decomposed::from_bits(x.to_bits(), 52, 11)
    }

    fn f32_dec(x: f32) -> Decomposed {
        Decomposed::from_bits(u64::from(x.to_bits()), 23, 8)
    }

    #[test]
    // -27777.3125 is exact in f32; its shortest form is the tie -27777.312.
    #[allow(clippy::excessive_precision)]
    fn shortest_digits() {
        let o = Options::unique(-1, Trim::LeaveOneZero);
        assert_eq!(positional(&f64_dec(0.1), &o), "0.1");
        assert_eq!(positional(&f64_dec(-2.5), &o), "-2.5");
        assert_eq!(positional(&f64_dec(1e15), &o), "1000000000000000.0");
        assert_eq!(positional(&f32_dec(-27777.3125), &o), "-27777.312");
        assert_eq!(positional(&f32_dec(16777216.0), &o), "16777216.0");
        let s = Options::unique(-1, Trim::DptZeros);
        assert_eq!(scientific(&f64_dec(1e16), &s), "1e+16");
        assert_eq!(scientific(&f64_dec(5e-324), &s), "5e-324");
        assert_eq!(scientific(&f32_dec(1e-45), &s), "1e-45");
    }

    #[test]
    fn min_digits_exact_fill() {
        let o = Options {
            min_digits: 7,
            precision: 7,
            trim: Trim::Keep,
            ..Options::unique(7, Trim::Keep)
        };
        assert_eq!(scientific(&f32_dec(6001442816.0), &o), "6.0014428e+09");
    }
}
