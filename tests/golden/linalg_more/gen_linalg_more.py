"""Golden cases for the linear algebra of the breadth issue, made by NumPy and SciPy.

Run: python3 tests/golden/linalg_more/gen_linalg_more.py
(writes tests/golden/linalg_more/linalg_more.json; needs numpy and scipy)

Matrices are stored (seeded random values rounded to float32, so the f32 and f64
inputs are the same numbers; complex values as [re, im]), then viewed as described in
tests/golden/breadth_inputs.py (strided, flipped, broadcast). Results that are unique
(values of lu with distinct pivots, cholesky, eigvalsh, svdvals, det, inv, solve,
norms, ...) are compared with NumPy's values; eigenvalues of `eig` as sorted multisets;
eigenvectors, QR and SVD factors by reconstruction on the Rust side.

SciPy's `lu`, `lu_factor`, `lu_solve` and `solve_triangular` are the references for
the LU family; batched inputs are looped over in Python.
"""
import os
import sys
import warnings

import numpy as np
import scipy.linalg as sl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from breadth_inputs import build, result, write  # noqa: E402

warnings.filterwarnings("ignore")
rng = np.random.default_rng(20240607)
cases = []
REAL = ["f32", "f64"]
CPLX = ["c64", "c128"]
ALL = REAL + CPLX


def values(shape, kind="gen"):
    """Flat stored data: complex pairs; the real part alone is used for real dtypes."""
    n = int(np.prod(shape))
    re = np.round(rng.standard_normal(n), 3).astype(np.float32).astype(np.float64)
    im = np.round(rng.standard_normal(n), 3).astype(np.float32).astype(np.float64)
    z = (re + 1j * im).reshape(shape)
    if kind in ("spd", "spd_garbage"):
        # Real part: X Xᵀ + k I (SPD); imaginary part: an antisymmetric B scaled to
        # ||B|| = k/2, so that the complex matrix A + iB is Hermitian positive definite.
        k = shape[-1]
        xr, xi = z.real, z.imag
        a = xr @ np.swapaxes(xr, -1, -2) + k * np.eye(k)
        b = xi @ np.swapaxes(xr, -1, -2)
        b = b - np.swapaxes(b, -1, -2)
        nb = np.linalg.norm(b, 2, axis=(-2, -1), keepdims=True) + 1e-12
        z = a + 1j * b * (k / 2) / nb
        if kind == "spd_garbage":
            # The triangle that is not read holds garbage.
            iu = np.triu_indices(k, 1)
            for idx in np.ndindex(*shape[:-2]):
                z[idx][iu] = 99.0 + 7j
        z = np.round(z.real, 3).astype(np.float32).astype(np.float64) + 1j * np.round(z.imag, 3).astype(np.float32).astype(np.float64)
    if kind == "diag_dominant":
        k = shape[-1]
        z = z + 4 * k * np.eye(k)
    return [[float(v.real), float(v.imag)] for v in z.ravel()]


def spec(shape, kind="gen", ops=None, nan=None):
    s = {"shape": shape, "data": values(shape, kind)}
    if ops:
        s["ops"] = ops
    if nan:
        s["nan"] = nan
    return s


def add(fn, dtypes, inputs, args, call):
    for dt in dtypes:
        def run():
            xs = [build(x, i, dt) for i, x in enumerate(inputs)]
            return call(*xs)
        cases.append({"fn": fn, "dtype": dt, "inputs": inputs, "args": args, "want": result(run)})


def batched(f, a):
    """`f` of each matrix over the leading axes of `a`, results stacked."""
    if a.ndim == 2:
        return f(a)
    outs = [batched(f, a[i]) for i in range(a.shape[0])]
    if isinstance(outs[0], tuple):
        return tuple(np.stack([o[k] for o in outs]) for k in range(len(outs[0])))
    return np.stack(outs)


