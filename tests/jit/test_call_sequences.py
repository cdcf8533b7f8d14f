"""Call sequences: one jitted function called again and again while what its trace
relied on changes between calls, each call compared with plain NumPy.

Hypothesis draws, per call, the arguments (arrays whose size, ndim, dtype and layout
change, sizes 0 and 1 included; Python ints that may be 0 or 1, floats with -0.0 and
NaN, bools, None; callables: NumPy functions, ufuncs, lambdas, closures, user functions,
bound methods, callable objects, functools.partial) and the world around the call
(NumPy's floating-point error modes, the defaults of a helper the function calls, module
globals it reads, an attribute of a user object it calls, a monkeypatched ``np.sum``). A
cached graph reused where the trace's assumptions no longer hold gives a wrong answer,
which the comparison catches: type, dtype, shape, values, exception class, aliasing and
the inputs after the call.

NumPy's RuntimeWarnings (the default 'warn' error mode) are not compared: compiled code
computes the same values without warning (see npcompile/trace/fp_state.py).
"""
import contextlib
import functools
import operator
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npcompile
from tests.oracle import _tolerance, assert_same, finite_elements

# ---- the module state the targets read ----------------------------------------------
SCALE = 2
TRANSFORM = np.negative


def helper_with_defaults(a, k=2, *, offset=0):
    return a * k + offset


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, a):
        return a * self.k

    def __call__(self, a):
        return a + self.k


SCALER = Scaler(2)


def user_square(a):
    return a * a


def make_adder(k):
    return lambda a: a + k


def fake_sum(a, *args, **kwargs):
    """What ``np.sum`` is monkeypatched to."""
    return np.prod(a) - 1


_ORIGINAL = {"SCALE": SCALE, "TRANSFORM": TRANSFORM, "defaults": helper_with_defaults.__defaults__,
             "kwdefaults": helper_with_defaults.__kwdefaults__, "scaler_k": SCALER.k, "np_sum": np.sum}


@contextlib.contextmanager
def world(state):
    """Apply ``state`` (NumPy's error modes, globals, defaults, an object's attribute,
    np.sum) for the duration of one plain call and one jitted call."""
    g = globals()
    g["SCALE"], g["TRANSFORM"] = state.get("SCALE", SCALE), state.get("TRANSFORM", TRANSFORM)
    helper_with_defaults.__defaults__ = state.get("defaults", _ORIGINAL["defaults"])
    helper_with_defaults.__kwdefaults__ = state.get("kwdefaults", _ORIGINAL["kwdefaults"])
    SCALER.k = state.get("scaler_k", _ORIGINAL["scaler_k"])
    np.sum = state.get("np_sum", _ORIGINAL["np_sum"])
    try:
        with np.errstate(**state.get("fp", {})), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        np.sum = _ORIGINAL["np_sum"]
        g["SCALE"], g["TRANSFORM"] = _ORIGINAL["SCALE"], _ORIGINAL["TRANSFORM"]
        helper_with_defaults.__defaults__ = _ORIGINAL["defaults"]
        helper_with_defaults.__kwdefaults__ = _ORIGINAL["kwdefaults"]
        SCALER.k = _ORIGINAL["scaler_k"]


# ---- arrays with a layout, rebuilt fresh for every call ------------------------------
class Arr:
    """An array argument: its values and a layout; ``make()`` builds a new array with
    that layout (deepcopy would make every array contiguous)."""

    def __init__(self, values, layout):
        self.values, self.layout = values, layout

    def make(self):
        a = self.values
        if self.layout == "F":
            return np.asfortranarray(a)
        if self.layout == "reversed" and a.ndim:
            return a[::-1].copy()[::-1]
        if self.layout == "strided" and a.ndim:
            wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
            wide[..., ::2] = a
            return wide[..., ::2]
        if self.layout == "transposed":
            return a.T.copy().T
        return a.copy()

    def __repr__(self):
        return f"Arr({self.values!r}, {self.layout!r})"


