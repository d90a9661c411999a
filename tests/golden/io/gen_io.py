#!/usr/bin/env python3
"""Golden files for ferrotensor's file formats, and the check of files ferrotensor wrote.

    python3 tests/golden/io/gen_io.py            # (re)write the golden files next to this script
    python3 tests/golden/io/gen_io.py --check DIR

Generate mode writes .npy files (every dtype, both byte orders, fortran order, 0-d,
empty, format versions 1.0/2.0/3.0), .npz archives (stored and deflated) with NumPy, and
.safetensors files with the safetensors package, plus manifest.json: for every array its
file, dtype, shape, fortran flag and values in C order (floats as numbers or
"nan"/"inf"/"-inf", complex as [re, im]). tests/io_golden.rs reads them all.

Check mode reads the files that tests/io_golden.rs wrote with ferrotensor into DIR
(FERROTENSOR_IO_CHECK_DIR=DIR cargo test --test all io_golden::) and verifies every value, the
fortran flag, the format version, and the safetensors metadata.
"""
import io
import json
import math
import os
import struct
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# numpy dtype -> ferrotensor DType name (as DType::name / Element::NAME)
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def values(dtype, shape):
    """Deterministic test values of a dtype, with extremes and specials."""
    n = int(np.prod(shape)) if len(shape) else 1
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = np.array([(i * 7) % 3 == 0 for i in range(n)])
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        base = [info.min, info.max, 0, 1, info.max // 3, info.min + 5 if dt.kind == "i" else 7]
        v = np.array([base[i % len(base)] if i < len(base) else (i * 37) % 100 for i in range(n)], dtype=dt)
    elif dt.kind == "f":
        specials = [0.5, -1.25, np.inf, -np.inf, np.nan, -0.0, 3.140625, 1e-3]
        v = np.array([specials[i % len(specials)] if i < len(specials) else i * 0.75 - 4 for i in range(n)], dtype=dt)
    else:
        v = np.array([complex(i * 0.5 - 1, -i * 0.25 + (np.inf if i == 3 else 0)) for i in range(n)], dtype=dt)
    return v.reshape(shape)


def encode(x):
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (np.integer, int)):
        return int(x)
    if isinstance(x, (np.complexfloating, complex)):
        return [encode(float(x.real)), encode(float(x.imag))]
    f = float(x)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return f


def entry(arr, file, member=None, fortran=False, version=None, dtype=None):
    return {
        "file": file,
        "member": member,
        "dtype": dtype or arr.dtype.name,
        "shape": list(arr.shape),
        "fortran": fortran,
        "version": version,
        "values": [encode(x) for x in np.asarray(arr).ravel(order="C")],
    }


def cases():
    """(name, array, fortran, version, byteorder) for the .npy cases."""
    out = []
    for name in DTYPES:
        a = values(name, (2, 3))
        out.append((f"{name}_le", a, False, (1, 0), "<"))
        if np.dtype(name).itemsize > 1 and np.dtype(name).kind != "b":
            out.append((f"{name}_be", a, False, (1, 0), ">"))
    out.append(("float64_fortran", values("float64", (3, 4)), True, (1, 0), "<"))
    out.append(("int32_fortran_be", values("int32", (2, 3, 2)), True, (1, 0), ">"))
    out.append(("float32_0d", values("float32", ()), False, (1, 0), "<"))
    out.append(("int64_empty", values("int64", (0, 3)), False, (1, 0), "<"))
    out.append(("uint8_v2", values("uint8", (5,)), False, (2, 0), "<"))
    out.append(("complex64_v3", values("complex64", (2, 2)), False, (3, 0), "<"))
    return out


