"""What a loop costs to compile (trace/loops.py): the graphs a first call makes and how
many nodes they hold, which Inductor's time grows with. A time step is traced once as
the prologue's and once as the body's, never a third time in part; a chunked body takes
no extra graph for leftover iterations when a chunk size divides the trips."""
import numpy as np
import pytest

import npcompile
from npcompile import config
from npcompile.trace.loops import chunk_size
from tests.jit.harness import CountingBackend, compare_call


def compiled_nodes(fn, *args):
    """Ops of each graph the first call compiles, and its recompile reasons; both calls
    match NumPy and the second compiles nothing."""
    counting = CountingBackend()
    jitted = npcompile.jit(fn, backend=counting)
    compare_call(fn, jitted, args, {}, None, 0.0, "first call")
    sizes = [sum(1 for n in gm.graph.nodes if n.op == "call_function") for gm in counting.graphs]
    recompiles = list(jitted.recompile_reasons)
    compare_call(fn, jitted, args, {}, None, 0.0, "second call")
    assert len(counting.graphs) == len(sizes) and jitted.recompile_reasons == recompiles
    return sizes, recompiles


def _relax(p, iterations):
    for _ in range(iterations):
        p[1:-1] = 0.5 * (p[2:] + p[:-2])
        p[0] = p[1]
        p[-1] = p[-2]
    return p


def stepper(u, p, steps, iterations):
    """A time loop whose step calls a helper with a fixed inner loop (a pressure solve)."""
    u = u.copy()
    for _ in range(steps):
        p = _relax(p, iterations)
        u[1:-1] = u[1:-1] + 0.1 * (p[2:] - p[:-2]) + 0.01 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u, p


def test_a_step_over_half_the_budget_ends_the_prologue_at_its_first_back_edge(monkeypatch):
    # one step is about 230 nodes: the prologue holds the first step only, not a second one
    # traced to measure it (which broke at the inner loop into three more graphs)
    monkeypatch.setattr(config, "loop_unroll_nodes", 300)
    rng = np.random.default_rng(0)
    sizes, recompiles = compiled_nodes(stepper, rng.random(30), rng.random(30), 6, 10)
    assert len(sizes) == 2 and sizes[0] < 1.5 * sizes[1] and recompiles == [], (sizes, recompiles)


def test_a_small_step_is_still_measured_and_unrolled():
    rng = np.random.default_rng(0)
    sizes, _ = compiled_nodes(stepper, rng.random(30), rng.random(30), 3, 4)
    assert len(sizes) == 1, sizes


def test_a_long_inner_sweep_is_a_chunked_body_not_unrolled_into_each_step():
    # 40 sweeps of a 22-node body: 880 nodes unrolled into the prologue and again into the
    # step's body; as a chunk of 8 sweeps, the step's graphs hold about a fifth of that
    rng = np.random.default_rng(0)
    sizes, _ = compiled_nodes(stepper, rng.random(30), rng.random(30), 12, 40)
    assert sum(sizes) < 400 and max(sizes) <= 8 * 22, sizes


def jacobi(A, B, steps):
    for _ in range(steps):
        B[1:-1] = (A[:-2] + A[1:-1] + A[2:]) / 3.0
        A[1:-1] = (B[:-2] + B[1:-1] + B[2:]) / 3.0


@pytest.mark.parametrize("steps", [62, 65, 66, 67])
def test_a_chunk_that_divides_the_trips_leaves_no_tail_graph(steps):
    rng = np.random.default_rng(1)
    sizes, recompiles = compiled_nodes(jacobi, rng.random(30), rng.random(30), steps)
    assert len(sizes) == 2 and recompiles == [], (sizes, recompiles)   # prologue, one chunk


def test_trips_without_a_divisor_take_one_tail_graph():
    rng = np.random.default_rng(1)   # 58 trips after the prologue's two: 2 x 29
    sizes, recompiles = compiled_nodes(jacobi, rng.random(30), rng.random(30), 60)
    assert len(sizes) == 3 and len(recompiles) == 1 and recompiles[0].endswith("more items"), (sizes, recompiles)


@pytest.mark.parametrize("largest, trips, chunk", [
    (8, 16, 8), (8, 18, 6), (8, 75, 5), (8, 77, 7), (8, 58, 8), (8, 7, 1), (1, 100, 1), (11, 18, 9), (2, 9, 2)])
def test_chunk_size(largest, trips, chunk):
    assert chunk_size(largest, trips) == chunk
