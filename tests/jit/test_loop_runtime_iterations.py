"""What one iteration of a loop the runtime drives runs, checked by counting (never by
time): how many segments an iteration runs, that the general runner is never built, and
that a second call compiles nothing. Results are NumPy's (the harness compares them)."""
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.runtime.break_steps import quick_step
from npcompile.trace.frame import Frame
from npcompile.trace.real import RealRunner
from tests.jit.harness import compare_call


def relax(u, steps):
    for _ in range(steps):
        u = u + 0.25 * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
        if np.max(np.abs(u)) < 1e-3:   # the body ends at this jump; the back edge follows it
            break
    return u


def relax_continue(u, steps):
    for t in range(steps):
        u = u * 0.5
        if np.max(u) > 2.0:
            continue
        u = u + t
    return u


def relax_raises(u, steps):
    for t in range(steps):
        u = u * 0.5
        if np.max(u) < 1.0:
            raise ValueError(f"small at {t}")
    return u


def relax_catches(u, steps):
    try:
        return relax_raises(u, steps)
    except ValueError:
        return u


def _counting_fast_paths(jitted):
    """Wrap the fast path of every resumed segment; returns the list each run appends to."""
    runs = []
    for entries in jitted.resume_entries.values():
        for entry in entries:
            inner = entry.fast

            def counted(L, inner=inner, entry=entry):
                runs.append(entry)
                return inner(L)
            entry.fast = counted
    return runs


@pytest.mark.parametrize("fn, args", [
    (relax, (np.sin(np.linspace(0.0, 3.0, 16)), 30)),           # every iteration, no break
    (relax, (np.full(16, 1e-4), 30)),                           # the break in the first iteration
    (relax, (np.linspace(0.0, 0.01, 16), 30)),                  # the break after a few
    (relax_continue, (np.linspace(0.0, 40.0, 8), 12)),
    (relax_raises, (np.linspace(1.0, 40.0, 8), 12)),            # NumPy's ValueError, from the loop
    (relax_catches, (np.linspace(1.0, 40.0, 8), 12)),
])
def test_loops_with_a_data_dependent_exit_match_numpy_and_compile_once(fn, args):
    jitted = npcompile.jit(fn, backend="eager")
    compare_call(fn, jitted, args, {})
    graphs = jitted.compile_count
    for _ in range(2):
        compare_call(fn, jitted, args, {})
    assert jitted.compile_count == graphs and jitted.recompile_reasons == []


def test_an_if_at_the_end_of_a_for_body_runs_one_segment_per_iteration(monkeypatch):
    """The condition's jump lands on the back edge to FOR_ITER: quick_step takes that too,
    so the body's segment runs on the frame the body built (before: a second, empty
    segment stood at the back edge every iteration)."""
    jitted = npcompile.jit(relax, backend="eager")
    u, steps = np.sin(np.linspace(0.0, 3.0, 16)), 40
    jitted(u.copy(), steps)
    runs = _counting_fast_paths(jitted)
    monkeypatch.setattr(RealRunner, "__init__", _no_runner)
    with warnings.catch_warnings(), np.errstate(all="ignore"):   # 'warn' modes under "error": as written
        warnings.simplefilter("error")
        result = jitted(u.copy(), steps)
    np.testing.assert_array_equal(result, relax(u.copy(), steps))
    assert len(runs) == steps   # the body after each FOR_ITER but the first, then the exit


def _no_runner(self, *args):
    raise AssertionError("the general runner was built on the hot path")


def _for_with_test(u):
    for _ in range(3):
        u = u + 1
        if u > 10:
            break
    return u


@pytest.mark.parametrize("truth", [False, np.False_])
@pytest.mark.parametrize("items", [0, 2])
def test_a_false_test_before_the_back_edge_takes_it_as_the_runner_does(truth, items):
    """A false test lands on the back edge: quick_step takes the jump, the back edge and
    FOR_ITER; the general runner needs one break for the jump and one for the back edge."""
    fn = _for_with_test
    iterators = [iter(range(items)), iter(range(items))]
    quick, general = ([_frame_at(fn, "POP_JUMP", [it, truth])] for it in iterators)
    assert quick_step(quick)
    RealRunner(general, None).run_break()
    stops = 0
    while general[0].instructions[general[0].ip].opname.startswith("JUMP_BACKWARD"):   # where it stops
        RealRunner(general, None).run_break()
        stops += 1
    assert stops == 1
    assert (quick[0].ip, quick[0].lineno, len(quick[0].stack)) == \
        (general[0].ip, general[0].lineno, len(general[0].stack))
    assert quick[0].stack[1:] == general[0].stack[1:] and list(iterators[0]) == list(iterators[1])


def test_a_test_before_a_back_edge_over_a_generator_stops_at_the_back_edge():
    frames = [_frame_at(_for_with_test, "POP_JUMP", [(x for x in [1]), False])]
    assert quick_step(frames)
    assert frames[0].instructions[frames[0].ip].opname.startswith("JUMP_BACKWARD") and len(frames[0].stack) == 1


def _frame_at(fn, opname, stack):
    frame = Frame(fn.__code__, fn.__globals__, fn, {name: None for name in fn.__code__.co_varnames})
    frame.ip = next(n for n, inst in enumerate(frame.instructions) if inst.opname.startswith(opname))
    frame.stack = list(stack)
    return frame
