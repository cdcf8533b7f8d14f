"""Review pins: native ``np.roll`` by constant shifts and ``x ** 2`` (npcompile/native/fuse.py,
lower.py) on inputs the feature's own tests do not draw: strided, transposed and read-only
operands, in-place updates and stores that cast, mixed float dtypes, both axes rolled,
shifts near int64's limit, size-0 axes, and the bits of squares (-0.0, nan, inf, tiny).
Each case must run natively (no bailout) and agree with NumPy (helpers.check_against_numpy)."""
import numpy as np
import pytest

from tests.native.helpers import check_against_numpy, compiled

pytest.importorskip("numba")

RNG = np.random.default_rng(0)
GRID = RNG.standard_normal((6, 8))


def rolled_plus_one(f):
    return np.roll(f, 1, 0) + 1.0


def rolled_times_two(f):
    return np.roll(f, -1, 1) * 2.0


def roll_in_place(p):
    p += np.roll(p, 1, 0)
    return p


def roll_into(p, q):
    p[:, :] = np.roll(q, 1, 0) + q
    return p


def roll_mixed(a, b):
    return np.roll(a, 1, 0) + b


def rolled_both_axes(f):
    return np.roll(f, 1, 0) - np.roll(f, -1, 0) + np.roll(f, 2, 1)


def rolled_by_max_int64(f):
    return np.roll(f, 9223372036854775807, 0) + f


def rolled_vector_times_grid(v, grid):
    return np.roll(v, -2, axis=-1) * grid


def square_and_scale(x):
    return x ** 2 * 0.5 + 1.0


def square(x):
    return x ** 2


def read_only(a):
    a.flags.writeable = False
    return a


def native(fn, make):
    """``fn`` on ``make()`` agrees with NumPy, natively (no bailout)."""
    kernel = compiled(fn, make())
    assert kernel, kernel.reason
    before = kernel.bailouts
    assert check_against_numpy(fn, make) is kernel
    assert kernel.bailouts == before, "handed to NumPy"
    return kernel


@pytest.mark.parametrize("view", [lambda g: g[::2, ::3], lambda g: np.asfortranarray(g)[::2, ::3],
                                  lambda g: g.T[::-1], lambda g: g[1:, ::-2]],
                         ids=["strided", "fortran-strided", "transposed-reversed", "negative-step"])
def test_rolls_of_strided_views(view):
    native(rolled_plus_one, lambda: (view(GRID.copy()),))


def test_a_roll_of_a_read_only_array_leaves_it_read_only():
    native(rolled_times_two, lambda: (read_only(GRID.copy()),))


@pytest.mark.parametrize("order", ["C", "F"])
def test_an_in_place_add_of_its_own_roll(order):
    """``p += np.roll(p, 1, 0)`` reads rows the loop has already written: NumPy's roll is
    a copy, so the fused loop must not read ``p`` after writing it."""
    native(roll_in_place, lambda: (np.array(GRID, order=order),))


@pytest.mark.parametrize("target, source", [(np.float32, np.float64), (np.float64, np.float32)])
def test_a_rolled_sum_stored_into_another_dtype(target, source):
    native(roll_into, lambda: (np.zeros((6, 8), target), GRID.astype(source)))


def test_a_float32_roll_added_to_float64():
    native(roll_mixed, lambda: (GRID.astype(np.float32), GRID.copy()))


@pytest.mark.parametrize("order", ["C", "F"])
def test_rolls_along_both_axes(order):
    native(rolled_both_axes, lambda: (np.array(GRID, order=order),))


def test_a_shift_of_the_largest_int64():
    native(rolled_by_max_int64, lambda: (GRID.copy(),))


def test_a_rolled_vector_broadcast_over_a_c_grid():
    native(rolled_vector_times_grid, lambda: (GRID[0].copy(), GRID.copy()))


@pytest.mark.parametrize("shape", [(3, 0), (0, 4)])
def test_rolls_of_size_zero_axes(shape):
    native(rolled_both_axes, lambda: (np.zeros(shape),))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_squares_bit_for_bit(dtype):
    """x ** 2 is x * x: -0.0 squares to +0.0, nan stays nan, -inf gives inf, a tiny value
    underflows to +0.0 (ignored by default, as NumPy's square)."""
    values = np.array([[-0.0, np.nan, -np.inf], [1e-30, -3.0, 0.5]], dtype)
    native(square_and_scale, lambda: (values.copy(),))
    kernel = native(square, lambda: (values.copy(),))
    got, want = kernel(values.copy()), values ** 2
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_a_square_of_a_read_only_array():
    native(square, lambda: (read_only(GRID.copy()),))
