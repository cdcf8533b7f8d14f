"""np.exp of complex special values (signed zeros, infinities, NaN, overflow and underflow
edges) as NumPy gives them, bit for bit in the signs, through the complex lowering."""
import numpy as np
import pytest

import npcompile

_PARTS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 710.0, -745.0, np.pi / 2, 88.0, -104.0]


def _same(expected, actual, dtype):
    if np.isnan(expected):
        return bool(np.isnan(actual))
    if not np.isfinite(expected) or expected == 0:
        return expected == actual and np.signbit(expected) == np.signbit(actual)
    return abs(expected - actual) <= 4 * np.finfo(dtype).eps * abs(expected)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_exp_of_special_values_matches_numpy(backend, dtype):
    z = np.array([complex(re, im) for re in _PARTS for im in _PARTS], dtype=dtype)
    with np.errstate(all="ignore"):
        expected = np.exp(z)
        actual = npcompile.jit(lambda z: np.exp(z), backend=backend)(z)
    assert actual.dtype == expected.dtype
    wrong = [(z[i], expected[i], actual[i]) for i in range(z.size)
             if not (_same(expected[i].real, actual[i].real, dtype) and _same(expected[i].imag, actual[i].imag, dtype))]
    assert wrong == []
