"""The `fft` extension of the array API standard (2024.12): transforms on the crate's
`fft` module (rustfft and realfft underneath)."""

from ._core import _fft

__all__ = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

for _name in __all__:
    globals()[_name] = getattr(_fft, _name)
del _name
