//! Type promotion between [`DType`]s: the kinds (bool, signed and unsigned integers, real
//! and complex floats), NumPy's `promote_types` lattice, the Python array API standard's
//! promotion table (a sub-lattice of NumPy's), and NumPy's `can_cast` under the "safe" rule.
//!
//! ```
//! use ferrotensor::io::DType;
//! assert_eq!(DType::U8.promote(DType::I8), DType::I16);
//! assert_eq!(DType::F32.promote(DType::C128), DType::C128);
//! assert_eq!(DType::I32.promote(DType::F32), DType::F64);         // NumPy's mixed-kind rule
//! assert_eq!(DType::I32.promote_standard(DType::F32), None);      // left open by the standard
//! assert!(DType::I16.can_cast_to(DType::F32) && !DType::F64.can_cast_to(DType::F32));
//! ```

use super::DType;

impl DType {
    /// True for `bool`.
    ///
    /// ```
    /// assert!(ferrotensor::io::DType::Bool.is_bool());
    /// ```
    pub fn is_bool(self) -> bool {
        self == DType::Bool
    }

    /// True for the signed integers `i8` … `i64`.
    ///
    /// ```
    /// assert!(ferrotensor::io::DType::I8.is_signed_int());
    /// ```
    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// True for the unsigned integers `u8` … `u64`.
    ///
    /// ```
    /// assert!(ferrotensor::io::DType::U64.is_unsigned_int());
    /// ```
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// True for every integer type (not `bool`).
    ///
    /// ```
    /// use ferrotensor::io::DType;
    /// assert!(DType::U8.is_int() && !DType::Bool.is_int());
    /// ```
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    /// True for the real floating-point types `f16`, `bf16`, `f32`, `f64`.
    ///
    /// ```
    /// assert!(ferrotensor::io::DType::BF16.is_real_float());
    /// ```
    pub fn is_real_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// True for the complex types.
    ///
    /// ```
    /// assert!(ferrotensor::io::DType::C64.is_complex());
    /// ```
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// True for real and complex floating-point types.
    ///
    /// ```
    /// use ferrotensor::io::DType;
    /// assert!(DType::C128.is_float() && DType::F32.is_float() && !DType::I64.is_float());
    /// ```
    pub fn is_float(self) -> bool {
        self.is_real_float() || self.is_complex()
    }

    /// True for integers and floats, real or complex (every type but `bool`).
    ///
    /// ```
    /// use ferrotensor::io::DType;
    /// assert!(DType::U8.is_numeric() && !DType::Bool.is_numeric());
    /// ```
    pub fn is_numeric(self) -> bool {
        !self.is_bool()
    }

    /// The real type of a complex type's parts (`complex64` → `float32`); other types
    /// are returned as they are.
    ///
    /// ```
    /// use ferrotensor::io::DType;
    /// assert_eq!(DType::C128.real_part(), DType::F64);
    /// assert_eq!(DType::I8.real_part(), DType::I8);
    /// ```
    pub fn real_part(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }

    /// The complex type whose parts have this real float type (`float32` → `complex64`,
    /// `float16`/`bfloat16` → `complex64`); `None` for non-float types. Complex types map
    /// to themselves.
    ///
    /// ```
    /// use ferrotensor::io::DType;
    /// assert_eq!(DType::F64.complex_of(), Some(DType::C128));
    /// assert_eq!(DType::I32.complex_of(), None);
    /// ```
    pub fn complex_of(self) -> Option<DType> {
        match self {
            DType::F16 | DType::BF16 | DType::F32 | DType::C64 => Some(DType::C64),
            DType::F64 | DType::C128 => Some(DType::C128),
            _ => None,
        }
    }

    /// Bits of an integer type (0 for other types).
    fn int_bits(self) -> u32 {
        match self {
            DType::I8 | DType::U8 => 8,
            DType::I16 | DType::U16 => 16,
            DType::I32 | DType::U32 => 32,
            DType::I64 | DType::U64 => 64,
            _ => 0,
        }
    }

    /// The signed integer type of `bits` bits.
    fn signed_of(bits: u32) -> DType {
        match bits {
            8 => DType::I8,
            16 => DType::I16,
            32 => DType::I32,
            _ => DType::I64,
        }
    }

    /// The smallest real float type that holds every value of this integer (or float)
    /// type exactly, as NumPy: 8-bit integers fit `f16`, 16-bit `f32`, wider `f64`.
    fn min_float(self) -> DType {
        match self.int_bits() {
            8 => DType::F16,
            16 => DType::F32,
            32 | 64 => DType::F64,
            _ => self,
        }
    }

