"""Fix 8 (ints): a dynamic int stored into or creating a small int dtype is range-checked
as NumPy 2 checks a Python int (OverflowError), on every path that converts it; and a
warnings filter that makes NumPy's floating-point RuntimeWarning an error keeps such
code out of the graph (npcompile/trace/fp_state.py)."""
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.trace import fp_state
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


def _reciprocal(a):
    return 1.0 / a


def test_traceable_verdict_follows_the_warnings_filters():
    with warnings.catch_warnings():
        warnings.resetwarnings()
        assert fp_state.traceable()
        warnings.simplefilter("error", DeprecationWarning)
        assert fp_state.traceable()
        warnings.filterwarnings("error", category=RuntimeWarning)
        assert not fp_state.traceable()
        with np.errstate(all="ignore"):     # NumPy warns nothing: an error filter changes nothing
            assert fp_state.traceable()
        warnings.simplefilter("ignore")
        assert fp_state.traceable()
        warnings.filterwarnings("error", append=True)   # behind a catch-all 'ignore'
        assert fp_state.traceable()
        warnings.resetwarnings()
        warnings.filterwarnings("error", append=True)
        assert not fp_state.traceable()
    assert fp_state.traceable() == (not any(f[0] == "error" and issubclass(RuntimeWarning, f[2])
                                            for f in warnings.filters))


def test_error_filter_then_back_to_warnings():
    """Graph, then an error filter (NumPy raises RuntimeWarning: so does the jitted
    function), then errstate 'ignore' under the error filter (no warning, no exception),
    then the filters as before (inf again)."""
    a = np.array([0.0, 1.0, 2.0])
    jitted = npcompile.jit(_reciprocal, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(_reciprocal(a), jitted(a))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning)
        with pytest.raises(RuntimeWarning, match="divide by zero"):
            jitted(a)
        with np.errstate(divide="ignore"):
            assert_same(_reciprocal(a), jitted(a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(_reciprocal(a), jitted(a))


def _errors_inside(a):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning)
        try:
            return np.sqrt(a - 1.0)
        except RuntimeWarning:
            return np.zeros_like(a)


def test_error_filter_set_inside_the_function():
    jitted = npcompile.jit(_errors_inside, backend="eager")
    for a in (np.array([2.0, 5.0]), np.array([0.0, 5.0]), np.array([2.0, 10.0])):
        assert_same(_errors_inside(a), jitted(a))
