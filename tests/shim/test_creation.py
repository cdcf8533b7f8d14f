"""Array creation against NumPy: dtypes chosen as NumPy chooses them, values, shapes,
result containers (tuples), views vs copies and exception classes."""
import warnings

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import torch_numpy_shim as shim
from tests.oracle import (
    SUPPORTED_DTYPES,
    arrays,
    assert_same,
    assert_traces_like_eager,
    check,
    dtypes,
    finite_arrays,
    shapes,
)

DTYPE_NAMES = [d.name for d in SUPPORTED_DTYPES]


def any_arrays(shape=None, kinds=None):
    """Arrays of any supported dtype (of ``kinds``), with edge values."""
    return dtypes(kinds).flatmap(lambda d: arrays(d, shape))


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        yield


# ---- from data -------------------------------------------------------------------------
@pytest.mark.parametrize("data", [
    [1, 2, 3], [1, 2.5], [True, False], [1, 2j], [[1, 2], [3, 4]], [], [[]], 7, 2.5, True,
    [numpy.float32(1), numpy.float32(2)], [numpy.int8(1), 2], [2**63], [1, [2]], (1, 2), [[1], [2, 3]],
])
def test_array_from_python_data(data):
    check(lambda xp, d: xp.array(d), data)
    check(lambda xp, d: xp.asarray(d), data)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("ndmin", [0, 1, 3])
def test_array_dtype_and_ndmin(dtype, ndmin):
    check(lambda xp: xp.array([1, 0, 1], dtype=dtype, ndmin=ndmin))
    check(lambda xp: xp.array(1, dtype=dtype, ndmin=ndmin))


@pytest.mark.parametrize("data,dtype", [([300], "int8"), (-1, "uint8"), ([1.7, -2.5], int), ([[1, 2**63]], "uint64"),
                                        ([2**64], "float64"), ([1, 2j], "complex64"), ([1j], float), (True, "int16"),
                                        ([float("nan")], "float16"), ((1, (2, 3)), int)])
def test_python_data_into_a_dtype(data, dtype):
    check(lambda xp: xp.array(data, dtype=dtype))
    check(lambda xp: xp.asarray(data, dtype=dtype))


def test_array_of_shim_arrays_promotes():
    check(lambda xp: xp.array([xp.arange(2), xp.ones(2, dtype=xp.float32)]))
    check(lambda xp: xp.array([xp.arange(2, dtype=xp.int8), [1, 2]]))


@given(any_arrays())
def test_array_copies_asarray_does_not(a):
    check(lambda xp, a: (b := xp.array(a), xp.copyto(b, 1), a)[-1], a)
    check(lambda xp, a: (b := xp.asarray(a), xp.copyto(b, 1), a)[-1], a)
    check(lambda xp, a: (b := xp.asanyarray(a), xp.copyto(b, 1), a)[-1], a)
    check(lambda xp, a: (b := xp.copy(a), xp.copyto(b, 1), a)[-1], a)
    check(lambda xp, a: (b := xp.array(a, copy=None), xp.copyto(b, 1), a)[-1], a)
    check(lambda xp, a: xp.array(a, copy=False), a)


@given(any_arrays())
def test_ascontiguousarray(a):
    check(lambda xp, a: xp.ascontiguousarray(a), a)
    check(lambda xp, a: xp.ascontiguousarray(a.T).flags.c_contiguous, a)
    check(lambda xp, a: xp.ascontiguousarray(a, dtype=xp.float32), a)


@pytest.mark.parametrize("fn", ["array", "asarray"])
@pytest.mark.parametrize("data", [[1, 2], 3, numpy.float64(1), numpy.ones(2), numpy.ones(2, numpy.float32),
                                  numpy.arange(6).reshape(2, 3).T])
