"""Fix 8 (casts): float -> uint32/uint64 casts agree with NumPy under Inductor, and
argsort's unstable kinds give NumPy's own order of ties on the CPU."""
import platform
import warnings

import numpy as np
import pytest

import torch_numpy_shim as shim
from tests.jit.harness import check_jit, check_jit_calls
from tests.oracle import check

BACKENDS = ["eager", pytest.param("inductor", marks=pytest.mark.inductor)]
X86 = platform.machine().lower() in ("x86_64", "amd64")


# ---- float -> uint32 / uint64 ---------------------------------------------------------------
#: Values NumPy casts to uint64 (and, those in [-2**31, 2**32), to uint32) without a warning.
QUIET = [-2.0, -70000.5, 3.0, -0.5, 0.0, -0.0, 2.0 ** 31, 2.0 ** 32 - 1, -2.0 ** 31, 1e12, -1e12,
         2.0 ** 63, 1.5e19, 2.0 ** 64 - 2 ** 11, -2.0 ** 63, 12345.99]
#: Values NumPy warns about ("invalid value encountered in cast"), with x86 results.
INVALID = [np.nan, np.inf, -np.inf, 2.0 ** 64, 3e19, -1e19, -2.0 ** 63 * 1.5]


def into_unsigned(a, u64, u32):
    u64[...] = a
    np.copyto(u32, a, casting="unsafe")
    return u64, u32


def _quiet_input(src, target):
    """The QUIET values that ``src`` holds (rounded) inside ``target``'s quiet range."""
    low, high = (-2.0 ** 63, 2.0 ** 64) if target == np.uint64 else (-2.0 ** 31, 2.0 ** 32)
    with np.errstate(over="ignore"):
        values = [v for v in np.array(QUIET, src) if low <= float(v) < high]
    return np.array(values * 3, src)


@pytest.mark.parametrize("src", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("backend", BACKENDS)
def test_quiet_float_to_wide_unsigned_values(src, backend):
    a64, a32 = _quiet_input(src, np.uint64), _quiet_input(src, np.uint32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # NumPy is silent on these
        a64.astype(np.uint64)
        a32.astype(np.uint32)
    check_jit(lambda a, b: (a.astype(np.uint64), b.astype(np.uint32)), a64, a32, backend=backend,
              graphs=None, calls=2)
    check_jit(into_unsigned, a32, np.zeros(a32.shape, np.uint64), np.zeros(a32.shape, np.uint32),
              backend=backend, graphs=None)


@pytest.mark.skipif(not X86, reason="out-of-range float -> int conversions are x86's here")
@pytest.mark.parametrize("src", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("backend", BACKENDS)
def test_invalid_float_to_uint64_values(src, backend):
    """nan/inf/out of range: NumPy warns and gives x86's values, which the shim follows.
    (To uint32 NumPy's vectorized and scalar loops give different values: not compared.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = np.array((QUIET + INVALID) * 2, src)
        check_jit(lambda a: a.astype(np.uint64), a, backend=backend, graphs=None, calls=2)


@pytest.mark.parametrize("src", [np.float64, np.float32, np.float16])
def test_shim_float_to_wide_unsigned(src):
    a = _quiet_input(src, np.uint32)
    check(lambda xp, a: (a.astype(xp.uint64), a.astype(xp.uint32), xp.asarray(a, dtype=xp.uint64)), a)


def test_float_to_narrow_unsigned_and_signed_unchanged():
    a = np.array([-2.0, -70000.5, 3.0, 255.5, 65535.0, -0.5])
    check(lambda xp, a: (a.astype(xp.uint8), a.astype(xp.uint16), a.astype(xp.int32), a.astype(xp.int64)), a)


# ---- argsort's unstable kinds -------------------------------------------------------------
TIES = np.array([3, 1, 2, 1, 3, 0, 1])


def _tie_inputs():
    rng = np.random.default_rng(8)
    ints = rng.integers(0, 4, size=(6, 40))
    floats = np.where(rng.random((6, 40)) < 0.2, np.nan, ints * 0.5)
    floats[0, :5] = -0.0
    return {
        "int64": ints,
        "int8": ints.astype(np.int8),
        "uint64": ints.astype(np.uint64) + np.uint64(2 ** 63),
        "uint16": ints.astype(np.uint16),
        "bool": ints > 1,
        "float64_nan": floats,
        "float32": floats.astype(np.float32),
        "float16": floats.astype(np.float16),
        "complex128": floats + 1j * ints[::-1],
        "transposed": ints.T,
        "strided": ints[:, ::3],
    }


def argsorts(a):
    return (np.argsort(a), np.argsort(a, axis=0), np.argsort(a, axis=None), a.argsort(kind="heapsort"),
            np.argsort(a, kind="quicksort"), a.argsort(stable=False), np.argsort(a, kind="stable"),
            np.argsort(a, kind="mergesort", axis=0))


@pytest.mark.parametrize("name", list(_tie_inputs()))
def test_shim_argsort_orders_ties_as_numpy(name):
    a = _tie_inputs()[name]
    check(lambda xp, a: (xp.argsort(a), xp.argsort(a, axis=0), xp.argsort(a, axis=None),
                         a.argsort(kind="heapsort"), xp.argsort(a, kind="Q"), a.argsort(stable=False),
                         xp.argsort(a, kind="stable")), a)


@pytest.mark.parametrize("name", ["int64", "float64_nan", "complex128", "uint64", "transposed"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_jit_argsort_orders_ties_as_numpy(name, backend):
    check_jit(argsorts, _tie_inputs()[name], backend=backend, graphs=1, calls=2)


def ranks(a):
    order = np.argsort(a * 2)
    r = np.empty_like(order)
    r[order] = np.arange(a.shape[0])
    return r, order[0], np.take_along_axis(a, order, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_argsort_inside_a_graph_with_changing_sizes(backend):
    calls = [(TIES,), (np.tile(TIES, 5),), (np.tile(TIES, 9)[:-2],), (np.array([1]),), (np.array([], int),)]
    check_jit_calls(ranks, calls, backend=backend)


@pytest.mark.parametrize("obj", [np.array(5.0), [3, 1, 3, 1], np.zeros((0, 3)), np.ones((2, 0))])
def test_shim_argsort_degenerate(obj):
    check(lambda xp: (xp.argsort(obj), xp.argsort(obj, axis=None)))


def test_lexsort_stays_stable():
    keys = (np.array([1, 1, 0, 0, 1]), np.array([2, 2, 2, 2, 2]))
    check(lambda xp: xp.lexsort(keys))
    assert list(shim.to_numpy(shim.lexsort(keys))) == [2, 3, 0, 1, 4]
