"""jit(compile="background"): a miss runs as written (NumPy's answer, at NumPy's speed)
while one worker thread compiles (Inductor's code generation in a child process); the
switch happens between calls; queued compiles coalesce; resumed segments compile in the
background too; failures, the child's included, leave the function running uncompiled
with one warning."""
import os
import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npcompile
from npcompile import config
from npcompile.runtime import background, compile_process
from tests.jit.harness import CountingBackend, compare_call


def affine(a):
    return a * 2.0 + 1.0


def accumulate(a, items):
    a += len(items)
    return a.sum()


@pytest.fixture(autouse=True)
def compile_at_the_first_miss():
    """These tests see what one miss queues: no deferral (tests of it set their own). Not
    through ``monkeypatch``, which some tests undo midway."""
    before = config.background_after_calls
    config.background_after_calls = 1
    yield
    config.background_after_calls = before


@pytest.fixture
def held_worker():
    """The worker kept busy until the test releases it, so what queues meanwhile is seen."""
    release = threading.Event()
    background.WORKER.submit(("held", id(release)), release.wait)
    yield release
    release.set()
    assert npcompile.wait_for_compiles(120)


def test_first_call_runs_as_written_then_the_compiled_entry_takes_over():
    counting = CountingBackend("eager")
    jitted = npcompile.jit(affine, backend=counting, compile="background")
    a = np.arange(5.0)
    np.testing.assert_array_equal(jitted(a), affine(a))
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1 and len(counting.graphs) == 1
    jitted.events = []
    np.testing.assert_array_equal(jitted(a), affine(a))
    assert [type(e).__name__ for e in jitted.events] == ["CompiledEntry"]


def test_writes_into_inputs_happen_once_on_either_side_of_the_switch():
    jitted = npcompile.jit(accumulate, backend="eager", compile="background")
    a, expected = np.zeros(3), np.zeros(3)
    for k in range(3):
        assert jitted(a, [1, 2]) == accumulate(expected, [1, 2])
        np.testing.assert_array_equal(a, expected)
        if k == 0:
            assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1


def test_many_new_shapes_queue_one_compile(held_worker):
    jitted = npcompile.jit(affine, backend="eager", compile="background")
    for n in range(2, 12):
        a = np.arange(float(n))
        np.testing.assert_array_equal(jitted(a), affine(a))
    assert sum(1 for key in background.WORKER.pending if key[0] == id(jitted)) == 1
    held_worker.set()
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1


def test_the_worker_traces_a_snapshot_of_containers(held_worker):
    jitted = npcompile.jit(accumulate, backend="eager", compile="background")
    items = [1, 2]
    a = np.zeros(2)
    jitted(a, items)
    items.append(3)               # the caller changes the list while the compile waits
    held_worker.set()
    assert npcompile.wait_for_compiles(120)
    a[:] = 0
    assert jitted(a, items) == accumulate(np.zeros(2), [1, 2, 3])   # len 3 is not len 2's entry
    np.testing.assert_array_equal(a, [3.0, 3.0])


def failing_backend(gm, example_inputs):
    raise RuntimeError("backend exploded")


def test_a_failure_in_the_background_warns_once_and_results_stay_numpys():
    jitted = npcompile.jit(affine, backend=failing_backend, compile="background")
    a = np.arange(4.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(jitted(a), affine(a))
        assert npcompile.wait_for_compiles(120)
        for _ in range(3):
            np.testing.assert_array_equal(jitted(a), affine(a))
    messages = [str(w.message) for w in caught if "backend exploded" in str(w.message)]
    assert len(messages) == 1


def test_calls_from_many_threads_are_safe():
    jitted = npcompile.jit(affine, backend="eager", compile="background")
    errors = []

    def worker(n):
        try:
            for _ in range(20):
                a = np.arange(float(n))
                np.testing.assert_array_equal(jitted(a), affine(a))
        except Exception as exc:   # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in (3, 4, 5, 6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert npcompile.wait_for_compiles(120)


def test_fullgraph_compiles_in_the_caller():
    jitted = npcompile.jit(affine, backend="eager", compile="background", fullgraph=True)
    jitted(np.arange(3.0))
    assert jitted.compile_count == 1


def test_blocking_is_the_default_and_modes_are_checked():
    assert npcompile.config.compile == "blocking"
    jitted = npcompile.jit(affine, backend="eager")
    jitted(np.arange(3.0))
    assert jitted.compile_count == 1
    with pytest.raises(ValueError, match="blocking"):
        npcompile.jit(affine, compile="lazy")


# ---- the switch, property-tested: every call is NumPy's, before and after it -----------------
def scaled_sum(a, b):
    c = a * 3 + b
    return c, c.sum(axis=-1), a


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.sampled_from(["float64", "int64", "float32"])),
                min_size=1, max_size=6),
       st.integers(0, 6))
