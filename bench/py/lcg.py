"""The LCG of bench/benches/reductions.rs and stats.rs, vectorised by jumping ahead per block."""
import numpy as np


def lcg(n):
    out = np.empty(n, np.float32)
    s = 12345
    mul, inc, mask = 6364136223846793005, 1442695040888963407, (1 << 64) - 1
    block = 1 << 16
    # per-offset multipliers/increments for a block: s_k = A_k s + C_k
    A = np.empty(block, np.uint64); C = np.empty(block, np.uint64)
    a, c = 1, 0
    for k in range(block):
        a, c = (a * mul) & mask, (c * mul + inc) & mask
        A[k], C[k] = a, c
    for start in range(0, n, block):
        m = min(block, n - start)
        with np.errstate(over="ignore"):
            st = A[:m] * np.uint64(s) + C[:m]
        out[start:start + m] = ((st >> np.uint64(40)).astype(np.float32) / np.float32(1 << 24)) * np.float32(2) - np.float32(1)
        s = int(st[m - 1])
    return out
