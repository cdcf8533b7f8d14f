"""``np.roll`` by constant shifts along an axis and ``x ** 2`` of float arrays in native
kernels (fused loops read rolled operands at shifted indices; square is x * x, NumPy's
fast path for the exponent 2): NumPy's values, dtypes, result layouts and warnings for
any shift (zero, negative, past the size), axis, layout, broadcast operand, overlapping
store; other exponents and rolls the native path does not reproduce are refused."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.native.helpers import check_against_numpy, compiled

pytest.importorskip("numba")


# ---- kernels ---------------------------------------------------------------------------------
def central_x(f):
    return (np.roll(f, -1, axis=1) - np.roll(f, 1, axis=1)) / 2.0


def shifts_past_the_size(f):
    return np.roll(f, 3, 0) + 2.0 * np.roll(f, -7, axis=-1) - np.roll(f, 0, 1)


def rolled_alone(f):
    return np.roll(f, 2, axis=0)


def rolled_store(p):
    inner = p[1:-1]
    p[1:-1] = np.roll(inner, 1, axis=1) + np.roll(inner, -1, axis=1) - 2.0 * inner
    return p


def rolled_row_times_grid(row, grid):
    return np.roll(row, 1, axis=1) * grid + np.roll(grid, -1, axis=0)


def rolled_3d(f):
    return np.roll(f, -1, axis=1) + np.roll(f, 2, axis=2) * f


def rolled_vector(x):
    return np.roll(x, 1, 0) - x


def squares(x, y):
    return x ** 2 + 2.0 * x * y + (y - x) ** 2.0


def jacobi_periodic(p, steps):
    for _ in range(steps):
        p[1:-1] = 0.25 * (np.roll(p[1:-1], 1, axis=1) + np.roll(p[1:-1], -1, axis=1) + p[2:] + p[:-2])
    return p


def cube(x):
    return x ** 3


def int_square(x):
    return x ** 2


def rolled_by_variable(f, k):
    return np.roll(f, k, axis=1) + f


def rolled_flat(f):
    return np.roll(f, 1) + f


def rolled_expression(f):
    return np.roll(f + 1.0, 1, axis=0)


def rolled_ints(f):
    return np.roll(f, 1, axis=0) + f


# ---- strategies --------------------------------------------------------------------------------
FLOATS = st.sampled_from(["float32", "float64"])
ELEMENTS = st.floats(allow_subnormal=True, width=32)


def grids(min_side=0, max_side=5, ndim=2):
    return FLOATS.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=ndim, max_dims=ndim, min_side=min_side,
                                                                      max_side=max_side), elements=ELEMENTS))


def laid_out(array, how):
    if how == "F":
        return np.asfortranarray(array)
    if how == "negative":
        return array[::-1, ::-1].copy()[::-1, ::-1] if array.ndim == 2 else array[::-1].copy()[::-1]
    return array.copy()


def copies(*values):
    return lambda: tuple(v.copy() if isinstance(v, np.ndarray) else v for v in values)


LAYOUTS = st.sampled_from(["C", "F", "negative"])


@pytest.mark.parametrize("fn", [central_x, shifts_past_the_size, rolled_alone, rolled_store, squares])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_two_d_rolls_and_squares_match_numpy(fn, data):
    f = data.draw(grids())
    values = [f, data.draw(hnp.arrays(f.dtype, f.shape, elements=ELEMENTS))] if fn is squares else [f]
    layouts = [data.draw(LAYOUTS) for _ in values]
    assert check_against_numpy(fn, lambda: tuple(laid_out(v, how) for v, how in zip(values, layouts))), fn.__name__


@settings(max_examples=30, deadline=None)
@given(grid=grids(min_side=1), dtype=FLOATS, layout=LAYOUTS)
def test_a_rolled_row_broadcasts_as_numpy(grid, dtype, layout):
    row = np.linspace(-1.0, 1.0, grid.shape[1], dtype=dtype)[None, :]
    assert check_against_numpy(rolled_row_times_grid, lambda: (row.copy(), laid_out(grid, layout)))


@settings(max_examples=20, deadline=None)
@given(f=grids(min_side=0, max_side=4, ndim=3))
def test_rolls_of_three_d_arrays_match_numpy(f):
    assert check_against_numpy(rolled_3d, copies(f))


@settings(max_examples=20, deadline=None)
@given(x=grids(min_side=0, max_side=7, ndim=1))
def test_rolls_of_vectors_match_numpy(x):
    assert check_against_numpy(rolled_vector, copies(x))


def test_a_periodic_jacobi_loop_runs_natively():
    p = np.random.default_rng(3).random((6, 9))
    kernel = compiled(jacobi_periodic, (p, 4))
    before = kernel.bailouts
    assert check_against_numpy(jacobi_periodic, copies(p, 4)) is kernel
    assert kernel.bailouts == before


def test_an_overflowing_square_warns_as_numpy():
    """float32 3e20 squared overflows: NumPy warns in square; the kernel hands it over."""
    x = np.array([[1.0, 3e20]], np.float32)
    kernel = compiled(squares, (x, x))
    before = kernel.bailouts
    assert check_against_numpy(squares, copies(x, x.copy())) is kernel
    assert kernel.bailouts == before + 1


@pytest.mark.parametrize("fn, args, reason", [
    (cube, (np.ones((2, 2)),), "**"),
    (int_square, (np.ones((2, 2), np.int64),), "**"),
    (rolled_by_variable, (np.ones((2, 3)), 1), "np.roll"),
    (rolled_flat, (np.ones((2, 3)),), "np.roll"),
    (rolled_expression, (np.ones((2, 3)),), "np.roll"),
    (rolled_ints, (np.ones((2, 3), np.int32),), "np.roll"),
])
def test_what_is_not_reproduced_is_refused(fn, args, reason):
    kernel = compiled(fn, args)
    assert not kernel and reason in kernel.reason
