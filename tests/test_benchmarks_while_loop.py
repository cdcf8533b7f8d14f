"""The while_loop probe (benchmarks.while_loop_probe) compares like with like: its torch
versions of each loop shape give NumPy's answer (result, dtype, the inputs' final state)
as while_loop run eagerly and under torch.compile without Inductor, the loop with a
data-dependent exit solves its equations, and the runner parses, checks and reports."""
import json
import os

import numpy as np
import pytest
import torch

from benchmarks import loops
from benchmarks import while_loop_probe as probe
from benchmarks import while_loop_versions as versions

SHAPES = versions.SHAPES


@pytest.fixture(autouse=True)
def inductor_caches_as_they_were():
    """The probe's main switches Inductor's caches off for its process: put it back."""
    import torch._inductor.config as inductor_config
    with inductor_config.patch(force_disable_caches=inductor_config.force_disable_caches):
        yield


def problem(shape, fn):
    """None if ``fn`` (a torch version, on the NumPy arguments) does what NumPy does at the
    tiny size, else loops.compare's message."""
    args = shape.workload.inputs("tiny")
    expected_inputs = loops.fresh(args)
    expected = shape.workload.fn(*expected_inputs)
    return loops.check_call(versions.on_numpy(fn, shape.finish), args, expected, expected_inputs, shape.workload)[1]


# ---- the torch versions ----------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_while_loop_version_run_eagerly_matches_numpy(shape):
    assert problem(shape, shape.while_fn) is None


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_while_loop_version_compiled_whole_matches_numpy(shape):
    """fullgraph=True: the loop is one higher-order op in one graph (aot_eager runs the
    functionalized graph Inductor would be given, without its C++ compile)."""
    torch._dynamo.reset()
    compiled = torch.compile(shape.while_fn, backend="aot_eager", fullgraph=True)
    assert problem(shape, compiled) is None


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_eager_floor_matches_numpy(shape):
    assert problem(shape, shape.eager_fn) is None


def test_a_wrong_version_is_caught():
    """The check is not vacuous: one step short of NumPy's loop differs in the inputs it leaves."""
    shape = versions.shapes(["jacobi_1d"])[0]

    def one_step_short(a, b, steps):
        return shape.eager_fn(a, b, steps - 1)

    assert "input A after the call" in problem(shape, one_step_short)


def test_while_loop_version_of_a_float32_loop_keeps_float32():
    shape = versions.shapes(["jacobi_2d"])[0]
    a, b, steps = shape.workload.inputs("tiny")
    assert a.dtype == np.float32
    torch_a, torch_b = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    shape.while_fn(torch_a, torch_b, steps)
    assert torch_a.dtype == torch.float32
    np.testing.assert_array_equal(torch_a.numpy()[0], a[0])      # the fixed edge stays


# ---- the data-dependent loop -----------------------------------------------------------------
def test_implicit_heat_solves_the_backward_euler_step():
    u, rhs, c, tol = versions.IMPLICIT_HEAT.inputs("tiny")
    start = u.copy()
    sweeps = versions.implicit_heat(u, rhs, c, tol)
    assert type(sweeps) is int and sweeps > 10
    n = u.shape[0]
    residual = np.zeros((n - 2, n - 2))
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            neighbours = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
            residual[i - 1, j - 1] = (1 + 4 * c) * u[i, j] - c * neighbours - rhs[i, j]
    assert np.max(np.abs(residual)) < 1e-6
    np.testing.assert_array_equal(u[0], start[0])
    np.testing.assert_array_equal(u[:, -1], start[:, -1])


def test_implicit_heat_sweep_count_is_a_python_int_in_every_version():
    shape = versions.shapes(["implicit_heat"])[0]
    args = shape.workload.inputs("tiny")
    expected = shape.workload.fn(*loops.fresh(args))
    for fn in (shape.while_fn, shape.eager_fn):
        result = versions.on_numpy(fn, shape.finish)(*loops.fresh(args))
        assert type(result) is int and result == expected


