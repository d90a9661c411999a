#!/usr/bin/env python3
"""Golden cases for `ferrotensor::nn`, with NumPy reference implementations written
out explicitly from PyTorch's definitions (PyTorch itself is not needed).

Each case: an op name, its parameters, named input arrays and the expected output,
all in row-major order. float64 values are stored as decimal strings of `repr` (exact
round trip); float32 as their float64 value (exact).

Usage: python3 tests/golden/gen_nn.py   (writes nn.json next to it)
"""

import json
import math
import os

import numpy as np

SEED = 20250801
rng = np.random.default_rng(SEED)
cases = []


def arr(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": [float(v) for v in a.reshape(-1)]}


def add(op, params, inputs, expected, dtype="float64"):
    cases.append({
        "op": op,
        "dtype": dtype,
        "params": params,
        "inputs": {k: arr(v.astype(dtype)) for k, v in inputs.items() if v is not None},
        "expected": arr(np.asarray(expected).astype(dtype)),
    })


def rnd(*shape, dtype="float64"):
    return rng.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------- convolution
def conv2d_ref(x, w, b, stride, padding, dilation, groups):
    """PyTorch conv2d as explicit sums over channels and kernel taps."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    og = o // groups
    out = np.zeros((n, o, oh, ow), dtype=np.float64)
    xd = x.astype(np.float64)
    wdd = w.astype(np.float64)
    for ni in range(n):
        for oc in range(o):
            g = oc // og
            for i in range(oh):
                for j in range(ow):
                    s = 0.0 if b is None else float(b[oc])
                    for ci in range(cg):
                        for ki in range(kh):
                            ih = i * sh - ph + ki * dh
                            if ih < 0 or ih >= h:
                                continue
                            for kj in range(kw):
                                iw = j * sw - pw + kj * dw
                                if 0 <= iw < wd:
                                    s += xd[ni, g * cg + ci, ih, iw] * wdd[oc, ci, ki, kj]
                    out[ni, oc, i, j] = s
    return out


def conv_case(xs, ws, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, bias=False, dtype="float64"):
    x = rnd(*xs, dtype=dtype)
    w = rnd(*ws, dtype=dtype)
    b = rnd(ws[0], dtype=dtype) if bias else None
    y = conv2d_ref(x, w, b, stride, padding, dilation, groups)
    add("conv2d", {"stride": list(stride), "padding": list(padding), "dilation": list(dilation), "groups": groups},
        {"x": x, "w": w, "b": b}, y, dtype)


conv_case((2, 3, 7, 6), (4, 3, 3, 3))
conv_case((2, 3, 9, 8), (5, 3, 3, 2), stride=(2, 2), padding=(1, 1), bias=True)
conv_case((1, 2, 9, 7), (3, 2, 3, 3), padding=(2, 1), dilation=(2, 1), bias=True)
conv_case((2, 4, 6, 7), (6, 2, 3, 3), stride=(1, 2), padding=(1, 1), groups=2, bias=True)
conv_case((1, 3, 5, 5), (6, 1, 3, 3), padding=(1, 1), groups=3)
conv_case((2, 5, 4, 3), (7, 5, 1, 1), bias=True)
conv_case((1, 4, 7, 7), (3, 4, 1, 1), stride=(2, 3))
conv_case((3, 2, 8, 9), (4, 1, 2, 4), stride=(3, 2), padding=(1, 2), dilation=(2, 2), groups=2, bias=True)
conv_case((2, 3, 10, 11), (8, 3, 3, 3), stride=(2, 2), padding=(1, 1), bias=True, dtype="float32")


def conv1d_case(xs, ws, stride, padding, dilation, groups, bias):
    x, w = rnd(*xs), rnd(*ws)
    b = rnd(ws[0]) if bias else None
    y = conv2d_ref(x[:, :, None, :], w[:, :, None, :], b, (1, stride), (0, padding), (1, dilation), groups)[:, :, 0, :]
    add("conv1d", {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups},
        {"x": x, "w": w, "b": b}, y)


conv1d_case((2, 4, 10), (6, 2, 3), 2, 1, 2, 2, True)
conv1d_case((1, 3, 8), (2, 3, 4), 1, 0, 1, 1, False)


def conv_t_ref(x, w, b, stride, padding, output_padding, dilation, groups):
    """PyTorch conv_transpose2d: every input pixel scatters weight·x into the output."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = c // groups
    o = og * groups
    oh = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1
    ow = (wd - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1
    out = np.zeros((n, o, oh, ow))
    if b is not None:
        out += b[None, :, None, None]
    for ni in range(n):
        for ci in range(c):
            g = ci // cg
            for i in range(h):
                for j in range(wd):
                    for oc in range(og):
                        for ki in range(kh):
                            for kj in range(kw):
                                y = i * stride[0] - padding[0] + ki * dilation[0]
                                z = j * stride[1] - padding[1] + kj * dilation[1]
                                if 0 <= y < oh and 0 <= z < ow:
                                    out[ni, g * og + oc, y, z] += x[ni, ci, i, j] * w[ci, oc, ki, kj]
    return out


def conv_t_case(xs, ws, stride=(1, 1), padding=(0, 0), output_padding=(0, 0), dilation=(1, 1), groups=1, bias=False):
    x, w = rnd(*xs), rnd(*ws)
    b = rnd(ws[1] * groups) if bias else None
    y = conv_t_ref(x, w, b, stride, padding, output_padding, dilation, groups)
    add("conv_transpose2d", {"stride": list(stride), "padding": list(padding), "output_padding": list(output_padding),
                             "dilation": list(dilation), "groups": groups}, {"x": x, "w": w, "b": b}, y)


conv_t_case((1, 2, 3, 3), (2, 3, 3, 3))
conv_t_case((2, 4, 4, 5), (4, 3, 3, 2), stride=(2, 1), padding=(1, 0), output_padding=(1, 0), dilation=(1, 2),
            groups=2, bias=True)
conv_t_case((1, 3, 5, 4), (3, 2, 4, 4), stride=(2, 2), padding=(1, 1), bias=True)


# ---------------------------------------------------------------- pooling
def pool_ref(x, k, s, p, kind):
    n, c, h, w = x.shape
    oh = (h + 2 * p[0] - k[0]) // s[0] + 1
    ow = (w + 2 * p[1] - k[1]) // s[1] + 1
    fill = -np.inf if kind == "max" else 0.0
    xp = np.full((n, c, h + 2 * p[0], w + 2 * p[1]), fill)
    xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            out[:, :, i, j] = win.max(axis=(2, 3)) if kind == "max" else win.sum(axis=(2, 3)) / (k[0] * k[1])
    return out


for kind in ("max", "avg"):
    for xs, k, s, p in [((2, 3, 7, 8), (3, 2), (2, 2), (1, 1)), ((1, 2, 6, 6), (3, 3), (1, 1), (1, 1)),
                        ((2, 1, 5, 9), (2, 3), (1, 2), (1, 1)), ((1, 2, 8, 8), (2, 2), (2, 2), (0, 0))]:
        x = rnd(*xs)
        add(kind + "_pool2d", {"kernel": list(k), "stride": list(s), "padding": list(p)}, {"x": x},
            pool_ref(x, k, s, p, kind))


def adaptive_ref(x, out_size):
    n, c, h, w = x.shape
    oh, ow = out_size
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        r0, r1 = (i * h) // oh, -(-((i + 1) * h) // oh)
        for j in range(ow):
            c0, c1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            out[:, :, i, j] = x[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
    return out


for xs, os_ in [((2, 2, 7, 9), (3, 4)), ((1, 3, 5, 5), (1, 1)), ((1, 1, 3, 3), (5, 7))]:
    x = rnd(*xs)
    add("adaptive_avg_pool2d", {"output_size": list(os_)}, {"x": x}, adaptive_ref(x, os_))


# ---------------------------------------------------------------- upsampling
def scales_value(scale, inp, out, ft):
    return ft(1.0 / scale) if scale is not None else ft(inp) / ft(out)


def nearest_idx(inp, out, scale, ft):
    res = []
    for i in range(out):
        if out == inp:
            res.append(i)
        elif out == 2 * inp:
            res.append(i >> 1)
        else:
            s = scales_value(scale, inp, out, ft)
            res.append(min(int(math.floor(ft(ft(i) * s))), inp - 1))
    return res


def linear_idx(inp, out, scale, align, ft):
    if align:
        sc = ft(inp - 1) / ft(out - 1) if out > 1 else ft(0)
    else:
        sc = scales_value(scale, inp, out, ft)
    res = []
    for i in range(out):
        if align:
            src = ft(sc * ft(i))
        else:
            src = ft(sc * ft(ft(i) + ft(0.5)) - ft(0.5))
            src = max(src, ft(0))
        i0 = min(int(src), inp - 1)
        l1 = min(max(ft(src - ft(i0)), ft(0)), ft(1))
        i1 = i0 + 1 if i0 < inp - 1 else i0
        res.append((i0, i1, ft(ft(1) - l1), l1))
    return res


def upsample_case(xs, size=None, scale=None, mode="nearest", align=False, dtype="float64"):
    ft = np.float32 if dtype == "float32" else np.float64
    x = rnd(*xs, dtype=dtype)
    n, c, h, w = xs
    if size is None:
        size = (int(math.floor(h * scale[0])), int(math.floor(w * scale[1])))
    sh, sw = (None, None) if scale is None else scale
    if mode == "nearest":
        ri, ci = nearest_idx(h, size[0], sh, ft), nearest_idx(w, size[1], sw, ft)
        y = x[:, :, ri, :][:, :, :, ci]
    else:
        rl, cl = linear_idx(h, size[0], sh, align, ft), linear_idx(w, size[1], sw, align, ft)
        y = np.zeros((n, c, size[0], size[1]), dtype=dtype)
        for i, (r0, r1, a0, a1) in enumerate(rl):
            for j, (c0, c1, b0, b1) in enumerate(cl):
                t0 = b0 * x[:, :, r0, c0] + b1 * x[:, :, r0, c1]
                t1 = b0 * x[:, :, r1, c0] + b1 * x[:, :, r1, c1]
                y[:, :, i, j] = a0 * t0 + a1 * t1
    params = {"mode": mode, "align_corners": align}
    if scale is None:
        params["size"] = list(size)
    else:
        params["scale"] = list(scale)
    add("upsample", params, {"x": x}, y, dtype)


upsample_case((1, 2, 3, 4), size=(5, 7))
upsample_case((2, 1, 3, 3), scale=(2.0, 2.0))
upsample_case((1, 2, 4, 5), scale=(1.5, 0.6))
upsample_case((1, 2, 3, 4), size=(5, 7), mode="bilinear", align=True)
upsample_case((1, 2, 3, 4), size=(5, 7), mode="bilinear", align=False)
upsample_case((1, 1, 4, 6), size=(3, 4), mode="bilinear", align=False)
upsample_case((2, 1, 3, 5), scale=(1.7, 2.5), mode="bilinear", align=False)
upsample_case((1, 1, 3, 5), scale=(1.7, 2.5), mode="bilinear", align=False, dtype="float32")
upsample_case((1, 1, 5, 5), size=(1, 3), mode="bilinear", align=True)
upsample_case((1, 1, 5, 6), scale=(1.3, 0.7), mode="nearest", dtype="float32")


# ---------------------------------------------------------------- norms, softmax, linear
def layer_norm_ref(x, k, w, b, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    shape = x.shape[x.ndim - k:]
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


x = rnd(2, 3, 4)
w, b = rnd(4), rnd(4)
add("layer_norm", {"normalized_shape": [4], "eps": 1e-5}, {"x": x, "w": w, "b": b}, layer_norm_ref(x, 1, w, b, 1e-5))
x = rnd(2, 3, 4) * 10 + 100
add("layer_norm", {"normalized_shape": [3, 4], "eps": 1e-5}, {"x": x}, layer_norm_ref(x, 2, None, None, 1e-5))
x = rnd(3, 5)
w = rnd(5)
ms = (x ** 2).mean(axis=-1, keepdims=True)
add("rms_norm", {"normalized_shape": [5], "eps": 1e-6}, {"x": x, "w": w}, x / np.sqrt(ms + 1e-6) * w)
for xs in [(2, 3, 4, 5), (4, 3)]:
    x = rnd(*xs)
    c = xs[1]
    mean, var, w, b = rnd(c), np.abs(rnd(c)) + 0.1, rnd(c), rnd(c)
    shp = (1, c) + (1,) * (len(xs) - 2)
    y = (x - mean.reshape(shp)) / np.sqrt(var.reshape(shp) + 1e-5) * w.reshape(shp) + b.reshape(shp)
    add("batch_norm", {"eps": 1e-5}, {"x": x, "mean": mean, "var": var, "w": w, "b": b}, y)


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_ref(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


x = rnd(3, 4, 5) * 30
for axis in (-1, 1, 0):
    add("softmax", {"axis": axis}, {"x": x}, softmax_ref(x, axis))
    add("log_softmax", {"axis": axis}, {"x": x}, log_softmax_ref(x, axis))
x = rnd(2, 600, 3) * 5
add("softmax", {"axis": 1}, {"x": x}, softmax_ref(x, 1))
x32 = (rnd(4, 37) * 20).astype(np.float32)
add("softmax", {"axis": -1}, {"x": x32}, softmax_ref(x32.astype(np.float64), -1), "float32")

x, w, b = rnd(2, 3, 5), rnd(4, 5), rnd(4)
add("linear", {}, {"x": x, "w": w, "b": b}, x @ w.T + b)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn.json"), "w") as f:
    json.dump({"seed": SEED, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases")
