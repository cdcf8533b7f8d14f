"""Recompilation under control: automatic dynamic shapes, mark_dynamic/mark_static,
the cache limit, recompile reasons and logs, the profiler, compile_times, run-only."""
import logging
import warnings

import numpy as np
import pytest

import npcompile
from tests.jit.harness import CountingBackend
from tests.oracle import assert_same


def stencil(a, b):
    c = np.sin(a) * 2 + b[: a.shape[0]]
    return c.sum(), c, a.shape[0] * 2


def test_sizes_8_to_4096_compile_at_most_twice():
    backend = CountingBackend()
    jitted = npcompile.jit(stencil, backend=backend)
    for n in [8 * 2**k for k in range(10)]:
        a, b = np.random.default_rng(n).random(n), np.random.default_rng(n + 1).random(n + 3)
        assert_same(stencil(a, b), jitted(a, b))
    assert len(backend.graphs) <= 2, [b.message for b in jitted.breaks]
    assert jitted.recompile_reasons == ["a.shape == (8,)"], [b.message for b in jitted.breaks]


def test_2d_dynamic_then_rank_change_recompiles():
    backend = CountingBackend()
    jitted = npcompile.jit(lambda a: (a * a).sum(axis=0), backend=backend)
    for n in (3, 5, 9, 17):
        a = np.arange(n * 4.0).reshape(n, 4)
        assert_same((a * a).sum(axis=0), jitted(a))
    assert len(backend.graphs) == 2
    a = np.arange(8.0)
    assert_same((a * a).sum(axis=0), jitted(a))
    assert len(backend.graphs) == 3


def row_and_transpose(a, b):
    return a + b[0], (a * 2 + b[1:2]).T


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
def test_dynamic_dims_of_2d_inputs_keep_answers_right(backend, dtype):
    """Guards on dynamic dims must hold for NumPy arrays (byte strides) and include sizes
    the trace or the backend specialized; otherwise a later size reuses a wrong graph."""
    jitted = npcompile.jit(row_and_transpose, backend=backend)
    for n in (5, 7, 9, 11):
        a = np.arange(3 * n, dtype=dtype).reshape(3, n)
        b = np.linspace(-1, 1, 3 * n).astype(dtype).reshape(3, n)
        assert_same(row_and_transpose(a, b), jitted(a, b))


def test_complex_arithmetic_stays_dynamic():
    """The shim builds complex values without torch.complex, whose shape function would
    fix each dynamic size and so recompile for every new size."""
    backend = CountingBackend()
    jitted = npcompile.jit(row_and_transpose, backend=backend)
    for n in (5, 7, 9, 11, 13):
        a = np.arange(3 * n, dtype=np.complex128).reshape(3, n) * (1 - 2j)
        assert_same(row_and_transpose(a, a), jitted(a, a))
    assert len(backend.graphs) == 2


def test_dtype_change_recompiles():
    backend = CountingBackend()
    jitted = npcompile.jit(lambda a: a / 2, backend=backend)
    assert_same(np.arange(4) / 2, jitted(np.arange(4)))
    assert_same(np.arange(4, dtype=np.float32) / 2, jitted(np.arange(4, dtype=np.float32)))
    assert len(backend.graphs) == 2 and "dtype" in jitted.recompile_reasons[0]


def test_dynamic_true_and_false():
    dyn, static = CountingBackend(), CountingBackend()
    f_dyn = npcompile.jit(lambda a: a + 1, backend=dyn, dynamic=True)
    f_static = npcompile.jit(lambda a: a + 1, backend=static, dynamic=False)
    for n in (4, 6, 8):
        assert_same(np.arange(n) + 1, f_dyn(np.arange(n)))
        assert_same(np.arange(n) + 1, f_static(np.arange(n)))
    assert len(dyn.graphs) == 1 and len(static.graphs) == 3


def test_mark_dynamic_and_mark_static():
    backend = CountingBackend()
    jitted = npcompile.jit(lambda a: a * 3, backend=backend)
    first = np.arange(5.0)
    npcompile.mark_dynamic(first, 0)
    jitted(first)
    for n in (7, 9):
        assert_same(np.arange(n) * 3.0, jitted(np.arange(float(n))))
    assert len(backend.graphs) == 1

    static_backend = CountingBackend()
    pinned = npcompile.jit(lambda a: a * 3, backend=static_backend)
    for n in (4, 6, 8):
        x = np.arange(float(n))
        npcompile.mark_static(x, 0)
        assert_same(x * 3, pinned(x))
    assert len(static_backend.graphs) == 3


def test_cache_size_limit_warns_once_and_stops_compiling():
    backend = CountingBackend()
    jitted = npcompile.jit(lambda a, k: a * k, backend=backend)
    old = npcompile.config.cache_size_limit
    npcompile.config.cache_size_limit = 3
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for k in range(10):   # Python floats are specialized: each value is a new entry
                assert_same(np.arange(3.0) * (k + 0.5), jitted(np.arange(3.0), k + 0.5))
    finally:
        npcompile.config.cache_size_limit = old
    messages = [str(w.message) for w in caught if "cache_size_limit" in str(w.message)]
    assert len(messages) == 1 and "k == " in messages[0]
    assert len(backend.graphs) == 3 and len(jitted.entries) == 3


