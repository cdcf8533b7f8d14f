"""A failure inside the compiler is never the user's problem: a backend that cannot
compile a graph, a compiled graph that raises when run, or npcompile's own capture and
guard building failing. That part runs uncompiled with one warning naming the backend
and the graph, and the result and every input end as NumPy leaves them, also when earlier
segments already wrote into the inputs (no write applied twice or half). Only strict mode
(``fullgraph=True`` or ``config.strict_compile``) makes it an error."""
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.backends import resolve
from npcompile.errors import BackendFailed
from npcompile.runtime import jit_function
from tests.jit.harness import compare_call


class InjectedFailure(RuntimeError):
    pass


class FailingBackend:
    """The eager backend, except that graph number ``at`` fails: when compiled
    (``when="compile"``), or when run, before it touches anything (``"run"``) or after
    it ran and wrote what it writes (``"run-after"``)."""

    def __init__(self, at, when, inner="eager"):
        self.at, self.when, self.inner = at, when, resolve(inner)
        self.graphs = 0
        self.__name__ = f"failing_{when}"

    def __call__(self, gm, example_inputs):
        number, self.graphs = self.graphs, self.graphs + 1
        compiled = self.inner(gm, example_inputs)
        if number != self.at:
            return compiled
        if self.when == "compile":
            raise InjectedFailure("injected compile failure")

        def failing(*args):
            if self.when == "run-after":
                compiled(*args)
            raise InjectedFailure(f"injected failure when run ({self.when})")

        return failing


def write_break_write(a):
    a += 1
    npcompile.graph_break()
    a *= 2
    return a + 1


def read_break_write_break_read(a, b):
    c = a * b
    npcompile.graph_break()
    b -= c
    a[1:] = 7.0
    npcompile.graph_break()
    return c.sum() + a, b


def write_in_a_loop(a, n):
    total = a * 0
    for i in range(n):
        a[i % a.shape[0]] += i
        npcompile.graph_break()
        total += a
    return total


def view_write_break_view(a):
    v = a[::2]
    v += 10
    npcompile.graph_break()
    w = a.reshape(2, -1)
    w[0] -= 1
    return w.T


CASES = [
    (write_break_write, lambda: (np.ones(3),)),
    (read_break_write_break_read, lambda: (np.arange(4.0), np.full(4, 2.0))),
    (write_in_a_loop, lambda: (np.zeros(3), 4)),
    (view_write_break_view, lambda: (np.arange(6.0),)),
]


def _graph_count(fn, args):
    backend = FailingBackend(at=-1, when="compile")
    npcompile.jit(fn, backend=backend)(*args)
    return backend.graphs


def _positions():
    for fn, make_args in CASES:
        for at in range(_graph_count(fn, make_args())):
            for when in ("compile", "run", "run-after"):
                yield pytest.param(fn, make_args, at, when, id=f"{fn.__name__}-graph{at}-{when}")


def _npcompile_warnings(caught):
    return [str(w.message) for w in caught if str(w.message).startswith("npcompile")]


@pytest.mark.parametrize("fn, make_args, at, when", list(_positions()))
def test_failure_at_every_segment_runs_it_uncompiled_with_one_warning(fn, make_args, at, when):
    backend = FailingBackend(at, when)
    jitted = npcompile.jit(fn, backend=backend)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):   # the same graph fails once; later calls run it op by op
            compare_call(fn, jitted, make_args(), {})
    messages = _npcompile_warnings(caught)
    assert len(messages) == 1, messages
    assert backend.__name__ in messages[0] or "raised when run" in messages[0]
    assert f"graph #{at + 1} of {fn.__qualname__}" in messages[0] and "InjectedFailure" in messages[0]


@pytest.mark.parametrize("when", ["compile", "run", "run-after"])
def test_strict_mode_raises_backend_failed(when, monkeypatch):
    monkeypatch.setattr(npcompile.config, "strict_compile", True, raising=False)
    a = np.arange(3.0)
    jitted = npcompile.jit(lambda x: x.__iadd__(1) * 2, backend=FailingBackend(0, when))
    with pytest.raises(BackendFailed, match="InjectedFailure"):
        jitted(a)
    np.testing.assert_array_equal(a, np.arange(3.0))   # nothing was written, or it was put back