def test_every_call_is_numpys_across_the_switch(states, wait_after):
    jitted = npcompile.jit(scaled_sum, backend="eager", compile="background")
    for k, (n, dtype) in enumerate(states):
        a = np.arange(n * 2, dtype=dtype).reshape(2, n)
        compare_call(scaled_sum, jitted, (a, np.ones(n, dtype)), {}, context=f"call {k}")
        if k == wait_after:
            assert npcompile.wait_for_compiles(120)
    assert npcompile.wait_for_compiles(120)


# ---- resumed segments ----------------------------------------------------------------------
def note(message):
    print(message)


def break_in_the_middle(a):
    b = a * 2.0
    note("between")               # a graph break: the rest is a resumed segment
    return b + a


def break_in_a_loop(a, n):
    total = a.copy()
    for i in range(n):
        total = total + i
        note(i)                    # the loop body resumes after a break each iteration
    return total


class ThreadRecordingBackend(CountingBackend):
    """Counts graphs and the threads that compiled them."""

    def __init__(self):
        super().__init__("eager")
        self.threads = []

    def __call__(self, gm, example_inputs):
        self.threads.append(threading.current_thread().name)
        return super().__call__(gm, example_inputs)


def test_a_resumed_segment_compiles_on_the_worker(capsys):
    backend = ThreadRecordingBackend()
    jitted = npcompile.jit(break_in_the_middle, backend=backend, compile="background")
    a = np.arange(4.0)
    for _ in range(4):
        np.testing.assert_array_equal(jitted(a), break_in_the_middle(a))
        assert npcompile.wait_for_compiles(120)
    resumed = [e for entries in jitted.resume_entries.values() for e in entries]
    assert len(resumed) == 1 and resumed[0].compiled is not None
    assert len(backend.graphs) == 2
    assert set(backend.threads) == {"npcompile-background-compile"}
    assert capsys.readouterr().out == "between\n" * 8     # each call printed once, either way


def test_a_loop_that_breaks_each_iteration_queues_one_compile_per_resume_point(capsys):
    backend = ThreadRecordingBackend()
    jitted = npcompile.jit(break_in_a_loop, backend=backend, compile="background")
    a = np.arange(3.0)
    np.testing.assert_array_equal(jitted(a, 5), break_in_a_loop(a, 5))
    assert npcompile.wait_for_compiles(120)      # the entry segment; the loop's resume point next
    release = threading.Event()
    background.WORKER.submit(("held", id(release)), release.wait)
    try:
        np.testing.assert_array_equal(jitted(a, 5), break_in_a_loop(a, 5))
        assert sum(1 for key in background.WORKER.pending if key[0] == id(jitted)) == 1
    finally:
        release.set()
    assert npcompile.wait_for_compiles(120)
    for n in (5, 6, 7, 8):
        np.testing.assert_array_equal(jitted(a, n), break_in_a_loop(a, n))
        assert npcompile.wait_for_compiles(120)
    assert set(backend.threads) == {"npcompile-background-compile"} and len(backend.graphs) >= 2
    resumed = [e for entries in jitted.resume_entries.values() for e in entries]
    assert resumed and all(e.compiled is not None for e in resumed)


def test_the_frames_the_worker_traces_are_a_copy():
    frame_type = type("F", (), {"__slots__": ("code", "locals", "stack", "cells", "yielded", "ip")})
    frame = frame_type()
    shared = [1, 2]
    frame.code, frame.ip, frame.cells, frame.yielded = None, 3, {}, None
    frame.locals, frame.stack = {"x": shared, "y": (shared, 4)}, [shared]
    (copy,) = background.snapshot_frames([frame])
    shared.append(3)
    frame.ip, frame.locals["x"] = 9, None
    assert copy.ip == 3 and copy.locals["x"] == [1, 2]
    assert copy.locals["x"] is copy.locals["y"][0] is copy.stack[0]   # aliasing kept


