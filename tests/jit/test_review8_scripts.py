"""Review 8a: silent wrong answers on scientific-script idioms (NumPy is the oracle).

Each bug is one strict xfail, compared with ``check_jit`` (type, dtype, shape, values,
aliasing, inputs afterwards), called twice so the second call hits the cache. Found by
running the same idioms through NumPy and ``npcompile.jit`` (eager and Inductor
backends) over C, Fortran, negative-stride and read-only inputs; the idioms that
matched (in-place updates with overlaps, repeated fancy indices, ``ufunc.at``, raising
midway, views and scalars as results, linalg, Generators, FFTs, scans, sets, masks,
PolyBench index loops, native loops) are not repeated here.
"""
import warnings

import numpy as np
import pytest

import npcompile
from tests.jit.harness import check_jit

BACKENDS = ["eager", pytest.param("inductor", marks=pytest.mark.inductor)]


# ---- strides of an input with negative strides ------------------------------------------
def strides_of(a):
    return a.strides


def walk_forward(a):
    # a script that undoes a reversed layout by looking at its strides
    if a.strides[0] < 0:
        return a[::-1] * 1.0
    return a * 2.0


@pytest.mark.parametrize("fn", [strides_of, walk_forward])
@pytest.mark.parametrize("backend", BACKENDS)
def test_strides_of_an_input_with_negative_strides(fn, backend):
    """``a = np.arange(6.0)[::-1]``: NumPy's ``a.strides`` is ``(-8,)``; the jitted function
    reads ``(8,)`` (a 2-D ``[::-2, ::-1]`` view: ``(-96, -8)`` vs ``(48, 8)``), so a branch on
    the sign of a stride takes the other arm and ``walk_forward`` returns ``2 * a``
    ([10, 8, ...]) where NumPy returns ``a[::-1]`` ([0, 1, ...]). Strides of views made
    inside the function and the contiguity flags of the input are NumPy's."""
    check_jit(fn, np.arange(6.0)[::-1], backend=backend, graphs=None, calls=2)


def layout_facts(a):
    return a.strides, a.flags.c_contiguous, a.flags.aligned


