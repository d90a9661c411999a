#!/usr/bin/env python3
"""Golden cases for `ferrotensor::nn`'s pooling (max with indices, average, adaptive and
global average) against PyTorch's CPU kernels: padding, dilation, ceil mode,
count_include_pad, divisor_override, NaN inputs (NaN propagates through max pooling
and through every average), widths wide enough for the vector kernels, f32 and f64.

Needs torch (CI never runs it: the generated nn_pool.json is committed):
    /work/torchenv/bin/python tests/golden/gen_nn_pool.py   (writes nn_pool.json next to it)

Non-finite values are stored as the strings "nan", "inf", "-inf".
"""

import json
import os

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(20261124)
cases = []


def enc(a):
    a = np.asarray(a)
    data = [v if np.isfinite(v) else ("nan" if np.isnan(v) else ("inf" if v > 0 else "-inf"))
            for v in (float(x) for x in a.reshape(-1))]
    return {"shape": list(a.shape), "data": data}


def inp(shape, dtype, nan=0, neg_inf=0):
    """Random normal input with `nan` NaNs and `neg_inf` −∞ at random places."""
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    for v, k in ((np.nan, nan), (-np.inf, neg_inf)):
        flat[rng.choice(flat.size, size=k, replace=False)] = v
    return x


def add(op, params, x, expected, indices=None):
    c = {"op": op, "dtype": str(x.dtype), "params": params, "x": enc(x), "expected": enc(expected)}
    if indices is not None:
        c["indices"] = indices.reshape(-1).tolist()
    cases.append(c)


def max_case(shape, k, s, p, d=(1, 1), ceil=False, nan=0, neg_inf=0, dtype="float64"):
    x = inp(shape, dtype, nan, neg_inf)
    y, i = F.max_pool2d(torch.from_numpy(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    params = {"kernel": list(k), "stride": list(s), "padding": list(p), "dilation": list(d), "ceil_mode": ceil}
    # Indices only where no NaN is in play (PyTorch's index of a NaN window is the NaN's,
    # ours too, but a window with two NaNs may pick either).
    add("max_pool2d", params, x, y.numpy(), i.numpy() if nan == 0 else None)


def avg_case(shape, k, s, p, ceil=False, include_pad=True, divisor=None, nan=0, dtype="float64"):
    x = inp(shape, dtype, nan)
    y = F.avg_pool2d(torch.from_numpy(x), k, s, p, ceil_mode=ceil, count_include_pad=include_pad,
                     divisor_override=divisor)
    params = {"kernel": list(k), "stride": list(s), "padding": list(p), "ceil_mode": ceil,
              "count_include_pad": include_pad, "divisor_override": divisor}
    add("avg_pool2d", params, x, y.numpy())


def adaptive_case(shape, out, nan=0, dtype="float64"):
    x = inp(shape, dtype, nan)
    add("adaptive_avg_pool2d", {"output_size": list(out)}, x, F.adaptive_avg_pool2d(torch.from_numpy(x), out).numpy())


for dt in ("float64", "float32"):
    # The stem's 3×3/2 pad 1 (vector-wide rows), with NaN and −∞.
    max_case((1, 3, 11, 40), (3, 3), (2, 2), (1, 1), dtype=dt)
    max_case((1, 3, 11, 40), (3, 3), (2, 2), (1, 1), nan=9, neg_inf=5, dtype=dt)
    # Stride 1, odd sizes, rectangular kernel and padding, floor and ceil.
    max_case((1, 4, 9, 37), (2, 3), (1, 1), (1, 1), dtype=dt)
    max_case((2, 2, 11, 13), (3, 3), (2, 2), (0, 0), ceil=True, dtype=dt)
    max_case((2, 2, 10, 12), (2, 2), (3, 3), (1, 1), ceil=True, nan=4, dtype=dt)
    max_case((1, 2, 12, 41), (3, 2), (2, 3), (1, 1), d=(2, 2), dtype=dt)
    max_case((1, 2, 15, 15), (3, 3), (2, 2), (1, 1), d=(2, 1), ceil=True, dtype=dt)
    # Average: padding counted or not, ceil windows hanging over the edge, divisor.
    avg_case((1, 3, 11, 40), (3, 3), (2, 2), (1, 1), dtype=dt)
    avg_case((1, 3, 11, 40), (3, 3), (2, 2), (1, 1), include_pad=False, nan=6, dtype=dt)
    avg_case((2, 2, 11, 13), (3, 3), (2, 2), (1, 1), ceil=True, dtype=dt)
    avg_case((2, 2, 11, 13), (3, 3), (2, 2), (1, 1), ceil=True, include_pad=False, dtype=dt)
    avg_case((1, 3, 10, 37), (2, 4), (1, 2), (1, 2), divisor=5, dtype=dt)
    avg_case((1, 2, 9, 9), (4, 4), (3, 3), (2, 0), ceil=True, dtype=dt)
    # Adaptive (windows overlapping when the size does not divide) and global.
    adaptive_case((1, 3, 13, 37), (5, 7), dtype=dt)
    adaptive_case((2, 3, 7, 7), (3, 3), nan=2, dtype=dt)
    adaptive_case((1, 3, 6, 40), (6, 17), dtype=dt)
    adaptive_case((2, 2, 14, 33), (1, 1), dtype=dt)
    adaptive_case((2, 3, 5, 5), (1, 1), nan=1, dtype=dt)

# The stride-2 max kernel (added later, after the cases above so that their random
# inputs stay the same): batch > 1 with NaN and −∞, odd widths around a vector, other
# window widths, ceil mode.
for dt in ("float64", "float32"):
    max_case((2, 3, 9, 35), (3, 3), (2, 2), (1, 1), nan=7, neg_inf=4, dtype=dt)
    max_case((3, 2, 7, 17), (3, 3), (2, 2), (1, 1), ceil=True, dtype=dt)
    max_case((2, 2, 8, 33), (2, 2), (2, 2), (0, 0), ceil=True, nan=3, dtype=dt)
    max_case((1, 2, 11, 31), (5, 5), (2, 2), (2, 2), dtype=dt)
    max_case((1, 2, 10, 21), (4, 4), (2, 2), (1, 1), ceil=True, dtype=dt)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_pool.json"), "w") as f:
    json.dump({"cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases")
