"""Golden cases for the array functions of the breadth issue, made by NumPy.

Run: python3 tests/golden/arrays/gen_arrays.py  (writes tests/golden/arrays/arrays.json;
needs numpy; PyTorch, if importable, double-checks the written-out cummax/cummin rule)

Inputs are formula-filled, NaN-marked and viewed as described in
tests/golden/breadth_inputs.py. Where ferrotensor's typed result differs from NumPy's by
design, the reference is NumPy's value converted, and the script says so at the spot:
  * quantile/percentile of float32 with an array `q`: NumPy promotes to float64 (it keeps
    float32 for a scalar q); ferrotensor keeps the input type, so each q is computed as a
    scalar, as NumPy does for `weak` q, and stacked.
  * cov/corrcoef/interp: NumPy computes in float64; ferrotensor keeps float32 inputs in
    float32, so the reference is NumPy's float64 result rounded to float32.
"""
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from breadth_inputs import build, encode, result, write  # noqa: E402

warnings.filterwarnings("ignore", category=RuntimeWarning)  # NaN/empty/ddof cases are intended
cases = []
FLOATS = ["f32", "f64"]


def add(fn, dtype, inputs, args, call):
    """inputs: list of input specs (operand i is filled with op index i)."""
    def run():
        xs = [build(x, i, dtype) for i, x in enumerate(inputs)]
        return call(*xs)
    cases.append({"fn": fn, "dtype": dtype, "inputs": inputs, "args": args, "want": result(run)})


# ---- median, quantile, percentile and the nan* twins
STAT_INPUTS = [
    {"shape": [7]},
    {"shape": [8]},
    {"shape": [1]},
    {"shape": [3, 5]},
    {"shape": [2, 3, 4]},
    {"shape": [4, 6], "ops": [["swap"]]},
    {"shape": [4, 6], "ops": [["flip", 1], ["step", 0]]},
    {"shape": [5], "ops": [["bcast", [3, 5]]]},
    {"shape": [3, 5], "nan": [4]},
    {"shape": [3, 5], "nan": [0, 1, 2, 3, 4]},
    {"shape": [0, 3]},
    {"shape": [200]},
]
AXES = [None, [0], [-1], [0, 1], [], [1, 0]]
for x in STAT_INPUTS:
    nd = len(x["shape"]) if "ops" not in x or x["ops"][-1][0] != "bcast" else len(x["ops"][-1][1])
    for axes in AXES:
        if axes is not None and any(a >= nd or a < -nd for a in axes):
            continue
        ax = None if axes is None else tuple(axes)
        for keep in [False, True] if axes else [False]:
            for dt in FLOATS:
                # NumPy's median fails to reshape an empty array for axis=() (an
                # implementation artifact); reducing nothing gives the empty input back.
                add("median", dt, [x], {"axes": axes, "keepdims": keep},
                    lambda a, ax=ax, keep=keep: a.copy() if ax == () and a.size == 0
                    else np.median(a, axis=ax, keepdims=keep))
                add("nanmedian", dt, [x], {"axes": axes, "keepdims": keep},
                    lambda a, ax=ax, keep=keep: np.nanmedian(a, axis=ax, keepdims=keep))

METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher",
           "midpoint", "nearest"]
QS = [0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 0.9, 1.0]


def stacked(fn, a, q, **kw):
    """The quantiles one scalar q at a time (NumPy keeps the input type then)."""
    q = np.asarray(q)
    if q.ndim == 0:
        return fn(a, float(q), **kw)
    return np.stack([fn(a, float(v), **kw) for v in q.ravel()]).reshape(q.shape + np.shape(fn(a, 0.5, **kw)))


