"""benchmarks.first_calls: its bookkeeping, and one real child process (NumPy only, so
it needs no compiler)."""
import subprocess
import sys
import threading
import time

import pytest

from benchmarks import first_calls


def test_faster_from_is_the_first_call_after_which_every_call_beats_numpy():
    numpy_times = [1.0, 1.0, 1.0]
    assert first_calls.faster_from([9.0, 0.5, 2.0, 0.5, 0.4], numpy_times) == 4
    assert first_calls.faster_from([0.5, 0.5], numpy_times) == 1
    assert first_calls.faster_from([0.5, 2.0], numpy_times) is None


def test_a_child_process_times_each_call(tmp_path):
    run = first_calls.run_child("softmax", "numpy", 3, "tiny", str(tmp_path))
    assert "error" not in run and len(run["times"]) == 3 and all(t > 0 for t in run["times"])


def test_the_line_reports_totals_and_ratios_per_round():
    line = first_calls._line("w", {"numpy": [{"times": [1.0, 1.0]}, {"times": [2.0, 2.0]}],
                                   "npcompile (cold)": [{"times": [3.0, 0.5]}, {"times": [3.0, 0.5]}],
                                   "torch.compile (cold)": [{"error": "boom"}]})
    assert "numpy: 2.000 s | 4.000 s" in line
    assert "npcompile (cold): 3.500 s = 1.75x NumPy, faster from call 2 | 3.500 s = 0.88x NumPy" in line
    assert "torch.compile (cold): failed (boom)" in line


def test_a_child_reports_each_calls_cpu_time_and_run_queue_wait(tmp_path):
    run = first_calls.run_child("softmax", "numpy", 3, "tiny", str(tmp_path))
    assert len(run["waits"]) == len(run["cpu"]) == 3
    assert all(wait >= 0 and cpu > 0 for wait, cpu in zip(run["waits"], run["cpu"]))


def test_ratios_compare_totals_and_totals_less_run_queue_wait():
    numpy_run = {"times": [1.0, 1.0], "waits": [0.5, 0.5]}
    assert first_calls.ratios({"times": [2.0, 1.0], "waits": [1.5, 0.0]}, numpy_run) == (1.5, 1.5)
    assert first_calls.ratios({"times": [2.0, 2.0]}, numpy_run) == (2.0, None)
    assert first_calls.ratios({"error": "boom"}, numpy_run) == (None, None)


def test_the_line_gives_median_ratios_over_rounds():
    numpy_rounds = [{"times": [1.0], "waits": [0.0]}, {"times": [1.0], "waits": [0.5]},
                    {"times": [2.0], "waits": [1.0]}]
    system_rounds = [{"times": [3.0], "waits": [0.0]}, {"times": [0.5], "waits": [0.0]},
                     {"times": [2.2], "waits": [1.2]}]
    line = first_calls._line("w", {"numpy": numpy_rounds, "npcompile-background (cold)": system_rounds})
    assert "= 1.10x NumPy (1.00x less run-queue wait); median 1.10x (1.00x less run-queue wait)" in line
    one_round = first_calls._line("w", {"numpy": numpy_rounds[:1], "npcompile (cold)": system_rounds[:1]})
    assert "median" not in one_round


def test_blocked_time_is_what_is_left_of_each_call_after_running_and_waiting():
    run = {"times": [0.10, 0.30, 0.05], "waits": [0.05, 0.10, 0.02], "cpu": [0.05, 0.05, 0.04]}
    assert abs(first_calls.blocked(run) - 0.15) < 1e-9   # the third call's -0.01 is clock skew, not time
    assert first_calls.blocked({"times": [0.1]}) is None
    line = first_calls._line("w", {"numpy": [{"times": [1.0]}], "npcompile-background (cold)": [run]})
    assert "0.450 s = 0.45x NumPy, faster from call 1 (blocked 0.150 s)" in line


def test_numpy_with_npcompiles_malloc_thresholds_runs_the_function_as_written(tmp_path):
    run = first_calls.run_child("softmax", first_calls.NUMPY_KEPT_MEMORY, 2, "tiny", str(tmp_path))
    assert "error" not in run and len(run["times"]) == 2
    assert first_calls._wrap(first_calls.NUMPY_KEPT_MEMORY, len) is len


def test_each_round_shows_its_ratio_less_run_queue_wait():
    line = first_calls._line("w", {"numpy": [{"times": [2.0], "waits": [1.0]}],
                                   "npcompile-background (warm)": [{"times": [3.0], "waits": [2.0]}]})
    assert "3.000 s = 1.50x NumPy (1.00x less run-queue wait)" in line


def test_numpy_again_is_numpy_in_another_process_and_compiles_nothing(tmp_path):
    assert first_calls._wrap(first_calls.NUMPY_AGAIN, len) is len
    run = first_calls.run_child("softmax", first_calls.NUMPY_AGAIN, 2, "tiny", str(tmp_path))
    assert "error" not in run and len(run["others"]) == 2


