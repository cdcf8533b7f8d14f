import itertools

import numpy
import pytest

import torch_numpy_shim as shim
from tests.oracle import SUPPORTED_DTYPES, assert_same

NAMES = [d.name for d in SUPPORTED_DTYPES]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_objects_equal_numpys(name):
    d = shim.dtype(name)
    assert d == numpy.dtype(name) and d == name and d == getattr(numpy, name)
    assert getattr(shim, name) == getattr(numpy, name)
    assert d.type is getattr(shim, name)
    assert (d.kind, d.char, d.itemsize, d.str) == (numpy.dtype(name).kind, numpy.dtype(name).char,
                                                   numpy.dtype(name).itemsize, numpy.dtype(name).str)
    assert hash(d) == hash(numpy.dtype(name))


@pytest.mark.parametrize("spec", [float, int, complex, bool, "f8", "i4", "<u2", "c8", numpy.float32,
                                  numpy.dtype("int16"), "float", "double", None])
def test_dtype_specs(spec):
    assert shim.dtype(spec) == numpy.dtype(spec)


@pytest.mark.parametrize("spec", ["M8[s]", "m8", "U3", "S2", object, "V8", numpy.longdouble, ">f8",
                                  [("a", "i4")]])
def test_unsupported_dtypes_refuse(spec):
    with pytest.raises(shim.UnsupportedError):
        shim.dtype(spec)


def test_nonsense_dtype_is_typeerror():
    with pytest.raises(TypeError):
        shim.dtype("not-a-dtype")


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, repeat=2)))
def test_promote_types_table(a, b):
    assert shim.promote_types(a, b) == numpy.promote_types(a, b)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", [True, 1, -1, 1.5, 1j, numpy.float32(1), numpy.int8(1),
                                    numpy.float64(2), numpy.complex64(1), numpy.uint64(3)])
def test_result_type_nep50(name, scalar):
    array = numpy.zeros(2, name)
    expected = numpy.result_type(array, scalar)
    assert shim.result_type(shim.asarray(array), scalar) == expected


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, repeat=2)))
@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_can_cast(a, b, casting):
    assert shim.can_cast(a, b, casting) == numpy.can_cast(a, b, casting)


def test_can_cast_python_scalar_is_typeerror():
    with pytest.raises(TypeError):
        shim.can_cast(1, numpy.int8)


def test_finfo_iinfo():
    assert shim.finfo(shim.float32).eps == numpy.finfo(numpy.float32).eps
    assert shim.iinfo("int8").min == -128
    assert shim.finfo(shim.zeros(2, shim.float16)).max == numpy.finfo(numpy.float16).max


@pytest.mark.parametrize("name", NAMES)
def test_scalar_types(name):
    t = getattr(shim, name)
    s = t(1)
    assert isinstance(s, t)
    assert_same(getattr(numpy, name)(1), shim.to_numpy(s))
    assert shim.issubdtype(t, shim.number) == numpy.issubdtype(getattr(numpy, name), numpy.number)
    assert issubclass(t, shim.generic)


def test_scalar_constructor_rules():
    assert_same(numpy.float32("1.5"), shim.to_numpy(shim.float32("1.5")))
    assert_same(numpy.float64(), shim.to_numpy(shim.float64()))
    with pytest.raises(OverflowError):
        shim.int8(300)
    assert_same(numpy.float32([1, 2]), shim.to_numpy(shim.float32([1, 2])))
    assert isinstance(shim.float64(2.0), shim.floating)
    assert not isinstance(shim.float64(2.0), shim.integer)
    assert isinstance(numpy.float32(1), shim.float32)


@pytest.mark.parametrize("data, dtype", [(-1, "uint8"), ([300], "int8"), ([1.5, -2.5], "int16"),
                                         (2**64, "uint64"), ([True, 2], "float32")])
def test_python_data_with_a_dtype_converts_as_numpy(data, dtype):
    from tests.oracle import check
    check(lambda xp: xp.asarray(data, dtype=dtype))
    from torch_numpy_shim import _coerce  # the internal entry point used by every function
    try:
        expected = numpy.asarray(data, dtype=dtype)
    except OverflowError:
        with pytest.raises(OverflowError):
            _coerce.asarray(data, dtype)
        return
    assert_same(expected, shim.to_numpy(_coerce.asarray(data, dtype)))
