"""Call sequences where the world a trace relied on changes between calls, in the ways
test_call_sequences.py does not draw: a builtin shadowed by a module global (or changed
in a function's own builtins dict) that appears, changes or disappears; a global read
through ``globals()`` or ``sys.modules[__name__]``; an attribute that appears or
disappears under ``getattr(o, name, default)`` / ``hasattr`` (on an instance, its class,
a module); arguments and globals equal under ``==`` but of other types or zero signs
(slices, ranges, dict keys, tuple/list items); a module imported inside the function
whose attribute is monkeypatched; warnings filters that make NumPy's RuntimeWarning an
exception. Each call is compared with plain NumPy under the same world.

The targets live in modules made here (``exec`` into fresh module objects registered in
``sys.modules``), so shadowing ``len`` or ``range`` there leaves this file's code alone.
"""
import builtins
import contextlib
import math
import sys
import types
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npcompile
from tests.jit.test_call_sequences import Arr, arrays, fake_sum, same_call

# ---- the modules the targets live in ------------------------------------------------------
TARGETS_NAME, HELPERS_NAME, SETTINGS_NAME = "seq_world_targets", "seq_world_helpers", "seq_world_settings"

HELPERS_SOURCE = '''
def helper(a):
    return abs(a) + len(a)
'''

TARGETS_SOURCE = '''
import math
import sys
import warnings

import numpy as np

from seq_world_helpers import helper


class Cfg:
    pass


CFG = Cfg()


def builtins_of_arrays(a):
    n = len(a)
    return abs(a) * n + max(n, 1) - min(n, 2) + sum([1, 2]) + round(2.5)


def builtins_of_values(a, x):
    if isinstance(x, (int, float)):
        return a * int(x) + float(x)
    return a


def builtin_range(a):
    total = a * 0
    for i in range(3):
        total = total + a * i
    return total


def builtins_of_a_helper(a):
    return helper(a) * 2


def reads_global(a):
    return a * K


def reads_globals_dict(a):
    return a * globals().get("K", 1.5)


def reads_own_module(a):
    return a * getattr(sys.modules[__name__], "K", 2.5)


def getattr_instance(a):
    return a * getattr(CFG, "scale", 1.0)


def hasattr_class(a):
    return a * (2.0 if hasattr(Cfg, "scale") else 3.0)


def getattr_module(a):
    import seq_world_settings
    return a * getattr(seq_world_settings, "shift", 4.0)


def imports_settings(a):
    import seq_world_settings as s
    return a * s.scale + getattr(s, "shift", 0.0)


def from_imports_settings(a):
    from seq_world_settings import scale
    return np.int8(1) * scale + a


def imports_math(a, x):
    import math as m
    return a + m.floor(x)


def from_numpy_sum(a):
    from numpy import sum
    return sum(a) * 2


def global_tuple(a):
    return np.array(TUP), np.int8(1) * TUP[0], np.signbit(TUP[1]) + a


def index_slice(a, s):
    return a[s]


def slice_parts(a, s):
    return np.int8(1) * s.start, np.array(s.stop), math.copysign(1.0, s.step or 1)


def range_parts(a, r):
    return a * r.start + r.stop * 10 + r.step * 100, np.array(r.stop), repr(r)


def dict_keys(a, d):
    return [(np.int8(1) * k, np.array(k), math.copysign(1.0, k)) for k in d]


def sequence_items(a, t):
    return np.array(t), np.int8(1) * t[0], np.signbit(t[1]), type(t).__name__


def divides(a, b):
    return a / b


def logs(a):
    return np.log(a) + 1


def divides_under_module_filter(a, b):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning, module=__name__)
        return a / b


def logs_under_module_filter(a):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning, module=__name__)
        return np.log(a)


def divides_under_filter(a, b, action):
    with warnings.catch_warnings():
        warnings.simplefilter(action, RuntimeWarning)
        return a / b
'''


def _module(name, text, own_builtins=None):
    module = types.ModuleType(name)
    if own_builtins is not None:
        module.__dict__["__builtins__"] = own_builtins
    sys.modules[name] = module   # before exec: the targets import the helpers by name
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


