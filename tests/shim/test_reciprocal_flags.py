"""np.reciprocal reports what NumPy 2.4 reports, in debug mode: nothing for a real NaN
or inf, 'divide by zero' for 0 (ints too), and for complex inputs 'invalid' wherever a
part is NaN (NumPy's loop compares |re| with |im|) or the result is a new NaN (0j,
inf+infj)."""
import warnings

import numpy as np
import pytest

import torch_numpy_shim as tnp

NAN, INF = np.nan, np.inf
CASES = [
    np.array([NAN]), np.array([INF, -INF]), np.array([0.0]), np.array([-0.0]), np.float64(NAN),
    np.array([NAN, 0.0], np.float32), np.array([NAN, INF], np.float16), np.array([0, 1, 2]),
    np.array([0, 3], np.uint8), np.array([-1, 1], np.int8),
    np.array([complex(NAN, 0)]), np.array([complex(0, NAN)], np.complex64), np.array([complex(INF, NAN)]),
    np.array([complex(INF, INF)]), np.array([complex(1, 2), complex(INF, 0)]), np.array([0j]),
    np.array([complex(1, 2), complex(NAN, 1)]),
]


def _run(xp, x, mode):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with np.errstate(all=mode):
                result = np.asarray(xp.reciprocal(xp.asarray(x)))
        except FloatingPointError as e:
            return str(e), []
    return result, [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("mode", ["warn", "raise"])
@pytest.mark.parametrize("x", CASES, ids=repr)
def test_reports_as_numpy(x, mode):
    expected, expected_warnings = _run(np, x, mode)
    got, got_warnings = _run(tnp, x, mode)
    assert got_warnings == expected_warnings
    if isinstance(expected, str):
        assert got == expected
    else:
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
