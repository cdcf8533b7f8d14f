"""Loops the runtime drives, as NumPy runs them: arrays leaving the loop (returned, raised
through, put in a list, aliased views, handed to real code at a break, written in place),
compared with NumPy (values, dtypes, inputs after, memory relations); the loop's test
handed to its jump as a Python bool, and reset forgetting the resume points found by
code, checked by counting (never timed)."""
import io

import numpy as np
import pytest

import npcompile
from tests.jit.harness import compare_call
from tests.jit.test_loop_runtime_iterations import relax


def halve(r, tol):
    while np.max(np.abs(r)) > tol:
        r = 0.5 * r
    return r


def history(u, steps):
    kept = []
    for _ in range(steps):
        u = u * 0.5
        kept.append(u)          # held by a list: NumPy's array, the same object as the list's
        if np.max(u) < 1.0:
            break
    return u, kept, kept[-1] is u


def views(u, steps):
    v = u[::2]
    for _ in range(steps):
        u = u * 0.5 + 1.0
        v = u[::2]              # a view of the new u, both live at the break
        if np.max(v) < 2.5:
            break
    v[0] = -7.0                 # written through the view: u sees it, as in NumPy
    return u, v


def raises(u, steps):
    for t in range(steps):
        u = u * 0.5
        if np.max(u) < 1.0:
            raise ValueError(f"small at {t}: {u[0]}")
    return u


def printed(u, steps):
    out = io.StringIO()
    for t in range(steps):
        u = u * 0.5
        if np.max(u) < 4.0:
            print(t, u[:3], file=out)    # real code at a break: sees an ndarray
    return u, out.getvalue()


def in_place(u, steps):
    w = u * 1.0
    for _ in range(steps):
        w[1:] += w[:-1] * 0.5
        if np.max(w) > 1e6:
            break
    return w


CASES = [
    (relax, (np.sin(np.linspace(0.0, 3.0, 16)), 30)),
    (relax, (np.full(16, 1e-4), 30)),
    (halve, (np.linspace(-40.0, 40.0, 9), 1.0)),
    (halve, (np.linspace(-4.0, 4.0, 9).astype(np.float32), np.float32(0.5))),
    (history, (np.linspace(1.0, 40.0, 8), 12)),
    (views, (np.linspace(1.0, 40.0, 8), 12)),
    (raises, (np.linspace(1.0, 40.0, 8), 12)),
    (printed, (np.linspace(1.0, 40.0, 8), 12)),
    (in_place, (np.linspace(1.0, 2.0, 8), 40)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)])
def test_arrays_leaving_a_runtime_driven_loop_look_like_numpy_and_compile_once(fn, args):
    """Nothing compiles on a later call (the first may: a list that grows each iteration
    is guarded on its length)."""
    jitted = npcompile.jit(fn, backend="eager")
    compare_call(fn, jitted, args, {})
    graphs, reasons = jitted.compile_count, list(jitted.recompile_reasons)
    for _ in range(2):
        compare_call(fn, jitted, args, {})
    assert jitted.compile_count == graphs and jitted.recompile_reasons == reasons


def test_the_condition_a_body_hands_to_its_jump_is_a_python_bool():
    """The loop's test at the break is popped by its jump unseen: a ``bool`` (cheaper to
    make than NumPy's scalar: before, ``numpy.bool_``), what quick_step takes (on 3.13,
    which breaks before ``COMPARE_OP bool(>)``, the compared value: a Python float); the
    loop ends where NumPy's does."""
    jitted = npcompile.jit(halve, backend="eager")
    args = (np.linspace(-40.0, 40.0, 9), 1.0)
    jitted(*args)
    tops = []
    for entries in jitted.resume_entries.values():
        for entry in entries:
            def recorded(L, inner=entry.fast):
                result = inner(L)
                if hasattr(result, "frames"):
                    tops.append(type(result.frames[-1].stack[-1]))
                return result
            entry.fast = recorded
    np.testing.assert_array_equal(jitted(*args), halve(*args))
    assert tops and set(tops) <= {bool, float}   # 3.13 breaks before the comparison: its float side


def test_reset_forgets_the_loop_body_segments_found_by_code():
    jitted = npcompile.jit(relax, backend="eager")
    args = (np.sin(np.linspace(0.0, 3.0, 16)), 30)
    jitted(*args)
    assert jitted.resume_entries.sites
    npcompile.reset()
    assert not jitted.resume_entries and not jitted.resume_entries.sites
    np.testing.assert_array_equal(jitted(*args), relax(*args))
    assert jitted.compile_count > 0 and jitted.resume_entries.sites



def test_a_for_loops_next_item_is_taken_without_the_opcode_handler(monkeypatch):
    """quick_step takes a built-in iterator's next item itself; FOR_ITER's handler runs
    only for the loop's exit (counted; the results are NumPy's)."""
    from npcompile.trace.opcodes import REAL_HANDLERS
    jitted = npcompile.jit(relax, backend="eager")
    args = (np.sin(np.linspace(0.0, 3.0, 16)), 30)
    jitted(*args)
    calls = []
    handler = REAL_HANDLERS["FOR_ITER"]
    monkeypatch.setitem(REAL_HANDLERS, "FOR_ITER", lambda *a: calls.append(1) or handler(*a))
    np.testing.assert_array_equal(jitted(*args), relax(*args))
    assert len(calls) <= 1
