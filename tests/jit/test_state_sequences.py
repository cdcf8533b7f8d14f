"""Call sequences over module and function state (issue 13, item 3): the same jitted
function called again and again while, between calls, something its trace relied on
changes: a callable argument, a helper's ``__code__``, ``__defaults__`` or
``__kwdefaults__``, the jitted function's own ``__code__``, a global it reads (a number,
an array, a function), NumPy's error state (``np.seterr``), an attribute of a module it
uses (monkeypatched, NumPy's own included), a closure cell's value, a global
``functools.partial`` (rebound, or changed in place by ``__setstate__``). Every call is
compared with the same sequence run in plain NumPy: the result's type, dtype, shape and
values, the exception class, and the input afterwards. A graph reused where the state it
was traced under no longer holds gives the old answer, which the comparison catches.

The state persists along a sequence (each step changes one thing, then calls) and is put
back after it. NumPy's RuntimeWarnings are not compared: compiled code computes NumPy's
values without warning (npcompile/trace/fp_state.py).

Also here: a 0-d array passed as a ufunc's ``out=`` (issue 13 item 3.2), at a graph break
and inside a compiled segment: the write lands and the result is the out array itself.
"""
import contextlib
import functools
import sys
import types
import warnings

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import npcompile
from tests.oracle import assert_same


# ---- the state the targets read -------------------------------------------------------
def helper(a, k=2.0, *, shift=0.0):
    return a * k + shift


def _helper_minus(a, k=2.0, *, shift=0.0):
    return a - k - shift


def _helper_where(a, k=2.0, *, shift=0.0):
    return np.where(a > k, a, shift)


HELPER_CODES = {"times": helper.__code__, "minus": _helper_minus.__code__, "where": _helper_where.__code__}

NUMBER = 2
TABLE = np.arange(4.0)
TRANSFORM = np.negative
PARTIAL = functools.partial(np.add, 1.0)

tools = types.ModuleType("state_sequences_tools")   # a module the targets use by attribute
tools.op = np.add
tools.k = 1.0
sys.modules[tools.__name__] = tools


def _cells():
    """A function reading a closure cell and a setter of that cell (``nonlocal``)."""
    factor = 1.0

    def scaled(a):
        return a * factor

    def set_factor(value):
        nonlocal factor
        factor = value
    return scaled, set_factor


cell_helper, _set_helper_cell = _cells()


# ---- the targets: (a, fn) -> result ---------------------------------------------------
def t_helper(a, fn):
    return helper(a) + helper(a, 0.5)


def t_globals(a, fn):
    return TRANSFORM(a) * NUMBER + TABLE


def t_callable(a, fn):
    return fn(a) + 1


def t_module(a, fn):
    return tools.op(a, tools.k) + np.max(a)


def t_helper_cell(a, fn):
    return cell_helper(a) + NUMBER


def t_partial(a, fn):
    return PARTIAL(a) * 2


def t_divides(a, fn):
    return a / (a - a) + fn(a)


def t_break(a, fn):
    b = helper(a)
    npcompile.graph_break()
    return helper(b, 0.5) + fn(a) * NUMBER


def t_loop(a, fn):
    total = a * 0
    for i in range(3):
        total = total + helper(a) * i
        if np.max(total) > 1e300:   # a data-dependent jump: the runtime drives the loop
            break
    return total


def t_main_code(a, fn):
    return a * 2 + fn(a)


def _main_minus(a, fn):
    return a - fn(a)


def _main_calls_helper(a, fn):
    return helper(a, 3) + fn(a)


def _main_star(*args):   # another signature: the call binds by the code it has now
    a, fn = args
    return fn(a) * 2


MAIN_CODES = {"twice": t_main_code.__code__, "minus": _main_minus.__code__,
              "helper": _main_calls_helper.__code__, "star": _main_star.__code__}


def _own_cell_target():
    offset = 1.0

    def t_own_cell(a, fn):
        return a + offset + fn(a)

    def set_offset(value):
        nonlocal offset
        offset = value
    return t_own_cell, set_offset