def generate():
    manifest = {"npy": [], "npz": [], "safetensors": []}
    for name, a, fortran, version, order in cases():
        arr = np.array(a, order="F" if fortran else "C")  # (ascontiguousarray makes 0-d 1-d)
        arr = arr.astype(arr.dtype.newbyteorder(order)) if arr.dtype.itemsize > 1 else arr
        if fortran:
            arr = np.asfortranarray(arr)
        fname = f"{name}.npy"
        with open(os.path.join(HERE, fname), "wb") as f:
            np.lib.format.write_array(f, arr, version=version)
        manifest["npy"].append(entry(a, fname, fortran=fortran, version=list(version)))

    arrays = {"a": values("float32", (2, 2)), "b": values("int16", (3,)), "c": values("bool", (0,)),
              "d": np.asfortranarray(values("float64", (2, 3)))}
    np.savez(os.path.join(HERE, "stored.npz"), **arrays)
    np.savez_compressed(os.path.join(HERE, "deflated.npz"), **arrays)
    for fname in ["stored.npz", "deflated.npz"]:
        for k, v in arrays.items():
            manifest["npz"].append(entry(v, fname, member=k, fortran=k == "d"))

    import safetensors.numpy as stn
    from safetensors import TensorSpec, serialize
    st = {f"t_{n}": values(n, (2, 3)) for n in DTYPES if n != "complex128"}
    st["scalar"] = values("float64", ())
    st["empty"] = values("int32", (0, 2))
    stn.save_file(st, os.path.join(HERE, "all.safetensors"), metadata={"format": "np", "note": "golden"})
    for k, v in st.items():
        manifest["safetensors"].append(entry(v, "all.safetensors", member=k))
    # bfloat16: NumPy has no such dtype; give the package the raw bits (f32 bits >> 16).
    f = np.array([1.0, -2.5, 0.15625, np.inf, 3e38, -0.0], dtype=np.float32)
    bits = (f.view(np.uint32) >> 16).astype(np.uint16)
    spec = TensorSpec(dtype="bfloat16", shape=[2, 3], data_ptr=bits.ctypes.data, data_len=bits.nbytes)
    with open(os.path.join(HERE, "bf16.safetensors"), "wb") as out:
        out.write(bytes(serialize({"w": spec}, metadata={"dtype": "bf16"})))
    exact = (bits.astype(np.uint32) << 16).view(np.float32)
    e = entry(exact.reshape(2, 3), "bf16.safetensors", member="w", dtype="bfloat16")
    manifest["safetensors"].append(e)
    with open(os.path.join(HERE, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=0)
        out.write("\n")
    print(f"wrote {sum(len(v) for v in manifest.values())} golden arrays to {HERE}")


def same(got, want, name):
    got = np.asarray(got)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise AssertionError(f"{name}: got {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
    if want.dtype.kind in "fc":
        ok = np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got.real), np.signbit(want.real))
    else:
        ok = np.array_equal(got, want)
    if not ok:
        raise AssertionError(f"{name}: values differ\n got  {got!r}\n want {want!r}")


def read_version(path):
    with open(path, "rb") as f:
        head = f.read(8)
    return (head[6], head[7])


def check(d):
    """Verify the files ferrotensor wrote into d (see tests/io_golden.rs)."""
    n = 0
    for name in DTYPES:
        want = values(name, (2, 3))
        got = np.load(os.path.join(d, f"{name}.npy"))
        same(got, want, f"{name}.npy")
        n += 1
    f = np.load(os.path.join(d, "fortran.npy"))
    same(f, values("float64", (3, 4)), "fortran.npy")
    assert f.flags.f_contiguous and not f.flags.c_contiguous, "fortran.npy: not written with fortran_order=True"
    same(np.load(os.path.join(d, "transposed.npy")), values("int32", (2, 3)).T[::-1], "transposed.npy")
    same(np.load(os.path.join(d, "scalar.npy")), values("float32", ()), "scalar.npy")
    same(np.load(os.path.join(d, "empty.npy")), values("int64", (0, 3)), "empty.npy")
    n += 4
    for v in [(1, 0), (2, 0), (3, 0)]:
        p = os.path.join(d, f"v{v[0]}.npy")
        assert read_version(p) == v, f"{p}: version {read_version(p)} != {v}"
        same(np.load(p), values("uint16", (2, 3)), p)
        n += 1
    for fname, method in [("stored.npz", zipfile.ZIP_STORED), ("deflated.npz", zipfile.ZIP_DEFLATED)]:
        p = os.path.join(d, fname)
        with zipfile.ZipFile(p) as z:
            assert all(i.compress_type == method for i in z.infolist()), f"{fname}: wrong compression"
        with np.load(p) as z:
            assert sorted(z.files) == ["a", "b", "c"], f"{fname}: members {z.files}"
            same(z["a"], values("float32", (2, 3)), f"{fname}:a")
            same(z["b"], values("int16", (2, 3)), f"{fname}:b")
            same(z["c"], values("complex128", (2, 3)), f"{fname}:c")
        n += 3
    import safetensors.numpy as stn
    from safetensors import safe_open
    p = os.path.join(d, "all.safetensors")
    loaded = stn.load_file(p)
    want = {f"t_{n}": values(n, (2, 3)) for n in DTYPES if n != "complex128"}
    want["scalar"] = values("float32", ())
    assert sorted(loaded) == sorted(want), f"all.safetensors: names {sorted(loaded)}"
    for k, v in want.items():
        same(loaded[k], v, f"all.safetensors:{k}")
        n += 1
    with safe_open(p, framework="numpy") as f:
        assert f.metadata() == {"writer": "ferrotensor", "kind": "check"}, f"metadata {f.metadata()}"
    # bf16: the package needs ml_dtypes or torch to give arrays; compare the raw bits.
    raw = open(os.path.join(d, "bf16.safetensors"), "rb").read()
    hlen = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + hlen])
    w = header["w"]
    assert w["dtype"] == "BF16" and w["shape"] == [2, 3], f"bf16 header {w}"
    b0, b1 = w["data_offsets"]
    bits = np.frombuffer(raw[8 + hlen + b0:8 + hlen + b1], dtype="<u2").astype(np.uint32) << 16
    same(bits.view(np.float32).reshape(2, 3), np.array([1.0, -2.5, 0.15625, np.inf, -0.0, 2.0], np.float32).reshape(2, 3), "bf16")
    n += 1
    print(f"check: {n} arrays written by ferrotensor verified with numpy {np.__version__}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    elif len(sys.argv) == 1:
        generate()
    else:
        sys.exit(__doc__)
