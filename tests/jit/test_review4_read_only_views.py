"""Writes through NumPy's read-only views (np.broadcast_to, np.diagonal) must raise
ValueError and leave the input untouched; under jit they landed in the input (review 4).
The flag of a returned view of a graph's own result (np.diagonal(a + 1)) is the output
plan's (npcompile/trace/outputs.py) and is not checked here."""
import numpy as np
import pytest

import npcompile


def write_broadcast(a):
    b = np.broadcast_to(a, (4, 3))
    b[0, 0] = 7.0
    return a


def write_diagonal(a):
    d = np.diagonal(a)
    d[0] = 7.0
    return a


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn, make", [(write_broadcast, lambda: np.arange(3.0)),
                                      (write_diagonal, lambda: np.eye(3))])
def test_write_through_read_only_view_raises(fn, make, backend):
    expected = make()
    with pytest.raises(ValueError, match="read-only"):
        fn(expected)
    a = make()
    with pytest.raises(ValueError, match="read-only"):
        npcompile.jit(fn, backend=backend)(a)
    np.testing.assert_array_equal(a, make())


def test_returned_broadcast_view_flags():
    r = npcompile.jit(lambda a: np.broadcast_to(a, (2, 3)), backend="eager")(np.arange(3.0))
    assert r.flags.writeable is False


def diagonal_of_computed(a):
    return np.diagonal(np.eye(3) + a)


def broadcast_of_computed(a):
    return np.broadcast_to(a + 1, (2, 3))


def diagonal_then_break(a):
    d = np.diagonal(np.eye(3) + a)
    print(end="")          # a graph break: d crosses it as a frame's value
    return d


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn", [diagonal_of_computed, broadcast_of_computed, diagonal_then_break],
                         ids=lambda f: f.__name__)
def test_returned_read_only_views_of_computed_values(fn, backend):
    """A read-only view of a value the graph computed comes back read-only, as NumPy's."""
    expected = fn(np.arange(3.0))
    got = npcompile.jit(fn, backend=backend)(np.arange(3.0))
    assert got.flags.writeable is expected.flags.writeable is False
    np.testing.assert_array_equal(got, expected)
