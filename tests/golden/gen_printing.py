#!/usr/bin/env python3
"""Generate golden cases for ferrotensor's `display` module.

Each case records NumPy's `str(a)` for an array `a`, together with the print
options in effect (`np.printoptions(...)`), the dtype, the shape and the data
in row-major order, encoded exactly:

* floats: the IEEE bit pattern as lowercase hex (float16: 4 digits,
  float32: 8, float64: 16),
* integers: decimal strings (exact for uint64 / int64 extremes),
* bools: 0 / 1.

For summarised arrays (size > threshold) only the elements NumPy reads
(`_leading_trailing`) are stored, as `[flat_index, value]` pairs under
`"sparse"`; the Rust test fails if the formatter reads any other element.

Usage: python3 tests/golden/gen_printing.py  (writes printing.json next to it)
"""

import json
import os

import numpy as np
from numpy._core.arrayprint import _leading_trailing

SEED = 20240611
DEFAULTS = dict(precision=8, threshold=1000, edgeitems=3, linewidth=75, suppress=False)

rng = np.random.default_rng(SEED)
cases = []


def encode(a):
    flat = a.reshape(-1)
    if a.dtype.kind == "f":
        width = a.dtype.itemsize * 2
        ubits = flat.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
        return [format(int(b), "0%dx" % width) for b in ubits]
    if a.dtype.kind == "b":
        return [int(b) for b in flat]
    return [str(int(v)) for v in flat]


def add(a, name, **opts):
    a = np.asarray(a)
    o = dict(DEFAULTS)
    o.update(opts)
    with np.printoptions(
        precision=o["precision"],
        threshold=o["threshold"],
        edgeitems=o["edgeitems"],
        linewidth=o["linewidth"],
        suppress=o["suppress"],
    ):
        expected = str(a)
    case = dict(name=name, dtype=a.dtype.name, shape=list(a.shape), opts=o, expected=expected)
    if a.size > o["threshold"] and a.ndim > 0:
        idx = np.arange(a.size).reshape(a.shape)
        shown = np.unique(_leading_trailing(idx, o["edgeitems"]).reshape(-1))
        vals = encode(a.reshape(-1)[shown])
        case["sparse"] = [[int(i), v] for i, v in zip(shown, vals)]
    else:
        case["data"] = encode(a)
    cases.append(case)


FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int32, np.int64, np.uint64]


def sprinkle(a, specials, p=0.15):
    a = a.copy().reshape(-1)
    for i in range(a.size):
        if rng.random() < p:
            a[i] = specials[rng.integers(len(specials))]
    return a


# --- reference examples -----------------------------------------------------
add(np.array([1.5, 2.0, 3.0]), "ref_1d")
add(np.arange(6.0).reshape(2, 3), "ref_2d")
add(np.array([[1.0, 2.5, -3.25], [1e-9, 100.0, 0.123456789]]), "ref_sci_mixed")
add(np.arange(2000), "ref_arange2000")

# --- special float values ---------------------------------------------------
for t in FLOATS:
    n = t.__name__
    add(np.array([np.nan, np.inf, -np.inf], dtype=t), n + "_nonfinite_only")
    add(np.array([np.nan], dtype=t), n + "_nan_only")
    add(np.array([1.0, np.nan, 2.5], dtype=t), n + "_with_nan")
    add(np.array([-1.5, -np.inf, 2.0], dtype=t), n + "_with_neginf")
    add(np.array([1e-7, np.inf, 2.0], dtype=t), n + "_sci_with_inf")
    add(np.array([0.0, -0.0, 1.0], dtype=t), n + "_negzero")
    add(np.array([-0.0], dtype=t), n + "_negzero_only")
    add(np.array([0.0, 0.0], dtype=t), n + "_zeros")
    add(np.array([np.finfo(t).max, -np.finfo(t).max], dtype=t), n + "_max")
    add(np.array([np.finfo(t).smallest_subnormal, 1.0], dtype=t), n + "_subnormal")
    add(np.array([np.finfo(t).tiny, np.finfo(t).eps], dtype=t), n + "_tiny_eps")
    add(np.array([1e-4, 1.0, 999.0], dtype=t), n + "_cutoff_1e-4")
    add(np.array([np.nextafter(t(1e-4), t(0)), 1.0], dtype=t), n + "_below_1e-4")
    add(np.array([1.0, 1000.0], dtype=t), n + "_ratio_1000")
    add(np.array([1.0, np.nextafter(t(1000), t(2000))], dtype=t), n + "_ratio_above_1000")
    add(np.array([0.1, 0.2, 0.3], dtype=t), n + "_tenths")
    add(np.array([1 / 3, 2 / 3, 1.0], dtype=t), n + "_thirds")
    add(np.array([-1 / 3, 100.0, 7.0], dtype=t), n + "_neg_thirds")
    for v in [0.0, -0.0, 1.0, -2.5, 0.1, 1e-4, 9.99e-5, 999.0, 1000.0, 65504.0, 1e5, 1e6, 1e7,
              1e8, 1e15, 1e16, 1e17, 1.5e300, 1e-300, 123.456, np.pi, np.nan, np.inf, -np.inf]:
        with np.errstate(over="ignore"):
            x = t(v)
        add(np.array(x), "%s_0d_%r" % (n, v))
    add(np.array(np.nextafter(t(1e-4), t(1))), n + "_0d_above_1e-4")
    add(np.array(np.nextafter(t(1e-4), t(0))), n + "_0d_below_1e-4")