# ---- Inductor's code generation in a child process -------------------------------------------
def exact(a):
    return a * 2.0 + 1.0          # exact in float64 however it is computed


def inductor_compiled(entry):
    """Compiled by Inductor, not left as the captured graph run op by op."""
    import torch
    return entry.compiled is not None and not isinstance(entry.compiled, torch.fx.GraphModule)


def counting_in_process_codegen(monkeypatch):
    """Counts Inductor's code generation runs in this process."""
    from torch._inductor.compile_fx import _InProcessFxCompile
    runs = []
    original = _InProcessFxCompile.codegen_and_compile

    def counted(self, *args, **kwargs):
        runs.append(threading.current_thread().name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(_InProcessFxCompile, "codegen_and_compile", counted)
    return runs


@pytest.mark.inductor
def test_background_code_generation_runs_in_a_child_and_blocking_stays_here(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))   # nothing served from the cache
    runs = counting_in_process_codegen(monkeypatch)
    jitted = npcompile.jit(exact, compile="background")
    a = np.arange(6.0)
    for k in range(3):
        np.testing.assert_array_equal(jitted(a), exact(a))
        if k == 0:
            assert npcompile.wait_for_compiles(600)
    assert jitted.compile_count == 1 and inductor_compiled(jitted.entries[0])
    assert runs == [] and compile_process._pool is not None
    blocking = npcompile.jit(lambda a: a * 4.0 - 1.0)
    np.testing.assert_array_equal(blocking(a), a * 4.0 - 1.0)
    assert runs == ["MainThread"]


def exploding_child(pickled_input, env, settings):
    raise RuntimeError("the compile child exploded")


def dying_child(pickled_input, env, settings):
    os._exit(3)


@pytest.mark.inductor
@pytest.mark.parametrize("child", [exploding_child, dying_child])
def test_a_child_that_fails_or_dies_leaves_calls_uncompiled_with_one_warning(monkeypatch, tmp_path, child):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compile_process, "compile_in_child", child)   # the child imports it by name
    jitted = npcompile.jit(exact, compile="background")
    a = np.arange(5.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(4):
            np.testing.assert_array_equal(jitted(a), exact(a))
            if k == 0:
                assert npcompile.wait_for_compiles(600)
    messages = [str(w.message) for w in caught if str(w.message).startswith("npcompile")]
    assert len(messages) == 1 and "inductor" in messages[0], messages
    monkeypatch.undo()   # a later compile gets a working child again
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    again = npcompile.jit(lambda a: a - 3.0, compile="background")
    again(a)
    assert npcompile.wait_for_compiles(600)
    np.testing.assert_array_equal(again(a), a - 3.0)
    assert inductor_compiled(again.entries[0])


@pytest.fixture
def uncalibrated(monkeypatch, tmp_path):
    """A fresh Inductor cache directory (no published calibrations), this process's
    calibration caches emptied, and any timing in this process recorded."""
    from npcompile import threads
    from npcompile.passes import host_blas
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compile_process, "_CALIBRATED", set())
    timed_here = []
    monkeypatch.setattr(threads, "_time_threshold", lambda limit: timed_here.append(limit) or 1 << 20)
    monkeypatch.setattr(host_blas, "_time_both", lambda *key: timed_here.append(key) or False)
    caches = (threads.measured_threshold_bytes, host_blas._measure)
    for cache in caches:
        cache.cache_clear()
    yield timed_here
    for cache in caches:   # later tests read the machine's own values again
        cache.cache_clear()


@pytest.mark.inductor
def test_the_first_background_compile_has_the_child_make_the_calibrations(uncalibrated, tmp_path):
    jitted = npcompile.jit(exact, compile="background")
    a = np.arange(7.0)
    np.testing.assert_array_equal(jitted(a), exact(a))
    assert npcompile.wait_for_compiles(600)
    np.testing.assert_array_equal(jitted(a), exact(a))
    assert inductor_compiled(jitted.entries[0])
    assert uncalibrated == []                                   # nothing timed in this process
    assert list((tmp_path / "npcompile-calibrations").glob("*.json"))   # the child published them


