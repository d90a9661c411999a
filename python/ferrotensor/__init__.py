"""ferrotensor: n-dimensional arrays over the ferrotensor Rust crate, as a Python array
API standard (2024.12) namespace with the `linalg` and `fft` extensions.

    >>> import ferrotensor as ft
    >>> x = ft.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> float(ft.sum(x @ x.T))
    54.0
"""

import math as _math

from . import _core
from ._core import *  # noqa: F401,F403 (the array type, dtypes and functions)
from ._info import (  # noqa: F401
    CPU_DEVICE,
    Device,
    __array_namespace_info__,
    _dtype_by_name,
    finfo,
    iinfo,
    isdtype,
    result_type,
)

__array_api_version__ = "2024.12"

e = _math.e
pi = _math.pi
inf = _math.inf
nan = _math.nan
newaxis = None

from . import fft, linalg  # noqa: E402,F401
