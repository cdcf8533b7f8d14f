"""float16 running sums and products bit for bit as NumPy's (issue 13): NumPy rounds
every partial result to float16 (a thousand 1.1s sum to 1027, not 1100), over any
axis, strided and reversed inputs, ``out=``, ``dtype=float16`` of wider inputs, and
the nan- forms; the sequential torch scan (the route off the CPU) checked on the CPU."""
import numpy
import pytest
import torch

import torch_numpy_shim as snp
from torch_numpy_shim._half_scan import sequential_scan

FUNCTIONS = ["cumsum", "cumprod", "nancumsum", "nancumprod"]


def _same_bits(expected, got):
    got = snp.to_numpy(got)
    assert type(got) is type(expected) and got.dtype == expected.dtype and got.shape == expected.shape
    assert numpy.array_equal(got.view(numpy.uint16), expected.view(numpy.uint16)), \
        f"{numpy.count_nonzero(got.view(numpy.uint16) != expected.view(numpy.uint16))} of {expected.size} differ"


def _inputs(seed):
    """float16 arrays of many lengths (0 and 1 too), 2-D and 3-D, with NaNs, infs,
    values near overflow, and strided / reversed views."""
    rng = numpy.random.default_rng(seed)
    out = [numpy.full(1000, 1.1, numpy.float16), numpy.zeros(0, numpy.float16), numpy.ones(1, numpy.float16)]
    for n in (2, 3, 7, 8, 9, 16, 17, 100, 257, 1000, 5000):
        out.append(rng.standard_normal(n).astype(numpy.float16))
    out.append((rng.standard_normal(1000) * 300).astype(numpy.float16))       # overflows
    out.append(numpy.where(rng.random(300) < 0.1, numpy.nan, rng.random(300) + 0.6).astype(numpy.float16))
    big = rng.standard_normal((6, 50, 9)).astype(numpy.float16)
    out += [big, big[:, ::-3], big.transpose(2, 0, 1), big[::2, 5:, ::-1]]
    return out


@pytest.mark.parametrize("name", FUNCTIONS)
def test_scans_round_every_step_as_numpy(name):
    for a in _inputs(0):
        for axis in [None, *range(a.ndim), -1]:
            with numpy.errstate(all="ignore"):
                expected = getattr(numpy, name)(a, axis=axis)
                _same_bits(expected, getattr(snp, name)(snp.asarray(a), axis=axis))


def test_a_thousand_tenths_stall_as_in_numpy():
    got = snp.cumsum(snp.asarray(numpy.full(1000, 1.1, numpy.float16)))
    assert float(got[-1]) == 1027.0


@pytest.mark.parametrize("source", [numpy.float32, numpy.float64, numpy.int32, numpy.bool_])
@pytest.mark.parametrize("product", [False, True])
def test_float16_dtype_of_other_inputs(source, product):
    """NumPy casts to float16 itself (float64 rounded once, not through float32)."""
    rng = numpy.random.default_rng(1)
    a = (rng.standard_normal((40, 30)) * 3).astype(source)
    if source is numpy.float64:
        a[0, :2] = 1 + 2.0 ** -11 + 2.0 ** -40   # float64 -> float16 differs from a float32 route
    name = "cumprod" if product else "cumsum"
    for axis in (None, 0, 1):
        with numpy.errstate(all="ignore"):
            expected = getattr(numpy, name)(a, axis=axis, dtype=numpy.float16)
            _same_bits(expected, getattr(snp, name)(snp.asarray(a), axis=axis, dtype=snp.float16))


def test_out_and_cumulative_sum():
    a = numpy.random.default_rng(2).standard_normal((20, 70)).astype(numpy.float16)
    expected, out = numpy.empty_like(a), snp.empty((20, 70), snp.float16)
    numpy.cumsum(a, axis=1, out=expected)
    assert snp.cumsum(snp.asarray(a), axis=1, out=out) is out
    _same_bits(expected, out)
    wide_expected, wide = numpy.empty((20, 70)), snp.empty((20, 70))   # float16 loop, float64 out
    numpy.cumsum(a, axis=0, dtype=numpy.float16, out=wide_expected)
    snp.cumsum(snp.asarray(a), axis=0, dtype=snp.float16, out=wide)
    assert numpy.array_equal(numpy.asarray(wide), wide_expected)
    _same_bits(numpy.cumulative_sum(a, axis=0, include_initial=True),
               snp.cumulative_sum(snp.asarray(a), axis=0, include_initial=True))
    _same_bits(numpy.cumulative_prod(a[0]), snp.cumulative_prod(snp.asarray(a[0])))


def test_overflow_warns_as_numpy():
    a = numpy.full(10, 30000, numpy.float16)
    with pytest.warns(RuntimeWarning, match="overflow encountered in accumulate"):
        got = snp.cumsum(snp.asarray(a))
    with numpy.errstate(all="ignore"):
        _same_bits(numpy.cumsum(a), got)


@pytest.mark.parametrize("product", [False, True])
def test_sequential_scan_is_numpy_bit_for_bit(product):
    """The route other devices take, run here on CPU tensors."""
    rng = numpy.random.default_rng(3)
    for a in [(rng.standard_normal((5, 300)) * (1.02 if product else 1)).astype(numpy.float16),
              numpy.zeros((0, 4), numpy.float16), numpy.full((3, 1000), 1.1, numpy.float16)]:
        for axis in range(a.ndim):
            with numpy.errstate(all="ignore"):
                expected = (numpy.cumprod if product else numpy.cumsum)(a, axis=axis)
            _same_bits(expected, snp.asarray(sequential_scan(torch.from_numpy(a), axis, product)))
