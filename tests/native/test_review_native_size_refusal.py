"""Review: a kernel refused only for the size of its arrays
("2-D elementwise work in nested loops on arrays over 65536 elements", lower.size_bound)
is remembered in JitFunction.native_refusals under call_key, which holds no size: a
function first called on a large grid never goes native for small grids afterwards
(cavity_flow 41x41: native 9.0x NumPy, traced 0.88x, per lower.size_bound's docstring)."""
import numpy as np
import pytest

import npcompile

pytest.importorskip("numba")


def periodic_heat(u, steps, inner):
    for _ in range(steps):
        for _ in range(inner):
            u = u + 0.1 * (np.roll(u, 1, 0) + np.roll(u, -1, 0) - 2.0 * u)
    return u


def test_small_calls_go_native_after_a_large_one():
    rng = np.random.default_rng(1)
    jitted = npcompile.jit(periodic_heat)
    big = rng.random((257, 256))
    np.testing.assert_array_equal(jitted(big.copy(), 1, 1), periodic_heat(big.copy(), 1, 1))
    small = rng.random((16, 16))
    np.testing.assert_array_equal(jitted(small.copy(), 3, 2), periodic_heat(small.copy(), 3, 2))
    assert len(jitted._native or ()) == 1, jitted.native_refusals
