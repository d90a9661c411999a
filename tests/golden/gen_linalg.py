"""Golden cases for matmul, dot-family products and einsum, made by NumPy.

Run: python3 tests/golden/gen_linalg.py  (writes tests/golden/linalg.json)

Inputs are not stored: each operand is filled from a formula both sides compute
(`fill(n, op, kind)` below, mirrored in tests/linalg_common/mod.rs), then viewed through
a list of view ops (swap last two axes, flip an axis, step an axis, broadcast), so the
Rust side rebuilds the same non-contiguous operands. A few float cases use random
inputs from a fixed seed; those inputs are stored.
"""
import json
import numpy as np

rng = np.random.default_rng(20240606)


def fill(n, op, kind):
    i = np.arange(n, dtype=np.int64)
    if kind == "big":
        return ((i * 7919 + 13 + 101 * op) % 200003) - 100000
    return ((i * 7 + 3 + 5 * op) % 11) - 5


def build(base, ops, dtype, op_index, kind="small"):
    n = int(np.prod(base)) if base else 1
    x = fill(n, op_index, kind).astype(dtype).reshape(base)
    for o in ops:
        if o[0] == "swap":
            x = np.swapaxes(x, -1, -2)
        elif o[0] == "flip":
            x = np.flip(x, o[1])
        elif o[0] == "step":
            sl = [slice(None)] * x.ndim
            sl[o[1]] = slice(None, None, 2)
            x = x[tuple(sl)]
        elif o[0] == "bcast":
            x = np.broadcast_to(x, o[1])
    return x


def flat(r):
    r = np.asarray(r)
    if r.dtype.kind == "c":
        return [[float(v.real), float(v.imag)] for v in r.ravel()]
    return [v.item() for v in r.ravel()]


def run(fn, ops_list, dtype, kind):
    xs = [build(b, o, dtype, i, kind) for i, (b, o) in enumerate(ops_list)]
    try:
        with np.errstate(over="ignore"):
            r = np.asarray(fn(*xs))
        return {"shape": list(r.shape), "data": flat(r)}
    except Exception as e:  # noqa: BLE001 - every NumPy error is an expected error case
        return {"error": type(e).__name__}


DT = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}

# ---- matmul: (a_base, a_ops, b_base, b_ops)
M = [
    ([2, 3], [], [3, 4], []),
    ([4], [], [4], []),
    ([4], [], [4, 3], []),
    ([3, 4], [], [4], []),
    ([4], [], [5, 4, 6], []),
    ([5, 2, 4], [], [4], []),
    ([2, 1, 3, 4], [], [5, 4, 6], []),
    ([7, 1, 2, 3], [], [5, 3, 4], []),
    ([3, 2, 3], [], [3, 4], []),
    ([2, 3], [], [3, 3, 4], []),
    ([2, 0], [], [0, 3], []),
    ([0, 3], [], [3, 2], []),
    ([2, 3], [], [3, 0], []),
    ([0, 2, 3], [], [3, 2], []),
    ([1, 1], [], [1, 1], []),
    ([17, 33], [], [33, 19], []),
    ([65, 70], [], [70, 67], []),
    ([130, 40], [], [40, 90], []),
    ([3, 2], [["swap"]], [3, 4], []),
    ([2, 3], [], [4, 3], [["swap"]]),
    ([20, 30], [["swap"]], [25, 20], [["swap"]]),
    ([2, 3], [["flip", 0]], [3, 4], [["flip", 1]]),
    ([40, 50], [["flip", 1]], [50, 30], [["flip", 0]]),
    ([4, 6], [["step", 1]], [6, 5], [["step", 0]]),
    ([1, 3, 4], [["bcast", [5, 3, 4]]], [5, 4, 2], []),
    ([5, 3, 4], [], [1, 4, 2], [["bcast", [5, 4, 2]]]),
    ([3, 20, 24], [], [1, 24, 18], [["bcast", [3, 24, 18]]]),
    ([2, 3, 4], [["swap"]], [2, 3, 5], []),
    ([4, 6, 2], [["flip", 0], ["swap"]], [4, 6, 3], [["flip", 1]]),
    ([3, 5, 4], [["step", 1]], [4, 2], []),
    ([6, 2, 8], [], [8, 3], []),
    ([6, 2, 8], [["flip", 0]], [8, 3], []),
    ([2, 3, 4], [], [3, 4, 5], []),
    ([2, 3], [], [4, 5], []),
    ([3], [], [4], []),
    ([2, 3], [], [2], []),
    ([5, 2, 3], [], [4, 3, 2], []),
]


