"""Complex np.sign and complex ** complex never compile: the shim's kernels make
``torch.full((), complex(nan, nan))``, which FX prints as ``(nan+nanj)`` in the graph's
code, so every backend fails with NameError: name 'nanj' is not defined, FX prints a
traceback, and the call runs uncompiled after one warning (two under Inductor).
Responsible: torch_numpy_shim/_ufunc_kernels.py _complex_sign / _complex_power (and
_statistics.py's complex NaN fills)."""
import warnings

import numpy as np
import pytest

import npcompile


def sign(z):
    return np.sign(z)


def complex_power(z):
    return z ** (0.5 + 1j)


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
@pytest.mark.parametrize("fn", [sign, complex_power])
def test_complex_kernel_compiles(fn, backend):
    z = np.array([1 + 2j, 3 - 1j, 0j, complex(np.inf, 1)])
    with np.errstate(all="ignore"):
        expected = fn(z)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="ignore"):
            result = npcompile.jit(fn, backend=backend)(z)
    np.testing.assert_allclose(result, expected, rtol=1e-12)
    assert [str(w.message) for w in caught if "npcompile" in str(w.message)] == []


def nanmedian_rows(z):
    return np.nanmedian(z, axis=1)


def median_rows(z):
    return np.median(z, axis=1)


def nanmedian_columns(z):
    return np.nanmedian(z, axis=0)


STATISTICS = [
    (nanmedian_rows, np.zeros((3, 0), complex)),   # empty slices: nan+nanj
    (median_rows, np.zeros((3, 0), complex)),
    (nanmedian_columns, np.array([[np.nan, 1 + 1j], [complex(np.nan, 0), 2j], [np.nan, 3]])),
]


@pytest.mark.parametrize("fn, z", STATISTICS, ids=[fn.__name__ for fn, _ in STATISTICS])
def test_complex_nan_statistics_compile(fn, z):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="ignore"):
            expected = fn(z)
            result = npcompile.jit(fn, backend="eager")(z)
    assert type(result) is type(expected) and result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)
    assert [str(w.message) for w in caught if "npcompile" in str(w.message)] == []
