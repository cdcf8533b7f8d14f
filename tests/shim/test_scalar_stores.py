"""Storing one scalar into an integer array, against NumPy.

NumPy stores a scalar (a Python number or a NumPy scalar) as one item into a signed
integer array with Python's ``int()`` and a range check: NaN raises ValueError, an
infinity or an int outside the dtype OverflowError (``a[...] = np.float64(130)`` into
int8), where an array of the same values is cast (``a[...] = np.array(130.)`` wraps).
Eagerly the shim has NumPy do that conversion; while torch traces it records the
condition for the compiled call to check (``raise_if``) and leaves the target as it was
when the check fails, so that the call rerun as written starts from the caller's data.
"""
import math
import warnings

import numpy
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import torch_numpy_shim as shim
from torch_numpy_shim._boundary import as_inside
from torch_numpy_shim._errors import collecting_checks
from torch_numpy_shim._ndarray import ndarray

VALUES = [("float64", 130.0), ("float64", math.nan), ("float64", math.inf), ("float64", -math.inf),
          ("float64", -1.0), ("float64", 2.7), ("float64", -128.9), ("float64", 127.9), ("float64", 1e30),
          ("float64", 2.0 ** 63), ("float32", 130.0), ("float16", -129.0), ("int64", 300), ("int64", -1),
          ("int64", -129), ("int32", 40000), ("uint64", 2 ** 64 - 1), ("uint64", 2 ** 63), ("uint8", 200),
          ("bool", True), ("complex128", 300.0), ("complex128", 100.0)]
TARGETS = ["int8", "int16", "int32", "int64", "uint8", "uint64", "bool", "float32"]
KEYS = {"element": 0, "ellipsis": Ellipsis, "slice": slice(None), "fancy": [0], "mask": [True, False]}


def _numpy_store(target, key, scalar):
    a = numpy.zeros(2, target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            a[key] = scalar
        except (ValueError, OverflowError) as exc:
            return exc
    return a


def _well_defined(target, scalar):
    """NumPy's cast of the value to ``target`` is exact (not C's undefined conversion of
    a NaN, an infinity or an out-of-range float, nor a wrap of an int)."""
    value = complex(scalar).real
    if numpy.dtype(target).kind in "bfc":
        return True
    info = numpy.iinfo(target)
    return math.isfinite(value) and info.min <= math.trunc(value) <= info.max


def _cases():
    for type_name, value in VALUES:
        scalar = numpy.dtype(type_name).type(value)
        for target in TARGETS:
            for key_name in KEYS:
                expected = _numpy_store(target, KEYS[key_name], scalar)
                if isinstance(expected, Exception) or _well_defined(target, scalar):
                    yield pytest.param(type_name, value, target, key_name, id=f"{type_name}({value})-{target}-{key_name}")


@pytest.mark.parametrize("type_name, value, target, key_name", list(_cases()))
def test_one_scalar_stored_as_numpy_stores_it(type_name, value, target, key_name):
    key = KEYS[key_name]
    expected = _numpy_store(target, key, numpy.dtype(type_name).type(value))
    with as_inside(), warnings.catch_warnings():   # inside: the value is a shim scalar, as under a trace
        warnings.simplefilter("ignore")
        scalar = getattr(shim, type_name)(value)
        a = shim.zeros(2, target)
        try:
            a[key] = scalar
        except (ValueError, OverflowError) as exc:
            got = exc
        else:
            got = shim.to_numpy(a)
    if isinstance(expected, Exception):
        assert type(got) is type(expected) and str(got) == str(expected)
        assert not shim.to_numpy(a).any(), "a failed store changed the array"
    else:
        numpy.testing.assert_array_equal(got, expected, strict=True)


def _traced_store(target, source):
    """``a[...] = s`` on a 0-D ``target`` array with ``s`` a traced NumPy scalar of the
    ``source`` dtype: the graph returns the array after the store and whether the
    store's check failed."""
    def store(t, v):
        with collecting_checks() as checks:
            a = ndarray._wrap(t.clone())
            a[...] = ndarray._wrap(v, scalar=True)
        assert len(checks) <= 1
        return a._t, checks[0] if checks else torch.zeros((), dtype=torch.bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", shim.ComplexWarning)   # NumPy warns too; not the subject here
        return make_fx(store)(torch.zeros((), dtype=getattr(torch, target)),
                              torch.zeros((), dtype=getattr(torch, source)))


@pytest.mark.parametrize("target", ["int8", "int32", "int64"])
@pytest.mark.parametrize("source", ["float16", "float32", "float64", "complex128", "int64", "uint64"])
def test_traced_store_is_checked_on_every_run(target, source):
    graph = _traced_store(target, source)
    start = torch.full((), 7, dtype=getattr(torch, target))
    for type_name, value in VALUES:
        if type_name != source and not (numpy.dtype(type_name).kind == "f" and source.startswith("float")):
            continue
        with numpy.errstate(over="ignore"):
            scalar = numpy.dtype(source).type(value)
        if source.startswith("float") and not numpy.isfinite(scalar) and math.isfinite(value):
            continue   # 130.0 fits float16; 1e30 does not: a different value, not this case
        expected = _numpy_store(target, Ellipsis, scalar)
        out, failed = graph(start, torch.from_numpy(numpy.asarray(scalar)))
        assert bool(failed) == isinstance(expected, Exception), (scalar, target)
        if failed:
            assert out.item() == 7, "a failing store must leave the target as it was"
        else:
            assert out.item() == expected[0]


def test_store_of_the_same_or_a_narrower_int_needs_no_check():
    def store(t, v):
        with collecting_checks() as checks:
            a = ndarray._wrap(t)
            a[0] = ndarray._wrap(v, scalar=True)
        assert checks == []
        return a._t
    make_fx(store)(torch.zeros(2, dtype=torch.int32), torch.zeros((), dtype=torch.int16))
    make_fx(store)(torch.zeros(2, dtype=torch.int64), torch.zeros((), dtype=torch.uint32))


def test_an_array_of_one_value_is_cast_not_checked():
    """``a[...] = np.array(130.)``: a 0-D array is cast (wraps), as NumPy does."""
    a = numpy.zeros((), numpy.int8)
    a[...] = numpy.array(130.0)
    with as_inside():
        b = shim.zeros((), numpy.int8)
        b[...] = shim.array(130.0)
    assert shim.to_numpy(b) == a
