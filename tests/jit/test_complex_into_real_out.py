"""A complex result cast into a real ``out=`` warns ComplexWarning as often as NumPy 2.4
does (a ufunc or scan once, a reduction twice: its buffers cast the first items, then
the result) and keeps the real part: in debug mode and under npcompile.jit (eager
backend and Inductor), on every call of the compiled code."""
import types
import warnings

import numpy as np
import pytest

import npcompile
import torch_numpy_shim as tnp

C = np.array([[1 + 2j, 3 + 1j], [2 - 1j, 1j]])


def add_unsafe(c, out):
    return np.add(c, c, out=out, casting="unsafe")


def multiply_into_int(c, out):
    return np.multiply(c, 2, out=out.astype(np.int64), casting="unsafe")


def sum_all(c, out):
    return np.sum(c, out=out[0, 0, ...])


def sum_rows(c, out):
    return np.sum(c, axis=1, out=out[:, 0])


def prod_method(c, out):
    return c.prod(axis=0, out=out[0])


def max_columns(c, out):
    return np.max(c, axis=0, out=out[0])


def mean_columns(c, out):
    return np.mean(c, axis=0, out=out[0])


def add_reduce(c, out):
    return np.add.reduce(c, axis=0, out=out[0])


def cumsum_rows(c, out):
    return np.cumsum(c, axis=1, out=out)


def add_accumulate(c, out):
    return np.add.accumulate(c, axis=0, out=out)


CASES = [add_unsafe, multiply_into_int, sum_all, sum_rows, prod_method, max_columns, mean_columns,
         add_reduce, cumsum_rows, add_accumulate]


def _run(xp, fn):
    """``fn`` with its ``np`` bound to ``xp`` (NumPy, or the shim: debug mode)."""
    fn = types.FunctionType(fn.__code__, {**fn.__globals__, "np": xp})
    out = np.zeros((2, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(C.copy(), out)
    return np.asarray(result), out, _numpy_warnings(caught)


def _numpy_warnings(caught):
    """NumPy's warnings among those caught (a first compile also meets torch's own)."""
    return [(w.category, str(w.message)) for w in caught
            if issubclass(w.category, (np.exceptions.ComplexWarning, RuntimeWarning))]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_debug_mode_warns_as_numpy(fn):
    expected, expected_out, expected_warnings = _run(np, fn)
    assert expected_warnings and all(w[0] is np.exceptions.ComplexWarning for w in expected_warnings)
    got, got_out, got_warnings = _run(tnp, fn)
    assert got_warnings == expected_warnings
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    assert np.array_equal(got_out, expected_out)


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("fn", [add_unsafe, sum_rows, max_columns, mean_columns, cumsum_rows],
                         ids=lambda f: f.__name__)
def test_jit_warns_on_every_call(fn, backend):
    expected, expected_out, expected_warnings = _run(np, fn)
    jitted = npcompile.jit(fn, backend=backend)
    for _ in range(3):   # the compiling call, then the compiled code
        out = np.zeros((2, 2))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = np.asarray(jitted(C.copy(), out))
        assert _numpy_warnings(caught) == expected_warnings
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
        assert np.array_equal(out, expected_out)
