"""Index arrays, unsigned dtypes, shifts and loops over arrays in native kernels, against
NumPy: ``x[idx]`` wraps negative (and uint64) indices and an index out of bounds is
NumPy's IndexError; NumPy scalar uint arithmetic warns when it wraps, shifts wrap
silently and give 0 past the width, Python ints out of an unsigned range raise
OverflowError, uint64 compares exactly with signed ints. Where the kernel must not
decide (an out-of-bounds index, an overflow) it hands the call to NumPy; elsewhere
``kernel.bailouts`` shows it ran natively."""
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npcompile
from benchmarks.loop_workloads import crc16_ccitt
from benchmarks.loop_workloads import spmv as spmv_workload
from tests.native.helpers import check_against_numpy, compiled
from tests.native.test_native_semantics import add_python_int
from tests.oracle import assert_same

pytest.importorskip("numba")

SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
VALUES = ["float64", "float32", "int32", "uint8", "bool"]


def copies(*values):
    return lambda: tuple(v.copy() if isinstance(v, np.ndarray) else v for v in values)


def native(fn, *args, rtol=None):
    """Compare one call with NumPy and say whether the kernel ran without NumPy's help."""
    kernel = compiled(fn, copies(*args)())
    assert kernel, kernel
    before = kernel.bailouts
    assert check_against_numpy(fn, copies(*args), rtol=rtol) is kernel
    return kernel.bailouts == before


# ---- kernels ---------------------------------------------------------------------------------
def pick(x, idx):
    return x[idx]


def pick_rows(x, idx, bounds):
    """Sums of ``x`` over index windows (spmv's shape: a slice of the index array)."""
    out = np.zeros(bounds.shape[0] - 1, dtype=x.dtype)
    for r in range(bounds.shape[0] - 1):
        lo, hi = bounds[r], bounds[r + 1]
        out[r] = x[idx[lo:hi]] @ x[idx[lo:hi]]
    return out


def put(x, idx):
    x[idx] = 0


def add_through(x, idx):
    x[idx] += 1


def running_sum(a):
    t = a[0]
    for i in range(1, a.shape[0]):
        t = t + a[i]
    return t


def differences(a):
    t = a[0]
    for i in range(1, a.shape[0]):
        t = t - a[i]
    return t


def shifted(a, b):
    left, right = np.empty_like(a), np.empty_like(a)
    for i in range(a.shape[0]):
        left[i] = a[i] << b[i]
        right[i] = a[i] >> b[i]
    return left, right


def shifted_by_python_int(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = (a[i] << k) ^ (a[i] >> k)
    return out


def quotients(a, b):
    q, r = np.empty_like(a), np.empty_like(a)
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
    return q, r


def count_less(a, b):
    count = 0
    for i in range(a.shape[0]):
        if a[i] < b[i]:
            count += 1
        if b[i] >= a[i]:
            count += 10
    return count


def above_python_int(a, k):
    count = 0
    for v in a:
        if v > k:
            count += 1
    return count


def as_uint16(k, a):
    x = np.uint16(k)
    for v in a:
        x = x ^ np.uint16(v)
    return x


def store_scalar(a, v):
    for i in range(a.shape[0]):
        a[i] = v


def element_sum(a):
    total = a[0] - a[0]
    for v in a:
        total = total | v
    return total


def wrapping_arrays(a, b):
    return a - b, a + 1, a * b


def dots_and_extremes(a, b):
    return a @ b, np.max(a), np.min(b)


# ---- index arrays -----------------------------------------------------------------------------
def index_arrays(dtypes, low, high):
    return st.sampled_from(dtypes).flatmap(
        lambda dt: hnp.arrays(dt, st.integers(0, 7), elements=st.integers(max(low, np.iinfo(dt).min),
                                                                           min(high, np.iinfo(dt).max))))


@given(hnp.arrays(st.sampled_from(VALUES), st.integers(0, 6)), index_arrays(SIGNED + UNSIGNED, -8, 8))
@example(np.arange(5.0), np.array([-1, -5, 4, 0], np.int8))
@example(np.arange(5.0), np.array([5], np.int64))
@example(np.arange(5.0), np.array([-6], np.int64))
@example(np.arange(5.0), np.array([2 ** 64 - 1, 2 ** 63], np.uint64))     # NumPy casts to intp: -1, then out
@example(np.zeros(0), np.zeros(0, np.int32))
def test_gather_matches_numpy_including_index_errors(x, idx):
    ran_natively = native(pick, x, idx)
    n = x.shape[0]
    in_bounds = all(-n <= int(np.int64(i)) < n for i in idx.astype(np.int64))
    assert ran_natively == in_bounds      # NumPy raises IndexError exactly where the kernel bails


def test_gather_wraps_negative_and_uint64_indices_natively():
    x = np.arange(10, 15, dtype=np.uint16)
    assert native(pick, x, np.array([-1, -5, 2], np.int16))
    assert native(pick, x, np.array([2 ** 64 - 1, 3], np.uint64))


@given(hnp.arrays(st.sampled_from(VALUES), st.integers(0, 6)), hnp.arrays(np.bool_, st.integers(0, 7)))
def test_bool_mask_matches_numpy_including_length_errors(x, mask):
    assert native(pick, x, mask) == (mask.shape[0] == x.shape[0])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint32"])
def test_gathered_windows_as_in_spmv(dtype):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(9) * 10).astype(dtype)
    idx = rng.integers(-9, 9, 14).astype(np.int32)
    bounds = np.array([0, 3, 3, 8, 14], np.int64)
    assert native(pick_rows, x, idx, bounds, rtol=1e-5)
    assert not native(pick_rows, x, np.append(idx[:-1], 9).astype(np.int32), bounds)   # out of bounds


