"""``where=`` given something other than a boolean array, against NumPy (values,
dtype, exception type and message): an array of another dtype is a TypeError (NumPy
casts it 'safe'); a list, tuple or scalar is converted by the truth of its items
(``[1, 0, 2]`` selects items 0 and 2), and mean/var/std then count the items as NumPy
does, summing the values cast to intp (``mean(a, where=[1, 0, 2])`` divides by 3)."""
import warnings

import numpy
import pytest

import npcompile
import torch_numpy_shim as shim
from tests.oracle import assert_same

MASKS = {
    "int array": numpy.array([1, 0, 2]),
    "float array": numpy.array([1.0, 0.0, 0.5]),
    "uint8 array": numpy.array([1, 0, 255], numpy.uint8),
    "0-d int array": numpy.array(1),
    "int list": [1, 0, 2],
    "float list": [1.5, 0.0, 0.25],
    "int tuple": (0, 3, 1),
    "bool list": [True, False, True],
    "mixed list": [True, 0, 2.5],
    "int scalar": 1,
    "zero scalar": 0,
    "float scalar": 1.5,
    "NumPy int scalar": numpy.int64(2),
    "None": None,
    "list with None": [None, 1, 0],
}
FUNCTIONS = {
    "add": lambda xp, a, m: xp.add(a, xp.asarray(a) * 10, out=xp.zeros(3), where=m),
    "sum": lambda xp, a, m: xp.sum(a, where=m),
    "max": lambda xp, a, m: xp.max(a, where=m, initial=0),
    "mean": lambda xp, a, m: xp.mean(a, where=m),
    "var": lambda xp, a, m: xp.var(a, where=m),
    "std ddof=1": lambda xp, a, m: xp.std(a, where=m, ddof=1),
    "add.reduce": lambda xp, a, m: xp.add.reduce(a, where=m),
}


def _outcome(xp, fn, mask):
    a = xp.asarray(numpy.array([1.0, 2.0, 4.0]))
    mask = xp.asarray(mask) if isinstance(mask, numpy.ndarray) else mask
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(xp, a, mask)
        except (TypeError, ValueError) as error:
            result = error
    return result, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_where_mask_of_any_type_as_numpy(name, mask):
    expected, expected_warnings = _outcome(numpy, FUNCTIONS[name], MASKS[mask])
    actual, actual_warnings = _outcome(shim, FUNCTIONS[name], MASKS[mask])
    assert actual_warnings == expected_warnings
    if isinstance(expected, Exception):
        assert type(actual) is type(expected) and str(actual) == str(expected)
    else:
        assert_same(expected, shim.to_numpy(actual))


def test_where_list_broadcasts_over_rows():
    a = numpy.arange(6.0).reshape(2, 3)
    where = [[1, 0, 2], [0, 0, 3]]
    for name in ("sum", "mean", "var"):
        expected = getattr(numpy, name)(a, axis=1, where=where)
        assert_same(expected, shim.to_numpy(getattr(shim, name)(shim.asarray(a), axis=1, where=where)))


def _masked_sum_and_mean(a):
    return shim.sum(a, where=[1, 0, 2]), shim.mean(a, where=[1, 0, 2])


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_where_list_under_jit(backend):
    f = npcompile.jit(_masked_sum_and_mean, backend=backend)
    a = numpy.array([1.0, 2.0, 4.0])
    total, mean = f(a)
    assert_same(numpy.sum(a, where=[1, 0, 2]), shim.to_numpy(total))
    assert_same(numpy.mean(a, where=[1, 0, 2]), shim.to_numpy(mean))
