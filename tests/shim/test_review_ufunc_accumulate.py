"""Review: ``np.add.accumulate`` / ``np.multiply.accumulate`` /
``np.multiply.reduce`` take the shim's ufunc-method path, which the new NumPy-order
check (_product_order, used by np.cumsum/np.cumprod/np.prod) does not cover."""
import warnings

import numpy as np
import pytest

import torch_numpy_shim as shim
from tests.oracle import assert_same

F32_SUMS = np.array([3e38, 3e38, -3e38], np.float32)       # NumPy: inf, then inf - 3e38 = inf
F32_PRODUCTS = np.array([1e20, 1e20, 0.0], np.float32)     # NumPy: inf, then inf * 0 = nan
F64_PRODUCTS = np.array([1e300, 1e300, 0.0])


def outcome(module, fn, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(module, module.asarray(x.copy()) if module is shim else x.copy())
    return result, sorted({str(w.message) for w in caught if w.category is RuntimeWarning})


@pytest.mark.parametrize("fn, x", [
    (lambda m, a: m.add.accumulate(a), F32_SUMS),
    (lambda m, a: m.multiply.accumulate(a), F32_PRODUCTS),
    (lambda m, a: m.multiply.reduce(a), F64_PRODUCTS),
], ids=["add.accumulate", "multiply.accumulate", "multiply.reduce"])
def test_ufunc_methods_step_in_numpys_order(fn, x):
    expected, np_warnings = outcome(np, fn, x)
    actual, shim_warnings = outcome(shim, fn, x)
    assert_same(expected, shim.to_numpy(actual) if isinstance(actual, shim.ndarray) else actual)
    assert np.array_equal(np.isnan(expected), np.isnan(np.asarray(actual)))
    assert shim_warnings == np_warnings
