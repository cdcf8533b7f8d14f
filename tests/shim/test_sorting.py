"""Sorting and searching against NumPy: values, dtypes, NaN/complex order, ties, errors."""
import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import torch_numpy_shim as shim
from tests.oracle import arrays, assert_same, check, dtypes, shapes

AXES = st.one_of(st.none(), st.integers(-4, 3))
SORT_KINDS = [None, "quicksort", "mergesort", "heapsort", "stable", "Q"]


def _small_values(dtype):
    """Few distinct values so ties are common (stability matters)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -2
        return st.integers(low, 3)
    base = st.sampled_from([0.0, -0.0, 1.0, -1.5, numpy.inf, -numpy.inf, numpy.nan])
    if dtype.kind == "c":
        return st.builds(complex, base, base)
    return base


def tie_arrays(dtype, shape=None):
    return arrays(dtype, shape, _small_values(dtype))


# ---- sort ---------------------------------------------------------------------------
@given(dtypes(), st.data(), AXES, st.sampled_from(SORT_KINDS))
def test_sort(dtype, data, axis, kind):
    a = data.draw(st.one_of(arrays(dtype), tie_arrays(dtype)))
    check(lambda xp, a: xp.sort(a, axis=axis, kind=kind), a)


@given(dtypes(), st.data(), st.booleans())
def test_sort_stable_keyword(dtype, data, stable):
    a = data.draw(tie_arrays(dtype, shapes(min_dims=1)))
    check(lambda xp, a: xp.sort(a, stable=stable), a)


def test_sort_extreme_unsigned():
    a = numpy.array([2**64 - 1, 0, 2**63, 2**63 - 1, 5], numpy.uint64)
    check(lambda xp, a: xp.sort(a), a)
    check(lambda xp, a: xp.argsort(a), a)
    b = numpy.array([2**32 - 1, 0, 2**31, 7], numpy.uint32)
    check(lambda xp, a: xp.sort(a), b)


def test_complex_order_with_nans():
    nan = numpy.nan
    a = numpy.array([complex(nan, 1), complex(1, nan), 1, complex(nan, nan), complex(0, nan),
                     2j, 1 + 1j, complex(nan, -3), complex(-1, nan), -numpy.inf, complex(1, -0.0)])
    check(lambda xp, a: xp.sort(a), a)
    check(lambda xp, a: xp.argsort(a, kind="stable"), a)


# ---- argsort ------------------------------------------------------------------------
@given(dtypes(), st.data(), AXES)
def test_argsort_stable_matches_exactly(dtype, data, axis):
    a = data.draw(st.one_of(arrays(dtype), tie_arrays(dtype)))
    check(lambda xp, a: xp.argsort(a, axis=axis, kind="stable"), a)
    check(lambda xp, a: xp.argsort(a, axis=axis, stable=True), a)


@given(dtypes(), st.data(), st.sampled_from([None, "quicksort", "heapsort"]))
def test_argsort_unstable_kinds_sort_the_values(dtype, data, kind):
    """NumPy leaves the order of ties unspecified here: compare the values they pick."""
    a = data.draw(tie_arrays(dtype, shapes(min_dims=1)))
    got = shim.to_numpy(shim.argsort(shim.asarray(a), kind=kind))
    expected = numpy.argsort(a, kind=kind)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert_same(numpy.take_along_axis(a, expected, -1), numpy.take_along_axis(a, got, -1))


def test_argsort_zero_dim_is_one_dim():
    check(lambda xp, a: xp.argsort(a), numpy.array(5.0))
    check(lambda xp, a: xp.argsort(a, axis=None), numpy.array(5.0))
    check(lambda xp, a: xp.argsort(a, axis=5), numpy.array(5.0))
    check(lambda xp: xp.argsort(3))
    check(lambda xp: xp.argsort([3, 1, 2]))


# ---- methods ------------------------------------------------------------------------
@given(dtypes(), st.data(), st.integers(-3, 2))
def test_sort_method_in_place(dtype, data, axis):
    a = data.draw(tie_arrays(dtype))

    def sort_in_place(xp, a):
        result = a.sort(axis=axis, kind="stable")
        return result, a
    check(sort_in_place, a)


def test_sort_method_on_view_writes_through():
    def sort_columns(xp, a):
        a.T.sort()
        return a
    check(sort_columns, numpy.array([[3, 2, 1], [9, 0, 8]]))


@given(dtypes(), st.data())
def test_argsort_method(dtype, data):
    a = data.draw(tie_arrays(dtype, shapes(min_dims=1)))
    check(lambda xp, a: a.argsort(kind="stable"), a)
    check(lambda xp, a: a.argsort(axis=0, stable=True), a)


# ---- lexsort ------------------------------------------------------------------------
@given(st.lists(dtypes(), min_size=1, max_size=3), shapes(min_dims=1, max_dims=2), st.data())
def test_lexsort(key_dtypes, shape, data):
    keys = tuple(data.draw(tie_arrays(d, st.just(shape))) for d in key_dtypes)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    check(lambda xp, *keys: xp.lexsort(keys, axis=axis), *keys)


@pytest.mark.parametrize("keys", [
    numpy.array([[1, 2, 1], [2, 1, 1]]),
    [[1, 2], [3, 1]],
    (numpy.array(3),),
    (numpy.array([], numpy.float32),),
    (numpy.array([1j, 0, numpy.nan]),),
    (numpy.array([1.0, 2.0]), numpy.array([1, 1], numpy.int8)),
    (numpy.array([2**64 - 1, 1, 2**63], numpy.uint64), numpy.array([0, 0, 0], numpy.uint16)),
])
def test_lexsort_forms(keys):
    check(lambda xp: xp.lexsort(keys))


@pytest.mark.parametrize("keys,axis", [
    ((), -1), (numpy.array(3), -1), (([1, 2], [1, 2, 3]), -1),
    ((numpy.zeros((2, 2)),), 2), ((numpy.zeros((2, 2)),), None), ((numpy.array(3),), 5),
    ((numpy.array(3), numpy.array(2)), 0),
])
def test_lexsort_errors(keys, axis):
    check(lambda xp: xp.lexsort(keys, axis=axis))


# ---- partition ----------------------------------------------------------------------
def _assert_partitioned(a, result, kths, axis, indirect):
    """NumPy's promise: position k holds the k-th smallest; nothing before is larger,
    nothing after is smaller (in NumPy's order, NaN last)."""
    expected_sorted = numpy.sort(a, axis=axis)
    values = numpy.take_along_axis(a, result, axis) if indirect else result
    if indirect:
        assert sorted(numpy.moveaxis(result, axis, -1).reshape(-1, a.shape[axis])[0].tolist()) \
            == list(range(a.shape[axis])) or a.size == 0
    n = a.shape[axis]
    for k in kths:
        k %= n
        kth_value = numpy.take(values, [k], axis)
        assert_same(numpy.take(expected_sorted, [k], axis), kth_value)
        rank = numpy.argsort(numpy.argsort(values, axis=axis, kind="stable"), axis=axis, kind="stable")
        sorted_rank_of_k = numpy.take(rank, [k], axis)
        before = numpy.take(rank, range(k), axis)
        after = numpy.take(rank, range(k + 1, n), axis)
        assert (before < sorted_rank_of_k).all() and (after > sorted_rank_of_k).all()


@given(dtypes(), st.data(), st.booleans())
def test_partition_property(dtype, data, indirect):
    a = data.draw(st.one_of(arrays(dtype, shapes(min_dims=1, min_side=1)),
                            tie_arrays(dtype, shapes(min_dims=1, min_side=1))))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    kth = data.draw(st.one_of(st.integers(-n, n - 1), st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
    fn = "argpartition" if indirect else "partition"
    result = shim.to_numpy(getattr(shim, fn)(shim.asarray(a), kth, axis=axis))
    expected = getattr(numpy, fn)(a, kth, axis=axis)
    assert result.dtype == expected.dtype and result.shape == expected.shape
    _assert_partitioned(a, result, kth if isinstance(kth, list) else [kth], axis % a.ndim, indirect)


def test_partition_method_in_place():
    a = numpy.array([5, 1, 4, 2, 3])
    s = shim.asarray(a.copy())
    assert s.partition(2) is None
    assert shim.to_numpy(s)[2] == 3 and set(shim.to_numpy(s)[:2]) == {1, 2}


@pytest.mark.parametrize("args,kwargs", [
    ((numpy.array(5), 0), {}), ((numpy.array(5), 0), {"axis": None}),
    ((numpy.array([1, 2, 3]), 3), {}), ((numpy.array([1, 2, 3]), -4), {}),
    ((numpy.array([3, 1, 2]), True), {}), ((numpy.array([3, 1, 2]), 1.0), {}),
    ((numpy.array([3, 1, 2]), [[0, 1]]), {}), ((numpy.array([3, 1, 2]), []), {}),
    ((numpy.array([3, 1, 2]), None), {}), ((numpy.array([3, 1, 2]), numpy.array([2.0])), {}),
    ((numpy.array([3, 1, 2]), 0), {"kind": "quicksort"}),
    ((numpy.array([3, 1, 2]), 0), {"order": "x"}), ((numpy.array([3, 1, 2]), 0), {"axis": 1}),
    ((numpy.array([]), 0), {}), ((numpy.array([]), 5), {}), ((numpy.zeros((0, 3)), 5), {}),
    ((numpy.array([]), True), {}), ((numpy.array([[3, 1], [2, 0]]), 1), {"axis": None}),
    ((numpy.array([3, 1, 2]), numpy.array([0, 2])), {}), ((numpy.array([3, 1, 2]), numpy.uint8(2)), {}),
])
@pytest.mark.parametrize("fn", ["partition", "argpartition"])
def test_partition_edges_and_errors(fn, args, kwargs):
    """All the successful cases here have only one valid answer."""
    check(lambda xp, a, *rest: getattr(xp, fn)(a, *rest, **kwargs), *args)


def test_argpartition_zero_dim():
    check(lambda xp, a: xp.argpartition(a, 0), numpy.array(5))
    check(lambda xp, a: xp.argpartition(a, -1), numpy.array(5))
    check(lambda xp, a: xp.argpartition(a, 1), numpy.array(5))


# ---- searchsorted -------------------------------------------------------------------
@given(dtypes(), dtypes(), st.data(), st.sampled_from(["left", "right"]))
def test_searchsorted(a_dtype, v_dtype, data, side):
    a = numpy.sort(data.draw(st.one_of(arrays(a_dtype, shapes(1, 1)), tie_arrays(a_dtype, shapes(1, 1)))))
    v = data.draw(st.one_of(arrays(v_dtype), tie_arrays(v_dtype)))
    check(lambda xp, a, v: xp.searchsorted(a, v, side=side), a, v)
    check(lambda xp, a, v: a.searchsorted(v, side), a, v)


@given(dtypes(), st.data(), st.sampled_from(["left", "right"]))
def test_searchsorted_with_sorter(dtype, data, side):
    a = data.draw(tie_arrays(dtype, shapes(1, 1)))
    v = data.draw(tie_arrays(dtype))
    sorter = numpy.argsort(a, kind="stable")
    check(lambda xp, a, v, s: xp.searchsorted(a, v, side=side, sorter=s), a, v, sorter)


@pytest.mark.parametrize("a,v", [
    (numpy.array([1, 2, 3], numpy.uint8), 300), (numpy.array([1, 2, 3], numpy.uint8), -1),
    (numpy.array([0.1], numpy.float32), 0.1), (numpy.array([0.1], numpy.float16), 0.1),
    (numpy.array([0.1], numpy.float32), numpy.float32(0.1)),
    (numpy.array([1, 2], numpy.int8), 1.5), (numpy.array([1, 2], numpy.float32), 1.5 + 0j),
    (numpy.array([False, True]), 2), (numpy.array([False, True]), [True]),
    (numpy.array([2**63, 2**64 - 1], numpy.uint64), 2**64 - 1),
    (numpy.array([2**62, 2**63 - 1], numpy.int64), numpy.array([2**63 - 1], numpy.uint64)),
    (numpy.array([1.0, numpy.inf, numpy.nan, numpy.nan]), [numpy.nan, numpy.inf, 1, -numpy.inf]),
    (numpy.array([1, 1j + 1, numpy.nan]), [1 + 0.5j, numpy.nan]),
    (numpy.array([]), [1.0]), (numpy.array([1.0, 2.0]), []), (numpy.array([1.0, 2.0]), numpy.array(2.0)),
    (numpy.array([1, 2]), [[1, 3], [0, 2]]), ([1, 2, 3], 2),
])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_promotion_and_edges(a, v, side):
    check(lambda xp, a: xp.searchsorted(a, v, side=side), a)


@pytest.mark.parametrize("a,kwargs", [
    (numpy.array([[1, 2]]), {}), (numpy.array(1), {}),
    (numpy.array([1, 2]), {"side": "x"}), (numpy.array([1, 2]), {"side": "R"}),
    (numpy.array([1, 2]), {"side": None}), (numpy.array([1, 2]), {"side": "l"}),
    (numpy.array([1, 2]), {"sorter": [0]}), (numpy.array([1, 2]), {"sorter": [0, 5]}),
    (numpy.array([1, 2]), {"sorter": [-1, 0]}), (numpy.array([1, 2]), {"sorter": [0.0, 1.0]}),
    (numpy.array([1, 2]), {"sorter": [[0, 1]]}), (numpy.array([1, 2]), {"sorter": numpy.array([True, False])}),
    (numpy.array([1, 2]), {"sorter": numpy.array([1, 0], numpy.int8)}),
])
def test_searchsorted_errors(a, kwargs):
    check(lambda xp, a: xp.searchsorted(a, 1, **kwargs), a)


# ---- sort_complex and argument errors ----------------------------------------------
@given(dtypes(), st.data())
def test_sort_complex(dtype, data):
    a = data.draw(st.one_of(arrays(dtype), tie_arrays(dtype)))
    check(lambda xp, a: xp.sort_complex(a), a)


def test_sort_complex_list():
    check(lambda xp: xp.sort_complex([3, 1]))


@pytest.mark.parametrize("fn", ["sort", "argsort"])
@pytest.mark.parametrize("kwargs", [
    {"kind": "foo"}, {"kind": ""}, {"kind": 1}, {"kind": "stable", "stable": True},
    {"kind": "quicksort", "stable": False}, {"order": "x"}, {"order": None}, {"axis": 0.0},
    {"axis": 2}, {"axis": -3}, {"kind": "Merge"}, {"stable": 1},
])
def test_sort_argument_errors(fn, kwargs):
    check(lambda xp, a: getattr(xp, fn)(a, **kwargs), numpy.array([[3, 1], [2, 0]]))


@pytest.mark.parametrize("obj", [numpy.array(5), 3, [3, 1, 2], [[2.5, 1], [0, -1]]])
def test_sort_non_arrays_and_zero_dim(obj):
    check(lambda xp: xp.sort(obj))
    check(lambda xp: xp.sort(obj, axis=None))


def test_msort_and_in1d_absent_as_in_numpy():
    assert not hasattr(numpy, "msort") and not hasattr(shim, "msort")


def test_traces_with_symbolic_sizes():
    """The same code runs under make_fx with dynamic sizes: nothing is baked in."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    def program(x, v):
        a = shim.asarray(x)
        s = shim.sort(a)
        return (shim.argsort(a, kind="stable")._t, shim.searchsorted(s, shim.asarray(v), side="right")._t,
                shim.lexsort((a, s))._t, shim.sort(shim.asarray(x.to(torch.complex128)))._t)

    traced = make_fx(program, tracing_mode="symbolic")(torch.tensor([3.0, numpy.nan, 1.0, 2.0]),
                                                      torch.tensor([2.0, numpy.nan]))
    x, v = numpy.array([5.0, 4, numpy.nan, 3, 1, 1]), numpy.array([1.0, numpy.nan, 4.5])
    got = [t.numpy() for t in traced(torch.from_numpy(x), torch.from_numpy(v))]
    assert_same(numpy.argsort(x, kind="stable"), got[0])
    assert_same(numpy.searchsorted(numpy.sort(x), v, side="right"), got[1])
    assert_same(numpy.lexsort((x, numpy.sort(x))), got[2])
    assert_same(numpy.sort(x.astype(complex)), got[3])