GEN = [
    spec([3, 3]),
    spec([4, 4]),
    spec([1, 1]),
    spec([2, 3, 3]),
    spec([4, 4], ops=[["swap"]]),
    spec([4, 4], ops=[["flip", 0]]),
    spec([6, 6], ops=[["step", 0], ["step", 1]]),
    spec([3, 3], ops=[["bcast", [2, 3, 3]]]),
]
RECT = [spec([4, 3]), spec([3, 5]), spec([2, 4, 2]), spec([5, 3], ops=[["swap"]])]
SPD = [spec([3, 3], "spd"), spec([2, 4, 4], "spd"), spec([4, 4], "spd_garbage"), spec([3, 3], "spd", ops=[["swap"]])]

# ---- LU family (SciPy)
for x in GEN + RECT:
    add("lu", ALL, [x], {}, lambda a: batched(sl.lu, a))
    add("lu_factor", ALL, [x], {}, lambda a: batched(sl.lu_factor, a))
for x in GEN[:4]:
    n = x["shape"][-1]
    batch = x["shape"][:-2]
    for b, trans in [(spec([n]), 0), (spec([n, 2]), 1), (spec(batch + [n, 3]), 2)]:
        def call(a, bb, trans=trans):
            def one(m, r):
                return sl.lu_solve(sl.lu_factor(m), r, trans=trans)
            if a.ndim == 2:
                return one(a, bb)
            return np.stack([one(a[i], bb if bb.ndim == 1 or bb.ndim == 2 else bb[i]) for i in range(a.shape[0])])
        add("lu_solve", ALL, [x, b], {"trans": trans}, call)
TRI = [spec([4, 4], "diag_dominant"), spec([2, 3, 3], "diag_dominant"), spec([4, 4], "diag_dominant", ops=[["swap"]])]
for x in TRI:
    n = x["shape"][-1]
    for b in [spec([n]), spec([n, 2]), spec([n, 2], ops=[["flip", 0]])]:
        for lower in [True, False]:
            for trans in [0, 1, 2]:
                for unit in [False, True]:
                    def call(a, bb, lower=lower, trans=trans, unit=unit):
                        f = lambda m: sl.solve_triangular(m, bb, trans=trans, lower=lower, unit_diagonal=unit)
                        return f(a) if a.ndim == 2 else np.stack([f(a[i]) for i in range(a.shape[0])])
                    add("solve_triangular", ALL, [x, b], {"lower": lower, "trans": trans, "unit": unit}, call)
zero_diag = spec([3, 3])
zero_diag["data"][4] = [0.0, 0.0]
add("solve_triangular", ALL, [zero_diag, spec([3])], {"lower": True, "trans": 0, "unit": False},
    lambda a, b: sl.solve_triangular(a, b, lower=True))
add("solve_triangular", ALL, [zero_diag, spec([3])], {"lower": True, "trans": 0, "unit": True},
    lambda a, b: sl.solve_triangular(a, b, lower=True, unit_diagonal=True))
add("solve_triangular", ALL, [spec([3, 3]), spec([4])], {"lower": True, "trans": 0, "unit": False},
    lambda a, b: sl.solve_triangular(a, b, lower=True))

# ---- eigen and singular values
for x in GEN + [spec([3, 3], nan=[4]), spec([2, 3])]:
    add("eig", ALL, [x], {}, lambda a: np.linalg.eig(a))
    add("eigvals", ALL, [x], {}, lambda a: np.linalg.eigvals(a))
for x in SPD + [spec([3, 3], "spd", nan=[1])]:
    for uplo in ["L", "U"]:
        add("eigvalsh", ALL, [x], {"uplo": uplo}, lambda a, uplo=uplo: np.linalg.eigvalsh(a, UPLO=uplo))
        add("eigh", ALL, [x], {"uplo": uplo}, lambda a, uplo=uplo: np.linalg.eigh(a, UPLO=uplo))
