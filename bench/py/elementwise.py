"""NumPy side of the element-wise benchmark: prints `case<TAB>median seconds`."""
import time
import numpy as np


def median_time(f, budget=1.0):
    t0 = time.perf_counter(); f(); first = max(time.perf_counter() - t0, 1e-9)
    runs = int(min(50, max(3, budget / first)))
    ts = []
    for _ in range(runs):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[len(ts) // 2]


n = 4096
a = (np.arange(n * n, dtype=np.float32) * np.float32(1e-6)).reshape(n, n)
print(f"copy_t\t{median_time(lambda: np.ascontiguousarray(a.T))}")
