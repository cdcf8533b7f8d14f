"""The truth of an object whose class defines ``__bool__`` or ``__len__`` in Python.

Tracing called ``bool()`` on the real object, whose state the trace's own writes to it
(``stop.left -= 1``, replayed only once the graph has run) do not reach and no guard
covers: a ``while stop:`` loop was unrolled as if the condition never changed, and the
compiled function ran the body hundreds of times instead of seven. Such a truth is now a
graph break: it runs for real, on the real state, every time.
"""
import numpy as np

import npcompile


def until_object_says_stop(r, stop):
    while stop:
        r = r * 0.5
        stop.left -= 1
    return r, stop.left


class Countdown:
    def __init__(self, left):
        self.left = left

    def __bool__(self):
        return self.left > 0


def test_a_user_condition_runs_for_real_every_iteration():
    jitted = npcompile.jit(until_object_says_stop, backend="eager")
    for _ in range(2):
        expected = until_object_says_stop(np.ones(4), Countdown(7))
        result = jitted(np.ones(4), Countdown(7))
        np.testing.assert_array_equal(result[0], expected[0])
        assert result[1] == expected[1] == 0




def first_and_rest(u):
    out = np.empty_like(u)
    for k in range(u.shape[1]):
        if k > 0:
            out[:, k] = out[:, k - 1] + u[:, k]
        else:
            out[:, 0] = u[:, 0]
    return out


def test_a_symbolic_index_condition_stays_traced():
    """``k > 0`` on the loop's symbolic index is torch's SymBool, whose ``__bool__`` is
    Python code of torch's, guarded: not a user's truth, so no break per iteration."""
    u = np.arange(1200.0).reshape(3, 400)
    jitted = npcompile.jit(first_and_rest, backend="eager")
    np.testing.assert_array_equal(jitted(u), first_and_rest(u))
    reasons = [b.reason for b in npcompile.explain(jitted)(u).break_reasons]
    assert not [r for r in reasons if "__bool__" in r], reasons