@pytest.mark.parametrize("dtype", [None, "float64", "float32"])
def test_copy_false_refuses_conversions_that_copy(fn, data, dtype):
    check(lambda xp, d: getattr(xp, fn)(d, dtype=dtype, copy=False), data)
    check(lambda xp, d: getattr(xp, fn)(xp.asarray(d), dtype=dtype, copy=False), data)
    check(lambda xp, d: xp.array(xp.asarray(d), dtype=dtype, copy=False, ndmin=3), data)


def test_like_is_refused():
    with pytest.raises(shim.UnsupportedError):
        shim.asarray([1], like=shim.zeros(1))
    with pytest.raises(shim.UnsupportedError):
        shim.zeros(2, like=shim.zeros(1))


def test_bad_order_and_device():
    check(lambda xp: xp.asarray([1], order="X"))
    check(lambda xp: xp.zeros(2, device="cuda:7"))
    check(lambda xp: xp.zeros(2, device="cpu"))


# ---- from shapes -----------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["zeros", "ones"])
@pytest.mark.parametrize("shape", [3, (), (2, 0), (2, 3), [1, 2, 1]])
@pytest.mark.parametrize("dtype", [None, int, float, complex, bool, "uint16", "float16", "int8"])
def test_zeros_ones(fn, shape, dtype):
    check(lambda xp: getattr(xp, fn)(shape, dtype))


@pytest.mark.parametrize("shape", [3, (2, 0), (2, 3)])
@pytest.mark.parametrize("dtype", [None, "int8", "complex64", "uint64"])
def test_empty_shape_and_dtype(shape, dtype):
    check(lambda xp: (r := xp.empty(shape, dtype), (r.shape, r.dtype))[-1])
    check(lambda xp: (r := xp.empty_like(xp.ones((2, 1), "int16"), dtype), (r.shape, r.dtype))[-1])


@pytest.mark.parametrize("bad", [-1, (2, -3), 2.5, "3", (2, None)])
def test_bad_shapes(bad):
    check(lambda xp: xp.zeros(bad))
    check(lambda xp: xp.full(bad, 1))


@pytest.mark.parametrize("fill", [7, 1.5, True, 2j, -0.0, numpy.float32(3), numpy.uint8(200), 2**63,
                                  [1, 2], [[1.5], [2.5]], numpy.array([1, 2], dtype=numpy.int16)])
@pytest.mark.parametrize("dtype", [None, "int8", "uint8", "float32", "bool", "complex64"])
def test_full_fill_dtype(fill, dtype):
    check(lambda xp, f: xp.full((3, 2), f, dtype), fill)


@pytest.mark.parametrize("fill", [300, -1, 1.7, 2j, float("nan")])
def test_full_unsafe_and_overflowing_fills(fill):
    if isinstance(fill, float) and fill != fill:
        check(lambda xp: xp.full(2, fill, dtype="float16"))
    else:
        check(lambda xp: xp.full(2, fill, dtype="uint8"))
        check(lambda xp: xp.full_like(xp.zeros(2, "int8"), fill))


@given(any_arrays(), dtypes(), st.sampled_from([None, (), (3,), (2, 0, 1)]))
def test_like_functions(a, dtype, shape):
    for name in ("zeros_like", "ones_like"):
        check(lambda xp, a: getattr(xp, name)(a), a)
        check(lambda xp, a: getattr(xp, name)(a, dtype=dtype, shape=shape), a)
    check(lambda xp, a: xp.full_like(a, 1), a)
    check(lambda xp, a: xp.full_like(a, 3, dtype=dtype, shape=shape), a)
    check(lambda xp, a: (r := xp.empty_like(a, shape=shape), (r.shape, r.dtype))[-1], a)


def test_like_of_python_data():
    check(lambda xp: xp.zeros_like([[1.5, 2]]))
    check(lambda xp: xp.ones_like(3))
    check(lambda xp: xp.full_like([1, 2], 2.9))


# ---- copyto ----------------------------------------------------------------------------
@pytest.mark.parametrize("src", [1, 300, -1, 1.5, True, 2j, numpy.int64(1), numpy.float32(2), numpy.float64(1.5),
                                 numpy.complex128(1j), numpy.bool_(True), shim.float32(2)])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "bool", "float32", "complex64"])
