"""ferrotensor from Python against NumPy, measured side by side in one process.

    python3 python/bench/bench_vs_numpy.py [--repeat N]   (on an otherwise idle machine)

Cases (f32): `a + b`, `sum(a)`, `sort(a)` (last axis) on [4096, 4096], `a @ b` on
2048 x 2048 x 2048, and the same operations on [64, 64] to show the per-call overhead of
the binding. Each timing is the median of `--repeat` runs after one warm-up; the ratio
is ours / NumPy (below 1.0: ferrotensor is faster). Prints the CPU model first.
"""

import argparse
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import ferrotensor as ft


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown"


def timed(f, repeat, inner):
    f()  # warm-up (page faults of first outputs, caches, thread pool start)
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            f()
        runs.append((time.perf_counter() - t0) / inner)
    return statistics.median(runs)


def fmt(t):
    return f"{t * 1e3:9.3f} ms" if t >= 1e-4 else f"{t * 1e6:9.2f} us"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    rng = np.random.default_rng(0)

    print(f"CPU: {cpu_model()}")
    print(f"Python {sys.version.split()[0]}, NumPy {np.__version__}, ferrotensor {ft.__array_api_version__} namespace")
    print()
    print(f"| case | NumPy | ferrotensor | ratio ours/NumPy |")
    print(f"|---|---:|---:|---:|")

    def row(name, nf, ff, inner=1):
        tn = timed(nf, args.repeat, inner)
        tf = timed(ff, args.repeat, inner)
        print(f"| {name} | {fmt(tn)} | {fmt(tf)} | {tf / tn:.2f} |", flush=True)

    for n, inner in [(4096, 1), (64, 2000)]:
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        fa, fb = ft.asarray(a), ft.asarray(b)
        row(f"a + b [{n}, {n}]", lambda: a + b, lambda: fa + fb, inner)
        row(f"sum(a) [{n}, {n}]", lambda: np.sum(a), lambda: ft.sum(fa), inner)
        row(f"sort(a, axis=-1) [{n}, {n}]", lambda: np.sort(a, axis=-1), lambda: ft.sort(fa, axis=-1), max(1, inner // 10))
        if n == 64:
            row(f"a @ b [{n}, {n}]", lambda: a @ b, lambda: fa @ fb, inner)

    m = 2048
    a = rng.standard_normal((m, m), dtype=np.float32)
    b = rng.standard_normal((m, m), dtype=np.float32)
    fa, fb = ft.asarray(a), ft.asarray(b)
    row(f"a @ b [{m}, {m}] x [{m}, {m}]", lambda: a @ b, lambda: fa @ fb)

    # the binding's fixed cost: one-element operands
    s, fs = np.ones(1, np.float32), ft.ones(1, dtype=ft.float32)
    row("a + b, 1 element (call overhead)", lambda: s + s, lambda: fs + fs, 20000)


if __name__ == "__main__":
    main()
