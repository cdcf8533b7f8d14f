"""The runtime's per-iteration path for loops whose body is a segment of its own.

A loop's segment stops before the condition's jump or the back edge every iteration;
``break_steps.quick_step`` takes those without the general runner. It must leave the
frames exactly as ``RealRunner.run_break`` does, and refuse (frames untouched) whatever
the runner would treat specially. Results are compared with NumPy through the harness.
"""
import warnings

import numpy as np
import pytest
import torch

import npcompile
from npcompile.runtime.break_steps import quick_step
from npcompile.trace import outputs
from npcompile.trace.frame import Frame
from npcompile.trace.opcodes import REAL_HANDLERS
from npcompile.trace.real import RealRunner
from npcompile.trace.resident import DeviceArray
from tests.jit.harness import compare_call


# ---- quick_step against the general runner -------------------------------------------------
def _condition_loop(r, tol):
    while r > tol:
        r = r * 0.5
    return r


def _range_loop(n):
    total = 0
    for i in range(n):
        total += i
    return total


def _frames_at(fn, opname, stack, occurrence=0):
    """A frame of ``fn`` stopped before the ``occurrence``-th instruction whose name
    starts with ``opname``, holding ``stack``."""
    frame = Frame(fn.__code__, fn.__globals__, fn, {name: None for name in fn.__code__.co_varnames})
    ip = [n for n, inst in enumerate(frame.instructions) if inst.opname.startswith(opname)][occurrence]
    frame.ip, frame.stack = ip, list(stack)
    return [frame]


def _state(frames):
    return [(f.ip, f.lineno, [type(v) for v in f.stack], [v for v in f.stack if not hasattr(v, "__next__")])
            for f in frames]


class Truthy:
    calls = 0

    def __bool__(self):
        Truthy.calls += 1
        return True


def _past_plain_jumps(frames):
    """Take the unconditional jumps (not back edges to FOR_ITER) the top frame stands on,
    as real Python would: they run no code."""
    frame = frames[-1]
    while True:
        inst = frame.instructions[frame.ip]
        target = frame.instructions[frame.index_of[inst.argval]] if inst.opname.startswith("JUMP") else None
        if target is None or target.opname == "FOR_ITER":
            return
        frame.ip += 1
        if inst.starts_line is not None:
            frame.lineno = inst.starts_line
        REAL_HANDLERS[inst.opname](RealRunner([], None), frame, inst)


@pytest.mark.parametrize("condition", [True, False, np.True_, np.False_])
@pytest.mark.parametrize("occurrence", [0, -1])   # the loop's first test and the one at its bottom
def test_a_condition_jump_lands_where_the_runner_lands(condition, occurrence):
    """... then past the plain jumps there (3.12+: the JUMP_BACKWARD after the bottom test)."""
    quick, general = (_frames_at(_condition_loop, "POP_JUMP", [condition], occurrence) for _ in range(2))
    assert quick_step(quick)
    RealRunner(general, None).run_break()
    _past_plain_jumps(general)
    assert _state(quick) == _state(general)


@pytest.mark.parametrize("condition", [True, np.True_])
def test_both_tests_of_a_while_loop_lead_to_its_body(condition):
    """A true test at the top and at the bottom land on the same instruction, so the body
    is one segment (3.12+: before, the bottom test landed on a JUMP_BACKWARD, a segment
    of its own that the general runner took every iteration)."""
    top, bottom = (_frames_at(_condition_loop, "POP_JUMP", [condition], occurrence) for occurrence in (0, -1))
    assert quick_step(top) and quick_step(bottom)
    assert top[0].ip == bottom[0].ip and top[0].stack == bottom[0].stack == []
    assert top[0].instructions[top[0].ip].opname.startswith("LOAD")   # the body's first instruction


def _general_to_the_next_segment(frames):
    """The general runner's break, then (a NumPy bool left before a condition's jump) that
    jump too, then the plain jumps after it: where the next segment starts."""
    RealRunner(frames, None).run_break()
    frame = frames[-1]
    if frame.stack and type(frame.stack[-1]) is np.bool_ and \
            frame.instructions[frame.ip].opname.startswith("POP_JUMP"):
        RealRunner(frames, None).run_break()
    _past_plain_jumps(frames)


