"""Inputs shared by the golden generators under tests/golden/{fft,arrays,linalg_more}/.

Inputs are not stored: operand `op` of a case is filled from an exact formula (also in
tests/breadth_common/mod.rs), NaN may be written at given flat positions, and the result
is viewed through a list of view ops (swap the last two axes, flip an axis, step an axis
by 2, broadcast to a shape), so the Rust side rebuilds the same strided, flipped and
broadcast operands. Results are stored with non-finite floats as strings ("nan", "inf",
"-inf") and complex numbers as [re, im] pairs.
"""
import json
import math
import numpy as np

DT = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
    "i32": np.int32,
    "i64": np.int64,
}


def fill(n, op, dtype):
    """Exact small values: k/4 for k in -5..5 (real part); imaginary part j/8, j in -6..6."""
    i = np.arange(n, dtype=np.int64)
    re = (((i * 7 + 3 + 5 * op) % 11) - 5).astype(np.float64)
    if np.dtype(dtype).kind == "c":
        im = (((i * 5 + 1 + 3 * op) % 13) - 6).astype(np.float64)
        return (re / 4 + 1j * im / 8).astype(dtype)
    if np.dtype(dtype).kind in "iu":
        return re.astype(dtype)
    return (re / 4).astype(dtype)


def build(spec, op, dtype):
    """spec = {"shape": [...], "ops": [...], "nan": [flat positions], "data": [...]}
    (ops, nan, data optional): `data` (flat, complex as [re, im]) replaces the formula."""
    shape = spec["shape"]
    n = int(np.prod(shape)) if shape else 1
    if "data" in spec:
        d = spec["data"]
        if np.dtype(DT[dtype]).kind == "c":
            x = np.array([complex(v[0], v[1]) if isinstance(v, list) else complex(v) for v in d], DT[dtype])
        else:
            x = np.array([v[0] if isinstance(v, list) else v for v in d], DT[dtype])
    else:
        x = fill(n, op, DT[dtype])
    for p in spec.get("nan", []):
        x[p] = np.nan
    x = x.reshape(shape)
    for o in spec.get("ops", []):
        if o[0] == "swap":
            x = np.swapaxes(x, -1, -2)
        elif o[0] == "flip":
            x = np.flip(x, o[1])
        elif o[0] == "step":
            sl = [slice(None)] * x.ndim
            sl[o[1]] = slice(None, None, 2)
            x = x[tuple(sl)]
        elif o[0] == "bcast":
            x = np.broadcast_to(x, o[1])
        else:
            raise ValueError(o)
    return x


def num(v, single=False):
    """A float for JSON: non-finite as a string; single precision to 9 digits (exact)."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float(f"{v:.9g}") if single else v


def encode(r):
    """A result array as {"shape", "dtype", "data"}."""
    r = np.asarray(r)
    single = r.dtype in (np.float16, np.float32, np.complex64)
    if r.dtype.kind == "c":
        data = [[num(v.real, single), num(v.imag, single)] for v in r.ravel()]
    elif r.dtype.kind == "b":
        data = [bool(v) for v in r.ravel()]
    elif r.dtype.kind in "iu":
        data = [int(v) for v in r.ravel()]
    else:
        data = [num(v, single) for v in r.ravel()]
    return {"shape": list(r.shape), "dtype": r.dtype.name, "data": data}


def result(fn):
    """fn() encoded (a tuple becomes a list of results), or {"error": name}."""
    try:
        with np.errstate(all="ignore"):
            r = fn()
    except Exception as e:  # noqa: BLE001 - every NumPy error is an expected error case
        return {"error": type(e).__name__, "message": str(e)}
    if isinstance(r, tuple):
        return {"results": [encode(x) for x in r]}
    return encode(r)


def clean(v):
    """Non-finite floats anywhere in a case (arguments too) as strings."""
    if isinstance(v, float) and not math.isfinite(v):
        return num(v)
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    return v


def write(path, cases):
    with open(path, "w") as f:
        json.dump({"cases": clean(cases)}, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print(f"{path}: {len(cases)} cases")
