//! Element-wise functions: dtype promotion of the operands, then one crate method per
//! dtype. Binary operations promote both operands to one dtype (NumPy's lattice, which
//! is the standard's table where the table is defined) and broadcast in the crate.

use crate::data::{Data, IntoData};
use crate::errors::{OrPy, dtype_error};
use ferrotensor::io::DType;
use ferrotensor::layout::transform::broadcast_shapes;
use pyo3::prelude::*;

/// The binary element-wise operations.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Pow,
    Atan2,
    Hypot,
    Copysign,
    LogAddExp,
    NextAfter,
    Maximum,
    Minimum,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Bin {
    /// The standard's name of the function.
    pub fn name(self) -> &'static str {
        match self {
            Bin::Add => "add",
            Bin::Sub => "subtract",
            Bin::Mul => "multiply",
            Bin::Div => "divide",
            Bin::FloorDiv => "floor_divide",
            Bin::Rem => "remainder",
            Bin::Pow => "pow",
            Bin::Atan2 => "atan2",
            Bin::Hypot => "hypot",
            Bin::Copysign => "copysign",
            Bin::LogAddExp => "logaddexp",
            Bin::NextAfter => "nextafter",
            Bin::Maximum => "maximum",
            Bin::Minimum => "minimum",
            Bin::And => "bitwise_and",
            Bin::Or => "bitwise_or",
            Bin::Xor => "bitwise_xor",
            Bin::Shl => "bitwise_left_shift",
            Bin::Shr => "bitwise_right_shift",
            Bin::LogicalAnd => "logical_and",
            Bin::LogicalOr => "logical_or",
            Bin::LogicalXor => "logical_xor",
            Bin::Eq => "equal",
            Bin::Ne => "not_equal",
            Bin::Lt => "less",
            Bin::Le => "less_equal",
            Bin::Gt => "greater",
            Bin::Ge => "greater_equal",
        }
    }

    /// The dtype both operands are computed in, given their promoted dtype; `None` if
    /// the operation does not take it.
    fn compute_dtype(self, dt: DType) -> Option<DType> {
        use Bin::*;
        match self {
            Add | Sub | Mul => dt.is_numeric().then_some(dt),
            // true division of integers gives the default float, as NumPy
            Div => Some(if dt.is_float() { dt } else { DType::F64 }),
            FloorDiv | Rem | Maximum | Minimum => (dt.is_int() || dt.is_real_float()).then_some(dt),
            Pow => dt.is_numeric().then_some(dt),
            Atan2 | Hypot | Copysign | LogAddExp | NextAfter => {
                if dt.is_real_float() {
                    Some(dt)
                } else if dt.is_int() || dt.is_bool() {
                    Some(DType::F64)
                } else {
                    None
                }
            }
            And | Or | Xor => (dt.is_int() || dt.is_bool()).then_some(dt),
            Shl | Shr => dt.is_int().then_some(dt),
            LogicalAnd | LogicalOr | LogicalXor => Some(DType::Bool),
            Eq | Ne => Some(dt),
            Lt | Le | Gt | Ge => (!dt.is_complex()).then_some(dt),
        }
    }
}

/// `op(a, b)` with promotion and broadcasting.
pub fn binary(op: Bin, a: &Data, b: &Data) -> PyResult<Data> {
    let promoted = a.dtype().promote(b.dtype());
    let dt = op
        .compute_dtype(promoted)
        .ok_or_else(|| dtype_error(op.name(), promoted))?;
    let (a, b) = (a.astype(dt), b.astype(dt));
    broadcast_shapes(a.shape(), b.shape(), op.name()).py()?;
    eval(op, &a, &b)
}

use crate::pair_of as pair;

