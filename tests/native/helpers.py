"""Differential checks of native loop kernels against NumPy running the same function."""
import warnings

import numpy as np

from npcompile.native import try_compile
from tests.oracle import assert_same


def outcome(fn, args, errstate=None):
    """(result, exception, sorted RuntimeWarning messages) of ``fn(*args)`` under
    ``np.errstate(**errstate)``."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(**(errstate or {})):
        warnings.simplefilter("always")
        try:
            result, exc = fn(*args), None
        except Exception as e:  # noqa: BLE001 - compared with NumPy's
            result, exc = None, e
    messages = sorted({str(w.message) for w in caught if w.category is RuntimeWarning})
    return result, exc, messages


def assert_same_layout(expected, actual):
    """Returned arrays are laid out as NumPy's (order='K' allocations keep F order)."""
    if isinstance(expected, tuple):
        for e, a in zip(expected, actual):
            assert_same_layout(e, a)
    elif isinstance(expected, np.ndarray) and expected.ndim >= 2:
        assert (actual.flags.c_contiguous, actual.flags.f_contiguous) == \
            (expected.flags.c_contiguous, expected.flags.f_contiguous), "layout of the result"


_KERNELS = {}


def compiled(fn, args):
    """A kernel for ``fn`` whose guard accepts ``args`` (compiled once per guard, as a
    runtime would keep them), or the Refusal. Fidelity is tested on everything the native
    path can prove, so the loop-kernel policy (a performance choice) is off here."""
    for kernel in _KERNELS.get(fn, ()):
        if kernel.guard(args):
            return kernel
    kernel = try_compile(fn, args, loop_kernels_only=False)
    if kernel:
        _KERNELS.setdefault(fn, []).append(kernel)
    return kernel


def check_against_numpy(fn, make_args, rtol=None, errstate=None):
    """Compile ``fn`` for the arguments ``make_args()`` builds (fresh each call) and
    compare one native call with NumPy: result (type, dtype, values), exception class,
    RuntimeWarnings, and every argument afterwards. Returns the kernel or the Refusal."""
    kernel = compiled(fn, make_args())
    if not kernel:
        assert kernel.reason
        return kernel
    np_args, native_args = make_args(), make_args()
    assert kernel.guard(native_args)
    expected, np_exc, np_warnings = outcome(fn, np_args, errstate)
    actual, native_exc, native_warnings = outcome(kernel, native_args, errstate)
    if np_exc is not None:
        assert type(native_exc) is type(np_exc), f"NumPy raised {np_exc!r}, native gave {native_exc!r} / {actual!r}"
    else:
        assert native_exc is None, f"native raised {native_exc!r}, NumPy returned {expected!r}"
        assert_same(expected, actual, rtol=rtol)
        assert_same_layout(expected, actual)
    assert native_warnings == np_warnings
    for before, after in zip(np_args, native_args):
        if isinstance(before, np.ndarray):
            assert after.flags.writeable == before.flags.writeable
            assert_same(before, after, rtol=rtol, path="argument after the call")
    return kernel
