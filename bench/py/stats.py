"""NumPy side of the order-statistics benchmark: prints `case<TAB>median seconds`."""
import numpy as np
from benchtime import median_time
from lcg import lcg

v = lcg(10_000_000)
m = v[: 1000 * 10_000].reshape(1000, 10_000)
print(f"median_1e7\t{median_time(lambda: np.median(v))}")
print(f"quantile_1e7\t{median_time(lambda: np.quantile(v, 0.3))}")
print(f"quantile3_1e7\t{median_time(lambda: np.quantile(v, [0.1, 0.5, 0.9]))}")
print(f"nanmedian_1e7\t{median_time(lambda: np.nanmedian(v))}")
print(f"median_rows\t{median_time(lambda: np.median(m, axis=1))}")
print(f"median_cols\t{median_time(lambda: np.median(m, axis=0))}")