# f32 / f16 cutoffs at 1e6 / 1e3 (in the element type)
add(np.array([999999.94, 1.0], dtype=np.float32), "f32_below_1e6")
add(np.array([1e6, 1.0], dtype=np.float32), "f32_at_1e6")
add(np.array([99999999.0, 1.0]), "f64_below_1e8")
add(np.array([1e8, 1.0]), "f64_at_1e8")
add(np.array([999.5, 1.0], dtype=np.float16), "f16_below_1e3")
add(np.array([1000.0, 1.0], dtype=np.float16), "f16_at_1e3")
add(np.array([np.nextafter(np.float32(1e6), np.float32(0)), 1.0], dtype=np.float32), "f32_next_below_1e6")

# f32 exact further digits in scientific mode and tie-to-even
add(np.array([6001442816.0, 1.2345678], dtype=np.float32), "f32_exact_digits")
add(np.array([6001442816.0, 1.5e-5, 3.0], dtype=np.float32), "f32_exact_digits2")
add(np.array([-27777.3125, 1.0], dtype=np.float32), "f32_tie_even")
add(np.array([-27777.3125, 0.5, 12345.6875], dtype=np.float32), "f32_tie_even2")
add(np.array([-27777.3125, 100.0], dtype=np.float32), "f32_tie_even_pos")
add(np.array([-27777.3125, 12345.6875, 30.5], dtype=np.float32), "f32_tie_even_pos2")
add(np.array([16777217.0, 3.0], dtype=np.float32), "f32_2p24")
add(np.array([0.3, 3e-5], dtype=np.float32), "f32_sci_small")
add(np.array([1e10, 1e-10]), "f64_sci_1dot")
add(np.array([1e100, 1e-100, 1.0]), "f64_exp3")
add(np.array([1e300, -1e-300]), "f64_exp3b")
add(np.array([2.0**-1074, 1.0]), "f64_exp3_subnormal")
add(np.array([0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125]), "f64_pow2_fracs")
add(np.array([1.0000000001, 2.0]), "f64_precision_cut")
add(np.array([0.999999999, 0.5]), "f64_round_up_carry")
add(np.array([9.9999999999, 1.0]), "f64_round_up_int")
add(np.array([123456.789012345, 0.1]), "f64_long_frac")
add(np.array([0.000123456789, 0.1]), "f64_small_pos")

# tie-to-even / exact digit searches: random f32 values that round at the
# 8th fraction digit or have 9 significant digits
f32_ties = []
while len(f32_ties) < 12:
    v = np.float32(rng.integers(1, 2**20) / 2 ** rng.integers(4, 16))
    s = np.format_float_positional(v, unique=False, precision=20, trim="-")
    if "." in s and len(s.split(".")[1]) > 4:
        f32_ties.append(v)
add(np.array(f32_ties, dtype=np.float32), "f32_dyadic")
add(np.array(f32_ties, dtype=np.float32) * np.float32(1e5), "f32_dyadic_sci")

# --- random float arrays ----------------------------------------------------
shapes = [(1,), (5,), (7,), (2, 3), (4, 4), (3, 1), (1, 6), (2, 2, 2), (2, 3, 4), (3, 1, 2),
          (2, 2, 2, 2), (1, 2, 1, 3), (2, 3, 2, 2)]
