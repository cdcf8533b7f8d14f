"""Differential tests of numpy.fft against the shim: result dtypes (NumPy 2: single
precision in, single precision out), shapes, values, normalization modes, ``out=``,
n-D transforms with ``s``/``axes`` and NumPy's errors.

Transforms sum many terms in an order neither library promises, so values are compared
with an absolute tolerance scaled by the input's magnitude.
"""
import math
import warnings

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch_numpy_shim as shim
from tests.oracle import SUPPORTED_DTYPES, check, finite_elements

ALL = [d.name for d in SUPPORTED_DTYPES]
NORMS = [None, "backward", "ortho", "forward"]


def bounded_values(dtype):
    return finite_elements(dtype, bound=100)


def signals(min_dims=1, max_dims=3, min_side=1, dtypes=ALL):
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=5)
    return st.sampled_from(dtypes).flatmap(lambda d: hnp.arrays(d, shapes, elements=bounded_values(d)))


def tolerance(x, n_factor=1):
    """Absolute tolerance from the precision NumPy transforms ``x`` in and its size."""
    single = numpy.dtype(x.dtype).name in ("float16", "float32", "complex64")
    eps = 1e-5 if single else 1e-12
    magnitude = float(numpy.sum(numpy.abs(x.astype(numpy.complex128)))) + 1.0
    return dict(rtol=1e-4 if single else 1e-9, atol=eps * magnitude * n_factor)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]


@given(signals(), st.sampled_from(ONE_D), st.sampled_from([None, 1, 2, 5, 8]), st.sampled_from([-1, 0]),
       st.sampled_from(NORMS))
def test_one_dimensional_transforms(x, name, n, axis, norm):
    fn = lambda xp, x: getattr(xp.fft, name)(x, n, axis, norm)
    check(fn, x, **tolerance(x, 10))


@given(signals(dtypes=["float32", "complex128", "int16"]), st.sampled_from(ONE_D))
def test_positional_defaults(x, name):
    check(lambda xp, x: getattr(xp.fft, name)(x), x, **tolerance(x, 10))


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("args", [
    dict(n=0), dict(n=-2), dict(axis=3), dict(norm="bogus"), dict(), dict(n=1),
])
@pytest.mark.parametrize("shape", [(0,), (), (3,), (1,)])
def test_one_dimensional_errors_and_edges(name, args, shape):
    x = numpy.arange(math.prod(shape), dtype=float).reshape(shape) + 1
    check(lambda xp, x: getattr(xp.fft, name)(x, **args), x, **tolerance(x, 10))


@pytest.mark.parametrize("name", ["rfft", "ihfft"])
def test_real_transforms_reject_complex_input(name):
    check(lambda xp, x: getattr(xp.fft, name)(x), numpy.ones(4, complex))


@pytest.mark.parametrize("name,out_dtype,out_shape", [
    ("fft", "complex128", (3, 4)), ("fft", "complex64", (3, 4)), ("fft", "float64", (3, 4)),
    ("fft", "complex128", (3, 5)), ("fft", "complex128", (4,)), ("ifft", "complex128", (3, 4)),
    ("rfft", "complex128", (3, 3)), ("rfft", "complex128", (3, 4)), ("irfft", "float64", (3, 6)),
    ("irfft", "float32", (3, 6)), ("irfft", "complex128", (3, 6)), ("ihfft", "complex128", (3, 3)),
    ("hfft", "float64", (3, 6)), ("fftn", "complex128", (3, 4)), ("fft2", "complex128", (3, 4)),
    ("ifft2", "complex64", (3, 4)), ("rfftn", "complex128", (3, 3)), ("irfft2", "float64", (3, 6)),
    ("irfftn", "float64", (3, 6)), ("rfft", "complex64", (3, 3)),
])
def test_out(name, out_dtype, out_shape):
    def fn(xp, x):
        out = xp.zeros(out_shape, out_dtype)
        result = getattr(xp.fft, name)(x, out=out)
        return result, out, result is out
    x = numpy.arange(12.0).reshape(3, 4) - 5
    check(fn, x, **tolerance(x, 10))


