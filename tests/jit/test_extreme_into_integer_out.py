"""max/min of a float input into an integer or bool ``out=`` (no ``initial``) answer
and warn as NumPy 2.4: its reduce copies the first items into ``out`` and compares the
rest with them read back (buffers flushed every 8192 items), so
np.max([[1, nan], [3, 4]], axis=0, out=int64) is [3, 4] with 'invalid value encountered
in cast', and a NaN early in a long array vanishes. In debug mode and under npcompile.jit
(eager backend and Inductor: that reduction runs as written)."""
import types
import warnings

import numpy as np
import pytest

import npcompile

TWO = np.array([[1.0, np.nan], [3.0, 4.0]])
LONG = np.arange(20000.0)
LONG[5] = np.nan


def max_all(a, out):
    return np.max(a, out=out[0, 0, ...])


def max_columns(a, out):
    return np.max(a, axis=0, out=out[0])


def min_rows(a, out):
    return np.min(a, axis=1, out=out[:, 0])


def amax_kept(a, out):
    return np.amax(a, axis=0, keepdims=True, out=out[:1])


def maximum_reduce(a, out):
    return np.maximum.reduce(a, axis=0, out=out[0])


def fmin_reduce(a, out):
    return np.fmin.reduce(a.T, axis=1, out=out[0])


def max_into_bool(a, out):
    return np.max(a - 2, axis=0, out=out[0].astype(bool))


def max_with_initial(a, out):
    return np.max(a, axis=0, initial=0, out=out[0])


def max_long(a, out):
    return np.max(np.concatenate([LONG, a.ravel()]).reshape(1, -1), axis=1, out=out[1, :1])


CASES = [max_all, max_columns, min_rows, amax_kept, maximum_reduce, fmin_reduce, max_into_bool,
         max_with_initial, max_long]


def _numpy_warnings(caught):
    return [(w.category, str(w.message)) for w in caught if issubclass(w.category, RuntimeWarning)]


def _call(fn):
    out = np.zeros((2, 2), np.int64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = np.asarray(fn(TWO.copy(), out))
    return result, out, _numpy_warnings(caught)


def _same(expected, got):
    for e, g in zip(expected, got):
        if isinstance(e, np.ndarray):
            assert g.dtype == e.dtype and np.array_equal(g, e)
        else:
            assert g == e


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_debug_mode(fn):
    import torch_numpy_shim as tnp
    debug = types.FunctionType(fn.__code__, {**fn.__globals__, "np": tnp})
    _same(_call(fn), _call(debug))


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("fn", [max_columns, min_rows, max_long], ids=lambda f: f.__name__)
def test_jit(fn, backend):
    expected = _call(fn)
    jitted = npcompile.jit(fn, backend=backend)
    for _ in range(2):   # the compiling call, then the compiled code
        _same(expected, _call(jitted))