DTYPES = [np.dtype(n) for n in ("bool", "int8", "int64", "uint8", "float32", "float64", "complex128")]
LAYOUTS = ["C", "F", "reversed", "strided", "transposed"]


@st.composite
def arrays(draw, dtypes=DTYPES, min_dims=0, max_dims=3):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=4))
    values = draw(hnp.arrays(dtype, shape, elements=finite_elements(dtype, 100)))
    return Arr(values, draw(st.sampled_from(LAYOUTS)))


def materialize(args):
    return [a.make() if isinstance(a, Arr) else a for a in args]


# ints outside int8/uint8 (an int that went dynamic must still raise NumPy 2's OverflowError),
# floats that overflow int8 or are not finite (stored into a 0-D int array they raise)
python_values = st.one_of(st.integers(-2, 4), st.sampled_from([-129, 128, 255, 256, 300]), st.booleans(),
                          st.none(), st.sampled_from([0.0, -0.0, 1.0, 2.5, 300.0, float("nan"), float("inf")]))
sizes = st.one_of(st.integers(0, 4), st.integers(-1, 4), st.none(), st.just(2.0), st.booleans())
CALLABLES = [np.sum, np.max, np.min, np.cumsum, np.abs, np.negative, np.sort, np.ravel, abs, operator.neg,
             lambda a: a * 2, lambda a: a * 3, user_square, make_adder(1), make_adder(2),
             functools.partial(np.sum, axis=-1), functools.partial(np.cumsum, axis=0),
             functools.partial(helper_with_defaults, k=3), Scaler(3).apply, SCALER.apply, SCALER, Scaler(-1)]
callables = st.sampled_from(CALLABLES)
fp_modes = st.fixed_dictionaries({}, optional={kind: st.sampled_from(["ignore", "warn", "raise"])
                                               for kind in ("all", "divide", "over", "under", "invalid")})


# ---- the targets ----------------------------------------------------------------------
def reads_sizes(a):
    n = a.shape[0]
    return a * n - a.size + np.arange(n).reshape((n,) + (1,) * (a.ndim - 1))


def broadcasts_against_size(a, b):
    return a[: b.shape[0]] + b * b.shape[-1]


def takes_int(a, k):
    if k is None:
        return a * 2
    return np.ones(k) + a[:k] * abs(k)


def scales_in_place(a, k):
    a[...] = a * k
    return a


def calls_callable(a, fn):
    return fn(a)


def calls_each(a, fns):
    for fn in fns:
        a = fn(a)
    return a


def reads_globals(a):
    return TRANSFORM(a) * SCALE


def reads_defaults(a):
    return helper_with_defaults(a) + helper_with_defaults(a, 1)


def calls_method_of_global(a):
    return SCALER.apply(a) + SCALER(a)


def calls_np_sum(a):
    return np.sum(a) * 2


def divides(a, b):
    return a / b + np.sqrt(b)


def divides_in_errstate(a, b, mode):
    with np.errstate(divide=mode, invalid=mode):
        return a / b


float_arrays = arrays(dtypes=[np.dtype("float32"), np.dtype("float64"), np.dtype("int64")], min_dims=1, max_dims=1)
state = st.fixed_dictionaries({}, optional={
    "fp": fp_modes, "SCALE": python_values, "TRANSFORM": callables, "scaler_k": python_values,
    "defaults": st.tuples(python_values), "kwdefaults": st.fixed_dictionaries({"offset": python_values}),
    "np_sum": st.sampled_from([np.sum, fake_sum])})