@pytest.mark.parametrize("casting", ["no", "safe", "same_kind", "unsafe"])
def test_copyto_scalar_casting(src, dtype, casting):
    check(lambda xp, d: xp.copyto(d, src, casting=casting), numpy.zeros(3, dtype))


@given(any_arrays(shapes(min_dims=1)), dtypes(),
       st.sampled_from(["no", "equiv", "safe", "same_kind", "unsafe"]))
def test_copyto_array_casting(src, dst_dtype, casting):
    dst = numpy.zeros(src.shape, dst_dtype)
    check(lambda xp, d, s: (xp.copyto(d, s, casting=casting), d)[-1], dst, src)


@given(finite_arrays("float64", shapes(min_dims=1, min_side=1)), st.data())
def test_copyto_where_and_broadcast(dst, data):
    mask = data.draw(arrays(numpy.dtype(bool), st.just(dst.shape[-1:])))
    src = data.draw(finite_arrays("int32", st.just(dst.shape[-1:])))
    check(lambda xp, d, s, m: xp.copyto(d, s, where=m), dst, src, mask)
    check(lambda xp, d: xp.copyto(d, 5, where=False), dst)
    check(lambda xp, d, s: xp.copyto(d, s, where=numpy.ones(s.shape, int)), dst, src)


def test_copyto_errors_and_overlap():
    check(lambda xp: xp.copyto([1, 2], 1))
    check(lambda xp, d: xp.copyto(d, [1, 2, 3]), numpy.zeros(2))
    check(lambda xp, d: xp.copyto(d, d.T), numpy.arange(9.0).reshape(3, 3))
    check(lambda xp, d: xp.copyto(d, 1, where=[[True], [False], [True]]), numpy.zeros((3, 2)))


# ---- ranges ----------------------------------------------------------------------------
ARANGE_CASES = [
    (5,), (0,), (-3,), (2, 7), (7, 2), (0, 10, 3), (10, 0, -3), (0.5, 3), (5, 1, -1.5),
    (0, 1, 0.1), (1, 2, 0.3), (True,), (3.0,), (numpy.int8(3),), (numpy.float32(1), 3),
    (numpy.uint8(3), 5), (-2.5, 2.5, 0.5), (0, 5, 0), (0, 5, 0.0), (0, float("nan")),
    (0, float("inf")), (1j, 3),
]


@pytest.mark.parametrize("args", ARANGE_CASES)
@pytest.mark.parametrize("dtype", [None, "int8", "uint8", "int64", "float16", "float32", "float64",
                                   "uint32", "bool"])
def test_arange(args, dtype):
    if any(isinstance(a, complex) for a in args):
        with pytest.raises(shim.UnsupportedError):
            shim.arange(*args, dtype=dtype)
        return
    check(lambda xp: xp.arange(*args, dtype=dtype))


@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-7, 7).filter(bool))
def test_arange_integers(start, stop, step):
    check(lambda xp: xp.arange(start, stop, step))
    check(lambda xp: xp.arange(start, stop, step, dtype=xp.float32))


@given(st.floats(-100, 100), st.floats(-100, 100), st.floats(0.01, 10), st.booleans())
def test_arange_floats(start, stop, step, negative):
    step = -step if negative else step
    check(lambda xp: xp.arange(start, stop, step))
    check(lambda xp: xp.arange(start, stop, step, dtype=xp.int16))


def test_arange_from_0d_arrays_and_errors():
    check(lambda xp: xp.arange(xp.asarray(4)))
    check(lambda xp: xp.arange(xp.asarray(3.0), dtype=xp.float16))
    check(lambda xp: xp.arange(xp.asarray([3])))
    check(lambda xp: xp.arange(0, 300, dtype=xp.int8))
    check(lambda xp: xp.arange(10, 2, -3, dtype=xp.uint8))


