"""Helper functions called inside native kernels (calls.py) and fused elementwise float
loops (fuse.py): results, warnings, exceptions and inputs afterwards are NumPy's; a
redefined or patched helper never runs stale code."""
import functools
import math

import numpy as np
import pytest

import npcompile
from npcompile.native import try_compile
from npcompile.native.calls import has_loop
from tests.native.helpers import check_against_numpy, compiled
from tests.oracle import assert_same

pytest.importorskip("numba")


def copies(*values):
    return lambda: tuple(v.copy() if isinstance(v, np.ndarray) else v for v in values)


# ---- helper calls ----------------------------------------------------------------------------
def _scaled(x, factor):
    return x * factor


def scale_rows(a, factor):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = _scaled(a[i], factor)
    return out


def _shifted(x, amount):
    return x + amount


def _shift_in_place(row, amount=1.0):
    for j in range(row.shape[0]):
        row[j] = row[j] + amount


def shift_rows(a):
    for i in range(a.shape[0]):
        _shift_in_place(a[i])
    return a


def test_a_helper_is_lowered_and_its_writes_reach_the_caller():
    for fn, args in ((scale_rows, copies(np.arange(12.0).reshape(3, 4), 2.5)),
                     (shift_rows, copies(np.arange(6.0).reshape(2, 3)))):
        kernel = check_against_numpy(fn, args)
        assert kernel and kernel.helpers, kernel
        assert not kernel.bailouts
    assert compiled(shift_rows, copies(np.ones((2, 3)))()).written == [0]


def test_a_failing_helper_restores_what_it_wrote():
    """The helper writes row 0, then an index out of range: NumPy's IndexError, and the
    caller's array as NumPy leaves it."""
    def writes_then_fails(a, n):
        for i in range(n):
            _shift_in_place(a[i], 2.0)
        return a
    assert check_against_numpy(writes_then_fails, copies(np.zeros((2, 3)), 3))


def uses_shifted(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = _shifted(a[i], 1.0)
    return out


def test_redefining_a_helper_compiles_anew(monkeypatch):
    jitted = npcompile.jit(uses_shifted)
    a = np.arange(6.0).reshape(2, 3)
    assert_same(uses_shifted(a), jitted(a))
    assert len(jitted._native) == 1

    def other(x, amount):
        return x - amount
    monkeypatch.setitem(globals(), "_shifted", other)
    assert not jitted._native[0].guard((a,))
    assert_same(a - 1.0, jitted(a))
    assert len(jitted._native) == 2


def test_patching_a_helpers_code_or_defaults_compiles_anew(monkeypatch):
    kernel = try_compile(shift_rows, (np.ones((2, 3)),))
    assert kernel and kernel.guard((np.ones((2, 3)),))
    monkeypatch.setattr(_shift_in_place, "__defaults__", (5.0,))
    assert not kernel.guard((np.ones((2, 3)),))
    monkeypatch.undo()
    assert kernel.guard((np.ones((2, 3)),))

    def doubled(row, amount=1.0):
        for j in range(row.shape[0]):
            row[j] = row[j] * 2.0
    monkeypatch.setattr(_shift_in_place, "__code__", doubled.__code__)
    assert not kernel.guard((np.ones((2, 3)),))
    jitted = npcompile.jit(shift_rows)
    assert_same(np.full((2, 3), 2.0), jitted(np.ones((2, 3))))


def _countdown(x, n):
    if n == 0:
        return x
    return _countdown(x, n - 1)


def recursive(a):
    for i in range(a.shape[0]):
        a[i] = _countdown(a[i], 2)
    return a


def _level5(x):
    return x + 1.0


def _level4(x):
    return _level5(x)


def _level3(x):
    return _level4(x)


def _level2(x):
    return _level3(x)


def _level1(x):
    return _level2(x)


def deep(a):
    for i in range(a.shape[0]):
        a[i] = _level1(a[i])
    return a


def _wrapper(fn):
    @functools.wraps(fn)
    def wrapped(*args):
        return fn(*args) * 2.0
    return wrapped


@_wrapper
def _decorated(x):
    return x


def calls_decorated(a):
    for i in range(a.shape[0]):
        a[i] = _decorated(a[i])
    return a


@pytest.mark.parametrize("fn, reason", [(recursive, "recursive"), (deep, "deeper than"),
                                        (calls_decorated, "wrapper")])
def test_recursive_deep_and_decorated_helpers_are_refused(fn, reason):
    refusal = try_compile(fn, (np.ones(3),), loop_kernels_only=False)
    assert not refusal and reason in refusal.reason


def _no_loop_inside(a):
    return a * 2.0


def loop_in_helper(a):
    return shift_rows(a)


def test_has_loop_looks_into_helpers():
    assert has_loop(shift_rows) and has_loop(loop_in_helper)
    assert not has_loop(_no_loop_inside) and not has_loop(_scaled)


# ---- statements and math ----------------------------------------------------------------------
def chained(n):
    a = b = np.zeros(n)
    for i in range(n):
        a[i] = i
    return b


def exp_table(x, scale):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i] * scale) + math.log(scale)
    return out


