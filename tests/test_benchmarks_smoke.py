"""Smoke tests of the benchmark suite without TorchInductor: every workload at its tiny
size through ``npcompile.jit(backend="eager")`` gives NumPy's answer, and the suite's
measuring, checking and reporting code runs on eager compilers and on a fake result set."""
import copy
import json

import numpy as np
import pytest

import npcompile
from benchmarks import suite
from benchmarks.workloads import WORKLOADS, by_name
from tests.oracle import assert_same


@pytest.fixture(autouse=True)
def inductor_caches_as_they_were():
    """The suite's main switches Inductor's caches off for cold compiles, for the rest of
    its process: here that process is the test run's, so put the setting back."""
    import torch._inductor.config as inductor_config
    with inductor_config.patch(force_disable_caches=inductor_config.force_disable_caches):
        yield


def test_registry_has_the_workloads_the_suite_promises():
    names = [w.name for w in WORKLOADS]
    assert len(names) >= 20 and len(set(names)) == len(names)
    assert {"jacobi_2d", "heat_3d", "nbody_step", "softmax", "logsumexp", "kmeans_step", "mandelbrot",
            "advection_upwind", "horner_polynomial", "pairwise_distances", "black_scholes",
            "gaussian_filter", "matrix_chain", "mlp_forward", "cumulative_trapezoid",
            "newton_cuberoot"} <= set(names)
    assert [w.name for w in by_name(["softmax", "jacobi_2d"])] == ["jacobi_2d", "softmax"]
    with pytest.raises(KeyError):
        by_name(["no_such_workload"])


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_workload_jitted_eagerly_matches_numpy(workload):
    args = workload.inputs("tiny")
    again = workload.inputs("tiny")
    for a, b in zip(args, again):
        np.testing.assert_array_equal(a, b)           # inputs are deterministic
    expected = workload.fn(*copy.deepcopy(args))
    jitted = npcompile.jit(workload.fn, backend="eager")
    jit_args = copy.deepcopy(args)
    for _ in range(2):                                # the second call hits the cache
        assert_same(expected, jitted(*jit_args), rtol=workload.rtol, atol=workload.atol)
    assert_same(args, jit_args, path="inputs after the call")   # workloads never mutate


@pytest.mark.parametrize("expected, actual, start", [
    (np.ones(3), np.ones(3), "ok"),
    ((np.ones(3), np.float64(2.0)), (np.ones(3) + 1e-12, np.float64(2.0)), "ok"),
    (np.float64(2.0), np.array(2.0), "MISMATCH result: type ndarray, NumPy float64"),
    (np.ones(3), np.ones(3, dtype=np.float32), "MISMATCH result: dtype float32"),
    (np.ones(3), np.ones((3, 1)), "MISMATCH result: shape (3, 1)"),
    ((np.ones(2),), (np.ones(2), np.ones(2)), "MISMATCH result: length 2"),
    ((np.ones(2), np.zeros(2)), (np.ones(2), np.ones(2)), "MISMATCH result[1]: values differ"),
    (np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), "ok"),
])
def test_verdict(expected, actual, start):
    assert suite.verdict(expected, actual, rtol=1e-7, atol=1e-9).startswith(start)


def _raise_on_compile(fn):
    raise RuntimeError("backend exploded\nsecond line")


def test_run_workload_with_eager_compilers_and_a_failing_one():
    compilers = {"npcompile": lambda fn: npcompile.jit(fn, backend="eager"),
                 "torch.compile": _raise_on_compile}
    messages = []
    record = suite.run_workload(by_name(["newton_cuberoot"])[0], "tiny", compilers, suite.QUICK_TIMING,
                                log=messages.append)
    npc, failed = record["npcompile"], record["torch.compile"]
    assert npc["status"] == "ok" and npc["ms"] > 0 and npc["speedup"] > 0 and npc["compile_s"] >= 0
    assert set(record["conditions"]["default"]) == {"numpy", "npcompile"}   # the failed system is not timed
    assert npc["ms"] == record["conditions"]["default"]["npcompile"]
    assert npc["graphs"] >= 2 and npc["breaks"] >= 1 and npc["compiled_segments"] >= 2
    assert npc["break_reasons"]
    assert failed == {"status": "failed: RuntimeError: backend exploded", "ms": None, "compile_s": None}
    assert any("newton_cuberoot" in m and "torch.compile" in m for m in messages)
    json.dumps(record)                                # the report is JSON-serialisable


FAKE_RECORDS = [
    {"name": "fast", "size": "default", "numpy_ms": 10.0,
     "npcompile": {"status": "ok", "ms": 2.0, "compile_s": 3.0, "speedup": 5.0, "graphs": 1, "breaks": 0,
                   "break_reasons": []},
     "torch.compile": {"status": "ok", "ms": 4.0, "compile_s": 6.0, "speedup": 2.5}},
    {"name": "slow_and_breaking", "size": "default", "numpy_ms": 1.0,
     "npcompile": {"status": "ok", "ms": 2.0, "compile_s": 1.0, "speedup": 0.5, "graphs": 3, "breaks": 2,
                   "break_reasons": ["data-dependent branch"]},
     "torch.compile": {"status": "MISMATCH result: type ndarray, NumPy float64", "ms": 1.0,
                       "compile_s": 2.0, "speedup": 1.0}},
    {"name": "crashes", "size": "default", "numpy_ms": 5.0,
     "npcompile": {"status": "failed: RuntimeError: boom", "ms": None, "compile_s": None},
     "torch.compile": {"status": "failed: Unsupported: x", "ms": None, "compile_s": None}},
]


