"""Loops: one body graph whatever the trip count (trace/loops.py). For each loop shape,
the jitted function matches NumPy, compiles a number of graphs that does not grow with
the trip count, and a second call with the same inputs compiles nothing.

A ``for ... in range`` body is traced in chunks of several iterations
(``config.loop_chunk_trips``); the last few iterations, fewer than a chunk, take one
more body graph: the only recompile a first call may make ("... more items")."""
import warnings

import numpy as np
import pytest

import npcompile
from npcompile import config
from tests.jit.harness import CountingBackend, compare_call


def graphs_and_recompiles(fn, *args, rtol=None, atol=0.0):
    """(graphs compiled by the first call, recompiles during it); asserts that both calls
    match NumPy and that the second compiles nothing and recompiles nothing."""
    counting = CountingBackend()
    jitted = npcompile.jit(fn, backend=counting)
    compare_call(fn, jitted, args, {}, rtol, atol, "first call")
    graphs, recompiles = len(counting.graphs), list(jitted.recompile_reasons)
    compare_call(fn, jitted, args, {}, rtol, atol, "second call")
    assert len(counting.graphs) == graphs, f"the second call compiled: {jitted.recompile_reasons[len(recompiles):]}"
    assert jitted.recompile_reasons == recompiles
    assert all(reason.endswith("more items") for reason in recompiles if "sizes" not in reason), recompiles
    return graphs, [r for r in recompiles if not r.endswith("more items")]


# ---- index-dependent slices ---------------------------------------------------------------
def forward_substitution(L, b):
    x = np.empty_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def reversed_recursion(r):
    """Durbin-like: a slice reversed up to the loop index, a carried float scalar."""
    y = np.empty_like(r)
    y[0] = -r[0]
    alpha = -r[0]
    for k in range(1, r.shape[0]):
        alpha = -(r[k] + r[k - 1::-1] @ y[:k]) / 2.0
        y[:k] = y[:k] + alpha * y[k - 1::-1]
        y[k] = alpha
    return y


def _lower(n):
    rng = np.random.default_rng(n)
    return np.tril(rng.random((n, n))) / n + np.eye(n), rng.standard_normal(n)


def test_index_dependent_slices_compile_once_whatever_the_trip_count():
    short = graphs_and_recompiles(forward_substitution, *_lower(90))
    long = graphs_and_recompiles(forward_substitution, *_lower(150))
    assert 2 <= short[0] <= 3 and 2 <= long[0] <= 3, (short, long)   # first iterations, body, last few
    assert long[1] == [], long[1]   # the loop index is never guarded as a constant


def test_a_reversed_slice_and_a_carried_scalar_compile_once():
    r = np.random.default_rng(1).uniform(-0.3, 0.3, 90)
    graphs, recompiles = graphs_and_recompiles(reversed_recursion, r)
    assert 2 <= graphs <= 3 and recompiles == [], (graphs, recompiles)   # first iterations, body, last few


# ---- fixed-shape carried state ------------------------------------------------------------
def jacobi(A, B, steps):
    for _ in range(steps):
        B[1:-1] = (A[:-2] + A[1:-1] + A[2:]) / 3.0
        A[1:-1] = (B[:-2] + B[1:-1] + B[2:]) / 3.0


@pytest.mark.parametrize("steps", [60, 130])
def test_a_time_loop_is_a_prologue_one_body_and_an_epilogue(steps):
    rng = np.random.default_rng(2)
    graphs, recompiles = graphs_and_recompiles(jacobi, rng.random(50), rng.random(50), steps)
    assert graphs <= 3 and recompiles == [], (graphs, recompiles)   # prologue, chunk, last few


def test_a_short_loop_with_a_small_body_unrolls_into_one_graph():
    rng = np.random.default_rng(3)
    graphs, _ = graphs_and_recompiles(jacobi, rng.random(50), rng.random(50), 4)
    assert graphs == 1


