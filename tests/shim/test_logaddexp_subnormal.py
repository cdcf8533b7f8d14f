"""logaddexp/logaddexp2 of operands far apart give NumPy's subnormal result, not 0:
torch's CPU log1p flushes a subnormal float32 to 0 (a hypothesis draw found
logaddexp(False, int16 -103) -> float32 0.0, NumPy 1e-45); the kernel uses the shim's
log1p, which returns x itself where log1p(x) rounds to x."""
import numpy as np
import pytest

import torch_numpy_shim as tnp


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_far_apart_operands(name, dtype):
    a = np.array([0, 0, 5, -3, 0, 1, 0], dtype)
    b = np.array([-103, -745, -110, 1, -150, -1e4, -148], dtype)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(a, b)
        got = np.asarray(getattr(tnp, name)(tnp.asarray(a), tnp.asarray(b)))
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_the_drawn_case():
    expected = np.logaddexp(np.False_, np.int16(-103))
    got = tnp.logaddexp(tnp.asarray(False), tnp.asarray(np.int16(-103)))
    assert got == expected and got.dtype == expected.dtype