@pytest.mark.inductor
def test_the_child_calibrates_for_the_callers_thread_limit_too(uncalibrated, tmp_path):
    """Each thread has its own torch thread count: a worker whose first torch call came
    while the count was 1 decides under a limit of one thread, the caller under two.
    The caller's calls must find their calibrations published too, not time them here."""
    import torch

    from npcompile import threads
    before = torch.get_num_threads()
    background.WORKER.submit(("threads", 1), lambda: torch.set_num_threads(1))   # the worker's own count
    assert npcompile.wait_for_compiles(120)
    try:
        assert threads.thread_limit() > 1     # this thread's limit (a machine of two cores or more)
        jitted = npcompile.jit(lambda a: a * 3.0 - 2.0, compile="background")
        a = np.arange(9.0)
        np.testing.assert_array_equal(jitted(a), a * 3.0 - 2.0)
        assert npcompile.wait_for_compiles(600)
        np.testing.assert_array_equal(jitted(a), a * 3.0 - 2.0)
        assert inductor_compiled(jitted.entries[0])
        assert uncalibrated == []                                   # nothing timed in this process
    finally:
        background.WORKER.submit(("threads", 2), lambda: torch.set_num_threads(before))
        assert npcompile.wait_for_compiles(120)


# ---- the worker yields to the caller's thread --------------------------------------------
def test_the_switch_interval_is_lowered_while_a_job_runs_and_put_back_after():
    before = sys.getswitchinterval()
    seen = []
    background.WORKER.submit(("interval", 1), lambda: seen.append(sys.getswitchinterval()))
    assert npcompile.wait_for_compiles(120)
    assert seen == [pytest.approx(background.SWITCH_INTERVAL)]
    assert sys.getswitchinterval() == before


def test_an_interval_the_program_sets_during_a_job_is_kept():
    before = sys.getswitchinterval()
    release, inside = threading.Event(), threading.Event()
    background.WORKER.submit(("interval", 2), lambda: inside.set() or release.wait())
    try:
        assert inside.wait(120)
        sys.setswitchinterval(0.002)          # the program's own choice, made meanwhile
    finally:
        release.set()
    try:
        assert npcompile.wait_for_compiles(120)
        assert sys.getswitchinterval() == pytest.approx(0.002)
    finally:
        sys.setswitchinterval(before)


