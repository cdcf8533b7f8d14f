"""A module imported inside the jitted function is read through ``sys.modules`` with its
attribute reads guarded (trace/interpreter.py ``lift_imported``): a changed attribute, an
attribute set that was absent, or the module imported afresh is a recompile, as a global
module's would be. Before, the import's module entered the trace without a source and
every read of it was baked into the graph."""
import sys
import types

import numpy as np
import pytest

import npcompile

from .harness import assert_same

NAME = "fix8_imported_settings"


@pytest.fixture
def settings():
    module = types.ModuleType(NAME)
    module.scale = 2.0
    sys.modules[NAME] = module
    yield module
    sys.modules.pop(NAME, None)


def scaled(a):
    import fix8_imported_settings
    return a * fix8_imported_settings.scale + getattr(fix8_imported_settings, "shift", 0.0)


def scaled_from(a):
    from fix8_imported_settings import scale
    return a * scale


BACKENDS = ["eager", "inductor"]


def _run_both(fn, jitted, a):
    assert_same(fn(a.copy()), jitted(a.copy()))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [scaled, scaled_from], ids=["import", "from_import"])
def test_attribute_changes_of_a_module_imported_inside(settings, fn, backend):
    jitted = npcompile.jit(fn, backend=backend)
    a = np.arange(4.0)
    _run_both(fn, jitted, a)
    settings.scale = 5.0
    _run_both(fn, jitted, a)
    settings.shift = 1.5                      # absent at the first trace, then set
    _run_both(fn, jitted, a)
    compiles = jitted.compile_count
    _run_both(fn, jitted, a)                  # nothing changed: the cache serves it
    assert jitted.compile_count == compiles


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_imported_afresh(settings, backend):
    jitted = npcompile.jit(scaled, backend=backend)
    a = np.arange(4.0)
    _run_both(scaled, jitted, a)
    fresh = types.ModuleType(NAME)
    fresh.scale = -3.0
    sys.modules[NAME] = fresh                 # as after del sys.modules[...]; import
    _run_both(scaled, jitted, a)


def numpy_inside(a):
    import numpy
    return numpy.sum(a) * 2


def test_numpy_imported_inside_still_traces_and_follows_a_monkeypatch(monkeypatch):
    jitted = npcompile.jit(numpy_inside)
    a = np.arange(5.0)
    assert_same(numpy_inside(a), jitted(a))
    assert jitted.compile_count == 1 and not jitted.breaks
    monkeypatch.setattr(np, "sum", lambda x: np.max(x))
    assert_same(numpy_inside(a), jitted(a))
