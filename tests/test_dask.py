"""npcompile on Dask: jitted chunk functions on a 2-worker ``LocalCluster`` (worker
processes, in-process scheduler) give what Dask with NumPy chunks gives, compile once per
worker (edge chunks included), fall back to uncompiled code with one warning where the
compiler fails, and survive a worker killed mid-computation.

Most functions use the eager backend (the compile counters and pickling do not depend on
the backend); a few use Inductor, whose workers share a fresh on-disk cache made for this
module (nothing relies on a cache warmed elsewhere), where a second worker finds the graph
the first one compiled. Calls inside Dask tasks run on the task's thread budget."""
import os
import pickle
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster

import npcompile
import npcompile.dask as nd
from npcompile import threads
from tests.jit import thread_counts as tc
from tests.jit.harness import recording_backend
from tests.oracle import assert_same

SHAPE, CHUNKS = (1000, 700), (300, 300)   # edge chunks of 100 rows / columns


def physics(x, v):
    """Energy of a particle in a quartic well: arithmetic only."""
    return 0.5 * v * v + 0.25 * x * x * x * x - x * x


def heat_step(u):
    """One explicit heat-equation step on a 2-D grid (its border kept)."""
    out = u.copy()
    out[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                                             - 4.0 * u[1:-1, 1:-1])
    return out


def squares(x, axis=None, keepdims=False):
    return (x * x).sum(axis=axis, keepdims=keepdims)


def total(x, axis=None, keepdims=False):
    return x.sum(axis=axis, keepdims=keepdims)


def scaled(x, y):
    return x * 3 - y


def row_norm(x):
    return np.sqrt((x * x).sum(axis=-1))


def broken_backend(gm, example_inputs):
    raise RuntimeError("this backend fails on purpose")


def shifted(x):
    return x + 1.5


def cubed(x):
    return x * x * x


def die_once(x, marker, block_id=None):
    """Kills its worker process the first time it runs block (1, 1) (a marker file says
    whether that happened); otherwise returns ``x`` unchanged."""
    if block_id == (1, 1) and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return x


_WARNINGS = []   # in each worker: npcompile's warnings, recorded by _record_warnings


def _record_warnings():
    def record(message, category, filename, lineno, file=None, line=None):
        if "npcompile" in str(message):
            _WARNINGS.append(str(message))

    warnings.simplefilter("always")   # every warning issued is seen, repeats too
    warnings.showwarning = record
    _WARNINGS.clear()


def _recorded_warnings():
    return list(_WARNINGS)


def on_a_gpu(x, v):
    """Compiled by the Triton stand-in test only."""
    return np.sqrt(x * x + v * v) * np.exp(-0.5 * x)


def warm_start(x):
    """Compiled by the warm-start test only (so its first compile is a cache miss)."""
    return np.tanh(x) * 0.5 + 2.0


@pytest.fixture(scope="module")
def inductor_cache(tmp_path_factory):
    """A fresh Inductor cache directory for the workers of this module's cluster."""
    return str(tmp_path_factory.mktemp("inductor-cache"))


@pytest.fixture(scope="module")
def client(inductor_cache):
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      worker_dashboard_address=None, env={"TORCHINDUCTOR_CACHE_DIR": inductor_cache}) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(2)
        yield client


def _inputs():
    x = da.random.default_rng(0).random(SHAPE, chunks=CHUNKS)
    v = da.random.default_rng(1).standard_normal(SHAPE, chunks=CHUNKS)
    return x, v


def _compiles(stats, name):
    return {address: s["functions"].get(name, {}).get("compiles", 0) for address, s in stats.items()}


def test_pickled_jitted_function_is_a_reference_not_compiled_code():
    jitted = npcompile.jit(lambda a: a * 2 + 1, backend="eager")
    import cloudpickle

    before = cloudpickle.dumps(jitted)
    jitted(np.arange(5.0))
    assert jitted.compile_count == 1
    after = cloudpickle.dumps(jitted)
    assert len(after) == len(before)                        # the compiled entry did not travel
    assert cloudpickle.loads(after) is jitted                # same process: the same function
    module_level = npcompile.jit(physics, backend="eager", dynamic=True, device="cpu")
    copy = pickle.loads(pickle.dumps(module_level))
    assert copy is module_level and copy.device == "cpu" and copy.dynamic is True


def test_map_blocks_inductor_matches_numpy_and_compiles_once_per_worker(client):
    x, v = _inputs()
    jitted = nd.map_blocks(physics, x, v)
    expected = da.map_blocks(physics, x, v)
    assert type(jitted._meta) is type(expected._meta) and jitted.dtype == expected.dtype
    assert_same(expected.compute(scheduler="threads"), jitted.compute())
    stats = nd.worker_stats(client)
    calls = {a: s["chunks"].get("physics", {}).get("calls", 0) for a, s in stats.items()}
    assert sum(calls.values()) == x.npartitions
    for address, compiles in _compiles(stats, "physics").items():
        assert compiles == (1 if calls[address] else 0), stats[address]
        assert stats[address]["functions"].get("physics", {}).get("recompiles", 0) == 0