@pytest.mark.parametrize("fn, x, idx, reason", [
    (put, np.zeros(3), np.array([0, 1]), "store through an index array"),
    (add_through, np.zeros(3), np.array([0, 1]), "store through an index array"),
    (pick, np.zeros(3), np.array([0.0, 1.0]), "dtype float64"),
    (pick, np.zeros(3), np.zeros((2, 2), np.int64), "1-D"),
    (pick, np.zeros((3, 3)), np.array([0, 1]), "1-D"),
])
def test_index_array_refusals_name_the_reason(fn, x, idx, reason):
    kernel = compiled(fn, (x, idx))
    assert not kernel and reason in kernel.reason


# ---- unsigned arithmetic ----------------------------------------------------------------------
def unsigned_arrays(min_size=1, max_size=6):
    return st.sampled_from(UNSIGNED).flatmap(lambda dt: hnp.arrays(dt, st.integers(min_size, max_size)))


@given(unsigned_arrays())
@example(np.array([65535, 1], np.uint16))
@example(np.array([2 ** 64 - 1, 1], np.uint64))
@example(np.array([0, 1], np.uint8))
def test_scalar_wraparound_warns_as_numpy_does(a):
    """NumPy's uint scalars warn "overflow encountered in scalar add/subtract": bail."""
    for fn in (running_sum, differences):
        check_against_numpy(fn, copies(a))
    assert native(running_sum, np.array([1, 2, 3], a.dtype))


@given(unsigned_arrays(max_size=3), st.sampled_from([0, 1, 255, 256, -1, 2 ** 40, -(2 ** 63)]))
def test_python_ints_must_fit_the_unsigned_type(a, k):
    check_against_numpy(add_python_int, copies(a, k))


@given(st.sampled_from(SIGNED + UNSIGNED).flatmap(
    lambda dt: st.tuples(hnp.arrays(dt, 5), hnp.arrays(dt, 5, elements=st.integers(
        max(np.iinfo(dt).min, -3), min(np.iinfo(dt).max, 70))))))
@example((np.array([0x8000, 3, 1, 7, 255], np.uint16), np.array([1, 16, 15, 17, 70], np.uint16)))
@example((np.array([-64, -1, 64, 1, 5], np.int8), np.array([2, -1, 9, 7, 8], np.int8)))
@example((np.array([2 ** 63, 1, 3, 5, 7], np.uint64), np.array([1, 63, 64, 2 ** 64 - 1, 0], np.uint64)))
def test_shifts_wrap_silently_and_vanish_past_the_width(pair):
    a, b = pair
    assert native(shifted, a, b)


@pytest.mark.parametrize("k", [0, 1, 7, 8, 9, 100, -1])
@pytest.mark.parametrize("dtype", ["uint8", "uint64", "int8", "int32"])
def test_shifts_by_python_ints(dtype, k):
    """A negative Python int amount is NumPy's OverflowError for unsigned types."""
    a = np.array([1, 3, 100, 127], dtype)
    check_against_numpy(shifted_by_python_int, copies(a, k))


def test_shifts_of_two_python_ints_and_of_arrays_are_refused():
    def python_shift(n):
        t = 1
        for _ in range(n):
            t = t << 1
        return t

    def array_shift(a):
        for _ in range(2):
            a = a << 1
        return a
    assert "Python ints" in compiled(python_shift, (3,)).reason
    assert "shift of arrays" in compiled(array_shift, (np.ones(3, np.uint8),)).reason


@given(st.sampled_from(UNSIGNED).flatmap(lambda dt: st.tuples(hnp.arrays(dt, 4), hnp.arrays(dt, 4))))
@example((np.array([7, 7, 0, 3], np.uint64), np.array([0, 2, 0, 5], np.uint64)))
def test_unsigned_division_by_zero_warns(pair):
    check_against_numpy(quotients, copies(*pair))


