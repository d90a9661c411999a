#!/usr/bin/env python3
"""Golden cases for ferrotensor's `manip` module (tests/manip_*.rs), made by NumPy.

Run `python3 tests/golden/gen_manip.py` to rewrite `tests/golden/manip.json`.

Format: {"cases": [case, ...]}; every case has "fn" (the function), "args" (its
scalar arguments), "in" (a list of input arrays) and "out" (a list of output arrays,
or "err": true when the call must fail). An array is
  {"d": dtype, "s": shape, "v": flat row-major data, "x": view}
where "v" is the data of a C-contiguous *base* array and "x" says which view of the
base is the input, to cover non-contiguous layouts:
  "c" the base itself; "t" base.T (the base has the reversed shape);
  "f" np.flip(base, 0); "s" base[::2] (axis 0 doubled in the base);
  "n" base[..., ::-2] (last axis doubled in the base).
Floats are strings (Python's repr: shortest round-trip, "nan", "inf", "-inf"), so the
Rust side parses them exactly.
PyTorch semantics (gather, scatter, scatter_add, index_put, chunk, topk) are computed
here from their documented definitions, since torch is not installed.
"""
import json
import os

import numpy as np

rng = np.random.default_rng(20240607)
cases = []


def enc_val(x, d):
    if d == "bool":
        return bool(x)
    if d in ("f64", "f32"):
        return repr(float(x))  # "nan", "inf", "-inf" included; parsed exactly by Rust
    return int(x)


def dtype_name(a):
    return {np.float64: "f64", np.float32: "f32", np.int64: "i64", np.bool_: "bool"}[a.dtype.type]


