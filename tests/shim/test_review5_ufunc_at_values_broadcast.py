"""ufunc.at(a, indices, values): NumPy broadcasts ``values`` to the indexed shape
``a[indices].shape`` only (one way) and raises ValueError('array is not broadcastable to
correct shape') before any write otherwise. The shim broadcasts both ways or zips: with
indices (2, 1) and values (3,) it adds 1 and 2 ([2, 4, 3]); with indices (2,) and values
(2, 1) or (1, 2) it writes too; with values (3,) it raises RuntimeError in debug mode."""
import numpy as np
import pytest

import npcompile
import torch_numpy_shim as tnp

CASES = [([[0], [1]], [1, 2, 3]), ([0, 1], [[5], [6]]), ([0, 1], [[5, 6]]), ([0, 1], [5, 6, 7])]


def add_at(a, i, v):
    np.add.at(a, i, v)
    return a


@pytest.mark.parametrize("indices, values", CASES)
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_jit_add_at_unbroadcastable_values(backend, indices, values):
    i, v = np.array(indices), np.array(values)
    with pytest.raises(ValueError):
        add_at(np.array([1, 2, 3]), i, v)
    a = np.array([1, 2, 3])
    with pytest.raises(ValueError):
        npcompile.jit(add_at, backend=backend)(a, i, v)
    assert a.tolist() == [1, 2, 3]


@pytest.mark.parametrize("indices, values", CASES)
def test_debug_mode_add_at_unbroadcastable_values(indices, values):
    a = tnp.asarray(np.array([1, 2, 3]))
    with pytest.raises(ValueError):
        tnp.add.at(a, tnp.asarray(np.array(indices)), tnp.asarray(np.array(values)))
    assert a.tolist() == [1, 2, 3]


FITTING = [((3,), [0, 0, 2], 5), ((3,), [[0], [1]], [[7]]), ((2, 3), [0, 1], [[1], [2]]),
           ((2, 3), [0], [[1, 2, 3]]), ((2, 3), [1, 0, 1], [4, 5, 6]), ((2, 3), [[0], [1]], [[[1, 2, 3]]])]


@pytest.mark.parametrize("shape, indices, values", FITTING)
def test_debug_mode_add_at_broadcastable_values_as_numpy(shape, indices, values):
    expected = np.arange(float(np.prod(shape))).reshape(shape)
    a = tnp.asarray(expected.copy())
    np.add.at(expected, np.array(indices), np.array(values))
    tnp.add.at(a, tnp.asarray(np.array(indices)), tnp.asarray(np.array(values)))
    np.testing.assert_array_equal(a.tolist(), expected)


@pytest.mark.parametrize("shape, indices, values", FITTING)
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_jit_add_at_broadcastable_values_as_numpy(backend, shape, indices, values):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    i, v = np.array(indices), np.array(values)
    expected = add_at(a.copy(), i, v)
    r = npcompile.jit(add_at, backend=backend)(a, i, v)
    assert r.dtype == expected.dtype and r.shape == expected.shape
    np.testing.assert_array_equal(r, expected)
    np.testing.assert_array_equal(a, expected)