t_own_cell, _set_own_cell = _own_cell_target()

TARGETS = {f.__name__: f for f in (t_helper, t_globals, t_callable, t_module, t_helper_cell, t_partial,
                                    t_divides, t_break, t_loop, t_main_code, t_own_cell)}

# ---- the changes made between calls ---------------------------------------------------
CALLABLES = {"max": np.max, "min": np.min, "cumsum": np.cumsum, "times3": lambda a: a * 3,
             "helper": helper, "abs": abs}
TABLES = {"f64": np.arange(4.0), "i64": np.arange(4), "f32": np.linspace(0, 1, 4, dtype=np.float32),
          "zeros": np.zeros(4), "bool": np.array([True, False, True, True])}
TRANSFORMS = {"negative": np.negative, "abs": np.abs, "helper": helper, "lambda": lambda a: a + 10}
PARTIALS = {"add1": (np.add, (1.0,)), "add2": (np.add, (2.0,)), "mul3": (np.multiply, (3,)),
            "sub_f32": (np.subtract, (np.float32(0.5),))}
NUMBERS = [2, 3, 0.5, -0.0, 0.0, np.float32(3), True, -1]
MODULE_OPS = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "lambda": lambda x, y: x - y}
NP_MAX = {"max": np.max, "min": np.min}
FP_MODES = ["ignore", "warn", "raise"]

CHANGES = {
    "fn": st.sampled_from(sorted(CALLABLES)),
    "helper_code": st.sampled_from(sorted(HELPER_CODES)),
    "helper_defaults": st.sampled_from(NUMBERS),
    "helper_kwdefaults": st.sampled_from(NUMBERS),
    "main_code": st.sampled_from(sorted(MAIN_CODES)),
    "NUMBER": st.sampled_from(NUMBERS),
    "TABLE": st.sampled_from(sorted(TABLES)),
    "TRANSFORM": st.sampled_from(sorted(TRANSFORMS)),
    "seterr": st.sampled_from(FP_MODES),
    "tools.op": st.sampled_from(sorted(MODULE_OPS)),
    "tools.k": st.sampled_from(NUMBERS),
    "np.max": st.sampled_from(sorted(NP_MAX)),
    "cell": st.sampled_from(NUMBERS),
    "partial": st.sampled_from(sorted(PARTIALS)),
    "partial_setstate": st.sampled_from(sorted(PARTIALS)),
}
changes = st.one_of([st.tuples(st.just(kind), values) for kind, values in sorted(CHANGES.items())])
DTYPES = ["float64", "float32", "int64"]
inputs = st.tuples(st.sampled_from(DTYPES), st.lists(st.integers(-3, 5), min_size=4, max_size=4).map(tuple))
steps = st.lists(st.tuples(changes, inputs), min_size=1, max_size=6)


