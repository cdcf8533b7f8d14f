"""Order statistics, averages, covariance, histograms: differential tests against NumPy."""

import warnings

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import torch_numpy_shim as shim
from tests.oracle import arrays, assert_same, check, dtypes, finite_arrays, shapes

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "median_unbiased", "normal_unbiased"]
AXES = [None, 0, -1, (0, 1)]


# ---- median ----------------------------------------------------------------------------
@given(st.data())
def test_median_hypothesis(data):
    dt = data.draw(dtypes())
    a = data.draw(arrays(dt))
    axis = data.draw(st.sampled_from(AXES))
    keepdims = data.draw(st.booleans())
    check(lambda xp, a: xp.median(a, axis=axis, keepdims=keepdims), a)


@given(st.data())
def test_nanmedian_hypothesis(data):
    dt = data.draw(dtypes("iufc"))
    a = data.draw(arrays(dt, shapes(min_dims=1)))
    axis = data.draw(st.sampled_from(AXES))
    check(lambda xp, a: xp.nanmedian(a, axis=axis), a)


@pytest.mark.parametrize("values", [[], [1.0], [2.0, 1.0], [1.0, numpy.nan, 3.0], [numpy.inf, -numpy.inf],
                                    [numpy.nan, numpy.nan]])
@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "complex64"])
def test_median_edges(values, dt):
    a = numpy.array(values, dt)
    check(lambda xp, a: xp.median(a), a)
    check(lambda xp, a: xp.nanmedian(a), a)


def test_median_complex_order_and_nan():
    a = numpy.array([1 + 2j, 1 + 1j, 0 + 5j, 3 - 1j])
    check(lambda xp, a: xp.median(a), a)
    check(lambda xp, a: xp.median(a), numpy.array([1 + 1j, complex(1, numpy.nan), 2j]))


@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "uint64", "int64"])
def test_median_integers(dt):
    a = numpy.array([[0, 1, 1], [1, 0, 1]], dt)
    check(lambda xp, a: xp.median(a, axis=1), a)
    check(lambda xp, a: xp.median(a, axis=0, keepdims=True), a)


def test_median_out_and_errors():
    a = numpy.arange(12.0).reshape(3, 4)
    check(lambda xp, a, o: (xp.median(a, axis=0, out=o), o), a, numpy.zeros(4))
    check(lambda xp, a: xp.median(a, axis=2), a)
    check(lambda xp, a: xp.median(a, axis=(0, 0)), a)
    check(lambda xp, a: xp.median(a, axis=0), numpy.array(5.0))
    check(lambda xp, a: xp.median(a, keepdims=True), numpy.array(5.0))
    check(lambda xp, a: xp.median(a, axis=0), numpy.zeros((0, 3)))
    check(lambda xp, a: xp.nanmedian(a, axis=1), numpy.full((2, 3), numpy.nan))


def test_nanmedian_nd_float16_path():
    a = numpy.array([[1, numpy.nan, 3, 4], [60000, 60000, 60000, numpy.nan]], numpy.float16)
    check(lambda xp, a: xp.nanmedian(a, axis=1), a)
    check(lambda xp, a: xp.nanmedian(a), a)


# ---- quantiles -------------------------------------------------------------------------
@given(st.data())
def test_quantile_hypothesis(data):
    dt = data.draw(dtypes("iuf"))
    a = data.draw(arrays(dt, shapes(min_dims=1, min_side=1)))
    method = data.draw(st.sampled_from(METHODS))
    q = data.draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3)
                            .map(numpy.array),
                            st.floats(0, 1, width=32).map(lambda v: numpy.array([v], numpy.float32))))
    axis = data.draw(st.sampled_from([None, 0, -1]))
    keepdims = data.draw(st.booleans())
    check(lambda xp, a: xp.quantile(a, q, axis=axis, method=method, keepdims=keepdims), a)


@given(st.data())
def test_percentile_hypothesis(data):
    dt = data.draw(dtypes("uif"))
    a = data.draw(arrays(dt, shapes(min_dims=1, min_side=1)))
    method = data.draw(st.sampled_from(METHODS))
    q = data.draw(st.one_of(st.integers(0, 100), st.floats(0, 100),
                            st.lists(st.floats(0, 100), min_size=1, max_size=3)))
    check(lambda xp, a: xp.percentile(a, q, axis=0, method=method), a)