for t in FLOATS:
    for si, shape in enumerate(shapes):
        for kind in ["normal", "int", "scaled", "mixed", "special"]:
            size = int(np.prod(shape))
            if kind == "normal":
                a = rng.standard_normal(size)
            elif kind == "int":
                a = rng.integers(-50, 50, size).astype(float)
            elif kind == "scaled":
                a = rng.standard_normal(size) * 10.0 ** rng.integers(-12, 13)
            elif kind == "mixed":
                a = rng.standard_normal(size) * 10.0 ** rng.integers(-6, 7, size)
            else:
                a = sprinkle(rng.standard_normal(size) * 10, [np.nan, np.inf, -np.inf, -0.0, 0.0], 0.3)
            with np.errstate(over="ignore"):
                a = a.astype(t).reshape(shape)
            if t is np.float16 and kind in ("scaled", "mixed") and si % 2 == 1:
                continue
            add(a, "%s_%s_%s" % (t.__name__, kind, "x".join(map(str, shape))))

# magnitude sweep (1-d, a few values each)
for t in FLOATS:
    for e in range(-10, 11, 2):
        with np.errstate(over="ignore"):
            a = (rng.uniform(1, 10, 4) * 10.0**e).astype(t)
        add(a, "%s_mag_%d" % (t.__name__, e))

# --- integers ---------------------------------------------------------------
for t in INTS:
    info = np.iinfo(t)
    n = t.__name__
    add(np.array([info.min, info.max], dtype=t), n + "_extremes")
    add(np.array(info.max, dtype=t), n + "_0d_max")
    add(np.array(info.min, dtype=t), n + "_0d_min")
    for shape in [(6,), (3, 4), (2, 3, 2), (2, 1, 2, 3)]:
        a = rng.integers(info.min, info.max, size=shape, dtype=t, endpoint=True)
        add(a, "%s_rand_%s" % (n, "x".join(map(str, shape))))
        a = rng.integers(max(info.min, -9), 10, size=shape, dtype=t)
        add(a, "%s_small_%s" % (n, "x".join(map(str, shape))))
add(np.array([-(2**63), 2**63 - 1, 0], dtype=np.int64), "i64_large_mix")
add(np.array([2**64 - 1, 0, 12345], dtype=np.uint64), "u64_large_mix")
add(np.arange(-5, 5, dtype=np.int32).reshape(2, 5), "i32_arange_2d")
add(np.array([7], dtype=np.int32), "i32_single")
add(np.array(-7, dtype=np.int32), "i32_0d_neg")

# --- bool -------------------------------------------------------------------
add(np.array(True), "bool_0d_true")
add(np.array(False), "bool_0d_false")
add(np.array([True, False, True]), "bool_1d")
add(np.array([True, True]), "bool_all_true")
add(np.array([False, False]), "bool_all_false")
add(rng.random((3, 4)) < 0.5, "bool_2d")
add(rng.random((2, 3, 2)) < 0.5, "bool_3d")
add(rng.random(40) < 0.5, "bool_wrap")
add(rng.random(1500) < 0.5, "bool_summary")

# --- empty ------------------------------------------------------------------
for shape in [(0,), (2, 0), (0, 3), (2, 0, 3), (1, 1, 0)]:
    add(np.zeros(shape), "f64_empty_%s" % "x".join(map(str, shape)))
    add(np.zeros(shape, dtype=np.int32), "i32_empty_%s" % "x".join(map(str, shape)))
add(np.zeros((0,), dtype=bool), "bool_empty")
add(np.zeros((0,), dtype=np.float32), "f32_empty")

# --- wrapping at 75 columns -------------------------------------------------
add(rng.standard_normal(30), "f64_wrap_1d")
add(rng.standard_normal(30).astype(np.float32), "f32_wrap_1d")
add(rng.standard_normal((3, 20)), "f64_wrap_2d")
add(rng.standard_normal((2, 2, 15)), "f64_wrap_3d")
add(rng.standard_normal((2, 12)) * 1e-9, "f64_wrap_sci")
add(np.arange(100), "i64_wrap_100")
add(np.arange(100, dtype=np.int8), "i8_wrap_100")
add(rng.integers(-(2**62), 2**62, 20), "i64_wrap_large")
add(rng.integers(0, 2**64 - 1, 12, dtype=np.uint64, endpoint=True), "u64_wrap_large")
add(np.arange(24.0), "f64_wrap_24")
add(np.arange(26.0), "f64_wrap_26")
add(np.linspace(0, 1, 23), "f64_linspace_23")
add(np.arange(37, dtype=np.float16), "f16_wrap")
add(rng.standard_normal((2, 2, 2, 9)), "f64_wrap_4d")