def test_the_worker_thread_and_the_compile_process_run_at_a_lower_priority():
    seen = []
    background.WORKER.submit(("priority", 1),
                             lambda: seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
    assert npcompile.wait_for_compiles(120)
    assert seen[0] >= background.WORKER_NICENESS
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < background.WORKER_NICENESS   # ours
    compile_process.shutdown()
    pool = compile_process._live_pool()       # started from this thread, at its priority 0
    assert os.getpriority(os.PRIO_PROCESS, pool.process.pid) >= compile_process.CHILD_NICENESS
    assert pool.submit(os.getpriority, os.PRIO_PROCESS, 0).result() >= compile_process.CHILD_NICENESS


EXITS_WHILE_THE_WORKER_IS_IN_TORCH = """
import threading, time
import numpy as np
import torch
import npcompile

npcompile.config.background_after_calls = 1
inside = threading.Event()

def spinning(gm, example_inputs):      # a compile that is inside torch whenever it is looked at
    inside.set()
    a = torch.ones(200, 200)
    while True:
        torch.mm(a, a)

class ReleasesTheGilAtTeardown:        # as flushing a file does while the interpreter finalizes
    def __del__(self):
        time.sleep(0.05)

keep = ReleasesTheGilAtTeardown()
f = npcompile.jit(lambda a: a * 2.0, backend=spinning, compile="background")
f(np.arange(3.0))
print("inside", inside.wait(300))
"""


def test_a_program_that_exits_while_the_worker_is_inside_torch_exits_cleanly():
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-c", EXITS_WHILE_THE_WORKER_IS_IN_TORCH], cwd=root,
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONWARNINGS="ignore"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "inside True\n"


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def deferring(monkeypatch):
    """Deferral on, with a clock the test moves (a fresh record of misses)."""
    clock = FakeClock()
    monkeypatch.setattr(background.WORKER, "deferral", background.Deferral(clock))
    monkeypatch.setattr(config, "background_after_calls", 3)
    monkeypatch.setattr(config, "background_after_seconds", 0.5)
    return clock


def test_a_function_called_once_or_twice_in_a_burst_queues_no_compile(deferring):
    jitted = npcompile.jit(affine, backend="eager", compile="background")
    a = np.arange(4.0)
    for _ in range(2):
        compare_call(affine, jitted, [a], {})
        deferring.now += 0.1
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 0
    assert background.WORKER.deferral.misses((id(jitted), id(jitted.entries))) == 2


def test_the_nth_miss_queues_the_compile(deferring):
    jitted = npcompile.jit(affine, backend="eager", compile="background")
    a = np.arange(4.0)
    for _ in range(2):
        compare_call(affine, jitted, [a], {})
    assert npcompile.wait_for_compiles(120) and jitted.compile_count == 0
    compare_call(affine, jitted, [a], {})          # the third miss, at the same instant
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1
    jitted.events = []
    compare_call(affine, jitted, [a], {})
    assert [type(e).__name__ for e in jitted.events] == ["CompiledEntry"]


def test_a_later_call_after_the_delay_queues_the_compile(deferring):
    jitted = npcompile.jit(affine, backend="eager", compile="background")
    a = np.arange(4.0)
    compare_call(affine, jitted, [a], {})
    deferring.now += 0.49
    assert npcompile.wait_for_compiles(120) and jitted.compile_count == 0   # waiting starts nothing
    deferring.now += 0.02
    compare_call(affine, jitted, [a], {})          # the second miss, 0.51 s after the first
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1


def test_a_due_function_compiles_its_next_new_shape_at_once_and_still_coalesces(deferring, held_worker):
    jitted = npcompile.jit(affine, backend="eager", compile="background")
    for _ in range(3):
        compare_call(affine, jitted, [np.arange(4.0)], {})
    for n in range(5, 12):                   # new shapes while the first compile waits
        compare_call(affine, jitted, [np.arange(float(n))], {})
    assert sum(1 for key in background.WORKER.pending if key[0] == id(jitted)) == 1
    held_worker.set()
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1
    compare_call(affine, jitted, [np.arange(20.0)], {})   # one miss: due already, so it queues
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 2


def test_deferral_counts_misses_per_key_by_the_clock():
    clock = FakeClock()
    deferral = background.Deferral(clock)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(config, "background_after_calls", 4)
        patch.setattr(config, "background_after_seconds", None)
        clock.now += 1000.0                  # no time rule: only the count decides
        assert [deferral.due("a") for _ in range(5)] == [False, False, False, True, True]
        assert deferral.due("b") is False and deferral.misses("b") == 1


def narrow_product(x, w):
    return np.tanh(x @ w) * 2.0


@pytest.mark.inductor
def test_a_graph_whose_products_go_to_numpys_blas_is_generated_in_the_child(monkeypatch, tmp_path):
    """The extern call to NumPy's matmul (passes/host_blas.py) is added by a post-grad
    pass the child installs itself, so the graph sent over holds nothing unpicklable."""
    from npcompile.passes import host_blas
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(config, "host_blas", "numpy")
    runs = counting_in_process_codegen(monkeypatch)
    jitted = npcompile.jit(narrow_product, compile="background")
    x, w = np.linspace(-1.0, 1.0, 512 * 512).reshape(512, 512), np.linspace(0.0, 1.0, 512 * 8).reshape(512, 8)
    compare_call(narrow_product, jitted, [x, w], {})
    assert npcompile.wait_for_compiles(600)
    jitted.events = []
    np.testing.assert_allclose(jitted(x, w), narrow_product(x, w), rtol=1e-12, atol=1e-12)
    assert [type(e).__name__ for e in jitted.events] == ["CompiledEntry"]
    assert inductor_compiled(jitted.entries[0]) and runs == []
    sources = [p.read_text(errors="ignore") for p in tmp_path.rglob("*.py")]
    assert any(f"extern_kernels.{host_blas.EXTERN_NAME}(" in text for text in sources)
