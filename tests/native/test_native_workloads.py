"""The index-loop workloads (benchmarks/loop_workloads.py) as native kernels: each one
compiles, runs natively (no fallback to NumPy) on its own inputs and matches NumPy; then
hypothesis varies dtypes, sizes (0 and 1 included), read-only flags, negative strides,
Fortran order and strided views, and every outcome must still be NumPy's (or a refusal)."""
import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from benchmarks import loop_workloads as lw
from npcompile.native import try_compile
from tests.native.helpers import check_against_numpy, compiled

pytest.importorskip("numba")

# loop kernels: the native path takes them as they are written
LOOP_KERNELS = ["cholesky", "lu", "lu_solve", "durbin", "trisolv", "gramschmidt", "syrk", "syr2k", "trmm",
                "nussinov", "seidel_2d", "spmv", "crc16_ccitt",
                "adi", "deriche", "vadv",     # sweeps along an axis, helpers called in the loop
                "cavity_flow", "channel_flow"]    # whole small arrays in nested loops (rolls, squares)
# provably NumPy's natively too, but whole-array work the policy leaves to the traced path
WHOLE_ARRAY = ["floyd_warshall", "jacobi_1d", "fdtd_2d", "conv2d", "jacobi_2d", "heat_3d"]
NATIVE = LOOP_KERNELS + WHOLE_ARRAY

# sizes hypothesis may hand each workload's input builder (0 and 1 where the builder allows)
SIZES = {
    "cholesky": [0, 1, 2, 5], "lu": [0, 1, 2, 5], "lu_solve": [1, 2, 5], "durbin": [1, 2, 7],
    "trisolv": [0, 1, 2, 7], "gramschmidt": [(1, 1), (3, 2), (5, 5), (6, 3)],
    "syrk": [(1, 1), (4, 3)], "syr2k": [(1, 1), (4, 3)], "trmm": [(1, 1), (4, 3)],
    "floyd_warshall": [0, 1, 2, 6], "nussinov": [0, 1, 2, 3, 9], "seidel_2d": [(1, 1), (3, 2), (6, 2)],
    "jacobi_1d": [(1, 1), (3, 2), (9, 3)], "fdtd_2d": [(1, 1, 1), (3, 4, 2)], "conv2d": [(3, 3), (6, 2)],
    "spmv": [(1, 1, 1), (3, 4, 2), (6, 5, 3)], "crc16_ccitt": [0, 1, 9],
    "adi": [(3, 1), (4, 2), (6, 2)], "deriche": [(1, 1), (2, 3), (5, 4)], "vadv": [(1, 1, 1), (2, 3, 2), (3, 1, 4)],
    "jacobi_2d": [(3, 1), (5, 2)], "heat_3d": [(3, 1), (4, 2)],
    "cavity_flow": [(2, 1, 1), (3, 1, 2), (5, 2, 3)], "channel_flow": [(2, 2, 1, 1), (3, 4, 2, 2), (5, 3, 1, 3)],
}


def workload(name):
    return lw.by_name([name])[0]


