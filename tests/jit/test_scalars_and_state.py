"""NumPy scalars inside traced code, and NumPy's floating-point error state.

Scalars: the shim models a NumPy scalar as a flagged 0-D array; inside a jitted
function it must still look like NumPy's scalar to ``isinstance``, ``type``,
``issubclass``, ``__class__`` and attribute access, whether it was passed in, made by a
reduction or an index, or constructed there.

Error state: compiled code cannot trap floating-point errors, so under a 'raise' or
'call' mode (set with np.seterr or np.errstate, outside the function or inside it) the
code must run in real NumPy: FloatingPointError (or the handler's call) exactly where
NumPy raises it. Under 'warn' (NumPy's default) compiled code computes NumPy's values
without emitting RuntimeWarning; warnings are not compared here (npcompile/trace/fp_state.py).
"""
import numbers
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npcompile
from tests.jit.harness import check_jit
from tests.oracle import SUPPORTED_DTYPES, assert_same, finite_elements

# ---- scalars ----------------------------------------------------------------------------
CLASSES = [np.ndarray, np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact,
           np.floating, np.complexfloating, np.bool_, np.float64, np.float32, np.int64, np.int8, np.uint8,
           np.complex128, float, int, complex, bool, numbers.Number, numbers.Real, numbers.Integral, object,
           (np.ndarray, float), (list, np.floating)]

PROBES = {
    "isinstance": lambda x: tuple(isinstance(x, c) for c in CLASSES),
    "type": lambda x: (type(x), type(x) is np.float64, type(x) == np.int64,  # noqa: E721 - == is probed
                       type(x).__name__, x.__class__),
    "issubclass": lambda x: (issubclass(type(x), np.floating), issubclass(type(x), (float, np.integer))),
    "attributes": lambda x: (x.dtype, x.real, x.imag, x.shape, x.ndim, x.size, x.T),
    "methods": lambda x: (x.conjugate() if x.dtype != bool else x, x.astype(np.float32), x.copy(),
                          x.reshape(()), x.reshape(1), x.squeeze()),
    "item": lambda x: x.item(),
    "numpy_functions": lambda x: (np.isscalar(x), np.ndim(x), np.shape(x)),
    "arithmetic": lambda x: (x + 1, -x, x * x, type(x)(1)),
    "pair": lambda x: (x, type(x)),
}


def _origin(name, probe):
    """A function that makes a NumPy scalar one way, then probes it."""
    if name == "argument":
        return lambda x: probe(x)
    if name == "sum":
        return lambda x: probe(np.array([x]).sum())
    if name == "index":
        return lambda x: probe(np.array([x, x])[1])
    if name == "max":
        return lambda x: probe(np.max(np.array([x])))
    return lambda x: probe(type(x)(x))   # constructed from its type inside the function


@st.composite
def numpy_scalars(draw):
    dtype = draw(st.sampled_from(SUPPORTED_DTYPES))
    return dtype.type(draw(finite_elements(dtype, 100)))


@pytest.mark.parametrize("probe", sorted(PROBES))
@given(x=numpy_scalars(), origin=st.sampled_from(["argument", "sum", "index", "max", "constructed"]))
def test_numpy_scalars_look_like_numpy_scalars(probe, x, origin):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_jit(_origin(origin, PROBES[probe]), x, graphs=None)


@pytest.mark.parametrize("fn", [
    lambda x: isinstance(x, np.ndarray),
    lambda x: type(x).__name__,
    lambda x: type(x) is np.float64,
    lambda x: isinstance(x.sum(), float),
    lambda x: type(np.float32(2) * 2),
], ids=["isinstance_ndarray", "type_name", "type_is", "sum_is_float", "constructed_type"])
def test_issue_examples(fn):
    check_jit(fn, np.float64(2), graphs=None)


def test_conj_of_bool():
    """ndarray.conj() of a non-complex array is the array itself (np.conjugate makes int8)."""
    check_jit(lambda a: a.conj(), np.array([True]), graphs=None)


def test_isinstance_of_reduction_result():
    check_jit(lambda a: (isinstance(a.sum(), np.ndarray), isinstance(a.sum(axis=0), np.ndarray)),
              np.ones((2, 3)), graphs=None)


