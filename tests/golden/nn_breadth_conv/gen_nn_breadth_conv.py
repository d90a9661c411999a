#!/usr/bin/env python3
"""Golden cases for ferrotensor::nn's 1-D/3-D convolution and pooling, transposed
convolutions, adaptive max/average pooling and unfold/fold, against PyTorch's CPU
kernels (torch.nn.functional): stride, padding, dilation, groups, output padding, bias,
ceil mode (with its "last window starts inside the input or left padding" rule),
count_include_pad, divisor_override, NaN inputs, empty batches, 1×1 spatial inputs,
f32 and f64; plus argument sets PyTorch refuses (recorded as "error": true).

Needs torch (CI never runs it: the generated nn_breadth_conv.json is committed):
    /work/torchenv/bin/python tests/golden/nn_breadth_conv/gen_nn_breadth_conv.py

Non-finite values are stored as the strings "nan", "inf", "-inf".
"""

import json
import os

import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.default_rng(20261124)
cases = []


def enc(a):
    a = np.asarray(a)
    data = [v if np.isfinite(v) else ("nan" if np.isnan(v) else ("inf" if v > 0 else "-inf"))
            for v in (float(x) for x in a.reshape(-1))]
    return {"shape": list(a.shape), "data": data}


def rnd(shape, dtype, nan=0):
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    if nan and flat.size:
        flat[rng.choice(flat.size, size=nan, replace=False)] = np.nan
    return x


def add(op, dtype, params, inputs, fn):
    """Runs fn(*torch inputs); records the output (and indices) or that torch refused."""
    c = {"op": op, "dtype": dtype, "params": params,
         "inputs": {k: enc(v) for k, v in inputs.items()}}
    try:
        out = fn(*[torch.from_numpy(np.ascontiguousarray(v)) for v in inputs.values()])
    except (RuntimeError, ValueError) as e:
        c["error"] = True
        c["torch_message"] = str(e).splitlines()[0][:200]
        cases.append(c)
        return
    if isinstance(out, tuple):
        out, idx = out
        c["indices"] = idx.numpy().reshape(-1).tolist()
    c["expected"] = enc(out.numpy())
    cases.append(c)


def conv3d(dtype, xs, ws, stride=1, padding=0, dilation=1, groups=1, bias=False):
    x, w = rnd(xs, dtype), rnd(ws, dtype)
    inputs = {"x": x, "w": w}
    if bias:
        inputs["b"] = rnd([ws[0]], dtype)
    t3 = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * 3
    p = {"stride": t3(stride), "padding": t3(padding), "dilation": t3(dilation), "groups": groups}
    add("conv3d", dtype, p, inputs,
        lambda x, w, b=None: F.conv3d(x, w, b, p["stride"], p["padding"], p["dilation"], groups))


def convt(dim, dtype, xs, ws, stride=1, padding=0, output_padding=0, dilation=1, groups=1, bias=False):
    x, w = rnd(xs, dtype), rnd(ws, dtype)
    inputs = {"x": x, "w": w}
    if bias:
        inputs["b"] = rnd([ws[1] * groups], dtype)
    tn = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * dim
    p = {"stride": tn(stride), "padding": tn(padding), "output_padding": tn(output_padding),
         "dilation": tn(dilation), "groups": groups}
    f = F.conv_transpose1d if dim == 1 else F.conv_transpose3d
    add(f"conv_transpose{dim}d", dtype, p, inputs,
        lambda x, w, b=None: f(x, w, b, p["stride"], p["padding"], p["output_padding"], groups, p["dilation"]))


def maxpool(dim, dtype, xs, k, s=None, p=0, d=1, ceil=False, nan=0):
    tn = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * dim
    s = k if s is None else s
    params = {"kernel": tn(k), "stride": tn(s), "padding": tn(p), "dilation": tn(d), "ceil_mode": ceil}
    f = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[dim]
    add(f"max_pool{dim}d", dtype, params, {"x": rnd(xs, dtype, nan)},
        lambda x: f(x, params["kernel"], params["stride"], params["padding"], params["dilation"],
                    ceil_mode=ceil, return_indices=True))