def test_the_unroll_budget_is_configurable(monkeypatch):
    monkeypatch.setattr(config, "loop_unroll_nodes", 0)
    rng = np.random.default_rng(3)
    graphs, _ = graphs_and_recompiles(jacobi, rng.random(50), rng.random(50), 4)
    assert graphs == 2   # the first iteration, then one iteration a call (no room for chunks)


def test_one_iteration_a_call_without_chunks(monkeypatch):
    monkeypatch.setattr(config, "loop_chunk_trips", 1)
    rng = np.random.default_rng(3)
    graphs, recompiles = graphs_and_recompiles(jacobi, rng.random(50), rng.random(50), 100)
    assert (graphs, recompiles) == (2, [])


# ---- data-dependent exit ------------------------------------------------------------------
def relax_until_converged(u, tol):
    r = np.ones_like(u)
    while np.max(np.abs(r)) > tol:
        new = 0.5 * u
        new[1:-1] += 0.25 * (u[2:] + u[:-2])
        r = new - u
        u = new
    return u


def test_a_data_dependent_exit_compiles_the_body_once():
    u = np.random.default_rng(4).random(64)
    graphs, recompiles = graphs_and_recompiles(relax_until_converged, u, 1e-3)
    assert (graphs, recompiles) == (2, []), (graphs, recompiles)   # up to the first test; the body and test


# ---- helper functions ---------------------------------------------------------------------
def _laplacian(u):
    return u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]


def _step(src, dst, c):
    dst[1:-1, 1:-1] = src[1:-1, 1:-1] + c * _laplacian(src)


def heat(A, B, steps):
    for _ in range(steps):
        _step(A, B, 0.1)
        _step(B, A, 0.1)
    return A


@pytest.mark.parametrize("steps", [30, 70])
def test_helpers_called_in_a_loop_are_inlined_into_the_body(steps):
    rng = np.random.default_rng(5)
    graphs, recompiles = graphs_and_recompiles(heat, rng.random((12, 12)), rng.random((12, 12)), steps)
    assert graphs <= 3 and recompiles == [], (graphs, recompiles)   # prologue, chunk, last few


# ---- nested loops -------------------------------------------------------------------------
def _smooth(p, iterations):
    for _ in range(iterations):
        old = p.copy()
        p[1:-1] = 0.5 * (old[2:] + old[:-2])
    return p


def nested(p, q, steps, iterations):
    for t in range(steps):
        p = _smooth(p, iterations)
        q[t % q.shape[0]] += p.sum()
    return p, q


@pytest.mark.parametrize("steps", [12, 30])
def test_a_loop_in_a_helper_in_a_loop(steps):
    rng = np.random.default_rng(6)
    graphs, recompiles = graphs_and_recompiles(nested, rng.random(40), np.zeros(5), steps, 20)
    assert graphs <= 3 and recompiles == [], (graphs, recompiles)   # the inner loop unrolls into the body


def triangle_sums(A):
    n = A.shape[0]
    out = np.zeros(n)
    for i in range(n):
        for j in range(i + 1, n):
            out[i] += A[i, j] * A[j, i]
    return out


def test_an_inner_range_bounded_by_the_outer_index():
    A = np.random.default_rng(7).random((14, 14))
    graphs, _ = graphs_and_recompiles(triangle_sums, A)
    bigger, _ = graphs_and_recompiles(triangle_sums, np.random.default_rng(7).random((20, 20)))
    assert graphs == bigger <= 5, (graphs, bigger)


# ---- break and continue -------------------------------------------------------------------
def skip_and_stop(a, limit):
    total = np.zeros(())
    for i in range(a.shape[0]):
        if i % 3 == 0:
            continue
        total = total + a[i]
        if i > limit:
            break
    return total


