"""Timing shared by the NumPy sides of the benchmarks (mirrors bench/src/lib.rs)."""
import time


def _runs(f, budget, lo, hi):
    t0 = time.perf_counter(); f(); first = max(time.perf_counter() - t0, 1e-9)
    ts = []
    for _ in range(int(min(hi, max(lo, budget / first)))):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return sorted(ts)


def median_time(f, budget=1.0):
    """Median seconds of `f` over enough runs to fill `budget` (3 to 50), after a warm-up."""
    ts = _runs(f, budget, 3, 50)
    return ts[len(ts) // 2]


def min_time(f, budget=1.0):
    """Minimum seconds of `f` over 5 to 60 runs (unpreempted runs on a shared machine)."""
    return _runs(f, budget, 5, 60)[0]