def enc(a, x="c"):
    """Encodes `a` (the logical input) as base data + view kind."""
    a = np.asarray(a)
    if a.ndim == 0:
        x = "c"
    if x == "t":
        base = np.ascontiguousarray(a.T)
    elif x == "f":
        base = np.ascontiguousarray(np.flip(a, 0))
    elif x == "s":
        base = np.repeat(a, 2, axis=0) if a.shape[0] else a.copy()
        base = np.ascontiguousarray(base)
        assert np.array_equal(base[::2], a, equal_nan=a.dtype.kind == "f")
    elif x == "n":
        base = np.empty(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        if a.shape[-1]:
            base[..., ::-2] = a
            base[..., -2::-2] = a
        assert np.array_equal(base[..., ::-2], a, equal_nan=a.dtype.kind == "f")
    else:
        base = a
    d = dtype_name(a)
    return {"d": d, "s": list(base.shape), "v": [enc_val(v, d) for v in base.ravel()], "x": x}


def out(a):
    return enc(np.array(a, order="C", copy=True))


def add(fn, args, ins, outs=None, err=False):
    c = {"fn": fn, "args": args, "in": ins}
    if err:
        c["err"] = True
    else:
        c["out"] = [out(o) for o in outs]
    cases.append(c)


def rshape(ndim, lo=0, hi=4):
    return tuple(int(v) for v in rng.integers(lo, hi + 1, size=ndim))


def rarr(shape, kind="f64", nan=0.0, dup=False):
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind == "i64":
        return rng.integers(-5 if dup else -50, 5 if dup else 50, size=shape).astype(np.int64)
    if dup:
        a = rng.integers(-3, 4, size=shape).astype(np.float64)
    else:
        a = np.round(rng.normal(size=shape) * 10, 2)
    if nan:
        a[rng.random(shape) < nan] = np.nan
    if kind == "f32":
        a = a.astype(np.float32)
    return a


def views(a):
    opts = ["c"]
    if a.ndim >= 1:
        opts += ["t", "f", "s", "n"]
    return str(rng.choice(opts))


def one(a):
    return enc(a, views(a))


# ---------------------------------------------------------------- combining
for _ in range(40):
    nd = int(rng.integers(1, 4))
    base = rshape(nd, 0, 4)
    ax = int(rng.integers(-nd, nd))
    k = int(rng.integers(1, 5))
    arrs = []
    for _ in range(k):
        s = list(base)
        s[ax] = int(rng.integers(0, 4))
        arrs.append(rarr(tuple(s)))
    add("concatenate", {"axis": ax}, [one(a) for a in arrs], [np.concatenate(arrs, ax)])
for _ in range(25):
    nd = int(rng.integers(0, 4))
    s = rshape(nd, 0, 3)
    k = int(rng.integers(1, 4))
    arrs = [rarr(s, "i64") for _ in range(k)]
    ax = int(rng.integers(-nd - 1, nd + 1))
    add("stack", {"axis": ax}, [one(a) for a in arrs], [np.stack(arrs, ax)])
for fn, f in (("hstack", np.hstack), ("vstack", np.vstack), ("dstack", np.dstack)):
    for _ in range(15):
        nd = int(rng.integers(0, 4))
        s = list(rshape(nd, 1, 3))
        k = int(rng.integers(1, 4))
        jax = {"hstack": 0 if nd == 1 else 1, "vstack": 0, "dstack": 2}[fn]
        arrs = []
        for _ in range(k):
            t = list(s)
            if nd >= 1 and jax < nd and (fn != "vstack" or nd >= 2) and (fn != "dstack" or nd >= 3):
                t[jax] = int(rng.integers(1, 4))
            arrs.append(rarr(tuple(t), "i64"))
        add(fn, {}, [one(a) for a in arrs], [f(arrs)])
# split / chunk / unstack
for _ in range(40):
    nd = int(rng.integers(1, 4))
    s = rshape(nd, 0, 7)
    a = rarr(s)
    ax = int(rng.integers(-nd, nd))
    if rng.random() < 0.5:
        n = int(rng.integers(1, 6))
        add("split", {"axis": ax, "count": n}, [one(a)], np.array_split(a, n, axis=ax))
    else:
        idx = [int(v) for v in rng.integers(-9, 10, size=int(rng.integers(0, 4)))]
        add("split", {"axis": ax, "indices": idx}, [one(a)], np.array_split(a, idx, axis=ax))
for _ in range(20):
    nd = int(rng.integers(1, 4))
    s = rshape(nd, 0, 7)
    a = rarr(s)
    ax = int(rng.integers(-nd, nd))
    c = int(rng.integers(1, 6))
    n = a.shape[ax]
    if n == 0:
        parts = [np.take(a, [], axis=ax)] * c
    else:
        size = -(-n // c)
        parts = [np.take(a, range(i, min(i + size, n)), axis=ax) for i in range(0, n, size)]
    add("chunk", {"axis": ax, "chunks": c}, [one(a)], parts)
for _ in range(15):
    nd = int(rng.integers(1, 4))
    a = rarr(rshape(nd, 0, 4))
    ax = int(rng.integers(-nd, nd))
    add("unstack", {"axis": ax}, [one(a)], list(np.unstack(a, axis=ax)))

# ---------------------------------------------------------------- pad & friends
for _ in range(60):
    nd = int(rng.integers(1, 4))
    s = rshape(nd, 1, 4)
    mode = str(rng.choice(["constant", "edge", "reflect", "symmetric", "wrap"]))
    widths = [[int(rng.integers(0, 7)), int(rng.integers(0, 7))] for _ in range(nd)]
    if rng.random() < 0.2:
        widths = [widths[0]]
    a = rarr(s)
    kw = {"constant_values": 7.5} if mode == "constant" else {}
    r = np.pad(a, [tuple(w) for w in widths] if len(widths) > 1 else tuple(widths[0]), mode=mode, **kw)
    add("pad", {"mode": mode, "widths": widths, "value": 7.5}, [one(a)], [r])
a = rarr((0, 3))
add("pad", {"mode": "constant", "widths": [[1, 1], [0, 2]], "value": 1.0}, [enc(a)], [np.pad(a, ((1, 1), (0, 2)), constant_values=1.0)])
add("pad", {"mode": "edge", "widths": [[0, 0], [1, 1]], "value": 0.0}, [enc(a)], [np.pad(a, ((0, 0), (1, 1)), mode="edge")])
add("pad", {"mode": "reflect", "widths": [[1, 0], [0, 0]], "value": 0.0}, [enc(a)], err=True)
for _ in range(30):
    nd = int(rng.integers(0, 4))
    a = rarr(rshape(nd, 0, 4), "i64")
    if rng.random() < 0.3 or nd == 0:
        ax = None
        n = a.size
    else:
        ax = int(rng.integers(-nd, nd))
        n = a.shape[ax]
    reps = [int(rng.integers(0, 4))] if rng.random() < 0.4 else [int(v) for v in rng.integers(0, 4, size=n)]
    add("repeat", {"axis": ax, "repeats": reps}, [one(a)], [np.repeat(a, reps, axis=ax)])
for _ in range(20):
    nd = int(rng.integers(0, 4))
    a = rarr(rshape(nd, 0, 3), "i64")
    reps = [int(v) for v in rng.integers(0, 4, size=int(rng.integers(0, 4)))]
    add("tile", {"reps": reps}, [one(a)], [np.tile(a, reps)])
for _ in range(25):
    nd = int(rng.integers(0, 4))
    a = rarr(rshape(nd, 0, 4), "i64")
    ax = None if nd == 0 or rng.random() < 0.3 else int(rng.integers(-nd, nd))
    sh = int(rng.integers(-9, 10))
    add("roll", {"axis": ax, "shift": sh}, [one(a)], [np.roll(a, sh, axis=ax)])
for fn, f in (("tril", np.tril), ("triu", np.triu)):
    for _ in range(15):
        nd = int(rng.integers(2, 5))
        a = rarr(rshape(nd, 0, 5), "i64")
        k = int(rng.integers(-6, 7))
        add(fn, {"k": k}, [one(a)], [f(a, k)])
for _ in range(20):
    nd = int(rng.integers(1, 3))
    a = rarr(rshape(nd, 0, 5))
    k = int(rng.integers(-6, 7))
    add("diag", {"k": k}, [one(a)], [np.diag(a, k)])
for _ in range(15):
    k = int(rng.integers(1, 4))
    xs = [rarr((int(rng.integers(0, 4)),), "i64") for _ in range(k)]
    ind = str(rng.choice(["xy", "ij"]))
    add("meshgrid", {"indexing": ind}, [one(x) for x in xs], np.meshgrid(*xs, indexing=ind))
for _ in range(25):
    nd = int(rng.integers(1, 4))
    kind = str(rng.choice(["f64", "i64"]))
    a = rarr(rshape(nd, 0, 5), kind)
    ax = int(rng.integers(-nd, nd))
    n = int(rng.integers(0, 6))
    add("diff", {"n": n, "axis": ax}, [one(a)], [np.diff(a, n, axis=ax)])


# ---------------------------------------------------------------- gathering
def rindex(shape, n, neg=True):
    if n == 0:
        return np.zeros(shape, np.int64)
    lo = -n if neg else 0
    return rng.integers(lo, n, size=shape).astype(np.int64)


for _ in range(30):
    nd = int(rng.integers(1, 4))
    s = rshape(nd, 1, 4)
    a = rarr(s)
    ax = int(rng.integers(-nd, nd))
    ish = [1 if rng.random() < 0.25 else d for d in s]
    ish[ax] = int(rng.integers(0, 5))
    idx = rindex(tuple(ish), s[ax])
    add("take_along_axis", {"axis": ax}, [one(a), one(idx)], [np.take_along_axis(a, idx, ax)])
    b = a.copy()
    vals = rarr(tuple(ish))
    np.put_along_axis(b, idx, vals, ax)
    # NumPy writes repeated targets in order; the last write wins.
    add("put_along_axis", {"axis": ax}, [one(a), one(idx), one(vals)], [b])
add("take_along_axis", {"axis": 0}, [enc(np.arange(3.0)), enc(np.array([3]))], err=True)


def torch_gather(a, dim, idx):
    o = np.empty(idx.shape, a.dtype)
    for p in np.ndindex(*idx.shape):
        q = list(p)
        q[dim] = idx[p]
        o[p] = a[tuple(q)]
    return o


def torch_scatter(a, dim, idx, src, add_=False):
    o = a.copy()
    for p in np.ndindex(*idx.shape):
        q = list(p)
        q[dim] = idx[p]
        if add_:
            o[tuple(q)] += src[p]
        else:
            o[tuple(q)] = src[p]
    return o


for _ in range(30):
    nd = int(rng.integers(1, 4))
    s = rshape(nd, 1, 4)
    a = rarr(s, "i64")
    dim = int(rng.integers(0, nd))
    ish = [int(rng.integers(0, d + 1)) for d in s]
    ish[dim] = int(rng.integers(0, 5))
    idx = rindex(tuple(ish), s[dim], neg=False)
    add("gather", {"axis": dim}, [one(a), one(idx)], [torch_gather(a, dim, idx)])
    src = rarr(tuple(d + int(rng.integers(0, 2)) for d in ish), "i64")
    add("scatter", {"axis": dim}, [one(a), one(idx), one(src)], [torch_scatter(a, dim, idx, src)])
    add("scatter_add", {"axis": dim}, [one(a), one(idx), one(src)], [torch_scatter(a, dim, idx, src, True)])
add("gather", {"axis": 0}, [enc(np.arange(3)), enc(np.array([-1]))], err=True)
add("gather", {"axis": 0}, [enc(np.arange(6).reshape(2, 3)), enc(np.zeros((1, 4), np.int64))], err=True)

for _ in range(25):
    nd = int(rng.integers(1, 4))
    s = rshape(nd, 1, 4)
    a = rarr(s, "i64")
    k = int(rng.integers(1, nd + 1))
    bshape = rshape(int(rng.integers(0, 3)), 1, 3)
    idx = []
    for j in range(k):
        sh = tuple(1 if rng.random() < 0.3 else d for d in bshape)
        idx.append(rindex(sh, s[j]))
    b = np.broadcast_shapes(*[i.shape for i in idx])
    vshape = tuple(b) + s[k:]
    vshape = vshape[int(rng.integers(0, len(vshape) + 1)):]
    vals = rarr(vshape, "i64")
    r = a.copy()
    r[tuple(idx)] = vals
    acc = a.copy()
    np.add.at(acc, tuple(idx), np.broadcast_to(vals, tuple(b) + s[k:]))
    add("index_put", {}, [one(a), enc(vals)] + [one(i) for i in idx], [r])
    add("index_put_accumulate", {}, [one(a), enc(vals)] + [one(i) for i in idx], [acc])

for _ in range(20):
    nd = int(rng.integers(1, 4))
    a = rarr(rshape(nd, 0, 4), "i64", dup=True)
    a[rng.random(a.shape) < 0.5] = 0
    x = one(a)
    add("nonzero", {}, [x], list(np.nonzero(a)))
    add("argwhere", {}, [x], [np.argwhere(a)])
for _ in range(20):
    nd = int(rng.integers(1, 4))
    s = rshape(nd, 0, 4)
    a = rarr(s)
    ms = s[int(rng.integers(0, nd + 1)):]
    ms = tuple(1 if rng.random() < 0.3 else d for d in ms)
    m = rarr(ms, "bool")
    add("masked_fill", {"value": -1.5}, [one(a), one(m)], [np.where(m, -1.5, a)])

# ---------------------------------------------------------------- sorting
for kind in ("f64", "f32", "i64"):
    for _ in range(25):
        nd = int(rng.integers(1, 4))
        a = rarr(rshape(nd, 0, 6), kind, nan=0.2 if kind != "i64" else 0, dup=rng.random() < 0.5)
        ax = int(rng.integers(-nd, nd))
        x = one(a)
        add("sort", {"axis": ax}, [x], [np.sort(a, axis=ax, kind="stable")])
        add("argsort", {"axis": ax}, [x], [np.argsort(a, axis=ax, kind="stable")])
big = rarr((3, 300), "f64", nan=0.05, dup=True)  # long lanes: radix path, duplicates
add("sort", {"axis": 1}, [enc(big)], [np.sort(big, axis=1, kind="stable")])
add("argsort", {"axis": 1}, [enc(big)], [np.argsort(big, axis=1, kind="stable")])
add("argsort", {"axis": 0}, [enc(big, "t")], [np.argsort(big, axis=0, kind="stable")])
allnan = np.full((2, 5), np.nan)
allnan[1, 2] = -0.0
allnan[1, 4] = 0.0
allnan[1, 0] = -0.0
add("sort", {"axis": -1}, [enc(allnan)], [np.sort(allnan, axis=-1, kind="stable")])
add("argsort", {"axis": -1}, [enc(allnan)], [np.argsort(allnan, axis=-1, kind="stable")])
add("sort", {"axis": 0}, [enc(np.array(5.0))], err=True)


def topk(a, k, ax, largest):
    a = np.moveaxis(a, ax, -1)
    vals = np.empty(a.shape[:-1] + (k,), a.dtype)
    idxs = np.empty(a.shape[:-1] + (k,), np.int64)
    for p in np.ndindex(*a.shape[:-1]):
        lane = a[p]

        def key(i):
            x = lane[i]
            nan = bool(np.isnan(x)) if a.dtype.kind == "f" else False
            if largest:
                return (0 if nan else 1, 0 if nan else -x, i)
            return (1 if nan else 0, 0 if nan else x, i)

        order = sorted(range(len(lane)), key=key)[:k]
        vals[p] = lane[order]
        idxs[p] = order
    return np.moveaxis(vals, -1, ax), np.moveaxis(idxs, -1, ax)


for _ in range(30):
    nd = int(rng.integers(1, 4))
    kind = str(rng.choice(["f64", "i64"]))
    a = rarr(rshape(nd, 0, 6), kind, nan=0.2 if kind == "f64" else 0, dup=True)
    ax = int(rng.integers(-nd, nd))
    n = a.shape[ax]
    k = int(rng.choice([0, n, int(rng.integers(0, n + 1))]))
    largest = bool(rng.random() < 0.6)
    add("topk", {"k": k, "axis": ax, "largest": largest}, [one(a)], list(topk(a, k, ax, largest)))
add("topk", {"k": 4, "axis": 0, "largest": True}, [enc(np.arange(3.0))], err=True)

for _ in range(25):
    n = int(rng.integers(0, 10))
    kind = str(rng.choice(["f64", "i64"]))
    srt = np.sort(rarr((n,), kind, nan=0.1 if kind == "f64" else 0, dup=True))
    v = rarr(rshape(int(rng.integers(0, 3)), 0, 4), kind, nan=0.1 if kind == "f64" else 0, dup=True)
    side = str(rng.choice(["left", "right"]))
    add("searchsorted", {"side": side}, [one(srt), one(v)], [np.searchsorted(srt, v, side=side)])

for _ in range(25):
    nd = int(rng.integers(0, 4))
    kind = str(rng.choice(["f64", "i64"]))
    a = rarr(rshape(nd, 0, 5), kind, nan=0.15 if kind == "f64" else 0, dup=True)
    u, i, inv, c = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    add("unique", {}, [one(a)], [u, i, inv.reshape(a.shape), c])

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "manip.json")
with open(path, "w") as f:
    json.dump({"cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {path} ({os.path.getsize(path)} bytes)")