for x in [{"shape": [7]}, {"shape": [8]}, {"shape": [1]}, {"shape": [2]}, {"shape": [3, 5]},
          {"shape": [4, 6], "ops": [["swap"]]}, {"shape": [3, 5], "nan": [6]}]:
    for m in METHODS:
        for dt in FLOATS:
            for fn, scale in [("quantile", 1.0), ("nanquantile", 1.0)]:
                npf = getattr(np, fn)
                add(fn, dt, [x], {"q": QS, "axes": None, "method": m, "keepdims": False},
                    lambda a, npf=npf, m=m: stacked(npf, a, QS, method=m))
            if len(x["shape"]) == 2:
                add("quantile", dt, [x], {"q": [0.3, 0.5], "axes": [1], "method": m, "keepdims": True},
                    lambda a, m=m: stacked(np.quantile, a, [0.3, 0.5], axis=(1,), method=m, keepdims=True))
                add("percentile", dt, [x], {"q": 40.0, "axes": [0], "method": m, "keepdims": False},
                    lambda a, m=m: np.percentile(a, 40.0, axis=(0,), method=m))
                add("nanpercentile", dt, [x], {"q": [[10.0, 90.0]], "axes": [0, 1], "method": m, "keepdims": False},
                    lambda a, m=m: stacked(np.nanpercentile, a, [[10.0, 90.0]], axis=(0, 1), method=m))
for dt in FLOATS:
    inf = {"shape": [3], "ops": []}
    # Infinite values: NumPy's lerp gives NaN next to infinities; we reproduce it.
    cases.append({"fn": "quantile_inf", "dtype": dt, "inputs": [], "args": {},
                  "want": result(lambda dt=dt: np.stack([np.quantile(np.array([1, 2, np.inf], np.dtype({"f32": "float32", "f64": "float64"}[dt])), q) for q in [0.0, 0.5, 0.75, 1.0]]))})
    add("quantile", dt, [{"shape": [0, 3]}], {"q": 0.5, "axes": [0], "method": "linear", "keepdims": False},
        lambda a: np.quantile(a, 0.5, axis=0))
    add("quantile", dt, [{"shape": [0, 3]}], {"q": 0.5, "axes": [1], "method": "linear", "keepdims": False},
        lambda a: np.quantile(a, 0.5, axis=1))
    add("nanquantile", dt, [{"shape": [0, 3]}], {"q": 0.5, "axes": [0], "method": "linear", "keepdims": False},
        lambda a: np.nanquantile(a, 0.5, axis=0))
    add("quantile", dt, [{"shape": [4]}], {"q": 1.5, "axes": None, "method": "linear", "keepdims": False},
        lambda a: np.quantile(a, 1.5))
    add("percentile", dt, [{"shape": [4]}], {"q": -1.0, "axes": None, "method": "linear", "keepdims": False},
        lambda a: np.percentile(a, -1.0))
    add("quantile", dt, [{"shape": [3, 4]}], {"q": 0.5, "axes": [2], "method": "linear", "keepdims": False},
        lambda a: np.quantile(a, 0.5, axis=2))
    add("quantile", dt, [{"shape": [3, 4]}], {"q": 0.5, "axes": [0, 0], "method": "linear", "keepdims": False},
        lambda a: np.quantile(a, 0.5, axis=(0, 0)))

# ---- cov and corrcoef (NumPy computes in float64: see the module docstring)
def f32_like(dt, r):
    r = np.asarray(r)
    return r.astype(np.float32) if dt == "f32" else r

