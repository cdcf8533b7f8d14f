"""A graph with products OpenBLAS splits measures its first multi-threaded calls both ways
(npcompile/route_trials.py): its products on NumPy's BLAS with its kernels on one thread
("serial"), or as host_blas calibrated them with the call's threads, and keeps the faster.
The clock is replaced so the verdicts do not depend on this machine; what is asserted is
the thread count and the library each call used, and that every call is NumPy's answer.
The contention monitor counts this process's own runnable threads (OpenBLAS's spinning
workers) as ours, not as other load."""
import itertools
import time

import numpy as np
import pytest
import torch

import npcompile
from benchmarks.conditions import set_numpy_blas_threads
from npcompile import route_trials, threads
from npcompile.passes import host_blas

from .harness import compare_call

N = 128      # 128**3 = 2**21 multiply-adds: the "square" kind


def layer(x, w1, w2):
    """A square product, a ReLU, a narrow product."""
    return np.maximum(x @ w1, 0.0) @ w2


def elementwise(x):
    return np.tanh(x) * 2.0 + 1.0


class FakeClock:
    """``perf_counter`` whose calls last ``serial`` or ``calibrated`` seconds, by the mode
    the call ran in (read from the forced route while it runs)."""

    def __init__(self, serial, calibrated):
        self.now, self.serial, self.calibrated = 0.0, serial, calibrated

    def perf_counter(self):
        return self.now

    def spend(self):
        forced = getattr(host_blas._FORCED, "split", None)
        self.now += self.serial if forced else self.calibrated


def run_trial(monkeypatch, serial_seconds, calibrated_seconds, blas=2, threads_wanted=2, block_threads=1):
    """A RouteTrial run until it decides; returns it and what each call saw:
    (torch threads, forced split route, NumPy chosen for a square float64 product)."""
    clock = FakeClock(serial_seconds, calibrated_seconds)
    monkeypatch.setattr(route_trials, "time", clock)
    monkeypatch.setattr(host_blas, "numpy_blas_threads", lambda: blas)
    monkeypatch.setattr(host_blas, "_measure", lambda dtype, kind, t, b: False)   # calibrated: torch
    monkeypatch.setattr(npcompile.config, "host_blas", "auto")
    trial, seen = route_trials.RouteTrial(), []

    def call():
        clock.spend()
        seen.append((torch.get_num_threads(), getattr(host_blas._FORCED, "split", None),
                     host_blas.numpy_is_faster(torch.float64, "square")))
        return len(seen)

    current = torch.get_num_threads()
    for _ in range(2 * route_trials.PAIRS * route_trials.RUN + 4):
        trial.run(call, threads_wanted, current, block_threads)
        assert torch.get_num_threads() == current and getattr(host_blas._FORCED, "split", None) is None
    return trial, seen


@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("serial_faster", [True, False])
def test_the_faster_way_is_kept_for_the_thread_counts(monkeypatch, two_threads, serial_faster):
    trial, seen = run_trial(monkeypatch, 1.0 if serial_faster else 3.0, 2.0)
    assert trial.verdicts == {(2, 2): serial_faster} and trial.runs == {}
    trial_calls = 2 * route_trials.PAIRS * route_trials.RUN
    modes = [forced for _, forced, _ in seen[:trial_calls]]
    # runs of RUN calls, calibrated first, then serial first: C C C S S S | S S S C C C | ...
    runs = [list(group) for _, group in itertools.groupby(modes)]
    assert [len(r) for r in runs] == [3, 6, 6, 3] and runs[0][0] is None
    for torch_threads, forced, numpy_product in seen:
        if forced:      # serial: one thread for the kernels, the split product on NumPy
            assert (torch_threads, numpy_product) == (1, True)
        else:           # calibrated: the call's threads, the measurement's choice (torch here)
            assert (torch_threads, numpy_product) == (2, False)
    assert {forced for _, forced, _ in seen[trial_calls:]} == {True if serial_faster else None}


