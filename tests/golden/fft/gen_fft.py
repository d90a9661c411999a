"""Golden cases for ferrotensor::fft, made by NumPy's numpy.fft (pocketfft).

Run: python3 tests/golden/fft/gen_fft.py  (writes tests/golden/fft/fft.json; needs numpy)

Each case names a numpy.fft function, the input dtype, the input (a formula-filled base,
optional NaN positions, then view ops: see tests/golden/breadth_inputs.py) and the
keyword arguments; `want` is NumPy's result or the name of the error it raised.
"""
import os
import sys

import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from breadth_inputs import build, result, write  # noqa: E402

REAL = ["f32", "f64"]
CPLX = ["c64", "c128"]
ALL = REAL + CPLX
NORMS = [None, "ortho", "forward"]

cases = []
# `s` without `axes` is deprecated in NumPy 2 but still means the last len(s) axes.
warnings.filterwarnings("ignore", category=DeprecationWarning)


def add(fn, dtypes, x, **kw):
    for dt in dtypes:
        args = dict(kw)
        def call():
            a = build(x, 0, dt)
            ax = args.get("axis", -1)
            if fn in ("irfft", "hfft") and a.ndim and a.shape[ax] == 0 and args.get("n"):
                # NumPy reads uninitialised memory for an empty axis padded to n > 0;
                # zero-padding an empty lane is the same as transforming one zero.
                pad = [(0, 0)] * a.ndim
                pad[ax] = (0, 1)
                a = np.pad(a, pad)
            r = getattr(np.fft, fn)(a, **args)
            if fn in ("fftn", "ifftn") and args.get("axes") == []:
                # NumPy hands back the input unconverted when there is no axis; ours is
                # always complex (as the array API standard asks): the same values.
                r = r.astype(np.result_type(r.dtype, np.complex64))
            return r
        cases.append({"fn": fn, "dtype": dt, "x": x, "args": args, "want": result(call)})


# ---- one-axis transforms
ONE = [
    ({"shape": [1]}, {}),
    ({"shape": [2]}, {}),
    ({"shape": [5]}, {}),
    ({"shape": [8]}, {}),
    ({"shape": [12]}, {}),
    ({"shape": [97]}, {}),
    ({"shape": [128]}, {}),
    ({"shape": [210]}, {}),
    ({"shape": [1009]}, {}),
    ({"shape": [8]}, {"n": 3}),
    ({"shape": [8]}, {"n": 13}),
    ({"shape": [7]}, {"n": 7}),
    ({"shape": [3, 5]}, {"axis": 0}),
    ({"shape": [3, 5]}, {"axis": 1}),
    ({"shape": [3, 5]}, {"axis": -2, "n": 4}),
    ({"shape": [2, 3, 4]}, {"axis": 1}),
    ({"shape": [2, 3, 40]}, {"axis": 0}),
    ({"shape": [4, 6], "ops": [["swap"]]}, {"axis": 0}),
    ({"shape": [4, 6], "ops": [["swap"]]}, {"axis": 1}),
    ({"shape": [4, 6], "ops": [["flip", 1]]}, {"axis": 1}),
    ({"shape": [4, 6], "ops": [["flip", 0], ["step", 1]]}, {"axis": 0}),
    ({"shape": [3, 10], "ops": [["step", 1]]}, {"axis": -1, "n": 6}),
    ({"shape": [5], "ops": [["bcast", [3, 5]]]}, {"axis": 1}),
    ({"shape": [3, 1], "ops": [["bcast", [3, 4]]]}, {"axis": 0}),
    ({"shape": [6], "nan": [2]}, {}),
    ({"shape": [2, 5], "nan": [7]}, {"axis": 1}),
    ({"shape": [0, 3]}, {"axis": 1}),
    ({"shape": [3, 0]}, {"axis": 0}),
    ({"shape": [3, 0]}, {"axis": 1}),
    ({"shape": [3, 0]}, {"axis": 1, "n": 4}),
    ({"shape": [4]}, {"n": 0}),
    ({"shape": [4]}, {"axis": 1}),
    ({"shape": [4]}, {"axis": -2}),
]
for x, kw in ONE:
    for norm in NORMS if kw == {} and x["shape"] in ([5], [8], [12]) else [None]:
        k = dict(kw)
        if norm:
            k["norm"] = norm
        add("fft", ALL + (["f16"] if x["shape"] == [8] and not k else []), x, **k)
        add("ifft", ALL, x, **k)
        add("rfft", REAL, x, **k)
        add("ihfft", REAL, x, **k)
        add("irfft", ALL, x, **k)
        add("hfft", ALL, x, **k)

