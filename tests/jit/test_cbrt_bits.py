"""np.cbrt is NumPy's bit for bit: in debug mode and under npcompile.jit (eager backend
and Inductor), for float16/float32/float64 and integer inputs, in any layout. NumPy's
loops (SVML's on AVX-512, libm's for float16) are not correctly rounded, so no torch
formula matches them; the shim runs NumPy's loop on the tensor (``_numpy_loops``)."""
import warnings

import numpy as np
import pytest

import npcompile
import torch_numpy_shim as tnp


def _inputs(dtype):
    rng = np.random.default_rng(7)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-10 ** 9, 10 ** 9, 4000).astype(dtype)
    x = rng.standard_normal(4000) * 10.0 ** rng.integers(-6, 5, 4000)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan]
    return x.astype(dtype)


def _assert_bits(expected, got):
    expected, got = np.asarray(expected), np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[expected.itemsize]
    assert np.array_equal(got.view(width), expected.view(width))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
def test_debug_mode_matches_numpy_bits(dtype):
    x = _inputs(dtype)
    _assert_bits(np.cbrt(x), tnp.cbrt(tnp.asarray(x)))


def test_debug_mode_layouts_and_out():
    x = _inputs(np.float64).reshape(40, 100)
    for view in (x.T, x[::3, ::-2], np.asfortranarray(x)):
        got = tnp.cbrt(tnp.asarray(view))
        _assert_bits(np.cbrt(view), got)
        assert np.asarray(got).strides == np.cbrt(view).strides
    out = np.empty((100, 40), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tnp.cbrt(x.T, out=out, casting="unsafe")
    _assert_bits(np.cbrt(x.T).astype(np.float32), out)


def fused(a):
    return np.cbrt(a * 2) + 1


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_jit_matches_numpy_bits(backend, dtype):
    x = _inputs(dtype)
    jitted = npcompile.jit(fused, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = fused(x)
        for _ in range(2):   # the compiling call, then the compiled code
            _assert_bits(expected, jitted(x))
    assert npcompile.explain(jitted)(x).graph_break_count == 0