COV_INPUTS = [
    ([{"shape": [3, 6]}], {}),
    ([{"shape": [3, 6]}], {"rowvar": False}),
    ([{"shape": [6]}], {}),
    ([{"shape": [6]}], {"rowvar": False}),
    ([{"shape": [2, 5]}, {"shape": [5]}], {}),
    ([{"shape": [5, 2]}, {"shape": [5, 1]}], {"rowvar": False}),
    ([{"shape": [4, 6], "ops": [["swap"]]}], {"bias": True}),
    ([{"shape": [3, 6]}], {"ddof": 0}),
    ([{"shape": [3, 6]}], {"ddof": 3}),
    ([{"shape": [3, 4]}], {"ddof": 4}),
    ([{"shape": [3, 6]}], {"fweights": [1, 2, 0, 3, 1, 1]}),
    ([{"shape": [3, 6]}], {"aweights": [0.5, 1.0, 2.0, 0.25, 1.0, 3.0]}),
    ([{"shape": [3, 6]}], {"fweights": [1, 2, 2, 3, 1, 1], "aweights": [0.5, 1.0, 2.0, 0.25, 1.0, 3.0], "ddof": 1}),
    ([{"shape": [3, 6]}], {"fweights": [1, 2, 2, 3, 1, 1], "aweights": [0.5, 1.0, 2.0, 0.25, 1.0, 3.0], "ddof": 0}),
    ([{"shape": [3, 6], "nan": [2]}], {}),
    ([{"shape": [0, 6]}], {}),
    ([{"shape": [2, 3, 4]}], {}),
    ([{"shape": [3, 6]}], {"fweights": [1, 2]}),
    ([{"shape": [3, 6]}], {"aweights": [1.0, -1.0, 1.0, 1.0, 1.0, 1.0]}),
    ([{"shape": [2, 5]}, {"shape": [4]}], {}),
]
for inputs, kw in COV_INPUTS:
    for dt in FLOATS:
        npkw = {k: (np.array(v) if k.endswith("weights") else v) for k, v in kw.items()}
        add("cov", dt, inputs, kw, lambda *xs, npkw=npkw, dt=dt: f32_like(dt, np.cov(*xs, **npkw)))
        if not any(k in kw for k in ("bias", "ddof", "fweights", "aweights")):
            add("corrcoef", dt, inputs, kw, lambda *xs, kw=kw, dt=dt: f32_like(dt, np.corrcoef(*xs, **kw)))
for dt in FLOATS:
    add("corrcoef", dt, [{"shape": [1, 4]}], {}, lambda x, dt=dt: f32_like(dt, np.corrcoef(x)))
    add("corrcoef", dt, [{"shape": [2, 4], "ops": [["bcast", [2, 4]]]}], {}, lambda x, dt=dt: f32_like(dt, np.corrcoef(np.ones((2, 4), x.dtype))))

# ---- histogram and bincount
HIST = [
    ({"shape": [20]}, {"bins": 5}),
    ({"shape": [20]}, {"bins": 7}),
    ({"shape": [20]}, {"bins": 4, "range": [-1.0, 1.0]}),
    ({"shape": [20]}, {"bins": 3, "range": [0.0, 0.0]}),
    ({"shape": [20]}, {"bins": [-1.25, -0.5, 0.0, 0.0, 0.75, 1.25]}),
    ({"shape": [20]}, {"bins": [-2.0, 2.0]}),
    ({"shape": [4, 5], "ops": [["swap"]]}, {"bins": 6}),
    ({"shape": [4, 5], "ops": [["flip", 0]]}, {"bins": 6, "density": True}),
    ({"shape": [20]}, {"bins": [-1.25, -0.5, 0.0, 0.75, 1.25], "density": True}),
    ({"shape": [20]}, {"bins": 5, "weights": "int"}),
    ({"shape": [20]}, {"bins": 5, "weights": "float"}),
    ({"shape": [20]}, {"bins": [-1.25, 0.0, 1.25], "weights": "float", "density": True}),
    ({"shape": [20], "nan": [3]}, {"bins": 4, "range": [-1.0, 1.0]}),
    ({"shape": [20], "nan": [3]}, {"bins": 4}),
    ({"shape": [0]}, {"bins": 3}),
    ({"shape": [1]}, {"bins": 4}),
    ({"shape": [20]}, {"bins": 0}),
    ({"shape": [20]}, {"bins": [1.0, 0.0]}),
    ({"shape": [20]}, {"bins": 3, "range": [1.0, 0.0]}),
]
for x, kw in HIST:
    for dt in FLOATS:
        def call(a, kw=kw):
            k = dict(kw)
            w = k.pop("weights", None)
            if w == "int":
                k["weights"] = (np.arange(a.size) % 3 + 1).reshape(a.shape)
            elif w == "float":
                k["weights"] = ((np.arange(a.size) % 5) * 0.25).reshape(a.shape)
            if "range" in k:
                k["range"] = tuple(k["range"])
            if isinstance(k.get("bins"), list):
                k["bins"] = np.array(k["bins"], a.dtype)
            return np.histogram(a, **k)
        add("histogram", dt, [x], kw, call)