TARGETS = {
    "reads_sizes": (reads_sizes, st.tuples(arrays())),
    "broadcasts_against_size": (broadcasts_against_size, st.tuples(arrays(min_dims=1), arrays(min_dims=1))),
    "takes_int": (takes_int, st.tuples(arrays(min_dims=1, max_dims=2), sizes)),
    "scales_in_place": (scales_in_place, st.tuples(arrays(), python_values)),
    "calls_callable": (calls_callable, st.tuples(arrays(), callables)),
    "calls_each": (calls_each, st.tuples(arrays(), st.lists(callables, max_size=3))),
    "reads_globals": (reads_globals, st.tuples(arrays())),
    "reads_defaults": (reads_defaults, st.tuples(arrays())),
    "calls_method_of_global": (calls_method_of_global, st.tuples(arrays())),
    "calls_np_sum": (calls_np_sum, st.tuples(arrays())),
    "divides": (divides, st.tuples(float_arrays, float_arrays)),
    "divides_in_errstate": (divides_in_errstate, st.tuples(float_arrays, float_arrays,
                                                           st.sampled_from(["ignore", "warn", "raise"]))),
}


# ---- running a sequence ---------------------------------------------------------------
def _outcome(fn, args):
    try:
        return fn(*args), None
    except Exception as exc:  # noqa: BLE001 - compared by class with NumPy's
        return None, exc


def _arrays_in(value):
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _arrays_in(v)]
    return []


def same_call(fn, jitted, args, state, enter=None):
    """One call of ``fn`` and of ``jitted`` under ``state`` (applied by ``enter``, this
    module's ``world`` by default): same result, exception class, aliasing of the result
    with the inputs, and inputs afterwards."""
    with (enter or world)(state):
        np_args, jit_args = materialize(args), materialize(args)
        expected, np_exc = _outcome(fn, np_args)
        actual, jit_exc = _outcome(jitted, jit_args)
    context = f"call {fn.__name__}{tuple(args)!r} in state {state!r}"
    if np_exc is not None:
        assert jit_exc is not None, f"{context}: NumPy raised {np_exc!r}; jit returned {actual!r}"
        assert type(jit_exc) is type(np_exc), f"{context}: NumPy raised {np_exc!r}; jit raised {jit_exc!r}"
        assert_same(np_args, jit_args, path=f"{context}: inputs after the exception")
        return
    if jit_exc is not None:
        raise AssertionError(f"{context}: jit raised {jit_exc!r}; NumPy returned {expected!r}") from jit_exc
    assert_same(expected, actual, _input_tolerance(np_args), path=f"{context}: result")
    assert_same(np_args, jit_args, path=f"{context}: inputs after the call")
    for e, a in zip(_arrays_in(expected), _arrays_in(actual)):
        for i, (np_in, jit_in) in enumerate(zip(np_args, jit_args)):
            if isinstance(np_in, np.ndarray):
                assert np.shares_memory(e, np_in) == np.shares_memory(a, jit_in), \
                    f"{context}: aliasing of the result with argument {i} differs"


def _input_tolerance(args):
    """A result computed from float32 inputs carries float32 rounding even when it is
    float64 (``a64 / b32 + np.sqrt(b32)``): torch's eager CPU kernels (the eager backend)
    compute sqrt within an ulp, not correctly rounded as NumPy does, so such a result is
    compared at the least precise input's tolerance. None: the result's own."""
    tolerances = [_tolerance(a.dtype) for a in args if isinstance(a, np.ndarray) and a.dtype.kind in "fc"]
    return max(tolerances) if tolerances and max(tolerances) > _tolerance(np.float64) else None


def run_sequence(fn, calls, backend="eager"):
    jitted = npcompile.jit(fn, backend=backend)
    for args, state in calls:
        same_call(fn, jitted, args, state)
    return jitted


@pytest.mark.parametrize("name", sorted(TARGETS))
@given(data=st.data())
def test_call_sequence_matches_numpy(name, data):
    fn, arguments = TARGETS[name]
    calls = data.draw(st.lists(st.tuples(arguments, state), min_size=1, max_size=5), label="calls")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # cache_size_limit warnings: a long sequence may run uncompiled
        run_sequence(fn, calls)


# ---- regressions: sequences hypothesis (or the issue) found ----------------------------
def _sizes(*ns):
    return [((Arr(np.arange(float(n)), "C"),), {}) for n in ns]


