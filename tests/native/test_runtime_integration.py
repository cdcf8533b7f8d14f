"""The runtime takes the native path for element-indexing loops (Inductor backend, CPU,
numba installed), remembers refusals, and leaves everything else to tracing."""
import numpy as np
import pytest

import npcompile
from tests.oracle import assert_same

pytest.importorskip("numba")


def forward_substitution(L, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def whole_array_steps(a, steps):
    for _ in range(steps):
        a = 0.5 * (a + np.roll(a, 1))
    return a


def no_loop(a):
    return a * 2.0 + 1.0


def operands(n=12):
    rng = np.random.default_rng(0)
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    return L, rng.random(n)


def test_an_index_loop_runs_as_one_native_kernel_and_matches_numpy():
    jitted = npcompile.jit(forward_substitution)
    for _ in range(3):
        L, b = operands()
        assert_same(forward_substitution(L.copy(), b.copy()), jitted(L, b))
    assert len(jitted._native) == 1 and not jitted.entries and jitted.compile_count == 1
    L, b = operands(20)                          # another size: the same kernel's guard holds
    assert_same(forward_substitution(L.copy(), b.copy()), jitted(L, b))
    assert len(jitted._native) == 1


def test_a_new_dtype_compiles_a_second_kernel():
    jitted = npcompile.jit(forward_substitution)
    L, b = operands()
    jitted(L, b)
    L32, b32 = L.astype(np.float32), b.astype(np.float32)
    assert_same(forward_substitution(L32.copy(), b32.copy()), jitted(L32, b32))
    assert len(jitted._native) == 2


def test_whole_array_loops_are_refused_once_and_traced():
    jitted = npcompile.jit(whole_array_steps)
    a = np.arange(8.0)
    for _ in range(2):
        assert_same(whole_array_steps(a, 3), jitted(a, 3))
    assert not jitted._native and len(jitted.native_refusals) == 1
    assert next(iter(jitted.native_refusals.values()))   # the reason is kept


def test_only_inductor_on_the_cpu_with_a_loop_and_the_setting_on(monkeypatch):
    assert npcompile.jit(forward_substitution, backend="eager")._native is None
    assert npcompile.jit(forward_substitution, fullgraph=True)._native is None
    assert npcompile.jit(no_loop)._native is None
    monkeypatch.setattr(npcompile.config, "native_loops", False)
    assert npcompile.jit(forward_substitution)._native is None


def test_read_only_input_raises_numpys_error():
    jitted = npcompile.jit(lambda x: x.__setitem__(0, 1.0) or [x.__setitem__(i, i) for i in range(3)])
    a = np.zeros(3)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        jitted(a)


def test_a_time_loop_over_small_grids_with_an_inner_solver_loop_is_one_native_kernel():
    """cavity_flow (Navier-Stokes: a Jacobi pressure loop in each time step, helpers,
    ``** 2``) was traced into 4 graphs with 3 breaks; it is one native kernel now, whose
    results and in-place updates of u, v, p are NumPy's."""
    from benchmarks.loop_workloads import by_name
    cavity = by_name(["cavity_flow"])[0]
    jitted = npcompile.jit(cavity.fn)
    for size in ("tiny", "small"):
        args = cavity.inputs(size)
        expected_args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
        expected = cavity.fn(*expected_args)
        assert_same(expected, jitted(*args))
        for before, after in zip(expected_args, args):
            assert_same(before, after)
    assert len(jitted._native) == 1 and not jitted.entries and not jitted.native_refusals
    assert jitted._native[0].bailouts == 0