for x, kw in [
    ({"shape": [9]}, {"minlength": 0}),
    ({"shape": [9]}, {"minlength": 12}),
    ({"shape": [9]}, {"minlength": 0, "weights": True}),
    ({"shape": [0]}, {"minlength": 3}),
    ({"shape": [3, 3]}, {"minlength": 0}),
    ({"shape": [9], "ops": [["flip", 0], ["step", 0]]}, {"minlength": 0}),
]:
    for dt in ["i32", "i64"]:
        def call(a, kw=kw):
            a = np.abs(a)
            w = (np.arange(a.size) * 0.5 - 1.0).reshape(a.shape) if kw.get("weights") else None
            return np.bincount(a, weights=w, minlength=kw["minlength"])
        add("bincount", dt, [x], kw, call)
    add("bincount", "i64", [x], {"minlength": 0, "negate": True}, lambda a: np.bincount(-np.abs(a) - 1) if a.size else np.bincount(np.array([-1])))


# ---- cummax / cummin (PyTorch semantics, written out)
def running(a, axis, better):
    a = np.moveaxis(np.asarray(a), axis, -1)
    vals = np.empty_like(a)
    idx = np.zeros(a.shape, np.int64)
    for lane in np.ndindex(a.shape[:-1]):
        best, at = None, 0
        for i, x in enumerate(a[lane]):
            if i == 0 or np.isnan(x) or (not np.isnan(best) and better(x, best)):
                best, at = x, i
            vals[lane + (i,)] = best
            idx[lane + (i,)] = at
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


for x in [{"shape": [9]}, {"shape": [3, 5]}, {"shape": [4, 6], "ops": [["swap"]]},
          {"shape": [3, 5], "nan": [2, 7]}, {"shape": [0, 3]}, {"shape": [2, 3, 4], "ops": [["flip", 1]]}]:
    nd = len(x["shape"])
    for axis in range(-nd, nd):
        for dt in ["f32", "f64", "i64"]:
            if dt == "i64" and "nan" in x:
                continue
            add("cummax", dt, [x], {"axis": axis}, lambda a, axis=axis: running(a.astype(np.float64) if a.dtype.kind == "i" else a, axis, lambda u, v: u >= v))
            add("cummin", dt, [x], {"axis": axis}, lambda a, axis=axis: running(a.astype(np.float64) if a.dtype.kind == "i" else a, axis, lambda u, v: u <= v))
try:
    import torch  # noqa: F401 - only to double-check the rule above
    t = torch.tensor([1.0, 3.0, 3.0, 2.0, float("nan"), 5.0, float("nan"), 1.0])
    ours = running(t.numpy(), 0, lambda u, v: u >= v)
    tv, ti = torch.cummax(t, 0)
    assert np.array_equal(ours[1], ti.numpy()) and np.allclose(ours[0], tv.numpy(), equal_nan=True)
    ours = running(t.numpy(), 0, lambda u, v: u <= v)
    tv, ti = torch.cummin(t, 0)
    assert np.array_equal(ours[1], ti.numpy())
    print("cummax/cummin rule checked against PyTorch")
except ImportError:
    pass

# ---- views: atleast_nd, flip, broadcast_arrays, broadcast_shapes
for x in [{"shape": []}, {"shape": [4]}, {"shape": [2, 3]}, {"shape": [2, 3, 4]}, {"shape": [2, 1, 3, 2]}]:
    for fn in ["atleast_1d", "atleast_2d", "atleast_3d"]:
        add(fn, "i64", [x], {}, lambda a, fn=fn: getattr(np, fn)(a))
    nd = len(x["shape"])
    for axes in [None, [0], [-1], [0, -1], [0, 0]]:
        if nd == 0 and axes is not None:
            continue
        add("flip", "i64", [x], {"axes": axes}, lambda a, axes=axes: np.flip(a, None if axes is None else tuple(axes)))
