"""Tests of the Python package beyond the array API suite: NumPy exchange (zero-copy
export, DLPack both ways), the copy-on-write model of views, promotion against NumPy,
Python scalars, error messages, and the printing of arrays.

Run with `python3 -m pytest python/tests/test_ferrotensor.py` after installing the package
(NumPy needed)."""

import math

import numpy as np
import pytest

import ferrotensor as ft

DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
]


def test_namespace_names():
    assert ft.__array_api_version__ == "2024.12"
    x = ft.asarray([1.0, 2.0])
    assert x.__array_namespace__() is ft
    info = ft.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] == ft.float64
    assert set(info.dtypes()) == set(DTYPES)
    assert info.devices() == [ft.CPU_DEVICE] and x.device == ft.CPU_DEVICE
    assert {d.name for d in info.dtypes(kind="complex floating").values()} == {"complex64", "complex128"}


@pytest.mark.parametrize("name", DTYPES)
def test_numpy_export_is_zero_copy_and_read_only(name):
    x = ft.asarray([1, 0, 1, 1], dtype=getattr(ft, name))
    a = np.asarray(x)
    assert a.dtype == np.dtype(name)
    assert a.ctypes.data == x._data_ptr  # the same memory
    assert not a.flags.writeable  # other ferrotensor arrays may share it
    np.testing.assert_array_equal(a, np.asarray([1, 0, 1, 1], dtype=name))


def test_numpy_export_of_strided_and_flipped_views():
    x = ft.reshape(ft.arange(24, dtype=ft.float32), (4, 6))
    v = x[::-1, 1::2]
    a = np.asarray(v)
    expected = np.arange(24, dtype=np.float32).reshape(4, 6)[::-1, 1::2]
    np.testing.assert_array_equal(a, expected)
    assert a.ctypes.data == v._data_ptr
    assert a.strides == expected.strides


def test_numpy_array_copy_and_dtype_requests():
    x = ft.asarray([1.5, 2.5])
    c = np.array(x)  # copy=True by default
    assert c.flags.writeable and c.ctypes.data != x._data_ptr
    assert np.asarray(x, dtype=np.float32).dtype == np.float32


def test_export_outlives_the_array():
    a = np.asarray(ft.arange(5))
    import gc

    gc.collect()
    np.testing.assert_array_equal(a, np.arange(5))


@pytest.mark.parametrize("name", DTYPES)
def test_from_dlpack_copies_numpy_arrays(name):
    n = np.arange(12).reshape(3, 4)[:, ::-1].astype(name)
    x = ft.from_dlpack(n)
    assert x.dtype == getattr(ft, name) and x.shape == (3, 4)
    np.testing.assert_array_equal(np.asarray(x), n)
    assert ft.asarray(n).shape == (3, 4)
    with pytest.raises(ValueError):
        ft.from_dlpack(n, copy=False)


def test_dlpack_round_trip_through_ferrotensor():
    x = ft.asarray([[1, 2], [3, 4]], dtype=ft.int16)
    y = ft.from_dlpack(x)
    assert y is not x and bool(ft.all(y == x))
    assert x.__dlpack_device__() == (1, 0)


def test_views_share_memory_until_written():
    x = ft.arange(6)
    v = x[1:4]
    assert v._data_ptr == x._data_ptr + 8
    v[0] = 100  # copy-on-write: the shared buffer is copied first
    assert int(x[1]) == 1 and int(v[0]) == 100
    x[2] = -1  # x's buffer is its own again: written in place
    assert int(x[2]) == -1 and int(v[1]) == 2


def test_setitem_in_place_without_sharing():
    x = ft.zeros((3, 3))
    p = x._data_ptr
    x[1, :] = 5.0
    x[:, 0] = ft.asarray([1.0, 2.0, 3.0])
    assert x._data_ptr == p  # no copy when nothing shares the memory
    assert x.tolist() == [[1.0, 0.0, 0.0], [2.0, 5.0, 5.0], [3.0, 0.0, 0.0]]
    x[x > 2] = -1.0
    assert x.tolist() == [[1.0, 0.0, 0.0], [2.0, -1.0, -1.0], [-1.0, 0.0, 0.0]]