def test_table_and_summary_on_fake_results():
    table = suite.format_table(FAKE_RECORDS).splitlines()
    assert table[0].split()[:4] == ["workload", "correct", "numpy", "ms"]
    fast, slow, crashes = (line.split() for line in table[2:])
    assert fast == ["fast", "ok", "10.00", "2.00", "5.00", "0.50", "3.0", "6.0", "1", "0", "ok", "2.50"]
    assert slow[:2] == ["slow_and_breaking", "ok"] and slow[-2] == "MISMATCH"
    assert crashes == ["crashes", "failed", "5.00"] + ["-"] * 7 + ["failed", "-"]

    summary = suite.summary_lines(FAKE_RECORDS)
    assert summary[0].startswith("npcompile: geometric-mean speedup over NumPy 1.58x over 2 of 3")
    assert summary[1].endswith("slow_and_breaking (0.50x)")
    assert "crashes: failed: RuntimeError: boom" in summary[2]
    assert summary[3].startswith("torch.compile: geometric-mean speedup over NumPy 2.50x over 1 of 3")
    assert summary[4].endswith(": none")
    assert summary[-2] == "npcompile graph breaks: slow_and_breaking (2: data-dependent branch)"
    assert summary[-1].startswith("npcompile ran as written") and summary[-1].endswith(": none")


def test_bandwidth_lines_and_chart(tmp_path):
    bandwidth = suite.memory_bandwidth(mebibytes=1, rounds=1, compile_fn=_raise_on_compile)
    lines = suite.bandwidth_lines(bandwidth)
    assert "np.copyto" in lines[0] and bandwidth["gbps"]["copyto"] > 0
    assert any(line.strip().startswith("numpy a*2+b") and "of copy bandwidth" in line for line in lines)
    assert any("npcompile a*2+b" in line and "failed: RuntimeError" in line for line in lines)
    chart = tmp_path / "speedups.png"
    suite.write_chart(FAKE_RECORDS, chart)
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_alternating_seconds_times_every_function_in_each_round():
    calls = []
    functions = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    seconds = suite.alternating_seconds(functions, (), suite.Timing(repeats=3, min_seconds=0.0, max_rounds=3))
    assert set(seconds) == {"a", "b"} and all(s >= 0 for s in seconds.values())
    # after each one's calibration (two calls, the second timed): three rounds, each of an
    # untimed call and a timed batch of one per function, NumPy's order turning round to round
    rounds = calls[4:]
    assert rounds == ["a", "a", "b", "b", "b", "b", "a", "a", "b", "b", "a", "a"]


def test_alternating_seconds_rounds_last_the_same_time_whatever_the_first_call_took(monkeypatch):
    """The flaw paired.py fixed, in the thread-policy benchmark too: one slow first call
    must not shorten a function's rounds (each lasts min_seconds by the clock)."""
    now = [0.0]
    calls = {"slow_first": 0, "steady": 0}

    def fn_of(name):
        def fn():
            calls[name] += 1
            now[0] += 5.0 if name == "slow_first" and calls[name] == 1 else 0.01
        return fn

    monkeypatch.setitem(suite.CLOCKS, "wall", lambda: now[0])
    seconds = suite.alternating_seconds({"steady": fn_of("steady"), "slow_first": fn_of("slow_first")}, (),
                                        suite.Timing(repeats=3, min_seconds=0.5, max_rounds=3))
    assert seconds == pytest.approx({"steady": 0.01, "slow_first": 0.01})
    assert abs(calls["slow_first"] - calls["steady"]) <= 10 and calls["steady"] >= 3 * 50


def test_conditions_set_threads_and_busy_processes():
    import torch

    from benchmarks import conditions
    one, contended = conditions.standard_conditions("one_thread,contended")
    before = torch.get_num_threads()
    with conditions.entered(one, default_threads=before):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    assert contended.busy_processes == conditions.usable_cores()
    (one_busy,) = conditions.standard_conditions("one_busy")
    assert (one_busy.threads, one_busy.busy_processes) == ("default", 1)
    assert [c.name for c in suite._conditions(suite.parse_args([]))] == \
        ["default", "one_thread", "contended", "one_busy"]
    with conditions.busy_cores(2, limit=30) as processes:
        assert all(p.poll() is None for p in processes)   # spinning
    assert all(p.poll() is not None for p in processes)   # stopped afterwards
    with pytest.raises(ValueError, match="one_thread"):
        conditions.standard_conditions("quiet")


