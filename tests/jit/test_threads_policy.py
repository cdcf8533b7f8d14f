"""The thread count npcompile chooses per call (npcompile/threads.py): asserted on the
count chosen, on the count a compiled graph runs under and on the parallel regions of
the kernels Inductor generates, never on time."""
import contextlib
import ctypes
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import npcompile
from npcompile import backends, calibrations, config, threads
from npcompile.compiled import CompiledGraph
from tests.jit.harness import recording_backend
from tests.jit.thread_counts import four_core_machine


@pytest.fixture
def policy(monkeypatch):
    """A known machine: a 4 MiB threshold, 4 usable cores of 4, an idle run queue."""
    with four_core_machine(monkeypatch):
        yield


def scaled(a):
    return np.sqrt(a * 2.0 + 1.0)


def test_small_work_runs_single_threaded(policy):
    assert threads.threads_for(1 << 10) == 1
    assert threads.threads_for((4 << 20) - 1) == 1


def test_large_work_uses_the_threads_available(policy):
    assert threads.threads_for(64 << 20) == 4


def test_never_more_than_the_cores_we_may_use(policy, monkeypatch):
    monkeypatch.setattr(threads, "available_cores", lambda: 2)
    assert threads.threads_for(64 << 20) == 2


def test_callers_thread_limit_is_respected(policy):
    torch.set_num_threads(1)     # what OMP_NUM_THREADS=1 or threadpoolctl leave torch with
    assert threads.threads_for(64 << 20) == 1


def test_a_busy_machine_gets_one_thread(policy, monkeypatch):
    for runnable, expected in ((5, 1), (4, 1), (3, 2), (2, 3), (1, 4)):   # us + (runnable - 1) others
        monitor = threads.ContentionMonitor(read=lambda r=runnable: r, cpus=4, read_ours=lambda: 1)
        monkeypatch.setattr(threads, "contention", monitor)
        assert threads.threads_for(64 << 20) == expected, runnable


def test_our_own_threads_are_not_counted_as_contention():
    monitor = threads.ContentionMonitor(ttl=0, read=lambda: 4, cpus=4, read_ours=lambda: 1)
    assert monitor.free_cores() == 1          # three others besides the calling thread
    monitor.ours = 4                          # our last call's four threads, still spinning
    assert monitor.free_cores() == 4


def test_contention_reading_is_cached_for_its_ttl():
    readings, now = iter([9, 1]), [0.0]
    monitor = threads.ContentionMonitor(ttl=0.05, read=lambda: next(readings), clock=lambda: now[0], cpus=2,
                                        read_ours=lambda: 1)
    assert monitor.busy(2) and monitor.busy(2)      # the second answer is the cached one
    now[0] = 0.06
    assert not monitor.busy(2)


def test_load_counts_when_two_readings_in_a_row_see_it():
    readings, now = iter([1, 3, 1, 3, 3, 1]), [0.0]
    monitor = threads.ContentionMonitor(ttl=0.05, read=lambda: next(readings), clock=lambda: now[0], cpus=2,
                                        read_ours=lambda: 1)
    seen = []
    for _ in range(6):
        seen.append(monitor.free_cores())
        now[0] += 0.06
    # a task runnable for one reading is not a busy core; two readings in a row are
    assert seen == [2, 2, 2, 2, 1, 2]


def test_an_unreadable_run_queue_counts_as_idle():
    assert threads.ContentionMonitor(read=lambda: None, cpus=3, read_ours=lambda: 1).free_cores() == 3


def test_fixed_setting_overrides(policy, monkeypatch):
    monkeypatch.setattr(config, "threads", 3)
    assert threads.threads_for(1) == 3


def test_threads_for_wrapper_sets_and_restores_the_count(policy):
    seen = []
    call = threads.ThreadsFor(lambda *ts: seen.append(torch.get_num_threads()) or "done")
    assert call.boxed is None
    assert call(torch.ones(8)) == "done" and call(torch.ones(4 << 20)) == "done"
    assert seen == [1, 4] and torch.get_num_threads() == 4