def test_changing_int_argument_becomes_symbolic():
    backend = CountingBackend()
    jitted = npcompile.jit(lambda a, k: a * k + k, backend=backend)
    for k in range(2, 12):
        assert_same(np.arange(3.0) * k + k, jitted(np.arange(3.0), k))
    assert len(backend.graphs) == 2


def csr_times_vector(indptr, indices, data, x):
    y = np.zeros(indptr.shape[0] - 1)
    for row in range(indptr.shape[0] - 1):
        start, stop = indptr[row], indptr[row + 1]   # NumPy int32 scalars read from an index array
        y[row] = data[start:stop] @ x[indices[start:stop]]
    return y


def random_csr(seed, rows=12, cols=9, nnz=40):
    """CSR arrays of the same shapes for every seed, with different row lengths (at least
    2: torch specializes sizes 0 and 1, a shape guard, not a value guard)."""
    rng = np.random.default_rng(seed)
    counts = 2 + np.bincount(rng.integers(0, rows, nnz - 2 * rows), minlength=rows)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return indptr, rng.integers(0, cols, nnz).astype(np.int32), rng.standard_normal(nnz), rng.standard_normal(cols)


def rolling_hash(codes):
    h = codes[0]          # a NumPy int64 the loop carries from one iteration to the next
    for i in range(1, codes.shape[0]):
        h = (h * 31 + codes[i]) % 1_000_003
    return h


@pytest.mark.parametrize("fn, make_args", [
    (csr_times_vector, random_csr),
    (rolling_hash, lambda seed: (np.random.default_rng(seed).integers(0, 1000, 300),)),
], ids=["index_array_bounds", "carried_int"])
def test_numpy_ints_in_loops_are_not_guarded_by_value(monkeypatch, fn, make_args):
    """NumPy integer scalars a loop reads from an index array or carries change with the
    data: once one changes it is a graph input (like an int argument after a change), so
    later calls with new values compile nothing, however many values they bring."""
    monkeypatch.setattr(npcompile.config, "native_loops", False)
    backend = CountingBackend()
    jitted = npcompile.jit(fn, backend=backend)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_same(fn(*make_args(0)), jitted(*make_args(0)))
        first_call_graphs = len(backend.graphs)
        for seed in range(1, 6):
            assert_same(fn(*make_args(seed)), jitted(*make_args(seed)))
    assert not [w for w in caught if "cache_size_limit" in str(w.message)]   # every state compiled
    assert len(backend.graphs) == first_call_graphs, jitted.recompile_reasons
    value_guards = [reason for reason in jitted.recompile_reasons if "== np.int" in reason]
    assert len(value_guards) <= 2, value_guards   # one change per carried value makes it an input


def test_long_loop_compiles_like_a_short_one():
    def relax(u, n):
        for _ in range(n):
            u = u + 0.5 * (np.roll(u, 1) - u)
        return u

    u = np.linspace(0.0, 1.0, 8)
    for n in (10, 10_000):
        jitted = npcompile.jit(relax, backend="eager")
        assert_same(relax(u.copy(), n), jitted(u.copy(), n), rtol=1e-9)
        assert jitted.compile_count <= 4
        assert all("loop" in b.reason for b in jitted.breaks)


def test_recompile_log(caplog):
    npcompile.set_logs(recompiles=True)
    try:
        with caplog.at_level(logging.INFO, logger="npcompile"):
            jitted = npcompile.jit(lambda a: a - 1, backend="eager")
            jitted(np.zeros(2))
            jitted(np.zeros(2, dtype=np.int32))
    finally:
        npcompile.set_logs()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "recompiling" in text and "a.dtype == float64" in text


def test_profiler_names_causes():
    def with_print(a):
        print("x")
        return a + 1

    with npcompile.CompileProfiler() as prof:
        f = npcompile.jit(lambda a: a * 2, backend="eager")
        f(np.zeros(3))
        f(np.zeros(3, dtype=np.float32))
        npcompile.jit(with_print, backend="eager")(np.zeros(2))
    assert prof.count("recompile") == 1 and prof.count("break") == 1
    report = prof.report()
    assert "a.dtype == float64" in report and "print" in report


def test_compile_times_lists_every_phase():
    def timed_fn(a):
        return np.cos(a) + 1

    npcompile.jit(timed_fn, backend="eager")(np.zeros(3))
    table = npcompile.compile_times()
    header, *rows = table.splitlines()
    assert all(phase in header for phase in ("trace", "guards", "backend", "total"))
    assert any(row.startswith("test_compile_times_lists_every_phase.<locals>.timed_fn") for row in rows)
    times = npcompile.compile_times(as_table=False)
    assert times["test_compile_times_lists_every_phase.<locals>.timed_fn"]["trace"] > 0


def test_run_only_never_compiles():
    backend = CountingBackend()
    jitted = npcompile.jit(lambda a: a + 2, backend=backend)
    jitted(np.zeros(3))
    serving = npcompile.run(jitted)
    assert_same(np.zeros(3) + 2, serving(np.zeros(3)))
    assert_same(np.zeros(4, dtype=np.int8) + 2, serving(np.zeros(4, dtype=np.int8)))
    assert len(backend.graphs) == 1 and serving.run_only_misses == 1
    with pytest.raises(TypeError):
        npcompile.run(lambda a: a)


def test_reset_forgets_everything():
    backend = CountingBackend()
    jitted = npcompile.jit(lambda a: a + 2, backend=backend)
    jitted(np.zeros(3))
    npcompile.reset()
    jitted(np.zeros(3))
    assert len(backend.graphs) == 2
