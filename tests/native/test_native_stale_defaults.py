"""The native loop kernel bound defaults from the signature it saw at compile time: after
``fn.__defaults__`` changed, a call that omits the argument still used the old default
(the traced path and NumPy use the new one). It now binds with the function's defaults
as they are at each call (npcompile/native/binding.py); its guard then checks the bound
values as any argument."""
import inspect

import numpy as np
import pytest

import npcompile
from npcompile.native import try_compile

pytest.importorskip("numba")


def scale(a, k=2.0):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * k
    return out


def test_changed_default_is_used():
    f = npcompile.jit(scale, backend="inductor")
    a = np.arange(50.0)
    try:
        np.testing.assert_array_equal(f(a), scale(a))
        assert f._native, "the native path served the call"
        scale.__defaults__ = (5.0,)
        expected = scale(a)
        np.testing.assert_array_equal(f(a), expected)
    finally:
        scale.__defaults__ = (2.0,)


def shift(a, k=1.0, m=3):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * k + m
    return out


def outcome(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs), None
    except TypeError as exc:
        return None, str(exc)


def kernel_takes(args, kwargs):
    """Whether the call binds, defaults as they are now, to the types the kernel was
    compiled for (an array, a float, an int)."""
    bound = inspect.signature(shift).bind(*args, **kwargs)
    bound.apply_defaults()
    return [type(v) for v in bound.arguments.values()] == [np.ndarray, float, int]


@pytest.mark.parametrize("defaults", [(1.0, 3), (4.5, 3), (4.5, -7), (2, 3), (1.0, 2.5), (3,), None])
def test_each_call_binds_the_defaults_of_the_moment(defaults):
    """Same types: the compiled kernel serves them; other types (an int k, a float m):
    its guard refuses and the runtime compiles another; fewer or no defaults: Python's
    TypeError, as the function itself raises."""
    a = np.arange(40.0)
    kernel = try_compile(shift, (a,))
    assert kernel, kernel.reason
    f = npcompile.jit(shift, backend="inductor")
    f(a)
    try:
        shift.__defaults__ = defaults
        for args, kwargs in (((a,), {}), ((a,), {"m": 4}), ((a, 0.5), {}), ((), {"a": a, "k": 2.0})):
            expected, error = outcome(shift, *args, **kwargs)
            assert kernel.guard(args, kwargs) == (error is None and kernel_takes(args, kwargs))
            got, got_error = outcome(f, *args, **kwargs)
            assert got_error == error
            if error is None:
                assert type(got) is type(expected) and got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected)
                if kernel.guard(args, kwargs):
                    np.testing.assert_array_equal(kernel(*args, **kwargs), expected)
    finally:
        shift.__defaults__ = (1.0, 3)
