"""Fix 8 (tables): NumPy's name tables are taken when npcompile is imported, not at the
first trace, and native loop kernels guard each ``np.<name>``/``math.<name>`` they read
(and refuse names that are not NumPy's or math's own when they compile)."""
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import npcompile
from npcompile.trace import numpy_map
from tests.oracle import assert_same

ROOT = pathlib.Path(__file__).resolve().parents[2]

PATCHED_BEFORE_IMPORT = """
import numpy as np
real_median = np.median
def mine(x):
    return real_median(x) * 100
np.median = mine                    # patched before npcompile is imported
import npcompile
def f(a):
    return np.median(a) + a
a = np.array([1.0, 4.0])
print(f(a).tolist(), npcompile.jit(f, backend="eager")(a).tolist())
def g(a):
    return mine(a) + a
print(g(a).tolist(), npcompile.jit(g, backend="eager")(a).tolist())
np.median = real_median
print(f(a).tolist(), npcompile.jit(f, backend="eager")(a).tolist())
"""


def test_numpy_attribute_patched_before_npcompile_is_imported():
    """A user's function found in numpy's namespace when the tables are built is not
    taken for NumPy's: it is traced as what it is (np.median: the shim itself reads
    some NumPy functions, np.sqrt among them, when it is imported)."""
    done = subprocess.run([sys.executable, "-c", PATCHED_BEFORE_IMPORT], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 3, done.stdout
    for line in lines:
        expected, actual = line.split("] [")
        assert expected + "]" == "[" + actual, line


def test_is_original():
    assert numpy_map.is_original(np, "sqrt", np.sqrt)
    assert numpy_map.is_original(np.linalg, "norm", np.linalg.norm)
    assert numpy_map.is_original(math, "floor", math.floor)
    assert not numpy_map.is_original(np, "sqrt", np.cbrt)
    assert not numpy_map.is_original(np, "sqrt", lambda x: x)
    assert not numpy_map.is_original(math, "floor", np.floor)


def _pi_loop(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * np.pi
    return out


def _dtype_loop(a):
    out = np.zeros(a.shape[0], dtype=np.float32)
    for i in range(a.shape[0]):
        out[i] = a[i] + 1.0
    return out


def _floor_loop(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = math.floor(a[i]) + np.sqrt(a[i])
    return out


def _native(fn, a):
    jitted = npcompile.jit(fn)
    assert_same(fn(a.copy()), jitted(a.copy()), path="call 0")
    assert jitted._native, jitted.native_refusals
    return jitted


@pytest.mark.inductor
@pytest.mark.parametrize("fn, module, name, value", [
    (_pi_loop, np, "pi", 3.0),
    (_dtype_loop, np, "float32", np.float64),
], ids=["np.pi", "np.float32"])
def test_native_kernel_after_a_module_value_was_patched(fn, module, name, value):
    """Constants and types read from np. are guarded too: the patched value is Python's."""
    pytest.importorskip("numba")
    a = np.arange(1.0, 6.0)
    jitted = _native(fn, a)
    real = getattr(module, name)
    setattr(module, name, value)
    try:
        assert_same(fn(a.copy()), jitted(a.copy()), path="call 1 (patched)")
    finally:
        setattr(module, name, real)
    assert_same(fn(a.copy()), jitted(a.copy()), path="call 2 (restored)")


@pytest.mark.inductor
@pytest.mark.parametrize("module, name", [(np, "sqrt"), (np, "floor"), (math, "floor")],
                         ids=["np.sqrt", "np.floor (used by the generated code)", "math.floor"])
def test_native_kernel_compiled_while_a_function_is_patched(module, name):
    """Patched before the first call: the kernel is refused (numba would compile the
    patched object, or the code would lower the name as NumPy's), Python's result
    stands; after the restore the kernel compiles."""
    pytest.importorskip("numba")
    a = np.arange(1.0, 6.0)
    jitted = npcompile.jit(_floor_loop)
    real = getattr(module, name)
    setattr(module, name, lambda x: real(x) * 100)
    try:
        assert_same(_floor_loop(a.copy()), jitted(a.copy()), path="call 0 (patched)")
        assert not jitted._native
        assert "monkeypatched" in str(jitted.native_refusals)
    finally:
        setattr(module, name, real)
    assert_same(_floor_loop(a.copy()), jitted(a.copy()), path="call 1 (restored)")
