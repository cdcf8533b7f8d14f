"""What compiling holds on to: compiled entries must not keep the caller's arrays alive,
and runaway recursion must raise RecursionError after a bounded amount of tracing (it
used to trace each level anew, about a minute of work before the error)."""
import gc
import weakref

import numpy as np
import pytest

import npcompile
from tests.jit.harness import CountingBackend


def _with_break(a):
    b = a * 2
    npcompile.graph_break()
    return b + 1


@pytest.mark.parametrize("fn", [lambda a: a * 2, lambda a: a.__iadd__(1), lambda a: a[1:], _with_break],
                         ids=["pure", "in-place", "view", "break"])
def test_entries_do_not_keep_input_arrays_alive(fn):
    jitted = npcompile.jit(fn, backend="eager")
    a = np.ones(1000)
    jitted(a)
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None
    assert jitted.compile_count >= 1
    np.testing.assert_array_equal(jitted(np.ones(1000)), fn(np.ones(1000)))   # the entries still work


@pytest.mark.inductor
def test_inductor_entries_do_not_keep_input_arrays_alive():
    jitted = npcompile.jit(lambda a, b: a * b + 1)
    a = np.ones(64)
    jitted(a, a)
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None


def runaway(x):
    return runaway(x + 1)


def ping(x):
    return pong(x + 1)


def pong(x):
    return ping(x * 1)


@pytest.mark.parametrize("fn", [runaway, ping], ids=["self", "mutual"])
def test_infinite_recursion_raises_after_bounded_tracing(fn):
    backend = CountingBackend()
    with pytest.raises(RecursionError):
        npcompile.jit(fn, backend=backend)(np.ones(2))
    assert len(backend.graphs) <= 4   # each level reuses the first levels' entries


def countdown(x, n):
    if n == 0:
        return x
    return countdown(x + 1, n - 1)


def test_deep_finite_recursion_is_right_and_compiles_little():
    backend = CountingBackend()
    jitted = npcompile.jit(countdown, backend=backend)
    np.testing.assert_array_equal(jitted(np.zeros(2), 200), np.full(2, 200.0))
    assert len(backend.graphs) <= 6
