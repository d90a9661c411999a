"""NumPy side of the manip benchmark: prints `case<TAB>median seconds`."""

import numpy as np
from benchtime import median_time




rng = np.random.default_rng(0)
v = rng.random(10**7, dtype=np.float32)
m = rng.random((4096, 4096), dtype=np.float32)
blocks = [rng.random((1024, 4096), dtype=np.float32) for _ in range(8)]
print(f"sort_1e7\t{median_time(lambda: np.sort(v))}")
print(f"sort_1e7_stable\t{median_time(lambda: np.sort(v, kind='stable'))}")
print(f"sort_rows\t{median_time(lambda: np.sort(m, axis=1))}")
print(f"concat0\t{median_time(lambda: np.concatenate(blocks, 0))}")
print(f"concat1\t{median_time(lambda: np.concatenate(blocks, 1))}")
print(f"pad_reflect\t{median_time(lambda: np.pad(m, 2, mode='reflect'))}")