@pytest.mark.parametrize("ns", [(5, 1, 3), (5, 3, 0, 4, 1, 6), (1, 4, 0, 7), (0, 3, 1, 5, 2)])
def test_sizes_zero_and_one_stay_specialized(ns):
    jitted = run_sequence(lambda a: a * a.shape[0], _sizes(*ns))
    assert any("2 <= " in e.capture.guards.expression() for e in jitted.entries if e.compiled is not None)


def test_dynamic_int_zero_and_one():
    a = Arr(np.arange(4.0), "C")
    run_sequence(takes_int, [((a, k), {}) for k in (3, 4, 1, 0, 2, 1, 0, 4)])


def test_passed_numpy_function_is_guarded_by_identity():
    a = Arr(np.arange(5.0), "C")
    run_sequence(calls_callable, [((a, np.max), {}), ((a, np.min), {}), ((a, np.sum), {}), ((a, np.max), {})])


@pytest.mark.parametrize("first, second", [
    (functools.partial(np.sum, axis=-1), functools.partial(np.cumsum, axis=0)),
    (functools.partial(helper_with_defaults, k=3), functools.partial(helper_with_defaults, k=4)),
    (operator.itemgetter(0), operator.itemgetter(1)),
    (Scaler(3).apply, Scaler(4).apply),
    (Scaler(3), Scaler(4)),
    (make_adder(1), make_adder(2)),
])
def test_passed_callables_are_guarded(first, second):
    a = Arr(np.arange(5.0), "C")
    run_sequence(calls_callable, [((a, first), {}), ((a, second), {}), ((a, first), {})])


def test_new_partial_of_same_values_reuses_the_graph():
    jitted = run_sequence(calls_callable, [((Arr(np.arange(5.0), "C"), functools.partial(np.cumsum, axis=0)), {})
                                           for _ in range(3)])
    assert jitted.compile_count == 1


def test_attribute_of_object_behind_bound_method_is_guarded():
    a = Arr(np.arange(3.0), "C")
    run_sequence(calls_method_of_global, [((a,), {}), ((a,), {"scaler_k": 5}), ((a,), {"scaler_k": -0.0})])


def test_defaults_of_called_function_are_guarded():
    a = Arr(np.arange(3.0), "C")
    run_sequence(reads_defaults, [((a,), {}), ((a,), {"defaults": (5,)}), ((a,), {"kwdefaults": {"offset": 7}}),
                                  ((a,), {"defaults": (np.float32(2),)})])


def test_monkeypatched_numpy_attribute_is_guarded():
    a = Arr(np.arange(1.0, 4.0), "C")
    run_sequence(calls_np_sum, [((a,), {}), ((a,), {"np_sum": fake_sum}), ((a,), {})])


def test_rebound_module_globals_are_guarded():
    a = Arr(np.arange(3.0), "C")
    run_sequence(reads_globals, [((a,), {}), ((a,), {"TRANSFORM": np.abs}), ((a,), {"SCALE": 0.0}),
                                 ((a,), {"SCALE": -0.0}), ((a,), {"SCALE": float("nan")}), ((a,), {"SCALE": 3})])


def test_float_arguments_zero_sign_and_nan_are_exact():
    a = Arr(np.arange(3.0), "C")
    jitted = run_sequence(lambda a, k: np.copysign(a, k) / k,
                          [((a, k), {}) for k in (0.0, -0.0, float("nan"), float("nan"), 0.0)])
    assert jitted.compile_count == 3


@pytest.mark.parametrize("modes", [{"divide": "raise"}, {"all": "raise"}, {"invalid": "raise"}])
def test_error_state_changed_between_calls(modes):
    a, b = Arr(np.array([1.0, -1.0, 0.0]), "C"), Arr(np.zeros(3), "C")
    run_sequence(divides, [((a, b), {}), ((a, b), {"fp": modes}), ((a, b), {}), ((a, b), {"fp": modes})])


