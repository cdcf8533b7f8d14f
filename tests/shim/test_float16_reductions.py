"""float16 sum, mean, prod and nansum bit for bit as NumPy's (issue 13), over many
lengths (0 and 1 too), axes, strided, reversed and transposed views. NumPy sums
pairwise in float32 along the memory's inner axis but rounds every step to float16
across it (``a.sum(axis=0)`` of a C-ordered array): before NumPy's own loop computed
those, 154 of these 1920 cases differed (sum/nansum across the inner axis, and prod)."""
import numpy
import pytest

import torch_numpy_shim as snp

LENGTHS = [0, 1, 2, 3, 7, 8, 9, 16, 17, 31, 100, 128, 129, 1000, 8193, 20000]


def _views(a):
    views = [a, a[::-1], a[::2]]
    if a.size >= 6:
        m = a.size // 3 * 3
        views += [a[:m].reshape(3, -1), a[:m].reshape(3, -1).T, a[:m].reshape(-1, 3)[::-2]]
    return views


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "nansum"])
@pytest.mark.parametrize("errors", ["ignore", "warn"])
def test_float16_reductions_as_numpy(name, errors):
    rng = numpy.random.default_rng(5)
    for n in LENGTHS:
        for scale in (1, 100):
            a = (rng.standard_normal(n) * scale).astype(numpy.float16)
            if name == "prod":
                a = (a / 50 + 1).astype(numpy.float16)
            if name == "nansum" and n > 3:
                a[::4] = numpy.nan
            for v in _views(a):
                for axis in [None, *range(v.ndim)]:
                    with numpy.errstate(all="ignore"):
                        expected = getattr(numpy, name)(v, axis=axis)
                    with numpy.errstate(all=errors):
                        got = getattr(snp, name)(snp.asarray(v), axis=axis)
                    got = snp.to_numpy(got)
                    assert type(got) is type(expected)
                    got, expected = numpy.asarray(got), numpy.asarray(expected)
                    assert got.dtype == expected.dtype and got.shape == expected.shape
                    assert numpy.array_equal(got.view(numpy.uint16), expected.view(numpy.uint16)), (n, axis, v.strides)


def test_float16_sum_of_wider_input_and_overflow_warning():
    a = numpy.random.default_rng(6).random((50, 40)) * 10000 + 5000   # rows sum past 65504
    expected = numpy.sum(a, axis=0, dtype=numpy.float16)
    with pytest.warns(RuntimeWarning, match="overflow encountered in reduce"):
        got = snp.sum(snp.asarray(a), axis=0, dtype=snp.float16)
    assert numpy.array_equal(numpy.asarray(got).view(numpy.uint16), expected.view(numpy.uint16))


@pytest.mark.parametrize("errors", ["ignore", "warn"])
def test_float16_where_initial_and_nanmean_as_numpy(errors):
    """where= and initial= go through NumPy's loop too (a masked float16 sum rounds per
    unmasked run: 42 of 96 swept cases differed, initial= 21, a masked prod 8); nanmean
    divides by its count exactly (torch made a count of 2731 float16: 2732)."""
    rng = numpy.random.default_rng(7)
    for n in [1, 2, 7, 17, 100, 1000, 8193]:
        a = (rng.standard_normal(n) * 30).astype(numpy.float16)
        m = n // 3 * 3 or 1
        for v in [a, a[:m].reshape(3, -1) if m >= 3 else a[:1]]:
            w = rng.random(v.shape) < 0.7
            nans = numpy.where(rng.random(v.shape) < 0.1, numpy.nan, v).astype(numpy.float16)
            for axis in [None, 0, v.ndim - 1]:
                cases = [("sum", v, {"where": w}), ("sum", v, {"initial": 3.5}), ("nanmean", nans, {}),
                         ("prod", (v / 50 + 1).astype(numpy.float16), {"where": w, "initial": 0.75})]
                for name, x, options in cases:
                    with numpy.errstate(all="ignore"):
                        expected = numpy.asarray(getattr(numpy, name)(x, axis=axis, **options))
                    with numpy.errstate(all=errors):
                        got = numpy.asarray(snp.to_numpy(getattr(snp, name)(snp.asarray(x), axis=axis, **options)))
                    assert got.dtype == expected.dtype and got.shape == expected.shape
                    assert numpy.array_equal(got, expected, equal_nan=True), (name, options, n, axis)
