"""NumPy side of the reduction benchmark: prints `case<TAB>median seconds`."""
import os

import numpy as np
from benchtime import median_time
from lcg import lcg  # the LCG of bench/benches/reductions.rs


def lse(a, axis=1):
    m = a.max(axis=axis, keepdims=True)
    return np.log(np.exp(a - m).sum(axis=axis)) + np.squeeze(m, axis=axis)


n = 4096
a = lcg(n * n).reshape(n, n)
v = lcg(10_000_000)
cases = {
    "sum_all": lambda: a.sum(),
    "mean_all": lambda: a.mean(),
    "sum_0": lambda: a.sum(axis=0),
    "sum_1": lambda: a.sum(axis=1),
    "mean_1": lambda: a.mean(axis=1),
    "sum_t0": lambda: a.T.sum(axis=0),
    "max_0": lambda: a.max(axis=0),
    "max_1": lambda: a.max(axis=1),
    "min_1": lambda: a.min(axis=1),
    "argmax_1": lambda: a.argmax(axis=1),
    "argmax_all": lambda: v.argmax(),
    "lse_1": lambda: lse(a),
    "lse_all": lambda: lse(a, None),
    "lse_0": lambda: lse(a, 0),
    "lse_t0": lambda: lse(a.T, 0),
    "var_0": lambda: a.var(axis=0),
    "var_1": lambda: a.var(axis=1),
}


def softmax(a, axis, log):
    m = a.max(axis=axis, keepdims=True)
    e = np.exp(a - m)
    s = e.sum(axis=axis, keepdims=True)
    return (a - m) - np.log(s) if log else e / s


# Softmax rows of the same input (the Rust side's `softmax_cases`).
cases.update({
    "softmax_last": lambda: softmax(a, 1, False),
    "log_softmax_last": lambda: softmax(a, 1, True),
    "softmax_axis0": lambda: softmax(a, 0, False),
    "log_softmax_axis0": lambda: softmax(a, 0, True),
})
# FT_BENCH_FILTER (comma-separated substrings of the keys) selects cases, as in Rust.
flt = [p.strip() for p in os.environ.get("FT_BENCH_FILTER", "").split(",") if p.strip()]
cases = {k: f for k, f in cases.items() if not flt or any(p in k for p in flt)}
for k, f in cases.items():
    print(f"{k}\t{median_time(f)}")