def test_threads_for_wrapper_under_a_limit_of_one_runs_on_one_without_choosing(policy, monkeypatch):
    """A caller limited to one thread gets one, without the look-ups of ``threads_for``;
    a fixed ``config.threads`` still decides (it may ask for more than torch's count)."""
    seen = []
    call = threads.ThreadsFor(lambda *ts: seen.append(torch.get_num_threads()), work=64 << 20, scale=None)
    torch.set_num_threads(1)
    chosen = threads.threads_for
    monkeypatch.setattr(threads, "threads_for", lambda *a: pytest.fail("chose under a limit of one"))
    call(torch.ones(1))
    monkeypatch.setattr(threads, "threads_for", chosen)
    monkeypatch.setattr(config, "threads", 3)
    call(torch.ones(1))
    assert seen == [1, 3] and torch.get_num_threads() == 1 and threads.contention.ours == 3


def test_threads_for_wrapper_keeps_the_boxed_form(policy):
    seen = []
    inner = CompiledGraph(lambda args: seen.append((torch.get_num_threads(), len(args))))
    call = threads.ThreadsFor(inner, work=64 << 20, scale=None)
    call.boxed([torch.ones(1)])
    call(torch.ones(1), torch.ones(1))
    assert seen == [(4, 1), (4, 2)] and torch.get_num_threads() == 4


def test_threads_for_wrapper_takes_the_boxed_form_of_a_compiled_graph_only(policy):
    """A plain callable that happens to have a ``boxed`` attribute is called as a plain
    callable: the list-taking form is the contract of ``CompiledGraph``, not a name."""
    seen = []
    inner = lambda *ts: seen.append(len(ts))   # noqa: E731
    inner.boxed = lambda args: pytest.fail("called a plain callable's boxed attribute")
    call = threads.ThreadsFor(inner, work=64 << 20, scale=None)
    assert call.boxed is None
    call(torch.ones(1), torch.ones(1))
    assert seen == [2]
    assert backends.CompiledGraph is CompiledGraph     # still importable where the runtime reads it


def test_work_estimate_of_static_and_dynamic_graphs():
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(a, b):
        return a * 2.0 + b

    static = make_fx(f, tracing_mode="fake")(torch.ones(1000, dtype=torch.float64), torch.ones(1000))
    assert threads.work_estimate(static) == (8000 + 4000 + 8000, None)      # float64 and float32 in, float64 out
    dynamic = make_fx(f, tracing_mode="symbolic")(torch.ones(1000, dtype=torch.float64),
                                                  torch.ones(1000, dtype=torch.float64))
    work, scale = threads.work_estimate(dynamic)
    assert work == 0 and scale == pytest.approx(1.5)    # inputs and output per byte of input
    assert threads.work_estimate(torch.fx.symbolic_trace(f)) == (0, 1.0)   # no fake values: the call's tensors


def test_a_small_graph_runs_single_threaded_and_a_large_one_on_every_core(policy):
    seen = []
    jitted = npcompile.jit(scaled, backend=recording_backend(seen))
    small, large = np.ones(100), np.ones(1 << 20)           # 1.6 KB and 16 MiB of inputs and outputs
    np.testing.assert_array_equal(jitted(small), scaled(small))
    np.testing.assert_array_equal(jitted(large), scaled(large))      # recompiled with a dynamic size
    np.testing.assert_array_equal(jitted(small[:50]), scaled(small[:50]))   # same entry, judged per call
    assert seen == [1, 4, 1] and torch.get_num_threads() == 4
    work, scale = threads.work_estimate(jitted.entries[-1].capture.gm)
    assert work == 0 and scale == pytest.approx(2.0)


def test_a_busy_machine_runs_a_large_graph_single_threaded(policy, monkeypatch):
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(read=lambda: 5, cpus=4, read_ours=lambda: 1))
    seen = []
    jitted = npcompile.jit(scaled, backend=recording_backend(seen))
    jitted(np.ones(1 << 20))
    assert seen == [1]