@given(st.data())
def test_nanquantile_hypothesis(data):
    dt = data.draw(dtypes("f"))
    a = data.draw(arrays(dt, shapes(min_dims=1, min_side=1)))
    method = data.draw(st.sampled_from(METHODS))
    q = data.draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3)))
    axis = data.draw(st.sampled_from([None, 0, -1]))
    check(lambda xp, a: xp.nanquantile(a, q, axis=axis, method=method), a)
    check(lambda xp, a: xp.nanpercentile(a, q if numpy.ndim(q) else q * 100, axis=axis,
                                         method=method), a)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("q", [0, 1, 0.5, 0.25, [0.0, 0.1, 0.9, 1.0], numpy.float32(0.3)])
def test_quantile_methods_table(method, q):
    a = numpy.array([[7.0, 1, 3, 2, 9], [4, 4, 0, -1, 5]])
    check(lambda xp, a: xp.quantile(a, q, axis=1, method=method), a)
    check(lambda xp, a: xp.quantile(a, q, method=method), a.astype(numpy.int16))
    check(lambda xp, a: xp.nanquantile(a, q, axis=1, method=method),
          numpy.array([[7.0, numpy.nan, 3, 2, 9], [numpy.nan] * 5]))


def test_quantile_dtype_quirks():
    check(lambda xp, a: xp.quantile(a, 0.5), numpy.array([-128, 127], numpy.int8))  # wrapping lerp
    check(lambda xp, a: xp.quantile(a, 0), numpy.array([3, 1, 2]))  # int q keeps the data's dtype
    check(lambda xp, a: xp.quantile(a, numpy.float64(0.5)), numpy.array([1, numpy.nan], numpy.float32))
    check(lambda xp, a: xp.quantile(a, numpy.array([0.5])), numpy.array([1, 2], numpy.float32))
    check(lambda xp, a: xp.quantile(a, 0.5), numpy.array([True, False]))
    check(lambda xp, a: xp.quantile(a, 1.0), numpy.array([1.0, numpy.inf]))
    check(lambda xp, a: xp.percentile(a, numpy.float32(50)), numpy.array([1, 2, 4]))
    check(lambda xp, a: xp.quantile(a, [[0.5, 0.1]]), numpy.array([1, 2, 4], numpy.uint32))


def test_quantile_errors():
    a = numpy.arange(6.0)
    check(lambda xp, a: xp.quantile(a, 1.5), a)
    check(lambda xp, a: xp.quantile(a, numpy.nan), a)
    check(lambda xp, a: xp.percentile(a, -1), a)
    check(lambda xp, a: xp.quantile(a, 0.5, method="bogus"), a)
    check(lambda xp, a: xp.quantile(a, numpy.full((1, 1, 1), 0.5)), a)
    check(lambda xp, a: xp.quantile(a, 0.5), a.astype(complex))
    check(lambda xp, a: xp.quantile(a, 0.5), numpy.array([]))
    check(lambda xp, a: xp.quantile(a, 0.5, axis=3), a)
    check(lambda xp, a: xp.nanquantile(a, 0.5, axis=1), numpy.zeros((2, 0)))
    nan_first = numpy.array([[numpy.nan, numpy.nan], [1, 2]], numpy.float32)
    check(lambda xp, a: xp.nanquantile(a, [0.5], axis=1), nan_first)
    check(lambda xp, a: xp.nanquantile(a, [0.5], axis=1), nan_first[::-1].copy())


def test_quantile_out_keepdims():
    a = numpy.arange(24.0).reshape(2, 3, 4)
    check(lambda xp, a, o: (xp.quantile(a, [0.2, 0.7], axis=(0, 2), out=o), o), a, numpy.zeros((2, 3)))
    check(lambda xp, a: xp.quantile(a, [0.2, 0.7], axis=(0, 2), keepdims=True), a)
    check(lambda xp, a: xp.percentile(a, 30, axis=(2, 0), method="weibull"), a)