def test_errstate_raise_inside_the_function():
    a, b = Arr(np.ones(2), "C"), Arr(np.zeros(2), "C")
    run_sequence(divides_in_errstate, [((a, b, "raise"), {}), ((a, b, "ignore"), {}), ((a, b, "raise"), {})])


# ---- a few sequences under Inductor ---------------------------------------------------
@pytest.mark.inductor
def test_inductor_sizes_zero_and_one():
    run_sequence(lambda a: a * a.shape[0] + 1, _sizes(5, 1, 3, 0, 4), backend="inductor")


@pytest.mark.inductor
def test_inductor_times_one_returns_a_new_array():
    """Inductor folds a * 1 to its input; NumPy returns a new array."""
    run_sequence(lambda a: a * a.shape[0], _sizes(1), backend="inductor")
    run_sequence(lambda a: (a + 0, a * 1.0, a - 0), _sizes(3), backend="inductor")


def _prints_inside_a_loop(a, n):
    total = a
    for i in range(n):
        total = total + i
        print("at", i)
    return total


@pytest.mark.inductor
def test_inductor_graph_returning_an_int_input_at_a_break():
    """A loop segment hands its int counter back as it got it: a value, never copied
    like a tensor input the graph returns (that raised, demoting the graph with a warning)."""
    jitted = npcompile.jit(_prints_inside_a_loop, backend="inductor")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)   # (run_sequence's calls silence warnings)
        for n in (2, 3, 4):
            assert_same(_prints_inside_a_loop(np.arange(3.0), n), jitted(np.arange(3.0), n))


@pytest.mark.inductor
def test_inductor_callables_defaults_and_error_state():
    a, b = Arr(np.arange(4.0), "C"), Arr(np.zeros(4), "C")
    run_sequence(calls_callable, [((a, np.max), {}), ((a, np.min), {})], backend="inductor")
    run_sequence(reads_defaults, [((a,), {}), ((a,), {"defaults": (5,)})], backend="inductor")
    run_sequence(divides, [((a, b), {}), ((a, b), {"fp": {"divide": "raise"}})], backend="inductor")


def test_rank_drop_after_dims_went_dynamic():
    """Found by hypothesis: dims marked dynamic for a 2-D input applied to a 0-D one."""
    run_sequence(calls_callable, [((Arr(np.zeros((0, 0), bool), "C"), np.sum), {}),
                                  ((Arr(np.zeros((0, 1), bool), "C"), np.sum), {}),
                                  ((Arr(np.array(False), "C"), np.sum), {})])


def test_negative_strides_are_copied_in_and_guarded():
    """A reversed argument the function only reads is computed on through a C copy
    (a staged entry of its own); the C-contiguous calls keep their own entry, and no
    call after the first of each layout and size recompiles."""
    calls = [((Arr(np.arange(n, dtype=float), layout), ), {})
             for n, layout in ((3, "reversed"), (3, "C"), (1, "reversed"), (3, "C"), (3, "reversed"))]
    jitted = run_sequence(lambda a: a + 1, calls)
    assert jitted.compile_count == 3
    assert not jitted.breaks


def test_float32_sqrt_inside_a_float64_result_after_empty_calls():
    """Hypothesis found it: torch's eager float32 sqrt(55) is 1 ulp above NumPy's."""
    empty = Arr(np.array([], dtype=np.float32), "C")
    run_sequence(divides, [((empty, empty), {})] * 4
                 + [((Arr(np.array([0.0]), "C"), Arr(np.array([55.0], dtype=np.float32), "C")), {})])


def test_bool_size():
    run_sequence(takes_int, [((Arr(np.arange(3.0), "C"), False), {})])


def test_nan_stored_into_int_scalar_array():
    """NumPy stores a scalar into an int array by Python's int(): NaN is a ValueError."""
    run_sequence(scales_in_place, [((Arr(np.array(0, dtype=np.int8), "C"), float("nan")), {})])


