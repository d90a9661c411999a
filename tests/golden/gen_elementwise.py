#!/usr/bin/env python3
"""Generate golden cases for ferrotensor's element-wise operations (tests/elementwise_golden.rs).

* "broadcast": pairs of shapes and NumPy's broadcast shape, or null when NumPy raises.
* "binary": an operation applied to two operands with mixed layouts. Each operand is
  a contiguous base array (shape, row-major data) plus a view recipe that the Rust
  test applies with its own view operations:
    "c" as is, "t" transpose, "flip" reverse axis 0, "step" every 2nd row reversed
    ([::-2] on axis 0), "bcast_row" the base's first row kept as shape (1, n),
    "col" base reshaped to a column (k, 1).
  Floats are encoded as strings (Python's shortest round-trip repr, parsed exactly by
  Rust's `str::parse`), or "nan" / "inf" / "-inf".
* "unary": NumPy's result of a unary function on float64 inputs.

Usage: python3 tests/golden/gen_elementwise.py  (needs numpy and scipy; writes elementwise.json next to it)
"""

import json
import os
import warnings

import numpy as np
import scipy.special

SEED = 20240612
rng = np.random.default_rng(SEED)
warnings.simplefilter("ignore")


def enc(x):
    x = np.asarray(x)
    out = []
    for v in x.reshape(-1).tolist():
        if isinstance(v, float):
            if v != v:
                out.append("nan")
            elif v == float("inf"):
                out.append("inf")
            elif v == float("-inf"):
                out.append("-inf")
            else:
                out.append(repr(v))
        elif isinstance(v, bool):
            out.append(int(v))
        else:
            out.append(v)
    return out


# ---------------------------------------------------------------- broadcasting
shape_pairs = [
    ((8, 1, 6, 1), (7, 1, 5)), ((1, 3), (3, 1)), ((), (0,)), ((5, 4), (1,)), ((5, 4), (4,)),
    ((15, 3, 5), (15, 1, 5)), ((15, 3, 5), (3, 5)), ((15, 3, 5), (3, 1)), ((3,), (4,)),
    ((2, 1), (8, 4, 3)), ((0, 1), (1, 3)), ((0,), (2,)), ((1, 0), (5, 1)), ((2, 3), (2, 3, 1)),
    ((1,), ()), ((4, 1, 2), (3, 1)), ((6, 7), (7, 6)), ((1, 1, 1), (2,)),
]
broadcast = []
for a, b in shape_pairs:
    try:
        r = list(np.broadcast_shapes(a, b))
    except ValueError:
        r = None
    broadcast.append({"a": list(a), "b": list(b), "out": r})


# ---------------------------------------------------------------- binary ops
def view(base, recipe):
    if recipe == "c":
        return base
    if recipe == "t":
        return base.T
    if recipe == "flip":
        return base[::-1]
    if recipe == "step":
        return base[::-2]
    if recipe == "bcast_row":
        return base[:1]
    if recipe == "col":
        return base.reshape(-1, 1)
    raise ValueError(recipe)


def operand(dtype, shape, recipe, special=False):
    if dtype == "float64":
        base = rng.uniform(-5, 5, size=shape).round(3)
        if special:
            flat = base.reshape(-1)
            picks = [np.nan, np.inf, -np.inf, 0.0, -0.0]
            for k in range(min(len(picks), flat.size)):
                flat[rng.integers(flat.size)] = picks[k]
    else:
        base = rng.integers(-9, 10, size=shape).astype(np.int64)
    return base, view(base, recipe)


FLOAT_OPS = ["add", "subtract", "multiply", "divide", "remainder", "fmod", "floor_divide", "power",
             "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot", "copysign"]
INT_OPS = ["add", "subtract", "multiply", "remainder", "fmod", "floor_divide", "maximum", "minimum"]
# (a base shape, a recipe, b base shape, b recipe): result shapes broadcast together
LAYOUTS = [
    ((3, 4), "c", (3, 4), "c"),
    ((4, 3), "t", (3, 4), "c"),
    ((3, 4), "c", (4, 3), "t"),
    ((5, 4), "flip", (5, 4), "c"),
    ((6, 4), "step", (3, 4), "flip"),
    ((3, 4), "c", (2, 4), "bcast_row"),
    ((3,), "col", (4, 3), "t"),
    ((4, 3), "t", (3, 4), "flip"),
    ((2, 3, 4), "c", (4,), "c"),
]
binary = []
for dtype, ops in (("float64", FLOAT_OPS), ("int64", INT_OPS)):
    for op in ops:
        for k, (sa, ra, sb, rb) in enumerate(LAYOUTS):
            special = dtype == "float64" and k % 3 == 1
            base_a, va = operand(dtype, sa, ra, special)
            base_b, vb = operand(dtype, sb, rb, special)
            if dtype == "int64" and op in ("remainder", "fmod", "floor_divide"):
                base_b[base_b == 0] = 3
                vb = view(base_b, rb)
            out = getattr(np, op)(va, vb)
            binary.append({
                "op": op, "dtype": dtype,
                "a": {"shape": list(sa), "data": enc(base_a), "view": ra},
                "b": {"shape": list(sb), "data": enc(base_b), "view": rb},
                "out_shape": list(out.shape), "out": enc(out),
            })