def test_edge_chunks_do_not_recompile(client):
    worker = sorted(client.scheduler_info()["workers"])[0]
    x = da.random.default_rng(2).random(SHAPE, chunks=CHUNKS)
    assert len(set(x.chunks[0])) == 2 and len(set(x.chunks[1])) == 2   # full and edge chunks
    result = client.compute(nd.map_blocks(scaled, x, 2.0, jit=dict(backend="eager")), workers=[worker]).result()
    assert_same(da.map_blocks(scaled, x, 2.0).compute(scheduler="threads"), result)
    stats = nd.worker_stats(client)[worker]
    assert stats["chunks"]["scaled"]["calls"] == x.npartitions
    assert stats["functions"]["scaled"] == {"compiles": 1, "recompiles": 0, "breaks": 0}


def test_map_overlap_stencil_inductor_matches_numpy(client):
    u = da.random.default_rng(3).random(SHAPE, chunks=CHUNKS)
    expected = da.map_overlap(heat_step, u, depth=1, boundary="reflect").compute(scheduler="threads")
    result = nd.map_overlap(heat_step, u, depth=1, boundary="reflect").compute()
    assert_same(expected, result)
    stats = nd.worker_stats(client)
    calls = {a: s["chunks"].get("heat_step", {}).get("calls", 0) for a, s in stats.items()}
    assert sum(calls.values()) == u.npartitions
    for address, compiles in _compiles(stats, "heat_step").items():
        assert compiles == (1 if calls[address] else 0), stats[address]


def test_reduction_with_jitted_chunk_and_aggregate(client):
    x = da.random.default_rng(4).integers(-1000, 1000, SHAPE, chunks=CHUNKS)
    for axis in (0, 1, None):
        expected = da.reduction(x, squares, total, axis=axis, dtype=np.int64).compute(scheduler="threads")
        result = nd.reduction(x, squares, total, axis=axis, jit=dict(backend="eager"))
        assert result.dtype == np.int64
        assert_same(expected, result.compute())


def test_plain_jitted_functions_in_blockwise_and_apply_gufunc(client):
    x, v = _inputs()
    jitted = npcompile.jit(scaled, backend="eager")
    expected = da.blockwise(scaled, "ij", x, "ij", v, "ij", dtype=x.dtype).compute(scheduler="threads")
    assert_same(expected, da.blockwise(jitted, "ij", x, "ij", v, "ij", dtype=x.dtype).compute())
    assert_same(expected, nd.blockwise(scaled, "ij", x, "ij", v, "ij", jit=dict(backend="eager")).compute())
    norms = npcompile.jit(row_norm, backend="eager")
    x1 = x.rechunk({1: -1})
    expected = da.apply_gufunc(row_norm, "(i)->()", x1, output_dtypes=float).compute(scheduler="threads")
    assert_same(expected, da.apply_gufunc(norms, "(i)->()", x1, output_dtypes=float).compute())


def test_threaded_scheduler_needs_no_pickling():
    x, v = _inputs()
    expected = da.map_blocks(scaled, x, v).compute(scheduler="threads")
    assert_same(expected, nd.map_blocks(scaled, x, v, jit=dict(backend="eager")).compute(scheduler="threads"))


def test_meta_is_traced_without_compiling_on_the_client():
    x, v = _inputs()
    chunk = nd.ChunkFunction(cubed, dict(backend="eager"))
    y = nd.map_blocks(chunk.jitted, x.astype(np.float32))
    assert y.dtype == np.float32 and type(y._meta) is np.ndarray and y._meta.ndim == 2
    assert chunk.jitted.compile_count == 0
    assert_same(da.map_blocks(cubed, x.astype(np.float32)).compute(scheduler="threads"),
                y.compute(scheduler="threads"))


def _thread_budget():
    return threads.task_budget(), threads.thread_limit(), threads.threads_for(1 << 40)


def test_each_task_computes_on_one_thread(client):
    assert set(client.run(_thread_budget).values()) == {(None, 1, 1)}     # the nanny's OMP_NUM_THREADS=1
    tasks = [client.submit(_thread_budget, pure=False, workers=[w]) for w in client.scheduler_info()["workers"]]
    assert {task.result() for task in tasks} == {(1, 1, 1)}                # in a task: its budget too


