"""A NumPy scalar times a Python sequence repeats the sequence (by ``__index__``), as a
Python int would; non-integer scalars raise Python's TypeError. Debug mode hands NumPy's
own scalars out, so this checks the shim's scalars (0-d arrays flagged ``_scalar``) as
jitted code holds them, against NumPy's."""
import numpy
import pytest

import torch_numpy_shim as tnp
from torch_numpy_shim._coerce import asarray

SEQUENCES = [[0, 1], (1.5,), "ab", b"x", bytearray(b"yz")]
SCALARS = [numpy.int64(2), numpy.uint8(3), numpy.int8(-1), numpy.bool_(True), numpy.float64(2.0),
           numpy.complex128(2), numpy.float32(1.0)]


def _shim_scalar(value):
    scalar = asarray(value)
    scalar._scalar = True
    return scalar


def _outcome(fn):
    try:
        result = fn()
    except TypeError as error:
        return "TypeError", str(error)
    return type(result), result


@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("sequence", SEQUENCES, ids=lambda s: type(s).__name__)
def test_sequence_times_scalar(sequence, scalar):
    shim = _shim_scalar(scalar)
    assert _outcome(lambda: sequence * shim) == _outcome(lambda: sequence * scalar)
    assert _outcome(lambda: shim * sequence) == _outcome(lambda: scalar * sequence)


def test_inplace_repeat_rebinds():
    n, expected = _shim_scalar(numpy.int64(2)), numpy.int64(2)
    n *= [7]
    expected *= [7]
    assert n == expected == [7, 7]


def test_arrays_and_ranges_still_multiply():
    """0-d arrays (not scalars) and ranges take the ufunc, as in NumPy."""
    numpy.testing.assert_array_equal(tnp.asarray(tnp.array(2) * [1, 2]).tolist(), numpy.array(2) * [1, 2])
    shim = _shim_scalar(numpy.int64(2))
    numpy.testing.assert_array_equal(tnp.asarray(shim * range(3)).tolist(), numpy.int64(2) * range(3))
