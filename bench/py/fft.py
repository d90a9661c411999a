"""NumPy side of the FFT benchmark (pocketfft): prints `case<TAB>median seconds`."""
import numpy as np
from benchtime import median_time


def fill(n, complex_):
    i = np.arange(n, dtype=np.int64)
    re = ((((i * 7 + 3) % 11) - 5) / 4).astype(np.float32)
    if not complex_:
        return re
    im = ((((i * 5 + 1) % 13) - 6) / 8).astype(np.float32)
    return (re + 1j * im).astype(np.complex64)


c20 = fill(1 << 20, True)
r22 = fill(1 << 22, False)
c2d = fill(1024 * 1024, True).reshape(1024, 1024)
r2d = fill(4096 * 1024, False).reshape(4096, 1024)
c20_128 = c20.astype(np.complex128)
h2d = np.fft.rfft(r2d, axis=1)
print(f"fft_c64_2^20\t{median_time(lambda: np.fft.fft(c20))}")
print(f"rfft_f32_2^22\t{median_time(lambda: np.fft.rfft(r22))}")
print(f"fft_c128_2^20\t{median_time(lambda: np.fft.fft(c20_128))}")
print(f"fft2_c64_1024\t{median_time(lambda: np.fft.fft2(c2d))}")
print(f"fft_axis0_c64_1024\t{median_time(lambda: np.fft.fft(c2d, axis=0))}")
print(f"rfft_rows_f32_4096x1024\t{median_time(lambda: np.fft.rfft(r2d, axis=1))}")
print(f"irfft_rows_f32_4096x1024\t{median_time(lambda: np.fft.irfft(h2d, n=1024, axis=1))}")
