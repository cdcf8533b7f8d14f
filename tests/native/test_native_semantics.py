"""Where numba's own rules differ from NumPy's, the native kernel still gives NumPy's
outcome (result type and dtype, values, warnings, exception class, inputs afterwards),
or refuses: NEP 50 promotion of Python scalars, integer overflow and division by zero,
Python float division, out-of-range Python ints, index errors after partial writes,
NaN in Python's max, empty reductions, read-only inputs, changed globals, aliasing."""
import sys

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from npcompile.native import call_key, try_compile
from tests.native.helpers import check_against_numpy, compiled

pytest.importorskip("numba")

INTS = ["int8", "int16", "int32", "int64"]
FLOATS = ["float32", "float64"]


def arrays(dtypes, min_size=0, max_size=6, elements=None):
    return st.sampled_from(dtypes).flatmap(
        lambda dt: hnp.arrays(dt, st.integers(min_size, max_size), elements=elements))


def copies(*values):
    return lambda: tuple(v.copy() if isinstance(v, np.ndarray) else v for v in values)


# ---- kernels ---------------------------------------------------------------------------------
def scale_in_place(a):
    for i in range(a.shape[0]):
        a[i] = a[i] * 1.1 + 2
    return a


def product(a):
    t = a[0]
    for i in range(1, a.shape[0]):
        t = t * a[i]
    return t


def quotients(a, b):
    q = np.empty_like(a)
    r = np.empty_like(a)
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
    return q, r


def true_quotients(a, b):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = a[i] / b[i]
    return out


def python_ratio(x, y, n):
    s = x
    for _ in range(n):
        s = s / y
    return s


def add_python_int(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] + k
    return out


def shift_left(a, n):
    for i in range(n):
        a[i] = a[i + 1]


def running_max(a):
    best = a[0]
    for i in range(1, a.shape[0]):
        best = max(best, a[i])
    return best


