#!/usr/bin/env python3
"""Golden cases for ferrotensor's reductions (tests/reductions_golden.rs).

Each entry is a base array (dtype, shape, row-major data), a chain of view operations
applied to it in NumPy and in ferrotensor (permute / slice with steps / flip /
broadcast_to), and the cases computed on that view: op, axes (null = whole tensor),
keepdims, ddof, and NumPy's result (shape + row-major data) or "err", plus an absolute
tolerance `tol` (0 = exact; float sums get a few-ULP bound scaled by sum |x|).

Numbers: integers as JSON numbers; floats as strings (repr of the float64 value, exact
for float32; "nan", "inf", "-inf"), so that parsing is exact. Fixed seed; rerun to regenerate:

    python3 tests/golden/gen_reductions.py   # writes reductions.json next to it
"""

import itertools
import json
import os
import warnings

import numpy as np

SEED = 20240607
rng = np.random.default_rng(SEED)
warnings.simplefilter("ignore")

FLOAT_OPS = ["sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "all", "any",
             "count_nonzero", "logsumexp", "nansum", "nanmean", "nanmax", "nanmin", "nanargmax",
             "nanargmin", "ptp", "norm1", "norm2", "norminf", "cumsum", "cumprod"]
INT_OPS = ["sum", "prod", "sum_i64", "mean_f64", "max", "min", "argmax", "argmin", "all", "any",
           "count_nonzero", "ptp", "cumsum", "cumprod"]
SINGLE_AXIS = {"argmax", "argmin", "nanargmax", "nanargmin", "cumsum", "cumprod"}


def enc(v):
    v = float(v) if not isinstance(v, (bool, np.bool_)) else int(v)
    if isinstance(v, float):
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    return v


def enc_int(v):
    return int(v)


def logsumexp(a, axis, keepdims):
    m = np.max(a, axis=axis, keepdims=True) if a.size else np.zeros([1] * a.ndim, a.dtype)
    m = np.where(np.isfinite(m), m, 0).astype(a.dtype)
    s = np.sum(np.exp(a - m), axis=axis, keepdims=True)
    r = np.log(s) + m
    if not keepdims:
        r = np.squeeze(r, axis=axis) if axis is not None else r.reshape(())
    return r


def compute(a, op, axes, keepdims, ddof):
    """NumPy's answer (array) or raises."""
    ax = None if axes is None else tuple(axes)
    if op in SINGLE_AXIS:
        if op in ("cumsum", "cumprod"):
            return getattr(np, op)(a, axis=axes[0])
        if axes is None:
            return np.asarray(getattr(np, op)(a))
        return getattr(np, op)(a, axis=axes[0], keepdims=keepdims)
    kw = dict(axis=ax, keepdims=keepdims)
    if op == "sum":
        return np.sum(a, dtype=a.dtype, **kw)
    if op == "prod":
        return np.prod(a, dtype=a.dtype, **kw)
    if op == "sum_i64":
        return np.sum(a, dtype=np.int64, **kw)
    if op == "mean_f64":
        return np.mean(a, dtype=np.float64, **kw)
    if op in ("var", "std"):
        return getattr(np, op)(a, ddof=ddof, **kw)
    if op == "count_nonzero":
        r = np.count_nonzero(a, axis=ax, keepdims=keepdims)
        return np.asarray(r)
    if op == "logsumexp":
        return logsumexp(a, ax, keepdims)
    if op.startswith("norm"):
        order = {"norm1": 1, "norm2": 2, "norminf": np.inf}[op]
        return np.linalg.vector_norm(a, ord=order, axis=ax, keepdims=keepdims)
    return getattr(np, op)(a, **kw)