def fresh(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


# small sizes of these take seconds in NumPy: the tiny size covers them
_TINY_ONLY = ("vadv", "conv2d", "fdtd_2d", "syrk", "syr2k", "trmm", "jacobi_2d", "heat_3d")


@pytest.mark.parametrize("name, size", [(name, size) for name in NATIVE for size in ("tiny", "small")
                                        if size == "tiny" or name not in _TINY_ONLY])
def test_workload_runs_natively_and_matches_numpy(name, size):
    w = workload(name)
    args = w.inputs(size)
    kernel = compiled(w.fn, fresh(args))
    assert kernel, kernel
    before = kernel.bailouts
    assert check_against_numpy(w.fn, lambda: fresh(args), rtol=w.rtol) is kernel
    assert kernel.bailouts == before, "the workload's own inputs must not need NumPy"


@pytest.mark.parametrize("name", LOOP_KERNELS + WHOLE_ARRAY)
def test_loop_kernel_policy(name):
    """The default policy takes loops over elements and slices, and whole small arrays in
    nested loops, not whole-array loops (at the size the benchmarks run)."""
    w = workload(name)
    kernel = try_compile(w.fn, w.inputs("tiny" if name in LOOP_KERNELS else "small"))
    if name in LOOP_KERNELS:
        assert kernel, kernel
    else:
        assert not kernel and kernel.reason.startswith("not a loop kernel")


def test_nested_whole_array_loops_are_native_on_small_arrays_only():
    """cavity_flow's kernel guards the size it was taken for (a larger call is refused and
    takes the traced path); conv2d (nested window loops) is native on a tiny image only."""
    cavity = workload("cavity_flow")
    kernel = try_compile(cavity.fn, cavity.inputs("tiny"))
    assert kernel and kernel.max_elements == 65536
    small = cavity.inputs("small")
    assert kernel.guard(fresh(small))
    big = list(small)
    big[2] = np.zeros((257, 256))
    assert not kernel.guard(tuple(big))
    refusal = try_compile(cavity.fn, tuple(big))
    assert not refusal and "nested loops, on arrays of 65792 elements" in refusal.reason
    conv = workload("conv2d")
    assert try_compile(conv.fn, conv.inputs("tiny"))
    assert not try_compile(conv.fn, conv.inputs("small"))
    assert try_compile(workload("cholesky").fn, workload("cholesky").inputs("tiny")).max_elements is None


def test_second_call_reuses_the_kernel_and_its_guard_rejects_other_types():
    w = workload("cholesky")
    args = w.inputs("tiny")
    kernel = check_against_numpy(w.fn, lambda: fresh(args))
    assert kernel.guard(fresh(args)) and kernel.guard(fresh(w.inputs("small")))
    assert not kernel.guard((args[0].astype(np.float32),))
    assert not kernel.guard((np.asfortranarray(args[0]),))
    readonly = args[0].copy()
    readonly.flags.writeable = False
    assert not kernel.guard((readonly,))
    assert not kernel.guard((args[0][:, :, None],))
    assert not kernel.guard((args[0].tolist(),))


# ---- hypothesis: layouts, flags, dtypes, sizes ------------------------------------------------
def relayout(array, how, writeable):
    """The same values as ``array`` in another memory layout (a view where it can be)."""
    if how == "F":
        out = np.asfortranarray(array)
    elif how == "negative":
        out = np.flip(np.flip(array).copy())
    elif how == "strided":
        big = np.zeros((2 * array.shape[0],) + array.shape[1:], array.dtype)
        big[::2] = array
        out = big[::2]
    else:
        out = array.copy()
    if out.base is None and how != "C":
        out = out.view()
    out.flags.writeable = writeable
    return out


def retype(value, dtype):
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fi":
        return value
    if dtype in ("float32", "float64"):
        return value.astype(dtype) if value.dtype.kind == "f" else value
    return value.astype(dtype) if value.dtype.kind == "i" else (value * 10).astype(dtype)


@st.composite
def variants(draw, name):
    size = draw(st.sampled_from(SIZES[name]))
    dtype = draw(st.sampled_from(["float64", "float32", "int32", "int64"]))
    w = workload(name)
    base = w.build(np.random.default_rng(w.seed), size)
    arrays = [i for i, a in enumerate(base) if isinstance(a, np.ndarray)]
    layouts = {i: draw(st.sampled_from(["C", "F", "negative", "strided"])) for i in arrays}
    writeable = {i: draw(st.booleans()) if draw(st.integers(0, 3)) == 0 else True for i in arrays}
    note(f"size={size} dtype={dtype} layouts={layouts} writeable={writeable}")

    def make():
        return tuple(relayout(retype(a, dtype), layouts[i], writeable[i]) if i in arrays else a
                     for i, a in enumerate(base))
    return make


def hypothesis_case(name):
    @settings(max_examples=12)
    @given(data=st.data())
    def case(data):
        make = data.draw(variants(name))
        check_against_numpy(workload(name).fn, make, rtol=1e-4)
    return case


@pytest.mark.parametrize("name", sorted(SIZES))
def test_workload_variants_match_numpy_or_are_refused(name):
    hypothesis_case(name)()


@pytest.mark.parametrize("name", ["cholesky", "lu", "trisolv", "seidel_2d", "gramschmidt", "durbin"])
def test_float32_versions(name):
    """float32 inputs keep float32 arithmetic (Python float constants are weak): native,
    except durbin, whose ``beta = 1.0`` is a Python float before the loop and float32
    inside it (one variable, two dtypes: numba would keep float64, so it is refused)."""
    w = workload(name)
    kernel = check_against_numpy(w.fn, lambda: tuple(retype(a, "float32") for a in w.inputs("tiny")), rtol=1e-4)
    if name == "durbin":
        assert not kernel and "sometimes" in kernel.reason
    else:
        assert kernel, kernel
