"""Histograms with equal bins: NumPy's own bin arithmetic and its blockwise bincount,
compared with NumPy exactly (dtype, shape, every count and weighted sum bit for bit),
eagerly and compiled."""
import numpy
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import npcompile
from tests.oracle import arrays, check, dtypes, finite_arrays, shapes
from torch_numpy_shim._statistics import _BLOCK, histogram_counts

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@given(st.data())
def test_equal_bins_match_numpy_exactly(data):
    dt = data.draw(dtypes("iuf").filter(lambda d: d.name != "uint64"))
    a = data.draw(arrays(dt, shapes(max_dims=2, max_side=6)))
    bins = data.draw(st.integers(1, 40))
    wdt = data.draw(st.sampled_from([None, "float64", "float32", "int32", "complex128", "bool"]))
    w = None if wdt is None else data.draw(finite_arrays(numpy.dtype(wdt), st.just(a.shape), bound=100))
    rng = data.draw(st.one_of(st.none(), st.tuples(st.floats(-100, 100), st.floats(0, 50)).map(
        lambda p: (p[0], p[0] + p[1])), st.tuples(st.integers(-20, 20), st.integers(0, 20)).map(
        lambda p: (p[0], p[0] + p[1]))))
    if w is None:
        check(lambda xp, a: xp.histogram(a, bins=bins, range=rng), a)
    else:
        check(lambda xp, a, w: xp.histogram(a, bins=bins, range=rng, weights=w), a, w, rtol=0)


@given(st.data())
def test_values_on_and_next_to_edges(data):
    """Values exactly on NumPy's edges and one ulp either side: the last bin is closed,
    every other edge belongs to the bin above it, whatever the rounding of the index."""
    dt = numpy.dtype(data.draw(st.sampled_from(["float32", "float64"])))
    low = data.draw(st.floats(-1e3, 1e3, width=32))
    span = data.draw(st.floats(1, 1e4, width=32))
    bins = data.draw(st.integers(1, 300))
    edges = numpy.histogram_bin_edges(numpy.array([low, low + span], dt), bins)
    a = numpy.concatenate([edges, numpy.nextafter(edges, numpy.inf), numpy.nextafter(edges, -numpy.inf)]).astype(dt)
    a = a[(a >= edges[0]) & (a <= edges[-1])]
    check(lambda xp, a: xp.histogram(a, bins=bins, range=(edges[0], edges[-1])), a)
    check(lambda xp, a: xp.histogram(a, bins=bins), a)


@pytest.mark.parametrize("wdt", [None, "float64", "float32", "int64", "complex64"])
def test_several_blocks_sum_as_numpy(wdt):
    """More values than one block of NumPy's loop: each block's sums are cast to the
    histogram's dtype and then added, so float32 weights round as NumPy's do."""
    rng = numpy.random.default_rng(5)
    a = rng.standard_normal(2 * _BLOCK + 17)
    if wdt is None:
        check(lambda xp, a: xp.histogram(a, bins=33), a)
        return
    w = (rng.random(a.shape) * 1000 + 1j * (wdt == "complex64")).astype(wdt)
    check(lambda xp, a, w: xp.histogram(a, bins=33, weights=w), a, w, rtol=0)


@pytest.mark.parametrize("a,kwargs", [
    (numpy.array([0.0, 1, 2, 3, numpy.nan, numpy.inf, -1]), {"bins": 3, "range": (0, 3)}),
    (numpy.array([2 ** 62, -2 ** 62, 5], numpy.int64), {"bins": 5}),
    (numpy.array([7, 7, 7], numpy.uint8), {"bins": 5}),
    (numpy.array([-128, 127, 0], numpy.int8), {"bins": 255}),
    (numpy.array([0.5, 0.1, 1.0], numpy.float32), {"bins": 3, "range": (0.5, 0.5)}),
    (numpy.array([0.1, 0.3, 0.5, 0.7], numpy.float32), {"bins": 3, "range": (numpy.float64(0.1), 0.7)}),
    (numpy.array([0.1, 0.3, 0.5, 0.7], numpy.float32), {"bins": 3, "range": (0, 1)}),
    (numpy.array([1, 5, 100, 120], numpy.int8), {"bins": 3, "range": (1, 1000)}),
    (numpy.array([1, 5, 100, 1000.0], numpy.float16), {"bins": 3, "weights": numpy.array([1, 2, 3, 4], numpy.float16)}),
    (numpy.array([1, 5, 100, 1000.0]), {"bins": 3, "weights": numpy.array([True, False, True, True])}),
    (numpy.zeros(0), {"bins": 3}),
    (numpy.array([True, False, True]), {"bins": 4}),
])
def test_equal_bins_table(a, kwargs):
    check(lambda xp, a: xp.histogram(a, **kwargs), a, rtol=0)


def _two_histograms(x, w):
    return numpy.histogram(x, 40, weights=w)[0] / numpy.histogram(x, 40)[0]


def test_compiled_histogram_matches_numpy_and_counts_in_numpy():
    """Compiled, the counts come from NumPy's bincount (one op, no scatter-add kernel),
    in one graph with no break, with NumPy's values."""
    rng = numpy.random.default_rng(2)
    x, w = rng.standard_normal(5000), rng.random(5000)
    jitted = npcompile.jit(_two_histograms)
    numpy.testing.assert_array_equal(jitted(x, w), _two_histograms(x, w))
    explained = npcompile.explain(_two_histograms)(x, w)
    assert (explained.graph_count, explained.graph_break_count) == (1, 0)
    ops = " ".join(explained.ops_per_graph[0])
    assert "histogram_counts" in ops and "index_put" not in ops and "scatter" not in ops


def test_counts_op_outside_the_cpu_sums_by_scatter():
    """Off the CPU (here: the meta device, shapes only) the count is a scatter-add of
    the histogram's dtype, not NumPy's op."""
    index = torch.zeros(10, dtype=torch.int64, device="meta")
    n = histogram_counts(index, torch.zeros(10, dtype=torch.float32, device="meta"), 4, torch.float32)
    assert (n.shape, n.dtype, n.device.type) == ((4,), torch.float32, "meta")


@settings(max_examples=30)
@given(st.integers(1, 2 * _BLOCK + 3), st.integers(1, 9))
def test_counts_op_counts_every_index(size, bins):
    index = torch.randint(0, bins + 1, (size,))
    n = histogram_counts(index, None, bins, torch.int64)
    assert torch.equal(n, torch.bincount(index, minlength=bins + 1)[:bins])
