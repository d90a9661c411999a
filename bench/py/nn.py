"""NumPy side of the nn benchmark: prints `case<TAB>median seconds`."""
import time
import numpy as np


def min_time(f, budget=2.0):
    """Minimum over the runs (as bench/benches/nn.rs: unpreempted runs on a shared machine)."""
    t0 = time.perf_counter(); f(); first = max(time.perf_counter() - t0, 1e-9)
    runs = int(min(60, max(5, budget / first)))
    ts = []
    for _ in range(runs):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)


n = 4096
i = np.arange(n)[:, None]
j = np.arange(n)[None, :]
x = (((i * 7 + j * 13) % 1000).astype(np.float32) * np.float32(0.01) - np.float32(5.0))


def softmax():
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


print(f"softmax\t{min_time(softmax)}")
