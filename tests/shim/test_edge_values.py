"""Edge values found by fresh-seed sweeps (issue 13): NaN and infinite parts of complex
medians, compared with NumPy part by part (``assert_same`` lets any NaN
stand for any other; here nan+infj must not become nan+0j)."""
import math
import warnings

import numpy
import pytest

import torch_numpy_shim as shim

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