def mm_cases():
    out = []
    for dt in DT:
        for a, ao, b, bo in M:
            out.append({"dtype": dt, "a": [a, ao], "b": [b, bo], "kind": "small",
                        **run(np.matmul, [(a, ao), (b, bo)], DT[dt], "small")})
    for dt in ["i32", "i64"]:
        for a, ao, b, bo in [([5, 7], [], [7, 6], []), ([3, 40, 50], [], [50, 30], [["flip", 0]])]:
            out.append({"dtype": dt, "a": [a, ao], "b": [b, bo], "kind": "big",
                        **run(np.matmul, [(a, ao), (b, bo)], DT[dt], "big")})
    # 0-d operands are errors
    out.append({"dtype": "f64", "a": [[], []], "b": [[3], []], "kind": "small", "error": "ValueError"})
    out.append({"dtype": "f64", "a": [[3], []], "b": [[], []], "kind": "small", "error": "ValueError"})
    return out


def random_cases():
    out = []
    for dt, shapes in [("f64", ([3, 40, 30], [30, 25])), ("f32", ([70, 50], [50, 60])), ("f64", ([9, 9], [9, 9]))]:
        a = rng.standard_normal(shapes[0]).astype(DT[dt])
        b = rng.standard_normal(shapes[1]).astype(DT[dt])
        r = a @ b
        out.append({"dtype": dt, "a_shape": shapes[0], "a": flat(a), "b_shape": shapes[1], "b": flat(b),
                    "shape": list(r.shape), "data": flat(r)})
    return out


# ---- dot family: (name, operands)
D = [
    ("dot", [([3], []), ([3], [])]),
    ("dot", [([2, 3], []), ([3], [])]),
    ("dot", [([3], []), ([3, 4], [])]),
    ("dot", [([2, 3], []), ([3, 4], [])]),
    ("dot", [([2, 3, 4], []), ([5, 4, 2], [])]),
    ("dot", [([2, 3, 4], []), ([4], [])]),
    ("dot", [([4], []), ([2, 4, 3], [])]),
    ("dot", [([2, 3], [["swap"]]), ([2, 4], [["flip", 0]])]),
    ("dot", [([2, 3], []), ([4, 5], [])]),
    ("dot", [([], []), ([2, 3], [])]),
    ("vdot", [([2, 3], []), ([3, 2], [])]),
    ("vdot", [([2, 3], [["swap"]]), ([6], [])]),
    ("vdot", [([4], []), ([5], [])]),
    ("inner", [([3], []), ([3], [])]),
    ("inner", [([2, 3], []), ([4, 3], [])]),
    ("inner", [([2, 2, 3], []), ([4, 3], [["flip", 1]])]),
    ("inner", [([2, 3], []), ([3, 2], [])]),
    ("outer", [([3], []), ([4], [])]),
    ("outer", [([2, 2], []), ([3], [])]),
    ("kron", [([2, 2], []), ([2, 3], [])]),
    ("kron", [([3], []), ([2], [])]),
    ("kron", [([2, 3], []), ([2, 1, 2], [])]),
    ("kron", [([2, 3], [["swap"]]), ([2], [])]),
    ("trace", [([3, 3], [])]),
    ("trace", [([3, 4], [])]),
    ("trace", [([2, 3, 4], [])]),
    ("trace", [([3, 3], [["flip", 0]])]),
    ("tensordot1", [([2, 3, 4], []), ([4, 5], [])]),
    ("tensordot2", [([2, 3, 4], []), ([3, 4, 5], [])]),
    ("tensordot0", [([2, 3], []), ([4], [])]),
    ("tensordotx", [([3, 4, 5], []), ([4, 3, 2], [])]),
    ("tensordotx", [([3, 4, 5], [["flip", 1]]), ([4, 3, 2], [["flip", 0]])]),
    ("tensordotx", [([3, 4, 5], [["flip", 1]]), ([4, 3, 2], [["swap"]])]),
    ("tensordot1", [([2, 3], []), ([4, 5], [])]),
]