SETTINGS = types.ModuleType(SETTINGS_NAME)
SETTINGS.scale = 2.0
sys.modules[SETTINGS_NAME] = SETTINGS
HELPERS = _module(HELPERS_NAME, HELPERS_SOURCE)
TARGETS = _module(TARGETS_NAME, TARGETS_SOURCE)
OWN_BUILTINS = dict(builtins.__dict__)   # a function's own builtins dict (exec with one, as sandboxes do)
OWN_SOURCE = '''
import npcompile


def builtins_of_arrays(a):
    return abs(a) * len(a) + max(1, 2)


@npcompile.disable(recursive=False)
def runs_for_real(a):
    return abs(a) + len(a)


def calls_a_frame_run_for_real(a):
    return runs_for_real(a) * 2
'''
OWN = _module("seq_world_own_builtins", OWN_SOURCE, own_builtins=OWN_BUILTINS)

# ---- the world --------------------------------------------------------------------------------
SHADOWS = {
    "abs": [lambda x: x * 3, np.negative], "len": [lambda x: 7, np.size],
    "min": [lambda *x: -4], "max": [lambda *x: 9.5], "sum": [lambda x, start=0: 11, np.sum],
    "round": [lambda x, n=None: 6, math.floor], "int": [float, bool], "float": [int, np.float32],
    "isinstance": [lambda o, t: False], "range": [lambda n: [2, 5], lambda n: builtins.range(n + 1)],
}
NAMESPACES = {"targets": TARGETS.__dict__, "helpers": HELPERS.__dict__, "own": OWN_BUILTINS}
EQUAL_VALUES = [1, 1.0, True, np.int16(1), np.float32(1.0), 2, 0.0, -0.0]
ORIGINAL_FLOOR = math.floor


def patched_floor(x):
    """What ``math.floor`` is monkeypatched to."""
    return ORIGINAL_FLOOR(x) + 100


class Hooked:
    """An object whose ``__getattr__`` answers names put in ``extra``."""


scales = st.sampled_from([2.0, 2, True, np.float32(2.0), -0.0, 0.0, 5.0])
tuples = st.lists(st.sampled_from(EQUAL_VALUES), min_size=2, max_size=3).flatmap(
    lambda items: st.sampled_from([tuple(items), list(items)]))
filters = st.sampled_from([None, "ignore", "always", "error", "error_divide", "error_invalid", "error_module",
                           "error_appended", "error_all"])
fp_modes = st.fixed_dictionaries({}, optional={kind: st.sampled_from(["ignore", "warn", "raise"])
                                               for kind in ("all", "divide", "invalid")})

WORLD = {"K": scales, "TUP": tuples, "instance_scale": scales, "class_scale": scales,
         "settings_scale": scales, "settings_shift": scales, "math_floor": st.just(patched_floor),
         "np_sum": st.just(fake_sum), "filter": filters, "fp": fp_modes}


def worlds(*keys, shadow=None):
    """States of the world drawn from ``keys`` (and builtins ``shadow = (namespaces,
    names)`` shadowed there), the parts a target reads: a change it would see is drawn
    often."""
    optional = {k: WORLD[k] for k in keys}
    if shadow is not None:
        where, names = shadow
        optional["shadow"] = st.dictionaries(st.tuples(st.sampled_from(where), st.sampled_from(names)),
                                             st.integers(0, 1), max_size=2)
    return st.fixed_dictionaries({}, optional=optional)


def _set(obj, name, value):
    """Set ``obj.name`` to ``value``, or delete it where ``value`` is ``_ABSENT``."""
    if value is _ABSENT:
        if name in vars(obj):
            delattr(obj, name)
    else:
        setattr(obj, name, value)


_ABSENT = object()


def _apply_filter(kind):
    """Warnings filters as a user sets them before a call (inside ``catch_warnings``)."""
    if kind is None:
        return
    if kind in ("ignore", "always", "error"):
        warnings.simplefilter(kind, RuntimeWarning)
    elif kind == "error_divide":
        warnings.filterwarnings("error", "divide by zero", RuntimeWarning)
    elif kind == "error_invalid":
        warnings.filterwarnings("error", "invalid value", RuntimeWarning)
    elif kind == "error_module":
        warnings.filterwarnings("error", category=RuntimeWarning, module=TARGETS_NAME)
    elif kind == "error_appended":   # after the 'ignore' catch-all: never reached
        warnings.filterwarnings("error", category=RuntimeWarning, append=True)
    elif kind == "error_all":
        warnings.simplefilter("error")


