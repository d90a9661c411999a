"""The `linalg` extension of the array API standard (2024.12): decompositions and
solvers on the crate's faer-based `linalg`, and the matrix/vector helpers."""

from ._core import matmul, matrix_transpose, tensordot, vecdot  # noqa: F401
from ._core import _linalg

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
    "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]

for _name in __all__:
    if _name not in ("matmul", "matrix_transpose", "tensordot", "vecdot"):
        globals()[_name] = getattr(_linalg, _name)
del _name
