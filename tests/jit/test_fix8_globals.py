"""Fix 8 (globals): names resolved as CPython resolves them, through the frame's own
globals and then its function's own builtins dict, and guarded there (not through the
``builtins`` module or ``sys.modules[__name__]``). Each sequence is compared with plain
Python/NumPy running the same calls."""
import sys
import types

import numpy as np
import pytest

import npcompile
from tests.oracle import assert_same

A = np.arange(4.0)


def _sequence(fn, steps, backend="eager"):
    jitted = npcompile.jit(fn, backend=backend)
    for k, (change, args) in enumerate(steps):
        if change is not None:
            change()
        expected = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        actual = jitted(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert_same(expected, actual, path=f"call {k}")
    return jitted


def _module(name, text):
    mod = types.ModuleType(name)
    exec(text, mod.__dict__)
    sys.modules[name] = mod
    return mod


def test_builtin_shadowed_in_a_nested_function_of_a_helper():
    """A function made inside a helper (no source of its own) calls ``abs``: the global
    the helper's module defines later is seen."""
    mod = _module("fix8_globals_nested", "def helper(a):\n"
                                         "    def inner(x):\n"
                                         "        return abs(x)\n"
                                         "    return inner(a) + 1\n")
    helper = mod.helper

    def uses_helper(a):
        return helper(a)
    try:
        _sequence(uses_helper, [(None, (-A,)), (lambda: setattr(mod, "abs", lambda x: x * 3), (-A,)),
                                (lambda: delattr(mod, "abs"), (-A,))])
    finally:
        sys.modules.pop(mod.__name__, None)


def test_global_removed_after_the_first_call_falls_back_to_the_builtin():
    g = globals()

    def f(a):
        return len(a) * a
    g["len"] = lambda x: 10
    try:
        _sequence(f, [(None, (A,)), (lambda: g.pop("len"), (A,))])
    finally:
        g.pop("len", None)


def test_own_builtins_dict_changed_between_calls():
    """CPython reads the function's ``__builtins__`` dict at each call: a changed entry
    or a global that shadows it later is seen."""
    own = {"abs": lambda x: x * 7}
    namespace = {"__name__": "fix8_globals_own_builtins", "__builtins__": own}
    exec("def f(a):\n    return abs(a)\n", namespace)
    _sequence(namespace["f"], [(None, (-A,)),
                               (lambda: own.__setitem__("abs", lambda x: x * 9), (-A,)),
                               (lambda: namespace.__setitem__("abs", lambda x: x - 1), (-A,))])


def test_helper_with_its_own_builtins():
    own = {"abs": lambda x: x * 7}
    namespace = {"__name__": "fix8_globals_helper_own_builtins", "__builtins__": own}
    exec("def helper(a):\n    return abs(a) + 1\n", namespace)
    helper = namespace["helper"]

    def uses_helper(a):
        return helper(a)
    _sequence(uses_helper, [(None, (-A,)), (lambda: own.__setitem__("abs", lambda x: x * 2), (-A,))])


def test_helper_exec_into_a_dict_named_after_another_module():
    """A helper exec'd into a plain dict whose ``__name__`` is a loaded module's: its
    global ``K`` is read from that dict, not from the module of that name."""
    name = "fix8_globals_foreign_name"
    decoy = _module(name, "K = 2.0\n")
    namespace = {"__name__": name, "K": 2.0}
    exec("def helper(a):\n    return a * K\n", namespace)
    helper = namespace["helper"]

    def uses_helper(a):
        return helper(a)
    try:
        _sequence(uses_helper, [(None, (A,)), (lambda: namespace.__setitem__("K", 5.0), (A,)),
                                (lambda: setattr(decoy, "K", 7.0), (A,))])
    finally:
        sys.modules.pop(name, None)


def test_helper_not_importable_is_traced():
    """A helper whose module is in no ``sys.modules`` entry: its globals are guarded
    through its own ``__globals__`` (no graph break, changes are seen)."""
    namespace = {"__name__": "fix8_globals_nowhere", "K": 3.0}
    exec("def helper(a):\n    return a * K\n", namespace)
    helper = namespace["helper"]

    def uses_helper(a):
        return helper(a)
    jitted = _sequence(uses_helper, [(None, (A,)), (None, (A,)),
                                     (lambda: namespace.__setitem__("K", 4.0), (A,))])
    assert jitted is not None


@pytest.mark.parametrize("backend", ["eager"])
def test_globals_of_a_reimported_helper(backend):
    """``globals()['K']`` in a helper whose module was re-imported reads the helper's own
    globals (Python), not the new module's."""
    name = "fix8_globals_reimported"
    old = _module(name, "K = 2.0\ndef helper(a):\n    return a * globals()['K']\n")
    helper = old.helper

    def uses_helper(a):
        return helper(a)

    def reimport():
        new = types.ModuleType(name)
        new.K = 2.0
        sys.modules[name] = new
        old.K = 5.0
    try:
        _sequence(uses_helper, [(None, (A,)), (reimport, (A,))], backend=backend)
    finally:
        sys.modules.pop(name, None)


def test_helper_global_and_builtin_read_after_a_break_in_the_helper():
    """A resumed segment that starts inside a helper reads the helper's global and a
    builtin through the resumed frame's function (``L[k].function.__globals__``)."""
    name = "fix8_globals_resumed"
    text = ("import npcompile\n"
            "K = 2.0\n"
            "def helper(a):\n"
            "    b = a + 1\n"
            "    npcompile.graph_break()\n"
            "    return abs(b) * K\n")
    old = _module(name, text)
    helper = old.helper

    def uses_helper(a):
        return helper(a) - 1

    def reimport():   # the module run afresh, as ``del sys.modules[name]; import name`` does
        _module(name, text)
        old.K = 5.0
    try:
        _sequence(uses_helper, [(None, (-A,)), (None, (-A,)), (reimport, (-A,)),
                                (lambda: setattr(old, "abs", lambda x: x * 10), (-A,))])
    finally:
        sys.modules.pop(name, None)