DOTF = {
    "dot": np.dot, "vdot": np.vdot, "inner": np.inner, "outer": np.outer, "kron": np.kron,
    "trace": np.trace,
    "tensordot0": lambda a, b: np.tensordot(a, b, 0),
    "tensordot1": lambda a, b: np.tensordot(a, b, 1),
    "tensordot2": lambda a, b: np.tensordot(a, b, 2),
    "tensordotx": lambda a, b: np.tensordot(a, b, axes=([1, 0], [0, 1])),
}


def dot_cases():
    out = []
    for dt in ["f64", "i64", "f32"]:
        for name, ops in D:
            out.append({"op": name, "dtype": dt, "operands": [list(o) for o in ops],
                        **run(DOTF[name], ops, DT[dt], "small")})
    return out


# ---- einsum: (spec, operands)
E = [
    ("ij,jk->ik", [[2, 3], [3, 4]]), ("ij,jk", [[2, 3], [3, 4]]), ("ij,kj->ik", [[2, 3], [4, 3]]),
    ("ji,jk->ik", [[3, 2], [3, 4]]), ("ij,jk->ki", [[2, 3], [3, 4]]), ("ii->i", [[3, 3]]),
    ("ii", [[4, 4]]), ("ii->", [[3, 3]]), ("ij->ji", [[2, 3]]), ("ij", [[2, 3]]), ("ji", [[2, 3]]),
    ("ij->", [[2, 3]]), ("ij->i", [[2, 3]]), ("ij->j", [[2, 3]]), ("i,i->", [[5], [5]]), ("i,i", [[5], [5]]),
    ("i,j->ij", [[3], [4]]), ("i,j", [[3], [4]]), ("i,i->i", [[4], [4]]), ("ij,ij->ij", [[2, 3], [2, 3]]),
    ("ij,ij->", [[2, 3], [2, 3]]), ("ij,ij->i", [[2, 3], [2, 3]]), ("ij,ji->", [[2, 3], [3, 2]]),
    ("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]]), ("bij,bjk->bki", [[2, 3, 4], [2, 4, 5]]),
    ("bij,jk->bik", [[2, 3, 4], [4, 5]]), ("ij,bjk->bik", [[3, 4], [2, 4, 5]]),
    ("bij,bkj->bik", [[2, 3, 4], [2, 5, 4]]), ("bij,bij->b", [[2, 3, 4], [2, 3, 4]]),
    ("ijk,jil->kl", [[2, 3, 4], [3, 2, 5]]), ("ijk,kji->", [[2, 3, 4], [4, 3, 2]]),
    ("abc,cd,de->abe", [[2, 3, 4], [4, 5], [5, 2]]), ("ij,jk,kl->il", [[2, 3], [3, 4], [4, 5]]),
    ("ij,jk,kl", [[2, 3], [3, 4], [4, 5]]), ("i,ij,j->", [[3], [3, 4], [4]]),
    ("a,b,c->abc", [[2], [3], [4]]), ("ab,bc,ca->", [[2, 3], [3, 4], [4, 2]]),
    ("ij,jk,kl,lm->im", [[2, 3], [3, 4], [4, 2], [2, 3]]), ("iij->ij", [[3, 3, 2]]),
    ("iij->j", [[3, 3, 2]]), ("iii->i", [[3, 3, 3]]), ("ijj,jk->ik", [[2, 3, 3], [3, 4]]),
    ("ij,jj->i", [[2, 3], [3, 3]]), ("...ij,...jk->...ik", [[2, 3, 4], [2, 4, 5]]),
    ("...ij,...jk->...ik", [[1, 3, 4], [2, 4, 5]]), ("...ij,jk", [[2, 3, 4], [4, 5]]),
    ("...i,...i->...", [[2, 3], [2, 3]]), ("i...->...", [[3, 2, 2]]), ("...ii->...i", [[2, 3, 3]]),
    ("ij...,jk...->ik...", [[2, 3, 2], [3, 4, 2]]), ("...", [[2, 3]]), ("...,...", [[2, 3], [2, 3]]),
    ("a...,a...->...", [[3, 2], [3, 2]]), ("ij,ij,ij->ij", [[2, 3], [2, 3], [2, 3]]),
    ("ab,ab,ab->", [[2, 3], [2, 3], [2, 3]]), ("i,i,i->", [[4], [4], [4]]),
    ("ijk->kji", [[2, 3, 4]]), ("ijk->", [[2, 3, 4]]), ("ijk->j", [[2, 3, 4]]),
    ("ijk,ik->j", [[2, 3, 4], [2, 4]]), ("ij,k->ijk", [[2, 3], [4]]), ("ij,k->kij", [[2, 3], [4]]),
    ("i,jk->ijk", [[2], [3, 4]]), ("bn,anm,bm->ba", [[2, 3], [4, 3, 5], [2, 5]]),
    ("Ab,bC->AC", [[2, 3], [3, 4]]), ("aB,Ba", [[2, 3], [3, 2]]), ("ij,jk->", [[2, 3], [3, 4]]),
    ("i,->i", [[3], []]), (",->", [[], []]), (",i->i", [[], [3]]), ("ij,,jk->ik", [[2, 3], [], [3, 4]]),
    ("ij,j->i", [[0, 3], [3]]), ("ij,j->i", [[2, 0], [0]]),
    ("ij,jk->ik", [[2, 3], [4, 5]]), ("ij->iij", [[2, 3]]), ("ij->k", [[2, 3]]),
    ("ij,jk->ik", [[2, 3]]), ("ijk->ij", [[2, 3]]), ("i->i->i", [[2]]), ("ii->i", [[2, 3]]),
]


def einsum_cases():
    out = []
    for spec, shapes in E:
        for dt in ["f64", "i64"]:
            ops = [(s, []) for s in shapes]
            out.append({"spec": spec, "dtype": dt, "operands": [list(o) for o in ops],
                        **run(lambda *xs: np.einsum(spec, *xs), ops, DT[dt], "small")})
    # non-contiguous operands
    for spec, ops in [
        ("ij,jk->ik", [([3, 2], [["swap"]]), ([3, 4], [["flip", 0]])]),
        ("bij,bjk->bik", [([1, 3, 4], [["bcast", [2, 3, 4]]]), ([2, 5, 4], [["swap"]])]),
        ("ii->i", [([4, 4], [["flip", 1]])]),
        ("ijk,ikl->jl", [([2, 6, 4], [["step", 1]]), ([2, 4, 5], [["flip", 2]])]),
    ]:
        out.append({"spec": spec, "dtype": "f64", "operands": [list(o) for o in ops],
                    **run(lambda *xs: np.einsum(spec, *xs), ops, np.float64, "small")})
    return out


def linalg_cases():
    """Random matrices (seeded) and NumPy's answers for the value-checked routines."""
    out = []
    for shape in ([4, 4], [2, 3, 3], [6, 6]):
        a = rng.standard_normal(shape)
        spd = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
        b = rng.standard_normal(shape[:-1] + [2])
        sign, logdet = np.linalg.slogdet(a)
        out.append({
            "shape": shape, "a": flat(a), "spd": flat(spd), "b": flat(b),
            "det": flat(np.linalg.det(a)), "sign": flat(sign), "logdet": flat(logdet),
            "inv": flat(np.linalg.inv(a)), "solve": flat(np.linalg.solve(a, b)),
            "eigvalsh": flat(np.linalg.eigvalsh(spd)), "svals": flat(np.linalg.svd(a, compute_uv=False)),
            "rank": flat(np.linalg.matrix_rank(a)), "pinv": flat(np.linalg.pinv(a)),
            "cholesky": flat(np.linalg.cholesky(spd)),
        })
    for shape in ([5, 3], [3, 5]):
        a = rng.standard_normal(shape)
        a[:, -1] = a[:, 0]  # rank deficient by one
        y = rng.standard_normal([shape[0], 2])
        x, res, rank, sv = np.linalg.lstsq(a, y, rcond=None)
        out.append({
            "shape": shape, "a": flat(a), "y": flat(y), "lstsq": flat(x), "lstsq_rank": int(rank),
            "svals": flat(sv), "rank": flat(np.linalg.matrix_rank(a)), "pinv": flat(np.linalg.pinv(a)),
            "norms": [float(np.linalg.norm(a, o)) for o in ["fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2]],
        })
    return out


data = {"linalg": linalg_cases(), "matmul": mm_cases(), "matmul_random": random_cases(), "dot": dot_cases(), "einsum": einsum_cases()}
with open(__file__.replace("gen_linalg.py", "linalg.json"), "w") as f:
    json.dump(data, f, separators=(",", ":"))