def test_fullgraph_raises_backend_failed():
    with pytest.raises(BackendFailed):
        npcompile.jit(lambda x: x * 2, backend=FailingBackend(0, "compile"), fullgraph=True)(np.ones(2))


def test_a_graph_that_raises_only_on_a_later_call():
    """After a first successful run a graph that writes no input still reruns as
    written; one that writes inputs cannot (they may hold part of its writes): it says so."""
    calls = []

    def flaky(gm, example_inputs):
        def run(*args):
            calls.append(1)
            if len(calls) == 2:
                raise InjectedFailure("second call")
            return gm(*args)
        return run

    pure = npcompile.jit(lambda x: x * 2 + 1, backend=flaky)
    with pytest.warns(UserWarning, match="raised when run"):
        for _ in range(3):
            np.testing.assert_array_equal(pure(np.arange(3.0)), np.arange(3.0) * 2 + 1)
    calls.clear()
    writer = npcompile.jit(lambda x: x.__iadd__(1), backend=flaky)
    writer(np.zeros(2))
    with pytest.warns(UserWarning, match="raised when run"), pytest.raises(BackendFailed, match="written"):
        writer(np.zeros(2))
    np.testing.assert_array_equal(writer(np.zeros(2)), np.ones(2))   # now runs op by op


def test_a_data_error_in_a_graph_is_numpys_error_without_a_warning():
    singular = np.zeros((2, 2))
    jitted = npcompile.jit(lambda m: np.linalg.inv(m) + 1, backend="eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(np.linalg.LinAlgError):
            jitted(singular)
        np.testing.assert_allclose(jitted(np.eye(2)), np.eye(2) + 1)
    assert not _npcompile_warnings(caught)


# ---- npcompile's own stages ----------------------------------------------------------
def _failing_stage(monkeypatch, at, stage):
    """Make npcompile's own capture (``stage="capture"``) or guard building
    (``"guards"``) of the ``at``-th segment raise IndexError, as a bug in it would."""
    real_capture = jit_function.capture
    count = [0]

    def capture(*args, **kwargs):
        number, count[0] = count[0], count[0] + 1
        if number == at and stage == "capture":
            raise IndexError("injected capture bug")
        cap = real_capture(*args, **kwargs)
        if number == at and stage == "guards":
            def broken():
                raise IndexError("injected guard bug")
            cap.add_shape_guards = broken
        return cap

    monkeypatch.setattr(jit_function, "capture", capture)


@pytest.mark.parametrize("stage", ["capture", "guards"])
@pytest.mark.parametrize("at", [0, 1, 2])
def test_failure_in_npcompile_itself_runs_uncompiled(monkeypatch, at, stage):
    _failing_stage(monkeypatch, at, stage)
    fn, make_args = CASES[1]
    jitted = npcompile.jit(fn, backend="eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            compare_call(fn, jitted, make_args(), {})
    messages = _npcompile_warnings(caught)
    assert len(messages) == 1 and "injected" in messages[0], messages


# ---- graphs without array inputs (the fake mode comes from the graph) -----------------
@pytest.mark.inductor
@pytest.mark.parametrize("fn, args", [
    (lambda x: np.sqrt(x), (2.0,)),
    (lambda n: np.ones((n, n)).sum(), (3,)),
    (lambda n: np.linspace(0, 1, n), (5,)),
    (lambda values: np.asarray(values) * 2, ([1, 2, 3],)),
], ids=["scalar", "ones-sum", "linspace", "list"])
def test_graphs_without_array_inputs_compile_under_inductor(fn, args):
    jitted = npcompile.jit(fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare_call(fn, jitted, args, {})
    assert not _npcompile_warnings(caught)
    assert jitted.compile_count == 1


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_graphs_without_array_inputs(backend):
    for fn, args in [(lambda x: np.sqrt(x), (2.0,)), (lambda n: np.ones((n, n)).sum(), (3,))]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compare_call(fn, npcompile.jit(fn, backend=backend), args, {})
