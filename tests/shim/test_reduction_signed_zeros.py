"""``initial=`` with a signed zero, against NumPy (values, dtype and the zero's sign):
a sum from -0.0 stays -0.0 while every item is -0.0 (empty and masked-out slices
included); max/min keep a slice's own zero over an equal ``initial`` (NumPy keeps the
item on a tie, in every loop). Only cases whose NumPy answer does not depend on the
items' positions (SIMD loops) are compared."""
import numpy
import pytest

import npcompile
import torch_numpy_shim as shim
from tests.oracle import assert_same

SIGNED = {"-0": -0.0, "+0": 0.0}


def _same_signed(expected, actual):
    actual = shim.to_numpy(actual)
    assert_same(expected, actual)
    assert numpy.array_equal(numpy.signbit(expected), numpy.signbit(actual))


def _zeros(shape, sign, dtype="float64"):
    return numpy.full(shape, SIGNED[sign], dtype)


CASES = {   # name: (array, keyword arguments)
    "empty": (numpy.zeros(0), {}),
    "[-0]": (_zeros(1, "-0"), {}),
    "[-0]*33": (_zeros(33, "-0"), {}),
    "[+0]": (_zeros(1, "+0"), {}),
    "[1, -0]": (numpy.array([1.0, -0.0]), {}),
    "[1, -1]": (numpy.array([1.0, -1.0]), {}),
    "[-0, +0, -0]": (numpy.array([-0.0, 0.0, -0.0]), {}),
    "2d empty axis 0": (numpy.zeros((0, 3)), {"axis": 0}),
    "2d axis 0": (numpy.array([[-0.0, 0.0, -0.0], [-0.0, -0.0, 1.0]]), {"axis": 0}),
    "2d axis 1": (numpy.array([[-0.0, 0.0, -0.0], [-0.0, -0.0, -0.0]]), {"axis": 1}),
    "float32": (_zeros(5, "-0", "float32"), {}),
    "where all out": (numpy.array([1.0, 2.0]), {"where": numpy.array([False, False])}),
    "where some out": (numpy.array([1.0, -0.0]), {"where": numpy.array([False, True])}),
    "where +0 in": (numpy.array([-0.0, 0.0]), {"where": numpy.array([True, True])}),
}


@pytest.mark.parametrize("initial", ["-0", "+0"])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["sum", "nansum"])
def test_sum_from_signed_zero(name, case, initial):
    a, kwargs = CASES[case]
    if name == "nansum" and "where" in kwargs:
        kwargs = {}
    expected = getattr(numpy, name)(a, initial=SIGNED[initial], **kwargs)
    actual = getattr(shim, name)(shim.asarray(a), initial=SIGNED[initial],
                                 **{k: shim.asarray(v) if k == "where" else v for k, v in kwargs.items()})
    _same_signed(expected, actual)


@pytest.mark.parametrize("size", [1, 2, 7, 16, 33, 130])
@pytest.mark.parametrize("signs", [("-0", "+0"), ("+0", "-0")])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("name", ["max", "min"])
def test_extreme_keeps_the_items_zero_over_initial(name, axis, signs, size):
    items, initial = signs
    a = _zeros((size, 3) if axis is not None else size, items)
    expected = getattr(numpy, name)(a, axis=axis, initial=SIGNED[initial])
    _same_signed(expected, getattr(shim, name)(shim.asarray(a), axis=axis, initial=SIGNED[initial]))


def test_extreme_masked_items_are_not_compared():
    a = numpy.array([-0.0, 0.0, 5.0])
    where = numpy.array([False, True, False])
    for name in ("max", "min"):
        expected = getattr(numpy, name)(a, initial=-0.0, where=where)
        _same_signed(expected, getattr(shim, name)(shim.asarray(a), initial=-0.0, where=shim.asarray(where)))


def _sum_from_negative_zero(a):
    return shim.sum(a, initial=-0.0)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_sum_from_negative_zero_under_jit(backend):
    f = npcompile.jit(_sum_from_negative_zero, backend=backend)
    for a in (_zeros(4, "-0"), numpy.array([-0.0, 0.0, -0.0, -0.0])):
        _same_signed(numpy.sum(a, initial=-0.0), f(a))