def avgpool(dim, dtype, xs, k, s=None, p=0, ceil=False, include_pad=True, divisor=None, nan=0):
    tn = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * dim
    s = k if s is None else s
    params = {"kernel": tn(k), "stride": tn(s), "padding": tn(p), "ceil_mode": ceil,
              "count_include_pad": include_pad, "divisor_override": divisor}
    if dim == 1:
        fn = lambda x: F.avg_pool1d(x, params["kernel"], params["stride"], params["padding"], ceil, include_pad)
    else:
        f = {2: F.avg_pool2d, 3: F.avg_pool3d}[dim]
        fn = lambda x: f(x, params["kernel"], params["stride"], params["padding"], ceil, include_pad, divisor)
    add(f"avg_pool{dim}d", dtype, params, {"x": rnd(xs, dtype, nan)}, fn)


def adaptive(kind, dim, dtype, xs, out, nan=0):
    f = getattr(F, f"adaptive_{kind}_pool{dim}d")
    params = {"output_size": list(out)}
    if kind == "max":
        fn = lambda x: f(x, list(out) if dim > 1 else out[0], return_indices=True)
    else:
        fn = lambda x: f(x, list(out) if dim > 1 else out[0])
    add(f"adaptive_{kind}_pool{dim}d", dtype, params, {"x": rnd(xs, dtype, nan)}, fn)


def unfold_case(dtype, xs, k, d=1, p=0, s=1):
    t2 = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * 2
    params = {"kernel": t2(k), "dilation": t2(d), "padding": t2(p), "stride": t2(s)}
    add("unfold", dtype, params, {"x": rnd(xs, dtype)},
        lambda x: F.unfold(x, params["kernel"], params["dilation"], params["padding"], params["stride"]))


