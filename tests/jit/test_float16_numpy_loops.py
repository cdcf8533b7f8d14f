"""float16 running sums and products, and sums and products across the memory's inner
axis, under npcompile.jit are NumPy's bit for bit (every partial result rounded to
float16), compiled as one graph: each is one op of it (``torch_numpy_shim::
half_accumulate``/``half_reduce``, NumPy's loop on the CPU), under the eager backend and
Inductor, on the first call and on calls of the compiled code."""
import warnings

import numpy as np
import pytest

import npcompile


def cumsum_rows(a):
    return np.cumsum(a, axis=1) * 2


def cumprod_flat(a):
    return np.cumprod(a + 0.5)


def nancumsum_cols(a):
    return np.nancumsum(a[::-1], axis=0)


def cumsum_as_half(a):
    return np.cumsum(a, axis=0, dtype=np.float16)


def cumsum_into(a, out):
    np.cumsum(a, axis=-1, out=out)
    return out


def sum_columns(a):
    return (a * 3).sum(axis=0)[:20] + np.prod(a[:, :20] / 8 + 1, axis=0)


def sum_of_transposed(a):
    return np.nansum(a.T, axis=1)


def masked_sums(a):
    return np.sum(a, axis=0, where=a > -1), np.nansum(a, axis=1, initial=2.5), np.nanmean(a, axis=1)


def _inputs(fn):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((9, 400)).astype(np.float16)
    if fn is cumsum_as_half:
        return (rng.standard_normal((300, 3)) * 2,)
    if fn in (nancumsum_cols, sum_of_transposed, masked_sums):
        a[rng.random(a.shape) < 0.1] = np.nan
    if fn is cumprod_flat:
        a = a[:2, :300]
    if fn is cumsum_into:
        return a, np.empty_like(a)
    return (a,)


def _assert_bits(expected, got):
    assert type(got) is type(expected)
    if isinstance(expected, tuple):
        for e, g in zip(expected, got):
            _assert_bits(e, g)
        return
    expected, got = np.asarray(expected), np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(expected))


def _check(fn, backend):
    args = _inputs(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected_args = [a.copy() for a in args]
        expected = fn(*expected_args)
        jitted = npcompile.jit(fn, backend=backend)
        for _ in range(2):   # the compiling call, then the compiled code
            got_args = [a.copy() for a in args]
            _assert_bits(expected, jitted(*got_args))
            for e, g in zip(expected_args, got_args):
                _assert_bits(e, g)
        assert npcompile.explain(jitted)(*[a.copy() for a in args]).graph_break_count == 0


@pytest.mark.parametrize("fn", [cumsum_rows, cumprod_flat, nancumsum_cols, cumsum_as_half, cumsum_into,
                                sum_columns, sum_of_transposed, masked_sums],
                         ids=lambda f: f.__name__)
def test_scans_under_the_eager_backend(fn):
    _check(fn, "eager")


@pytest.mark.inductor
@pytest.mark.parametrize("fn", [cumsum_rows, nancumsum_cols, sum_columns, sum_of_transposed, masked_sums],
                         ids=lambda f: f.__name__)
def test_scans_under_inductor(fn):
    _check(fn, "inductor")


def test_the_thousand_tenths_stall_when_compiled():
    jitted = npcompile.jit(lambda a: np.cumsum(a)[-1], backend="eager")
    a = np.full(1000, 1.1, np.float16)
    assert jitted(a) == np.float16(1027) and jitted(a) == np.cumsum(a)[-1]