@given(hnp.arrays(np.uint64, 4, elements=st.sampled_from([0, 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1])),
       st.sampled_from(["int64", "int8", "uint8", "uint64"]),
       st.lists(st.sampled_from([-1, 0, 1, 127]), min_size=4, max_size=4))
def test_uint64_compares_exactly_with_signed_ints(a, dtype, values):
    b = np.array(values).astype(dtype)      # -1 wraps for the unsigned dtypes
    assert native(count_less, a, b)
    assert native(count_less, b, a)


@pytest.mark.parametrize("k", [-1, 0, 5, 2 ** 63 - 1])
def test_uint64_against_python_ints(k):
    assert native(above_python_int, np.array([0, 5, 2 ** 63, 2 ** 64 - 1], np.uint64), k)


def test_uint64_array_comparison_with_signed_arrays_is_refused():
    def less(a, b):
        return a < b
    kernel = compiled(less, (np.zeros(2, np.uint64), np.zeros(2, np.int64)))
    assert not kernel and "exactly" in kernel.reason


@pytest.mark.parametrize("k", [0, 65535, 65536, -1])
@pytest.mark.parametrize("dtype", ["uint8", "int64", "uint64", "int8"])
def test_scalar_constructor_checks_python_ints_and_wraps_numpy_ints(k, dtype):
    a = np.array([-1 if np.dtype(dtype).kind == "i" else 255, 7], dtype)
    assert native(as_uint16, k, a) == (0 <= k < 2 ** 16)


@pytest.mark.parametrize("v", [300, -1, 255, np.int64(300), np.int64(-1), np.uint16(300), np.uint64(2 ** 63),
                               True, np.uint8(9)])
@pytest.mark.parametrize("dtype", ["uint8", "int64", "uint64"])
def test_stores_into_unsigned_and_from_unsigned(dtype, v):
    """Python ints out of range raise; NumPy scalars wrap (NumPy's unsafe cast on store)."""
    check_against_numpy(store_scalar, copies(np.zeros(3, dtype), v))


@given(unsigned_arrays(max_size=6).filter(lambda a: a.size))
def test_for_over_an_unsigned_array(a):
    assert native(element_sum, a)
    strided = np.repeat(a, 2)[::-2]
    assert native(element_sum, strided)


@given(st.sampled_from(UNSIGNED).flatmap(lambda dt: st.tuples(hnp.arrays(dt, 4), hnp.arrays(dt, 4))))
@example((np.array([0, 1, 255, 2], np.uint8), np.array([1, 255, 255, 200], np.uint8)))
def test_unsigned_arrays_wrap_silently(pair):
    assert native(wrapping_arrays, *pair)
    assert native(dots_and_extremes, *pair)


# ---- the two workloads this was written for ------------------------------------------------------
crc16, spmv = crc16_ccitt, spmv_workload   # the loop workloads themselves


@pytest.mark.parametrize("init", [0, 0xFFFF, 0x1D0F])
def test_crc16_returns_numpys_uint16(init):
    data = np.frombuffer(b"123456789", np.uint8).copy()
    assert native(crc16, data, init)
    assert compiled(crc16, (data, init))(data, init) == (0x29B1 if init == 0xFFFF else crc16(data, init))


def test_crc16_init_out_of_range_is_numpys_overflow_error():
    data = np.ones(3, np.uint8)
    assert not native(crc16, data, 70000)
    assert not native(crc16, data, -1)


def test_the_runtime_runs_spmv_and_crc16_as_native_kernels():
    rng = np.random.default_rng(0)
    indptr = np.array([0, 2, 2, 5], np.int32)
    indices = np.array([0, 3, 1, -1, 2], np.int32)
    data, x = rng.standard_normal(5), rng.standard_normal(4)
    for fn, args in ((spmv, (indptr, indices, data, x)), (crc16, (rng.integers(0, 256, 20, np.uint8), 0))):
        jitted = npcompile.jit(fn)
        for _ in range(2):
            assert_same(fn(*copies(*args)()), jitted(*args))
        assert len(jitted._native) == 1 and not jitted.entries, jitted.native_refusals


def plus_float32(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] + k
    return out, np.float32(k)


@pytest.mark.parametrize("k", [2 ** 60 + 2 ** 36 + 1, 3, -(2 ** 62) - 2 ** 38 - 1])
def test_python_int_to_float32_rounds_through_a_double(k):
    """NumPy converts a Python int to float32 through a double (two roundings): numba's
    direct conversion would round 2**60 + 2**36 + 1 up, NumPy rounds it to 2**60."""
    assert native(plus_float32, np.zeros(2, np.float32), k, rtol=0)