def tolerance(a, op, axes, res):
    if a.dtype.kind != "f" or op in ("max", "min", "argmax", "argmin", "all", "any", "count_nonzero",
                                     "nanmax", "nanmin", "nanargmax", "nanargmin", "ptp", "norminf"):
        return 0
    eps = float(np.finfo(a.dtype).eps)
    x = np.where(np.isnan(a), 0, a).astype(np.float64)
    ax = None if axes is None else tuple(axes)
    if op in ("cumsum", "cumprod"):
        ax = axes[0]
    n = max(1, a.size if ax is None else int(np.prod([a.shape[k] for k in np.atleast_1d(ax)])))
    r = np.abs(np.where(np.isfinite(res), res, 0).astype(np.float64))
    big = float(r.max()) if r.size else 0.0
    fin = np.isfinite(x)
    x = np.where(fin, x, 0)
    l1 = float(np.sum(np.abs(x), axis=ax).max()) if x.size else 0.0
    if op in ("sum", "nansum", "cumsum", "norm1"):
        t = 4 * eps * l1
    elif op in ("mean", "nanmean"):
        t = 4 * eps * l1 / n + 4 * eps * big
    elif op in ("prod", "cumprod"):
        t = 4 * eps * n * big
    elif op in ("var", "std", "norm2"):
        mx = float(np.abs(x).max()) if x.size else 0.0
        t = 16 * eps * n * mx * mx + 8 * eps * big
        if op == "std":
            t = 16 * eps * n * mx + 8 * eps * big
    else:  # logsumexp
        t = 16 * eps * (big + 1) * max(1, np.log2(n))
    return float("%.3g" % (t * 1.01 + 1e-300))


def view_ops(base):
    """Random view chain applied to `base` (a NumPy array); returns (ops, view)."""
    ops, v = [], base
    kinds = rng.choice(["none", "perm", "slice", "flip", "bcast", "mixed"], p=[.2, .2, .2, .15, .1, .15])
    if kinds in ("perm", "mixed") and v.ndim > 1:
        p = [int(i) for i in rng.permutation(v.ndim)]
        ops.append(["permute", p]); v = np.transpose(v, p)
    if kinds in ("slice", "mixed") and v.ndim > 0:
        items = []
        for d in v.shape:
            step = int(rng.choice([1, 2, -1, -2, 3]))
            start = None if rng.random() < .5 else int(rng.integers(-d - 1, d + 1))
            items.append([start, None, step])
        ops.append(["slice", items])
        v = v[tuple(slice(s, e, st) for s, e, st in items)]
    if kinds in ("flip", "mixed") and v.ndim > 0:
        ax = int(rng.integers(v.ndim)); ops.append(["flip", ax]); v = np.flip(v, ax)
    if kinds == "bcast" and v.ndim < 4:
        shape = [int(rng.integers(1, 4))] + list(v.shape)
        ops.append(["broadcast", shape]); v = np.broadcast_to(v, shape)
    return ops, v


def make_base(dtype, shape):
    n = int(np.prod(shape))
    if dtype in ("f32", "f64"):
        kind = rng.choice(["normal", "ties", "nan"], p=[.5, .25, .25])
        if kind == "ties":
            x = rng.integers(-3, 4, n).astype(np.float64)
        else:
            x = rng.standard_normal(n) * 10.0 ** int(rng.integers(-1, 3))
        if kind == "nan" and n:
            x[rng.random(n) < .3] = np.nan
            if rng.random() < .3:
                x[rng.random(n) < .2] = np.inf
        return x.astype(np.float32 if dtype == "f32" else np.float64).reshape(shape)
    lo, hi = (-100, 100) if rng.random() < .7 else (0, 3)
    return rng.integers(lo, hi, n).astype(np.int32 if dtype == "i32" else np.int64).reshape(shape)


def add_entry(entries, dtype, base, ops, view, cases):
    data = [enc(v) for v in base.reshape(-1)] if dtype[0] == "f" else [enc_int(v) for v in base.reshape(-1)]
    out = []
    for op, axes, keepdims, ddof in cases:
        c = {"op": op, "axes": axes, "keepdims": keepdims, "ddof": ddof}
        try:
            with np.errstate(all="ignore"):
                r = np.asarray(compute(view, op, axes, keepdims, ddof))
            c["shape"] = list(r.shape)
            c["out"] = [enc(v) for v in r.reshape(-1)]
            c["tol"] = tolerance(view, op, axes, r)
        except (ValueError, np.exceptions.AxisError, IndexError, TypeError):
            c["err"] = True
        out.append(c)
    entries.append({"dtype": dtype, "shape": list(base.shape), "data": data, "view": ops, "cases": out})