@contextlib.contextmanager
def world(state):
    """Apply ``state`` for one plain and one jitted call, then put everything back."""
    applied = []
    for (where, name), which in state.get("shadow", {}).items():
        NAMESPACES[where][name] = SHADOWS[name][which % len(SHADOWS[name])]
        applied.append((where, name))
    TARGETS.__dict__["K"] = state.get("K", 3.0)
    TARGETS.__dict__["TUP"] = state.get("TUP", (1, 0.0))
    _set(TARGETS.CFG, "scale", state.get("instance_scale", _ABSENT))
    _set(TARGETS.Cfg, "scale", state.get("class_scale", _ABSENT))
    SETTINGS.scale = state.get("settings_scale", 2.0)
    _set(SETTINGS, "shift", state.get("settings_shift", _ABSENT))
    math.floor = state.get("math_floor", ORIGINAL_FLOOR)
    np.sum = state.get("np_sum", _NP_SUM)
    try:
        with np.errstate(**state.get("fp", {})), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _apply_filter(state.get("filter"))
            yield
    finally:
        math.floor, np.sum = ORIGINAL_FLOOR, _NP_SUM
        for where, name in applied:
            if name in builtins.__dict__ and where == "own":
                OWN_BUILTINS[name] = builtins.__dict__[name]
            else:
                NAMESPACES[where].pop(name, None)
        _set(TARGETS.CFG, "scale", _ABSENT)
        _set(TARGETS.Cfg, "scale", _ABSENT)
        _set(SETTINGS, "shift", _ABSENT)
        SETTINGS.scale = 2.0


_NP_SUM = np.sum


# ---- targets and their arguments -----------------------------------------------------------
def run_sequence(fn, calls, backend="eager"):
    jitted = npcompile.jit(fn, backend=backend)
    with warnings.catch_warnings(record=True):   # cache_size_limit warnings, and a target's 'always'
        warnings.simplefilter("ignore")
        for args, state in calls:
            same_call(fn, jitted, args, state, world)
    return jitted


F64 = np.dtype("float64")
small = arrays(dtypes=[F64, np.dtype("int64"), np.dtype("float32")], min_dims=1, max_dims=2)
zeros_and_signs = st.lists(st.sampled_from([0.0, -0.0, 1.0, -2.0, np.nan, np.inf]), min_size=1, max_size=4)
signed = zeros_and_signs.map(lambda v: Arr(np.array(v), "C"))
slices = st.sampled_from([slice(1, 3), slice(1.0, 3), slice(np.int64(1), 3), slice(True, 3), slice(1, 3, 1),
                          slice(1, 3, 1.0), slice(None, None, 2), slice(None, None, 2.0), slice(0, 2),
                          slice(-0.0, 2), slice(0.0, 2), slice(1, np.int16(3), 1)])
ranges = st.sampled_from([range(0), range(5, 5), range(1, 2), range(1, 3, 5), range(True, 2), range(3),
                          range(0, 3, 1)])
keys = st.lists(st.sampled_from(EQUAL_VALUES), max_size=3).map(lambda ks: {k: "x" for k in ks})
values = st.sampled_from([2, 2.0, True, -0.0, 2.5, np.float32(2.0), None])
filter_actions = st.sampled_from(["ignore", "error", "always", "default"])

ARRAY_BUILTINS = ("abs", "len", "max", "min", "sum", "round")
TARGET_ARGS = {   # name: (arguments, world)
    "builtins_of_arrays": (st.tuples(small), worlds(shadow=(["targets"], ARRAY_BUILTINS))),
    "builtins_of_values": (st.tuples(small, values), worlds(shadow=(["targets"], ("isinstance", "int", "float")))),
    "builtin_range": (st.tuples(small), worlds(shadow=(["targets"], ("range",)))),
    "builtins_of_a_helper": (st.tuples(small), worlds(shadow=(["targets", "helpers"], ("abs", "len")))),
    "own:builtins_of_arrays": (st.tuples(small), worlds(shadow=(["own"], ("abs", "len", "max")))),
    "own:calls_a_frame_run_for_real": (st.tuples(small), worlds(shadow=(["own"], ("abs", "len")))),
    "reads_global": (st.tuples(small), worlds("K")),
    "reads_globals_dict": (st.tuples(small), worlds("K")),
    "reads_own_module": (st.tuples(small), worlds("K")),
    "getattr_instance": (st.tuples(small), worlds("instance_scale", "class_scale")),
    "hasattr_class": (st.tuples(small), worlds("class_scale")),
    "getattr_module": (st.tuples(small), worlds("settings_shift")),
    "imports_settings": (st.tuples(small), worlds("settings_scale", "settings_shift")),
    "from_imports_settings": (st.tuples(small), worlds("settings_scale")),
    "imports_math": (st.tuples(small, st.sampled_from([2.5, -0.5, 3])), worlds("math_floor")),
    "from_numpy_sum": (st.tuples(small), worlds("np_sum")),
    "global_tuple": (st.tuples(small), worlds("TUP")),
    "index_slice": (st.tuples(small, slices), worlds()),
    "slice_parts": (st.tuples(small, slices), worlds()),
    "range_parts": (st.tuples(small, ranges), worlds()),
    "dict_keys": (st.tuples(small, keys), worlds()),
    "sequence_items": (st.tuples(small, tuples), worlds()),
    "divides": (st.tuples(signed, signed), worlds("filter", "fp")),
    "logs": (st.tuples(signed), worlds("filter", "fp")),
    "divides_under_filter": (st.tuples(signed, signed, filter_actions), worlds("filter", "fp")),
    "divides_under_module_filter": (st.tuples(signed, signed), worlds("filter", "fp")),
    "logs_under_module_filter": (st.tuples(signed), worlds("filter", "fp")),
}


