"""Dtype questions asked of values: NEP 50 promotion of arrays, NumPy scalars and weak
Python scalars (``result_type``), and ``can_cast``/``finfo``/``iinfo`` given arrays.

The answers still come from NumPy on dtype metadata (see ``_dtypes``); this module
only turns each operand into what NumPy should see, which needs the array class.
"""
import builtins
import functools

import numpy
import torch

from . import _dtypes
from ._ndarray import ndarray

__all__ = ["result_type", "can_cast", "finfo", "iinfo"]

PY_SCALARS = (builtins.bool, int, float, complex)  # weak under NEP 50 (bool before int: a subclass)


def _promotable(obj):
    """What NumPy's result_type should see: dtypes for arrays, Python types' values
    for weak scalars (int/float/complex/bool stay weak as NEP 50 says)."""
    if isinstance(obj, ndarray):
        return obj.dtype.np
    if isinstance(obj, numpy.generic):  # before float: numpy.float64 subclasses float
        return obj.dtype
    if isinstance(obj, PY_SCALARS):
        return obj
    if isinstance(obj, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return {torch.SymInt: 0, torch.SymFloat: 0.0, torch.SymBool: False}[type(obj)]
    if isinstance(obj, (_dtypes.dtype, _dtypes._ScalarMeta, numpy.dtype, str, type, torch.dtype)):
        return numpy.dtype(_dtypes._numpy_spec(obj))
    if isinstance(obj, numpy.ndarray):
        return obj.dtype
    return numpy.asarray(obj).dtype


@functools.lru_cache(maxsize=4096, typed=True)
def _cached_result_type(*keys):
    return numpy.result_type(*keys)


def _weak_key(x):
    """Weak Python scalars promote by kind only; use a representative value so the
    cache key stays small (result_type does not depend on the value under NEP 50)."""
    if isinstance(x, builtins.bool):
        return False
    if isinstance(x, int):
        return 0
    if isinstance(x, float):
        return 0.0
    if isinstance(x, complex):
        return 0j
    return x


def result_type(*arrays_and_dtypes):
    keys = tuple(_weak_key(_promotable(x)) for x in arrays_and_dtypes)
    return _dtypes._from_numpy_dtype(_cached_result_type(*keys))


def can_cast(from_, to, casting="safe"):
    if isinstance(from_, numpy.generic):   # a NumPy scalar casts as its dtype (numpy.float64 is a float too)
        from_ = from_.dtype
    elif isinstance(from_, PY_SCALARS):
        raise TypeError("can_cast() does not support Python ints, floats, and complex because "
                        "the result used to depend on the value.\nThis change was part of "
                        "adopting NEP 50, we may explicitly allow them again in the future.")
    src = from_.dtype.np if isinstance(from_, ndarray) else numpy.dtype(_dtypes._numpy_spec(from_))
    return numpy.can_cast(src, numpy.dtype(_dtypes._numpy_spec(to)), casting)


def finfo(type_):
    if isinstance(type_, ndarray):
        type_ = type_.dtype
    return numpy.finfo(_dtypes._numpy_spec(type_))


def iinfo(type_):
    if isinstance(type_, ndarray):
        type_ = type_.dtype
    return numpy.iinfo(_dtypes._numpy_spec(type_))