/// `op` on two arrays already of one dtype and broadcastable shapes.
fn eval(op: Bin, a: &Data, b: &Data) -> PyResult<Data> {
    let err = || dtype_error(op.name(), a.dtype());
    Ok(match op {
        Bin::Add => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64|C64|C128; x, y => x.try_add(y).py()?.into_data(); return Err(err()))
        }
        Bin::Sub => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64|C64|C128; x, y => x.try_sub(y).py()?.into_data(); return Err(err()))
        }
        Bin::Mul => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64|C64|C128; x, y => x.try_mul(y).py()?.into_data(); return Err(err()))
        }
        Bin::Div => {
            pair!(a, b; F32|F64|C64|C128; x, y => x.try_div(y).py()?.into_data(); return Err(err()))
        }
        Bin::FloorDiv => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.floor_divide(y).py()?.into_data(); return Err(err()))
        }
        Bin::Rem => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.remainder(y).py()?.into_data(); return Err(err()))
        }
        Bin::Pow => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.pow(y).py()?.into_data();
            pair!(a, b; C64|C128; x, y => ferrotensor::ops::ComplexMath::pow(x, y).py()?.into_data(); return Err(err())))
        }
        Bin::Maximum => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.maximum(y).py()?.into_data(); return Err(err()))
        }
        Bin::Minimum => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.minimum(y).py()?.into_data(); return Err(err()))
        }
        Bin::Atan2 => pair!(a, b; F32|F64; x, y => x.atan2(y).py()?.into_data(); return Err(err())),
        Bin::Hypot => pair!(a, b; F32|F64; x, y => x.hypot(y).py()?.into_data(); return Err(err())),
        Bin::Copysign => {
            pair!(a, b; F32|F64; x, y => x.copysign(y).py()?.into_data(); return Err(err()))
        }
        Bin::LogAddExp => {
            pair!(a, b; F32|F64; x, y => x.logaddexp(y).py()?.into_data(); return Err(err()))
        }
        Bin::NextAfter => {
            pair!(a, b; F32|F64; x, y => x.nextafter(y).py()?.into_data(); return Err(err()))
        }
        Bin::And | Bin::LogicalAnd => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64; x, y => (x & y).into_data(); return Err(err()))
        }
        Bin::Or | Bin::LogicalOr => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64; x, y => (x | y).into_data(); return Err(err()))
        }
        Bin::Xor | Bin::LogicalXor => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64; x, y => (x ^ y).into_data(); return Err(err()))
        }
        Bin::Shl => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64; x, y => x.try_shl(y).py()?.into_data(); return Err(err()))
        }
        Bin::Shr => {
            pair!(a, b; I8|I16|I32|I64|U8|U16|U32|U64; x, y => x.try_shr(y).py()?.into_data(); return Err(err()))
        }
        Bin::Eq => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64|C64|C128; x, y => x.eq(y).py()?.into_data(); return Err(err()))
        }
        Bin::Ne => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64|C64|C128; x, y => x.ne(y).py()?.into_data(); return Err(err()))
        }
        Bin::Lt => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.lt(y).py()?.into_data(); return Err(err()))
        }
        Bin::Le => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.le(y).py()?.into_data(); return Err(err()))
        }
        Bin::Gt => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.gt(y).py()?.into_data(); return Err(err()))
        }
        Bin::Ge => {
            pair!(a, b; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; x, y => x.ge(y).py()?.into_data(); return Err(err()))
        }
    })
}

/// The unary element-wise operations.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Un {
    Abs,
    Acos,
    Acosh,
    Asin,
    Asinh,
    Atan,
    Atanh,
    Cos,
    Cosh,
    Exp,
    Expm1,
    Log,
    Log1p,
    Log2,
    Log10,
    Sin,
    Sinh,
    Sqrt,
    Tan,
    Tanh,
    Ceil,
    Floor,
    Round,
    Trunc,
    Sign,
    Signbit,
    IsFinite,
    IsInf,
    IsNan,
    LogicalNot,
    Invert,
    Negative,
    Positive,
    Square,
    Reciprocal,
    Conj,
    Real,
    Imag,
}