def fold_case(dtype, n, c, out, k, d=1, p=0, s=1, l=None):
    t2 = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * 2
    params = {"output_size": list(out), "kernel": t2(k), "dilation": t2(d), "padding": t2(p), "stride": t2(s)}
    kk = params["kernel"]
    if l is None:
        l = 1
        for a in range(2):
            span = params["dilation"][a] * (kk[a] - 1) + 1
            l *= max((out[a] + 2 * params["padding"][a] - span) // params["stride"][a] + 1, 0)
    add("fold", dtype, params, {"x": rnd([n, c * kk[0] * kk[1], l], dtype)},
        lambda x: F.fold(x, params["output_size"], params["kernel"], params["dilation"], params["padding"],
                         params["stride"]))


for dt in ("float32", "float64"):
    # conv3d
    conv3d(dt, [2, 3, 5, 6, 7], [4, 3, 3, 3, 3])
    conv3d(dt, [1, 4, 6, 5, 9], [6, 2, 2, 3, 2], stride=(2, 1, 3), padding=(1, 2, 0), dilation=(2, 1, 2), groups=2, bias=True)
    conv3d(dt, [2, 4, 3, 4, 5], [8, 4, 1, 1, 1], bias=True)               # pointwise
    conv3d(dt, [0, 3, 4, 4, 4], [2, 3, 2, 2, 2])                           # empty batch
    conv3d(dt, [2, 2, 1, 1, 1], [3, 2, 3, 3, 3], padding=1, bias=True)     # 1×1×1 spatial
    conv3d(dt, [1, 3, 4, 4, 4], [2, 3, 2, 2, 2], groups=2)                 # groups ∤ C: error
    conv3d(dt, [1, 2, 2, 2, 2], [1, 2, 3, 3, 3])                           # kernel > input: error
    conv3d(dt, [1, 2, 4, 4], [1, 2, 3, 3])                                 # rank 4: error
    # transposed convolutions
    convt(1, dt, [2, 4, 7], [4, 3, 3], stride=2, padding=1, output_padding=1, bias=True)
    convt(1, dt, [1, 4, 5], [4, 2, 4], stride=3, dilation=2, output_padding=2, groups=2)
    convt(1, dt, [0, 2, 5], [2, 3, 2])
    convt(1, dt, [1, 3, 4], [3, 2, 2], groups=2)                            # error
    convt(3, dt, [2, 3, 3, 4, 2], [3, 2, 2, 3, 2], stride=(2, 1, 3), padding=(1, 1, 0), output_padding=(1, 0, 2), bias=True)
    convt(3, dt, [1, 4, 2, 3, 3], [4, 3, 3, 2, 2], dilation=(1, 2, 2), groups=2, padding=(0, 1, 1), stride=2, output_padding=(1, 1, 1))
    convt(3, dt, [1, 2, 1, 1, 1], [2, 1, 1, 1, 1])
    convt(3, dt, [1, 2, 2, 2, 2], [2, 1, 2, 2, 2], stride=2, output_padding=2)  # error
    # max pooling (with indices), NaN propagation, ceil mode, dilation, padding
    maxpool(1, dt, [2, 3, 11], 3, 2, 1)
    maxpool(1, dt, [2, 3, 10], 3, 3, 1, 2, ceil=True)
    maxpool(1, dt, [1, 2, 9], 2, ceil=True, nan=1)
    maxpool(1, dt, [1, 1, 4], 2, 3, 1, ceil=True)   # the last window would start in the right padding
    maxpool(1, dt, [0, 2, 6], 2)
    maxpool(1, dt, [1, 2, 3], 3, p=2)                # padding > k/2: error
    maxpool(1, dt, [1, 2, 3], 4)                     # kernel > input: error
    maxpool(2, dt, [1, 2, 4, 7], (2, 3), (3, 3), (1, 1), ceil=True)
    maxpool(2, dt, [1, 2, 7, 6], 3, 2, 1, 2, ceil=True)
    maxpool(3, dt, [2, 2, 5, 6, 7], 2)
    maxpool(3, dt, [1, 3, 6, 7, 5], (3, 2, 3), (2, 2, 2), (1, 1, 1), (1, 2, 1), ceil=True)
    maxpool(3, dt, [1, 2, 4, 4, 4], 2, 1, nan=1)
    maxpool(3, dt, [1, 1, 4, 4, 4], 2, 3, 1, ceil=True)
    maxpool(3, dt, [2, 1, 1, 1, 1], 1)
    maxpool(3, dt, [2, 4, 4], 2)                     # rank 3: error
    maxpool(2, dt, [1, 1, 8, 8], 2, 1, 1, 3)         # padding ≤ k/2 of the undilated kernel
    maxpool(2, dt, [1, 1, 8, 8], 2, 1, 2, 3)         # error, though the dilated kernel spans 4
    maxpool(3, dt, [1, 2, 4, 4, 4], 2, p=(0, 2, 0))  # error
    # average pooling
    avgpool(1, dt, [2, 3, 11], 3, 2, 1)
    avgpool(1, dt, [2, 3, 10], 4, 3, 2, ceil=True, include_pad=False)
    avgpool(1, dt, [2, 3, 10], 4, 3, 2, ceil=True)
    avgpool(1, dt, [1, 2, 5], 2, nan=1)
    avgpool(1, dt, [1, 1, 3], 3, p=2)                # error
    avgpool(2, dt, [1, 2, 5, 7], 3, 2, 1, ceil=True, include_pad=False)
    avgpool(2, dt, [1, 2, 5, 7], 3, 2, 1, ceil=True)
    avgpool(3, dt, [2, 2, 5, 6, 7], 2)
    avgpool(3, dt, [1, 3, 6, 7, 5], (3, 2, 3), (2, 3, 2), (1, 1, 1), ceil=True)
    avgpool(3, dt, [1, 3, 6, 7, 5], (3, 2, 3), (2, 3, 2), (1, 1, 1), ceil=True, include_pad=False)
    avgpool(3, dt, [1, 2, 4, 5, 6], 3, 2, 1, divisor=5)
    avgpool(3, dt, [0, 2, 4, 4, 4], 2)
    avgpool(3, dt, [1, 2, 3, 3, 3], 2, nan=1)
    # adaptive pooling
    adaptive("avg", 1, dt, [2, 3, 10], [4])
    adaptive("avg", 1, dt, [1, 2, 3], [5])
    adaptive("avg", 3, dt, [2, 2, 5, 7, 6], [2, 3, 4])
    adaptive("avg", 3, dt, [1, 1, 2, 3, 2], [3, 1, 5])
    adaptive("max", 1, dt, [2, 3, 10], [4])
    adaptive("max", 1, dt, [1, 2, 9], [3], nan=1)
    adaptive("max", 2, dt, [2, 3, 7, 9], [3, 4])
    adaptive("max", 2, dt, [1, 1, 2, 3], [4, 5])
    adaptive("max", 3, dt, [1, 2, 5, 6, 7], [2, 3, 4])
    adaptive("max", 3, dt, [1, 2, 3, 3, 3], [2, 2, 2], nan=1)
    adaptive("max", 2, dt, [0, 2, 4, 4], [2, 2])
    # unfold / fold
    unfold_case(dt, [2, 3, 5, 6], (2, 3))
    unfold_case(dt, [1, 2, 7, 6], (3, 2), d=(2, 1), p=(1, 2), s=(2, 3))
    unfold_case(dt, [1, 1, 1, 1], 1)
    unfold_case(dt, [1, 2, 2, 2], 3)                 # error: no block fits
    fold_case(dt, 2, 3, (5, 6), (2, 3))
    fold_case(dt, 1, 2, (7, 6), (3, 2), d=(2, 1), p=(1, 2), s=(2, 3))
    fold_case(dt, 1, 2, (4, 4), 2, l=5)              # error: L does not match


# Inputs with ties (five distinct values) and several NaNs per plane, rows wide enough
# for whole vectors and a tail: PyTorch's tie and NaN rule (first maximum, last NaN) in
# the vectorised kernels. Defined after the cases above so that their draws are unchanged.
def rnd(shape, dtype, nan=0):  # noqa: F811
    x = rng.integers(-2, 3, size=shape).astype(dtype)
    flat = x.reshape(-1)
    if nan and flat.size:
        flat[rng.choice(flat.size, size=nan, replace=False)] = np.nan
    return x


for dt in ("float32", "float64"):
    maxpool(1, dt, [2, 2, 41], 4, 3, 2, 2, nan=3)
    maxpool(2, dt, [2, 3, 9, 37], 3, 2, 1, nan=6)
    maxpool(2, dt, [1, 2, 11, 40], (3, 4), (2, 3), (1, 2), (2, 1), ceil=True, nan=6)
    maxpool(3, dt, [1, 2, 5, 6, 19], (2, 3, 3), (1, 2, 2), (1, 1, 1), ceil=True, nan=5)
    adaptive("max", 1, dt, [2, 2, 41], [7], nan=3)
    adaptive("max", 2, dt, [1, 2, 11, 37], [3, 5], nan=5)
    adaptive("max", 3, dt, [1, 2, 5, 7, 21], [2, 3, 4], nan=5)
    adaptive("avg", 1, dt, [2, 2, 41], [7])
    adaptive("avg", 3, dt, [1, 2, 5, 7, 21], [2, 3, 4])
    avgpool(3, dt, [1, 2, 6, 9, 37], 3, 2, 1)
    avgpool(3, dt, [1, 2, 6, 9, 37], 3, 2, 1, include_pad=False)

# Bands that tile 1-D rows (kernel 2, 3, 4, 8: whole vectors of phases plus a scalar
# tail) and one band per plane (global arg-max: odd plane sizes, over 64 elements, all
# NaN-free and with NaNs), still with ties. Appended so the draws above are unchanged.
for dt in ("float32", "float64"):
    adaptive("max", 1, dt, [2, 3, 4 * 37], [37], nan=4)
    adaptive("max", 1, dt, [1, 3, 2 * 19], [19], nan=2)
    adaptive("max", 1, dt, [2, 2, 8 * 21], [21], nan=3)
    adaptive("max", 1, dt, [1, 2, 3 * 11], [11], nan=2)
    adaptive("avg", 1, dt, [2, 3, 4 * 37], [37])
    adaptive("avg", 1, dt, [1, 2, 8 * 19], [19])
    adaptive("avg", 1, dt, [2, 2, 2 * 9], [9])
    adaptive("max", 2, dt, [2, 5, 7, 7], [1, 1], nan=3)
    adaptive("max", 2, dt, [1, 3, 13, 11], [1, 1])
    adaptive("max", 1, dt, [2, 3, 65], [1], nan=2)
    adaptive("max", 3, dt, [1, 2, 3, 5, 7], [1, 1, 1], nan=2)
    adaptive("avg", 3, dt, [1, 2, 3, 5, 7], [1, 1, 1])
    adaptive("avg", 1, dt, [2, 3, 37], [1])

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_breadth_conv.json")
with open(path, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases, {sum('error' in c for c in cases)} refused by torch -> {path}")