# integer division and remainder signs, incl. extremes
for op in ("floor_divide", "remainder", "fmod"):
    a = np.array([7, -7, 7, -7, 0, 1, -1, 9, -9, np.iinfo(np.int64).min + 1], dtype=np.int64)
    b = np.array([2, 2, -2, -2, 5, -3, 3, 3, 3, 7], dtype=np.int64)
    binary.append({"op": op, "dtype": "int64",
                   "a": {"shape": [10], "data": enc(a), "view": "c"},
                   "b": {"shape": [10], "data": enc(b), "view": "c"},
                   "out_shape": [10], "out": enc(getattr(np, op)(a, b))})
# NaN behaviour of maximum/minimum/fmax/fmin
nan = np.nan
a = np.array([nan, 1.0, nan, 2.0, -0.0, 0.0, np.inf, -np.inf])
b = np.array([1.0, nan, nan, 3.0, 0.0, -0.0, nan, 5.0])
for op in ("maximum", "minimum", "fmax", "fmin"):
    binary.append({"op": op, "dtype": "float64",
                   "a": {"shape": [8], "data": enc(a), "view": "c"},
                   "b": {"shape": [8], "data": enc(b), "view": "c"},
                   "out_shape": [8], "out": enc(getattr(np, op)(a, b))})

# ---------------------------------------------------------------- unary ops
xs = np.concatenate([rng.uniform(-3, 3, 40), [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, nan, np.inf, -np.inf]])
pos = np.concatenate([rng.uniform(0.01, 10, 30), [1.0, 0.0, np.inf, nan]])
unit = np.concatenate([rng.uniform(-0.99, 0.99, 30), [0.0, 1.0, -1.0, nan]])
ge1 = np.concatenate([rng.uniform(1.0, 10, 30), [1.0, np.inf, nan]])
UNARY = {
    "exp": (np.exp, xs), "exp2": (np.exp2, xs), "expm1": (np.expm1, xs), "ln": (np.log, pos),
    "log2": (np.log2, pos), "log10": (np.log10, pos), "log1p": (np.log1p, pos),
    "sin": (np.sin, xs), "cos": (np.cos, xs), "tan": (np.tan, xs), "asin": (np.arcsin, unit),
    "acos": (np.arccos, unit), "atan": (np.arctan, xs), "sinh": (np.sinh, xs), "cosh": (np.cosh, xs),
    "tanh": (np.tanh, xs), "asinh": (np.arcsinh, xs), "acosh": (np.arccosh, ge1), "atanh": (np.arctanh, unit),
    "abs": (np.abs, xs), "neg": (np.negative, xs), "recip": (np.reciprocal, xs), "square": (np.square, xs),
    "sqrt": (np.sqrt, pos), "cbrt": (np.cbrt, xs), "floor": (np.floor, xs), "ceil": (np.ceil, xs),
    "round": (np.round, xs), "trunc": (np.trunc, xs), "sign": (np.sign, xs),
    "relu": (lambda x: np.where(x < 0, 0.0, x), xs),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), xs),
    "softplus": (lambda x: np.logaddexp(0.0, x), xs),
    "silu": (lambda x: x / (1 + np.exp(-x)), xs),
    # exact GELU 0.5x(1 + erf(x/√2)), written with erfc: no cancellation for x < 0
    "gelu": (lambda x: 0.5 * x * scipy.special.erfc(-x / np.sqrt(2)), xs),
    # 0.5x(1 + tanh(u)) written as x / (1 + e^(-2u)): no cancellation for x < 0
    "gelu_tanh": (lambda x: x / (1 + np.exp(-2 * np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), xs),
}
unary = [{"op": k, "x": enc(x), "out": enc(f(x))} for k, (f, x) in UNARY.items()]

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "elementwise.json")
with open(path, "w") as fh:
    json.dump({"seed": SEED, "numpy": np.__version__, "broadcast": broadcast, "binary": binary, "unary": unary},
              fh, separators=(",", ":"))
print(f"wrote {len(broadcast)} broadcast, {len(binary)} binary and {len(unary)} unary cases to {path}")
