"""Edge values found by fresh-seed sweeps (issue 13): NaN and infinite parts of complex
medians and products, compared with NumPy part by part (``assert_same`` lets any NaN
stand for any other; here nan+infj must not become nan+0j)."""
import math
import warnings

import numpy
import pytest

import torch_numpy_shim as shim
from tests.oracle import assert_same

NAN_INF = complex(math.nan, math.inf)   # nan+infj, what 1j * inf gives
ONE_NAN = complex(1.0, math.nan)


def assert_parts(expected, actual):
    """Same type, dtype and shape; real and imaginary parts equal, NaN only where NaN."""
    actual = shim.to_numpy(actual)
    assert type(actual) is type(expected)
    expected, actual = numpy.asarray(expected), numpy.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    for part in (numpy.real, numpy.imag):
        numpy.testing.assert_array_equal(part(actual), part(expected), strict=True)


def both(fn, a):
    """``fn`` of NumPy and of the shim on ``a`` (warnings are the other tests' subject)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(numpy, a.copy()), fn(shim, shim.asarray(a.copy()))


# ---- median: a slice with a NaN answers with its last sorted value itself ---------------
MEDIAN_INPUTS = {
    "nan+infj first": numpy.array([NAN_INF, 1 + 0j]),
    "nan+infj among three": numpy.array([ONE_NAN, NAN_INF, 2 + 0j]),
    "two NaN kinds": numpy.array([[NAN_INF, 1], [2, ONE_NAN]]),
    "only nan+infj": numpy.array([NAN_INF, NAN_INF]),
    "complex64": numpy.array([[NAN_INF, 1, 3], [2, ONE_NAN, 5]], numpy.complex64),
    "long slices": numpy.tile(numpy.array([[NAN_INF, 1], [2, ONE_NAN]]), (400, 1)),
}


@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("name", sorted(MEDIAN_INPUTS))
def test_median_of_complex_nan_keeps_its_parts(name, axis):
    expected, actual = both(lambda xp, a: xp.median(a, axis=axis), MEDIAN_INPUTS[name])
    assert_parts(expected, actual)


NANMEDIAN_INPUTS = {
    "all nan+infj": numpy.array([NAN_INF, NAN_INF]),
    "all NaN, last one nan+infj": numpy.array([ONE_NAN, NAN_INF]),
    "short slices (masked median: nan+0j)": numpy.array([[NAN_INF, NAN_INF], [2, ONE_NAN]]),
    "long slices (last value)": numpy.tile(numpy.array([[ONE_NAN, 1], [NAN_INF, 2]]), (350, 1)),
    "float16 long": numpy.tile(numpy.array([[numpy.nan, 1], [-numpy.nan, 2]], numpy.float16), (350, 1)),
}


@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("name", sorted(NANMEDIAN_INPUTS))
def test_nanmedian_of_all_nan_slices(name, axis):
    expected, actual = both(lambda xp, a: xp.nanmedian(a, axis=axis), NANMEDIAN_INPUTS[name])
    assert_parts(expected, actual)


# ---- products: NumPy multiplies left to right from 1, each step in the dtype ------------
def assert_like(expected, actual):
    """Same type, dtype, shape; NaN in the same parts; values within the dtype's
    tolerance (relative to the complex magnitude, as ``assert_same``)."""
    actual = shim.to_numpy(actual)
    assert_same(expected, actual)
    for part in (numpy.real, numpy.imag):
        numpy.testing.assert_array_equal(numpy.isnan(part(actual)), numpy.isnan(part(expected)))


ORDER_DEPENDENT = {   # (function of xp and a, input): torch's order answered otherwise
    "float64 prod: zero before overflow": (
        lambda xp, a: xp.prod(a),
        numpy.array([-1.0, 1, 1, 0, -3e25, 1e200, -1, 1e200, 1e-300, 1e200, -1, 1e-300, 1, -1, 0, 1])),
    "complex128 prod: zero before overflow": (
        lambda xp, a: xp.prod(a),
        numpy.array([1e20 + 1e20j, 1e200 + 1j, 1e20 + 1j, -1, -1, -3e25, 0, 1 + 1e200j, 2.5 + 1e30j,
                     1e20 + 1j, 1e30 + 1e30j, 1e30 + 1e30j, 1e30 + 1e30j, 1j, 1e20j, -3e25 + 1e200j])),
    "complex128 prod: a tree's partial product underflows": (
        lambda xp, a: xp.prod(a),
        numpy.array([-1 + 1e30j, 1e30 + 1e-200j, 1e30 + 1e-30j, -1 + 1e-200j, 1e-300, 1e-30, 1e-20j,
                     1 - 1j, -3e25 + 1e-30j, 1e20, -3e25 + 1e-30j])),
    "complex64 cumprod: overflow in float32 steps": (
        lambda xp, a: xp.cumprod(a), numpy.array([1e30, 1e30, 1e-30, 1e-30], numpy.complex64)),
    "float32 cumprod: overflow in float32 steps": (
        lambda xp, a: xp.cumprod(a), numpy.array([1e30, 1e30, 1e-30, 1e-30], numpy.float32)),
    "float32 cumprod: underflow in float32 steps": (
        lambda xp, a: xp.cumprod(a), numpy.array([1e-30, 1e-30, 1e30, 1e30], numpy.float32)),
    "float16 cumprod": (
        lambda xp, a: xp.cumprod(a), numpy.array([300, 300, 1 / 300, 1 / 300], numpy.float16)),
    "float16 prod along an outer axis": (
        lambda xp, a: xp.prod(a, axis=0), numpy.array([[300, 2], [300, 3], [0, 4]], numpy.float16)),
    "float32 cumsum: overflow in float32 steps": (
        lambda xp, a: xp.cumsum(a), numpy.array([3e38, 3e38, -3e38], numpy.float32)),
    "complex prod from initial (NumPy starts from it)": (
        lambda xp, a: xp.prod(a, axis=0, initial=2.0), numpy.array([[numpy.inf + 1e-20j, 1 + 1e200j]])),
    "float64 prod where": (
        lambda xp, a: xp.prod(a, where=a != 1),
        numpy.array([-1.0, 1, 1, 0, -3e25, 1e200, -1, 1e200, 1e-300, 1e200, -1, 1e-300, 1, -1, 0, 1])),
    "float64 nanprod": (
        lambda xp, a: xp.nanprod(a),
        numpy.array([-1.0, numpy.nan, 1, 0, -3e25, 1e200, -1, 1e200, 1e-300, 1e200, -1, 1e-300, 1, -1, 0, 1])),
    "float64 prod along axis 0": (
        lambda xp, a: xp.prod(a, axis=0),
        numpy.array([-1.0, 1, 1, 0, -3e25, 1e200, -1, 1e200, 1e-300, 1e200, -1, 1e-300, 1, -1, 0, 1]).reshape(16, 1)),
}


@pytest.mark.parametrize("name", sorted(ORDER_DEPENDENT))
def test_products_in_numpys_order(name):
    fn, a = ORDER_DEPENDENT[name]
    expected, actual = both(fn, a)
    assert_like(expected, actual)


@pytest.mark.parametrize("name", sorted(ORDER_DEPENDENT))
def test_products_in_numpys_order_report_numpys_flags(name):
    """NumPy's own loop ran: its flags are reported, as NumPy reports them."""
    fn, a = ORDER_DEPENDENT[name]
    outcomes = []
    for xp in (numpy, shim):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with numpy.errstate(all="warn"):
                fn(xp, a.copy() if xp is numpy else shim.asarray(a.copy()))
        outcomes.append(sorted(str(w.message) for w in caught))
    assert outcomes[0] == outcomes[1]
