"""``[0] * n`` (and ``n * [0]``, ``(1, 2) * n``) with ``n`` a NumPy integer scalar is
sequence repetition in NumPy (its scalars return NotImplemented for sequences and
Python repeats by ``__index__``); under jit it becomes np.multiply([0], n) and returns
an array: ``[0] * np.argmax(a)`` gave array([0]) for [0, 0, 0]."""
import numpy as np
import pytest

import npcompile


def zeros_list(a):
    return [0] * np.argmax(a)


def reflected(a):
    return np.argmax(a) * [0.5]


def tuple_repeat(a):
    return (1, 2) * a.sum()


def bool_repeat(a):
    return [1, 2] * np.bool_(a[0] > 0)   # NumPy: TypeError, a bool does not repeat


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn", [zeros_list, reflected, tuple_repeat])
def test_sequence_times_numpy_int(fn, backend):
    a = np.array([1, 2, 9, 4])
    expected = fn(a)
    result = npcompile.jit(fn, backend=backend)(a)
    assert type(result) is type(expected)
    assert result == expected


def test_sequence_times_numpy_bool():
    with pytest.raises(TypeError):
        bool_repeat(np.ones(2))
    with pytest.raises(TypeError):
        npcompile.jit(bool_repeat, backend="eager")(np.ones(2))


def test_debug_mode_repeat():
    import torch_numpy_shim as tnp
    n = tnp.argmax(tnp.array([1, 2, 9, 4]))
    assert [0] * n == [0] * np.argmax(np.array([1, 2, 9, 4])) == [0, 0]