def packed_field():
    records = np.zeros(4, dtype=[("pad", "u1"), ("x", "f8")])
    records["x"] = np.arange(4.0)
    return records["x"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_layout_facts_of_a_packed_field_input(backend):
    """A float64 field of a packed record array (``[("pad", "u1"), ("x", "f8")]``): NumPy's
    ``a.strides`` is ``(9,)``, ``a.flags.c_contiguous`` and ``a.flags.aligned`` False; the
    jitted function reads ``(8,)``, True, True (the README: misaligned arrays enter as
    aligned copies; the copy's facts leak into the function). ``flags.writeable`` and
    ``owndata`` are answered from the caller's array, these are not."""
    check_jit(layout_facts, packed_field(), backend=backend, graphs=None, calls=2)


# ---- memory order of results computed from a reversed Fortran-ordered input -----------------
def results_in_k_order(a):
    return a + 1, a.copy("K"), np.empty_like(a), np.zeros_like(a), a.astype(np.float32)


def reversed_fortran_inputs():
    f = np.asfortranarray(np.arange(24.0).reshape(4, 6))
    return {"F[::-1]": f[::-1], "F[:, ::-1]": f[:, ::-1], "C.T[::-1]": np.arange(24.0).reshape(4, 6).T[::-1]}


@pytest.mark.parametrize("layout", ["F[::-1]", "F[:, ::-1]", "C.T[::-1]"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_k_order_results_of_a_reversed_fortran_input(layout, backend):
    """``a = np.asfortranarray(x)[::-1]`` (also ``[:, ::-1]``, ``x.T[::-1]``): NumPy's
    ``a + 1``, ``a.copy("K")``, ``empty_like``/``zeros_like`` and ``astype`` follow the
    input's memory order (strides ``(8, 32)``, F-contiguous); the jitted function's are
    C-ordered ``(48, 8)``, inside the function (``.strides``, ``.flags``) and as returned.
    Values are equal. A reversed C-ordered input (``x[::-1]``, ``x[:, ::-2]``) and a
    plain F input keep NumPy's order. Guess: the reversed input enters as a C-contiguous
    flipped copy, so ``order='K'`` sees C order (README: the layout contract)."""
    a = reversed_fortran_inputs()[layout]
    expected = results_in_k_order(a)
    jitted = npcompile.jit(results_in_k_order, backend=backend)
    for _ in range(2):      # the second call hits the cache
        actual = jitted(a)
        for k in (0, 1, 3, 4):      # empty_like's values are arbitrary
            np.testing.assert_array_equal(actual[k], expected[k])
        assert [r.strides for r in actual] == [r.strides for r in expected]


# ---- argsort's default (unstable) order of ties -------------------------------------------
def argsort_default(a):
    return np.argsort(a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_argsort_default_kind_orders_ties_as_numpy(backend):
    """``np.argsort(a)`` (kind='quicksort', NumPy's default) of
    ``[3, 1, 2, 1, 3, 0, 1]``: NumPy 2.4 on this machine (its SIMD sort) returns
    ``[5, 1, 6, 3, 2, 0, 4]``; the shim always sorts stably
    (``torch_numpy_shim/_sorting.py`` ``argsort`` -> ``stable_argsort``) and returns
    ``[5, 1, 3, 6, 2, 0, 4]``. Integer results are meant to be exact; a script picking
    ``order[0]`` among ties gets another index. Skipped where NumPy's own default order is
    the stable one (a CPU without its SIMD sort)."""
    a = np.array([3, 1, 2, 1, 3, 0, 1])
    if np.array_equal(np.argsort(a), np.argsort(a, kind="stable")):
        pytest.skip("NumPy's default argsort is stable for this input on this CPU")
    check_jit(argsort_default, a, backend=backend, graphs=None, calls=2)


# ---- warnings turned into errors inside the function --------------------------------------
def reciprocal_or_zeros(a):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            r = 1.0 / a
        except RuntimeWarning:
            r = np.zeros_like(a)
    return r


def log_or_copy(a):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning)
        try:
            r = np.log(a)
        except RuntimeWarning:
            r = a.copy()
    return r


def fill_or_flag(a, out):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            out[:] = 1.0 / a
            out[0] = 7
        except RuntimeWarning:
            out[1] = -1
    return out


@pytest.mark.parametrize("fn, args", [
    (reciprocal_or_zeros, (np.array([1.0, 0.0]),)),
    (log_or_copy, (np.array([1.0, -1.0]),)),
    (fill_or_flag, (np.array([1.0, 0.0]), np.zeros(2))),
], ids=["reciprocal_or_zeros", "log_or_copy", "fill_or_flag"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_runtime_warning_caught_as_an_error_inside_the_function(fn, args, backend):
    """The idiom ``with warnings.catch_warnings(): warnings.simplefilter("error"); try:
    r = 1.0 / a; except RuntimeWarning: ...``. NumPy raises RuntimeWarning('divide by
    zero') and takes the except arm: ``[0, 0]``; ``log_or_copy`` gives ``[1, -1]``;
    ``fill_or_flag`` leaves ``out`` ``[inf, -1]`` (the slice store done, ``out[0] = 7``
    not). The jitted function warns nothing, so the except arm never runs: ``[1, inf]``,
    ``[0, nan]``, ``[7, inf]``. (The README says compiled code emits no floating-point
    RuntimeWarning; ``np.errstate(...='raise')`` inside the function is honoured, the
    warnings filters set there are not, and here that is a wrong value, not a missing
    message.)"""
    check_jit(fn, *args, backend=backend, graphs=None, calls=2)


# ---- negative floats cast to uint32/uint64 in Inductor kernels ------------------------------
def to_unsigned(a):
    return a.astype(np.uint32), a.astype(np.uint64)


def store_unsigned(a, out):
    np.copyto(out, a * 1.0, casting="unsafe")
    return out


@pytest.mark.inductor
@pytest.mark.parametrize("fn, args", [
    (to_unsigned, (np.array([-2.0, -70000.5, 3.0]),)),
    (to_unsigned, (np.array([-2.0, -70000.5, 3.0], np.float32),)),
    (to_unsigned, (np.array([-2.0, -70.5, 3.0], np.float16),)),
    (store_unsigned, (np.array([-2.0, -70000.5, 3.0]), np.zeros(3, np.uint64))),
], ids=["float64", "float32", "float16", "copyto_unsafe"])
def test_negative_float_to_wide_unsigned_wraps_under_inductor(fn, args):
    """``np.array([-2.0, -70000.5, 3.0]).astype(np.uint64)``: NumPy (x86, no warning, even
    under ``-W error``) gives ``[2**64 - 2, 2**64 - 70000, 3]`` and ``astype(np.uint32)``
    ``[2**32 - 2, 2**32 - 70000, 3]``, as the eager backend does; the Inductor kernel gives
    ``2**64 - 1`` / ``2**32 - 1`` for every negative item (a saturating conversion).
    uint8/uint16 and the signed types match (from float16 only uint64 differs).
    (Out-of-range nan/inf/3e19, which NumPy warns about, also differ: NumPy 2**63 / 0 / 0,
    Inductor 2**64 - 1.) Guess: Inductor's C++
    ``static_cast<uint64_t>(double)`` where NumPy's loop goes through a signed conversion."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(*[x.copy() for x in args])     # NumPy is silent here
    check_jit(fn, *args, backend="inductor", graphs=None, calls=2)


# ---- NaN in a matrix inverted or solved --------------------------------------------------
def inverse_and_solution(A):
    return np.linalg.inv(A), np.linalg.solve(A, np.ones(2))


@pytest.mark.xfail(strict=True, reason="inv/solve of a matrix holding a NaN: torch's LAPACK pivots "
                                       "on the NaN, NumPy's (OpenBLAS) does not")
@pytest.mark.parametrize("backend", BACKENDS)
def test_inverse_of_a_matrix_with_a_nan_pivots_as_numpy(backend):
    """``A = [[nan, 1], [1, 2]]``: NumPy's ``inv(A)`` is ``[[nan, nan], [-1, 1]]`` and
    ``solve(A, [1, 1])`` ``[nan, 0]`` (its getrf's pivot search skips the NaN and swaps the
    rows, so the second row stays finite); the jitted function (torch.linalg, another
    LAPACK) answers all NaN. ``A = [[1, 2], [nan, 1]]`` and an inf entry agree. Values,
    not last bits: a script that masks NaN rows afterwards keeps different rows."""
    check_jit(inverse_and_solution, np.array([[np.nan, 1.0], [1.0, 2.0]]), backend=backend,
              graphs=None, calls=2)
