"""Scalar types (issue 13): NumPy's classes are taken wherever the shim takes a scalar
type (dtypes, ``dtype=``, ``astype``, issubdtype, finfo, promotion, arithmetic of a
NumPy scalar with shim arrays) and answer as in NumPy; a scalar type the shim returns
is NumPy's class; inside npcompile's traces, where a NumPy scalar is a 0-D shim array,
each NumPy class stands for the shim's class of its name (``_dtypes.SHIM_OF``), so the
package's public names can be NumPy's own classes."""
import itertools

import numpy
import pytest

import torch_numpy_shim as shim
from npcompile.trace import numpy_map
from tests.jit.harness import check_jit
from tests.oracle import SUPPORTED_DTYPES, check
from torch_numpy_shim import _dtypes

CONCRETE = [d.name for d in SUPPORTED_DTYPES]
ABSTRACT = ["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
            "complexfloating"]
ALIASES = ["bool_", "byte", "short", "intc", "int_", "intp", "long", "longlong", "ubyte", "ushort", "uintc", "uint",
           "uintp", "ulong", "ulonglong", "half", "single", "double", "csingle", "cdouble"]


@pytest.mark.parametrize("name", CONCRETE + ABSTRACT + ALIASES)
def test_the_names_are_numpys_classes(name):
    assert getattr(shim, name) is getattr(numpy, name)


@pytest.mark.parametrize("name", CONCRETE)
def test_dtype_type_is_numpys_class(name):
    assert shim.dtype(name).type is getattr(numpy, name) and shim.zeros(1, name).dtype.type is getattr(numpy, name)


def _type_facts(r):
    return (type(r) is shim.float64, type(r) is shim.int64, type(r) is shim.bool_,
            *(isinstance(r, getattr(shim, name)) for name in ABSTRACT + CONCRETE))


@pytest.mark.parametrize("make", [lambda xp, a: xp.sum(a), lambda xp, a: a[1], lambda xp, a: a.max(),
                                  lambda xp, a: xp.any(a), lambda xp, a: a.dtype.type(2)],
                         ids=["sum", "index", "max", "any", "dtype.type"])
@pytest.mark.parametrize("dtype", CONCRETE)
def test_results_are_instances_of_numpys_classes(make, dtype):
    a = numpy.arange(3).astype(dtype)
    r = make(shim, shim.asarray(a))
    assert type(r) is type(make(numpy, a)) and _type_facts(r) == _type_facts(make(numpy, a))


@pytest.mark.parametrize("name", ABSTRACT)
def test_abstract_types_are_no_dtype(name):
    """NumPy's TypeError, whether NumPy's class or the shim's is given."""
    check(lambda xp: xp.dtype(getattr(xp, name)))
    check(lambda xp: xp.zeros(2, getattr(numpy, name)))


@pytest.mark.parametrize("name", CONCRETE + ["longlong", "ulonglong", "intc", "intp"])
def test_what_takes_a_scalar_type(name):
    t = getattr(numpy, name)   # the shim's name is that very class; the dtype it makes is NumPy's, by name
    check(lambda xp: [xp.dtype(t) == numpy.dtype(name), xp.zeros(2, t), xp.arange(3).astype(t), xp.asarray(1.5, dtype=t),
                      xp.ones(2, dtype=xp.dtype(t)), xp.result_type(t, 1.0).name, xp.promote_types(t, xp.int8).name,
                      xp.can_cast(t, xp.float64), xp.full(2, 7, t).view(xp.uint8)])


@pytest.mark.parametrize("name", CONCRETE)
def test_calling_a_scalar_type(name):
    check(lambda xp: [getattr(xp, name)(1), getattr(xp, name)("1"), getattr(xp, name)()])


@pytest.mark.parametrize("first, second", list(itertools.product(CONCRETE + ABSTRACT, repeat=2)))
def test_issubdtype(first, second):
    assert shim.issubdtype(getattr(shim, first), getattr(shim, second)) == \
        numpy.issubdtype(getattr(numpy, first), getattr(numpy, second))


def test_finfo_iinfo_isdtype():
    check(lambda xp: [xp.finfo(xp.float32).eps, xp.finfo(xp.float16).max, xp.iinfo(xp.int8).min,
                      xp.iinfo(xp.uint64).max, xp.isdtype(xp.dtype(xp.float32), "real floating"),
                      xp.isdtype(xp.dtype(xp.int32), (xp.int32, xp.float64))])


@pytest.mark.parametrize("scalar_dtype, array_dtype", list(itertools.product(["float64", "float32", "int8", "uint8",
                                                                            "bool", "complex64"], repeat=2)))
def test_numpy_scalar_with_shim_array(scalar_dtype, array_dtype):
    """NumPy's scalar defers to the shim array (a shim array comes back), and promotes as
    its dtype (NEP 50: a NumPy scalar is a strong type)."""
    x = getattr(numpy, scalar_dtype)(2)
    a = numpy.arange(1, 4).astype(array_dtype)
    assert type(x * shim.asarray(a)) is shim.ndarray
    check(lambda xp, a: [x * a, a - x, x + a, xp.maximum(x, a)], a)


@pytest.mark.parametrize("dtypes", [("f4",), ("f4", "i2"), ("c8", "f8"), ("f2",)])
def test_scalar_types_that_functions_return(dtypes):
    """NumPy's class itself (``check`` would convert the shim's class)."""
    expected = numpy.common_type(*(numpy.ones(2, d) for d in dtypes))
    assert shim.common_type(*(shim.ones(2, d) for d in dtypes)) is expected


@pytest.mark.parametrize("name", CONCRETE + ABSTRACT + ALIASES)
def test_traced_code_sees_the_shims_classes(name):
    """The tracer swaps NumPy's class for the shim's of that name and back."""
    np_type = getattr(numpy, name)
    shim_type = numpy_map.to_shim(np_type)
    assert shim_type is getattr(_dtypes, name)
    assert numpy_map.to_numpy(shim_type) is (np_type if name in ABSTRACT else getattr(numpy, numpy.dtype(np_type).name))


def _uses_scalar_types(x):
    s = x.sum()
    return (numpy.float32(2) * x, numpy.longlong(3) + x, type(s) is numpy.float64, isinstance(s, numpy.floating),
            issubclass(type(s), numpy.inexact), x.astype(numpy.intc), numpy.float64(s), numpy.int8(x),
            numpy.issubdtype(x.dtype, numpy.floating), numpy.dtype(numpy.uint8), numpy.common_type(x))


def _uses_the_shim_module(x):
    return shim.float32(2) * x, type(x.sum()) is shim.float64, x.astype(shim.int16), shim.bool_(x[0])


def _returns_scalar_types(x):
    return numpy.float32, numpy.floating, x.dtype.type, type(x[0])


@pytest.mark.parametrize("fn", [_uses_scalar_types, _uses_the_shim_module, _returns_scalar_types])
def test_jitted_code_with_scalar_types(fn):
    check_jit(fn, numpy.arange(3.0), graphs=1)