for x, kw in [
    ({"shape": [5]}, {"n": 8}),
    ({"shape": [5]}, {"n": 9}),
    ({"shape": [5]}, {"n": 3}),
    ({"shape": [5]}, {"n": 1}),
    ({"shape": [1]}, {}),
    ({"shape": [3, 4]}, {"axis": 0, "n": 6}),
    ({"shape": [3, 4]}, {"axis": 0, "n": 5, "norm": "ortho"}),
    ({"shape": [3, 4]}, {"axis": 1, "norm": "forward"}),
]:
    add("irfft", ALL, x, **kw)
    add("hfft", ALL, x, **kw)

# ---- several axes
ND = [
    ({"shape": [4, 6]}, {}),
    ({"shape": [3, 5]}, {"norm": "ortho"}),
    ({"shape": [2, 3, 4]}, {"norm": "forward"}),
    ({"shape": [2, 3, 4]}, {"axes": [0, 2]}),
    ({"shape": [2, 3, 4]}, {"axes": [2, 0]}),
    ({"shape": [2, 3, 4]}, {"axes": [-1]}),
    ({"shape": [2, 3, 4]}, {"s": [5, 2], "axes": [1, 2]}),
    ({"shape": [2, 3, 4]}, {"s": [3, 6]}),
    ({"shape": [2, 3, 4]}, {"s": [3, 3, 3]}),
    ({"shape": [2, 3, 4]}, {"axes": [0, 0]}),
    ({"shape": [2, 3, 4]}, {"axes": [1, 1], "s": [4, 2]}),
    ({"shape": [2, 3, 4]}, {"axes": [2, 0, 2], "s": [6, 3, 3]}),
    ({"shape": [2, 3, 4]}, {"axes": []}),
    ({"shape": [6, 4], "ops": [["swap"]]}, {}),
    ({"shape": [6, 4], "ops": [["flip", 0], ["step", 1]]}, {}),
    ({"shape": [3], "ops": [["bcast", [2, 3]]]}, {}),
    ({"shape": [8, 20, 9]}, {}),
    ({"shape": [3, 4], "nan": [5]}, {}),
    ({"shape": [0, 4]}, {}),
    ({"shape": [0, 4]}, {"axes": [1]}),
    ({"shape": [3, 4]}, {"s": [3]}),
    ({"shape": [3, 4]}, {"s": [3, 4], "axes": [0]}),
    ({"shape": [3, 4]}, {"axes": [2]}),
    ({"shape": [3, 4]}, {"s": [0, 4]}),
]
for x, kw in ND:
    add("fftn", ALL, x, **kw)
    add("ifftn", ALL, x, **kw)
    add("rfftn", REAL, x, **kw)
    add("irfftn", ALL, x, **kw)
for x, kw in [
    ({"shape": [4, 6]}, {}),
    ({"shape": [2, 3, 4]}, {"norm": "ortho"}),
    ({"shape": [2, 3, 4]}, {"axes": [0, 2]}),
    ({"shape": [2, 3, 4]}, {"s": [4, 4], "axes": [-1, -2]}),
    ({"shape": [5, 3], "ops": [["swap"]]}, {}),
    ({"shape": [4]}, {}),
]:
    for fn in ["fft2", "ifft2", "irfft2"]:
        add(fn, ALL, x, **kw)
    add("rfft2", REAL, x, **kw)

# ---- frequencies and shifts (input-free cases use x = null)
for n, d in [(1, 1.0), (4, 1.0), (5, 0.5), (8, 0.1), (9, -2.0), (0, 1.0), (4, 0.0)]:
    for fn in ["fftfreq", "rfftfreq"]:
        def call(fn=fn, n=n, d=d):
            return getattr(np.fft, fn)(n, d)
        cases.append({"fn": fn, "dtype": "f64", "x": None, "args": {"n": n, "d": d}, "want": result(call)})
for x, kw in [
    ({"shape": [5]}, {}),
    ({"shape": [6]}, {}),
    ({"shape": [3, 4]}, {}),
    ({"shape": [3, 4]}, {"axes": [1]}),
    ({"shape": [3, 4]}, {"axes": [-2]}),
    ({"shape": [3, 5]}, {"axes": [1, 1]}),
    ({"shape": [3, 5], "ops": [["flip", 1], ["swap"]]}, {}),
    ({"shape": [0, 5]}, {}),
    ({"shape": [3, 4]}, {"axes": [2]}),
]:
    add("fftshift", ["f64", "i64"], x, **kw)
    add("ifftshift", ["f64", "i64"], x, **kw)

write(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fft.json"), cases)
