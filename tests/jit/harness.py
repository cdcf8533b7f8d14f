"""Differential harness for jitted functions: NumPy (the plain function) is the oracle;
the same function jitted must return the same types, dtypes, shapes and values, raise the
same exception class, share memory between inputs and outputs exactly where NumPy does,
and leave every input with the same values and flags, compiled as the expected number of
graphs. Arguments are copied with their layouts (strides, read-only flags, the memory
behind them, overlaps between arguments), so both runs see the same memory layout."""
import warnings

import numpy as np
import pytest
import torch

import npcompile
from tests.layouts import clone_arrays
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


def _arrays(value, path, found, depth=0):
    """(path, array) of every array in ``value`` (containers looked into)."""
    if isinstance(value, np.ndarray):
        found.append((path, value))
    elif depth < 4 and isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _arrays(item, f"{path}[{i}]", found, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for key, item in value.items():
            _arrays(item, f"{path}[{key!r}]", found, depth + 1)
    return found


def _shares(a, b):
    try:
        return bool(np.shares_memory(a, b, max_work=10**6))
    except np.exceptions.TooHardError:
        return bool(np.may_share_memory(a, b))


def memory_relations(inputs, result):
    """For every pair (input, output) and (output, output): whether they are the same
    object and whether they share memory; and the writeable flag of each input, and of
    each output that shares memory with an input (it must be read-only exactly when
    NumPy's is). Compared between NumPy's run and the jitted run."""
    ins = _arrays(inputs, "input", [])
    outs = _arrays(result, "result", [])
    relations = {}
    for path, array in ins:
        relations[f"{path}.flags.writeable"] = array.flags.writeable
    for j, (out_path, out) in enumerate(outs):
        for in_path, inp in ins:
            relations[f"{out_path} is {in_path}"] = out is inp
            relations[f"shares_memory({out_path}, {in_path})"] = _shares(out, inp)
        for other_path, other in outs[:j]:
            relations[f"shares_memory({out_path}, {other_path})"] = _shares(out, other)
        if any(_shares(out, inp) for _, inp in ins):
            relations[f"{out_path}.flags.writeable"] = out.flags.writeable
    return relations


def assert_same_memory(expected, actual):
    """``memory_relations`` of NumPy's run (``expected``) and the jitted run agree."""
    differences = [f"{key}: NumPy {value}, jit {actual.get(key)}" for key, value in expected.items()
                   if actual.get(key) != value]
    assert not differences, "memory differs from NumPy's:\n  " + "\n  ".join(differences)


def compare_call(fn, jitted, args, kwargs, rtol=None, atol=0.0, context=""):
    """One call of ``fn`` (NumPy) and ``jitted`` on layout-keeping copies of the arguments:
    same result or exception class, same memory relations, same inputs afterwards.
    Returns whether NumPy raised."""
    np_args, np_kwargs = clone_arrays((list(args), kwargs))
    expected, np_exc = _outcome(fn, np_args, np_kwargs)
    jit_args, jit_kwargs = clone_arrays((list(args), kwargs))
    actual, jit_exc = _outcome(jitted, jit_args, jit_kwargs)
    where = f" ({context})" if context else ""
    if np_exc is not None:
        assert jit_exc is not None, f"NumPy raised {np_exc!r}; jit returned {actual!r}{where}"
        assert type(jit_exc) is type(np_exc), f"NumPy raised {np_exc!r}; jit raised {jit_exc!r}{where}"
    elif jit_exc is not None:
        raise AssertionError(f"jit raised {jit_exc!r}; NumPy returned {expected!r}{where}") from jit_exc
    else:
        assert_same(expected, actual, rtol, atol)
    assert_same(np_args, jit_args, rtol, atol, path=f"inputs after the call{where}")
    assert_same(np_kwargs, jit_kwargs, rtol, atol, path=f"keyword inputs after the call{where}")
    assert_same_memory(memory_relations((np_args, np_kwargs), expected),
                       memory_relations((jit_args, jit_kwargs), actual))
    return np_exc is not None


def check_jit(fn, *args, backend="eager", graphs=1, breaks=0, calls=1, rtol=None, atol=0.0,
              **kwargs):
    """Run ``fn`` plainly and jitted (``calls`` times, to exercise the cache) on copies of
    the arguments and compare everything. Returns the JitFunction."""
    counting = CountingBackend(backend)
    jitted = npcompile.jit(fn, backend=counting)
    for _ in range(calls):
        if compare_call(fn, jitted, args, kwargs, rtol, atol):
            return jitted
    if graphs is not None:
        messages = [b.message for b in jitted.breaks]
        assert len(jitted.breaks) == breaks, f"expected {breaks} breaks, got {messages}"
        assert len(counting.graphs) == graphs, \
            f"expected {graphs} graphs, got {len(counting.graphs)}; breaks: {messages}"
    return jitted


def check_jit_calls(fn, calls, backend="eager", rtol=None, atol=0.0, descriptions=None):
    """One jitted ``fn`` called with each argument tuple of ``calls`` in turn (so cache
    entries compiled for one call's layouts meet the next call's), each compared with NumPy.
    A warning from npcompile (a compiler failure it ran around) fails the check too."""
    jitted = npcompile.jit(fn, backend=backend)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k, args in enumerate(calls):
            context = f"call {k}" + (f": {descriptions[k]}" if descriptions else "")
            compare_call(fn, jitted, args, {}, rtol, atol, context)
    failures = [str(w.message) for w in caught if str(w.message).startswith("npcompile")]
    assert not failures, f"npcompile warned: {failures}"
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


def recording_backend(seen):
    """A backend running the graph op by op that records torch's thread count inside each call."""
    def backend(gm, example_inputs):
        def call(*args):
            seen.append(torch.get_num_threads())
            return gm(*args)
        return call
    return backend