def window_max(a, w):
    out = np.empty(a.shape[0], dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = np.max(a[i:i + w])
    return out


def roots(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = np.sqrt(a[i]) + abs(a[i])
    return out


def python_float_sum(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


def mixed_precision(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] - 0.5
    return out


# ---- differential properties ---------------------------------------------------------------
@given(arrays(FLOATS + INTS, elements=None))
@example(np.array([3e38, 1.0], dtype=np.float32))
def test_python_constants_are_weak(a):
    """float32 * 1.1 stays float32 (NEP 50); int arrays go through float64 and are refused
    (a float stored into an integer array)."""
    kernel = check_against_numpy(scale_in_place, copies(a))
    assert bool(kernel) == (a.dtype.kind == "f")


@given(arrays(INTS, min_size=0, max_size=5))
@example(np.array([2 ** 31 - 1, 2], dtype=np.int32))
@example(np.array([-(2 ** 63), -1], dtype=np.int64))
def test_integer_scalar_overflow_warns_as_numpy_does(a):
    assert check_against_numpy(product, copies(a))


@given(st.sampled_from(INTS + FLOATS).flatmap(
    lambda dt: st.tuples(hnp.arrays(dt, 4, elements=hnp.from_dtype(np.dtype(dt), allow_nan=False)),
                         hnp.arrays(dt, 4, elements=st.integers(-3, 3)))))
@example((np.array([-7, 7, -128, 5], np.int8), np.array([2, -2, -1, 0], np.int8)))
@example((np.array([-7.5, 7.0, 0.0, 5.0]), np.array([2.0, -0.0, 0.0, 3.0])))
def test_floor_division_and_modulo(pair):
    assert check_against_numpy(quotients, copies(*pair))


@given(st.sampled_from(INTS + FLOATS).flatmap(
    lambda dt: st.tuples(hnp.arrays(dt, 3), hnp.arrays(dt, 3, elements=st.integers(-2, 2)))))
def test_true_division_by_zero(pair):
    assert check_against_numpy(true_quotients, copies(*pair))


@given(st.floats(allow_nan=False), st.sampled_from([0.0, -0.0, 0.5, 2.0, 1e-300]), st.integers(0, 3))
def test_python_float_division_raises_like_python(x, y, n):
    kernel = check_against_numpy(python_ratio, copies(x, y, n))
    assert kernel


@given(arrays(["int8", "int32", "int64", "float64"], max_size=3),
       st.one_of(st.integers(-300, 300), st.integers(-(2 ** 40), 2 ** 40), st.sampled_from([2 ** 63 - 1])))
def test_python_ints_out_of_range_raise_overflow(a, k):
    check_against_numpy(add_python_int, copies(a, k))


@given(arrays(FLOATS + INTS, min_size=0, max_size=5), st.integers(0, 6))
def test_index_error_after_partial_writes(a, n):
    assert check_against_numpy(shift_left, copies(a, n))


@given(arrays(FLOATS + INTS, min_size=0, max_size=6))
@example(np.array([np.nan, 1.0, 2.0]))
@example(np.array([1.0, np.nan, 2.0]))
def test_python_max_order_and_nan(a):
    assert check_against_numpy(running_max, copies(a))


@given(arrays(FLOATS + ["int32"], min_size=1, max_size=6), st.integers(0, 3))
@example(np.array([1.0, np.nan, 3.0]), 2)
def test_np_max_of_windows_nan_and_empty(a, w):
    assert check_against_numpy(window_max, copies(a, w))


@given(arrays(FLOATS + INTS, max_size=4))
@example(np.array([-1.0, 4.0]))
def test_sqrt_of_negative_warns(a):
    check_against_numpy(roots, copies(a))


@given(st.sampled_from(FLOATS).flatmap(lambda dt: hnp.arrays(dt, 3)), hnp.arrays(np.float64, 3))
def test_strong_float64_scalars_promote_float32(a, b):
    """float32 * np.float64 is computed in float64 and then stored as float32."""
    assert check_against_numpy(mixed_precision, copies(a, b))


# ---- refusals and guards -------------------------------------------------------------------
def test_ambiguous_python_or_numpy_scalar_is_refused():
    # 0.0 stays a Python float when the loop does not run, else np.float64: not provable
    assert "Python or a NumPy scalar" in try_compile(python_float_sum, (np.ones(3),)).reason
    # with float32 elements the accumulator changes dtype: numba would keep float64
    assert "sometimes" in try_compile(python_float_sum, (np.ones(3, np.float32),)).reason


def test_read_only_input_written_is_refused():
    a = np.arange(4.0)
    a.flags.writeable = False
    refusal = try_compile(scale_in_place, (a,))
    assert not refusal and "read-only" in refusal.reason
    with pytest.raises(ValueError):
        scale_in_place(a)


def offset_by_constant(a):
    for i in range(a.shape[0]):
        a[i] = a[i] + OFFSET
    return a


OFFSET = 2.0


def add_scaled(y, x):
    for i in range(y.shape[0]):
        y[i] = y[i] + 2.0 * x[i]


def test_guard_checks_globals_and_aliasing(monkeypatch):
    a = np.arange(4.0)
    kernel = try_compile(offset_by_constant, (a,))
    assert kernel and kernel.guard((a,))
    monkeypatch.setitem(globals(), "OFFSET", 3.0)
    assert not kernel.guard((a,))
    axpy = try_compile(add_scaled, (np.ones(4), np.ones(4)))
    base = np.arange(5.0)
    assert axpy.guard((base[:4], np.ones(4)))
    assert not axpy.guard((base[:4], base[1:]))    # the array it writes overlaps another argument


def test_without_numba_everything_is_refused(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)
    refusal = try_compile(product, (np.arange(3),))
    assert not refusal and "numba" in refusal.reason


def unsupported_call(a):
    return np.cumsum(a)


def closure_maker():
    k = 2.0

    def inner(a):
        return a * k
    return inner


@pytest.mark.parametrize("fn, args, reason", [
    (unsupported_call, (np.ones(3),), "np.cumsum"),
    (closure_maker(), (np.ones(3),), "closure"),
    (product, (np.ones(3, np.float16),), "float16"),
    (product, ([1, 2],), "list"),
])
def test_refusals_name_the_reason(fn, args, reason):
    refusal = try_compile(fn, args)
    assert not refusal and reason in refusal.reason


@pytest.mark.parametrize("fn, args", [
    (scale_in_place, (np.linspace(-2, 2, 5, dtype=np.float32),)),
    (product, (np.array([3, -2, 5], np.int16),)),
    (quotients, (np.array([-7, 7, 9], np.int32), np.array([2, -2, 4], np.int32))),
    (quotients, (np.array([-7.5, 7.0, 9.0]), np.array([2.0, -2.5, 4.0]))),
    (running_max, (np.array([1.0, 3.0, 2.0]),)),
    (window_max, (np.array([1, 5, 2], np.int32), 2)),
    (mixed_precision, (np.ones(3, np.float32) / 3, np.full(3, 0.1))),
    (python_ratio, (1.0, 3.0, 4)),
    (add_python_int, (np.arange(3, dtype=np.int8), 100)),
])
def test_ordinary_inputs_run_natively(fn, args):
    """Without overflow, zero divisors or bad indices nothing falls back to NumPy."""
    kernel = compiled(fn, copies(*args)())
    assert kernel, kernel
    before = kernel.bailouts
    assert check_against_numpy(fn, copies(*args)) is kernel
    assert kernel.bailouts == before


def halve_repeatedly(a, n):
    for i in range(a.shape[0]):
        for _ in range(n):
            a[i] = a[i] * 0.5
    return a


@pytest.mark.parametrize("setting", ["ignore", "warn", "raise"])
def test_numpy_error_state_is_honoured(setting):
    """Underflow (ignored by default), overflow and invalid follow np.errstate: the
    kernel hands any flagged call to NumPy, which then warns or raises as set."""
    state = {"all": setting}
    assert check_against_numpy(halve_repeatedly, copies(np.array([1e-300, 1.0]), 30), errstate=state)
    assert check_against_numpy(scale_in_place, copies(np.array([3e38, 1.0], np.float32)), errstate=state)
    assert check_against_numpy(roots, copies(np.array([-1.0, 4.0])), errstate=state)


def with_default(a, scale=2.0):
    for i in range(a.shape[0]):
        a[i] = a[i] * scale
    return a


def test_keywords_defaults_and_call_key():
    a = np.arange(3.0)
    kernel = try_compile(with_default, (a,), {})
    assert kernel.guard((a,)) and kernel.guard((a,), {"scale": 3.0}) and kernel.guard((), {"a": a})
    assert not kernel.guard((a,), {"scale": 3})          # an int where a float was compiled
    assert not kernel.guard((a,), {"bogus": 1})
    np.testing.assert_array_equal(kernel(a.copy(), scale=3.0), with_default(a.copy(), scale=3.0))
    assert call_key(with_default, (a,)) == call_key(with_default, (a.copy(),), {"scale": 1.5})
    assert call_key(with_default, (a,)) != call_key(with_default, (a.astype(np.float32),))


def last_index_unbound(a):
    for i in range(a.shape[0]):
        a[i] = 1.0
    return i  # noqa: F821 - unbound when the loop does not run, as in Python


def last_index(a):
    i = -1
    for i in range(a.shape[0]):
        a[i] = 1.0
    if a.shape[0] > 2:
        j = 1
    else:
        j = 2
    return i + j


def test_names_maybe_unbound_after_a_loop_are_refused():
    refusal = try_compile(last_index_unbound, (np.zeros(3),))
    assert not refusal and "unbound" in refusal.reason
    for n in (0, 1, 4):
        assert check_against_numpy(last_index, copies(np.zeros(n)))
