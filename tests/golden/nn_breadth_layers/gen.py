#!/usr/bin/env python3
"""Golden cases for the `nn` breadth layers of issue 21 (activations, group/instance
norm, embedding, one_hot, scaled_dot_product_attention, bicubic and anti-aliased
interpolation, grid_sample, affine_grid), computed by PyTorch itself.

NEEDS TORCH (CPU): run with the project's torch venv,
    /work/torchenv/bin/python tests/golden/nn_breadth_layers/gen.py
It writes cases.json next to itself; CI never runs this script, only reads the JSON.

Each case: op, dtype ("float32"/"float64"), params, named inputs and the expected
output, row-major. Floats are JSON numbers (float32 values stored exactly as their
float64 value); NaN and infinities are the strings "nan", "inf", "-inf". The Rust test
(tests/nn_breadth_layers.rs) also runs every case on strided and flipped views of the
same input values.
"""

import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

torch.manual_seed(20261124)
rng = np.random.default_rng(20261124)
cases = []


def enc(t):
    a = t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    flat = []
    for v in a.reshape(-1).tolist():
        if isinstance(v, bool):
            flat.append(1 if v else 0)
        elif isinstance(v, float) and not math.isfinite(v):
            flat.append("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
        else:
            flat.append(v)
    return {"shape": list(a.shape), "data": flat}


def add(op, dtype, params, inputs, expected):
    cases.append({
        "op": op,
        "dtype": dtype,
        "params": params,
        "inputs": {k: enc(v) for k, v in inputs.items() if v is not None},
        "expected": enc(expected),
    })


DT = {"float32": torch.float32, "float64": torch.float64}


def randn(*shape, dtype="float64", scale=1.0):
    return (torch.randn(*shape, dtype=torch.float64) * scale).to(DT[dtype])


def with_specials(x):
    x = x.clone()
    flat = x.view(-1)
    flat[0] = float("nan")
    flat[1] = float("inf")
    flat[2] = float("-inf")
    flat[3] = 40.0
    flat[4] = -40.0
    flat[5] = 0.0
    return x


# ---------------------------------------------------------------- activations
for dt in DT:
    x = with_specials(randn(2, 4, 5, dtype=dt, scale=3.0))
    unary = {
        "selu": ({}, F.selu),
        "mish": ({}, F.mish),
        "softsign": ({}, F.softsign),
        "tanhshrink": ({}, F.tanhshrink),
        "log_sigmoid": ({}, F.logsigmoid),
    }
    for op, (p, f) in unary.items():
        add(op, dt, p, {"x": x}, f(x))
    add("celu", dt, {"alpha": 1.5}, {"x": x}, F.celu(x, alpha=1.5))
    add("celu", dt, {"alpha": -0.7}, {"x": x}, F.celu(x, alpha=-0.7))
    add("softplus", dt, {"beta": 1.0, "threshold": 20.0}, {"x": x}, F.softplus(x))
    add("softplus", dt, {"beta": 2.5, "threshold": 4.0}, {"x": x}, F.softplus(x, beta=2.5, threshold=4.0))
    add("softplus", dt, {"beta": -1.0, "threshold": 20.0}, {"x": x}, F.softplus(x, beta=-1.0))
    add("threshold", dt, {"threshold": 0.1, "value": -2.0}, {"x": x}, F.threshold(x, 0.1, -2.0))
    add("hardtanh", dt, {"min": -0.5, "max": 0.8}, {"x": x}, F.hardtanh(x, -0.5, 0.8))
    add("hardshrink", dt, {"lambda": 0.5}, {"x": x}, F.hardshrink(x, 0.5))
    add("softshrink", dt, {"lambda": 0.7}, {"x": x}, F.softshrink(x, 0.7))
    add("softmin", dt, {"axis": 1}, {"x": x}, F.softmin(x, dim=1))
    add("softmin", dt, {"axis": -1}, {"x": x}, F.softmin(x, dim=-1))
    add("glu", dt, {"axis": 1}, {"x": x}, F.glu(x, dim=1))
    y = randn(3, 6, dtype=dt)
    add("glu", dt, {"axis": -1}, {"x": y}, F.glu(y, dim=-1))
    w4 = randn(4, dtype=dt)
    add("prelu", dt, {}, {"x": x, "w": w4}, F.prelu(x, w4))
    w1 = randn(1, dtype=dt)
    add("prelu", dt, {}, {"x": x, "w": w1}, F.prelu(x, w1))
    e = randn(0, 4, 5, dtype=dt)
    add("mish", dt, {}, {"x": e}, F.mish(e))
    add("glu", dt, {"axis": 1}, {"x": e}, F.glu(e, dim=1))

# ---------------------------------------------------------------- normalisation
for dt in DT:
    x = randn(3, 6, 4, 5, dtype=dt, scale=2.0) + 3.0
    w, b = randn(6, dtype=dt), randn(6, dtype=dt)
    add("group_norm", dt, {"groups": 3, "eps": 1e-5}, {"x": x, "w": w, "b": b}, F.group_norm(x, 3, w, b, 1e-5))
    add("group_norm", dt, {"groups": 2, "eps": 1e-3}, {"x": x}, F.group_norm(x, 2, None, None, 1e-3))
    add("group_norm", dt, {"groups": 6, "eps": 1e-5}, {"x": x, "w": w}, F.group_norm(x, 6, w, None, 1e-5))
    x3 = randn(2, 4, 7, dtype=dt)
    add("group_norm", dt, {"groups": 1, "eps": 1e-5}, {"x": x3}, F.group_norm(x3, 1, None, None, 1e-5))
    xn = x.clone()
    xn[1, 0, 0, 0] = float("nan")
    add("group_norm", dt, {"groups": 3, "eps": 1e-5}, {"x": xn, "w": w, "b": b}, F.group_norm(xn, 3, w, b, 1e-5))
    e = randn(0, 6, 3, dtype=dt)
    add("group_norm", dt, {"groups": 3, "eps": 1e-5}, {"x": e}, F.group_norm(e, 3, None, None, 1e-5))
    add("instance_norm", dt, {"use_input_stats": True, "eps": 1e-5}, {"x": x, "w": w, "b": b},
        F.instance_norm(x, None, None, w, b, True, 0.1, 1e-5))
    add("instance_norm", dt, {"use_input_stats": True, "eps": 1e-5}, {"x": x3},
        F.instance_norm(x3, None, None, None, None, True, 0.1, 1e-5))
    rm, rv = randn(6, dtype=dt), randn(6, dtype=dt).abs() + 0.5
    add("instance_norm", dt, {"use_input_stats": False, "eps": 1e-5}, {"x": x, "rm": rm, "rv": rv, "w": w, "b": b},
        F.instance_norm(x, rm.clone(), rv.clone(), w, b, False, 0.1, 1e-5))

# ---------------------------------------------------------------- embedding, one_hot
for dt in DT:
    wt = randn(10, 4, dtype=dt)
    idx = torch.tensor([[3, 0, 9], [9, 1, 3]])
    add("embedding", dt, {}, {"w": wt, "idx": idx}, F.embedding(idx, wt))
    add("embedding", dt, {"padding_idx": -1}, {"w": wt, "idx": idx}, F.embedding(idx, wt, padding_idx=-1))
    e = torch.zeros(0, 2, dtype=torch.int64)
    add("embedding", dt, {}, {"w": wt, "idx": e}, F.embedding(e, wt))
idx = torch.tensor([[3, 0, 5], [5, 1, 3]])
add("one_hot", "int64", {"num_classes": None}, {"idx": idx}, F.one_hot(idx))
add("one_hot", "int64", {"num_classes": 8}, {"idx": idx}, F.one_hot(idx, 8))

# ---------------------------------------------------------------- attention
for dt in DT:
    q, k, v = randn(2, 3, 5, 8, dtype=dt), randn(2, 3, 7, 8, dtype=dt), randn(2, 3, 7, 6, dtype=dt)
    add("sdpa", dt, {"causal": False}, {"q": q, "k": k, "v": v}, F.scaled_dot_product_attention(q, k, v))
    add("sdpa", dt, {"causal": True}, {"q": q, "k": k, "v": v}, F.scaled_dot_product_attention(q, k, v, is_causal=True))
    add("sdpa", dt, {"causal": False, "scale": 0.3}, {"q": q, "k": k, "v": v},
        F.scaled_dot_product_attention(q, k, v, scale=0.3))
    bm = torch.rand(5, 7) > 0.4
    bm[2] = False  # a fully masked query row
    add("sdpa", dt, {"causal": False}, {"q": q, "k": k, "v": v, "bool_mask": bm},
        F.scaled_dot_product_attention(q, k, v, attn_mask=bm))
    am = randn(2, 1, 5, 7, dtype=dt)
    am[1, 0, 3, 2] = float("-inf")
    add("sdpa", dt, {"causal": False}, {"q": q, "k": k, "v": v, "add_mask": am},
        F.scaled_dot_product_attention(q, k, v, attn_mask=am))
    # L > S, causal; 3-D batch
    q2, k2, v2 = randn(4, 9, 5, dtype=dt), randn(4, 6, 5, dtype=dt), randn(4, 6, 3, dtype=dt)
    add("sdpa", dt, {"causal": True}, {"q": q2, "k": k2, "v": v2}, F.scaled_dot_product_attention(q2, k2, v2, is_causal=True))
    qn = q2.clone()
    qn[1, 2, 0] = float("nan")
    add("sdpa", dt, {"causal": False}, {"q": qn, "k": k2, "v": v2}, F.scaled_dot_product_attention(qn, k2, v2))
    e = randn(0, 3, 5, 8, dtype=dt)
    add("sdpa", dt, {"causal": False}, {"q": e, "k": randn(0, 3, 7, 8, dtype=dt), "v": randn(0, 3, 7, 6, dtype=dt)},
        torch.zeros(0, 3, 5, 6, dtype=DT[dt]))

# ---------------------------------------------------------------- interpolation
# (W > 1 everywhere: PyTorch 2.15's anti-aliased resize along H of a width-1 input
# returns one value for every row, which we do not reproduce.)
for dt in DT:
    x = randn(2, 3, 5, 6, dtype=dt)
    for mode in ["bicubic", "bilinear"]:
        for aa in [False, True]:
            if mode == "bilinear" and not aa:
                continue
            for align in [False, True]:
                for size in [(9, 11), (3, 2), (5, 4), (1, 1)]:
                    y = F.interpolate(x, size=size, mode=mode, align_corners=align, antialias=aa)
                    add("interpolate", dt, {"mode": mode, "antialias": aa, "align": align, "size": list(size)}, {"x": x}, y)
                y = F.interpolate(x, scale_factor=(1.7, 0.6), mode=mode, align_corners=align, antialias=aa)
                add("interpolate", dt, {"mode": mode, "antialias": aa, "align": align, "scale": [1.7, 0.6]}, {"x": x}, y)
    xn = x.clone()
    xn[0, 1, 2, 3] = float("nan")
    add("interpolate", dt, {"mode": "bicubic", "antialias": False, "align": False, "size": [7, 8]}, {"x": xn},
        F.interpolate(xn, size=(7, 8), mode="bicubic", align_corners=False))

# ---------------------------------------------------------------- grid_sample, affine_grid
for dt in DT:
    x = randn(2, 3, 5, 6, dtype=dt)
    g = (torch.rand(2, 4, 7, 2, dtype=torch.float64) * 2.8 - 1.4).to(DT[dt])
    g[0, 0, 0] = torch.tensor([-1.0, 1.0])
    g[0, 0, 1] = torch.tensor([1.0, -1.0])
    g[1, 3, 6] = torch.tensor([3.5, -4.2])
    for mode in ["bilinear", "nearest"]:
        for pad in ["zeros", "border", "reflection"]:
            for align in [False, True]:
                y = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=align)
                add("grid_sample", dt, {"mode": mode, "padding": pad, "align": align}, {"x": x, "grid": g}, y)
    xn = x.clone()
    xn[0, 0, 2, 2] = float("nan")
    add("grid_sample", dt, {"mode": "bilinear", "padding": "zeros", "align": False}, {"x": xn, "grid": g},
        F.grid_sample(xn, g, mode="bilinear", padding_mode="zeros", align_corners=False))
    th = randn(2, 2, 3, dtype=dt)
    th3 = randn(2, 3, 4, dtype=dt)
    for align in [False, True]:
        add("affine_grid", dt, {"size": [2, 3, 4, 5], "align": align}, {"theta": th},
            F.affine_grid(th, [2, 3, 4, 5], align_corners=align))
        add("affine_grid", dt, {"size": [2, 1, 3, 1, 5], "align": align}, {"theta": th3},
            F.affine_grid(th3, [2, 1, 3, 1, 5], align_corners=align))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json")
with open(out, "w") as f:
    json.dump({"generator": "gen.py (needs torch)", "torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {out}")