@pytest.mark.parametrize("left, right", [(np.float64(2.0), 1.0), (np.float64(0.5), 1.0), (np.float32("nan"), 1.0),
                                         (3, np.int64(2)), (np.uint8(7), -1), (True, np.float16(0.5)),
                                         (np.int32(1), 2**70)])
@pytest.mark.parametrize("occurrence", [0, -1])
def test_a_comparison_of_plain_numbers_is_taken_with_its_jump(left, right, occurrence):
    quick, general = (_frames_at(_condition_loop, "COMPARE_OP", [left, right], occurrence) for _ in range(2))
    assert quick_step(quick)
    _general_to_the_next_segment(general)
    assert _state(quick) == _state(general)
    assert quick[0].instructions[quick[0].ip].opname.startswith(("LOAD", "RETURN"))   # a body or the exit


@pytest.mark.parametrize("left, right", [(np.float64(1.0), Truthy()), (np.array([1.0]), 1.0), (1 + 2j, 1.0),
                                         (np.complex128(1), 0.5), (Truthy(), 1)])
def test_a_comparison_that_may_run_code_or_raise_is_refused(left, right):
    frames = _frames_at(_condition_loop, "COMPARE_OP", [left, right])
    before = _state(frames)
    assert not quick_step(frames)
    assert _state(frames) == before


def test_a_site_is_worked_out_once_and_reused():
    """Many frames at one site take the same (cached) step, each with its own truth."""
    for condition in [True, False, np.True_, np.False_] * 2:
        quick, general = (_frames_at(_condition_loop, "POP_JUMP", [condition], -1) for _ in range(2))
        assert quick_step(quick)
        RealRunner(general, None).run_break()
        _past_plain_jumps(general)
        assert _state(quick) == _state(general)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_back_edge_advances_the_range_as_the_runner_does(n):
    iterators = [iter(range(n)), iter(range(n))]
    quick, general = ([_frames_at(_range_loop, "JUMP_BACKWARD", [it])[0]] for it in iterators)
    assert quick_step(quick)
    RealRunner(general, None).run_break()
    assert _state(quick) == _state(general)
    assert list(iterators[0]) == list(iterators[1])


def _generator():
    yield 1


@pytest.mark.parametrize("stack", [
    [Truthy()],                              # a __bool__ of the user's: real code
    [np.float64(1.0)],                       # truth of a non-bool: left to the runner
    [np.array([True])],                      # an array's truth may raise
    [[1, 2], True],                          # a list on the stack (aliasing is followed)
    [DeviceArray(torch.ones(2)), True],      # a device-resident array comes to the host
    [],
])
def test_what_the_general_runner_handles_is_refused_untouched(stack):
    frames = _frames_at(_condition_loop, "POP_JUMP", stack)
    before = _state(frames)
    calls = Truthy.calls
    assert not quick_step(frames)
    assert _state(frames) == before and Truthy.calls == calls


@pytest.mark.parametrize("iterator", [_generator(), iter({1: 2}), map(abs, [1])])
def test_a_back_edge_over_an_iterator_that_may_run_code_is_refused(iterator):
    frames = _frames_at(_range_loop, "JUMP_BACKWARD", [iterator])
    before = _state(frames)
    assert not quick_step(frames)
    assert _state(frames) == before


# ---- loops end to end ----------------------------------------------------------------------
def halve(r, tol):
    while np.max(np.abs(r)) > tol:
        r = 0.5 * r
    return r


def newton(x, a, tol):
    dx = x
    while abs(dx) > tol:
        dx = (x * x - a) / (2 * x)
        x = x - dx
    return x


def fails_in_the_loop(r, k):
    n = 0
    while np.max(r) > 1e-3:
        r = r * 0.5
        n += 1
        if n == k:
            r = r.reshape(3, 7)   # size 64 cannot: NumPy's ValueError, raised at a break
    return r


def counted_for(u, steps):
    for t in range(steps):
        u = u + np.sin(u) * 0.01 + t
        u = np.tanh(u * 0.5) + np.cos(u) * 0.1 - np.exp(-np.abs(u)) * 0.01
        u = np.where(u > 1.0, 1.0, u) + np.sqrt(np.abs(u)) * 1e-3
    return u