@given(st.data())
def test_weighted_inverted_cdf(data):
    a = data.draw(arrays(numpy.float64, shapes(min_dims=1, max_dims=2, min_side=1)))
    w = data.draw(finite_arrays(numpy.float64, st.just(a.shape), bound=10).map(numpy.abs))
    q = data.draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3)))
    check(lambda xp, a, w: xp.quantile(a, q, axis=0, method="inverted_cdf", weights=w), a, w)
    check(lambda xp, a, w: xp.nanquantile(a, q, axis=0, method="inverted_cdf", weights=w), a, w)


def test_weighted_errors():
    a = numpy.arange(6.0).reshape(2, 3)
    check(lambda xp, a: xp.quantile(a, 0.5, weights=numpy.ones(6).reshape(2, 3)), a)
    check(lambda xp, a: xp.quantile(a, 0.5, method="inverted_cdf", weights=[1, 2, 3]), a)
    check(lambda xp, a: xp.quantile(a, 0.5, axis=1, method="inverted_cdf", weights=[1, 2, 3]), a)
    check(lambda xp, a: xp.quantile(a, 0.5, axis=0, method="inverted_cdf", weights=[1, 2, 3]), a)
    check(lambda xp, a: xp.quantile(a, 0.5, axis=1, method="inverted_cdf", weights=[1, -2, 3]), a)
    check(lambda xp, a: xp.quantile(a, 0.5, axis=1, method="inverted_cdf", weights=[0, 0, 0]), a)
    check(lambda xp, a: xp.percentile(a, [5, 60], axis=1, method="inverted_cdf", weights=[0, 1, 3]), a)


# ---- average ---------------------------------------------------------------------------
@given(st.data())
def test_average_hypothesis(data):
    dt = data.draw(dtypes())
    a = data.draw(arrays(dt, shapes(min_dims=1)))
    axis = data.draw(st.sampled_from([None, 0, -1]))
    returned = data.draw(st.booleans())
    keepdims = data.draw(st.booleans())
    check(lambda xp, a: xp.average(a, axis=axis, returned=returned, keepdims=keepdims), a)


@given(st.data())
def test_average_weighted_hypothesis(data):
    dt = data.draw(dtypes("biufc"))
    a = data.draw(finite_arrays(dt, shapes(min_dims=1, min_side=1)))
    wdt = data.draw(dtypes("iuf"))
    w = data.draw(finite_arrays(wdt, st.just(a.shape), bound=100))
    returned = data.draw(st.booleans())
    check(lambda xp, a, w: xp.average(a, weights=w, returned=returned), a, w)
    check(lambda xp, a, w: xp.average(a, axis=0, weights=w, returned=returned), a, w)


def test_average_weights_along_axis_and_errors():
    a = numpy.arange(24.0).reshape(2, 3, 4)
    check(lambda xp, a: xp.average(a, axis=(0, 2), weights=numpy.arange(8.0).reshape(2, 4) + 1,
                                   returned=True), a)
    check(lambda xp, a: xp.average(a, axis=1, weights=[1, 2, 3], keepdims=True, returned=True), a)
    check(lambda xp, a: xp.average(a, weights=[1, 2, 3]), a)
    check(lambda xp, a: xp.average(a, axis=1, weights=[1, 2]), a)
    check(lambda xp, a: xp.average(a, axis=1, weights=[1, -1, 0]), a)
    check(lambda xp, a: xp.average(a, axis=1, returned=True), numpy.zeros((0, 0)))
    check(lambda xp, a: xp.average(a, axis=1, returned=True), a.astype(numpy.float16))


# ---- cov / corrcoef --------------------------------------------------------------------
@given(st.data())
def test_cov_hypothesis(data):
    dt = data.draw(dtypes("biufc"))
    m = data.draw(finite_arrays(dt, shapes(min_dims=1, max_dims=2, min_side=1), bound=100))
    rowvar = data.draw(st.booleans())
    bias = data.draw(st.booleans())
    ddof = data.draw(st.sampled_from([None, 0, 1, 2]))
    check_cov(m, rowvar, bias, ddof)
    check(lambda xp, m: xp.corrcoef(m, rowvar=rowvar), m, rtol=1e-4, atol=1e-6)


