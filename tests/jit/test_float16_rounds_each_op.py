"""Found by review (issue 13). NumPy rounds every float16 ufunc's result to float16; Inductor fuses a chain of
float16 ops into one kernel computing in float32 and rounds only the end, so values
that overflow or cancel in float16 come out finite: 100 * 1000 / 1000 is inf in NumPy
and 100 here, (1 + 2048) - 2048 is 0 in NumPy and 1 here, exp(12) / exp(12) is nan in
NumPy and 1 here. Not a last-bit difference. (Inductor's
``config.emulate_precision_casts`` rounds each intermediate as eager torch does.)"""
import warnings

import numpy as np
import pytest

import npcompile


def overflow_then_back(a):
    return a * np.float16(1000) / np.float16(1000)


def cancel(a, b):
    return (a + b) - b


def inf_over_inf(a):
    return np.exp(a) / np.exp(a)


def std_of_constant(a):
    return np.std(a)   # NumPy: the float16 mean is exact for equal values, std 0.0; Inductor 0.000244


CASES = [(std_of_constant, lambda: (np.full(3000, 1.1, np.float16),)),
         (overflow_then_back, lambda: (np.full(4, 100, np.float16),)),
         (cancel, lambda: (np.ones(4, np.float16), np.full(4, 2048, np.float16))),
         (inf_over_inf, lambda: (np.full(4, 12, np.float16),))]


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn, make", CASES)
def test_float16_chain_rounds_each_op(fn, make, backend):
    with np.errstate(all="ignore"):
        expected = fn(*make())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = npcompile.jit(fn, backend=backend)(*make())
    assert result.dtype == expected.dtype == np.float16
    np.testing.assert_array_equal(result, expected)