@contextlib.contextmanager
def openmp_limit(n):
    """What threadpoolctl's ``threadpool_limits(n, user_api="openmp")`` does: set the
    OpenMP runtime's thread count for this thread (through threadpoolctl if installed)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        with open("/proc/self/maps") as maps:
            path = next(line.split()[-1] for line in maps if "libgomp" in line or "libiomp" in line)
        library = ctypes.CDLL(path)
        before = torch.get_num_threads()
        library.omp_set_num_threads(ctypes.c_int(n))
        try:
            yield
        finally:
            library.omp_set_num_threads(ctypes.c_int(before))
    else:
        with threadpool_limits(n, user_api="openmp"):
            yield


def test_threadpoolctl_limit_is_respected(policy):
    seen = []
    jitted = npcompile.jit(scaled, backend=recording_backend(seen))
    with openmp_limit(1):
        assert threads.threads_for(64 << 20) == 1
        jitted(np.ones(1 << 20))
    jitted(np.ones(1 << 20))
    assert seen == [1, 4]


CHILD = textwrap.dedent("""
    import os, sys, numpy as np, torch, npcompile
    from npcompile import config
    from npcompile import threads
    if "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(3)           # torch's own default on a machine with 3+ cores
    config.parallel_threshold_bytes = 0
    threads.available_cores = lambda: 4
    threads.contention = threads.ContentionMonitor(read=lambda: 1, cpus=4, read_ours=lambda: 1)
    seen = []
    def backend(gm, example_inputs):
        return lambda *args: seen.append(torch.get_num_threads()) or gm(*args)
    npcompile.jit(lambda a: a * 2.0, backend=backend)(np.ones(1 << 16))
    print(threads.thread_limit(), threads.threads_for(1 << 30), *seen)
""")


@pytest.mark.parametrize("omp_num_threads, chosen", [("1", ["1", "1", "1"]), (None, ["3", "3", "3"])])
def test_omp_num_threads_from_the_environment_is_respected(omp_num_threads, chosen):
    """In a process started with OMP_NUM_THREADS=1 (as Dask's nanny and many job
    launchers start workers) every call runs on one thread; without it, on three."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    if omp_num_threads is not None:
        env["OMP_NUM_THREADS"] = omp_num_threads
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == chosen


def test_inductor_kernels_read_the_thread_count_when_called():
    """Compiled under one thread, the kernel still opens a parallel region whose size
    OpenMP decides at run time (no ``num_threads(N)`` baked in)."""
    from torch._inductor.utils import run_and_get_code

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        jitted = npcompile.jit(lambda a: np.sqrt(a * 2.0 + 1.0).sum(), backend="inductor")
        a = np.linspace(0.0, 1.0, 10_000)
        result, codes = run_and_get_code(jitted, a)
    finally:
        torch.set_num_threads(before)
    code = "\n".join(codes)
    assert "#pragma omp parallel" in code and "num_threads(" not in code
    assert result == pytest.approx(np.sqrt(a * 2.0 + 1.0).sum())
    assert backends.DYNAMIC_THREADS == {"cpp.dynamic_threads": True}


def recording_inductor(seen):
    """Inductor, recording torch's thread count inside each call of a graph it did not
    compile single-threaded (those are never wrapped)."""
    def backend(gm, example_inputs):
        inner = backends.inductor(gm, example_inputs)
        if inner.single_threaded:
            return inner

        def boxed(args):
            seen.append(torch.get_num_threads())
            return inner.boxed(args)
        return CompiledGraph(boxed)
    return backend


def test_inductor_graphs_run_under_the_chosen_count(policy, monkeypatch):
    seen = []
    jitted = npcompile.jit(scaled, backend=recording_inductor(seen))
    large = np.full(1 << 20, 3.0)
    np.testing.assert_allclose(jitted(large), scaled(large))
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(read=lambda: 3, cpus=4, read_ours=lambda: 1))
    np.testing.assert_allclose(jitted(large), scaled(large))
    assert seen == [4, 2]