def test_promotion_matches_numpy_within_the_standard():
    for a in DTYPES:
        for b in DTYPES:
            r = ft.result_type(getattr(ft, a), getattr(ft, b))
            assert r.name == np.promote_types(a, b).name, (a, b)


def test_python_scalars_take_the_array_dtype():
    x = ft.asarray([1, 2], dtype=ft.int8)
    assert (x + 1).dtype == ft.int8
    assert (2.5 * ft.asarray([1.0], dtype=ft.float32)).dtype == ft.float32
    assert (ft.asarray([1.0], dtype=ft.float32) + 1j).dtype == ft.complex64
    assert (ft.asarray([True]) + 1).dtype == ft.int64
    with pytest.raises(OverflowError):
        x + 1000


def test_integer_array_indexing_and_masks():
    x = ft.reshape(ft.arange(12), (3, 4))
    rows = ft.asarray([0, 2, -1])
    cols = ft.asarray([1, 3, 0])
    assert x[rows, cols].tolist() == [1, 11, 8]
    assert x[ft.asarray([True, False, True])].shape == (2, 4)
    assert x[1, ft.asarray([[0], [3]])].tolist() == [[4], [7]]
    with pytest.raises(IndexError):
        x[ft.asarray([3])]


def test_errors_name_the_operation_and_shapes():
    with pytest.raises(ValueError, match="matmul.*not aligned"):
        ft.ones((2, 3)) @ ft.ones((4, 5))
    with pytest.raises(ValueError, match="broadcast"):
        ft.ones(3) + ft.ones(4)
    with pytest.raises(TypeError, match="bitwise_invert.*float64"):
        ft.bitwise_invert(ft.asarray([1.5]))


def test_repr_and_str_follow_numpy():
    x = ft.asarray([[1.0, 2.5], [3.0, 4.0]])
    assert str(x) == str(np.asarray([[1.0, 2.5], [3.0, 4.0]]))
    assert repr(ft.asarray([1, 2], dtype=ft.int8)) == "Array([1 2], dtype=int8)"
    assert "complex64" in repr(ft.asarray([1 + 2j], dtype=ft.complex64))


def test_complex_special_values():
    z = ft.asarray([complex(-0.0, 0.0), complex(-1.0, 0.0)])
    lg = ft.log(z)
    assert lg[0].tolist() == complex(-math.inf, math.pi)
    assert ft.sqrt(z)[1].tolist() == 1j
    assert ft.abs(ft.asarray([complex(math.inf, math.nan)])).tolist() == [math.inf]


def test_linalg_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 4))
    x = ft.asarray(a)
    np.testing.assert_allclose(np.asarray(ft.linalg.det(x)), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(ft.linalg.inv(x)), np.linalg.inv(a), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.asarray(ft.linalg.svdvals(x)), np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(ft.linalg.matrix_norm(x, ord=1)), np.linalg.norm(a, ord=1, axis=(-2, -1)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ft.linalg.vector_norm(x, axis=-1, ord=3)), np.linalg.norm(a, ord=3, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ft.linalg.cross(x[..., :3], x[..., 1:])), np.cross(a[..., :3], a[..., 1:]), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ft.linalg.matrix_power(x, -2)), np.linalg.matrix_power(a, -2), rtol=1e-7, atol=1e-9)
    q, r = ft.linalg.qr(ft.asarray(a[0, :, :2]), mode="complete")
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a[0, :, :2], atol=1e-12)


def test_statistics_against_numpy():
    a = np.linspace(-3, 5, 24).reshape(2, 3, 4).astype(np.float32)
    x = ft.asarray(a)
    np.testing.assert_allclose(np.asarray(ft.std(x, axis=(0, 2), correction=1.5)), np.std(a, axis=(0, 2), ddof=1.5), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ft.cumulative_sum(x, axis=1, include_initial=True)),
                               np.concatenate([np.zeros((2, 1, 4), np.float32), np.cumsum(a, axis=1)], axis=1), rtol=1e-6)
    assert ft.sum(ft.asarray([1, 2], dtype=ft.int8)).dtype == ft.int64
    assert ft.argsort(ft.asarray([3, 1, 3, 1]), descending=True).tolist() == [0, 2, 1, 3]
