"""Arrays a loop the runtime drives keeps in its frame stay CPU tensors between iterations
(``DeviceArray``), and one compiled body takes either the caller's ndarray (its first
iteration, or after real code at a break brought the array to the host) or the tensor
its own last run left (held_inputs). Checked against NumPy (values, dtypes, inputs
after, memory relations, read-only flags), against the same jit with holding off (the
same graph counts), and by counting which form each run of the body took (never timed)."""
import io

import numpy as np
import pytest

import npcompile
from npcompile.trace import resident
from npcompile.trace.resident import DeviceArray
from tests.jit.harness import compare_call
from tests.jit.test_loop_runtime_exits import halve, history, in_place, printed, raises, views
from tests.jit.test_loop_runtime_iterations import relax, relax_continue


def flipped_input(u, steps):
    v = u[::-1]
    w = v
    for t in range(steps):
        w = u[::-1]             # NumPy's view of the caller's u (torch's is a copy): replayed
        if np.max(w) < t:
            break
    w[0] = -7.0                 # writes u[-1], as in NumPy
    return u, v, w


def broadcast_held(u, steps):
    b = u
    for _ in range(steps):
        u = u * 0.5
        b = np.broadcast_to(u[:1], u.shape)   # read-only in NumPy: held as NumPy's array
        if np.max(u) < 1.0:
            break
    try:
        b[0] = 1.0
    except ValueError:
        return u, b, "read-only"
    return u, b, "written"


def writes_input(u, steps):
    for _ in range(steps):
        u[1:] += u[:-1] * 0.5   # into the caller's array: NumPy raises if it is read-only
        if np.max(u) > 1e3:
            break
    return u


def conjugates(z, steps):
    for _ in range(steps):
        z = z * 0.5
        z = np.conj(z)          # run op by op, a lazy conjugate: never held unresolved
        if np.max(np.abs(z)) < 1.0:
            break
    return z


def shrink(u, steps):
    for _ in range(steps):
        u = u[1:] * 0.5         # a new size each iteration: one dynamic graph after the second
        if np.max(u) < 1e-9:
            break
    return u


def aliased(u, steps):
    a = b = u
    for _ in range(steps):
        a = a * 0.5
        b = a                   # one array in two slots: one object after the loop
        if np.max(a) < 1.0:
            break
    return a, b, a is b


def transposed(u, steps):
    for _ in range(steps):
        u = u.T * 0.5           # strides that alternate between iterations
        if np.max(u) < 1.0:
            break
    return u


def host_each_iteration(u, steps):
    out = io.StringIO()
    for t in range(steps):
        u = u * 0.5
        print(t, u[0], file=out)   # real code: u comes to the host, the body then gets an ndarray
        if np.max(u) < 1.0:
            break
    return u, out.getvalue()


def read_only(shape=(8,)):
    a = np.linspace(1.0, 40.0, int(np.prod(shape))).reshape(shape)
    a.flags.writeable = False
    return a


CASES = [
    (relax, (np.sin(np.linspace(0.0, 3.0, 16)), 30)),
    (relax_continue, (np.linspace(1.0, 40.0, 8), 12)),
    (halve, (np.linspace(-40.0, 40.0, 9), 1.0)),
    (halve, (read_only(), 1.0)),
    (history, (np.linspace(1.0, 40.0, 8), 12)),
    (views, (np.linspace(1.0, 40.0, 8), 12)),
    (raises, (np.linspace(1.0, 40.0, 8), 12)),
    (printed, (np.linspace(1.0, 40.0, 8), 12)),
    (in_place, (np.linspace(1.0, 2.0, 8), 40)),
    (flipped_input, (np.linspace(1.0, 40.0, 8), 12)),
    (broadcast_held, (np.linspace(1.0, 40.0, 8), 12)),
    (writes_input, (np.linspace(1.0, 2.0, 8), 40)),
    (writes_input, (read_only(), 40)),
    (conjugates, (np.linspace(1.0, 40.0, 8) * (1 + 1j), 12)),
    (shrink, (np.linspace(1.0, 40.0, 12), 8)),
    (aliased, (np.linspace(1.0, 40.0, 8), 12)),
    (transposed, (np.linspace(1.0, 40.0, 12).reshape(3, 4), 12)),
    (host_each_iteration, (np.linspace(1.0, 40.0, 8), 12)),
]
IDS = [f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)]


