"""NumPy side of the nn_layers benchmark (group_norm, scaled_dot_product_attention as
NumPy compositions): prints `case<TAB>median seconds` (medians after a warm-up, as the Rust side).
Inputs are the same deterministic values as bench/benches/nn_layers.rs builds."""
import os

import numpy as np
from benchtime import median_time


def median(f):
    """Median seconds over >= 8 runs for anything under 125 ms (as the Rust side)."""
    return median_time(f, 1.0)


def selected(name):
    flt = os.environ.get("FT_BENCH_FILTER", "").strip()
    return not flt or any(p.strip() in name for p in flt.split(","))


def pattern(shape, a, b):
    """((i * a + b) % 17) * 0.1 - 0.8 over the flat index i, as f32."""
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return (((i * a + b) % 17).astype(np.float32) * np.float32(0.1) - np.float32(0.8)).reshape(shape)


if selected("group_norm"):
    N, C, H, W, G = 16, 128, 64, 64, 32
    x = pattern((N, C, H, W), 7, 3)
    w = pattern((C,), 5, 1) + np.float32(1.0)
    b = pattern((C,), 3, 2)

    def group_norm():
        xr = x.reshape(N, G, -1)
        mean = xr.mean(-1, keepdims=True)
        var = xr.var(-1, keepdims=True)
        y = ((xr - mean) / np.sqrt(var + np.float32(1e-5))).reshape(N, C, H, W)
        return y * w[None, :, None, None] + b[None, :, None, None]

    print(f"group_norm\t{median(group_norm)}")

if selected("sdpa"):
    B, Hd, L, E = 8, 8, 512, 64
    q = pattern((B, Hd, L, E), 7, 1)
    k = pattern((B, Hd, L, E), 5, 2)
    v = pattern((B, Hd, L, E), 3, 4)
    scale = np.float32(1.0 / np.sqrt(E))

    def sdpa():
        s = (q @ k.transpose(0, 1, 3, 2)) * scale
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        return s @ v

    print(f"sdpa\t{median(sdpa)}")
