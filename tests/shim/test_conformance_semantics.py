"""Fixes found by running NumPy's own tests against the shim (benchmarks/numpy_conformance,
issue 13 item 5), each checked against real NumPy here: nan_to_num's replacement masks,
objects whose ``__array__`` returns a shim array, and subclasses of NumPy scalar types."""
import numpy
import pytest

import torch_numpy_shim as tnp
from tests.oracle import assert_same


@pytest.mark.parametrize("kwargs", [dict(nan=numpy.inf, posinf=999.0), dict(nan=-numpy.inf, neginf=-5.0),
                                    dict(posinf=numpy.nan, nan=3.0), dict(neginf=numpy.inf, posinf=-numpy.inf),
                                    dict(nan=numpy.inf, posinf=numpy.nan, neginf=7.0)],
                         ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
@pytest.mark.parametrize("values", [[-1.0, numpy.nan, numpy.inf, -numpy.inf, 2.0],
                                    [complex(numpy.nan, numpy.inf), complex(-numpy.inf, numpy.nan), 1j]],
                         ids=["float", "complex"])
def test_nan_to_num_masks_come_from_the_input(values, kwargs):
    """Each replacement is chosen from the input's value, not from an earlier
    replacement (NumPy's test_do_not_rewrite_previous_keyword)."""
    expected = numpy.nan_to_num(numpy.array(values), **kwargs)
    actual = tnp.nan_to_num(tnp.array(values), **kwargs)
    assert_same(expected, tnp.to_numpy(actual))


class _ShimArrayLike:
    """Code written against ``import torch_numpy_shim as np``: its ``__array__`` makes
    the array with the shim."""

    def __array__(self, dtype=None, copy=None):
        return tnp.arange(3)


class _NumPyArrayLike:
    def __array__(self, dtype=None, copy=None):
        return numpy.arange(3)


class _NotAnArray:
    def __array__(self, dtype=None, copy=None):
        return 5


@pytest.mark.parametrize("fn", [lambda np, a: np.intersect1d(a, a), lambda np, a: np.asarray(a) * 2,
                                lambda np, a: np.sum(a), lambda np, a: np.concatenate([a, a])],
                         ids=["intersect1d", "asarray", "sum", "concatenate"])
def test_array_method_returning_a_shim_array(fn):
    expected = fn(numpy, _NumPyArrayLike())
    assert_same(expected, tnp.to_numpy(fn(tnp, _ShimArrayLike())))


def test_array_method_returning_no_array_is_numpys_error():
    with pytest.raises(ValueError) as expected:
        numpy.asarray(_NotAnArray())
    with pytest.raises(ValueError) as actual:
        tnp.asarray(_NotAnArray())
    assert str(actual.value) == str(expected.value)


def test_subclass_of_a_scalar_type_is_refused_not_a_type_error():
    """``class F(np.float64)`` in traced code or NumPy's tests (the shim's classes stand
    for NumPy's): NumPy makes F instances, which a 0-D shim array cannot be, so the shim
    refuses (UnsupportedError: npcompile runs it in real NumPy) rather than raise the
    TypeError of an abstract class; abstract classes still raise NumPy's TypeError."""
    from torch_numpy_shim import _dtypes

    class F(_dtypes.float64):
        pass

    class G(_dtypes.floating):
        pass

    with pytest.raises(tnp.UnsupportedError):
        F(1.0)
    with pytest.raises(TypeError):
        G(1.0)
    with pytest.raises(TypeError):
        _dtypes.floating(1.0)


PIECEWISE = {
    "bool_list": lambda np: np.piecewise([0, 0], [True, False], [1]),
    "bool_array": lambda np: np.piecewise([0, 0], np.array([True, False]), [1]),
    "int_array": lambda np: np.piecewise([0, 0], np.array([1, 0]), [1]),
    "list_of_arrays": lambda np: np.piecewise([0, 0], [np.array([1, 0])], [1]),
    "two_conditions": lambda np: np.piecewise(np.array([1.0, 2.0]), np.array([[True, False], [False, True]]),
                                              [1, lambda v: v * 3]),
    "too_many_functions": lambda np: np.piecewise([0, 0], [[False, True]], [1, 2, 3]),
}


@pytest.mark.parametrize("name", sorted(PIECEWISE))
def test_piecewise_condition_forms(name):
    """An element of a condition array is a scalar, not a nested condition (NumPy's
    TestPiecewise::test_simple: a 1-D bool array is one condition)."""
    def outcome(np):
        try:
            result = PIECEWISE[name](np)
        except ValueError as exc:
            return str(exc)
        return numpy.asarray(tnp.to_numpy(result) if np is tnp else result).tolist()
    assert outcome(tnp) == outcome(numpy)


SPACES = {
    "linspace_dtype_name": lambda np: np.linspace(0, "f4", 3),
    "linspace_text": lambda np: np.linspace("1", 2, 3),
    "linspace_bytes": lambda np: np.linspace(b"1", 2, 3),
    "linspace_object": lambda np: np.linspace([1, None], 2, 3),
    "logspace_dtype_name": lambda np: np.logspace(0, "i8", 3),
    "logspace_text_base": lambda np: np.logspace(0, 1, 3, base="x"),
    "geomspace_dtype_name": lambda np: np.geomspace(1, "f8", 3),
    "geomspace_mixed": lambda np: np.geomspace([1, "a"], 3, 3),
}


@pytest.mark.parametrize("name", sorted(SPACES))
def test_spaces_refuse_text_bounds_as_numpy(name):
    """A string bound is a value NumPy cannot compute with (its TypeError, here a
    DTypePromotionError), never a dtype name ('f4' was read as float32) or a refusal."""
    def outcome(np):
        try:
            SPACES[name](np)
        except Exception as exc:  # noqa: BLE001 - compared with NumPy's
            return type(exc), str(exc)
        return None
    assert outcome(tnp) == outcome(numpy)