impl Un {
    /// The standard's name of the function.
    pub fn name(self) -> &'static str {
        use Un::*;
        match self {
            Abs => "abs",
            Acos => "acos",
            Acosh => "acosh",
            Asin => "asin",
            Asinh => "asinh",
            Atan => "atan",
            Atanh => "atanh",
            Cos => "cos",
            Cosh => "cosh",
            Exp => "exp",
            Expm1 => "expm1",
            Log => "log",
            Log1p => "log1p",
            Log2 => "log2",
            Log10 => "log10",
            Sin => "sin",
            Sinh => "sinh",
            Sqrt => "sqrt",
            Tan => "tan",
            Tanh => "tanh",
            Ceil => "ceil",
            Floor => "floor",
            Round => "round",
            Trunc => "trunc",
            Sign => "sign",
            Signbit => "signbit",
            IsFinite => "isfinite",
            IsInf => "isinf",
            IsNan => "isnan",
            LogicalNot => "logical_not",
            Invert => "bitwise_invert",
            Negative => "negative",
            Positive => "positive",
            Square => "square",
            Reciprocal => "reciprocal",
            Conj => "conj",
            Real => "real",
            Imag => "imag",
        }
    }

    /// True for the transcendental functions (computed in floats; integer input is
    /// promoted to the default float, as NumPy).
    fn is_transcendental(self) -> bool {
        use Un::*;
        matches!(
            self,
            Acos | Acosh
                | Asin
                | Asinh
                | Atan
                | Atanh
                | Cos
                | Cosh
                | Exp
                | Expm1
                | Log
                | Log1p
                | Log2
                | Log10
                | Sin
                | Sinh
                | Sqrt
                | Tan
                | Tanh
                | Reciprocal
                | Signbit
        )
    }
}

macro_rules! float_fn {
    ($x:expr, $m:ident, $err:expr) => {
        $crate::each_float!($x, t => t.$m().into_data(), _ => return Err($err))
    };
}

/// Zeros of `t`'s shape and element type.
fn zeros_of<T: crate::data::Elem>(t: &ferrotensor::TensorArc<T, ferrotensor::IxDyn>) -> Data {
    ferrotensor::Tensor::<T, ferrotensor::IxDyn>::full(t.shape().to_vec(), T::default()).into_data()
}

/// `op(x)`.
pub fn unary(op: Un, x: &Data) -> PyResult<Data> {
    use Un::*;
    let dt = x.dtype();
    if dt.is_complex() {
        return complex_unary(op, x);
    }
    let x = if op.is_transcendental() && !dt.is_float() {
        x.astype(DType::F64)
    } else {
        x.clone()
    };
    let x = &x;
    let err = || dtype_error(op.name(), dt);
    Ok(match op {
        Acos => float_fn!(x, acos, err()),
        Acosh => float_fn!(x, acosh, err()),
        Asin => float_fn!(x, asin, err()),
        Asinh => float_fn!(x, asinh, err()),
        Atan => float_fn!(x, atan, err()),
        Atanh => float_fn!(x, atanh, err()),
        Cos => float_fn!(x, cos, err()),
        Cosh => float_fn!(x, cosh, err()),
        Exp => float_fn!(x, exp, err()),
        Expm1 => float_fn!(x, expm1, err()),
        Log => float_fn!(x, ln, err()),
        Log1p => float_fn!(x, log1p, err()),
        Log2 => float_fn!(x, log2, err()),
        Log10 => float_fn!(x, log10, err()),
        Sin => float_fn!(x, sin, err()),
        Sinh => float_fn!(x, sinh, err()),
        Sqrt => float_fn!(x, sqrt, err()),
        Tan => float_fn!(x, tan, err()),
        Tanh => float_fn!(x, tanh, err()),
        Reciprocal => float_fn!(x, recip, err()),
        Signbit => crate::each_float!(x, t => t.signbit().into_data(), _ => return Err(err())),
        Ceil | Floor | Round | Trunc if dt.is_int() => x.copy(),
        Ceil => float_fn!(x, ceil, err()),
        Floor => float_fn!(x, floor, err()),
        Round => float_fn!(x, round, err()),
        Trunc => float_fn!(x, trunc, err()),
        Abs => crate::each_real!(x, t => t.abs().into_data(), _ => return Err(err())),
        Sign => crate::each_real!(x, t => t.sign().into_data(), _ => return Err(err())),
        IsFinite | IsInf | IsNan if dt.is_bool() => match x {
            Data::Bool(t) => t.map(|_| op == IsFinite).into_data(),
            _ => unreachable!("bool"),
        },
        IsFinite => crate::each_real!(x, t => t.isfinite().into_data(), _ => return Err(err())),
        IsInf => crate::each_real!(x, t => t.isinf().into_data(), _ => return Err(err())),
        IsNan => crate::each_real!(x, t => t.isnan().into_data(), _ => return Err(err())),
        LogicalNot => match x.astype(DType::Bool) {
            Data::Bool(t) => (!&t).into_data(),
            _ => unreachable!("cast to bool"),
        },
        Invert => crate::each_int_bool!(x, t => (!t).into_data(), _ => return Err(err())),
        Negative => crate::each_num!(x, t => t.neg().into_data(), _ => return Err(err())),
        Positive => crate::each_num!(x, t => t.to_owned().into_data(), _ => return Err(err())),
        Square => crate::each_num!(x, t => t.square().into_data(), _ => return Err(err())),
        Real | Conj if !dt.is_complex() => x.copy(),
        Imag if !dt.is_complex() => crate::each_all!(x, t => zeros_of(t)),
        Real | Conj | Imag => return Err(err()),
    })
}

