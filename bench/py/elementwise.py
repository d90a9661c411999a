"""NumPy side of the element-wise benchmark: prints `case<TAB>median seconds`."""
import os

import numpy as np
from benchtime import median_time




n = 4096
i = np.arange(n).reshape(n, 1)
j = np.arange(n).reshape(1, n)
a = (((i * n + j) % 1000).astype(np.float32) * np.float32(1e-3) - np.float32(0.5))
b = (((i * 7 + j * 3) % 1000).astype(np.float32) * np.float32(1e-3))
row = np.arange(n, dtype=np.float32)
s = np.ones((64, 64), dtype=np.float32)
sa, sb = a[:256, :256].copy(), b[:256, :256].copy()
cases = {
    "add": lambda: a + b,
    "add_row": lambda: a + row,
    "add_t": lambda: a + b.T,
    "copy_t": lambda: np.ascontiguousarray(a.T),
    "plain_copy": lambda: a.copy(),
    "small_add_t": lambda: sa + sb.T,
    "small_copy_t": lambda: np.ascontiguousarray(sa.T),
    "exp": lambda: np.exp(a),
    "relu": lambda: np.maximum(a, np.float32(0)),
    "axpb": lambda: a * np.float32(2.0) + np.float32(1.0),
}
# FT_BENCH_FILTER (comma-separated substrings of the keys) selects cases, as in Rust.
flt = [p.strip() for p in os.environ.get("FT_BENCH_FILTER", "").split(",") if p.strip()]
cases = {k: f for k, f in cases.items() if not flt or any(p in k for p in flt)}
for name, f in cases.items():
    print(f"{name}\t{median_time(f, 1.5)}", flush=True)
if not flt:
    print(f"small_add\t{median_time(lambda: s + s, 0.3)}")