# ---- floating-point error state ---------------------------------------------------------
OPS = {
    "divide": lambda a, b: a / b,
    "floor_divide": lambda a, b: a // b,
    "log": lambda a, b: np.log(a),
    "sqrt": lambda a, b: np.sqrt(a),
    "multiply": lambda a, b: a * b,
    "exp": lambda a, b: np.exp(a),
}
MODES = ["ignore", "warn", "raise", "call"]
fp_modes = st.fixed_dictionaries({}, optional={kind: st.sampled_from(MODES)
                                               for kind in ("all", "divide", "over", "under", "invalid")})
special = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, 1e-30, 1e30, 1e300, float("inf"), float("nan")])


@st.composite
def operands(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int64]))
    n = draw(st.integers(1, 3))
    values = [draw(special) for _ in range(2 * n)]
    with np.errstate(all="ignore"):
        a, b = np.array(values[:n]).astype(dtype), np.array(values[n:]).astype(dtype)
    return a, b


def _outer(op):
    return lambda a, b: op(a, b)


def _inner(op, modes):
    def fn(a, b):
        with np.errstate(**modes):
            return op(a, b)
    return fn


def _seterr_inside(op, modes):
    def fn(a, b):
        old = np.seterr(**modes)
        try:
            return op(a, b)
        finally:
            np.seterr(**old)
    return fn


def _run_recording(fn, args, modes, where):
    """Run ``fn`` under ``modes`` (set outside the call, or by the function itself),
    with an error handler that records what NumPy reports in 'call' mode."""
    calls = []
    old_call = np.seterrcall(lambda kind, flag: calls.append(kind))
    try:
        with warnings.catch_warnings(), np.errstate(**(modes if where == "outer" else {})):
            warnings.simplefilter("ignore")
            try:
                return fn(*[a.copy() for a in args]), None, calls
            except Exception as exc:  # noqa: BLE001 - compared by class with NumPy's
                return None, exc, calls
    finally:
        np.seterrcall(old_call)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("where", ["outer", "inner", "seterr_inside"])
@given(modes=fp_modes, args=operands(), repeat=st.integers(1, 2))
def test_error_state_is_honoured(op, where, modes, args, repeat):
    fn = {"outer": lambda: _outer(OPS[op]), "inner": lambda: _inner(OPS[op], modes),
          "seterr_inside": lambda: _seterr_inside(OPS[op], modes)}[where]()
    jitted = npcompile.jit(fn, backend="eager")
    for _ in range(repeat):   # the second call takes the cached path
        expected, np_exc, np_calls = _run_recording(fn, args, modes, where)
        actual, jit_exc, jit_calls = _run_recording(jitted, args, modes, where)
        assert type(jit_exc) is type(np_exc), f"NumPy raised {np_exc!r}, jit raised {jit_exc!r}"
        if np_exc is None:
            assert_same(expected, actual)
        assert jit_calls == np_calls, "the 'call' handler saw other errors"


def test_errstate_raise_inside_the_function_raises():
    def fn(a, b):
        with np.errstate(divide="raise"):
            return a / b

    jitted = npcompile.jit(fn, backend="eager")
    with pytest.raises(FloatingPointError):
        jitted(np.ones(2), np.zeros(2))
    np.testing.assert_array_equal(jitted(np.ones(2), np.ones(2)), np.ones(2))


def test_seterr_raise_before_the_call_then_back():
    jitted = npcompile.jit(lambda a, b: a / b, backend="eager")
    a, b = np.ones(2), np.zeros(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isinf(jitted(a, b)).all()
        old = np.seterr(all="raise")
        try:
            with pytest.raises(FloatingPointError):
                jitted(a, b)
        finally:
            np.seterr(**old)
        assert np.isinf(jitted(a, b)).all()
    assert jitted.compile_count == 1   # the raising call ran in NumPy; the graph was kept


def test_error_state_guard_is_cheap_and_cached():
    from npcompile.trace import fp_state
    assert fp_state.traceable()
    with np.errstate(divide="raise"):
        assert not fp_state.traceable()
        assert not fp_state.traceable()
    with np.errstate(all="ignore"):
        assert fp_state.traceable()
    assert fp_state.traceable()