def test_a_small_fixed_size_graph_is_compiled_without_parallel_regions(policy):
    from torch._inductor.utils import run_and_get_code

    seen = []
    jitted = npcompile.jit(scaled, backend=recording_inductor(seen))
    small = np.linspace(0.0, 1.0, 5000)                    # 80 KB in, 80 KB out
    result, codes = run_and_get_code(jitted, small)
    np.testing.assert_allclose(result, scaled(small))
    assert "omp parallel" not in "\n".join(codes) and seen == []
    entry = jitted.entries[0]
    assert entry.compiled.single_threaded and entry.fast.__globals__["compiled"] is entry.compiled   # not wrapped


def test_a_small_graph_calling_a_library_kernel_still_runs_under_one_thread(policy):
    """The generated loops of a small graph are serial, but a matrix product is BLAS's,
    which follows torch's thread count when called: the call is still wrapped."""
    seen = []
    jitted = npcompile.jit(lambda a, b: np.tanh(a @ b), backend=recording_inductor(seen))
    a, b = np.linspace(0.0, 1.0, 400).reshape(20, 20), np.eye(20)
    np.testing.assert_allclose(jitted(a, b), np.tanh(a @ b))
    assert seen == [1]     # recorded: Inductor did not mark the graph single_threaded


def test_a_small_graph_whose_products_go_to_numpys_blas_runs_under_one_thread(policy, monkeypatch):
    """A small product computed by NumPy's BLAS (host_blas) is still a library call: the
    graph's call is wrapped and gets one thread, with the product where host_blas put it."""
    from torch._inductor.utils import run_and_get_code

    from npcompile.passes import host_blas

    monkeypatch.setattr(config, "host_blas", "numpy")
    seen = []
    jitted = npcompile.jit(lambda a, b: np.tanh(a @ b) @ b, backend=recording_inductor(seen))
    a, b = np.linspace(-1.0, 1.0, 2048).reshape(32, 64), np.eye(64) * 0.5   # 2**17 multiply-adds each
    with torch._inductor.config.patch(fx_graph_cache=False):
        result, codes = run_and_get_code(jitted, a, b)
    np.testing.assert_allclose(result, np.tanh(a @ b) @ b, rtol=1e-12)
    assert "\n".join(codes).count(f"extern_kernels.{host_blas.EXTERN_NAME}(") == 2
    assert seen == [1]


@pytest.mark.parametrize("line, calls", [
    ("extern_kernels.mm(arg0_1, arg1_1, out=buf0)", True),
    ("buf1 = torch.ops.aten.cumsum.default(buf0, 1)", True),
    ("buf2 = aten.addmm(arg2_1, buf1, arg3_1)", True),
    ("buf3 = torch.ops.npcompile.host_mm.default(buf2, arg0_1)", True),
    ("cpp_fused_add_mul_0(arg0_1, buf0)", False),
    ("buf0 = torch.ops.inductor._alloc_from_pool(pool0, 0, torch.float64, (8,), (1,))", False),
    ("aten = torch.ops.aten", False),
    ("# Topologically Sorted Source Nodes: [mul, add], Original ATen: [aten.mul, aten.add]", False),
])
def test_calls_to_library_kernels_are_found_in_inductors_wrapper_code(line, calls):
    assert backends.calls_library_kernels(line) is calls


def test_cgroup_quota_files(tmp_path):
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert threads.cgroup_cpu_quota(str(tmp_path)) == 1
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert threads.cgroup_cpu_quota(str(tmp_path)) is None
    assert threads.cgroup_cpu_quota(str(tmp_path / "missing")) is None


def test_runnable_tasks_parses_loadavg(tmp_path):
    (tmp_path / "loadavg").write_text("0.50 0.40 0.30 3/512 12345\n")
    assert threads.runnable_tasks(str(tmp_path / "loadavg")) == 3
    assert threads.runnable_tasks(str(tmp_path / "nope")) is None