def _observations(m, rowvar):
    """NumPy's n in cov: columns of ``m`` as 2-D, transposed unless rowvar or one row."""
    x = numpy.array(m, ndmin=2)
    return x.shape[0] if not rowvar and x.shape[0] != 1 else x.shape[1]


def check_cov(m, rowvar, bias, ddof):
    """cov against NumPy. With n - ddof <= 0 NumPy multiplies c = X X^H by inf, so for
    complex input a part of c that is zero only up to rounding (the imaginary part of a
    diagonal entry, 0 in exact arithmetic) becomes -inf, inf or NaN by its BLAS kernel's
    rounding residual (OpenBLAS zgemm leaves -1.7e-164, torch's matmul 0). There the
    shim must give its own c (checked against NumPy's at n - ddof = 1) times inf by
    NumPy's complex multiplication rule, which decides where inf and NaN go."""
    n = _observations(m, rowvar)
    fact = n - (ddof if ddof is not None else int(not bias))
    if m.dtype.kind != "c" or fact > 0:
        check(lambda xp, m: xp.cov(m, rowvar=rowvar, bias=bias, ddof=ddof), m, rtol=1e-4, atol=1e-6)
        return
    check(lambda xp, m: xp.cov(m, rowvar=rowvar, ddof=n - 1), m, rtol=1e-4, atol=1e-6)
    c = shim.to_numpy(shim.cov(shim.asarray(m), rowvar=rowvar, ddof=n - 1))
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # degrees of freedom <= 0
        expected = numpy.cov(m, rowvar=rowvar, bias=bias, ddof=ddof)
        actual = shim.to_numpy(shim.cov(shim.asarray(m), rowvar=rowvar, bias=bias, ddof=ddof))
        placed = numpy.asarray((c.astype(numpy.complex128) * numpy.float64(numpy.inf)).astype(c.dtype))
    assert (type(actual), actual.dtype, actual.shape) == (type(expected), expected.dtype, expected.shape)
    assert_same(placed, actual)


def test_cov_of_complex_with_no_degrees_of_freedom():
    """Issue 13's counterexample: c[1, 1] = 4.5 + 0j (NumPy: 4.5 - 1.7e-164j) times inf."""
    check_cov(numpy.array([[0j, 0j], [0j, 3 + 4.969091459080435e-148j]]), False, False, 2)
    check_cov(numpy.array([[1 + 2j, 3j], [2, 1 - 1j]], numpy.complex64), True, True, 2)


@given(st.data())
def test_cov_weights_hypothesis(data):
    m = data.draw(finite_arrays(numpy.float64, shapes(min_dims=2, max_dims=2, min_side=2)))
    n = m.shape[1]
    fw = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    aw = data.draw(st.lists(st.floats(0.1, 3), min_size=n, max_size=n))
    ddof = data.draw(st.sampled_from([None, 0, 1]))
    check(lambda xp, m: xp.cov(m, fweights=fw, ddof=ddof), m, atol=1e-9)
    check(lambda xp, m: xp.cov(m, aweights=aw, ddof=ddof), m, atol=1e-9)
    check(lambda xp, m: xp.cov(m, fweights=fw, aweights=aw), m, atol=1e-9)


def test_cov_forms_and_errors():
    x = numpy.array([[0.0, 1, 2], [2, 1, 0]])
    y = numpy.array([1.0, 4, 9])
    check(lambda xp, x, y: xp.cov(x, y), x, y)
    check(lambda xp, x, y: xp.cov(x.T, y, rowvar=False), x, y)
    check(lambda xp, x: xp.cov(x, dtype=numpy.float32), x)
    check(lambda xp, x: xp.cov(x, dtype=numpy.int64), x)
    check(lambda xp, x: xp.cov(x), x.astype(numpy.float32))
    check(lambda xp, x: xp.cov(x, aweights=numpy.ones(3)), x.astype(numpy.float32))
    check(lambda xp, x: xp.cov(x), numpy.zeros((0, 3)))
    check(lambda xp, x: xp.cov(x), numpy.zeros((2, 1)))
    check(lambda xp, x: xp.cov(x), numpy.zeros((2, 2, 2)))
    check(lambda xp, x: xp.cov(x, ddof=1.5), x)
    check(lambda xp, x: xp.cov(x, fweights=[1, 2.5, 1]), x)
    check(lambda xp, x: xp.cov(x, fweights=[1, -2, 1]), x)
    check(lambda xp, x: xp.cov(x, aweights=[1, 2]), x)
    check(lambda xp, x: xp.cov(x, aweights=[[1, 2, 3]]), x)
    check(lambda xp, x: xp.corrcoef(x), numpy.array([1.0, 2, 4]))
    check(lambda xp, x, y: xp.corrcoef(x, y), x, y)


