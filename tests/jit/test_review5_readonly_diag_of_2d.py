"""np.diag of a 2-D array is NumPy's read-only diagonal view (``v.diagonal(k)``): writing
into it raises ValueError and its flags say writeable False. The shim's ``diag`` returns a
writeable array, so under jit the write is silently taken (into a copy: the input stays)
and a returned ``np.diag(a)`` is writeable; ``a.diagonal()``/``np.diagonal`` are right."""
import numpy as np
import pytest

import npcompile
import torch_numpy_shim as tnp


def write_diag(a):
    d = np.diag(a)
    d[0] = 9
    return a


def read_diag(a):
    return np.diag(a, 1)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_write_into_diag_raises(backend):
    a = np.ones((3, 3))
    with pytest.raises(ValueError):
        write_diag(a.copy())
    with pytest.raises(ValueError):
        npcompile.jit(write_diag, backend=backend)(a)
    assert (a == 1).all()


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_returned_diag_is_read_only(backend):
    a = np.arange(9.0).reshape(3, 3)
    expected = read_diag(a)
    assert expected.flags.writeable is False
    r = npcompile.jit(read_diag, backend=backend)(a)
    np.testing.assert_array_equal(r, expected)
    assert r.flags.writeable is False


def test_debug_mode_diag_is_read_only():
    d = tnp.diag(tnp.ones((3, 3)))
    assert d.flags.writeable is False
    with pytest.raises(ValueError):
        d[0] = 9


def debug_diag_is_view_of_input():
    a = tnp.arange(9.0).reshape(3, 3)
    d = tnp.diag(a, -1)
    a[2, 1] = 40.0
    return d.tolist()


def test_debug_mode_diag_sees_later_writes_to_input():
    a = np.arange(9.0).reshape(3, 3)
    d = np.diag(a, -1)
    a[2, 1] = 40.0
    assert debug_diag_is_view_of_input() == d.tolist()


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_debug_mode_diag_of_1d_is_fresh_and_writeable(k):
    v = tnp.asarray(np.array([1, 2]))
    d = tnp.diag(v, k)
    expected = np.diag(np.array([1, 2]), k)
    assert d.flags.writeable is expected.flags.writeable is True
    d[0, 0] = 9
    expected[0, 0] = 9
    assert d.tolist() == expected.tolist() and v.tolist() == [1, 2]


def write_diag_of_1d(v):
    d = np.diag(v)
    d[0, 0] = 9
    return d


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_jit_diag_of_1d_is_writeable(backend):
    v = np.array([1.0, 2.0])
    expected = write_diag_of_1d(v.copy())
    r = npcompile.jit(write_diag_of_1d, backend=backend)(v)
    np.testing.assert_array_equal(r, expected)
    assert r.flags.writeable and v.tolist() == [1.0, 2.0]