def test_run_workload_under_two_conditions_and_their_summary():
    from benchmarks.conditions import standard_conditions
    compilers = {"npcompile": lambda fn: npcompile.jit(fn, backend="eager")}
    chosen = standard_conditions("default,one_thread")
    record = suite.run_workload(by_name(["softmax"])[0], "tiny", compilers, suite.QUICK_TIMING,
                                log=lambda m: None, conditions=chosen, default_threads=2)
    assert set(record["conditions"]) == {"default", "one_thread"}
    lines = suite.condition_lines([record], chosen)
    assert len(lines) == 2 and lines[1].startswith("one_thread (torch threads: 1): npcompile geometric mean")


def test_main_writes_an_untracked_folder_unless_asked_to_save(tmp_path, monkeypatch):
    eager = {"npcompile": lambda fn: npcompile.jit(fn, backend="eager")}
    monkeypatch.setattr(suite, "default_compilers", lambda: eager)
    monkeypatch.setattr(suite, "RESULTS_DIR", tmp_path / "results")
    monkeypatch.setattr(suite, "memory_bandwidth", lambda **kw: {"mebibytes": 1, "gbps": {"copyto": 1.0}})
    suite.main(["--quick", "--only", "softmax", "--warm-cache"])
    runs = list((tmp_path / "results" / "runs").iterdir())
    assert len(runs) == 1 and {p.name for p in runs[0].iterdir()} == {"report.json", "table.txt", "speedups.png"}
    assert "softmax" in (runs[0] / "table.txt").read_text()
    assert not (tmp_path / "results" / "latest.txt").exists()
    suite.main(["--quick", "--only", "softmax", "--warm-cache", "--save"])
    assert "softmax" in (tmp_path / "results" / "latest.txt").read_text()


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_small_size_lies_between_tiny_and_default(workload):
    """Every workload has a small size (NumPy about 50 us a call): its inputs hold more
    elements than the tiny ones and fewer than the default ones."""
    elements = {size: sum(np.asarray(a).size for a in workload.inputs(size)) for size in ("tiny", "small", "default")}
    assert elements["tiny"] <= elements["small"] < elements["default"]
    small = workload.inputs("small")
    workload.fn(*copy.deepcopy(small))


def test_condition_table_lists_every_condition_and_the_load():
    from benchmarks.conditions import standard_conditions
    chosen = standard_conditions("default,one_thread")
    records = [{"name": "fast", "npcompile": {"status": "ok"}, "load": {"default": 0.5, "one_thread": 1.5},
                "conditions": {"default": {"numpy": 4.0, "npcompile": 2.0},
                               "one_thread": {"numpy": 4.0, "npcompile": 8.0}}},
               {"name": "wrong", "npcompile": {"status": "MISMATCH result"}, "load": {"default": 2.5},
                "conditions": {"default": {"numpy": 1.0, "npcompile": 1.0}}}]
    lines = suite.condition_table(records, chosen).splitlines()
    assert lines[0].split() == ["workload", "default", "np", "ms", "default", "npc", "ms", "default", "x",
                                "one_thread", "np", "ms", "one_thread", "npc", "ms", "one_thread", "x"]
    assert lines[2].split() == ["fast", "4.000", "2.000", "2.00", "4.000", "8.000", "0.50"]
    assert lines[3].split() == ["wrong", "1.000", "-", "-", "-", "-", "-"]
    assert lines[4] == "load average (1 min) after the rounds: default 0.5-2.5, one_thread 1.5-1.5"


def test_main_measures_every_size_asked_for(tmp_path, monkeypatch):
    eager = {"npcompile": lambda fn: npcompile.jit(fn, backend="eager")}
    monkeypatch.setattr(suite, "default_compilers", lambda: eager)
    monkeypatch.setattr(suite, "memory_bandwidth", lambda **kw: {"mebibytes": 1, "gbps": {"copyto": 1.0}})
    out = tmp_path / "run"
    suite.main(["--quick", "--only", "softmax", "--size", "tiny,small", "--warm-cache", "--out", str(out)])
    report = json.loads((out / "report.json").read_text())
    assert report["sizes"] == ["tiny", "small"]
    assert [(r["name"], r["size"]) for r in report["workloads"]] == [("softmax", "tiny"), ("softmax", "small")]
    assert all(set(r["load"]) == {"default"} for r in report["workloads"])
    text = (out / "table.txt").read_text()
    assert "== tiny size" in text and "== small size" in text and "load average (1 min) after the rounds" in text
    with pytest.raises(SystemExit, match="unknown sizes"):
        suite.main(["--quick", "--size", "huge", "--out", str(out)])
    with pytest.raises(SystemExit, match="--systems takes npcompile"):
        suite.main(["--quick", "--systems", "torch.compile", "--out", str(out)])


def test_thread_policy_benchmark_switches_the_policy_off_and_back_on():
    from benchmarks.thread_policy import without_policy
    from npcompile import backends, threads
    from npcompile.runtime import entries

    policy = entries.with_thread_policy
    with without_policy():
        assert entries.with_thread_policy(policy, None, None) is policy       # calls left unwrapped
        assert backends.DYNAMIC_THREADS == {} and threads.single_threaded(None) is False
    assert entries.with_thread_policy is policy and backends.DYNAMIC_THREADS == {"cpp.dynamic_threads": True}
