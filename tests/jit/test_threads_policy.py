"""The thread count npcompile chooses per call (runtime/threads.py): asserted on the
count chosen, never on time."""
import os
import subprocess
import sys

import pytest
import torch

from npcompile import config
from npcompile.runtime import threads


@pytest.fixture
def policy(monkeypatch):
    """A known machine: a 4 MiB threshold, 4 usable cores, an idle run queue."""
    monkeypatch.setattr(config, "threads", "auto")
    monkeypatch.setattr(config, "parallel_threshold_bytes", 4 << 20)
    monkeypatch.setattr(threads, "available_cores", lambda: 4)
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(read=lambda: 1))
    threads.parallel_threshold_bytes.cache_clear()
    before = torch.get_num_threads()
    torch.set_num_threads(4)
    yield
    torch.set_num_threads(before)
    threads.parallel_threshold_bytes.cache_clear()


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
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(read=lambda: 5))   # 4 others + us
    assert threads.threads_for(64 << 20) == 1
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(read=lambda: 3))
    assert threads.threads_for(64 << 20) == 4


def test_contention_reading_is_cached_for_its_ttl():
    readings, now = iter([9, 1]), [0.0]
    monitor = threads.ContentionMonitor(ttl=0.05, read=lambda: next(readings), clock=lambda: now[0])
    assert monitor.busy(2) and monitor.busy(2)      # the second answer is the cached one
    now[0] = 0.06
    assert not monitor.busy(2)


def test_fixed_setting_overrides(policy, monkeypatch):
    monkeypatch.setattr(config, "threads", 3)
    assert threads.threads_for(1) == 3


def test_threads_for_wrapper_sets_and_restores_the_count(policy):
    seen = []
    call = threads.ThreadsFor(lambda *ts: seen.append(torch.get_num_threads()) or "done")
    assert call(torch.ones(8)) == "done" and call(torch.ones(4 << 20)) == "done"
    assert seen == [1, 4] and torch.get_num_threads() == 4


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


def test_omp_num_threads_from_the_environment_is_respected():
    code = "from npcompile.runtime import threads; print(threads.thread_limit(), threads.threads_for(1 << 30))"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1"]


def test_measured_threshold_is_a_positive_size():
    threads.parallel_threshold_bytes.cache_clear()
    try:
        assert threads.parallel_threshold_bytes() > 0
    finally:
        threads.parallel_threshold_bytes.cache_clear()