# ---- histograms ------------------------------------------------------------------------
@given(st.data())
def test_histogram_hypothesis(data):
    dt = data.draw(dtypes("biuf").filter(lambda d: d.name != "uint64"))
    a = data.draw(finite_arrays(dt, shapes(max_dims=2)))
    bins = data.draw(st.one_of(st.integers(1, 6), st.lists(st.floats(-50, 50), min_size=1, max_size=5)
                               .map(sorted)))
    density = data.draw(st.booleans())
    check(lambda xp, a: xp.histogram(a, bins=bins, density=density), a)
    check(lambda xp, a: xp.histogram_bin_edges(a, bins=bins), a)


@given(st.data())
def test_histogram_weighted_range_hypothesis(data):
    a = data.draw(arrays(numpy.float64, shapes(max_dims=1)))
    wdt = data.draw(dtypes("iufc"))
    w = data.draw(finite_arrays(wdt, st.just(a.shape), bound=100))
    lo = data.draw(st.floats(-10, 10))
    bins = data.draw(st.one_of(st.integers(1, 5), st.just([-1.0, 0, 2.5])))
    check(lambda xp, a, w: xp.histogram(a, bins=bins, range=(lo, lo + 5), weights=w), a, w,
          rtol=1e-3)


def test_histogram_errors_and_edges():
    a = numpy.array([1.0, 2, 2, 3, 5])
    check(lambda xp, a: xp.histogram(a, bins=0), a)
    check(lambda xp, a: xp.histogram(a, bins=2.5), a)
    check(lambda xp, a: xp.histogram(a, bins=[3, 1]), a)
    check(lambda xp, a: xp.histogram(a, bins=[[1, 2]]), a)
    check(lambda xp, a: xp.histogram(a, range=(3, 1)), a)
    check(lambda xp, a: xp.histogram(a, range=(0, numpy.inf)), a)
    check(lambda xp, a: xp.histogram(a), numpy.array([1.0, numpy.nan]))
    check(lambda xp, a: xp.histogram(a, weights=[1, 2]), a)
    check(lambda xp, a: xp.histogram(a), numpy.array([4.0, 4.0]))
    check(lambda xp, a: xp.histogram(a, bins=3), numpy.array([], numpy.float32))
    check(lambda xp, a: xp.histogram(a, bins=3, range=(0, 1)), numpy.array([0.5], numpy.float32))
    check(lambda xp, a: xp.histogram(a, bins=3, density=True, weights=numpy.ones(5, numpy.float32)), a)
    check(lambda xp, a: xp.histogram(a, bins=4), numpy.array([True, False, True]))
    with pytest.raises(shim.UnsupportedError):
        shim.histogram(shim.asarray(a), bins="auto")


@given(st.data())
def test_histogramdd_hypothesis(data):
    dt = data.draw(dtypes("iuf").filter(lambda d: d.name != "uint64"))
    x = data.draw(finite_arrays(dt, shapes(min_dims=1, max_dims=1)))
    y = data.draw(finite_arrays(dt, st.just(x.shape)))
    bins = data.draw(st.one_of(st.integers(1, 4), st.just([2, 3]), st.just([-1.0, 0.0, 10.0])))
    density = data.draw(st.booleans())
    check(lambda xp, x, y: xp.histogram2d(x, y, bins=bins, density=density), x, y)
    dd_bins = bins if numpy.ndim(bins) != 1 or isinstance(bins[0], int) else [bins, bins]
    check(lambda xp, s: xp.histogramdd(s, bins=dd_bins, density=density), numpy.stack([x, y], axis=1))