for x in GEN + RECT + [spec([3, 3], nan=[2]), spec([0, 3])]:
    add("svdvals", ALL, [x], {}, lambda a: np.linalg.svd(a, compute_uv=False))
    add("svd", ALL, [x], {"full": False}, lambda a: np.linalg.svd(a, full_matrices=False))
for x in RECT[:2]:
    add("svd", ALL, [x], {"full": True}, lambda a: np.linalg.svd(a, full_matrices=True))

# ---- cholesky (upper and lower), qr, det, slogdet, inv, solve, lstsq, pinv, matrix_rank
for x in SPD + [spec([3, 3])]:
    for upper in [False, True]:
        add("cholesky", ALL, [x], {"upper": upper}, lambda a, upper=upper: np.linalg.cholesky(a, upper=upper))
for x in GEN + RECT:
    add("qr", ALL, [x], {}, lambda a: np.linalg.qr(a))
for x in GEN + [spec([0, 0])]:
    add("det", ALL, [x], {}, lambda a: np.linalg.det(a))
    add("slogdet", ALL, [x], {}, lambda a: tuple(np.linalg.slogdet(a)))
    add("inv", ALL, [x], {}, lambda a: np.linalg.inv(a))
for x in GEN[:4]:
    n = x["shape"][-1]
    add("solve", ALL, [x, spec([n])], {}, lambda a, b: np.linalg.solve(a, b))
    add("solve", ALL, [x, spec([n, 2], ops=[["flip", 1]])], {}, lambda a, b: np.linalg.solve(a, b))
for a, b in [(spec([5, 3]), spec([5])), (spec([4, 2]), spec([4, 3])), (spec([3, 4]), spec([3]))]:
    add("lstsq", ALL, [a, b], {}, lambda a, b: np.linalg.lstsq(a, b, rcond=None))
for x in GEN + RECT:
    add("pinv", ALL, [x], {}, lambda a: np.linalg.pinv(a))
    add("matrix_rank", ALL, [x], {}, lambda a: np.linalg.matrix_rank(a))
low_rank = {"shape": [3, 3], "data": [[1, 1], [2, 0], [3, -1], [2, 2], [4, 0], [6, -2], [0, 1], [1, 0], [0.5, 0]]}
add("matrix_rank", ALL, [low_rank], {}, lambda a: np.linalg.matrix_rank(a))

def cond(a, p):
    """NumPy's cond, except that the nuclear norm of a singular matrix's (NaN) inverse
    raises in NumPy's SVD where the other orders give the documented infinity: that
    case is written out as infinity."""
    try:
        return np.linalg.cond(a, p)
    except np.linalg.LinAlgError:
        if p == "nuc" and a.shape[-1] == a.shape[-2] and not np.isnan(a).any():
            return np.array(np.inf, a.real.dtype)
        raise


# ---- matrix_power, multi_dot, cond, norms
for x in [spec([3, 3], "diag_dominant"), spec([2, 3, 3], "diag_dominant"), spec([3, 3], "diag_dominant", ops=[["swap"]])]:
    for n in [-3, -1, 0, 1, 2, 3, 5, 6]:
        add("matrix_power", ALL, [x], {"n": n}, lambda a, n=n: np.linalg.matrix_power(a, n))
for n in [0, 1, 2, 7]:
    add("matrix_power", ["i64"], [{"shape": [3, 3]}], {"n": n}, lambda a, n=n: np.linalg.matrix_power(a, n))
# NumPy inverts an integer matrix in float64; ferrotensor's integer matrices have no
# inverse (the result type could not be an integer): the expected result is an error.
cases.append({"fn": "matrix_power", "dtype": "i64", "inputs": [{"shape": [3, 3]}], "args": {"n": -1},
              "want": {"error": "TypeError", "message": "integer matrices have no inverse"}})