@pytest.mark.parametrize("start,stop", [(0, 5), (-1.5, 2.5), (numpy.float32(0), 5), (numpy.int8(0), numpy.int8(5)),
                                        (1, 1), (0, 1j), ([0, 1], [2, 3]), ([[0], [10]], [1, 2, 3]),
                                        (numpy.array([1, 2], numpy.float32), 4)])
@pytest.mark.parametrize("num", [0, 1, 2, 7])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace(start, stop, num, endpoint):
    check(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint))
    check(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint, retstep=True))
    check(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint, axis=-1))
    check(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint, dtype=xp.int32))


@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.integers(0, 20), dtypes("iuf"))
def test_linspace_random(start, stop, num, dtype):
    check(lambda xp: xp.linspace(start, stop, num, dtype=dtype), rtol=1e-6 if dtype.kind == "f" else None,
          atol=1e-9)


def test_linspace_errors():
    check(lambda xp: xp.linspace(0, 5, -1))
    check(lambda xp: xp.linspace(0, 5, 2.0))
    check(lambda xp: xp.linspace(0, 5, 3, axis=2))
    check(lambda xp: xp.linspace(0, -5, 4, dtype=xp.uint8))


@pytest.mark.parametrize("start,stop", [(0, 2), (numpy.float32(0), 2), (-1, 1.5), ([0, 1], 3)])
@pytest.mark.parametrize("base", [10.0, 2, numpy.float32(2), [2, 3]])
@pytest.mark.parametrize("dtype", [None, int, "float32", complex])
def test_logspace(start, stop, base, dtype):
    check(lambda xp: xp.logspace(start, stop, 5, base=base, dtype=dtype), rtol=1e-10)
    check(lambda xp: xp.logspace(start, stop, 4, base=base, endpoint=False, axis=-1), rtol=1e-10)


@pytest.mark.parametrize("start,stop", [(1, 1000), (-1, -1000), (1j, 1000j), (numpy.float32(1), 1000),
                                        (1, 256), ([1, 10], [1000, 1]), (0, 10), (-1, 1), (2, 3 + 4j)])
@pytest.mark.parametrize("dtype", [None, int, "float32", "int8", "complex64"])
@pytest.mark.parametrize("endpoint", [True, False])
def test_geomspace(start, stop, dtype, endpoint):
    check(lambda xp: xp.geomspace(start, stop, 9, endpoint=endpoint, dtype=dtype), rtol=1e-10)
    check(lambda xp: xp.geomspace(start, stop, 1, dtype=dtype), rtol=1e-10)
    check(lambda xp: xp.geomspace(start, stop, 0, dtype=dtype), rtol=1e-10)
    check(lambda xp: xp.geomspace(start, stop, 3, axis=-1), rtol=1e-10)


# ---- matrices --------------------------------------------------------------------------
@pytest.mark.parametrize("n,m,k", [(3, None, 0), (3, 4, 1), (4, 2, -1), (0, None, 0), (2, 2, 5), (3, 0, 0),
                                   (-1, None, 0)])
@pytest.mark.parametrize("dtype", [float, int, bool, "uint16", "complex64"])
def test_eye_tri(n, m, k, dtype):
    check(lambda xp: xp.eye(n, m, k, dtype))
    check(lambda xp: xp.tri(n, m, k, dtype))


@pytest.mark.parametrize("dtype", [None, int, "float32"])
def test_identity(dtype):
    check(lambda xp: xp.identity(3, dtype))
    check(lambda xp: xp.identity(0, dtype))


@given(any_arrays(shapes(min_dims=1, max_dims=2)), st.integers(-4, 4))
def test_diag_both_directions(a, k):
    check(lambda xp, a: xp.diag(a, k), a)
    check(lambda xp, a: xp.diagflat(a, k), a)
    if a.ndim == 1:  # (NumPy's diagonal of a matrix is a read-only view: not writable at all)
        check(lambda xp, a: (d := xp.diag(a, k), xp.copyto(d, 1, casting="unsafe"), a)[-1], a)