def test_chained_assignment_binds_one_object():
    assert check_against_numpy(chained, copies(4))


@pytest.mark.parametrize("x, scale", [(np.linspace(-3, 3, 7), 2.0), (np.array([1.0, 800.0]), 1.0),
                                      (np.array([1.0, 2.0]), 0.0), (np.array([1.0, 2.0]), -1.0)])
def test_math_exp_and_log_are_pythons(x, scale):
    """Same values as CPython's math module; its OverflowError and ValueError too."""
    kernel = check_against_numpy(exp_table, copies(x, scale))
    assert kernel


# ---- fused elementwise loops ------------------------------------------------------------------
def recurrence(x, alpha):
    """float32 rows and Python float coefficients (NEP 50: float32 arithmetic)."""
    out = np.empty_like(x)
    prev = np.zeros(x.shape[0], dtype=x.dtype)
    for j in range(x.shape[1]):
        out[:, j] = alpha * x[:, j] + (1.0 - alpha) * prev
        prev = out[:, j]
    return out + out, -out


def transposed_sum(a, b):
    c = a.T * 2.0 + b.T
    return c, np.sqrt(c) / 3.0


def broadcast_rows(a, row):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out = a * 2.0 + row
    return out


def shift_right(x, steps):
    for _ in range(steps):
        x[1:] = x[:-1] * 0.5 + 1.0
    return x


def halve_until_small(a):
    n = 0
    while np.max(a * 1.0) > 1.0:
        a[0] = a[0] * 0.5
        a[1] = a[1] * 0.5
        n += 1
    return n


@pytest.mark.parametrize("fn, make", [
    (recurrence, copies(np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4), 0.3)),
    (recurrence, copies(np.asfortranarray(np.linspace(0, 1, 12).reshape(3, 4)), 0.7)),
    (transposed_sum, copies(np.arange(6.0).reshape(2, 3), np.ones((2, 3)))),
    (transposed_sum, copies(np.arange(6.0).reshape(2, 3), np.asfortranarray(np.ones((3, 2))).T)),
    (transposed_sum, copies(np.arange(6.0).reshape(2, 3), np.ones((2, 1)).T)),     # broadcast: NumPy runs it
    (transposed_sum, copies(np.arange(6.0, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32))),
    (transposed_sum, copies(np.arange(6.0).reshape(2, 3), np.ones((2, 2)))),      # NumPy's ValueError
    (transposed_sum, copies(-np.arange(6.0).reshape(2, 3), np.ones((2, 3)))),     # sqrt < 0: invalid
    (broadcast_rows, copies(np.arange(6.0).reshape(2, 3), np.arange(3.0))),
    (shift_right, copies(np.arange(5.0), 3)),
    (halve_until_small, copies(np.array([8.0, 3.0]))),
])
def test_fused_loops_are_numpys(fn, make):
    """dtype (float32 kept), values, the result's memory order (C or F as NumPy's ufuncs
    allocate it), broadcasting, shape errors, overlapping stores, invalid warnings."""
    kernel = check_against_numpy(fn, make)
    assert kernel, kernel


def test_fused_loops_run_natively_on_ordinary_inputs():
    kernel = compiled(recurrence, copies(np.ones((3, 4), np.float32), 0.3)())
    before = kernel.bailouts
    check_against_numpy(recurrence, copies(np.ones((3, 4), np.float32), 0.3))
    assert kernel.bailouts == before
    assert "for " in kernel.source and " * " in kernel.source
