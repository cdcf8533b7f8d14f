"""Index keys and np.block nestings NumPy's own tests (``test_indexing.py``:
``test_index_no_floats``, ``test_scalar_return_type``; ``test_shape_base.py``:
``test_invalid_nesting``) showed wrong through ``benchmarks.numpy_conformance``; each
case fails without its fix."""
import numpy
import pytest

import torch_numpy_shim as shim
from tests.oracle import check


def _outcome(fn):
    try:
        return repr(shim.to_numpy(fn()))
    except Exception as exc:  # noqa: BLE001 - the class and message are compared
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("key", [(slice(0.0, None), 0.0), (slice(0.0, None), 0.0, slice(None)),
                                 (0, slice(None, 1.0), -1.4), (slice(None, None, 1.5), 0.5), (slice(0.0, None),),
                                 (slice(None, numpy.float64(1)),)])
def test_a_float_in_the_key_is_found_before_slice_bounds(key):
    """NumPy rejects a float item (IndexError) before it reads slice bounds, so
    a[0.0:, 0.0] is an IndexError; a float slice bound alone is a TypeError."""
    check(lambda xp, a: a[key], numpy.array([[[5]]]))


class _ArrayLike:
    def __init__(self, value):
        self.value = value

    def __array__(self, dtype=None, copy=None):
        return numpy.array(self.value)


@pytest.mark.parametrize("value", [0, [1, 0], [True, False, True, False], [[0, 1]]])
def test_an_array_like_object_indexes_as_its_array(value):
    """An object with __array__ in a key indexes as the array it gives."""
    check(lambda xp, a: a[_ArrayLike(value)], numpy.arange(4.0))
    check(lambda xp, a: a[0, _ArrayLike(value)] if numpy.ndim(value) < 2 else a[_ArrayLike(value)],
          numpy.arange(8.0).reshape(2, 4))


@pytest.mark.parametrize("arrays", [
    [1, [2]], [1, []], [[1], 2], [[], 2], [[[1], [2]], [[3, 4]], [5]], [], [[]], [[1], []], [[1, 2], [[3]]],
    [[[]], [[1]]], [[1], [[]]], [[[1]], [[], 2]], [[[1]], [[]]], [[], [[1]]], ([1, 2], [3, 4]), [(1, 2), (3, 4)],
    [[[1, (2,)]]]], ids=repr)
def test_block_checks_nesting_in_numpys_order(arrays):
    """Depths are compared before an empty list is reported: block([1, []]) is 'List
    depths are mismatched...', block([[1], []]) 'List at arrays[1] cannot be empty'
    (NumPy's messages, word for word)."""
    assert _outcome(lambda: shim.block(arrays)) == _outcome(lambda: numpy.block(arrays))