# ---- the runner ------------------------------------------------------------------------------
def test_cli_defaults_and_choices():
    options = probe.parse_args([])
    assert (options.sizes, options.only, options.threads, options.backend) == (["small", "large"], [], "default",
                                                                               "inductor")
    options = probe.parse_args(["--sizes", "tiny, small", "--only", "heat_3d,implicit_heat", "--threads", "1",
                                "--out", "somewhere"])
    assert (options.sizes, options.only, options.threads, options.out) == (
        ["tiny", "small"], ["heat_3d", "implicit_heat"], "1", "somewhere")
    with pytest.raises(SystemExit):
        probe.parse_args(["--sizes", "huge"])
    with pytest.raises(SystemExit):
        probe.parse_args(["--threads", "4"])
    with pytest.raises(KeyError):
        versions.shapes(["no_such_shape"])
    assert [s.name for s in versions.shapes(["implicit_heat", "jacobi_1d"])] == ["jacobi_1d", "implicit_heat"]


def fake_record(name="jacobi_1d", wl_status="match"):
    record = {"name": name, "size": "small", "trips": 300, "numpy_ms": 4.0, "load_before_timing": 1.25,
              "load_after_timing": 1.5}
    record["npcompile"] = {"status": "match", "ms": 2.0, "speedup": 2.0, "first_call_s": 4.31,
                           "recompiles_first_call": 1, "recompiles_in_repeated_calls": 0}
    record["while_loop"] = {"status": wl_status, "first_call_s": 12.0}
    if wl_status == "match":
        record["while_loop"].update(ms=8.0, speedup=0.5, recompiles_first_call=0, recompiles_in_repeated_calls=0)
    record["eager"] = {"status": "match", "ms": 5.0, "speedup": 0.8}
    return record


def test_table_renders_each_system_and_its_checks():
    lines = probe.format_table([fake_record(), fake_record("heat_3d", "MISMATCH result: values differ")])
    assert lines.splitlines()[0].split() == ["workload", "size", "trips", "numpy", "ms", "npc", "ms", "npc", "x",
                                            "wl", "ms", "wl", "x", "eager", "ms", "eager", "x", "npc", "1st", "s",
                                            "wl", "1st", "s", "recompiles", "checks", "load"]
    first, second = (line.split() for line in lines.splitlines()[2:])
    assert first == ["jacobi_1d", "small", "300", "4.00", "2.00", "2.00", "8.00", "0.50", "5.00", "0.80", "4.3",
                     "12.0", "1/0", "0/0", "match", "1.2-1.5"]
    assert second[6:8] == ["-", "-"] and "while_loop MISMATCH" in " ".join(second)
    assert probe.notes([fake_record("heat_3d", "MISMATCH result: values differ")]) == [
        "  heat_3d small while_loop: MISMATCH result: values differ"]


def test_cold_cache_is_fresh_per_label_and_put_back(tmp_path):
    before = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    with probe.cold_inductor_cache(tmp_path, "a") as folder:
        assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == str(folder) == str(tmp_path / "a")
        assert [p.name for p in folder.iterdir()] in ([], ["npcompile-calibrations"])
    assert os.environ.get("TORCHINDUCTOR_CACHE_DIR") == before
    with pytest.raises(FileExistsError):       # a label is never reused
        with probe.cold_inductor_cache(tmp_path, "a"):
            pass


def test_a_run_on_eager_backends_checks_and_reports(tmp_path):
    assert probe.main(["--sizes", "tiny", "--only", "jacobi_1d,implicit_heat", "--backend", "eager",
                       "--repeat", "2", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "while_loop_probe.json").read_text())
    records = report["records"]
    assert [(r["name"], r["size"]) for r in records] == [("jacobi_1d", "tiny"), ("implicit_heat", "tiny")]
    for r in records:
        assert all(r[s]["status"] == "match" and r[s]["ms"] > 0 for s in probe.SYSTEMS)
        assert r["while_loop"]["recompiles_in_repeated_calls"] == 0
    assert records[0]["trips"] == 5 and records[1]["trips"] > 10
    text = (tmp_path / "while_loop_probe.txt").read_text()
    assert "implicit_heat" in text and "wl 1st s" in text