@pytest.mark.parametrize("serial_faster", [True, False])
def test_a_call_given_one_thread_for_busy_cores_takes_the_trial_at_one(monkeypatch, two_threads, serial_faster):
    """At one thread the two ways differ only in how the split products run: on torch's
    one thread (calibrated: OpenBLAS's own threads would take cores the policy kept free)
    or in blocks over the threads the caller allowed (serial)."""
    trial, seen = run_trial(monkeypatch, 1.0 if serial_faster else 3.0, 2.0, threads_wanted=1, block_threads=2)
    assert trial.verdicts == {(1, 2): serial_faster}
    for torch_threads, forced, numpy_product in seen:
        assert torch_threads == 1 and not numpy_product
        assert forced is None or (isinstance(forced, host_blas.BlockRoute) and forced.threads == 2)
    after = {type(forced) for _, forced, _ in seen[2 * route_trials.PAIRS * route_trials.RUN:]}
    assert after == {host_blas.BlockRoute if serial_faster else type(None)}


class RecordingRoute:
    """A route that records the thread counts it is asked to run a call under."""

    def __init__(self):
        self.counts = []

    def run(self, call, wanted, current, block_threads=1):
        self.counts.append((wanted, block_threads))
        return call()


@pytest.mark.parametrize("busy, limit, work, routed", [
    (True, 2, 1 << 30, [(1, 2)]),  # busy cores gave it one thread: the trial at one, blocks on two
    (False, 2, 1 << 30, [(2, 1)]),  # quiet: the trial at two
    (False, 2, 0, []),            # quiet, too little work for threads: no trial
    (True, 1, 1 << 30, []),       # the caller's limit is one thread: no trial
])
def test_which_calls_take_a_route(monkeypatch, busy, limit, work, routed):
    monkeypatch.setattr(npcompile.config, "threads", "auto")
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(
        ttl=0, read=lambda: 1 + (2 if busy else 0), read_ours=lambda: 1, cpus=2))
    monkeypatch.setattr(threads, "available_cores", lambda: 2)
    monkeypatch.setattr(threads, "parallel_threshold_bytes", lambda limit=None: 1 << 20)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        if limit == 1:
            monkeypatch.setattr(threads, "task_budget", lambda: 1)
        route = RecordingRoute()
        wrapped = threads.ThreadsFor(lambda: "result", work=work, scale=None, route=route)
        assert wrapped() == "result"
        assert route.counts == routed
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_trial_is_in_progress_until_it_decides(monkeypatch, two_threads):
    trial = route_trials.RouteTrial()
    monkeypatch.setattr(host_blas, "numpy_blas_threads", lambda: 2)
    monkeypatch.setattr(host_blas, "_measure", lambda dtype, kind, t, b: False)
    current = torch.get_num_threads()
    trial.run(lambda: None, 2, current)
    assert route_trials.in_progress()
    for _ in range(2 * route_trials.PAIRS * route_trials.RUN):
        trial.run(lambda: None, 2, current)
    assert trial.verdicts and not trial.runs and trial not in route_trials._OPEN


def test_a_trial_whose_calls_stopped_is_not_in_progress(monkeypatch, two_threads):
    """Another function's graph left its trial open (its calls stopped, or came under
    another condition): the benchmarks' settle of this function does not wait for it."""
    trial = route_trials.RouteTrial()
    monkeypatch.setattr(host_blas, "numpy_blas_threads", lambda: 2)
    monkeypatch.setattr(host_blas, "_measure", lambda dtype, kind, t, b: False)
    trial.run(lambda: None, 2, torch.get_num_threads())
    later = time.monotonic() + route_trials.RECENT_SECONDS + 0.1
    assert trial in route_trials._OPEN and route_trials.in_progress()
    assert not route_trials.in_progress(clock=lambda: later)
    trial.run(lambda: None, 2, torch.get_num_threads())      # called again: under way again
    assert route_trials.in_progress()
    trial.runs.clear()
    route_trials._OPEN.discard(trial)


def test_a_single_threaded_blas_takes_no_trial(monkeypatch, two_threads):
    trial, seen = run_trial(monkeypatch, 1.0, 2.0, blas=1)
    assert trial.verdicts == {} and {forced for _, forced, _ in seen} == {None}
    assert {t for t, _, _ in seen} == {2}


def test_trial_calls_are_counted_for_speed_trials(monkeypatch, two_threads):
    before = route_trials.trial_calls()
    run_trial(monkeypatch, 1.0, 2.0)
    assert route_trials.trial_calls() - before == 2 * route_trials.PAIRS * route_trials.RUN


