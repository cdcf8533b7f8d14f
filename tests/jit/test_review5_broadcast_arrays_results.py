"""np.broadcast_arrays returns views NumPy 2.4 still marks writeable (warn-on-write: a
write emits DeprecationWarning and lands in the input). A jitted function returning them
gives read-only views: ``x[0, 0] = 5`` raises ValueError('assignment destination is
read-only') where NumPy writes a[0] = 5. (Inside the function the write works.)"""
import warnings

import numpy as np
import pytest

import npcompile


def broadcast(a, b):
    return np.broadcast_arrays(a, b)


def write_through(fn):
    a, b = np.ones(3), np.ones((2, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        x, _ = fn(a, b)
        writeable = x.flags.writeable
        x[0, 0] = 5
    return writeable, a.tolist()


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_returned_broadcast_arrays_write_like_numpy(backend):
    expected = write_through(broadcast)
    assert expected == (True, [5.0, 1.0, 1.0])
    assert write_through(npcompile.jit(broadcast, backend=backend)) == expected


def broadcast_then_break(a, b):
    x, y = np.broadcast_arrays(a, b)
    print("a graph break")
    return x, y


def outcome(fn, read_only_input=False):
    """What a caller sees of the first result: writeable, the warnings of one write
    (or the exception), the input afterwards."""
    a, b = np.arange(3.0), np.ones((2, 1))
    a.flags.writeable = not read_only_input
    x, _ = fn(a, b)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            x[0, 0] = 5
            error = None
        except ValueError as exc:
            error = type(exc)
    return x.flags.writeable, [w.category for w in caught], error, a.tolist()


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn", [broadcast, broadcast_then_break])
@pytest.mark.parametrize("read_only_input", [False, True])
def test_broadcast_results_flags_warnings_and_writes_as_numpy(backend, fn, read_only_input):
    expected = outcome(fn, read_only_input)
    assert outcome(npcompile.jit(fn, backend=backend), read_only_input) == expected
