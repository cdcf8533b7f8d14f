"""Ufunc behaviours NumPy's own tests (``test_umath.py``: ``test_sign_complex``,
``test_reduceat_empty``, ``test_error_in_equal_reduce``) showed wrong through
``benchmarks.numpy_conformance``, with the neighbouring cases they led to; each fails
without its fix."""
import itertools
import warnings

import numpy
import pytest

import torch_numpy_shim as shim
from tests.oracle import check

_CODES = ["?", "i1", "u1", "i2", "i8", "u8", "f2", "f4", "f8", "c8", "c16"]
_PAIRS = list(itertools.product(_CODES, _CODES))


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        yield


def test_complex_sign_divides_each_part_by_the_magnitude():
    """sign(3+4j) is 0.6+0.8j exactly (NumPy divides each part by |z|; a complex
    division gave 0.6000000000000001+0.8j)."""
    parts = [0.0, -0.0, 1.0, -1.0, 3.0, 4.0, -8.0, 6.0, 0.1, 1e-320, 1e308, numpy.inf, -numpy.inf, numpy.nan]
    z = numpy.array([complex(r, i) for r in parts for i in parts])
    for dtype in ("complex128", "complex64"):
        expected = numpy.sign(z.astype(dtype))
        actual = shim.to_numpy(shim.sign(shim.asarray(z.astype(dtype))))
        numpy.testing.assert_array_equal(actual, expected)    # exact, not within a tolerance


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract", "logical_and", "bitwise_or"])
@pytest.mark.parametrize("method", ["reduce", "accumulate"])
@pytest.mark.parametrize("source,target", _PAIRS, ids=[f"{a}-{b}" for a, b in _PAIRS])
def test_reduction_casts_its_input_unsafely(name, method, source, target):
    """A reduction's input is cast to its loop with 'unsafe' casting: float data
    reduced with dtype=int (or ints with dtype=bool) is NumPy's result, not a
    UFuncTypeError; ufuncs without such a loop still raise NumPy's TypeError."""
    check(lambda xp, x: getattr(getattr(xp, name), method)(x, dtype=target),
          numpy.array([100, 100, 3.5]).astype(source))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract", "logical_and", "bitwise_or"])
@pytest.mark.parametrize("method", ["reduce", "accumulate"])
@pytest.mark.parametrize("source,target", _PAIRS, ids=[f"{a}-{b}" for a, b in _PAIRS])
def test_reduction_into_out_promotes_with_out(name, method, source, target):
    """Without dtype=, out= takes part in the loop's promotion: float data reduced
    into an int out= sums in float64 and casts the sum (1.5 + 2.5 -> 4, not 3), int8
    data into int64 out= sums in int64 (no wrap-around)."""
    def fn(xp, x):
        out = xp.zeros(() if method == "reduce" else x.shape, target)
        getattr(getattr(xp, name), method)(x, out=out)
        return out
    check(fn, numpy.array([100, 100, 1.5, 2.5]).astype(source))


def test_equal_reduce_needs_a_dtype():
    """NumPy's gh-20929: np.equal.reduce(ints, dtype=bool) is True, without dtype= a
    TypeError."""
    check(lambda xp, a: xp.equal.reduce(a, dtype=bool), numpy.array([0, 0]))
    check(lambda xp, a: xp.equal.reduce(a), numpy.array([0, 0]))


@pytest.mark.parametrize("indices", [[], (), [0.0], [1.7], [True], (0, 2), [numpy.int8(1)], numpy.array([1, 0], "i1"),
                                     numpy.array([4, 1, 3], "u1"), numpy.array([True]), numpy.array([0.0]),
                                     numpy.array([], "f8"), numpy.array([0], "u8"), [[0]], numpy.array([[0]]), 0,
                                     numpy.array(0), [5], [-1], [1e30]])
@pytest.mark.parametrize("axis", [0, 1])
def test_reduceat_reads_indices_as_numpy(indices, axis):
    """A sequence of indices is converted item by item to intp ([] and [1.7] accepted),
    an array cast under 'safe' casting (float and uint64 arrays refused)."""
    check(lambda xp, x: xp.add.reduceat(x, indices, axis=axis), numpy.arange(10.0).reshape(5, 2))


def test_reduceat_of_an_empty_array():
    """NumPy's test_reduceat_empty: empty indices give an empty result of the input's dtype."""
    check(lambda xp, x, i: xp.add.reduceat(x, i), numpy.array([], "f8"), numpy.array([], "i4"))


def _typed_outcome(fn, xp):
    try:
        result = fn(xp)
    except Exception as exc:  # noqa: BLE001 - the class is compared
        return type(exc)
    results = result if isinstance(result, tuple) else (result,)
    return [(type(r), repr(r)) for r in (shim.to_numpy(x) for x in results)]


@pytest.mark.parametrize("call", [
    lambda xp: xp.add(xp.arange(3) * 0.5, 0.5, sig="i", casting="unsafe"),
    lambda xp: xp.add(xp.arange(3) * 0.5, 0.5, sig="ii->i", casting="unsafe"),
    lambda xp: xp.add(xp.arange(3) * 0.5, 0.5, sig=("i4", "i4", "i4"), casting="unsafe"),
    lambda xp: xp.maximum([3], [4], sig=(None, None, None)),
    lambda xp: xp.add(3, 4, sig="ii->i", signature="ii->i"),
    lambda xp: xp.add(3, 4, signature=123.0),
    lambda xp: xp.add(1, 2, out=...), lambda xp: xp.add(xp.float32(1), 2, out=...),
    lambda xp: xp.add.reduce(1, out=...), lambda xp: xp.add.reduce(xp.ones(3), out=...),
    lambda xp: xp.divmod(xp.array(7), 2, out=...), lambda xp: xp.negative(1.5, out=...),
    lambda xp: xp.add(xp.ones(3), 2, out=...), lambda xp: xp.add(1, 2, ...)])
def test_sig_and_out_ellipsis(call):
    """NumPy's test_forced_sig, test_signature_all_None, test_signature_errors and
    test_output_ellipsis: ``sig=`` is signature=, a signature neither a string nor a
    tuple is a TypeError, out=... gives arrays where scalars would come back (and is
    a TypeError passed positionally)."""
    assert _typed_outcome(call, shim) == _typed_outcome(call, numpy)


@pytest.mark.parametrize("name", ["add", "minimum", "subtract"])
@pytest.mark.parametrize("keepdims", [True, False])
@pytest.mark.parametrize("out_shape", [(), (1,), (3,), (1, 1), (1, 3), (4, 3), (2, 3), (5,)])
def test_reduce_out_of_another_shape_is_an_error(name, keepdims, out_shape):
    """NumPy's test_reduce_wrong_dimension_output (gh-15144): a reduction never
    broadcasts into out= (a (4, 3) out= took the (1, 3) result before)."""
    check(lambda xp, a: getattr(xp, name).reduce(a, axis=0, out=xp.zeros(out_shape), keepdims=keepdims),
          numpy.arange(12.0).reshape(4, 3))