ND = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]


@given(signals(min_dims=2), st.sampled_from(ND), st.sampled_from(NORMS), st.data())
def test_n_dimensional_transforms(x, name, norm, data):
    axes = data.draw(st.sampled_from([None, (0,), (-1, 0), (0, 1), (1, 1), (-2, -1)]))
    s = data.draw(st.sampled_from([None, "matching"]))
    if s == "matching":
        count = len(axes) if axes is not None else (2 if name.endswith("2") else x.ndim)
        s = data.draw(st.lists(st.sampled_from([1, 2, 3, 4, -1]), min_size=count, max_size=count))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        kwargs = {"norm": norm} if axes is None else {"axes": axes, "norm": norm}
        check(lambda xp, x: getattr(xp.fft, name)(x, s, **kwargs), x, **tolerance(x, 40))


@pytest.mark.parametrize("name", ND)
@pytest.mark.parametrize("kwargs", [
    dict(s=(2, 3), axes=(0,)), dict(s=(0, 2), axes=(0, 1)), dict(axes=(0, 5)), dict(s=(4,)),
    dict(s=(None, 4), axes=(0, 1)), dict(axes=()), dict(s=(3, 2, 4), axes=(0, 1, 1)), dict(norm="x"),
])
def test_n_dimensional_edges_and_errors(name, kwargs):
    x = (numpy.arange(12.0).reshape(3, 4) - 5) * (1 + 0.5j)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(lambda xp, x: getattr(xp.fft, name)(x, **kwargs), x, **tolerance(x, 40))


def test_deprecated_s_without_axes_warns_like_numpy():
    with pytest.warns(DeprecationWarning):
        shim.fft.fftn(shim.ones((2, 2)), s=(2, 2))
    with pytest.warns(DeprecationWarning):
        shim.fft.fftn(shim.ones((2, 2)), s=(None, 2), axes=(0, 1))


@pytest.mark.parametrize("n", [1, 2, 5, 8, 0, -1, 4.0, numpy.int8(6), True])
@pytest.mark.parametrize("d", [1.0, 0.25, 3, numpy.float32(0.1), numpy.float64(2), [1.0, 2.0]])
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies(n, d, name):
    d = numpy.asarray(d) if isinstance(d, list) else d
    fn = lambda xp: getattr(xp.fft, name)(n, xp.asarray(d) if isinstance(d, numpy.ndarray) else d)
    check(fn)


@given(st.sampled_from(ALL).flatmap(lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))),
       st.data())
def test_shifts(x, data):
    axes = data.draw(st.sampled_from([None] + ([0, -1, (0,), (-1, 0), (0, 0)] if x.ndim else [])))
    check(lambda xp, x: xp.fft.fftshift(x, axes), x)
    check(lambda xp, x: xp.fft.ifftshift(x, axes), x)
    check(lambda xp, x: xp.fft.ifftshift(xp.fft.fftshift(x, axes), axes), x)


def test_shift_axis_errors():
    check(lambda xp, x: xp.fft.fftshift(x, 3), numpy.ones((2, 3)))
    check(lambda xp, x: xp.fft.ifftshift(x, (0, 4)), numpy.ones((2, 3)))


@pytest.mark.parametrize("dtype,expected", [
    ("float16", "complex64"), ("float32", "complex64"), ("complex64", "complex64"), ("float64", "complex128"),
    ("int8", "complex128"), ("bool", "complex128"), ("uint64", "complex128"), ("complex128", "complex128"),
])
def test_precision_follows_numpy_2(dtype, expected):
    x = shim.asarray(numpy.ones(4, dtype))
    assert shim.fft.fft(x).dtype == expected
    assert shim.fft.irfft(x).dtype == numpy.fft.irfft(numpy.ones(4, dtype)).dtype
    assert shim.fft.hfft(x).dtype == numpy.fft.hfft(numpy.ones(4, dtype)).dtype
