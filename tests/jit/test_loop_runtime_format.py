"""A counter a loop's body computed, formatted after the loop.

Ints that one segment computed and the next reads are traced as symbolic graph inputs
(``Resume.computed``); formatting one in an f-string gave its symbol (``'s59 steps'``)
instead of its value. Formatting such a number is now a graph break: it runs for real.
"""
import numpy as np
import pytest

import npcompile
from tests.jit.harness import compare_call


def summary_after_loop(x, steps):
    done = 0
    for i in range(steps):
        x = np.sin(x) * 0.5 + np.cos(x) * 0.25 - np.tanh(x) * 0.1 + np.exp(-np.abs(x)) * 0.01
        done = done + 1
    return x, f"{done} steps"


def labelled_after_loop(x, steps):
    done = 0
    for i in range(steps):
        x = np.sin(x) * 0.5 + np.cos(x) * 0.25 - np.tanh(x) * 0.1 + np.exp(-np.abs(x)) * 0.01
        done = done + i
    return x, f"{done:>8}|{done!r}|{i}"


@pytest.mark.parametrize("fn", [summary_after_loop, labelled_after_loop])
@pytest.mark.parametrize("steps", [200, 100])
def test_a_counter_computed_in_a_loop_formats_as_its_value(fn, steps):
    jitted = npcompile.jit(fn, backend="eager")
    for _ in range(2):
        compare_call(fn, jitted, (np.linspace(0, 1, 8), steps), {})
