"""An index out of range on a later call of a compiled graph is NumPy's IndexError, with
every input as NumPy leaves it. torch checks each index as it writes (``a[[1, 7]] = 0``
writes ``a[1]`` first), Inductor's kernels check inside their loops, and NumPy checks
all indices before writing anything: a graph that writes into its inputs at indices from
the data copies them first on every run, so the segment reruns as written from the
state it started from. No warning: the data, not the compiler, is at fault, and the
graph stays compiled for the next call."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npcompile
from tests.jit.harness import check_jit_calls

BACKENDS = ["eager", pytest.param("inductor", marks=pytest.mark.inductor)]


def adds_at(a, idx):
    a[idx] += 1
    return a


def writes_then_catches(a, idx):
    try:
        a[idx] = 0.0
    except IndexError:
        return "out of bounds"
    return a


def writes_before_the_index_write(a, idx):
    a[0] = 9.0
    a *= 2
    a[idx] = -1.0
    return a


def reads_at(a, idx):
    return a[idx] * 2


def writes_one_from_another(a, b, idx):
    b += 1
    b[idx] = a[idx]
    return b.sum()


def adds_at_2d(m, i, j):
    m[i, j] += 10
    return m


def computed_index(a, idx):
    a += 1
    a[(idx * 2) % 7] = 0.0
    return a


def _vec(n, idx):
    return np.arange(float(n)), np.array(idx)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [adds_at, writes_then_catches, writes_before_the_index_write, computed_index])
def test_an_index_out_of_range_on_a_later_call(fn, backend):
    """In-range calls (the second proves the graph), then out of range (past the end,
    before the start, in the middle of in-range ones), then in range again."""
    calls = [_vec(5, idx) for idx in ([0], [1, 2], [7], [1, 7], [-6, 0], [3, 4], [-1, 2])]
    check_jit_calls(fn, calls, backend=backend)


def test_a_read_out_of_range():
    """Eager only: an Inductor kernel over a dynamic size checks its indices inside an
    OpenMP parallel region, and the check's exception aborts the process there
    (``terminate called after throwing ... index out of bounds``): not fixed here."""
    calls = [_vec(5, idx) for idx in ([0], [1, 2], [7], [1, 7], [-6, 0], [3, 4], [-1, 2])]
    check_jit_calls(reads_at, calls)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_out_of_range_index_into_the_second_of_two_inputs(backend):
    calls = [(np.arange(5.0), np.zeros(4), np.array(idx)) for idx in ([0], [1, 2], [3, 4], [0, 2], [4])]
    check_jit_calls(writes_one_from_another, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_out_of_range_pair_of_index_arrays(backend):
    calls = [(np.zeros((3, 4)), np.array(i), np.array(j))
             for i, j in (([0], [1]), ([1, 2], [0, 3]), ([2, 1], [3, 4]), ([3, 0], [0, 0]), ([0, 2], [1, 1]))]
    check_jit_calls(adds_at_2d, calls, backend=backend)


def sets_at_position(a, k):
    a[k] = 0.0
    a[k - 1] += 1
    return a


def test_an_int_position_out_of_range():
    """An int argument that changed between calls is a symbol in the graph (``select``
    at it), so the graph checks it when it runs."""
    calls = [(np.arange(5.0), k) for k in (1, 2, 3, 5, 4, -5, 9)]
    check_jit_calls(sets_at_position, calls)


def test_the_users_handler_catches_it():
    jitted = npcompile.jit(adds_at, backend="eager")
    a = np.arange(5.0)
    for idx in ([0], [1, 2]):
        jitted(a, np.array(idx))
    before = a.copy()
    with pytest.raises(IndexError, match="out of bounds"):
        jitted(a, np.array([2, 7]))
    np.testing.assert_array_equal(a, before)


@settings(max_examples=12, deadline=None)
@given(st.lists(st.lists(st.integers(-8, 7), min_size=1, max_size=4), min_size=2, max_size=5))
def test_sequences_of_index_arrays(indices):
    calls = [_vec(5, idx) for idx in indices]
    check_jit_calls(writes_before_the_index_write, calls)
