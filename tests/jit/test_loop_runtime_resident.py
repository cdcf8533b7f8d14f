"""Arrays a loop the runtime drives keeps in its frame between iterations stay tensors on
the CPU (``DeviceArray``), as on a GPU: what the program sees is still NumPy's (returned,
raised through, put in a list, aliased views, handed to real code at a break), checked
against NumPy (values, dtypes, inputs after, memory relations), and that the body's
segment takes the frame's tensor, counted (never timed)."""
import io

import numpy as np
import pytest

import npcompile
from npcompile.runtime.entries import MISS
from npcompile.trace.resident import DeviceArray
from tests.jit.harness import compare_call


def relax(u, steps):
    for _ in range(steps):
        u = u + 0.25 * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
        if np.max(np.abs(u)) < 1e-3:
            break
    return u


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
def test_arrays_the_frame_keeps_as_tensors_look_like_numpy_and_compile_once(fn, args):
    """Nothing compiles on a later call. (The first may compile a loop's body twice: for
    the caller's array in its first iteration, then for the tensor its own run left.)"""
    jitted = npcompile.jit(fn, backend="eager")
    compare_call(fn, jitted, args, {})
    graphs, reasons = jitted.compile_count, list(jitted.recompile_reasons)
    for _ in range(2):
        compare_call(fn, jitted, args, {})
    assert jitted.compile_count == graphs and jitted.recompile_reasons == reasons


def _frame_arrays(jitted):
    """Wrap each resumed segment's fast path; returns the list of the types of the arrays
    its frame holds in its locals at each run that its guards pass."""
    seen = []
    for entries in jitted.resume_entries.values():
        for entry in entries:
            def counted(L, inner=entry.fast):
                arrays = [type(v) for v in L[0].locals.values() if isinstance(v, (np.ndarray, DeviceArray))]
                result = inner(L)
                if result is not MISS:
                    seen.extend(arrays)
                return result
            entry.fast = counted
    return seen


@pytest.mark.parametrize("fn, args", [(relax, (np.sin(np.linspace(0.0, 3.0, 16)), 30)),
                                      (halve, (np.linspace(-40.0, 40.0, 9), 1.0))])
def test_the_body_takes_the_tensor_its_last_run_left_in_the_frame(fn, args):
    """The first iteration's array may be the caller's (NumPy), every later one the tensor the
    body's graph made (no tensor -> ndarray -> tensor between iterations)."""
    jitted = npcompile.jit(fn, backend="eager")
    jitted(*args)
    seen = _frame_arrays(jitted)
    result = jitted(*args)
    np.testing.assert_array_equal(result, fn(*args))
    assert type(result) is np.ndarray and seen.count(np.ndarray) <= 1 and seen.count(DeviceArray) >= 5
    assert jitted.host_copies == 0


def test_an_array_real_code_reads_at_a_break_comes_to_the_host_once_per_read():
    jitted = npcompile.jit(printed, backend="eager")
    args = (np.linspace(1.0, 40.0, 8), 12)
    compare_call(printed, jitted, args, {})
    assert jitted.host_copies > 0


def test_a_tensor_program_keeps_tensors_as_they_are():
    """Torch tensor inputs: the frame holds the tensors themselves, never a DeviceArray."""
    import torch
    jitted = npcompile.jit(relax, backend="eager")
    result = jitted(torch.sin(torch.linspace(0.0, 3.0, 16, dtype=torch.float64)), 30)
    assert type(result) is torch.Tensor
    np.testing.assert_allclose(result.numpy(), relax(np.sin(np.linspace(0.0, 3.0, 16)), 30))


def test_the_condition_a_body_hands_to_its_jump_is_a_python_bool():
    """The loop's test at the break is popped by its jump unseen: a ``bool`` (cheaper to
    make than NumPy's scalar), what quick_step takes; the loop ends where NumPy's does."""
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
    assert tops and set(tops) == {bool}


def test_reset_forgets_the_loop_body_segments_found_by_code():
    jitted = npcompile.jit(relax, backend="eager")
    args = (np.sin(np.linspace(0.0, 3.0, 16)), 30)
    jitted(*args)
    assert jitted.resume_entries.sites
    npcompile.reset()
    assert not jitted.resume_entries and not jitted.resume_entries.sites
    np.testing.assert_array_equal(jitted(*args), relax(*args))
    assert jitted.compile_count > 0 and jitted.resume_entries.sites

