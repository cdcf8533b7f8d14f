"""Where a loop's runtime-driven body starts, and what its first call compiles
(trace/loops.py ``keep_unrolling``).

Issue 14's N-body loop recompiled inside its first call on the guard
'stack[0] has 1 more items'. That guard is the range iterator's length, below the
loop value on the stack, not the stack's depth: the prologue graph traced two time steps
(the second only to measure one step's nodes), so the body's 13 remaining steps had no
chunk size that divides them and the last one took a tail graph of its own. The tracer
now knows one body's size from where the loop took its first item, so it ends the
prologue after that first iteration where the measuring second one would shift the
body's trips into a tail. It still measures where it would not: the body then starts two
iterations in, never at a loop value of 0 or 1 (which torch specializes: a graph for that
value alone) nor with a second-order recursion's carried values still aliased."""
import numpy as np
import pytest

import npcompile
from tests.jit.harness import CountingBackend, compare_call


def _accelerations(pos, mass, softening):
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
    inv_r3 = (np.sum(d ** 2, axis=2) + softening ** 2) ** -1.5
    return np.sum(d * (mass[np.newaxis, :] * inv_r3)[:, :, np.newaxis], axis=1)


def _energies(pos, vel, mass, softening):
    kinetic = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
    inv_r = 1.0 / np.sqrt(np.sum(d ** 2, axis=2) + softening ** 2)
    return kinetic, -np.sum(np.triu(mass[:, np.newaxis] * mass[np.newaxis, :] * inv_r, 1))


def leapfrog(pos, vel, mass, steps, dt, softening):
    """benchmarks/loop_workloads.py's nbody: a loop from 1 whose step (about 70 graph
    nodes) is too large to unroll 15 times, its energies unpacked into subscripts."""
    pos, vel = pos.copy(), vel.copy()
    acc = _accelerations(pos, mass, softening)
    kinetic, potential = np.empty(steps + 1), np.empty(steps + 1)
    kinetic[0], potential[0] = _energies(pos, vel, mass, softening)
    for step in range(1, steps + 1):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = _accelerations(pos, mass, softening)
        vel += 0.5 * dt * acc
        kinetic[step], potential[step] = _energies(pos, vel, mass, softening)
    return pos, vel, kinetic, potential


def _bodies(steps, n=6):
    rng = np.random.default_rng(steps)
    return rng.standard_normal((n, 3)), rng.standard_normal((n, 3)), rng.uniform(0.5, 1.5, n) / n, steps, 0.01, 0.1


def first_call(fn, args, later_calls=5):
    """(ops of each graph the first call compiles, its recompile reasons); that call and
    ``later_calls`` more match NumPy, and the later ones compile and recompile nothing."""
    counting = CountingBackend()
    jitted = npcompile.jit(fn, backend=counting)
    compare_call(fn, jitted, args, {}, 1e-12, 1e-12, "first call")
    sizes = [sum(1 for n in gm.graph.nodes if n.op == "call_function") for gm in counting.graphs]
    recompiles = list(jitted.recompile_reasons)
    for k in range(later_calls):
        compare_call(fn, jitted, args, {}, 1e-12, 1e-12, f"call {k + 2}")
    assert len(counting.graphs) == len(sizes) and jitted.recompile_reasons == recompiles, \
        (sizes, jitted.recompile_reasons)
    return sizes, recompiles


@pytest.mark.parametrize("steps", [12, 13, 14, 15, 16, 17, 20, 24, 30])
def test_a_time_loop_compiles_a_prologue_and_one_body_graph_and_never_recompiles(steps):
    # 15 steps: before, a prologue of two steps and 13 left for the body (no chunk of 4 or
    # 3 divides them): a tail graph on 'stack[0] has 1 more items' in the first call
    sizes, recompiles = first_call(leapfrog, _bodies(steps))
    assert len(sizes) == 2 and recompiles == [], (sizes, recompiles)


@pytest.mark.parametrize("steps, prologue_steps", [(15, 1), (14, 2), (17, 1), (25, 1)])
def test_the_prologue_ends_after_one_step_where_a_second_would_leave_the_body_a_tail(steps, prologue_steps):
    # 15: 14 trips left after one step (chunks of 2), 13 after two (no chunk divides them);
    # 14: 13 after one, 12 after two (measured, as before); 17: 16 and 15; 25: 24 and 23
    setup = first_call(leapfrog, _bodies(0), later_calls=0)[0][0]
    step = (first_call(leapfrog, _bodies(2), later_calls=0)[0][0] - setup) / 2   # two steps unroll
    sizes, recompiles = first_call(leapfrog, _bodies(steps), later_calls=1)
    assert len(sizes) == 2 and recompiles == [], (sizes, recompiles)
    assert abs(sizes[0] - setup - prologue_steps * step) < 0.5 * step, (setup, step, sizes)


def substitution(L, b, start):
    """An index loop whose value is a slice bound: a body graph traced at 0 or 1 would
    hold for that value only."""
    x = np.zeros_like(b)
    for i in range(start, b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


@pytest.mark.parametrize("n, start", [(40, 0), (41, 0), (57, 0), (40, 1), (41, 1), (40, 2)])
def test_an_index_loop_body_does_not_start_at_zero_or_one(n, start):
    rng = np.random.default_rng(n)
    L = np.tril(rng.random((n, n))) / n + np.eye(n)
    sizes, recompiles = first_call(substitution, (L, rng.standard_normal(n), start), later_calls=1)
    # a prologue, a chunk, perhaps a tail for the last few ("... more items"), no more
    assert 2 <= len(sizes) <= 3, (sizes, recompiles)
    assert all(reason.endswith("more items") for reason in recompiles), recompiles