def test_out_of_range_float_stored_into_int_scalar_array():
    """52 * 2.5 is 130.0, out of int8's range: OverflowError, and the input is left as it was."""
    run_sequence(scales_in_place, [((Arr(np.array(52, dtype=np.int8), "C"), 2.5), {}),
                                   ((Arr(np.array(52, dtype=np.int8), "C"), 2.0), {}),
                                   ((Arr(np.array([52, 1], dtype=np.int16), "C"), float("inf")), {}),
                                   ((Arr(np.array(-52, dtype=np.int8), "C"), 2.5), {})])


def stores_product_into_first(a, k):
    a[0] = a[0] * k
    return a


def test_store_checks_after_the_trace_went_through_a_good_value():
    """The check is made on every call of the compiled graph, not once when tracing."""
    calls = [((Arr(np.array(v, dtype=dt), "C"), k), {})
             for v, dt, k in (([2, 3], np.int8, 2.0), ([5, 3], np.int8, 1.5), ([100, 3], np.int8, 2.0),
                              ([1, 3], np.int32, float("nan")), ([1, 3], np.int32, 1e10), ([4, 3], np.int8, 0.5))]
    run_sequence(stores_product_into_first, calls)


def test_dynamic_int_out_of_bounds_for_the_array_dtype():
    a = Arr(np.array([0, 1], dtype=np.uint8), "C")
    run_sequence(scales_in_place, [((a, 2), {}), ((a, 3), {}), ((a, -1), {}), ((a, 4), {}), ((a, 256), {})])


def test_dynamic_int_out_of_bounds_in_a_graph_without_writes():
    """No write into an input: the graph is compiled once the int went dynamic, guarded
    on the int's range; an int outside it traces again, and tracing raises NumPy's error."""
    a = Arr(np.array([0, 1], dtype=np.uint8), "C")
    jitted = run_sequence(lambda a, k: a * k + 1, [((a, k), {}) for k in (2, 3, -1, 4, 300, 255, 5, -7, 6)])
    assert jitted.compile_count == 2


def test_dynamic_int_out_of_range_compares_by_value():
    """NumPy 2 compares an int outside the array's dtype by value (all True or all False)."""
    a = Arr(np.array([0, 1], dtype=np.uint8), "C")
    for compare in (operator.lt, operator.eq, operator.ge):
        run_sequence(lambda a, k: compare(a, k), [((a, k), {}) for k in (2, 3, -1, 4, 300, 1)])


def bumps_then_stores(a, k):
    a[1] = a[1] + 1
    a[0] = a[0] * k
    return a


def test_value_check_after_a_write_through_a_view():
    run_sequence(bumps_then_stores, [((Arr(np.array([52, 0], dtype=np.int8), "C"), 2.0), {}),
                                     ((Arr(np.array([52, 0], dtype=np.int8), "C"), 2.5), {})])


def top_level_with_defaults(a, k=2, *, offset=0):
    return a * k + offset


def test_defaults_of_the_jitted_function_itself():
    original = top_level_with_defaults.__defaults__, top_level_with_defaults.__kwdefaults__
    jitted = npcompile.jit(top_level_with_defaults, backend="eager")
    try:
        assert_same(np.arange(3.0) * 2, jitted(np.arange(3.0)))
        top_level_with_defaults.__defaults__ = (5,)
        assert_same(np.arange(3.0) * 5, jitted(np.arange(3.0)))
        top_level_with_defaults.__kwdefaults__ = {"offset": 1}
        assert_same(np.arange(3.0) * 5 + 1, jitted(np.arange(3.0)))
    finally:
        top_level_with_defaults.__defaults__, top_level_with_defaults.__kwdefaults__ = original


@pytest.mark.inductor
@pytest.mark.parametrize("name", ["reads_sizes", "calls_callable", "divides"])
@settings(max_examples=3)
@given(data=st.data())
def test_inductor_call_sequence_matches_numpy(name, data):
    fn, arguments = TARGETS[name]
    calls = data.draw(st.lists(st.tuples(arguments, state), min_size=2, max_size=3), label="calls")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_sequence(fn, calls, backend="inductor")
