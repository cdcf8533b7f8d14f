"""max/min with ``initial=`` of an input that becomes empty, under Inductor: NumPy's value,
type and dtype, and no npcompile warning (the empty case used to build a ``where`` over
constants only, which Inductor's lowering refuses, so npcompile fell back to eager)."""
import warnings

import numpy as np
import pytest

import npcompile


def _max_initial(x):
    return x.max(initial=-1)


def _min_initial(x):
    return np.min(x, initial=5.0)


def _int_max_initial(x):
    return np.max(x.astype(np.int32), initial=3)


def _nanmax_initial(x):
    return np.nanmax(x, initial=2.0)


def _max_initial_axis(x):
    return np.max(x.reshape(-1, 1) * np.ones(3), axis=0, initial=-2.0, keepdims=True)


def _min_initial_where(x):
    return np.min(x, initial=7.0, where=x > 0)


def _max_no_initial(x):
    return x.max()


@pytest.mark.parametrize("fn", [_max_initial, _min_initial, _int_max_initial, _nanmax_initial,
                                _max_initial_axis, _min_initial_where])
def test_empty_with_initial_compiles(fn):
    jitted = npcompile.jit(fn, backend="inductor")
    for x in (np.arange(5.0) - 2, np.ones(0), np.array([-0.0, np.nan, 1.0])[:0]):
        expected = fn(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            actual = jitted(x)
        assert type(actual) is type(expected)
        assert np.asarray(actual).dtype == np.asarray(expected).dtype
        np.testing.assert_array_equal(actual, expected)
        assert not [str(w.message) for w in caught if str(w.message).startswith("npcompile")], x.shape


def test_empty_without_initial_raises_numpys_error():
    jitted = npcompile.jit(_max_no_initial, backend="inductor")
    assert jitted(np.ones(4)) == 1.0
    with pytest.raises(ValueError):
        np.ones(0).max()
    with pytest.raises(ValueError):
        jitted(np.ones(0))