def test_threaded_scheduler_tasks_compute_on_their_budget(monkeypatch):
    """Under a fixed count of 4 threads, a call made by a threaded-scheduler task runs on
    one thread, or on the threads Dask's config gives a task; outside Dask on all 4."""
    monkeypatch.setattr(npcompile.config, "threads", 4)
    seen = []
    jitted = npcompile.jit(shifted, backend=recording_backend(seen))
    x = da.from_array(np.arange(48.0).reshape(6, 8), chunks=(3, 4))
    expected = da.map_blocks(shifted, x).compute(scheduler="threads")
    assert_same(expected, nd.map_blocks(jitted, x).compute(scheduler="threads", num_workers=2))
    assert len(seen) == x.npartitions and set(seen) == {1}
    seen.clear()
    with dask.config.set({"npcompile.threads-per-task": 2}):
        assert_same(expected, nd.map_blocks(jitted, x).compute(scheduler="threads"))
    assert len(seen) == x.npartitions and set(seen) == {2}
    seen.clear()
    jitted(np.ones(3))
    assert seen == [4]
    monkeypatch.setattr(npcompile.config, "threads", "auto")
    assert dask.delayed(_thread_budget)().compute(scheduler="threads") == (1, 1, 1)
    assert dask.delayed(_thread_budget)().compute(scheduler="sync")[0] is None   # the caller's thread


def test_threads_of_a_distributed_worker_compute_on_their_budget(monkeypatch):
    """A worker with two threads (in this process, where torch may use every core) runs
    each task's calls on one thread unless Dask's config says otherwise."""
    monkeypatch.setattr(npcompile.config, "threads", 4)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    seen = []
    jitted = npcompile.jit(shifted, backend=recording_backend(seen))
    x = da.from_array(np.arange(48.0).reshape(6, 8), chunks=(3, 4))
    expected = da.map_blocks(shifted, x).compute(scheduler="threads")
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        assert_same(expected, client.compute(nd.map_blocks(jitted, x)).result())
        assert len(seen) == x.npartitions and set(seen) == {1}
        seen.clear()
        with dask.config.set({"npcompile.threads-per-task": 3}):
            assert_same(expected, client.compute(nd.map_blocks(jitted, x)).result())
        assert len(seen) == x.npartitions and set(seen) == {3}


def test_tasks_of_a_fresh_pool_are_known_as_dask_tasks():
    """A pool thread may run its first task before its executor lists it in ``_threads``
    (about half the first tasks of a fresh pool do): it is still a Dask task's thread."""
    for _ in range(10):
        with ThreadPoolExecutor(4) as pool, dask.config.set(pool=pool):
            kinds = dask.compute(*[dask.delayed(threads.dask_thread_kind)() for _ in range(8)], scheduler="threads")
        assert set(kinds) == {"threaded"}
    with ThreadPoolExecutor(2) as pool:
        assert pool.submit(lambda: threads.executor_of(threading.current_thread())).result() is pool
    assert threads.executor_of(threading.current_thread()) is None


def test_threaded_scheduler_tasks_of_fresh_pools_compute_on_their_budgets(monkeypatch):
    """Dask's threaded scheduler on a fresh pool of 8 threads per round, two threads per
    task: each task's small call runs on one thread and its large call on two (torch,
    OpenMP and MKL counts), while the pool's threads start; the user's count is unchanged."""
    seen = []
    with tc.four_core_machine(monkeypatch):
        jitted = tc.warmed(seen, tc.pause(0.001))

        def task(k):
            jitted(tc.SMALL)
            jitted(tc.LARGE)
            return k

        rounds, tasks = 4, 16
        for _ in range(rounds):
            with ThreadPoolExecutor(8) as pool, dask.config.set({"pool": pool, "npcompile.threads-per-task": 2}):
                results = dask.compute(*[dask.delayed(task)(k) for k in range(tasks)], scheduler="threads")
            assert list(results) == list(range(tasks))
        tc.check(seen, lambda ident, numel: 1 if numel == tc.SMALL.size else 2, rounds * tasks * 2)
        assert tc.unchanged_default()


def _inductor_cache_counts():
    from torch._dynamo.utils import counters
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    return cache_dir(), counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"]


def test_a_second_worker_starts_warm_from_the_first_workers_disk_cache(client, inductor_cache):
    """One worker after the other compiles ``warm_start`` with Inductor: the first misses
    the module's fresh cache and writes the graph, the second (another process) reads it."""
    first, second = sorted(client.scheduler_info()["workers"])
    before = client.run(_inductor_cache_counts)
    call = nd.chunk_function(warm_start)
    nd.warm_up(client, call, np.linspace(-2.0, 2.0, 12).reshape(3, 4))   # first, then second
    after = client.run(_inductor_cache_counts)
    assert after[first] == (inductor_cache, before[first][1], before[first][2] + 1)
    assert after[second] == (inductor_cache, before[second][1] + 1, before[second][2])
    x = da.random.default_rng(5).standard_normal(SHAPE, chunks=CHUNKS)
    assert_same(da.map_blocks(warm_start, x).compute(scheduler="threads"), nd.map_blocks(call, x).compute())
    for stats in nd.worker_stats(client).values():
        assert stats["functions"]["warm_start"] == {"compiles": 1, "recompiles": 0, "breaks": 0}


