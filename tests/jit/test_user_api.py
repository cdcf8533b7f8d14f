"""What a user meets first: logs switched on by name, explain's report, reset, and
functions jit leaves to Python (generators)."""
import itertools
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import npcompile
from npcompile import config
from npcompile.explain import group_guards


def _python(code, **env):
    result = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True,
                            text=True, check=True)
    return result.stdout.strip(), result.stderr


def test_misspelt_log_names_warn_and_list_the_valid_ones():
    out, err = _python("import npcompile; print(sorted(npcompile.config.log_switches))",
                       NPCOMPILE_LOGS="graph_break,recompiles")
    assert out == "['recompiles']"
    assert "graph_break" in err and "graph_breaks" in err and "recompiles" in err and "all" in err


def test_all_switches_every_log_on():
    out, _ = _python("import npcompile; print(sorted(npcompile.config.log_switches))", NPCOMPILE_LOGS="all")
    assert out == str(sorted(config.LOG_NAMES))


def test_set_logs_all_and_off(monkeypatch):
    monkeypatch.setattr(config, "log_switches", set())
    npcompile.set_logs(all=True)
    assert config.log_switches == set(config.LOG_NAMES)
    npcompile.set_logs()
    assert config.log_switches == set()
    with pytest.raises(ValueError, match="graph_breaks"):
        npcompile.set_logs(graph_break=True)


def test_recompiles_log_names_the_failed_guard(caplog):
    npcompile.set_logs(recompiles=True)
    try:
        f = npcompile.jit(lambda a, k: a * k, backend="eager")
        with caplog.at_level("INFO", logger="npcompile"):
            f(np.ones(3), 2)
            f(np.ones(3), 2.5)
    finally:
        npcompile.set_logs()
    assert any("recompil" in r.getMessage() for r in caplog.records)


def test_group_guards_joins_facts_of_one_value_and_drops_repeats():
    lines = group_guards(["a is a ndarray", "a.dtype == float64", "a.shape == (4,)", "a strides == (8,)",
                          "n is a int", "n == 3", "b is not a", "a is a ndarray",
                          "frame 0 (k).locals['c'] is a ndarray", "frame 1 (h).locals['c'] is a ndarray",
                          "builtin print is the same object"])
    assert lines == ["a: ndarray, float64, shape (4,), strides (8,)", "n: int, == 3", "c: ndarray",
                     "h:c: ndarray", "builtin print is the same object", "no two of a, b share memory"]


def test_group_guards_reads_a_held_array_as_the_ndarray_it_is_to_readers():
    """A loop's frame slot that takes an ndarray or a held tensor (trace/held_inputs.py)
    reads as the array's facts, under its local's name."""
    lines = group_guards(["frame 0.locals['u'] is an ndarray or a held tensor of dtype float64, "
                          "shape (3, 2), strides (16, 8)",
                          "frame 1 (h).locals['v'] is an ndarray or a held tensor of dtype int8, shape (), strides ()"])
    assert lines == ["u: ndarray, float64, shape (3, 2), strides (16, 8)", "h:v: ndarray, int8, shape (), strides ()"]


def _kernel(a, b):
    c = a * 2 + b
    print("between")
    return (c * b + a).sum()   # a is read after the break: the second segment guards it too


def test_explain_groups_guards_per_segment_and_says_when_nothing_compiled(capsys):
    report = npcompile.explain(_kernel)(np.ones(4), np.ones(4))
    text = str(report)
    assert report.graph_count == 2 and report.graph_break_count == 1
    assert "from the start of _kernel:" in text and "after the break at" in text
    assert text.count("a: ndarray, float64, shape (4,), strides (8,)") == 2   # once per segment
    assert "frame 0 (_kernel).locals" not in text
    assert "nothing was compiled" in text
    assert len(report.guards) == sum(len(s.descriptions) for s in report.segment_guards)


def test_reset_forgets_entries_dynamic_dims_and_ints():
    f = npcompile.jit(lambda a, n: a * n, backend="eager")
    for size, n in ((3, 2), (4, 5), (5, 7)):
        f(np.ones(size), n)
    assert f.entries and (f.dynamic_dims or f.dynamic_ints)
    npcompile.reset()
    assert not f.entries and not f.dynamic_dims and not f.dynamic_ints and not f.device_entries
    assert not npcompile.compile_times(as_table=False)
    np.testing.assert_array_equal(f(np.ones(2), 3), np.full(2, 3.0))


def _prefix_sums(a):
    out = np.empty_like(a)
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i]
        out[i] = total
    return out


def test_reset_forgets_native_loop_kernels():
    pytest.importorskip("numba")
    f = npcompile.jit(_prefix_sums)
    a = np.arange(6.0)
    np.testing.assert_array_equal(f(a), _prefix_sums(a))
    assert f._native and f.compile_count == 1
    npcompile.reset()
    assert not f._native and not f.native_refusals and f.compile_count == 0
    np.testing.assert_array_equal(f(a), _prefix_sums(a))
    assert len(f._native) == 1


def test_import_leaves_the_compiler_unloaded():
    """``import npcompile`` costs about ``import torch``: torch's tracing machinery (and
    sympy under it) and Inductor load at the first compile, not at import."""
    code = ("import sys, npcompile; print(sorted(m for m in ('sympy', 'torch._inductor', "
            "'torch.fx.experimental.symbolic_shapes') if m in sys.modules))")
    assert _python(code)[0] == "[]"
    code = ("import sys, numpy, npcompile; npcompile.jit(lambda a: a + 1, backend='eager')(numpy.ones(2)); "
            "print('torch.fx.experimental.symbolic_shapes' in sys.modules)")
    assert _python(code)[0] == "True"


def _naturals(a):
    for i in itertools.count():
        yield a * i


def test_generator_functions_stay_lazy():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jitted = npcompile.jit(_naturals)
    assert any("generator" in str(w.message) for w in caught)
    values = jitted(np.ones(2))   # infinite: must not run at call time
    assert [float(next(values)[0]) for _ in range(3)] == [0.0, 1.0, 2.0]
