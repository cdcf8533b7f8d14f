"""Differential harness for jitted functions: NumPy (the plain function) is the oracle;
the same function jitted must return the same types, dtypes, shapes, values and leave
the inputs in the same state, compiled as the expected number of graphs."""
import copy

import pytest

import npcompile
from tests.oracle import assert_same


class CountingBackend:
    """An eager backend that counts the graphs it is given and their ops."""

    def __init__(self, inner="eager"):
        from npcompile.backends import resolve
        self.inner = resolve(inner)
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return self.inner(gm, example_inputs)


def _outcome(fn, args, kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 - compared by class with NumPy's
        return None, exc


def check_jit(fn, *args, backend="eager", graphs=1, breaks=0, calls=1, rtol=None, atol=0.0,
              **kwargs):
    """Run ``fn`` plainly and jitted (``calls`` times, to exercise the cache) on deep
    copies of the arguments and compare everything. Returns the JitFunction."""
    counting = CountingBackend(backend)
    jitted = npcompile.jit(fn, backend=counting)
    for _ in range(calls):
        np_args, np_kwargs = copy.deepcopy((list(args), kwargs))
        expected, np_exc = _outcome(fn, np_args, np_kwargs)
        jit_args, jit_kwargs = copy.deepcopy((list(args), kwargs))
        actual, jit_exc = _outcome(jitted, jit_args, jit_kwargs)
        if np_exc is not None:
            assert jit_exc is not None, f"NumPy raised {np_exc!r}; jit returned {actual!r}"
            assert type(jit_exc) is type(np_exc), f"NumPy raised {np_exc!r}; jit raised {jit_exc!r}"
            return jitted
        if jit_exc is not None:
            raise AssertionError(f"jit raised {jit_exc!r}; NumPy returned {expected!r}") from jit_exc
        assert_same(expected, actual, rtol, atol)
        assert_same(np_args, jit_args, rtol, atol, path="inputs after the call")
        assert_same(np_kwargs, jit_kwargs, rtol, atol, path="keyword inputs after the call")
    if graphs is not None:
        messages = [b.message for b in jitted.breaks]
        assert len(jitted.breaks) == breaks, f"expected {breaks} breaks, got {messages}"
        assert len(counting.graphs) == graphs, \
            f"expected {graphs} graphs, got {len(counting.graphs)}; breaks: {messages}"
    return jitted


def corpus(cases, xfail=None):
    """pytest params ``(fn, args, kwargs)`` for a corpus table whose rows are
    ``(fn, *args)`` or ``(name, fn, args, check_jit_kwargs)``; names in ``xfail``
    (name -> reason) are strict xfails while a case is known to fail."""
    xfail = xfail or {}
    for row in cases:
        if isinstance(row[0], str):
            name, fn, args, kwargs = row
        else:
            (fn, *args), name, kwargs = row, row[0].__name__, {}
        marks = [pytest.mark.xfail(strict=True, reason=xfail[name])] if name in xfail else []
        yield pytest.param(fn, tuple(args), kwargs, id=name, marks=marks)
