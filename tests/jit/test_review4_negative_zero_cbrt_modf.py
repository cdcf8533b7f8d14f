"""Signed zeros lost by two shim kernels (eager shim and jit, every backend):
np.cbrt(-0.0) is -0.0 in NumPy, 0.0 here (sign(x) * |x|**(1/3): sign(-0.0) is 0);
np.modf(-0.0)'s fractional part is -0.0 in NumPy, 0.0 here; float16
np.nextafter(-0.0, 0.0) is -0.0 in NumPy, 0.0 here.
Responsible: torch_numpy_shim/_ufunc_kernels.py cbrt (copysign instead of sign *)
and the modf / float16 nextafter kernels."""
import warnings

import numpy as np
import pytest

import npcompile
import torch_numpy_shim as tnp

CASES = {
    "cbrt": lambda a: np.cbrt(a),
    "modf_fraction": lambda a: np.modf(a)[0],
    "nextafter_f16": lambda a: np.nextafter(a.astype(np.float16), np.float16(0)),
}


def _check(result, expected):
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(np.signbit(result), np.signbit(expected))


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_negative_zero_jit(name, backend):
    x = np.array([-0.0, 0.0, -8.0])
    expected = CASES[name](x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = npcompile.jit(CASES[name], backend=backend)(x)
    _check(result, expected)


def test_negative_zero_debug_mode():
    _check(np.asarray(tnp.cbrt(tnp.array([-0.0])).tolist()), np.cbrt(np.array([-0.0])))
    _check(np.asarray(tnp.modf(tnp.array([-0.0]))[0].tolist()), np.modf(np.array([-0.0]))[0])


SIGNED = [-0.0, 0.0, -2.0, 2.0, -8.0, -np.inf, np.inf, np.nan, -1e-310]
SIGNED_KERNELS = {
    "cbrt": (lambda xp, a: xp.cbrt(a), SIGNED),
    "modf_fraction": (lambda xp, a: xp.modf(a)[0], SIGNED + [-0.5, 2.5, -2.5]),
    "modf_whole": (lambda xp, a: xp.modf(a)[1], SIGNED + [-0.5, 2.5, -2.5]),
}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(SIGNED_KERNELS))
def test_signs_of_results_debug_mode(name, dtype):
    """Every part carries NumPy's sign: modf(-2.0) is (-0.0, -2.0), not +0.0."""
    fn, values = SIGNED_KERNELS[name]
    x = np.array(values, dtype)
    with np.errstate(all="ignore"):
        expected = fn(np, x)
    _check(np.asarray(tnp.asarray(fn(tnp, tnp.asarray(x))).tolist(), expected.dtype), expected)


HALF = [0.0, -0.0, 1.0, -1.0, 65504.0, -65504.0, np.inf, -np.inf, np.nan, 6e-8, -6e-8, -2.0]
HALF_X, HALF_Y = (np.array(v, np.float16) for v in zip(*[(a, b) for a in HALF for b in HALF]))


def _half_nextafter(x, y):
    return np.nextafter(x, y)


@pytest.mark.parametrize("mode", ["debug", "eager", "inductor"])
def test_float16_nextafter_table(mode):
    """NumPy's half loop, bit for bit: x == y gives x (C's nextafter gives y), a zero
    steps to the smallest subnormal of y's sign, NaN gives +NaN, 65504 steps to inf."""
    with np.errstate(all="ignore"):
        expected = _half_nextafter(HALF_X, HALF_Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mode == "debug":
            result = np.asarray(tnp.nextafter(tnp.asarray(HALF_X), tnp.asarray(HALF_Y)))   # bits kept
        else:
            result = npcompile.jit(_half_nextafter, backend=mode)(HALF_X, HALF_Y)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result.view(np.uint16), expected.view(np.uint16))


def _same_out(xp, name, x, out_dtype, extra):
    a = xp.zeros(x.shape, out_dtype)
    getattr(xp, name)(x, *extra, out=(a, a))
    return a


OUT_CASES = [(name, dtype, out_dtype) for name in ("modf", "divmod")
             for dtype in (np.float16, np.float32, np.float64)
             for out_dtype in dict.fromkeys((dtype, np.float32))]   # same dtype, or a cast


@pytest.mark.parametrize("name, dtype, out_dtype", OUT_CASES)
def test_both_outputs_into_one_array_debug_mode(name, dtype, out_dtype):
    """out=(a, a) keeps what NumPy writes last: the fraction / quotient for float32/64
    (float16 divmod too), the whole part for float16 modf and for a cast output."""
    x, extra = np.array([7.5, -9.25, 5.0], dtype), ((2.0,) if name == "divmod" else ())
    expected = _same_out(np, name, x, out_dtype, extra)
    result = _same_out(tnp, name, tnp.asarray(x), out_dtype, extra)
    _check(np.asarray(result.tolist(), expected.dtype), expected)


def test_integer_divmod_into_one_array_keeps_remainder():
    x = np.array([7, -9, 5])
    _check(np.asarray(_same_out(tnp, "divmod", tnp.asarray(x), np.int64, (2,)).tolist()),
           _same_out(np, "divmod", x, np.int64, (2,)))


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_modf_into_one_array_jit(backend):
    def modf_into(x, a):
        np.modf(x, out=(a, a))
        return a
    x = np.array([7.5, -9.25, 5.0])
    expected = modf_into(x, np.zeros(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = npcompile.jit(modf_into, backend=backend)(x, np.zeros(3))
    _check(result, expected)
