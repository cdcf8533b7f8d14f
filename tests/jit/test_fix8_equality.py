"""Fix 8 (equality): guards that compared by ``==`` where equal values differ in what the
trace read of them (slice bounds, ranges, dict keys), and the shim's bool axis.
Each sequence is compared call by call with plain NumPy running it."""
import numpy as np
import pytest

import npcompile
from tests.jit.harness import CountingBackend
from tests.oracle import assert_same

A = np.arange(12.0).reshape(3, 4)


def _sequence(fn, values):
    """``fn(A, v)`` plain and jitted for each of ``values`` in turn; a TypeError of
    NumPy's must be raised by the jitted call as well."""
    jitted = npcompile.jit(fn, backend="eager")
    for k, v in enumerate(values):
        try:
            expected = fn(A, v)
        except TypeError:
            with pytest.raises(TypeError):
                jitted(A, v)
            continue
        assert_same(expected, jitted(A, v), path=f"call {k}")
    return jitted


# ---- slices: each bound by type and value -------------------------------------------------
def _bounds(a, s):
    return np.int8(1) * s.start, np.int8(1) * s.stop, np.int8(1) * s.step


def _sign_of_start(a, s):
    return np.copysign(a, s.start)


@pytest.mark.parametrize("fn, values", [
    (_bounds, [slice(1, 3, 1), slice(np.int64(1), 3, 1), slice(1, np.int16(3), 1), slice(1, 3, True)]),
    (_bounds, [slice(1.0, 3.0, 1.0), slice(1, 3.0, 1.0), slice(1.0, 3.0, 1)]),
    (_sign_of_start, [slice(0.0, 1), slice(-0.0, 1), slice(0.0, 1), slice(np.nan, 1), slice(np.nan, 1)]),
    (_sign_of_start, [slice(0.0, None), slice(0, None)]),
], ids=["int_bounds_then_numpy_or_bool", "float_bounds_then_int", "signed_zero_and_nan", "none_stop"])
def test_slice_bounds_of_another_type_or_sign(fn, values):
    _sequence(fn, values)


def _index(a, s):
    return a[s]


def test_slice_in_a_tuple_argument():
    _sequence(lambda a, t: a[t], [(slice(0, 2), 1), (slice(0.0, 2), 1), (slice(0, 2), True)])


def test_same_slice_hits_the_cache():
    backend = CountingBackend()
    jitted = npcompile.jit(_index, backend=backend)
    for _ in range(3):
        assert_same(A[1:3], jitted(A, slice(1, 3)))
    assert_same(A[:, ::2], jitted(A, (slice(None), slice(None, None, 2))))
    assert_same(A[1:3], jitted(A, slice(1, 3)))
    assert len(backend.graphs) <= 2


# ---- ranges: start, stop and step, not the sequence ---------------------------------------
def _range_parts(a, r):
    return a * r.start + r.stop * 10 + r.step * 100


@pytest.mark.parametrize("values", [
    [range(0, 4, 2), range(0, 3, 2), range(0, 4, 2)],
    [range(3, 3), range(7, 2), range(3, 3, 4)],
    [range(5), range(0, 5, 1), range(True, 5)],
], ids=["same_items", "empty", "same_range"])
def test_range_parts(values):
    _sequence(_range_parts, values)


# ---- dict keys: each by type and value -----------------------------------------------------
def _keys_times_int8(a, d):
    return [(np.int8(1) * k, np.array(k)) for k in d]


@pytest.mark.parametrize("values", [
    [{0: "x", 1: "y"}, {False: "x", 1: "y"}, {0: "x", True: "y"}, {0: "x", 1: "y"}],
    [{1: "x", 2: "y"}, {2: "y", 1: "x"}],
    [{}, {0: "x"}, {}],
], ids=["bool_among_int_keys", "order", "empty"])
def test_dict_key_types(values):
    _sequence(_keys_times_int8, values)


class _Name(str):
    def shout(self):
        return self.upper()


def test_dict_str_subclass_key():
    def fn(a, d):
        return a * len([k for k in d if type(k) is str])
    _sequence(fn, [{"k": 1}, {_Name("k"): 1}, {"k": 1}])


# ---- the shim's bool axis -------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda a, axis: a.sum(axis=axis),
    lambda a, axis: np.max(a, axis=axis),
    lambda a, axis: np.mean(a, axis=axis),
    lambda a, axis: np.argmax(a, axis=axis),
    lambda a, axis: a.cumsum(axis=axis),
    lambda a, axis: np.concatenate([a, a], axis=axis),
    lambda a, axis: np.argsort(a, axis=axis),
    lambda a, axis: np.squeeze(a.reshape(1, 1, 12), axis=axis),
    lambda a, axis: np.flip(a, axis=axis),           # NumPy takes the bool here (operator.index)
    lambda a, axis: np.sort(a, axis=axis),
    lambda a, axis: np.expand_dims(a, axis),
], ids=["sum_method", "max", "mean", "argmax", "cumsum_method", "concatenate", "argsort", "squeeze",
        "flip", "sort", "expand_dims"])
def test_bool_axis_after_an_int_axis(fn):
    _sequence(fn, [1, True, 0, False, (0, 1), (False, 1), 1])


@pytest.mark.parametrize("call, message", [
    (lambda a: a.sum(axis=True), "an integer is required"),
    (lambda a: np.prod(a, axis=(False, 1)), "an integer is required"),
    (lambda a: np.argmin(a, axis=False), "an integer is required for the axis"),
    (lambda a: np.squeeze(a[None], axis=(False,)), "integers are required for the axis tuple elements"),
], ids=["sum", "prod_tuple", "argmin", "squeeze_tuple"])
def test_bool_axis_message(call, message):
    with pytest.raises(TypeError, match=f"^{message}$"):
        call(A)
    with pytest.raises(TypeError, match=f"^{message}$"):
        npcompile.jit(call, backend="eager")(A)