for shapes in [[[2, 3], [3]], [[8, 1, 6, 1], [7, 1, 5], [5]], [[0], [1]], [[2], [3]], [[], [4, 1]], [[3, 1], [1, 4], [2, 1, 1]]]:
    add("broadcast_arrays", "i64", [{"shape": s} for s in shapes], {}, lambda *xs: tuple(np.broadcast_arrays(*xs)))
    cases.append({"fn": "broadcast_shapes", "dtype": "i64", "inputs": [], "args": {"shapes": shapes},
                  "want": result(lambda shapes=shapes: np.array(np.broadcast_shapes(*[tuple(s) for s in shapes]), np.int64))})

# ---- tril / triu of 1-D input (and a batched check)
for x in [{"shape": [4]}, {"shape": [0]}, {"shape": [2, 3, 4]}, {"shape": [3], "ops": [["flip", 0]]}]:
    for k in [-1, 0, 2]:
        for fn in ["tril", "triu"]:
            add(fn, "f64", [x], {"k": k}, lambda a, fn=fn, k=k: getattr(np, fn)(a, k))

# ---- delete, insert, append
for x, kw in [
    ({"shape": [3, 4]}, {"obj": [1, -1], "axis": 1}),
    ({"shape": [3, 4]}, {"obj": [0, 0, 2], "axis": 0}),
    ({"shape": [3, 4]}, {"obj": [], "axis": 0}),
    ({"shape": [6], "ops": [["flip", 0]]}, {"obj": [5], "axis": 0}),
    ({"shape": [3, 4]}, {"obj": [4], "axis": 1}),
    ({"shape": [3, 4]}, {"obj": [0], "axis": 2}),
]:
    add("delete", "i64", [x], kw, lambda a, kw=kw: np.delete(a, kw["obj"], axis=kw["axis"]))
for x, v, kw in [
    ({"shape": [2, 2]}, {"shape": [2]}, {"obj": 1, "axis": 1}),
    ({"shape": [2, 2]}, {"shape": []}, {"obj": [0, 2], "axis": 1}),
    ({"shape": [2, 2]}, {"shape": [2]}, {"obj": [1], "axis": 1}),
    ({"shape": [2, 3]}, {"shape": [3]}, {"obj": 0, "axis": 0}),
    ({"shape": [2, 3]}, {"shape": [2, 3]}, {"obj": -1, "axis": 0}),
    ({"shape": [2, 3]}, {"shape": [2]}, {"obj": [2, 0, 2], "axis": 1}),
    ({"shape": [2, 3]}, {"shape": [3, 1]}, {"obj": [3, 1, 0], "axis": 1}),
    ({"shape": [5]}, {"shape": [2]}, {"obj": 5, "axis": 0}),
    ({"shape": [5]}, {"shape": [2]}, {"obj": 6, "axis": 0}),
    ({"shape": [2, 3]}, {"shape": [2]}, {"obj": 0, "axis": 0}),
    ({"shape": [4, 3], "ops": [["swap"]]}, {"shape": [3]}, {"obj": [1, 3], "axis": 0}),
]:
    add("insert", "i64", [x, v], kw, lambda a, b, kw=kw: np.insert(a, kw["obj"], b, axis=kw["axis"]))
for x, v, kw in [
    ({"shape": [2, 2]}, {"shape": [1, 2]}, {"axis": 0}),
    ({"shape": [2, 2]}, {"shape": [2, 3]}, {"axis": 1}),
    ({"shape": [2, 2]}, {"shape": [1, 2]}, {"axis": 1}),
    ({"shape": [2, 2]}, {"shape": [2]}, {"axis": 0}),
    ({"shape": [0, 2]}, {"shape": [3, 2], "ops": [["flip", 0]]}, {"axis": 0}),
]:
    add("append", "i64", [x, v], kw, lambda a, b, kw=kw: np.append(a, b, axis=kw["axis"]))