# --- summarised -------------------------------------------------------------
add(np.arange(1001.0), "f64_sum_1001")
add(rng.standard_normal(1500).astype(np.float32), "f32_sum_1d")
add(rng.standard_normal(2000).astype(np.float16), "f16_sum_1d")
add(rng.standard_normal((40, 30)), "f64_sum_2d")
add(rng.standard_normal((40, 30)).astype(np.float32) * 1e7, "f32_sum_2d_sci")
add(rng.standard_normal((3, 500)), "f64_sum_2d_short_rows")
add(rng.standard_normal((500, 3)), "f64_sum_2d_short_cols")
add(rng.standard_normal((12, 10, 11)), "f64_sum_3d")
add(rng.integers(-1000, 1000, (12, 10, 11)), "i64_sum_3d")
add(rng.integers(0, 255, (5, 6, 7, 8), dtype=np.uint8), "u8_sum_4d")
add(rng.standard_normal((5, 6, 7, 8)).astype(np.float32), "f32_sum_4d")
add(rng.standard_normal((2, 700)), "f64_sum_2x700")
a = rng.standard_normal(2000)
a[1] = 1e-12
a[-2] = np.nan
a[500] = 1e30  # not shown, must not influence the format
add(a, "f64_sum_hidden_huge")
add(np.arange(1001, dtype=np.int32) * 1000003, "i32_sum_wrap")
add(np.arange(2000, dtype=np.uint64) * (2**50), "u64_sum")
add(rng.integers(-128, 127, 3000, dtype=np.int8), "i8_sum")

# --- non-default print options ----------------------------------------------
add(np.array([1 / 3, 2 / 3, 10.0]), "opt_prec3", precision=3)
add(np.array([1 / 3, 2 / 3, 10.0]), "opt_prec0", precision=0)
add(np.array([1 / 3, 1e-9, 10.0]), "opt_prec3_sci", precision=3)
add(np.array([1.23456789e10, 2.0]), "opt_prec2_sci", precision=2)
add(np.array([1 / 3, 2 / 3], dtype=np.float32), "opt_prec12_f32", precision=12)
add(np.array([1 / 3, 2 / 3]), "opt_prec17", precision=17)
add(np.array([1e-9, 1.0, 123.5]), "opt_suppress", suppress=True)
add(np.array([1e-10, -1e-12, 0.5]), "opt_suppress_zero", suppress=True)
add(np.array([1e9, 1.0]), "opt_suppress_big", suppress=True)
add(np.array([1e-9, 1.0], dtype=np.float32), "opt_suppress_f32", suppress=True)
add(np.arange(20), "opt_threshold10", threshold=10)
add(np.arange(20.0).reshape(4, 5), "opt_threshold10_2d", threshold=10)
add(np.arange(60.0).reshape(3, 4, 5), "opt_threshold10_3d", threshold=10)
add(np.arange(20), "opt_edge1", threshold=10, edgeitems=1)
add(np.arange(64).reshape(4, 4, 4), "opt_edge1_3d", threshold=10, edgeitems=1)
add(np.arange(20), "opt_edge0", threshold=10, edgeitems=0)
add(np.arange(30.0).reshape(5, 6), "opt_edge0_2d", threshold=10, edgeitems=0)
add(np.arange(20), "opt_edge5", threshold=10, edgeitems=5)
add(np.arange(30), "opt_lw20", linewidth=20)
add(rng.standard_normal((3, 6)), "opt_lw30", linewidth=30)
add(rng.standard_normal((2, 3, 4)), "opt_lw1", linewidth=1)
add(rng.standard_normal(40), "opt_lw200", linewidth=200)
add(np.arange(3000).reshape(3, 1000), "opt_lw200_sum", linewidth=200)
add(rng.standard_normal(10), "opt_combo", precision=4, suppress=True, linewidth=40)
add(np.array(1 / 3), "opt_0d_ignored", precision=2)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "printing.json"), "w") as f:
    json.dump(dict(numpy_version=np.__version__, seed=SEED, cases=cases), f, indent=0)
print(len(cases), "cases")