@contextlib.contextmanager
def _state():
    """Whatever a sequence changes, put back afterwards (and NumPy's error state)."""
    g = globals()
    saved = {name: g[name] for name in ("NUMBER", "TABLE", "TRANSFORM", "PARTIAL")}
    saved_helper = (helper.__code__, helper.__defaults__, helper.__kwdefaults__)
    saved_tools = (tools.op, tools.k)
    saved_max, saved_code = np.max, t_main_code.__code__
    try:
        with np.errstate(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        g.update(saved)
        helper.__code__, helper.__defaults__, helper.__kwdefaults__ = saved_helper
        tools.op, tools.k = saved_tools
        np.max, t_main_code.__code__ = saved_max, saved_code
        _set_helper_cell(1.0)
        _set_own_cell(1.0)


def _apply(change, call):
    """Make one change (``call``: the argument list, whose callable it may replace)."""
    kind, value = change
    g = globals()
    if kind == "fn":
        call["fn"] = CALLABLES[value]
    elif kind == "helper_code":
        helper.__code__ = HELPER_CODES[value]
    elif kind == "helper_defaults":
        helper.__defaults__ = (value,)
    elif kind == "helper_kwdefaults":
        helper.__kwdefaults__ = {"shift": value}
    elif kind == "main_code":
        t_main_code.__code__ = MAIN_CODES[value]
    elif kind == "NUMBER":
        g[kind] = value
    elif kind in ("TABLE", "TRANSFORM"):
        g[kind] = (TABLES if kind == "TABLE" else TRANSFORMS)[value]
    elif kind == "seterr":
        np.seterr(all=value)
    elif kind == "tools.op":
        tools.op = MODULE_OPS[value]
    elif kind == "tools.k":
        tools.k = value
    elif kind == "np.max":
        np.max = NP_MAX[value]
    elif kind == "cell":
        _set_helper_cell(value)
        _set_own_cell(value)
    elif kind == "partial":
        func, args = PARTIALS[value]
        g["PARTIAL"] = functools.partial(func, *args)
    elif kind == "partial_setstate":
        func, args = PARTIALS[value]
        PARTIAL.__setstate__((func, args, {}, None))
    else:
        raise AssertionError(kind)


def _outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as exc:  # noqa: BLE001 - compared by class with NumPy's
        return None, exc


def run_sequence(name, sequence, backend="eager"):
    """Each step: one change, then the target called in NumPy and jitted on fresh copies
    of the input; everything NumPy returns (or raises) and the input after compared."""
    target = TARGETS[name]
    jitted = npcompile.jit(target, backend=backend)
    call = {"fn": np.max}
    with _state():
        for k, (change, (dtype, values)) in enumerate(sequence):
            _apply(change, call)
            a = np.array(values, dtype=dtype)
            np_a, jit_a = a.copy(), a.copy()
            expected, np_exc = _outcome(target, np_a, call["fn"])
            actual, jit_exc = _outcome(jitted, jit_a, call["fn"])
            where = f"{name}: call {k} after {change!r} on {a!r} (sequence {sequence!r})"
            if np_exc is not None:
                assert type(jit_exc) is type(np_exc), f"{where}: NumPy raised {np_exc!r}, jit {jit_exc!r} / {actual!r}"
            elif jit_exc is not None:
                raise AssertionError(f"{where}: jit raised {jit_exc!r}; NumPy returned {expected!r}") from jit_exc
            else:
                assert_same(expected, actual, path=f"{where}: result")
            assert_same(np_a, jit_a, path=f"{where}: the input after the call")
    return jitted


F = ("float64", (1, 2, 3, 4))


# the counterexamples found (each failed before the change that fixed it)
@example(name="t_helper", sequence=[(("fn", "max"), F), (("helper_code", "minus"), F)])
@example(name="t_break", sequence=[(("fn", "max"), F), (("helper_code", "where"), F)])
@example(name="t_loop", sequence=[(("fn", "max"), F), (("helper_code", "minus"), F)])
@example(name="t_main_code", sequence=[(("fn", "max"), F), (("main_code", "minus"), F),
                                        (("main_code", "helper"), F), (("helper_code", "minus"), F)])
@given(name=st.sampled_from(sorted(TARGETS)), sequence=steps)
def test_state_sequence_matches_numpy(name, sequence):
    run_sequence(name, sequence)


# ---- each kind of change, once, by table ----------------------------------------------
TABLE_CASES = [
    ("t_callable", [("fn", "max"), ("fn", "min"), ("fn", "times3"), ("fn", "max")]),
    ("t_helper", [("fn", "max"), ("helper_defaults", 3), ("helper_kwdefaults", -0.0), ("helper_code", "where"),
                  ("helper_code", "times")]),
    ("t_globals", [("fn", "max"), ("NUMBER", 0.5), ("TABLE", "i64"), ("TRANSFORM", "helper"),
                   ("helper_code", "minus"), ("TRANSFORM", "lambda")]),
    ("t_module", [("fn", "max"), ("tools.op", "multiply"), ("tools.k", -1), ("np.max", "min")]),
    ("t_helper_cell", [("fn", "max"), ("cell", 3), ("cell", -0.0)]),
    ("t_own_cell", [("fn", "max"), ("cell", 3), ("fn", "cumsum"), ("cell", 0.5)]),
    ("t_partial", [("fn", "max"), ("partial", "mul3"), ("partial_setstate", "sub_f32"), ("partial", "add1")]),
    ("t_divides", [("seterr", "ignore"), ("seterr", "raise"), ("seterr", "warn"), ("seterr", "raise")]),
    ("t_main_code", [("fn", "max"), ("main_code", "minus"), ("main_code", "helper"), ("helper_defaults", 5),
                     ("main_code", "star"), ("main_code", "twice")]),
    ("t_break", [("fn", "max"), ("helper_code", "minus"), ("helper_defaults", 0.5)]),
    ("t_loop", [("fn", "max"), ("helper_code", "where"), ("helper_defaults", 5)]),
]


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("name, changes_", TABLE_CASES, ids=[c[0] for c in TABLE_CASES])
def test_each_kind_of_change(name, changes_, backend):
    run_sequence(name, [(change, F) for change in changes_], backend)


def test_unchanged_state_reuses_the_graph():
    """The guards on code are identity tests: calls with nothing changed compile once."""
    jitted = run_sequence("t_helper", [(("fn", "max"), F)] * 3)
    assert jitted.compile_count == 1
    jitted = run_sequence("t_main_code", [(("main_code", "minus"), F)] * 3)
    assert jitted.compile_count == 1
    assert jitted.recompile_reasons == ["t_main_code.__code__ was assigned"]


# ---- native loop kernels (the Inductor backend's path for element-indexing loops) -------
def _running_sum(a, out):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s
    return out


def _running_max(a, out):
    s = a[0]
    for i in range(a.shape[0]):
        s = max(s, a[i])
        out[i] = s
    return out


def _step(x, k=1.0):
    return x * k


def _step_minus(x, k=1.0):
    return x - k


def _calls_step(a, out):
    for i in range(a.shape[0]):
        out[i] = _step(a[i])
    return out


@pytest.mark.inductor
@pytest.mark.parametrize("change", ["own_code", "helper_code", "helper_defaults"])
def test_native_kernel_follows_code_and_defaults(change):
    pytest.importorskip("numba")   # the native path needs it (the loops extra)
    fn = _running_sum if change == "own_code" else _calls_step
    saved = (fn.__code__, _step.__code__, _step.__defaults__)
    jitted = npcompile.jit(fn)
    try:
        for k in range(3):
            if k == 2:
                if change == "own_code":
                    fn.__code__ = _running_max.__code__
                elif change == "helper_code":
                    _step.__code__ = _step_minus.__code__
                else:
                    _step.__defaults__ = (4.0,)
            a = np.array([3.0, -1.0, 5.0, 2.0])
            expected, actual = fn(a, np.zeros(4)), jitted(a, np.zeros(4))
            assert_same(expected, actual, path=f"call {k}")
            if k == 1:   # the calls before the change took a native kernel
                assert jitted._native, jitted.native_refusals
    finally:
        fn.__code__, _step.__code__, _step.__defaults__ = saved


# ---- a method found through a class, not through a guarded attribute ----------------------
class _Scaler:
    def apply(self, a, k=2.0):
        return a * k


def _calls_method(a, fn):
    return _Scaler().apply(a)


@pytest.mark.parametrize("change", ["code", "defaults", "rebound"])
def test_method_of_a_class_follows_its_changes(change):
    saved = _Scaler.__dict__["apply"]
    saved_code, saved_defaults = saved.__code__, saved.__defaults__
    jitted = npcompile.jit(_calls_method, backend="eager")
    a = np.arange(4.0)
    try:
        jitted(a, None)
        if change == "code":
            _Scaler.apply.__code__ = (lambda self, a, k=2.0: a - k).__code__
        elif change == "defaults":
            _Scaler.apply.__defaults__ = (7.0,)
        else:
            _Scaler.apply = lambda self, a, k=2.0: a + k
        assert_same(_calls_method(a, None), jitted(a, None))
    finally:
        _Scaler.apply = saved
        saved.__code__, saved.__defaults__ = saved_code, saved_defaults


# ---- a 0-d array as a ufunc's out= -------------------------------------------------------
def _out_at_break(a, z):
    s = a.sum()
    print(end="")
    return np.add(s, 1, out=z)


def _out_at_break_inline(a, z):
    print(end="")
    r = np.add(a.sum(), 1, out=z)
    return r, r is z


def _out_inside(a, z):
    r = np.add(a.sum(), 1, out=z)
    return r, r is z


def _out_tuple(a, z):
    return np.multiply(a[0], 2.0, out=(z,))


def _out_then_break(a, z):
    r = np.negative(a[1], out=z)
    print(end="")
    r += 1
    return r, z


def _out_in_loop(a, z):
    for i in range(3):
        np.add(z, a[i], out=z)
        print(end="")
    return z


def _out_reduce(a, z):
    return np.add.reduce(a, out=z), a.sum(out=z)


OUT_CASES = [_out_at_break, _out_at_break_inline, _out_inside, _out_tuple, _out_then_break, _out_in_loop,
             _out_reduce]


def _describe(value, z):
    """Type, dtype, value and whether it is ``z`` itself, of a result and its items."""
    if isinstance(value, tuple):
        return tuple(_describe(v, z) for v in value)
    return type(value), getattr(value, "dtype", None), repr(value), value is z


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("z_dtype", ["float64", "float32", "int64", "complex128"])
@pytest.mark.parametrize("fn", OUT_CASES, ids=[f.__name__ for f in OUT_CASES])
def test_zero_d_out_is_the_result(fn, z_dtype, backend):
    """NumPy writes into the 0-d out array and returns it (an ndarray, not a scalar)."""
    jitted = npcompile.jit(fn, backend=backend)
    for call in range(2):
        outcomes = []
        for f in (fn, jitted):
            a, z = np.arange(1.0, 5.0), np.zeros((), z_dtype)
            result, exc = _outcome(f, a, z)
            outcomes.append((type(exc), _describe(result, z), repr(z), repr(a)))
        assert outcomes[0] == outcomes[1], f"call {call}"


# ---- a 0-d view of an input (b[2, ...]) as out=, held at a break, or returned ------------
def _out_into_view(a, b):
    z = b[2, ...]
    r = np.add(a.sum(), 1, out=z)
    return r, r is z, b


def _out_into_view_after_break(a, b):
    z = b[2, ...]
    print(end="")
    r = np.add(a.sum(), 1, out=z)
    return r, b


def _view_written_after_break(a, b):
    z = b[..., 2]
    print(end="")
    z += a[0] + 1
    return b


def _view_returned(a, b):
    return b[2, ...], a[1, ...]


VIEW_CASES = [_out_into_view, _out_into_view_after_break, _view_written_after_break, _view_returned]


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("fn", VIEW_CASES, ids=[f.__name__ for f in VIEW_CASES])
def test_zero_d_view_of_an_input_stays_a_view(fn, backend):
    """NumPy's ``b[2, ...]`` is a 0-d ndarray viewing ``b``: written through (as out=,
    or after a graph break), the write lands in ``b``; returned, it is that view."""
    jitted = npcompile.jit(fn, backend=backend)
    for call in range(2):
        outcomes = []
        for f in (fn, jitted):
            a, b = np.arange(1.0, 5.0), np.arange(5.0)
            result, exc = _outcome(f, a, b)
            outcomes.append((type(exc), _describe(result, None), repr(a), repr(b)))
        assert outcomes[0] == outcomes[1], f"call {call}"