def _graphs_over_three_calls(fn, args, hold, monkeypatch):
    monkeypatch.setattr(resident, "hold_on_cpu", hold)
    jitted = npcompile.jit(fn, backend="eager")
    compare_call(fn, jitted, args, {})
    graphs, reasons = jitted.compile_count, list(jitted.recompile_reasons)
    for _ in range(2):
        compare_call(fn, jitted, args, {})
    assert jitted.compile_count == graphs and jitted.recompile_reasons == reasons   # nothing on later calls
    return graphs, len(reasons)


@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_held_arrays_look_like_numpy_and_cost_no_compile(fn, args, monkeypatch):
    """NumPy's results with arrays held as tensors, and as many graphs as with every
    array converted to NumPy's between iterations (the body's first iteration, which
    gets the caller's ndarray, compiles nothing the later ones do not use)."""
    held = _graphs_over_three_calls(fn, args, True, monkeypatch)
    converted = _graphs_over_three_calls(fn, args, False, monkeypatch)
    assert held == converted


def _forms_taken(jitted):
    """Wrap each resumed segment's fast path; returns the list of the types of the arrays
    in its frame's locals at each run that the fast path served."""
    seen = []
    for entries in jitted.resume_entries.values():
        for entry in entries:
            def counted(L, inner=entry.fast):
                result = inner(L)
                seen.extend(type(v) for v in L[0].locals.values() if isinstance(v, (np.ndarray, DeviceArray)))
                return result
            entry.fast = counted
    return seen


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn, args", [(relax, (np.sin(np.linspace(0.0, 3.0, 64)), 40)),
                                      (halve, (np.linspace(-40.0, 40.0, 64), 1.0))], ids=["for-break", "while"])
def test_the_body_takes_the_caller_array_once_then_the_held_tensor(fn, args, backend):
    """One body entry serves both forms from its fast path: the caller's ndarray in the
    first iteration, the held tensor in every later one; no call after the first takes
    the slow path (``_segment``) or compiles, and the result is NumPy's ndarray."""
    jitted = npcompile.jit(fn, backend=backend)
    jitted(*args)
    graphs = jitted.compile_count
    slow = []
    segment = jitted._segment
    jitted._segment = lambda *a, **k: slow.append(1) or segment(*a, **k)
    seen = _forms_taken(jitted)
    result = jitted(*args)
    np.testing.assert_array_equal(result, fn(*args))
    assert type(result) is np.ndarray
    assert seen.count(np.ndarray) <= 1 and seen.count(DeviceArray) >= 5, seen
    assert np.ndarray in seen or fn is relax   # relax's entry segment runs its first iteration itself
    assert not slow and jitted.compile_count == graphs and jitted.host_copies == 0


def test_an_array_real_code_brought_to_the_host_is_taken_by_the_same_body():
    """After a print at a break the frame holds NumPy's array; the segment after it takes
    that as it takes the held tensor: one entry per resume point, both forms served."""
    jitted = npcompile.jit(host_each_iteration, backend="eager")
    args = (np.linspace(1.0, 40.0, 8), 12)
    compare_call(host_each_iteration, jitted, args, {})
    seen = _forms_taken(jitted)
    compare_call(host_each_iteration, jitted, args, {})
    assert np.ndarray in seen and DeviceArray in seen and not jitted.recompile_reasons
    assert all(len(entries) == 1 for entries in jitted.resume_entries.values())


def test_a_held_input_s_guard_says_which_forms_it_takes():
    """The recompile reason for a held input names both forms (a new size here)."""
    jitted = npcompile.jit(halve, backend="eager")
    jitted(np.linspace(-40.0, 40.0, 9), 1.0)
    jitted(np.linspace(-40.0, 40.0, 9), 1.0)
    assert not jitted.recompile_reasons
    npcompile.config.automatic_dynamic_shapes, before = False, npcompile.config.automatic_dynamic_shapes
    try:
        np.testing.assert_array_equal(jitted(np.linspace(-40.0, 40.0, 5), 1.0), halve(np.linspace(-40.0, 40.0, 5), 1.0))
    finally:
        npcompile.config.automatic_dynamic_shapes = before
    assert any("an ndarray or a held tensor" in reason for reason in jitted.recompile_reasons)
