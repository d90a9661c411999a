#!/usr/bin/env python3
"""Golden cases for the conventions added by issue 15 (tests/api_golden.rs).

NumPy gives: round(a, decimals), left_shift / right_shift (counts at and beyond the bit
width; negative counts, which NumPy leaves to the C compiler, are an error in
ferrotensor and tested there), var / std with a fractional ddof, np.add.at along an axis, and
lib.stride_tricks.sliding_window_view. PyTorch gives the descending stable sort and
argsort (NumPy has none): torch.sort(x, dim, descending=True, stable=True).

Floats are encoded as strings (Python's shortest round-trip repr) or "nan" / "inf" /
"-inf"; errors are recorded as {"error": true}.

Usage (needs numpy and torch, e.g. the torch venv):
    /work/torchenv/bin/python tests/golden/gen_api.py   (writes api.json next to it)
CI never runs this script: it only reads the committed api.json.
"""

import json
import os
import warnings

import numpy as np
import torch
from numpy.lib.stride_tricks import sliding_window_view

SEED = 20250915
rng = np.random.default_rng(SEED)
warnings.simplefilter("ignore")


def enc(x):
    x = np.asarray(x)
    if x.dtype.kind == "f":
        def one(v):
            v = float(v)
            if np.isnan(v):
                return "nan"
            if np.isinf(v):
                return "inf" if v > 0 else "-inf"
            return repr(v)
        return [one(v) for v in x.ravel()]
    return [int(v) for v in x.ravel()]


def arr(x):
    x = np.asarray(x)
    return {"dtype": str(x.dtype), "shape": list(x.shape), "data": enc(x)}


cases = []

# round(a, decimals): ties, values just off a tie, negatives, zeros, specials, large.
specials = [2.675, 0.285, 1.005, -1.005, 0.125, -0.125, 2.5, -2.5, 1234.5678, -0.0, 0.0,
            np.nan, np.inf, -np.inf, 1e300, -1e-300, 123456789.987654321, 5e-324]
vals = np.concatenate([np.array(specials), rng.normal(0, 1000, 40), rng.uniform(-1, 1, 40)])
for dt in ["float64", "float32"]:
    x = vals.astype(dt)
    for d in [-3, -1, 0, 1, 2, 3, 5, 10, 20]:
        cases.append({"op": "round_decimals", "x": arr(x), "decimals": d, "out": arr(np.round(x, d))})

# Shifts: every count from 0 to width + 2 against a few values per type.
for dt in ["int8", "uint8", "int16", "int32", "int64", "uint32", "uint64"]:
    info = np.iinfo(dt)
    bits = np.dtype(dt).itemsize * 8
    signed = info.min < 0
    xs = np.array([0, 1, 5, 127, int(info.max)] + ([-1, -7, int(info.min)] if signed else []), dtype=dt)
    counts = list(range(0, bits + 3))
    cs = np.array(counts, dtype=dt)
    x2, c2 = np.meshgrid(xs, cs, indexing="ij")
    cases.append({"op": "left_shift", "x": arr(x2), "y": arr(c2), "out": arr(np.left_shift(x2, c2))})
    cases.append({"op": "right_shift", "x": arr(x2), "y": arr(c2), "out": arr(np.right_shift(x2, c2))})

# var / std with fractional ddof, over all elements and along each axis.
for dt in ["float64", "float32"]:
    x = rng.normal(3, 2, (4, 5)).astype(dt)
    x[1, 2] = np.nan if dt == "float32" else x[1, 2]
    for ddof in [0, 0.5, 1, 1.5, 3.25, 4, 4.5, 20, 20.5]:
        for axis in [None, 0, 1]:
            for op, f in [("var", np.var), ("std", np.std)]:
                cases.append({"op": op, "x": arr(x), "ddof": ddof, "axis": axis,
                              "out": arr(f(x, axis=axis, ddof=ddof))})

# np.add.at along an axis: repeated and negative indices, broadcast values, errors.
for shape, axis, idx, vshape in [((5,), 0, [0, 1, 1, -1, 0], (5,)), ((4, 3), 0, [3, 3, 0], (3, 3)),
                                 ((4, 3), 1, [2, -3, 2, 2], (4, 4)), ((4, 3), 1, [0], (1,)),
                                 ((2, 3, 4), 2, [1, 1, 3], (3,)), ((2, 3, 4), -2, [0, 2, 0, 1], (2, 4, 1)),
                                 ((3,), 0, [], (0,)), ((3,), 0, [3], (1,)), ((3,), 0, [-4], (1,)),
                                 ((2, 3), 0, [0, 1], (3, 3))]:
    for dt in ["float64", "int64"]:
        a = rng.integers(-9, 9, shape).astype(dt)
        v = rng.integers(-9, 9, vshape).astype(dt)
        case = {"op": "add_at", "a": arr(a), "axis": axis, "indices": idx, "values": arr(v)}
        try:
            out = a.copy()
            ax = axis % a.ndim
            target = list(a.shape)
            target[ax] = len(idx)
            vb = np.broadcast_to(v, target)
            key = tuple([slice(None)] * ax + [np.array(idx, dtype=np.int64)])
            np.add.at(out, key, vb)
            case["out"] = arr(out)
        except (IndexError, ValueError):
            case["error"] = True
        cases.append(case)

# sliding_window_view: shapes, windows, axes (repeats allowed), errors.
for shape, window, axes in [((6,), [3], None), ((6,), [6], None), ((6,), [0], None), ((3, 4), [2, 2], None),
                            ((3, 4), [3], [1]), ((3, 4), [2, 2], [1, 1]), ((2, 3, 4), [2], [-1]),
                            ((2, 3, 4), [2, 3], [0, 2]), ((3, 4), [5], [1]), ((3, 4), [2], None),
                            ((3, 4), [2], [2]), ((0, 4), [0, 2], None)]:
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    case = {"op": "sliding_window_view", "x": arr(x), "window": window, "axes": axes}
    try:
        w = sliding_window_view(x, window, axis=None if axes is None else tuple(axes))
        case["out"] = arr(w)
    except ValueError:
        case["error"] = True
    cases.append(case)

# Descending stable sort / argsort (PyTorch): NaNs, signed zeros, duplicates, strided input.
base = np.array([3.0, np.nan, -0.0, 1.0, 0.0, 3.0, -np.inf, np.inf, 1.0, np.nan, -2.5, 0.0])
for dt, tdt in [("float64", torch.float64), ("float32", torch.float32)]:
    x = np.concatenate([base, rng.integers(-3, 4, 28).astype(float)]).astype(dt).reshape(5, 8)
    for dim in [0, 1, -1]:
        t = torch.from_numpy(x.copy())
        s = torch.sort(t, dim=dim, descending=True, stable=True)
        cases.append({"op": "sort_descending", "x": arr(x), "axis": dim,
                      "values": arr(s.values.numpy()), "indices": arr(s.indices.numpy())})
for dt in ["int32", "int64", "uint8"]:
    x = rng.integers(0 if dt == "uint8" else -5, 6, (4, 9)).astype(dt)
    for dim in [0, 1]:
        t = torch.from_numpy(x.astype(np.int64))
        s = torch.sort(t, dim=dim, descending=True, stable=True)
        cases.append({"op": "sort_descending", "x": arr(x), "axis": dim,
                      "values": arr(s.values.numpy().astype(dt)), "indices": arr(s.indices.numpy())})

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api.json")
with open(path, "w") as fh:
    json.dump({"seed": SEED, "numpy": np.__version__, "torch": torch.__version__, "cases": cases}, fh,
              separators=(",", ":"))
print(f"wrote {len(cases)} cases to {path}")
