"""Issue 13 ("Never a wrong answer"), item by item: each test runs the item's own repro
(and its obvious variants) against NumPy, under the eager backend and, where the item
names it, Inductor. Items whose machinery has its own test module say which in their
docstring; this module keeps one runnable check per item next to them."""
import threading
import warnings

import numpy as np
import pytest

import npcompile
import torch_numpy_shim as shim
from tests.jit.harness import check_jit, check_jit_calls

BACKENDS = ["eager", pytest.param("inductor", marks=pytest.mark.inductor)]


def _read_only(a):
    a.flags.writeable = False
    return a


def iadd(a):
    a += 1
    return a


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_1_read_only_memory_is_never_written(backend):
    """Item 1 (also tests/jit/test_input_layouts.py): a write into a read-only array or
    bytes raises NumPy's ValueError and writes nothing."""
    check_jit_calls(lambda a: a.__iadd__(1), [(_read_only(np.arange(3.0)),)], backend=backend)
    check_jit_calls(iadd, [(np.frombuffer(b"\0" * 24, dtype=np.float64),)], backend=backend)
    check_jit_calls(lambda a, b: np.add(a, 1, out=b), [(np.ones(3), _read_only(np.zeros(3)))], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_2_sizes_zero_and_one_stay_specialized(backend):
    """Item 2 (also tests/jit/test_call_sequences.py): a * a.shape[0] after sizes 1 and 0."""
    sizes = [(np.ones(n),) for n in (5, 1, 3, 0, 4)]
    check_jit_calls(lambda a: a * a.shape[0] + 1, sizes, backend=backend)
    check_jit_calls(lambda a: a.sum(axis=0) * a.shape[1],
                    [(np.ones(s),) for s in ((5, 4), (1, 4), (3, 1), (0, 2), (6, 3))], backend=backend)


def inner(a, k=2):
    return a * k


def calls_inner(a):
    return inner(a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_3_values_that_steer_the_trace_are_guarded(backend):
    """Item 3 (also tests/jit/test_call_sequences.py, test_scalars_and_state.py): a
    function argument, a callee's defaults, error state and a monkeypatched np attribute."""
    x = np.arange(4.0)
    check_jit_calls(lambda x, f: f(x), [(x, np.max), (x, np.min), (x, np.sum)], backend=backend)
    jitted = npcompile.jit(calls_inner, backend=backend)
    assert jitted(x).tolist() == (x * 2).tolist()
    inner.__defaults__ = (5,)
    try:
        assert jitted(x).tolist() == (x * 5).tolist()
    finally:
        inner.__defaults__ = (2,)
    divide = npcompile.jit(lambda a, b: a / b, backend=backend)
    with np.errstate(divide="ignore"):
        divide(np.ones(2), np.zeros(2))
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        divide(np.ones(2), np.zeros(2))
    total = npcompile.jit(lambda a: np.sum(a), backend=backend)
    assert total(x) == 6.0
    original = np.sum
    np.sum = np.max
    try:
        assert total(x) == 3.0
    finally:
        np.sum = original


def writes_reversed(a):
    a[::-1][:2] = 0
    return a


def writes_through_reversed_view(a):
    v = a[::-1]
    v[0] = -1
    v[1:] *= 2
    return v


def reads_reversed_after_write(a):
    v = a[::-1]
    a[0] = 9
    return v * 1, np.flip(a).sum()


def writes_rotated(m):
    r = np.rot90(m)
    r[0, 0] = -5
    m[1, 1] = 7
    return r + 0, m


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [writes_reversed, writes_through_reversed_view, reads_reversed_after_write,
                                writes_rotated])
def test_item_4_writes_through_reversed_views_land(fn, backend):
    """Item 4 (also tests/jit/test_input_layouts.py, test_view_results.py and, for the
    shim, tests/shim/test_reversed_views.py): ``a[::-1][:2] = 0`` was silently dropped;
    reversed views and their source stay in step both ways."""
    arg = np.arange(6.0).reshape(2, 3) if fn is writes_rotated else np.arange(5.0)
    check_jit_calls(fn, [(arg,), (arg[:-1] if arg.ndim == 1 else arg[:, :-1],)], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_4_negative_odd_and_structured_strides(backend):
    """Item 4: reversed, strided, Fortran, structured-field and unaligned inputs."""
    field = np.zeros(4, dtype=[("x", "f8"), ("y", "i4")])["x"]
    unaligned = np.frombuffer(bytearray(33), dtype=np.float64, count=4, offset=1)
    check_jit_calls(lambda a: a * 2, [(np.arange(3.0)[::-1],), (field,), (unaligned,)], backend=backend)
    check_jit_calls(iadd, [(field,)], backend=backend)


def print_then_comprehension(a):
    print(end="")
    return [x for x in a if x > 1]


LOCK = threading.Lock()


def raises_holding_lock(a):
    with LOCK:
        print(end="")
        raise ValueError("inside")


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_5_code_after_a_break_runs_as_cpython(backend):
    """Item 5 (the fuzzer: tests/jit/test_break_fuzz.py): a comprehension after print,
    and an exception inside ``with lock:`` after a break releases the lock."""
    check_jit_calls(print_then_comprehension, [(np.arange(4.0),)], backend=backend)
    jitted = npcompile.jit(raises_holding_lock, backend=backend)
    for _ in range(2):
        with pytest.raises(ValueError):
            jitted(np.ones(2))
    assert not LOCK.locked()


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_6_graphs_without_array_inputs(backend):
    """Item 6 (also tests/jit/test_backend_failures.py): a float, an int size, a list."""
    check_jit_calls(lambda x: np.sqrt(x), [(2.0,), (3.0,)], backend=backend)
    check_jit_calls(lambda n: np.ones((n, n)).sum(), [(3,), (4,)], backend=backend)
    check_jit_calls(lambda n: np.linspace(0, 1, n), [(5,), (7,)], backend=backend)
    check_jit_calls(lambda values: np.sum(np.array(values) * 2), [([1.0, 2.0, 3.0],)], backend=backend)


def csr_matvec(data, indices, indptr, x):
    y = np.zeros(len(indptr) - 1)
    for i in range(len(indptr) - 1):
        start, end = indptr[i], indptr[i + 1]
        y[i] = np.dot(data[start:end], x[indices[start:end]])
    return y


def escaped_points(n, steps):
    y, x = np.meshgrid(np.linspace(-1.5, 1.5, n), np.linspace(-2, 1, n), indexing="ij")
    c = x + 1j * y
    z = np.zeros_like(c)
    escaped = np.zeros(c.shape, dtype=bool)
    for _ in range(steps):
        z = np.where(escaped, z, z * z + c)
        escaped |= np.abs(z) > 2
    points = c[escaped]
    return points.real.mean(), len(points)


def nussinov(n):
    table = np.zeros((n, n), dtype=np.int32)
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            table[i, j] = max(table[i, j], table[i, j - 1], table[i + 1, j] if i + 1 < n else 0)
    return table


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_7_the_named_compiler_failures_give_numpys_answer(backend):
    """Item 7 (also tests/jit/test_backend_failures.py for injected failures at every
    segment): a CSR product whose row loop slices by values read from the index arrays
    (GuardOnDataDependentSymNode), a Mandelbrot selecting escaped points (nonzero), a DP
    kernel without array inputs. Warnings are allowed (a part may run uncompiled); the
    answers must be NumPy's."""
    rng = np.random.default_rng(1)
    dense = np.where(rng.random((8, 8)) < 0.4, rng.random((8, 8)), 0.0)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int32)
    indices = np.nonzero(dense)[1].astype(np.int32)
    data = dense[dense != 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_jit(csr_matvec, data, indices, indptr, np.arange(8.0), backend=backend, graphs=None, calls=2)
        check_jit(escaped_points, 20, 10, backend=backend, graphs=None, calls=2)
        check_jit(nussinov, 6, backend=backend, graphs=None, calls=2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_8_numpy_scalars_look_like_numpy_scalars(backend):
    """Item 8 (also tests/jit/test_scalars_and_state.py)."""
    calls = [(np.float64(2),), (np.float32(3),), (np.int64(4),)]
    check_jit_calls(lambda x: (isinstance(x, np.ndarray), type(x).__name__, type(x * 2).__name__), calls,
                    backend=backend)


def divides_raising(a, b):
    with np.errstate(divide="raise"):
        return a / b


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_9_errstate_raise_is_honoured(backend):
    """Item 9 (also tests/jit/test_scalars_and_state.py)."""
    check_jit_calls(divides_raising, [(np.ones(2), np.zeros(2)), (np.ones(2), np.ones(2))], backend=backend)


def sets_out_of_bounds(a):
    a[np.array([1, 5])] = 0
    return a


def writes_then_allocates(a):
    a += 1
    return np.ones((a.shape[0], a.shape[0])).sum() + a[0]


def test_item_10_no_partial_writes_and_memory_error():
    """Item 10 (also tests/jit/test_backend_failures.py): an out-of-bounds fancy write
    changes nothing; an allocator failure in a graph that writes its inputs (and has run
    before, so it is not copied on probation) is MemoryError, not torch's RuntimeError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_jit(sets_out_of_bounds, np.arange(3.0), graphs=None)
    jitted = npcompile.jit(writes_then_allocates, backend="eager")
    for n in (4, 5, 6):
        assert jitted(np.zeros(n)) == n * n + 1
    x = np.zeros(2**19)      # 2**38 float64 ones: no machine has that
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(MemoryError):
            jitted(x)
    assert x[:2].tolist() == [1.0, 1.0]   # NumPy too has added 1 before it fails


def counts_up(a):
    while True:
        a = a + 1
        yield a


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_11_generators_stay_lazy(backend):
    """Item 11 (also tests/jit/test_user_api.py): an infinite generator function."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numbers = npcompile.jit(counts_up, backend=backend)(np.zeros(2))
    assert [next(numbers)[0] for _ in range(3)] == [1.0, 2.0, 3.0]


def test_item_12_resources():
    """Item 12: covered by tests/jit/test_resources.py (entries hold no input alive, both
    backends; infinite recursion raises RecursionError after bounded tracing)."""
    import tests.jit.test_resources as resources
    assert resources.test_entries_do_not_keep_input_arrays_alive
    assert resources.test_infinite_recursion_raises_after_bounded_tracing


def test_item_13_threads():
    """Item 13: covered by tests/jit/test_threads.py (cold Inductor compiles from several
    threads, one function from 4 threads with different shapes)."""
    import tests.jit.test_threads as threads
    assert threads.test_cold_inductor_compiles_from_several_threads
    assert threads.test_one_function_from_several_threads_with_different_shapes


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_14_float16_cumsum_saturates_and_float32_sums_are_accurate(backend):
    """Item 14: float16 cumsum accumulates in float16 (256, not 300); float32 sums of a
    million values (sum, mean, add.reduce, a fused sum, an inner product) are at least as
    close to the exact sum as NumPy's pairwise sum (Inductor gave 99994.41)."""
    check_jit_calls(lambda a: np.cumsum(a), [(np.ones(300, dtype=np.float16),)], backend=backend)
    x = np.full(10**6, 0.1, dtype=np.float32)
    for fn in (lambda a: np.sum(a), lambda a: a.mean(), lambda a: np.add.reduce(a), lambda a: (a * 1).sum(),
               lambda a: np.dot(a, a), lambda a: a @ a, lambda a: a.reshape(1000, 1000).sum(axis=0)):
        got = npcompile.jit(fn, backend=backend)(x)
        exact = fn(x.astype(np.float64))
        numpy_error = np.max(np.abs(fn(x) - exact))
        assert np.asarray(got).dtype == np.float32
        assert np.max(np.abs(got - exact)) <= max(numpy_error, 1e-7 * np.max(np.abs(exact)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [lambda a: a.copy(), lambda a: np.array(a), lambda a: a + 0, lambda a: a * 1,
                                lambda a: a.reshape(3, 2), lambda a: a.T, lambda a: np.ascontiguousarray(a.T),
                                lambda a: (a, a[0]), lambda a: np.squeeze(a), lambda a: np.real(a),
                                lambda a: a.conj(), lambda a: np.conj(a)],
                         ids=["copy", "array", "plus_0", "times_1", "reshape", "T", "ascontiguous_T", "tuple",
                              "squeeze_nothing", "real_of_real", "conj_method", "conj_ufunc"])
def test_item_15_results_alias_as_in_numpy(fn, backend):
    """Item 15 (the harness compares identity and shares_memory between every input and
    output): NumPy returns the array itself for squeeze with nothing to squeeze, np.real
    and .conj() of a real array (the shim made views or, for conj, a copy)."""
    check_jit_calls(fn, [(np.arange(6.0).reshape(2, 3),)], backend=backend)


def test_item_16_debug_mode():
    """Item 16, debug mode (``import torch_numpy_shim as np``): refused names raise
    UnsupportedError (an AttributeError too, for hasattr), mgrid/ogrid/s_/index_exp
    build what NumPy builds, round() of scalars is Python's."""
    with pytest.raises(shim.UnsupportedError):
        shim.datetime64("2020-01-01")
    assert not hasattr(shim, "timedelta64")
    for key in (np.s_[0:2, 0:3], np.s_[0:1:3j], np.s_[0.0:2], np.s_[1:4:2, 0:1:2j], np.s_[:3], np.s_[0:2,]):
        for grid in ("mgrid", "ogrid"):
            expected = getattr(np, grid)[key]
            actual = getattr(shim, grid)[key]
            pairs = zip(expected, actual) if isinstance(expected, tuple) else [(expected, actual)]
            for e, a in pairs:
                a = shim.to_numpy(a)
                assert (a.dtype, a.shape, a.tolist()) == (e.dtype, e.shape, e.tolist()), (grid, key)
    assert shim.s_[1:2, ::-1] == np.s_[1:2, ::-1] and shim.index_exp[1:2] == np.index_exp[1:2]
    assert round(shim.float64(2.5)) == 2 and type(round(shim.float64(2.5))) is int
    assert float(round(shim.float64(2.567), 2)) == 2.57
    with pytest.raises(TypeError):
        round(shim.arange(3.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_16_index_tricks_under_jit(backend):
    """Item 16 under jit: np.mgrid/np.ogrid/np.s_ inside a jitted function."""
    check_jit_calls(lambda a: a * np.mgrid[0:2, 0:3][1] + np.ogrid[0:2, 0:1:3j][0] + a[np.s_[::2]].sum(),
                    [(np.ones((2, 3)),)], backend=backend)
