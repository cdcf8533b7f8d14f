"""np.reciprocal of complex takes torch.reciprocal, not NumPy's Smith-form loop
(which 1 / z already follows): reciprocal(inf+0j) is 0-0j in NumPy, 0+0j here;
reciprocal(0j) and reciprocal(-0+0j) are nan+nanj in NumPy, inf+nanj here.
Responsible: torch_numpy_shim/_ufunc_kernels.py reciprocal."""
import warnings

import numpy as np
import pytest

import npcompile
import torch_numpy_shim as tnp

Z = [complex(np.inf, 0), 0j, complex(-0.0, 0.0), complex(np.inf, -np.inf), 2 + 2j]


def reciprocal(z):
    return np.reciprocal(z)


def _bits(a):
    return np.asarray(a, np.complex128).view(np.float64)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_jit_complex_reciprocal(backend):
    z = np.array(Z)
    with np.errstate(all="ignore"):
        expected = reciprocal(z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = npcompile.jit(reciprocal, backend=backend)(z)
    np.testing.assert_array_equal(np.signbit(_bits(result)), np.signbit(_bits(expected)))
    np.testing.assert_array_equal(_bits(result), _bits(expected))


def test_debug_mode_complex_reciprocal():
    with np.errstate(all="ignore"):
        expected = np.reciprocal(np.array(Z))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = tnp.asarray(tnp.reciprocal(tnp.array(Z))).tolist()
    np.testing.assert_array_equal(_bits(np.array(result)), _bits(expected))
    np.testing.assert_array_equal(np.signbit(_bits(np.array(result))), np.signbit(_bits(expected)))


SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan]
TABLE = [complex(a, b) for a in SPECIAL for b in SPECIAL]


def _part_bits(a, dtype):
    return np.asarray(a, dtype).view(np.float32 if dtype == np.complex64 else np.float64)


@pytest.mark.parametrize("mode", ["debug", "jit"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_reciprocal_table(dtype, mode):
    """Every pair of {0, -0, 1, -1, inf, -inf, nan} as (real, imag): parts bit for bit,
    zero and NaN signs included (NumPy's loop is not its division: 1/0j is inf+nanj)."""
    z = np.array(TABLE, dtype)
    with np.errstate(all="ignore"):
        expected = np.reciprocal(z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mode == "jit":
            result = npcompile.jit(reciprocal, backend="eager")(z)
        else:
            result = np.asarray(tnp.asarray(tnp.reciprocal(tnp.asarray(z))).tolist(), dtype)
    assert result.dtype == expected.dtype
    got, want = _part_bits(result, dtype), _part_bits(expected, dtype)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