/// `op(x)` for a complex `x` (the crate's `ComplexMath`).
fn complex_unary(op: Un, x: &Data) -> PyResult<Data> {
    use Un::*;
    use ferrotensor::ops::ComplexMath as Cm;
    macro_rules! cm {
        ($m:ident) => {
            crate::each_complex!(x, t => Cm::$m(t).into_data(), _ => unreachable!("complex"))
        };
    }
    Ok(match op {
        Abs => cm!(abs),
        Acos => cm!(acos),
        Acosh => cm!(acosh),
        Asin => cm!(asin),
        Asinh => cm!(asinh),
        Atan => cm!(atan),
        Atanh => cm!(atanh),
        Cos => cm!(cos),
        Cosh => cm!(cosh),
        Exp => cm!(exp),
        Expm1 => cm!(expm1),
        Log => cm!(ln),
        Log1p => cm!(log1p),
        Log2 => cm!(log2),
        Log10 => cm!(log10),
        Sin => cm!(sin),
        Sinh => cm!(sinh),
        Sqrt => cm!(sqrt),
        Tan => cm!(tan),
        Tanh => cm!(tanh),
        Round => cm!(round),
        Sign => cm!(sign),
        Reciprocal => cm!(recip),
        IsFinite => cm!(isfinite),
        IsInf => cm!(isinf),
        IsNan => cm!(isnan),
        Conj => cm!(conj),
        Real => cm!(real),
        Imag => cm!(imag),
        Negative => crate::each_complex!(x, t => t.neg().into_data(), _ => unreachable!()),
        Positive => x.copy(),
        Square => crate::each_complex!(x, t => t.square().into_data(), _ => unreachable!()),
        Ceil | Floor | Trunc | Signbit | LogicalNot | Invert => {
            return Err(dtype_error(op.name(), x.dtype()));
        }
    })
}