    /// Bits of a real float type's values (`f16`/`bf16` 16, `f32` 32, `f64` 64), for
    /// ordering floats; complex types count their parts.
    fn float_rank(self) -> u32 {
        match self.real_part() {
            DType::F16 | DType::BF16 => 16,
            DType::F32 => 32,
            DType::F64 => 64,
            _ => 0,
        }
    }

    /// The larger of two real float types (`f16` with `bf16` gives `f32`, which holds both).
    fn float_max(a: DType, b: DType) -> DType {
        if a == b {
            return a;
        }
        match (a.float_rank(), b.float_rank()) {
            (16, 16) => DType::F32,
            (ra, rb) if ra >= rb => a,
            _ => b,
        }
    }

    /// NumPy's `promote_types`: the smallest type both types cast to safely. `bool` gives
    /// way to every other type; a signed and an unsigned integer give a signed type wide
    /// enough for both (`uint64` with a signed type gives `float64`); an integer with a
    /// float gives a float wide enough for the integer; a real with a complex type gives
    /// the complex type wide enough for both. `bfloat16` behaves as `float16` with
    /// integers, and the two half types together give `float32`.
    ///
    /// ```
    /// use ferrotensor::io::DType;
    /// assert_eq!(DType::Bool.promote(DType::U16), DType::U16);
    /// assert_eq!(DType::U32.promote(DType::I32), DType::I64);
    /// assert_eq!(DType::U64.promote(DType::I8), DType::F64);
    /// assert_eq!(DType::I16.promote(DType::F16), DType::F32);
    /// assert_eq!(DType::F64.promote(DType::C64), DType::C128);
    /// ```
    pub fn promote(self, other: DType) -> DType {
        let (a, b) = (self, other);
        if a == b {
            return a;
        }
        if a.is_bool() {
            return b;
        }
        if b.is_bool() {
            return a;
        }
        match (a.is_int(), b.is_int()) {
            (true, true) => {
                let (ba, bb) = (a.int_bits(), b.int_bits());
                match (a.is_signed_int(), b.is_signed_int()) {
                    (true, true) | (false, false) => {
                        if ba >= bb {
                            a
                        } else {
                            b
                        }
                    }
                    (s_a, _) => {
                        let (bs, bu) = if s_a { (ba, bb) } else { (bb, ba) };
                        if bs > bu {
                            DType::signed_of(bs)
                        } else if bu < 64 {
                            DType::signed_of(bu * 2)
                        } else {
                            DType::F64
                        }
                    }
                }
            }
            (true, false) => b.promote(a),
            (false, true) => {
                // a float (real or complex) with an integer
                let need = b.min_float();
                if need == DType::F16 && a.float_rank() == 16 {
                    // 8-bit integers fit either half type
                    return a;
                }
                if a.is_complex() {
                    let r = DType::float_max(a.real_part(), need);
                    r.complex_of().expect("a float type")
                } else {
                    DType::float_max(a, need)
                }
            }
            (false, false) => {
                let r = DType::float_max(a.real_part(), b.real_part());
                if a.is_complex() || b.is_complex() {
                    r.complex_of().expect("a float type")
                } else {
                    r
                }
            }
        }
    }

    /// The promotion of the Python array API standard (2024.12): defined within booleans,
    /// within integers (a signed with an unsigned type as NumPy, except `uint64`, which
    /// has no signed partner) and within floats, real and complex; `None` where the
    /// standard leaves the result open (mixed kinds, `uint64` with a signed type). Where it
    /// is defined it equals [`DType::promote`].
    ///
    /// ```
    /// use ferrotensor::io::DType;
    /// assert_eq!(DType::U16.promote_standard(DType::I8), Some(DType::I32));
    /// assert_eq!(DType::F32.promote_standard(DType::C64), Some(DType::C64));
    /// assert_eq!(DType::Bool.promote_standard(DType::I8), None);
    /// assert_eq!(DType::U64.promote_standard(DType::I64), None);
    /// ```
    pub fn promote_standard(self, other: DType) -> Option<DType> {
        let (a, b) = (self, other);
        let same_kind = (a.is_bool() && b.is_bool()) || (a.is_int() && b.is_int()) || (a.is_float() && b.is_float());
        if !same_kind {
            return None;
        }
        let mixed_sign = a.is_int() && a.is_signed_int() != b.is_signed_int();
        if mixed_sign && (a == DType::U64 || b == DType::U64) {
            return None;
        }
        Some(a.promote(b))
    }

