"""NumPy side of the matmul benchmark: prints `case<TAB>median seconds`."""
import os
import numpy as np
from benchtime import median_time

# FT_BENCH_FILTER (comma-separated substrings of the keys) selects cases, as in Rust.
flt = [p.strip() for p in os.environ.get("FT_BENCH_FILTER", "").split(",") if p.strip()]


def selected(name):
    return not flt or any(p in name for p in flt)




def arr(shape, dtype):
    n = int(np.prod(shape))
    return ((np.arange(n) % 17).astype(dtype) * dtype(0.125) - dtype(1.0)).reshape(shape)


for name, sa, sb, dt in [
    ("f32_1024", (1024, 1024), (1024, 1024), np.float32),
    ("f32_2048", (2048, 2048), (2048, 2048), np.float32),
    ("f32_4096", (4096, 4096), (4096, 4096), np.float32),
    ("f64_1024", (1024, 1024), (1024, 1024), np.float64),
    ("f64_2048", (2048, 2048), (2048, 2048), np.float64),
    ("f32_batch64x128", (64, 128, 128), (64, 128, 128), np.float32),
    ("f32_64x64x4096", (4096, 64, 64), (4096, 64, 64), np.float32),
    ("f32_8x8x4096", (4096, 8, 8), (4096, 8, 8), np.float32),
]:
    if not selected(name):
        continue
    a, b = arr(sa, dt), arr(sb, dt)
    print(f"{name}\t{median_time(lambda: a @ b)}")
if selected("f32_2048_at"):
    a, b = arr((2048, 2048), np.float32), arr((2048, 2048), np.float32)
    print(f"f32_2048_at\t{median_time(lambda: a.T @ b)}")