def test_only_graphs_with_split_products_get_a_route(monkeypatch):
    from npcompile.runtime import entries
    made = []
    real = entries.with_thread_policy

    def spy(compiled, gm, device):
        wrapped = real(compiled, gm, device)
        made.append(getattr(wrapped, "route", None))
        return wrapped
    monkeypatch.setattr(entries, "with_thread_policy", spy)
    monkeypatch.setattr(npcompile.config, "host_blas", "auto")
    monkeypatch.setattr(npcompile.config, "parallel_threshold_bytes", 1)   # nothing compiles single-threaded
    rng = np.random.default_rng(3)
    npcompile.jit(layer)(rng.standard_normal((1024, N)), rng.standard_normal((N, N)), rng.standard_normal((N, 8)))
    npcompile.jit(elementwise)(rng.standard_normal(1000))
    assert [type(r) for r in made] == [route_trials.RouteTrial, type(None)]
    monkeypatch.setattr(npcompile.config, "route_trials", False)
    made.clear()
    npcompile.jit(layer)(rng.standard_normal((1024, N)), rng.standard_normal((N, N)), rng.standard_normal((N, 8)))
    assert made == [None]


@pytest.mark.inductor
def test_every_call_of_a_trial_is_numpys(monkeypatch):
    """Both ways, and the verdict after them, give NumPy's answer and leave the inputs alone."""
    monkeypatch.setattr(npcompile.config, "threads", 2)
    monkeypatch.setattr(npcompile.config, "speed_trials", False)
    blas_before = host_blas.numpy_blas_threads()
    rng = np.random.default_rng(4)
    args = [rng.standard_normal((1024, N)), rng.standard_normal((N, N)) / np.sqrt(N), rng.standard_normal((N, 8))]
    jitted = npcompile.jit(layer)
    try:
        assert set_numpy_blas_threads(2)
        before = route_trials.trial_calls()
        for i in range(2 * route_trials.PAIRS * route_trials.RUN + 3):
            compare_call(layer, jitted, args, {}, rtol=1e-12, atol=1e-12, context=f"call {i}")
        assert route_trials.trial_calls() - before == 2 * route_trials.PAIRS * route_trials.RUN
    finally:
        set_numpy_blas_threads(blas_before)
    assert jitted.compile_count == 1


@pytest.mark.inductor
def test_a_contended_trial_in_blocks_gives_numpys_answer(monkeypatch):
    """Calls given one thread for busy cores (a monitor that always reads busy) take the
    trial at one thread, half of them with products in blocks: each is NumPy's answer."""
    monkeypatch.setattr(npcompile.config, "threads", "auto")
    monkeypatch.setattr(npcompile.config, "speed_trials", False)
    monkeypatch.setattr(npcompile.config, "parallel_threshold_bytes", 1)
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(
        ttl=0, read=lambda: 3, read_ours=lambda: 1, cpus=2))
    monkeypatch.setattr(threads, "available_cores", lambda: 2)
    routes = []
    real = host_blas.force_split_route
    monkeypatch.setattr(host_blas, "force_split_route", lambda r: routes.append(r) or real(r))
    blas_before, torch_before = host_blas.numpy_blas_threads(), torch.get_num_threads()
    rng = np.random.default_rng(5)
    args = [rng.standard_normal((1024, N)), rng.standard_normal((N, N)) / np.sqrt(N), rng.standard_normal((N, 8))]
    jitted = npcompile.jit(layer)
    try:
        torch.set_num_threads(2)
        assert set_numpy_blas_threads(2)
        for i in range(2 * route_trials.PAIRS * route_trials.RUN + 3):
            compare_call(layer, jitted, args, {}, rtol=1e-12, atol=1e-12, context=f"call {i}")
    finally:
        set_numpy_blas_threads(blas_before)
        torch.set_num_threads(torch_before)
    assert any(isinstance(r, host_blas.BlockRoute) and r.threads == 2 for r in routes)


def test_our_own_runnable_threads_are_not_other_load():
    # three runnable tasks, all of them this process's (the caller, a spinning OpenBLAS
    # worker, a spinning OpenMP worker): two cores are free
    monitor = threads.ContentionMonitor(ttl=0, read=lambda: 3, read_ours=lambda: 3, cpus=2)
    assert monitor.free_cores() == 2
    monitor = threads.ContentionMonitor(ttl=0, read=lambda: 3, read_ours=lambda: 1, cpus=2)
    assert monitor.free_cores() == 1
    assert threads.our_running_threads() >= 1            # the calling thread itself
    assert threads.our_running_threads("/nonexistent") == 0
