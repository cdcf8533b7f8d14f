"""Arguments that share memory with an argument the graph writes, and int arguments
beyond int64 after they became dynamic: differential against NumPy on call sequences
that first compile a graph for independent arrays (or in-range ints), then meet the
other case. Overlapping calls must run as NumPy's statements do; independent ones (and
interleaved views, whose bounds overlap but no item) must keep the one graph."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npcompile
from tests.jit.harness import check_jit_calls


def _read_write_read(x, y):
    z = y * 2
    x += 1
    return z + y


def _write_then_sum(x, y):
    x *= 3
    return y.sum()


def _write_second(x, y):
    t = x.sum()
    y[:] = 0
    return t + x.sum()


def _three(x, y, z):
    w = y + z
    x -= w
    return w * y + x


@settings(max_examples=25, deadline=None)
@given(fn=st.sampled_from([_read_write_read, _write_then_sum, _write_second]),
       n=st.integers(2, 12), shift=st.integers(-6, 6), step=st.sampled_from([1, 2]),
       backend=st.sampled_from(["aot_eager", "inductor"]))
def test_shifted_views_of_one_buffer(fn, n, shift, step, backend):
    """x and y are views of one buffer, ``shift`` items apart (overlapping for small
    shifts), after a first call on independent arrays."""
    buf = np.arange(float(step * n + 2 * abs(shift) + 1))
    start_x, start_y = abs(shift), abs(shift) + shift
    x = buf[start_x:start_x + step * n:step]
    y = buf[start_y:start_y + step * n:step]
    check_jit_calls(fn, [(np.arange(float(n)), np.ones(n)), (x, y), (y, x), (np.ones(n), np.arange(float(n)))],
                    backend=backend)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_three_arguments_two_of_them_overlapping(backend):
    b = np.arange(12.0)
    check_jit_calls(_three, [(np.ones(8), np.arange(8.0), np.ones(8)),
                             (b[:8], b[2:10], np.ones(8)),      # written x overlaps y
                             (np.ones(8), b[:8], b[3:11]),      # only read ones overlap
                             (b[4:], np.ones(8), b[:8])], backend=backend)


def test_independent_and_interleaved_arguments_keep_one_graph():
    """The overlap guard holds for independent arrays and interleaved views (bounds
    overlap, no item shared): one graph, no break. A shifted pair then runs as written."""
    jitted = npcompile.jit(_read_write_read, backend="aot_eager")

    def both(make):
        """NumPy's and the jitted result, each on a fresh ``make()``: (results, arguments after)."""
        np_args, jit_args = make(), make()
        return (_read_write_read(*np_args), jitted(*jit_args)), (np_args, jit_args)

    for make in (lambda: (np.arange(20.0)[::2], np.ones(20)[1::2]),   # independent, the same strides
                 lambda: (np.ones(20)[::2], np.arange(20.0)[::2]),
                 lambda: (lambda b: (b[::2], b[1::2]))(np.arange(20.0)),
                 lambda: (lambda b: (b[1::2], b[::2]))(np.arange(20.0))):
        (expected, actual), (np_args, jit_args) = both(make)
        np.testing.assert_array_equal(actual, expected)
        np.testing.assert_array_equal(np.concatenate(jit_args), np.concatenate(np_args))
    assert len(jitted.entries) == 1 and not jitted.breaks
    (expected, actual), (np_args, jit_args) = both(lambda: (lambda b: (b[:-2:2], b[2::2]))(np.arange(22.0)))
    np.testing.assert_array_equal(actual, expected)
    np.testing.assert_array_equal(jit_args[0].base, np_args[0].base)


def _scale(x, n):
    x *= n
    return x


def _shifted(x, n):
    return x + n


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from(["int64", "uint64", "int32", "float64"]),
       big=st.sampled_from([2**63, 2**63 + 5, 2**64 - 1, 2**64, -2**63 - 1, -2**70, 2**63 - 1, -2**63]),
       fn=st.sampled_from([_scale, _shifted]), backend=st.sampled_from(["eager", "inductor"]))
def test_int_argument_beyond_int64_after_it_became_dynamic(dtype, big, fn, backend):
    """n = 1, 2 (n becomes a dynamic int), then ``big``, then 3 (back on the graph)."""
    x = np.arange(4).astype(dtype)
    check_jit_calls(fn, [(x, 1), (x, 2), (x, big), (x, 3), (x, big)], backend=backend)