def target(name):
    module, _, name = name.rpartition(":")
    return getattr(OWN if module == "own" else TARGETS, name)


@pytest.mark.parametrize("name", sorted(TARGET_ARGS))
@given(data=st.data())
def test_world_call_sequence_matches_numpy(name, data):
    """The arguments come from a pool of one or two drawn per sequence: a new dtype or
    shape each call would miss the cache anyway and leave the world's change untested."""
    arguments, world_states = TARGET_ARGS[name]
    pool = data.draw(st.lists(arguments, min_size=1, max_size=2), label="arguments")
    calls = data.draw(st.lists(st.tuples(st.sampled_from(pool), world_states), min_size=1, max_size=5),
                      label="calls")
    run_sequence(target(name), calls)


@pytest.mark.inductor
@pytest.mark.parametrize("name", ["builtins_of_arrays", "getattr_instance", "imports_settings",
                                  "divides_under_module_filter"])
@settings(max_examples=3)
@given(data=st.data())
def test_inductor_world_call_sequence_matches_numpy(name, data):
    """A few sequences under Inductor (about a second an example once it is warm)."""
    arguments, world_states = TARGET_ARGS[name]
    args = data.draw(arguments, label="arguments")
    calls = data.draw(st.lists(st.tuples(st.just(args), world_states), min_size=2, max_size=3), label="calls")
    run_sequence(target(name), calls, backend="inductor")


# ---- regressions: sequences hypothesis found ---------------------------------------------------
def test_imported_math_floor_monkeypatched_to_a_function_calling_the_real_one():
    """Found by hypothesis: ``m.floor(x)`` with math.floor patched to ``real(x) + 100``
    gave 202, not 102: the trace's table entry for the real math.floor called
    ``math.floor`` as it was at the call, the patched one, a second time."""
    a = Arr(np.zeros(1), "C")
    run_sequence(TARGETS.imports_math, [((a, 2.5), {"math_floor": patched_floor}), ((a, 2.5), {}),
                                        ((a, -0.5), {"math_floor": patched_floor})])


@pytest.mark.parametrize("name, args", [("divides_under_module_filter", (Arr(np.ones(1), "C"), Arr(np.zeros(1), "C"))),
                                        ("logs_under_module_filter", (Arr(np.zeros(1), "C"),))])
def test_error_filter_for_the_functions_module_set_inside_it(name, args):
    """Found by hypothesis: ``filterwarnings('error', category=RuntimeWarning,
    module=__name__)`` inside the function, then ``a / 0``: NumPy raises RuntimeWarning.
    The filter breaks the graph and the division runs for real at the break, where
    NumPy's warning was attributed to npcompile.trace.real's frame (npcompile.runtime.
    jit_function's for ``np.log``), which the filter does not match: jit returned inf."""
    run_sequence(getattr(TARGETS, name), [(args, {}), (args, {"filter": "error_module"}), (args, {})])


def test_own_builtins_of_a_frame_run_for_real():
    """Found by hypothesis: a ``disable(recursive=False)`` function whose module has its
    own builtins dict runs its frame for real (trace/real.py), whose LOAD_GLOBAL fell
    back on the builtins module: ``abs`` was the real one, not the dict's."""
    a = Arr(-np.arange(3.0), "C")
    run_sequence(OWN.calls_a_frame_run_for_real, [((a,), {"shadow": {("own", "abs"): 0}}), ((a,), {}),
                                                  ((a,), {"shadow": {("own", "len"): 1}})])