macro_rules! binary_fns {
    ($($name:ident => $op:expr),* $(,)?) => {
        $(
            #[pyfunction]
            #[pyo3(signature = (x1, x2, /))]
            fn $name(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> PyResult<crate::array::Array> {
                let (a, b) = crate::scalar::pair_args(stringify!($name), x1, x2)?;
                Ok(binary($op, &a, &b)?.into())
            }
        )*
        fn register_binary(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
}

binary_fns!(
    add => Bin::Add, subtract => Bin::Sub, multiply => Bin::Mul, divide => Bin::Div,
    floor_divide => Bin::FloorDiv, remainder => Bin::Rem, pow => Bin::Pow, atan2 => Bin::Atan2,
    hypot => Bin::Hypot, copysign => Bin::Copysign, logaddexp => Bin::LogAddExp,
    nextafter => Bin::NextAfter, maximum => Bin::Maximum, minimum => Bin::Minimum,
    bitwise_and => Bin::And, bitwise_or => Bin::Or, bitwise_xor => Bin::Xor,
    bitwise_left_shift => Bin::Shl, bitwise_right_shift => Bin::Shr,
    logical_and => Bin::LogicalAnd, logical_or => Bin::LogicalOr, logical_xor => Bin::LogicalXor,
    equal => Bin::Eq, not_equal => Bin::Ne, less => Bin::Lt, less_equal => Bin::Le,
    greater => Bin::Gt, greater_equal => Bin::Ge,
);

macro_rules! unary_fns {
    ($($name:ident => $op:expr),* $(,)?) => {
        $(
            #[pyfunction]
            #[pyo3(signature = (x, /))]
            fn $name(x: &Bound<'_, PyAny>) -> PyResult<crate::array::Array> {
                let d = crate::array::data_of(x, stringify!($name))?;
                Ok(unary($op, &d)?.into())
            }
        )*
        fn register_unary(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
}

unary_fns!(
    abs => Un::Abs, acos => Un::Acos, acosh => Un::Acosh, asin => Un::Asin, asinh => Un::Asinh,
    atan => Un::Atan, atanh => Un::Atanh, cos => Un::Cos, cosh => Un::Cosh, exp => Un::Exp,
    expm1 => Un::Expm1, log => Un::Log, log1p => Un::Log1p, log2 => Un::Log2, log10 => Un::Log10,
    sin => Un::Sin, sinh => Un::Sinh, sqrt => Un::Sqrt, tan => Un::Tan, tanh => Un::Tanh,
    ceil => Un::Ceil, floor => Un::Floor, round => Un::Round, trunc => Un::Trunc, sign => Un::Sign,
    signbit => Un::Signbit, isfinite => Un::IsFinite, isinf => Un::IsInf, isnan => Un::IsNan,
    logical_not => Un::LogicalNot, bitwise_invert => Un::Invert, negative => Un::Negative,
    positive => Un::Positive, square => Un::Square, reciprocal => Un::Reciprocal, conj => Un::Conj,
    real => Un::Real, imag => Un::Imag,
);

/// Registers the element-wise functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    register_binary(m)?;
    m.add_function(wrap_pyfunction!(clip, m)?)?;
    register_unary(m)
}

/// A bound of `clip` as an array of `dt` (`None` stays `None`).
fn clip_bound(b: Option<&Bound<'_, PyAny>>, dt: DType) -> PyResult<Option<Data>> {
    let Some(b) = b.filter(|b| !b.is_none()) else {
        return Ok(None);
    };
    if let Ok(a) = b.cast::<crate::array::Array>() {
        return Ok(Some(a.borrow().data.astype(dt)));
    }
    match crate::scalar::as_scalar(b)? {
        Some(crate::scalar::Scalar::Int(i)) if dt.is_int() => {
            // a bound outside the dtype's range clips nothing (or everything)
            let (lo, hi) = crate::scalar::int_range(dt).expect("integer dtype");
            let w = ferrotensor::ops::cast::Wide::Int(i.clamp(lo, hi));
            Ok(Some(crate::data::scalar_data(w, dt)))
        }
        Some(s) => Ok(Some(crate::data::scalar_data(s.wide(), dt))),
        None => Err(pyo3::exceptions::PyTypeError::new_err(
            "clip: bounds must be arrays or Python scalars",
        )),
    }
}

/// `clip(x, /, min=None, max=None)`: `minimum(maximum(x, min), max)` in `x`'s dtype.
#[pyfunction]
#[pyo3(signature = (x, /, min = None, max = None))]
fn clip(
    x: &Bound<'_, PyAny>,
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
) -> PyResult<crate::array::Array> {
    let d = crate::array::data_of(x, "clip")?;
    let dt = d.dtype();
    if dt.is_complex() || dt.is_bool() {
        return Err(dtype_error("clip", dt));
    }
    let mut out = d.clone();
    if let Some(lo) = clip_bound(min, dt)? {
        out = binary(Bin::Maximum, &out, &lo)?;
    }
    if let Some(hi) = clip_bound(max, dt)? {
        out = binary(Bin::Minimum, &out, &hi)?;
    }
    if min.is_none_or(|m| m.is_none()) && max.is_none_or(|m| m.is_none()) {
        return Ok(d.copy().into());
    }
    Ok(out.into())
}
