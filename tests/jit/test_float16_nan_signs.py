"""float16 NaN results keep NumPy's sign bit (compared as uint16 bit patterns): NumPy's
half loops convert to float32 and back keeping a NaN's sign and payload, where torch's
conversions make every NaN 0x7fff; maximum/minimum answer the NaN operand. In
debug mode and under npcompile.jit (eager backend and Inductor)."""
import types
import warnings

import numpy as np
import pytest

import npcompile

# one NaN operand at a time: which of two NaNs x86 code returns is the compiler's choice,
# and a NaN made by an invalid operation (sqrt(-1)) has the hardware's sign, not NumPy's
NAN = np.array([np.nan, -np.nan, 1.0, -0.0, 4.0], np.float16)
OTHER = np.array([-1.0, 2.0, -np.nan, np.nan, -2.0], np.float16)

UNARY = ["negative", "positive", "absolute", "fabs", "sign", "square", "sqrt", "exp", "floor",
         "rint", "reciprocal", "log", "sin", "cbrt", "conjugate"]
BINARY = ["add", "subtract", "multiply", "divide", "copysign", "maximum", "minimum", "hypot",
          "arctan2", "fmod", "remainder", "power", "fmax"]


def _bits(a):
    a = np.asarray(a)
    assert a.dtype == np.float16
    return a.view(np.uint16).tolist()


def _numpy(fn, *args):
    with np.errstate(all="ignore"):
        return fn(*args)


def _shim(fn, *args):
    import torch_numpy_shim as tnp
    debug = types.FunctionType(fn.__code__, {**fn.__globals__, "np": tnp})
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return debug(*args)


@pytest.mark.parametrize("name", UNARY)
def test_unary_debug_mode(name):
    fn = eval(f"lambda a: np.{name}(a)")
    assert _bits(_shim(fn, NAN)) == _bits(_numpy(fn, NAN))


@pytest.mark.parametrize("name", BINARY)
def test_binary_debug_mode(name):
    fn = eval(f"lambda a, b: np.{name}(a, b)")
    assert _bits(_shim(fn, NAN, OTHER)) == _bits(_numpy(fn, NAN, OTHER))
    assert _bits(_shim(fn, OTHER, NAN)) == _bits(_numpy(fn, OTHER, NAN))


def signs(a, b):
    return np.negative(a) * 1, np.copysign(np.abs(a), b), np.sqrt(a) + b, np.maximum(a, b) - 0


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
def test_jit(backend):
    expected = _numpy(signs, NAN, OTHER)
    jitted = npcompile.jit(signs, backend=backend)
    for _ in range(2):   # the compiling call, then the compiled code
        got = _numpy(jitted, NAN, OTHER)
        assert [_bits(g) for g in got] == [_bits(e) for e in expected]