for shapes in [[[3], [3, 4], [4, 2], [2]], [[5, 3], [3, 2], [2, 6]], [[2, 3], [3, 4]], [[4], [4]],
               [[6, 2], [2, 7], [7, 3], [3, 5], [5, 1]], [[3, 2], [3, 2], [2, 2]]]:
    add("multi_dot", ALL, [spec(s) for s in shapes], {}, lambda *xs: np.linalg.multi_dot(xs))
for x in GEN + [spec([4, 3]), {"shape": [2, 2], "data": [[1, 0], [2, 0], [2, 0], [4, 0]]}, spec([3, 3], nan=[0])]:
    for p in [None, "fro", "nuc", "inf", "-inf", 1, -1, 2, -2]:
        pp = {"inf": np.inf, "-inf": -np.inf}.get(p, p)
        add("cond", ALL, [x], {"p": p}, lambda a, pp=pp: cond(a, pp))
for x in [spec([3, 4]), spec([2, 3, 3]), spec([4, 4], ops=[["flip", 1]]), spec([3, 3], nan=[3])]:
    for ordr in ["fro", "nuc", "inf", "-inf", 1, -1, 2, -2]:
        o = {"inf": np.inf, "-inf": -np.inf}.get(ordr, ordr)
        for keep in [False, True]:
            add("matrix_norm", ALL, [x], {"ord": ordr, "keepdims": keep},
                lambda a, o=o, keep=keep: np.linalg.matrix_norm(a, ord=o, keepdims=keep))
for x in [spec([7]), spec([3, 4]), spec([2, 3, 4], ops=[["swap"]]), spec([5], nan=[2]), {"shape": [0, 3]}]:
    nd = len(x["shape"])
    for axis in [None, [0], [-1]] + ([[0, 1]] if nd >= 2 else []):
        for ordr in [2, 1, 0, 3.5, "inf", "-inf"]:
            o = {"inf": np.inf, "-inf": -np.inf}.get(ordr, ordr)
            for keep in [False, True]:
                ax = None if axis is None else tuple(axis)
                add("vector_norm", ALL, [x], {"axes": axis, "ord": ordr, "keepdims": keep},
                    lambda a, o=o, ax=ax, keep=keep: np.linalg.vector_norm(a, axis=ax, keepdims=keep, ord=o))
for x in GEN[:3] + [spec([5]), spec([3, 4])]:
    add("norm", ALL, [x], {}, lambda a: np.linalg.norm(a))

# ---- array API additions
for a, b, axis in [([3], [3], -1), ([2, 4], [4], -1), ([4, 2], [4, 3, 2], 0), ([3, 1], [1, 3], -1), ([2, 3], [3, 3], -1), ([0, 3], [3], -1)]:
    add("vecdot", ALL + ["i64"], [spec(a), spec(b)], {"axis": axis}, lambda x, y, axis=axis: np.linalg.vecdot(x, y, axis=axis))
for a, b, axis in [([3], [3], -1), ([2, 3], [3], -1), ([3, 2], [3, 2], 0), ([4, 3], [1, 3], -1), ([2], [2], -1)]:
    add("cross", ALL + ["i64"], [spec(a), spec(b)], {"axis": axis}, lambda x, y, axis=axis: np.linalg.cross(x, y, axis=axis))
for x in [spec([3, 4]), spec([2, 3, 3]), spec([4, 3], ops=[["swap"]]), spec([4])]:
    for off in [-1, 0, 2]:
        add("diagonal", ALL + ["i64"], [x], {"offset": off}, lambda a, off=off: np.linalg.diagonal(a, offset=off))
        add("trace", ALL + ["i64"], [x], {"offset": off}, lambda a, off=off: np.linalg.trace(a, offset=off))
    add("matrix_transpose", ALL + ["i64"], [x], {}, lambda a: np.linalg.matrix_transpose(a))
for a, b in [([3], [4]), ([0], [2]), ([2, 2], [3])]:
    add("outer", ALL + ["i64"], [spec(a), spec(b)], {}, lambda x, y: np.linalg.outer(x, y))

write(os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg_more.json"), cases)
