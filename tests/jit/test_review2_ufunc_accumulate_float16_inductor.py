"""Review2: np.add.accumulate / np.multiply.accumulate of float16 under
Inductor are not NumPy's: _ufunc_kernels.fast_accumulate returns None for float16, so
ufunc._accumulate unrolls one float16 add per index (rounded per step in the eager
shim and the eager backend, correct there), and Inductor fuses the chain and keeps the
running value in float32 (emulate_precision_casts is off): 300 values of 1.1 end at
329.8 where NumPy stalls at 327.0, and the first call takes ~30 s (300 unrolled steps).
np.cumsum of the same data is right (_half_scan.half_accumulate, one extern op)."""
import numpy as np
import pytest

import npcompile


def add_accumulate_rows(a):
    return np.add.accumulate(a, axis=1)


@pytest.mark.inductor
def test_float16_add_accumulate_under_inductor_is_numpys():
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((2, 48)) * 10 + 1.1).astype(np.float16)
    expected = add_accumulate_rows(a)
    got = npcompile.jit(add_accumulate_rows, backend="inductor")(a.copy())
    assert got.dtype == np.float16 and got.shape == expected.shape
    differ = np.count_nonzero(got.view(np.uint16) != expected.view(np.uint16))
    assert differ == 0, f"{differ} of {a.size} differ"
