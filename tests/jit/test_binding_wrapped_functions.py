"""Found by review (issue 13). jit of a function decorated with a functools.wraps wrapper taking ``*args`` raises
NameError: name 'a' is not defined (NumPy/CPython run it). inspect.signature follows
``__wrapped__`` and reports the wrapped function's parameters (x), so the arguments
are bound to names the wrapper's code does not have. Binding must use the code object
being run (``follow_wrapped=False``). A common pattern: any decorator written with
functools.wraps, jitted from outside."""
import functools

import numpy as np
import pytest

import npcompile


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        return fn(*a, **kw) * 2
    return wrapper


@doubled
def plus_one(x):
    return x + 1


def logged(fn):
    @functools.wraps(fn)
    def wrapper(first, *rest):
        return fn(first, *rest) - 1
    return wrapper


@logged
def scaled(x, k=3.0):
    return x * k


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_wraps_star_args(backend):
    x = np.arange(3.0)
    np.testing.assert_array_equal(npcompile.jit(plus_one, backend=backend)(x), plus_one(x))


def test_wraps_renamed_parameters():
    x = np.arange(3.0)
    jitted = npcompile.jit(scaled, backend="eager")
    np.testing.assert_array_equal(jitted(x), scaled(x))
    np.testing.assert_array_equal(jitted(x, 2.0), scaled(x, 2.0))


def repeated(fn):
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        total = 0.0
        for i in range(a[0].shape[0]):
            total = total + fn(*a, **kw)[i]
        return total
    return wrapper


@repeated
def halved(x):
    return x / 2


def test_wraps_with_a_loop_native_path_or_not():
    """A wrapper with a loop in it is what the native loop path (numba) binds too."""
    x = np.arange(5.0)
    jitted = npcompile.jit(halved)
    for _ in range(2):
        assert jitted(x) == halved(x)
