"""The pure-Python parts of the namespace: the CPU device object, dtype information
(`finfo`, `iinfo`, `isdtype`, `result_type`) and the inspection namespace returned by
`__array_namespace_info__()`."""

import builtins as _b

from . import _core

_DTYPES = {
    name: getattr(_core, name)
    for name in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float32", "float64", "complex64", "complex128",
    )
}

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _dtype_by_name(name):
    return _DTYPES[name]


class Device:
    """The one device ferrotensor arrays live on: the CPU."""

    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, Device)

    def __hash__(self):
        return hash("ferrotensor.cpu")

    def __repr__(self):
        return "Device('cpu')"


CPU_DEVICE = Device()


def _dtype_of(x):
    if isinstance(x, _core.Array):
        return x.dtype
    if isinstance(x, _core.dtype):
        return x
    raise TypeError(f"expected a dtype or an array, got {type(x).__name__}")


def isdtype(dtype, kind):
    """True if `dtype` is of `kind`: a dtype, a kind name, or a tuple of these."""
    if not isinstance(dtype, _core.dtype):
        raise TypeError(f"isdtype: expected a dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return _b.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _core.dtype):
        return dtype == kind
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {kind!r}")
        return dtype.name in _KINDS[kind]
    raise TypeError(f"isdtype: kind must be a dtype, a string or a tuple, got {type(kind).__name__}")


def result_type(*arrays_and_dtypes):
    """The dtype of the result of an operation on the arguments: arrays and dtypes
    promote by the standard's table (NumPy's lattice where the table is silent); Python
    scalars take the dtype of the arrays they meet when their kind fits."""
    if not arrays_and_dtypes:
        raise ValueError("result_type: at least one argument is required")
    dts = [a for a in arrays_and_dtypes if not isinstance(a, (_b.bool, int, float, complex))]
    scalars = [a for a in arrays_and_dtypes if isinstance(a, (_b.bool, int, float, complex))]
    if not dts:
        raise ValueError("result_type: at least one array or dtype is required")
    out = _dtype_of(dts[0])
    for d in dts[1:]:
        out = _core.promote_types(out, _dtype_of(d))
    for s in scalars:
        out = _core.promote_types(out, _core._scalar_dtype(s, out))
    return out


class finfo:
    """Machine limits of a floating-point dtype (for a complex dtype, of its parts)."""

    def __init__(self, type):
        dt = _dtype_of(type)
        name = {"complex64": "float32", "complex128": "float64"}.get(dt.name, dt.name)
        if name == "float32":
            self.bits, self.eps = 32, 2.0**-23
            self.max = float.fromhex("0x1.fffffep+127")
            self.smallest_normal = 2.0**-126
        elif name == "float64":
            self.bits, self.eps = 64, 2.0**-52
            self.max = float.fromhex("0x1.fffffffffffffp+1023")
            self.smallest_normal = 2.0**-1022
        else:
            raise TypeError(f"finfo: not a floating-point dtype: {dt}")
        self.min = -self.max
        self.dtype = _DTYPES[name]

    def __repr__(self):
        return f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, smallest_normal={self.smallest_normal}, dtype={self.dtype})"


class iinfo:
    """Machine limits of an integer dtype."""

    def __init__(self, type):
        dt = _dtype_of(type)
        if dt.name not in _KINDS["integral"]:
            raise TypeError(f"iinfo: not an integer dtype: {dt}")
        self.bits = dt.itemsize * 8
        if dt.name.startswith("u"):
            self.min, self.max = 0, 2**self.bits - 1
        else:
            self.min, self.max = -(2 ** (self.bits - 1)), 2 ** (self.bits - 1) - 1
        self.dtype = dt

    def __repr__(self):
        return f"iinfo(bits={self.bits}, min={self.min}, max={self.max}, dtype={self.dtype})"


class _Info:
    """The inspection namespace of the array API standard."""

    __module__ = "ferrotensor"

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return CPU_DEVICE

    def default_dtypes(self, *, device=None):
        _check_device(device)
        return {
            "real floating": _DTYPES["float64"],
            "complex floating": _DTYPES["complex128"],
            "integral": _DTYPES["int64"],
            "indexing": _DTYPES["int64"],
        }

    def devices(self):
        return [CPU_DEVICE]

    def dtypes(self, *, device=None, kind=None):
        _check_device(device)
        if kind is None:
            return dict(_DTYPES)
        return {n: d for n, d in _DTYPES.items() if isdtype(d, kind)}


def _check_device(device):
    if device is not None and device != CPU_DEVICE and device != "cpu":
        raise ValueError(f"unsupported device {device!r}")


def __array_namespace_info__():
    """The inspection namespace (`capabilities`, `default_device`, `default_dtypes`,
    `devices`, `dtypes`)."""
    return _Info()
