"""The loop path: a loop body whose break's step lands on its own start runs through its
entry's ``loop`` function (``JitFunction._drive``): the guards that cannot change between
two iterations are not checked again, the arrays it computed are passed on as tensors,
its frame is reused. Results are compared with NumPy through the harness; the second call
compiles nothing; ``JitFunction.loop_steps`` counts the iterations the path ran.
"""
import numpy as np
import pytest

import npcompile
from npcompile.runtime import loop_links
from npcompile.trace.bytecode import instructions_of
from tests.jit.harness import compare_call
from tests.jit.test_loop_runtime import fails_in_the_loop, halve, while_else, while_in_for, with_continue

SCALE = 0.5


def relax(u, steps, eps):
    for _ in range(steps):
        u = u + 0.25 * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
        if np.max(np.abs(u)) < eps:
            break
    return u


def caught_in_the_loop(r, k):
    n = 0
    while np.max(r) > 1e-3:
        try:
            r = r.reshape(3, 7) if n == k else r * 0.5   # size 64 cannot: NumPy's ValueError
        except ValueError:
            r = r + 1.0
        n += 1
    return r, n


def accumulate(r, acc, tol):
    while np.max(np.abs(r)) > tol:
        acc += r                 # written in place: passed on from one iteration to the next
        r = r * 0.5
    return acc


def matrix_steps(a, u, tol):
    while np.max(np.abs(u)) > tol:
        u = a @ u                # ``a``: the same array every iteration
    return u


def scaled(r, tol):
    while np.max(np.abs(r)) > tol:
        r = r * SCALE
    return r


def growing(r, limit):
    while r.size < limit and np.max(r) > 0:
        r = np.concatenate([r, r[-1:] * 0.5])   # a new shape each iteration: the guards fail
    return r


_RNG = np.random.default_rng(3)
CASES = [
    (halve, (_RNG.standard_normal(64), 1e-30), True),
    (halve, (np.zeros(8), 1.0), False),                                   # no iteration
    (while_else, (np.linspace(-3, 3, 16), 1e-3, 100), True),             # the else runs
    (while_else, (np.linspace(-3, 3, 16), 1e-3, 4), True),               # the break
    (with_continue, (_RNG.standard_normal(12), 1e-6), True),
    (relax, (np.sin(np.linspace(0, 3, 32)), 60, 1e-300), True),          # runs to the end
    (relax, (np.sin(np.linspace(0, 3, 32)) * 1e-3, 60, 5e-4), True),     # breaks on the way
    (while_in_for, (np.linspace(-1, 2, 9), 6, 0.25), True),
    (fails_in_the_loop, (np.ones(64), 5), True),
    (caught_in_the_loop, (np.ones(64), 5), True),
    (accumulate, (_RNG.standard_normal(16), np.zeros(16), 1e-9), True),
    (matrix_steps, (np.eye(6) * 0.5 + 0.01, np.ones(6), 1e-12), True),
    (growing, (np.ones(3), 40), True),                                    # a new shape each iteration
]


@pytest.mark.parametrize("fn, args, looped", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_a_driven_loop_matches_numpy_and_compiles_nothing_more(fn, args, looped):
    jitted = npcompile.jit(fn, backend="eager")
    for _ in range(2):
        compare_call(fn, jitted, args, {})
    graphs, recompiles, steps = jitted.compile_count, len(jitted.recompile_reasons), jitted.loop_steps
    compare_call(fn, jitted, args, {})
    assert (jitted.compile_count, len(jitted.recompile_reasons)) == (graphs, recompiles)
    assert (jitted.loop_steps > steps) == looped


def test_a_hot_loop_takes_the_loop_path_on_all_but_its_first_iteration():
    """The first run of the body comes from the segment before the loop; once a call has
    seen the body start itself again, every later iteration is a loop step."""
    jitted = npcompile.jit(halve, backend="eager")
    r = np.full(64, 2.0 ** 40)
    jitted(r, 1.0)
    steps = jitted.loop_steps
    np.testing.assert_array_equal(jitted(r, 1.0), halve(r, 1.0))
    assert jitted.loop_steps - steps == 40 - 1


def test_a_global_changed_between_calls_is_seen():
    global SCALE
    jitted = npcompile.jit(scaled, backend="eager")
    r = np.full(8, 3.0)
    try:
        for SCALE in (0.5, 0.5, 0.25, 0.25, 0.5):
            np.testing.assert_array_equal(jitted(r, 1e-6), scaled(r, 1e-6))
    finally:
        SCALE = 0.5
    assert jitted.loop_steps > 0


def test_an_if_break_at_the_end_of_a_for_body_takes_the_back_edge_too():
    """The condition's jump lands on the ``for`` loop's back edge: ``quick_step`` takes it
    and ``FOR_ITER``, so the body is one segment (before: an empty segment at the back
    edge, resumed every iteration)."""
    jitted = npcompile.jit(relax, backend="eager")
    u = np.sin(np.linspace(0, 3, 32))
    for _ in range(2):
        np.testing.assert_array_equal(jitted(u, 30, 1e-300), relax(u, 30, 1e-300))
    starts = {instructions_of(code)[0][ip].opname for _, frames in jitted.resume_entries for code, ip in frames[-1:]}
    assert not {name for name in starts if name.startswith("JUMP")}, starts
    assert jitted.loop_steps > 0


def test_explain_runs_every_iteration_through_the_general_path():
    jitted = npcompile.jit(halve, backend="eager")
    r = np.full(16, 2.0 ** 10)
    jitted(r, 1.0)
    steps = jitted.loop_steps
    npcompile.explain(jitted)(r, 1.0)
    assert jitted.loop_steps == steps


# ---- which guards an iteration checks again ------------------------------------------------
def test_guards_on_what_the_plan_fixes_are_not_checked_again():
    fixed = {"L[0].code", "L[0].locals['tol']"}
    terms = ["L[0].code is k1", "L[0].codes is k2", "L[0].locals['tol'] == k5", "type(L[0].locals['r']) is k2",
             "G['np'] is k6", "k9()", "len(L) == 1", "L[0].locals['tol'] is L[0].locals['r']",
             "L[0].locals['tol2'] == 1", "L[0].stack[0] is k3"]
    assert loop_links.recheck(terms, fixed) == [
        "L[0].codes is k2", "type(L[0].locals['r']) is k2", "len(L) == 1", "L[0].locals['tol'] is L[0].locals['r']",
        "L[0].locals['tol2'] == 1", "L[0].stack[0] is k3"]