def test_the_summary_counts_cells_over_the_goal_with_and_without_run_queue_wait():
    numpy_run = {"times": [1.0], "waits": [0.5]}
    results = {"a": {"numpy": [numpy_run], "bg (cold)": [{"times": [1.2], "waits": [0.6]}],
                     "numpy-again": [{"times": [1.05], "waits": [0.5]}]},
               "b": {"numpy": [numpy_run], "bg (cold)": [{"times": [1.3], "waits": [1.0]}],
                     "numpy-again": [{"error": "boom"}]}}
    text = first_calls.summary(results)
    assert "bg (cold): 2 of 2 cells over 1.10x NumPy, 1 less run-queue wait" in text
    assert "numpy-again: 0 of 1 cells over 1.10x NumPy, 0 less run-queue wait" in text


def _spin(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_others_cpu_counts_the_other_threads_and_child_processes_not_the_caller():
    before = first_calls.others_cpu()
    _spin(0.05)   # the caller's own CPU is not counted
    assert first_calls.others_spent(before, first_calls.others_cpu()) < 0.03
    before = first_calls.others_cpu()
    spun, read = threading.Event(), threading.Event()

    def spin_and_stay():   # read while it lives: a thread that ended is not listed
        _spin(0.05)
        spun.set()
        read.wait()

    thread = threading.Thread(target=spin_and_stay)
    thread.start()
    spun.wait()
    try:
        assert first_calls.others_spent(before, first_calls.others_cpu()) >= 0.04
    finally:
        read.set()
        thread.join()
    child = subprocess.Popen([sys.executable, "-c", "import time\nend = time.process_time() + 0.3\n"
                              "while time.process_time() < end: pass\nimport sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        spent = 0.0
        while spent < 0.25 and child.poll() is None:   # the child spins, then waits for its stdin
            time.sleep(0.01)
            spent = sum(seconds for (pid, _), seconds in first_calls.others_cpu().items() if pid == child.pid)
        assert spent >= 0.25
    finally:
        child.communicate(b"")


def test_worker_cpu_is_the_compile_worker_threads_own():
    before = first_calls.worker_cpu()
    spun, read = threading.Event(), threading.Event()
    seen = []

    def spin_and_stay():
        _spin(0.05)
        spun.set()
        read.wait()

    other = threading.Thread(target=spin_and_stay)   # another thread's CPU is not the worker's
    other.start()
    spun.wait()
    try:
        seen.append(first_calls.worker_cpu() - before)
    finally:
        read.set()
        other.join()
    spun.clear()
    read.clear()
    worker = threading.Thread(target=spin_and_stay, name=first_calls.WORKER_THREAD)
    worker.start()
    spun.wait()
    try:
        seen.append(first_calls.worker_cpu())
    finally:
        read.set()
        worker.join()
    assert seen[0] < 0.03 and seen[1] >= 0.04


def test_the_line_shows_the_workers_cpu_during_the_calls():
    run = {"times": [0.5, 0.5], "waits": [0.0, 0.0], "cpu": [0.5, 0.5], "others": [0.0, 0.0],
           "worker": [0.0, 0.0042]}
    line = first_calls._line("w", {"numpy": [{"times": [1.0]}], "npcompile-background (warm)": [run]})
    assert "(worker CPU 4.2 ms)" in line
    assert "worker CPU" not in first_calls._line("w", {"numpy": [{"times": [1.0]}], "numpy-again": [
        dict(run, worker=[0.0, 0.0])]})


def test_the_unramped_system_gives_the_worker_its_whole_share_from_the_start(monkeypatch):
    import npcompile
    from npcompile.runtime import background
    monkeypatch.setattr(background, "RAMP_SECONDS", 2.0)
    monkeypatch.setattr(npcompile.config, "compile_out_of_process", True)
    wrapped = first_calls._wrap(first_calls.UNRAMPED, lambda a: a + 1)
    assert wrapped.compile == "background" and background.RAMP_SECONDS is None


@pytest.mark.parametrize("round_index, order", [(0, ["npcompile-background", "npcompile-background", "numpy"]),
                                                (1, ["npcompile-background", "numpy", "npcompile-background"])])
def test_a_warm_run_carries_a_numpy_reference_that_takes_turns_after_the_filling_process(
        monkeypatch, round_index, order):
    started = []

    def child(name, system, calls, size, folder, settings=()):
        started.append(system)
        return {"times": [0.01 * len(started)] * calls}
    monkeypatch.setattr(first_calls, "run_child", child)
    run = first_calls._fresh_cache_run("softmax", "npcompile-background", 2, "tiny", "warm", (), round_index)
    assert started == order
    reference = run["reference"]
    assert started[2 if order[2] == "numpy" else 1] == "numpy" and reference["times"] != run["times"]
    # its ratio is taken against its own reference, not the round's NumPy run
    round_numpy = {"times": [1.0, 1.0]}
    assert first_calls.ratios(run, round_numpy)[0] == pytest.approx(sum(run["times"]) / sum(reference["times"]))
    assert "its own NumPy reference" in first_calls._line("softmax", {"numpy": [round_numpy],
                                                                     "npcompile-background (warm)": [run]})


def test_a_cold_run_is_one_process_compared_with_the_rounds_numpy(monkeypatch):
    started = []
    monkeypatch.setattr(first_calls, "run_child", lambda *a, **k: started.append(a[1]) or {"times": [0.01]})
    run = first_calls._fresh_cache_run("softmax", "npcompile-background", 1, "tiny", "cold", (), 0)
    assert started == ["npcompile-background"] and "reference" not in run