    /// NumPy's `can_cast(self, to, "safe")`: true when every value of `self` is a value of
    /// `to` (`promote(self, to) == to`).
    ///
    /// ```
    /// use ferrotensor::io::DType;
    /// assert!(DType::U8.can_cast_to(DType::I16));
    /// assert!(!DType::I8.can_cast_to(DType::U64));
    /// assert!(DType::F32.can_cast_to(DType::C64));
    /// assert!(!DType::C64.can_cast_to(DType::F64));
    /// ```
    pub fn can_cast_to(self, to: DType) -> bool {
        self.promote(to) == to
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STANDARD: [DType; 13] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ];

    #[test]
    fn promotion_is_symmetric_and_idempotent() {
        for a in DType::ALL {
            assert_eq!(a.promote(a), a);
            for b in DType::ALL {
                assert_eq!(a.promote(b), b.promote(a), "{a} {b}");
                assert_eq!(a.promote_standard(b), b.promote_standard(a), "{a} {b}");
            }
        }
    }

    /// NumPy's lattice is not associative across kinds (`(int8, uint16), float32` gives
    /// `float64` but `int8, (uint16, float32)` gives `float32`); the standard's table is.
    #[test]
    fn standard_promotion_is_associative() {
        for a in STANDARD {
            for b in STANDARD {
                for c in STANDARD {
                    let left = a.promote_standard(b).and_then(|ab| ab.promote_standard(c));
                    let right = b.promote_standard(c).and_then(|bc| a.promote_standard(bc));
                    if let (Some(l), Some(r)) = (left, right) {
                        assert_eq!(l, r, "{a} {b} {c}");
                    }
                }
            }
        }
        assert_eq!(DType::I8.promote(DType::U16).promote(DType::F32), DType::F64);
        assert_eq!(DType::I8.promote(DType::U16.promote(DType::F32)), DType::F32);
    }

    /// NumPy 2's `np.promote_types` over the standard's 13 types, row by row in the order
    /// of `STANDARD` (generated with `np.promote_types(a, b).name`).
    #[test]
    fn promotion_matches_numpy() {
        use DType::*;
        let numpy: [[DType; 13]; 13] = [
            [Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, C64, C128],
            [I8, I8, I16, I32, I64, I16, I32, I64, F64, F32, F64, C64, C128],
            [I16, I16, I16, I32, I64, I16, I32, I64, F64, F32, F64, C64, C128],
            [I32, I32, I32, I32, I64, I32, I32, I64, F64, F64, F64, C128, C128],
            [I64, I64, I64, I64, I64, I64, I64, I64, F64, F64, F64, C128, C128],
            [U8, I16, I16, I32, I64, U8, U16, U32, U64, F32, F64, C64, C128],
            [U16, I32, I32, I32, I64, U16, U16, U32, U64, F32, F64, C64, C128],
            [U32, I64, I64, I64, I64, U32, U32, U32, U64, F64, F64, C128, C128],
            [U64, F64, F64, F64, F64, U64, U64, U64, U64, F64, F64, C128, C128],
            [F32, F32, F32, F64, F64, F32, F32, F64, F64, F32, F64, C64, C128],
            [F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, C128, C128],
            [C64, C64, C64, C128, C128, C64, C64, C128, C128, C64, C128, C64, C128],
            [
                C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128,
            ],
        ];
        for (i, a) in STANDARD.iter().enumerate() {
            for (j, b) in STANDARD.iter().enumerate() {
                assert_eq!(a.promote(*b), numpy[i][j], "{a} {b}");
            }
        }
    }

    #[test]
    fn standard_table_is_defined_within_kinds_only() {
        let defined = STANDARD
            .iter()
            .flat_map(|a| STANDARD.iter().map(move |b| (*a, *b)))
            .filter(|(a, b)| a.promote_standard(*b).is_some())
            .count();
        // bool: 1; integers: 8 * 8 minus the 2 * 4 pairs of uint64 with a signed type;
        // floats: 4 * 4.
        assert_eq!(defined, 1 + 64 - 8 + 16);
        assert_eq!(DType::I8.promote_standard(DType::U32), Some(DType::I64));
        assert_eq!(DType::C64.promote_standard(DType::F64), Some(DType::C128));
        assert_eq!(DType::F32.promote_standard(DType::I8), None);
    }

    #[test]
    fn half_types() {
        assert_eq!(DType::F16.promote(DType::BF16), DType::F32);
        assert_eq!(DType::BF16.promote(DType::I8), DType::BF16);
        assert_eq!(DType::BF16.promote(DType::U16), DType::F32);
        assert_eq!(DType::F16.promote(DType::C64), DType::C64);
        assert!(DType::F16.can_cast_to(DType::F32) && !DType::F16.can_cast_to(DType::BF16));
    }
}