def test_diag_errors():
    check(lambda xp: xp.diag(xp.ones((2, 2, 2))))
    check(lambda xp: xp.diag(xp.asarray(3.0)))
    check(lambda xp: xp.diagflat([[1, 2], [3, 4]], -1))


@given(any_arrays(shapes(min_dims=1, max_dims=4)), st.integers(-3, 3))
def test_tril_triu_on_stacks(a, k):
    check(lambda xp, a: xp.tril(a, k), a)
    check(lambda xp, a: xp.triu(a, k), a)


def test_tril_of_0d_is_an_error():
    check(lambda xp: xp.tril(xp.asarray(1.0)))


@given(any_arrays(shapes(min_dims=1, max_dims=1)), st.sampled_from([None, 0, 1, 3, 5]),
       st.booleans())
def test_vander(x, n, increasing):
    if x.dtype.kind in "fc":
        x = numpy.nan_to_num(x, posinf=3, neginf=-3)
        x = numpy.clip(x.real, -1e3, 1e3) + (0 if x.dtype.kind == "f" else 1j * numpy.clip(x.imag, -1e3, 1e3))
        x = x.astype(x.dtype)
    check(lambda xp, x: xp.vander(x, n, increasing), x)


def test_vander_errors():
    check(lambda xp: xp.vander([[1, 2]]))
    check(lambda xp: xp.vander([1, 2], -1))


# ---- grids -----------------------------------------------------------------------------
@pytest.mark.parametrize("inputs", [[[1, 2, 3]], [[1, 2], [3.5, 4, 5]], [[1], [2, 3], [4, 5, 6]],
                                    [numpy.arange(4).reshape(2, 2), [1, 2]], [], [[]]])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("copy", [False, True])
def test_meshgrid(inputs, indexing, sparse, copy):
    check(lambda xp, *xs: xp.meshgrid(*xs, indexing=indexing, sparse=sparse, copy=copy), *inputs)


def test_meshgrid_views_and_errors():
    x = numpy.arange(3.0)
    check(lambda xp, x: (g := xp.meshgrid(x, copy=False, sparse=True), xp.copyto(g[0], 7), x)[-1], x)
    check(lambda xp, x: (g := xp.meshgrid(x, x), xp.copyto(g[0], 7), x)[-1], x)
    check(lambda xp: xp.meshgrid([1], indexing="xx"))


@pytest.mark.parametrize("dims", [(2, 3), (), (0, 2), (3,), (2, 1, 2)])
@pytest.mark.parametrize("dtype", [int, float, "int8"])
@pytest.mark.parametrize("sparse", [False, True])
def test_indices(dims, dtype, sparse):
    check(lambda xp: xp.indices(dims, dtype, sparse))


def test_fromfunction():
    check(lambda xp: xp.fromfunction(lambda i, j: xp.stack([i, j]), (2, 3)))
    check(lambda xp: xp.fromfunction(lambda i, j, scale: xp.full_like(i, scale), (2, 2), dtype=int, scale=3))
    check(lambda xp: xp.fromfunction(lambda *ix: len(ix), (1, 2, 3)))
    assert_same(numpy.fromfunction(lambda i: i, (3,)), shim.to_numpy(shim.fromfunction(lambda i: i, (3,))))