# ---- trapezoid, interp, convolve, correlate
for y, x, kw in [
    ({"shape": [6]}, None, {"dx": 1.0, "axis": -1}),
    ({"shape": [3, 5]}, None, {"dx": 0.5, "axis": 0}),
    ({"shape": [3, 5]}, None, {"dx": 2.0, "axis": 1}),
    ({"shape": [4, 6], "ops": [["swap"]]}, None, {"dx": 1.0, "axis": 1}),
    ({"shape": [1]}, None, {"dx": 1.0, "axis": 0}),
    ({"shape": [0, 3]}, None, {"dx": 1.0, "axis": 0}),
    ({"shape": [5], "nan": [2]}, None, {"dx": 1.0, "axis": 0}),
    ({"shape": [3, 5]}, {"shape": [5]}, {"axis": 1}),
    ({"shape": [3, 5]}, {"shape": [3]}, {"axis": 0}),
    ({"shape": [3, 5]}, {"shape": [3, 5], "ops": [["flip", 1]]}, {"axis": 1}),
    ({"shape": [3, 5]}, {"shape": [4]}, {"axis": 1}),
]:
    for dt in FLOATS:
        if x is None:
            add("trapezoid", dt, [y], kw, lambda a, kw=kw: np.trapezoid(a, dx=kw["dx"], axis=kw["axis"]))
        else:
            add("trapezoid_x", dt, [y, x], kw, lambda a, b, kw=kw: np.trapezoid(a, b, axis=kw["axis"]))
XP = [-1.0, -0.5, 0.0, 0.25, 1.0]
for x, kw in [
    ({"shape": [12]}, {}),
    ({"shape": [3, 4]}, {"left": -9.0, "right": 9.0}),
    ({"shape": [12], "nan": [4]}, {}),
    ({"shape": [12]}, {"xp": [0.0], "fp": [2.0]}),
    ({"shape": [12]}, {"period": 1.5}),
    ({"shape": [12]}, {"xp": [-1.0, 0.0, 0.0, 1.0], "fp": [1.0, 2.0, 3.0, 4.0]}),
    ({"shape": [12]}, {"xp": [-1.0, 0.0, 1.0], "fp": [1.0, float("inf"), 4.0]}),
    ({"shape": [12]}, {"xp": [], "fp": []}),
    ({"shape": [12]}, {"xp": [0.0, 1.0], "fp": [1.0]}),
    ({"shape": [12]}, {"period": 0.0}),
    ({"shape": [4, 3], "ops": [["swap"]]}, {}),
]:
    for dt in FLOATS:
        xp = kw.get("xp", XP)
        fp = kw.get("fp", [v * v - 1 for v in range(len(xp))])
        args = dict(kw, xp=xp, fp=fp)
        add("interp", dt, [x], args, lambda a, xp=xp, fp=fp, kw=kw, dt=dt: f32_like(dt, np.interp(
            a, np.array(xp, a.dtype), np.array(fp, a.dtype), left=kw.get("left"), right=kw.get("right"), period=kw.get("period"))))
for a, v in [([5], [3]), ([3], [5]), ([6], [6]), ([1], [4]), ([7], [2]), ([8], [1]),
             ([5], [0]), ([0], [3]), ([2, 3], [3]), ([6, 1], [3])]:
    sa = {"shape": a, "ops": [["flip", 0]]} if a == [7] else {"shape": a}
    for mode in ["full", "same", "valid"]:
        for dt in ["f64", "f32", "i64", "c128"]:
            add("convolve", dt, [sa, {"shape": v}], {"mode": mode}, lambda x, y, mode=mode: np.convolve(x, y, mode))
            add("correlate", dt, [sa, {"shape": v}], {"mode": mode}, lambda x, y, mode=mode: np.correlate(x, y, mode))

write(os.path.join(os.path.dirname(os.path.abspath(__file__)), "arrays.json"), cases)