def test_break_and_continue_in_a_loop_body():
    a = np.random.default_rng(8).random(400)
    graphs, recompiles = graphs_and_recompiles(skip_and_stop, a, 300)
    assert graphs <= 8, (graphs, recompiles)   # guards on i % 3 and on the range of i: a few bodies


def first_negative(a):
    for i in range(a.shape[0]):
        if a[i] < 0:
            return i
    return -1


def test_a_data_dependent_break():
    a = np.abs(np.random.default_rng(9).standard_normal(30))
    a[17] = -1.0
    graphs, _ = graphs_and_recompiles(first_negative, a)
    assert graphs == 2, graphs


# ---- failures inside the compiler never reach the user -------------------------------------
def csr_rows(indptr, indices, data, x):
    y = np.zeros(indptr.shape[0] - 1)
    for row in range(indptr.shape[0] - 1):
        start, stop = indptr[row], indptr[row + 1]
        y[row] = data[start:stop] @ x[indices[start:stop]]
    return y


def test_slices_by_values_read_from_arrays():
    rng = np.random.default_rng(10)
    counts = rng.integers(0, 4, 12)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    indices = rng.integers(0, 9, indptr[-1]).astype(np.int32)
    jitted = npcompile.jit(csr_rows, backend="eager")
    for _ in range(2):
        compare_call(csr_rows, jitted, (indptr, indices, rng.random(indptr[-1]), rng.random(9)), {})


# ---- explain -------------------------------------------------------------------------------
def test_explain_of_a_called_jitted_loop_reuses_its_compiles():
    """explain on a jitted function that ran before reports through its cache: the same
    segments, no graph compiled again, no recompile; a plain function still gets a fresh
    compile of its own (eager) that leaves the jitted one alone."""
    L = np.tril(np.random.default_rng(11).random((150, 150))) + 150 * np.eye(150)
    b = np.random.default_rng(12).random(150)   # too long to unroll: a body segment
    counting = CountingBackend()
    jitted = npcompile.jit(forward_substitution, backend=counting)
    compare_call(forward_substitution, jitted, (L, b), {}, 1e-12, 0.0, "first call")
    graphs, compiled, reasons = len(counting.graphs), jitted.compile_count, list(jitted.recompile_reasons)
    report = npcompile.explain(jitted)(L, b)
    assert len(counting.graphs) == graphs and jitted.compile_count == compiled
    assert jitted.recompile_reasons == reasons
    assert report.graph_count >= 2 and report.graph_break_count >= 1
    assert any("loop" in record.reason for record in report.break_reasons)
    assert "compiled before this call" in str(report)
    assert jitted.events is None
    fresh = npcompile.explain(forward_substitution)(L, b)
    assert fresh.graph_count == report.graph_count and "nothing was compiled" in str(fresh)
    assert len(counting.graphs) == graphs
    compare_call(forward_substitution, jitted, (L, b), {}, 1e-12, 0.0, "a call after explain")
    assert len(counting.graphs) == graphs


# ---- a body's writes through a symbolic index under Inductor ---------------------------------
def row_sweep(A):
    for i in range(1, A.shape[0]):
        A[i, 1:] = 0.5 * A[i - 1, :-1] + 0.25 * A[i, 1:]
    return A


@pytest.mark.inductor
def test_a_body_writing_a_row_at_the_loop_index_compiles_with_inductor(monkeypatch):
    """The scatter-writes pass rebuilds the views of a write; in a body graph their index
    is the symbolic loop variable (a graph value), which Inductor once refused, so every
    such body ran op by op after a failed compile."""
    monkeypatch.setattr(config, "native_loops", False)
    A = np.random.default_rng(13).random((300, 6))
    jitted = npcompile.jit(row_sweep, backend="inductor")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare_call(row_sweep, jitted, (A,), {}, 1e-12, 0.0, "first call")
    assert not [str(w.message) for w in caught if "failed" in str(w.message)]
    assert all(e.compiled is not None for entries in jitted.resume_entries.values() for e in entries)
