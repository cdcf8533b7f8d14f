"""Review: native fused loops against NumPy where an operand of
lower rank than the result is rolled or computed on before it broadcasts."""
import numpy as np
import pytest

from tests.native.helpers import check_against_numpy

pytest.importorskip("numba")


def rolled_vector_plus_grid(v, grid):
    return np.roll(v, 1, 0) + grid


def scaled_vector_plus_grid(v, grid):
    return v * 2.0 + grid


def rolled_by_min_int64(f):
    return np.roll(f, -9223372036854775808, 0) + f


@pytest.mark.parametrize("fn", [rolled_vector_plus_grid, scaled_vector_plus_grid])
def test_a_broadcast_vector_does_not_decide_the_result_order(fn):
    """NumPy: the 1-D intermediate broadcasts with stride 0 and does not vote, so the
    F-ordered grid makes the result F; the fused loop counts it as a C 2-D result."""
    v = np.linspace(-1.0, 1.0, 3)
    grid = np.asfortranarray(np.arange(12.0).reshape(4, 3))
    kernel = check_against_numpy(fn, lambda: (v.copy(), np.asfortranarray(grid)))
    assert kernel


def test_a_roll_by_the_least_int64_matches_numpy():
    f = np.arange(12.0).reshape(6, 2)
    assert check_against_numpy(rolled_by_min_int64, lambda: (f.copy(),))
