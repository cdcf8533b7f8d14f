"""Argument checks NumPy's own ``test_numeric.py`` (TestIsclose, TestMoveaxis, TestClip,
TestConvolve) showed wrong through ``benchmarks.numpy_conformance``: exception classes,
NumPy's messages, warnings; each case fails without its fix."""
import warnings

import numpy
import pytest

import torch_numpy_shim as shim
from tests.oracle import check


def _outcome(fn, xp):
    """(result or exception class and message, warnings) of ``fn(xp)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = repr(shim.to_numpy(fn(xp)))
        except Exception as exc:  # noqa: BLE001 - the class and message are compared
            result = f"{type(exc).__name__}: {exc}"
    return result, [(w.category, str(w.message)) for w in caught]


def assert_as_numpy(fn):
    assert _outcome(fn, shim) == _outcome(fn, numpy)


@pytest.mark.parametrize("atol", [numpy.inf, numpy.nan, 1.0, [1.0, numpy.nan, 1.0]])
@pytest.mark.parametrize("rtol", [numpy.inf, numpy.nan, 1e-5])
def test_isclose_reports_invalid_tolerances(atol, rtol):
    """'One of rtol or atol is not valid, atol: inf, rtol: nan' as a RuntimeWarning
    (NumPy's TestIsclose.test_tol_warnings), a FloatingPointError under
    errstate(invalid='raise'), nothing under 'ignore'."""
    assert_as_numpy(lambda xp: xp.isclose(xp.array([1, 2, 3]), xp.array([1, 2, 4]), atol=atol, rtol=rtol))
    for mode in ("raise", "ignore"):
        with numpy.errstate(invalid=mode):
            assert_as_numpy(lambda xp: xp.isclose(xp.array([1.0, 2.0]), 1.0, atol=atol, rtol=rtol))


@pytest.mark.parametrize("shapes", [((6,), (6,), (2,), ()), ((6,), (6,), (), (2,)), ((2, 3), (4,), (), ()),
                                    ((3,), (2, 1), (3,), (4,)), ((3,), (2, 1), (2, 3), (2,)), ((2, 3), (3,), (2, 1), (3,))])
def test_isclose_broadcast_errors_as_numpy(shapes):
    """Tolerance arrays that do not broadcast are NumPy's ValueError (torch's
    RuntimeError before), with NumPy's message for the first step that fails."""
    x, y, atol, rtol = (numpy.ones(s) for s in shapes)
    assert_as_numpy(lambda xp: xp.isclose(xp.asarray(x), xp.asarray(y), atol=xp.asarray(atol), rtol=xp.asarray(rtol)))


@pytest.mark.parametrize("source,destination", [
    (range(4), range(4)), (range(2), [3, 0]), ([0, 0], [0, 1]), ([0, 1], [1, 1]), ((0, 1), (1, 0)), (0, [0, 1]),
    (4, 0), (0, -5), (None, 0), (1.0, 0), (numpy.int8(1), -1), (numpy.array([0, 1]), [1, 0])])
def test_moveaxis_arguments(source, destination):
    """Any iterable of axes (a range too); 'repeated axis in `source` argument'."""
    assert_as_numpy(lambda xp: xp.moveaxis(xp.zeros((1, 2, 3, 4)), source, destination).shape)


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.clip(a, 2), lambda xp, a: xp.clip(a, a_max=2), lambda xp, a: xp.clip(a, a_min=1),
    lambda xp, a: xp.clip(a, 2, 3, max=3), lambda xp, a: xp.clip(a, min=2), lambda xp, a: xp.clip(a),
    lambda xp, a: xp.clip(a, 1, 3, out=xp.zeros(5, "i4"), casting=None),
    lambda xp, a: xp.add(a, 1, casting=None), lambda xp, a: xp.add(a, 1, casting="bad"),
    lambda xp, a: xp.add(a, 1, casting=3)])
def test_clip_and_casting_arguments(call):
    """clip(a, 2) misses a_max (TypeError, NumPy's message); casting=None is a TypeError
    ('casting must be str, not NoneType'), an unknown name NumPy's ValueError."""
    assert_as_numpy(lambda xp: call(xp, xp.arange(5, dtype="i4")))


@pytest.mark.parametrize("a,v", [([], [1, 2]), ([1, 2], []), ([], [])])
def test_convolve_names_the_empty_operand(a, v):
    """NumPy's gh-30272: 'a cannot be empty' names the first argument, checked before
    the longer operand is put first."""
    assert_as_numpy(lambda xp: xp.convolve(xp.array(a), xp.array(v)))


def test_moveaxis_still_moves():
    check(lambda xp, x: xp.moveaxis(x, range(2), [2, 0]), numpy.arange(24.0).reshape(2, 3, 4))