def test_compile_failure_runs_uncompiled_with_one_warning_per_worker(client):
    client.run(_record_warnings)
    x, _ = _inputs()
    result = nd.map_blocks(shifted, x, jit=dict(backend=broken_backend)).compute()
    assert_same(da.map_blocks(shifted, x).compute(scheduler="threads"), result)
    stats = nd.worker_stats(client)
    recorded = client.run(_recorded_warnings)
    for address, messages in recorded.items():
        ran = stats[address]["chunks"].get("shifted", {}).get("calls", 0)
        assert len(messages) == (1 if ran else 0), messages
        assert all("this backend fails on purpose" in m for m in messages)
    assert sum(map(len, recorded.values())) >= 1


def test_cuda_request_on_a_worker_without_cuda_is_a_clear_error(client):
    x, _ = _inputs()
    with pytest.raises(RuntimeError, match="no cuda device"):
        nd.map_blocks(shifted, x, dtype=x.dtype, jit=dict(backend="eager", device="cuda")).compute()


def _triton_kernel_devices():
    """On a worker: the device types of the Triton kernels this process has launched."""
    from npcompile.gpu import triton_interpret

    return sorted({triton_interpret.kernel_device_type(k) for k, n in triton_interpret.launches.items() if n})


def test_workers_run_the_cuda_code_path_through_the_triton_stand_in(client):
    """No GPU here: ``triton_cuda`` (npcompile.gpu) compiles each worker's graph as Inductor
    does for a CUDA device and runs those kernels in Triton's interpreter, so the chunks go
    through the device code path (CUDA graphs, Triton kernels, host<->device accounting) on
    every worker, and each worker still compiles once."""
    from npcompile.gpu import triton_cuda

    x, v = _inputs()
    result = nd.map_blocks(on_a_gpu, x, v, jit=dict(backend=triton_cuda)).compute()
    assert_same(da.map_blocks(on_a_gpu, x, v).compute(scheduler="threads"), result)
    kernels = client.run(_triton_kernel_devices)
    stats = nd.worker_stats(client)
    for address, devices in kernels.items():
        ran = stats[address]["chunks"].get("on_a_gpu", {}).get("calls", 0)
        assert devices == (["cuda"] if ran else []), (address, devices)
        assert stats[address]["functions"].get("on_a_gpu", {}).get("compiles", 0) == (1 if ran else 0)
    assert any(kernels.values())


def test_warm_up_compiles_on_every_worker_before_the_chunks_run(client):
    call = nd.chunk_function(cubed, backend="eager")
    seconds = nd.warm_up(client, call, np.ones((4, 4)))
    assert set(seconds) == set(client.scheduler_info()["workers"])
    x, _ = _inputs()
    assert_same(da.map_blocks(cubed, x).compute(scheduler="threads"), nd.map_blocks(call, x).compute())
    for stats in nd.worker_stats(client).values():
        assert stats["functions"]["cubed"]["compiles"] == 1
        assert stats["chunks"]["cubed"]["compiling_calls"] == 1   # the warm-up's call



def test_benchmark_runs_against_a_running_cluster(client, tmp_path, capsys):
    from benchmarks import dask_scale

    address = client.scheduler.address
    assert dask_scale.main(["--scheduler", address, "--gb", "0.02", "--repeat", "1", "--backend", "eager",
                            "--out", str(tmp_path), "--no-plot"]) == 0
    assert "reduction" in (tmp_path / "dask_scale.txt").read_text()

def test_worker_killed_mid_computation_changes_nothing(client, tmp_path):
    marker = str(tmp_path / "killed")
    before = set(client.scheduler_info()["workers"])
    x, v = _inputs()
    with dask.config.set({"distributed.scheduler.allowed-failures": 3}):
        staged = da.map_blocks(die_once, x, marker, dtype=x.dtype)
        result = nd.map_blocks(physics, staged, v, jit=dict(backend="eager")).compute()
    assert os.path.exists(marker)   # a worker did die at block (1, 1)
    assert_same(da.map_blocks(physics, x, v).compute(scheduler="threads"), result)
    client.wait_for_workers(2)
    assert set(client.scheduler_info()["workers"]) != before   # the nanny started a new worker