def test_measured_threshold_is_a_positive_size_and_unknown_for_one_thread(monkeypatch):
    monkeypatch.setattr(config, "parallel_threshold_bytes", None)
    assert 0 < threads.measured_threshold_bytes(2) < threads.UNLIMITED
    assert threads.parallel_threshold_bytes(1) == threads.UNLIMITED
    monkeypatch.setattr(config, "parallel_threshold_bytes", 123)
    assert threads.parallel_threshold_bytes(2) == 123


def test_measurements_are_shared_by_the_processes_of_a_machine(tmp_path, monkeypatch):
    """The first value published for a key is the one every later caller gets, in this
    process and in another one (the timed decisions key Inductor's disk cache)."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    measured = []

    def measure(value):
        measured.append(value)
        return value

    assert calibrations.shared("test", [1], lambda: measure(5)) == 5
    assert calibrations.shared("test", [1], lambda: measure(6)) == 5
    assert calibrations.shared("test", [2], lambda: measure(7)) == 7
    assert measured == [5, 7]
    assert calibrations.directory() == str(tmp_path / "npcompile-calibrations")
    other = subprocess.run([sys.executable, "-c", "from npcompile import calibrations; "
                            "print(calibrations.shared('test', [1], lambda: 8))"],
                           capture_output=True, text=True, check=True, env=dict(os.environ))
    assert other.stdout.strip() == "5"
    assert calibrations.shared("parallel_threshold", [2], lambda: 12345) == 12345
    assert threads.measured_threshold_bytes.__wrapped__(2) == 12345   # what another process measured


def test_an_unreadable_measurement_is_measured_again(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    assert calibrations.shared("test", ["x"], lambda: 1) == 1
    (published,) = (tmp_path / "npcompile-calibrations").glob("test-*.json")
    published.write_text("{half a fi")
    assert calibrations.shared("test", ["x"], lambda: 2) == 2   # not replaced: another process may read it


def test_a_value_measured_on_a_busy_machine_is_measured_again_after_its_time(tmp_path, monkeypatch):
    """One busy moment must not decide for every later process until the reboot: a value
    measured while other tasks ran expires after ``BUSY_VALUE_SECONDS``; a quiet one stays."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    now = [1000.0]
    monkeypatch.setattr(calibrations.time, "time", lambda: now[0])
    monkeypatch.setattr(calibrations, "others_running", lambda: 3)
    assert calibrations.shared("test", ["busy"], lambda: "under load") == "under load"
    now[0] += calibrations.BUSY_VALUE_SECONDS - 1
    assert calibrations.shared("test", ["busy"], lambda: "again") == "under load"   # still shared
    now[0] += 2
    monkeypatch.setattr(calibrations, "others_running", lambda: 0)
    assert calibrations.shared("test", ["busy"], lambda: "quiet") == "quiet"        # measured again
    now[0] += 100 * calibrations.BUSY_VALUE_SECONDS
    assert calibrations.shared("test", ["busy"], lambda: "never") == "quiet"        # a quiet value stays


def test_a_machine_that_turns_busy_during_the_measurement_counts_as_busy(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    readings = iter([0, 2])
    monkeypatch.setattr(calibrations, "others_running", lambda: next(readings))
    calibrations.shared("test", ["turned"], lambda: 1)
    (published,) = (tmp_path / "npcompile-calibrations").glob("test-*.json")
    assert "expires" in published.read_text()


def test_other_runnable_tasks_leave_out_our_own_running_threads(tmp_path):
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("0.50 0.40 0.30 5/300 1234\n")
    tasks = tmp_path / "task"
    for tid, state in ((1, "R"), (2, "S"), (3, "R")):
        (tasks / str(tid)).mkdir(parents=True)
        (tasks / str(tid) / "stat").write_text(f"{tid} (python (x) y) {state} 1 2 3\n")
    assert calibrations.others_running(str(loadavg), str(tasks)) == 3
    assert calibrations.others_running(str(tmp_path / "missing"), str(tasks)) == 0