# ---- traceability: no value-dependent Python, so make_fx can capture these -------------
TRACEABLE = {
    "arange": lambda a: shim.arange(a.shape[0]),
    "arange_float": lambda a: shim.arange(0.0, 4, 0.5),
    "linspace": lambda a: shim.linspace(a, 10.0, 5, axis=1),
    "logspace": lambda a: shim.logspace(0, a, 4),
    "eye": lambda a: shim.eye(a.shape[0], k=1),
    "tril": lambda a: shim.tril(a, 1),
    "diag": lambda a: shim.diag(shim.ravel(a), 1),
    "vander": lambda a: shim.vander(shim.ravel(a), 3),
    "full": lambda a: shim.full(a.shape, 7),
    "full_like": lambda a: shim.full_like(a, 2.5, dtype=shim.float32),
    "copyto": lambda a: (shim.copyto(a, 1.0, where=shim.tril(shim.ones(a.shape, bool))), a)[1],
    "meshgrid": lambda a: shim.meshgrid(shim.ravel(a), shim.ravel(a), indexing="ij"),
    "indices": lambda a: shim.indices(a.shape),
}


@pytest.mark.parametrize("name", sorted(TRACEABLE))
def test_traces_with_symbolic_shapes(name):
    import torch
    assert_traces_like_eager(TRACEABLE[name], torch.arange(12, dtype=torch.float64).reshape(4, 3))


SIZE_DRIVEN = {
    "arange": lambda n: shim.arange(n),
    "arange_step": lambda n: shim.arange(1, n, 2, dtype=shim.float32),
    "linspace": lambda n: shim.linspace(0, 1, n),
    "zeros": lambda n: shim.zeros((n, 2)),
    "full": lambda n: shim.full(n, 7),
    "eye": lambda n: shim.eye(n, k=1),
    "tri": lambda n: shim.tri(n),
    "indices": lambda n: shim.indices((n, 2)),
}


@pytest.mark.parametrize("name", sorted(SIZE_DRIVEN))
def test_sizes_stay_symbolic(name):
    """A size taken from a traced shape is not baked into the graph."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    graph = make_fx(lambda t: SIZE_DRIVEN[name](t.shape[0])._t, tracing_mode="symbolic")(torch.ones(5))
    for n in (3, 8):
        assert torch.equal(graph(torch.ones(n)), SIZE_DRIVEN[name](n)._t)


@pytest.mark.parametrize("data", [range(5), range(0), range(3, -4, -2), [range(3), range(3)], (range(2), [5, 6]),
                                  range(2**63, 2**63 + 2), [[range(2)], [range(2)]]])
@pytest.mark.parametrize("dtype", [None, "float32", "int8"])
def test_array_from_ranges(data, dtype):
    """A range is a sequence of ints to NumPy, alone or nested in lists."""
    check(lambda xp, d: xp.array(d, dtype=dtype), data)
    check(lambda xp, d: xp.asarray(d, dtype=dtype), data)
    if data != range(2**63, 2**63 + 2):   # NumPy sums that one to ulonglong, the shim to uint64
        check(lambda xp, d: xp.sum(d), data)


@pytest.mark.parametrize("make", [lambda xp: xp.ones(False), lambda xp: xp.zeros((2, True)),
                                  lambda xp: xp.empty(numpy.True_), lambda xp: xp.full(True, 1.0),
                                  lambda xp: xp.arange(3.0).reshape(True, 3),
                                  lambda xp: xp.reshape(xp.arange(3.0), (3, numpy.False_))])
def test_a_bool_is_not_a_size(make):
    """operator.index takes a bool; NumPy's shapes do not (TypeError, not an empty array)."""
    check(lambda xp: make(xp))


@pytest.mark.parametrize("src", [numpy.array([2147483649.0 + 0j]), numpy.array([2147483649.0, -2147483649.0, 4294967297.0, 300.0, -1.5])])
def test_out_of_range_doubles_cast_to_uint8_as_numpy(src):
    """Fresh-seed counterexample (HYPOTHESIS_SEED=899067167): NumPy's double -> uint8 cast
    goes through a 32-bit int, so 2**31 + 1 gives 0 (torch's through 64 bits gave 1)."""
    with numpy.errstate(invalid="ignore"):
        check(lambda xp, d, s: (xp.copyto(d, s, casting="unsafe"), d)[-1], numpy.zeros(src.shape, numpy.uint8), src)
        check(lambda xp, s: s.astype(xp.uint8), src)
