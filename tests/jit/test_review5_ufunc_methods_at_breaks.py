"""np.add.at(a, mask_or_nonzero, v): the data-dependent index is a graph break, and the call
made for real at the break (runtime/jit_function._call_at_break -> the shim's ufunc.at)
passes NumPy's ufunc object as ``self``: AttributeError("'numpy.ufunc' object has no
attribute '_at'") reaches the user where NumPy adds (and no fallback runs)."""
import numpy as np
import pytest

import npcompile


def add_at_mask(a):
    np.add.at(a, a > 2, 1)
    return a


def add_at_nonzero(a):
    np.add.at(a, np.nonzero(a > 2), 10)
    return a


def add_at_mask_argument(a, m):
    np.add.at(a, m, 5)
    return a


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn", [add_at_mask, add_at_nonzero])
def test_add_at_data_dependent_index(backend, fn):
    expected = fn(np.array([1, 2, 3, 4]))
    a = np.array([1, 2, 3, 4])
    r = npcompile.jit(fn, backend=backend)(a)
    assert r is a
    assert a.tolist() == expected.tolist()


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_add_at_mask_argument(backend):
    m = np.array([True, False, True, False])
    expected = add_at_mask_argument(np.array([1, 2, 3, 4]), m)
    a = np.array([1, 2, 3, 4])
    npcompile.jit(add_at_mask_argument, backend=backend)(a, m)
    assert a.tolist() == expected.tolist()


def reduce_of_masked(a):
    return np.add.reduce(a[a > 1])


def accumulate_of_masked(a):
    return np.maximum.accumulate(a[a > 1])


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn", [reduce_of_masked, accumulate_of_masked])
def test_reduce_accumulate_at_a_break(backend, fn):
    """The same for ufunc.reduce / ufunc.accumulate: AttributeError '_reduce' / '_accumulate'."""
    expected = fn(np.array([1, 2, 3, 4]))
    r = npcompile.jit(fn, backend=backend)(np.array([1, 2, 3, 4]))
    assert type(r) is type(expected)
    np.testing.assert_array_equal(r, expected)
    assert np.asarray(r).dtype == np.asarray(expected).dtype
