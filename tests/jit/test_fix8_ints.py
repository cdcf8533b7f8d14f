"""Fix 8 (ints): a dynamic int stored into or creating a small int dtype is range-checked
as NumPy 2 checks a Python int (OverflowError), on every path that converts it."""
import numpy as np
import pytest

import npcompile
from tests.jit.harness import assert_same

A = np.arange(3.0)


def _fill_diagonal(a, n):
    b = np.zeros((2, 2), np.uint8)
    np.fill_diagonal(b, n)
    return b


def _asarray_list(a, n):
    return np.asarray([n, 2], dtype=np.uint8)


def _nested_list(a, n):
    return np.array([[n], [1]], dtype=np.uint8)


def _put_list(a, n):
    b = np.zeros(3, np.uint8)
    np.put(b, [0], [n])
    return b


def _setitem_list(a, n):
    b = np.zeros(3, np.uint8)
    b[0:2] = [n, 1]
    return b


def _arange(a, n):
    return np.arange(n, 3, dtype=np.uint8)


def _full_int8(a, n):
    return np.full(2, n, dtype=np.int8)


def _copyto_weak_float(a, x):
    b = np.zeros(2, np.int8)
    np.copyto(b, x)
    return b


@pytest.mark.parametrize("fn", [_fill_diagonal, _asarray_list, _nested_list, _put_list, _setitem_list, _arange,
                                _full_int8], ids=lambda f: f.__name__.strip("_"))
def test_dynamic_int_is_range_checked_where_numpy_converts_it(fn):
    """n = 1, 2 (n goes dynamic), then in-range values reuse the graph with NumPy's
    values, and out-of-range ones (-1, 300; 200 for int8) raise OverflowError as NumPy
    does (``arange`` checks the values it casts: ``arange(300, 3)`` is empty)."""
    jitted = npcompile.jit(fn, backend="eager")
    for n in (1, 2, 0, 100):
        assert_same(fn(A, n), jitted(A, n))
    out_of_range = {_full_int8: (300, 200, -200), _arange: (-1, -5)}.get(fn, (-1, 300))
    for n in out_of_range:
        with pytest.raises(OverflowError):
            fn(A, n)
        with pytest.raises(OverflowError):
            jitted(A, n)
    assert_same(fn(A, 3), jitted(A, 3))


def test_dynamic_float_into_int_array_is_refused_as_a_scalar():
    """``np.copyto(int8_array, x)`` with a float that went dynamic: NumPy refuses the
    Python float under 'same_kind' (TypeError), as on the first call."""
    jitted = npcompile.jit(_copyto_weak_float, backend="eager")
    for x in (1.5, 2.5):
        with pytest.raises(TypeError):
            _copyto_weak_float(A, x)
        with pytest.raises(TypeError):
            jitted(A, x)
