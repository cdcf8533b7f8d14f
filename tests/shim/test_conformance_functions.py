"""Function behaviours NumPy's own ``lib/test_function_base.py`` (TestVectorize, TestDiff,
TestInterp, TestCheckFinite) showed wrong through ``benchmarks.numpy_conformance``; each
case fails without its fix."""
import numpy
import pytest

import torch_numpy_shim as shim
from tests.oracle import check


def _outcome(fn, xp):
    try:
        return repr(shim.to_numpy(fn(xp)))
    except Exception as exc:  # noqa: BLE001 - the class and message are compared
        return f"{type(exc).__name__}: {exc}"


def assert_as_numpy(fn):
    assert _outcome(fn, shim) == _outcome(fn, numpy)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint16", "float16", "float32", "bool", "complex64"])
def test_vectorize_learns_output_types_from_numpy_scalars(dtype):
    """NumPy's gh-29189: the call that learns the output types gets ``arg.flat[0]``, a
    NumPy scalar, so x + x of int16 data is int16 (Python scalars made it int64)."""
    check(lambda xp, a: xp.vectorize(lambda x: x + x)(a), numpy.array([1, 2, 3]).astype(dtype))


def test_vectorize_otypes_set_after_construction():
    """``f.otypes = 'i'`` set on the object is used at the next call."""
    def fn(xp, a):
        f = xp.vectorize(lambda x: x)
        f.otypes = "i"
        return f(a)
    check(fn, numpy.arange(5))


def test_vectorize_name_and_bad_function():
    """A vectorized function keeps the function's __name__; a pyfunc that is not
    callable is a TypeError at construction."""
    def f2(a, b):
        return a + b
    assert shim.vectorize(f2).__name__ == numpy.vectorize(f2).__name__ == "f2"
    assert_as_numpy(lambda xp: xp.vectorize(pyfunc=3))


@pytest.mark.parametrize("kwargs", [dict(prepend=numpy.zeros((3, 3))), dict(append=numpy.zeros((2, 3)), axis=0),
                                    dict(prepend=numpy.zeros(2), axis=0), dict(append=[[1], [2]], axis=1),
                                    dict(prepend=[[0, 0]], axis=0)])
def test_diff_prepend_append_shapes(kwargs):
    """A prepend/append that cannot be joined is NumPy's ValueError and message (torch's
    RuntimeError before)."""
    assert_as_numpy(lambda xp: xp.diff(xp.arange(4).reshape(2, 2), **kwargs))


@pytest.mark.parametrize("args,kwargs", [((0, [0], [1, 2]), dict(period=360)), ((0, [0, 1], [1]), dict(period=1)),
                                         ((0, [], []), dict(period=360)), ((0, [0], [1, 2]), {}),
                                         ((0.5, [0, 1], [1, 2]), dict(period=3))])
def test_interp_with_a_period_checks_lengths_first(args, kwargs):
    """Sample points and values of different lengths are NumPy's ValueError also with a
    period (the periodic padding hid it: a value came back)."""
    assert_as_numpy(lambda xp: xp.interp(*args, **kwargs))


@pytest.mark.parametrize("values,kwargs", [([1, 2, numpy.nan], {}), ([1, 2], dict(dtype="f4")), ([1, 2], {}),
                                           ([complex(1, numpy.inf)], {}), ([[1.0], [2.0]], dict(order="F")),
                                           ([], {}), ([numpy.inf], dict(dtype=int))])
def test_asarray_chkfinite(values, kwargs):
    """np.asarray_chkfinite (was missing): asarray, and 'array must not contain infs or
    NaNs' for non-finite floating-point data."""
    with numpy.errstate(all="ignore"):
        assert_as_numpy(lambda xp: xp.asarray_chkfinite(values, **kwargs))


@pytest.mark.parametrize("obj", [numpy.array([], dtype=float), numpy.array([1.0, 2.0]), [], (), numpy.array([], dtype=int),
                                 [True, False, True], numpy.array([], dtype=bool)])
def test_delete_refuses_an_empty_float_array(obj):
    """NumPy's TestDelete.test_index_floats: only an empty sequence (not an empty float
    array) is read as 'delete nothing'."""
    assert_as_numpy(lambda xp: xp.delete([0, 1, 2], xp.asarray(obj) if isinstance(obj, numpy.ndarray) else obj))