def test_histogramdd_forms_and_errors():
    sample = numpy.array([[0.0, 1], [1, 2], [2, 0], [0.5, 0.5]])
    w = numpy.array([1.0, 2, 3, 4])
    check(lambda xp, s, w: xp.histogramdd(s, bins=(2, 3), range=[(0, 2), (0, 2)], weights=w), sample, w)
    check(lambda xp, s: xp.histogramdd(s, bins=(2, 3, 4)), sample)
    check(lambda xp, s: xp.histogramdd(s, range=[(0, 1)]), sample)
    check(lambda xp, s: xp.histogramdd(s, bins=0), sample)
    check(lambda xp, s: xp.histogramdd(s, bins=[[2, 1], [0, 1]]), sample)
    check(lambda xp, s: xp.histogramdd(s), numpy.arange(5.0))
    check(lambda xp, x: xp.histogram2d(x, x, bins=[0, 1, 2, 3, 4]), numpy.arange(5.0))


# ---- bincount / digitize ---------------------------------------------------------------
@given(st.data())
def test_bincount_hypothesis(data):
    dt = numpy.dtype(data.draw(st.sampled_from(["int8", "int64", "uint8", "uint16", "bool"])))
    small = st.booleans() if dt.kind == "b" else st.integers(-1 if dt.kind == "i" else 0, 100)
    x = data.draw(arrays(dt, shapes(min_dims=1, max_dims=1), elements_=small))
    weighted = data.draw(st.booleans())
    minlength = data.draw(st.integers(0, 5))
    if weighted:
        w = data.draw(finite_arrays(numpy.float32, st.just(x.shape)))
        check(lambda xp, x, w: xp.bincount(x, weights=w, minlength=minlength), x, w)
    else:
        check(lambda xp, x: xp.bincount(x, minlength=minlength), x)


@pytest.mark.parametrize("x,kwargs", [
    ([1.0, 2.0], {}), ([[1, 2]], {}), (3, {}), ([-1, 2], {}), ([1, 2], {"minlength": -1}),
    ([1, 2], {"weights": [1.0]}), ([1, 2], {"weights": [1j, 2j]}), ([], {}),
    (numpy.array([1, 2], numpy.uint64), {}), ([0, 3, 3], {"weights": [True, False, True]}),
])
def test_bincount_table(x, kwargs):
    check(lambda xp, x: xp.bincount(x, **kwargs), numpy.asarray(x))


@given(st.data())
def test_digitize_hypothesis(data):
    dt = data.draw(dtypes("iuf").filter(lambda d: d.name != "uint64"))
    x = data.draw(arrays(dt))
    bins = sorted(data.draw(st.lists(st.integers(-100, 100), max_size=5)))
    if data.draw(st.booleans()):
        bins = bins[::-1]
    right = data.draw(st.booleans())
    check(lambda xp, x: xp.digitize(x, numpy.array(bins, numpy.float64), right=right), x)


def test_digitize_table():
    check(lambda xp: xp.digitize(2.5, [1, 2, 3]))
    check(lambda xp: xp.digitize([1, 2], [3, 1, 2]))
    check(lambda xp: xp.digitize([1j], [1, 2]))
    check(lambda xp: xp.digitize([1, 2], [[1, 2]]))
    check(lambda xp: xp.digitize([numpy.nan, 1.0], [0.0, 1.0, 1.0], right=True))


def test_histogram_with_explicit_edges_skips_nans_in_the_data():
    """NaNs sort after every edge (torch's searchsorted had counted the data wrongly)."""
    a = numpy.array([numpy.nan, 0.0, 2.5, numpy.inf, -numpy.inf])
    for weights in (None, numpy.array([1, 1, 1, 1, 1], dtype=numpy.int8)):
        check(lambda xp, a: xp.histogram(a, bins=[-1.0, 0, 2.5], weights=weights), a)
        check(lambda xp, a: xp.histogram(a, bins=[-numpy.inf, 0, numpy.inf], weights=weights), a)