def while_else(r, tol, limit):
    n = 0
    while np.max(np.abs(r)) > tol:
        r = r * 0.5
        n += 1
        if n > limit:
            break
    else:
        r = r + 1.0
    return r, n


def while_in_for(a, steps, tol):
    for _ in range(steps):
        a = a + 1.0
        while np.max(np.abs(a)) > tol:
            a = a * 0.5
    return a


def with_continue(r, tol):
    while np.max(np.abs(r)) > tol:
        r = r * 0.5
        if np.min(r) > 0:
            continue
        r = r * 0.9
    return r


@pytest.mark.parametrize("fn, args", [
    (halve, (np.random.default_rng(0).standard_normal(64), 1e-30)),
    (while_else, (np.linspace(-3, 3, 16), 1e-3, 100)),                       # the else runs
    (while_else, (np.linspace(-3, 3, 16), 1e-3, 4)),                         # the break
    (while_in_for, (np.linspace(-1, 2, 9), 6, 0.25)),                         # the exit lands on a back edge
    (with_continue, (np.random.default_rng(2).standard_normal(12), 1e-6)),
    (halve, (np.zeros(8), 1.0)),                                             # no iteration
    (newton, (np.float64(1e3), np.float64(2.0), 1e-12)),
    (newton, (np.full(16, 1e3), np.full(16, 2.0), 1e-12)),                   # array dx: truth raises
    (fails_in_the_loop, (np.ones(64), 5)),
    (counted_for, (np.linspace(-1, 1, 33), 40)),
])
def test_runtime_driven_loops_match_numpy(fn, args):
    jitted = npcompile.jit(fn, backend="eager")
    for _ in range(3):   # the first call compiles; later ones take the hot path
        compare_call(fn, jitted, args, {})


def test_a_hot_data_dependent_loop_never_builds_a_runner(monkeypatch):
    """Each iteration's condition jump is taken by quick_step: the general runner is not
    made once per iteration (before: one RealRunner per iteration; on 3.12+ one per
    iteration for the JUMP_BACKWARD after the bottom test until quick_step took it too)."""
    jitted = npcompile.jit(halve, backend="eager")
    r = np.random.default_rng(1).standard_normal(32)
    jitted(r.copy(), 1e-20)
    made = []
    original = RealRunner.__init__

    def counting(self, *args):
        made.append(1)
        original(self, *args)

    monkeypatch.setattr(RealRunner, "__init__", counting)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = jitted(r.copy(), 1e-20)
    np.testing.assert_array_equal(result, halve(r.copy(), 1e-20))
    assert made == []


# ---- the pieces the generated code calls ---------------------------------------------------
@pytest.mark.parametrize("value", [True, False, 1.5, -0.0, float("nan"), float("inf"), 2**62, -3, 7, 200,
                                   1 + 2j, complex(float("nan"), -0.0)])
@pytest.mark.parametrize("dtype", [torch.bool, torch.float64, torch.float32, torch.float16, torch.int64,
                                   torch.int32, torch.int16, torch.int8, torch.uint8, torch.complex128,
                                   torch.complex64])
def test_a_scalar_output_is_numpys_exact_scalar(value, dtype):
    if isinstance(value, complex) and not dtype.is_complex or \
            isinstance(value, float) and not (dtype.is_floating_point or dtype.is_complex) or \
            isinstance(value, int) and not isinstance(value, bool) and dtype is torch.bool:
        return
    try:
        t = torch.tensor(value, dtype=dtype)
    except (RuntimeError, OverflowError):
        return
    expected = t.numpy()[()]
    got = outputs._to_numpy_scalar_cpu(t)
    assert type(got) is type(expected)
    assert np.array_equal(np.array(got), np.array(expected), equal_nan=True)
    assert np.signbit(np.real(got)) == np.signbit(np.real(expected))


def test_a_rebuilt_frame_sets_every_field_as_the_constructor_does():
    fn = halve
    made = Frame(fn.__code__, fn.__globals__, fn, {"r": 1})
    made.ip, made.lineno, made.stack, made.cells = 5, 12, [np.True_], {}
    rebuilt = Frame.rebuilt(fn, fn.__code__, 5, 12, {"r": 1}, [np.True_], {}, (), None, made.returns_instead,
                            False, False)
    for name in Frame.__slots__:
        assert getattr(rebuilt, name) == getattr(made, name), name