def random_cases(ndim, ops):
    cases = []
    for op in ops:
        for _ in range(2):
            keepdims = bool(rng.random() < .4)
            ddof = int(rng.integers(0, 2))
            if op in SINGLE_AXIS:
                if op in ("cumsum", "cumprod") and ndim == 0:
                    continue
                axes = None if (rng.random() < .3 and op[:3] != "cum") or ndim == 0 else [int(rng.integers(-ndim, ndim))]
            else:
                r = rng.random()
                if r < .25 or ndim == 0:
                    axes = None
                elif r < .35:
                    axes = []
                else:
                    k = int(rng.integers(1, ndim + 1))
                    axes = [int(a) - (ndim if rng.random() < .3 else 0) for a in rng.choice(ndim, k, replace=False)]
            cases.append((op, axes, keepdims and axes is not None, ddof))
    return cases


def main():
    entries = []
    for i in range(150):
        dtype = ["f64", "f32", "i32", "i64"][i % 4]
        ndim = int(rng.integers(0, 5))
        shape = [int(rng.integers(1, 6)) for _ in range(ndim)]
        base = make_base(dtype, shape)
        ops, view = view_ops(base)
        add_entry(entries, dtype, base, ops, view, random_cases(view.ndim, FLOAT_OPS if dtype[0] == "f" else INT_OPS))
    # Longer contiguous and strided runs (pairwise tree beyond one block).
    for dtype, shape in [("f32", [3, 700]), ("f64", [1000]), ("f32", [2, 5, 150]), ("f32", [4100])]:
        base = make_base("f64", shape).astype(np.float32 if dtype == "f32" else np.float64)
        base = np.nan_to_num(base)
        for ops, view in [([], base), (view_ops(base))]:
            nd = view.ndim
            cases = [(op, ax, False, 0) for op in ("sum", "mean", "var", "argmax", "max", "norm2", "logsumexp")
                     for ax in [None] + [[k] for k in range(nd)]]
            add_entry(entries, dtype, base, ops, view, cases)
    # NumPy's test_reduce_zero_axis matrix: which empty reductions give values, which fail.
    for shape in [(0, 3), (3, 0), (0, 0, 3), (2, 0, 4), (0,)]:
        base = np.zeros(shape, np.float64)
        nd = len(shape)
        axis_sets = [None, []] + [[k] for k in range(nd)] + [list(p) for p in itertools.combinations(range(nd), 2)]
        cases = []
        for op in ("sum", "prod", "mean", "var", "max", "min", "argmax", "argmin", "all", "any",
                   "count_nonzero", "ptp", "nanmax", "nansum", "logsumexp", "norminf", "cumsum"):
            for axes in axis_sets:
                if op in SINGLE_AXIS and (axes is None or len(axes) != 1):
                    if not (op in ("argmax", "argmin") and axes is None):
                        continue
                cases.append((op, axes, False, 0))
                cases.append((op, axes, True, 0)) if axes else None
        add_entry(entries, "f64", base, [], base, cases)
    # NaN and tie specials.
    for data in ([1.0, np.nan, np.nan], [np.nan, 1.0, 3.0, 3.0], [np.nan, np.nan], [2.0, 2.0, 1.0, 1.0],
                 [-np.inf, -np.inf], [np.inf, 1.0, np.nan], [-0.0, -0.0]):
        base = np.array(data)
        cases = [(op, None, False, 0) for op in FLOAT_OPS if op[:3] != "cum"] + [("cumsum", [0], False, 0)]
        add_entry(entries, "f64", base, [], base, cases)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reductions.json")
    with open(path, "w") as f:
        json.dump({"seed": SEED, "numpy": np.__version__, "entries": entries}, f, separators=(",", ":"))
    print(f"{len(entries)} arrays, {sum(len(e['cases']) for e in entries)} cases -> {path}")


main()
