"""Indexing against NumPy: a[key], a[key] = value (keys, views, casting, broadcasting,
repeated indices) and the index-based functions (take, put, where, choose, ...)."""
import warnings

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import torch_numpy_shim as shim
from tests.oracle import SUPPORTED_DTYPES, arrays, assert_same, check, dtypes, finite_arrays, shapes


# ---- key generation -----------------------------------------------------------------
class ArrayIndex:
    """An index array in a generated key; ``as_shim`` passes it as a shim array."""

    def __init__(self, values, as_shim):
        self.values, self.as_shim = values, as_shim

    def __repr__(self):
        return f"ArrayIndex({self.values!r}, shim={self.as_shim})"


def realize(key, xp, scalars=True):
    """The key for namespace ``xp`` (index arrays become xp arrays where asked, 0-d
    ones NumPy scalars if ``scalars``)."""
    if isinstance(key, tuple):
        return tuple(realize(k, xp) for k in key)
    if isinstance(key, ArrayIndex):
        if key.values.ndim == 0 and key.as_shim and scalars:
            return xp.asarray(key.values)[()]
        return xp.asarray(key.values) if key.as_shim else key.values
    return key


def _bound(size):
    return st.integers(-size - 2, size + 2)


def _slice(size):
    return st.builds(slice, st.none() | _bound(size), st.none() | _bound(size),
                     st.none() | st.integers(-3, 3).filter(bool))


@st.composite
def _int_array(draw, size, shape=None):
    shape = draw(shapes(min_dims=0, max_dims=2, max_side=3)) if shape is None else shape
    low, high = (-size, size - 1) if size else (0, 0)
    if draw(st.integers(0, 9)) == 0:
        low, high = -size - 2, size + 2  # sometimes out of bounds: IndexError
    dtype = numpy.dtype(draw(st.sampled_from(["int64", "int32", "uint8", "int8"])))
    info = numpy.iinfo(dtype)
    low, high = max(low, info.min), min(high, info.max)
    values = draw(arrays(dtype, shape, st.integers(low, max(low, high))))
    return ArrayIndex(values, draw(st.booleans()))


@st.composite
def _mask(draw, dims_shape):
    shape = tuple(dims_shape)
    if shape and draw(st.integers(0, 14)) == 0:
        shape = (shape[0] + 1,) + shape[1:]  # mismatched mask: IndexError
    return ArrayIndex(draw(arrays(numpy.dtype(bool), shape)), draw(st.booleans()))


@st.composite
def keys(draw, shape, allow_advanced=True):
    """A key for an array of ``shape``: ints, slices, Ellipsis, None, index arrays,
    boolean masks (occasionally out of range or of the wrong size)."""
    parts, d = [], 0
    ellipsis_used = False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        kinds = ["int", "slice", "slice", "none", "ellipsis"]
        if allow_advanced:
            kinds += ["array", "mask", "bool"]
        kind = draw(st.sampled_from(kinds))
        size = shape[d] if d < len(shape) else 2
        if kind == "int":
            parts.append(draw(st.integers(-size - 1, size)) if draw(st.integers(0, 9)) else size + 3)
            d += 1
        elif kind == "slice":
            parts.append(draw(_slice(size)))
            d += 1
        elif kind == "none":
            parts.append(None)
        elif kind == "ellipsis" and not ellipsis_used:
            parts.append(Ellipsis)
            ellipsis_used = True
        elif kind == "array":
            parts.append(draw(_int_array(size)))
            d += 1
        elif kind == "mask":
            k = draw(st.integers(1, max(1, min(2, len(shape) - d))))
            parts.append(draw(_mask(shape[d:d + k] if d < len(shape) else (2,))))
            d += k
        elif kind == "bool":
            parts.append(draw(st.booleans()))
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]  # a bare (non-tuple) key
    return tuple(parts)


# ---- getitem ------------------------------------------------------------------------
@given(st.data())
def test_getitem_matches_numpy(data):
    dtype = data.draw(dtypes())
    arr = data.draw(arrays(dtype, shapes(max_dims=3, max_side=4)))
    key = data.draw(keys(arr.shape))
    check(lambda xp, a: a[realize(key, xp)], arr)


@given(st.data())
def test_getitem_basic_is_a_view_unless_reversed(data):
    arr = data.draw(finite_arrays("float64", shapes(min_dims=1, max_dims=3, min_side=1)))
    key = data.draw(keys(arr.shape, allow_advanced=False))
    try:
        expected = arr[key]
    except (IndexError, ValueError):
        return
    a = shim.asarray(arr.copy())
    got = a[key]
    assert_same(expected, shim.to_numpy(got))
    if isinstance(expected, numpy.ndarray) and got.size and got.base is not None:
        got[...] = -7.0  # writes through a view
        reference = arr.copy()
        reference[key] = -7.0
        assert_same(reference, shim.to_numpy(a))


def test_views_and_copies():
    a = shim.arange(6.0)
    tail = a[1:]
    tail[0] = 100.0
    assert a[1] == 100.0 and tail.base is a
    reversed_ = a[::-1]
    assert_same(numpy.array([5.0, 4, 3, 2, 100, 0]), shim.to_numpy(reversed_))
    fancy = a[[0, 1]]
    fancy[0] = -1.0
    assert a[0] == 0.0
    zero_d_index = shim.arange(6).reshape(2, 3)[numpy.array(1)]
    zero_d_index[0] = 9
    assert shim.to_numpy(zero_d_index).tolist() == [9, 4, 5]
    grid = shim.arange(6).reshape(2, 3)
    assert grid[shim.asarray(numpy.array(1))].base is None  # 0-d index arrays copy, as in NumPy
    nested = a[1:][1:]
    nested[0] = 42.0
    assert a[2] == 42.0 and nested.base is a


@pytest.mark.parametrize("dtype", [d.name for d in SUPPORTED_DTYPES])
def test_single_element_is_numpy_scalar(dtype):
    arr = numpy.arange(6).astype(dtype).reshape(2, 3)
    check(lambda xp, a: a[1, 2], arr)
    check(lambda xp, a: a[-1][0], arr)
    check(lambda xp, a: a[numpy.int64(1), numpy.array(0)], arr)
    element = shim.asarray(arr)[0, 1]
    assert type(shim.to_numpy(element)) is type(arr[0, 1])
    if dtype == "float64":
        assert isinstance(shim.to_numpy(element), float)


def test_scalar_does_not_alias():
    a = shim.arange(3.0)
    element = a[1]
    a[1] = 50.0
    assert shim.to_numpy(element) == 1.0


ZERO_D_KEYS = [(), Ellipsis, None, (None, Ellipsis), (Ellipsis, None), True, False, 0, (0,),
               [0], slice(None), numpy.array(True)]


@pytest.mark.parametrize("key", ZERO_D_KEYS, ids=repr)
def test_zero_d_keys(key):
    check(lambda xp, a: a[key], numpy.array(3.5))
    check(lambda xp, a: a[key], numpy.float64(3.5))


EDGE_KEYS = [
    1.5, "a", numpy.float64(1), slice(1.0, None), slice(None, None, 0), (Ellipsis, Ellipsis),
    (0, 0, 0), [slice(None), 0], [0, None], [], numpy.array([], dtype=float), numpy.array([1.0]),
    numpy.array([1j]), [True, False], [[True, False, True], [False, False, False]], (Ellipsis, 0),
    (0, Ellipsis), (slice(None), None, [0, 1]), ([0, 1], slice(None), [0, 1]),
    (slice(None), [1, 0], [[0], [1]]), (numpy.array([1, 0], numpy.uint64),), (numpy.array(1),),
    (numpy.array(1), slice(None)), (0, numpy.array([True, False, True])), ([0, 1], True),
    (True, [0, 1]), (numpy.array([[True, False, True], [True, True, True]]),),
    ([0, 1], [0, 1, 2]), ([[0], [1]], [0, 1, 2]), (slice(None, None, -1), [2, 0]),
    ([1, 0], slice(None, None, -2)), (numpy.array([[1]]), numpy.array(2)),
    (slice(10**20, None),), (slice(-10**20, 10**20, 10**20),), (10**20,), (-3,), (-4,),
    ([[]],), ([0, True],), ([[0, 1], [1]],), (numpy.array([], dtype=bool),),
    (slice(None), numpy.array(False)), (numpy.array(False), slice(None)),
]


@pytest.mark.parametrize("key", EDGE_KEYS, ids=repr)
def test_getitem_edge_keys(key):
    check(lambda xp, a: a[key], numpy.arange(12).reshape(3, 4))


def test_separated_advanced_indices_go_first():
    arr = numpy.zeros((6, 3, 4, 5))
    for key in [(slice(None), [0, 1], None, [0, 1]), (slice(None), [0, 1], True, [0, 1]),
                (slice(None), 0, slice(None), [0, 1]), (slice(None), numpy.array(0), slice(None), [0, 1]),
                (slice(None), [0, 1], slice(None), True), (numpy.array(0), slice(None), [0, 1]),
                (slice(None), True, [0, 1]), ([[0], [1]], slice(None), slice(None), [0, 2, 1]),
                (slice(None), [0], slice(None), Ellipsis, [0]), (slice(None), 0, slice(None), Ellipsis, [1, 2])]:
        check(lambda xp, a: a[key].shape, arr)


def test_empty_ellipsis_separates_advanced_indices():
    arr = numpy.zeros((5, 2, 3))
    for key in [(slice(None), [0], Ellipsis, [0]), (slice(None), [0], Ellipsis, 0), (slice(None), 0, Ellipsis, [0]),
                (slice(None), [0], Ellipsis, slice(None)), (None, [True, False, True, True, False], Ellipsis, numpy.ones((2, 3), bool))]:
        check(lambda xp, a: a[key], arr)
        check(_assign(key, numpy.arange(2.0)[:1]), arr)


def test_index_with_shim_scalars_and_arrays():
    a = shim.arange(12).reshape(3, 4)
    i = shim.argmax(shim.asarray([0, 5, 2]))  # a shim NumPy scalar
    assert_same(numpy.arange(12).reshape(3, 4)[1], shim.to_numpy(a[i]))
    assert_same(numpy.int64(6), shim.to_numpy(a[i, 2]))
    assert_same(numpy.arange(12).reshape(3, 4)[[1, 2]], shim.to_numpy(a[[i, 2]]))
    assert_same(numpy.arange(12)[1:3], shim.to_numpy(shim.arange(12)[i:3]))
    row = a[i]  # a NumPy integer scalar indexes like an int: a view
    row[0] = -1
    assert a[1, 0] == -1 and row.base is a.base
    assert_same(numpy.int64(7), shim.to_numpy(a[shim.int64(1), shim.int8(-1)]))
    with pytest.raises(IndexError):
        a[shim.int64(3)]


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64", "bool", "complex64", "float16"])
def test_dtypes_without_torch_kernels(dtype):
    arr = numpy.arange(12).astype(dtype).reshape(3, 4)
    check(lambda xp, a: a[::-1, [0, 0, 2]], arr)
    check(lambda xp, a: a[a.astype(bool)], arr)

    def assign(xp, a):
        a[[0, 0, 1], ::-1] = a[2]
        a[a.astype(bool)] = 1
        return a
    check(assign, arr)


# ---- setitem ------------------------------------------------------------------------
def _assign(key, value):
    def run(xp, a):
        a[realize(key, xp)] = realize(value, xp, scalars=False)
        return a
    return run


def _value_dtype_for(target):
    """Value dtypes whose cast into ``target`` NumPy and torch agree on for any data."""
    return [d for d in SUPPORTED_DTYPES if numpy.can_cast(d, target, "same_kind")
            and not (d.kind == "c" and target.kind != "c")]


@given(st.data())
def test_setitem_matches_numpy(data):
    dtype = data.draw(dtypes())
    arr = data.draw(arrays(dtype, shapes(max_dims=3, max_side=4)))
    key = data.draw(keys(arr.shape))
    try:
        selected = arr[realize(key, numpy)].shape
    except (IndexError, ValueError):
        check(_assign(key, 0), arr)  # the same exception from the shim
        return
    vdtype = data.draw(st.sampled_from(_value_dtype_for(dtype)))
    kind = data.draw(st.sampled_from(["suffix", "ones", "scalar", "python"]))
    if kind == "python":
        value = data.draw(st.sampled_from({"b": [True], "i": [True, 1, -1], "u": [True, 1],
                                           "f": [True, 2, -1.5], "c": [True, 2, 1.5, 2j]}[dtype.kind]))
    else:
        vshape = {"suffix": selected[data.draw(st.integers(0, len(selected))):],
                  "ones": tuple(1 if data.draw(st.booleans()) else s for s in selected),
                  "scalar": ()}[kind]
        value = ArrayIndex(data.draw(arrays(vdtype, vshape)), data.draw(st.booleans()))
    check(_assign(key, value), arr)


@given(st.data())
def test_setitem_repeated_indices_last_wins(data):
    arr = data.draw(arrays(numpy.dtype("int64"), shapes(min_dims=1, max_dims=2, min_side=1)))
    index = data.draw(arrays(numpy.dtype("int64"), st.integers(1, 12), st.integers(0, arr.shape[0] - 1)))
    values = numpy.arange(index.size * (arr[0].size or 1)).reshape((index.size,) + arr.shape[1:])
    check(_assign((index,), values), arr)
    check(_assign((slice(None, None, -1), index[:1]) if arr.ndim == 2 else (index,), 7), arr)
    if arr.ndim == 2:
        cols = data.draw(arrays(numpy.dtype("int64"), index.shape, st.integers(-arr.shape[1], arr.shape[1] - 1)))
        check(_assign((index, cols), numpy.arange(index.size)), arr)
        check(_assign((slice(None), cols), numpy.arange(index.size)), arr)


@given(st.data())
def test_setitem_casts_like_numpy(data):
    target = data.draw(dtypes())
    arr = numpy.zeros(4, target)
    vdtype = data.draw(dtypes())
    bound = {"u": (0, 100), "b": (0, 1)}.get(target.kind, (-100, 100))
    if target.kind in "iub" and vdtype.kind in "fc":
        elems = st.floats(*bound, width=16).filter(lambda x: x == x)
        value = data.draw(arrays(vdtype, (4,), elems))
    else:
        value = data.draw(finite_arrays(vdtype, (4,), bound=100))
        value = numpy.clip(value, *bound).astype(vdtype) if vdtype.kind in "iuf" else value
    key = data.draw(st.sampled_from([slice(None), [3, 2, 1, 0], numpy.array([True] * 4),
                                     slice(None, None, -1)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", shim.ComplexWarning)
        check(_assign(key, ArrayIndex(value, data.draw(st.booleans()))), arr)


VALUE_CASES = [
    ("int64", 1.7), ("int64", -1.7), ("int64", float("nan")), ("int64", float("inf")), ("int64", 1e20),
    ("int8", 300.0), ("int8", 300), ("uint8", -1), ("int8", numpy.float64("nan")), ("uint8", numpy.int64(-1)),
    ("int8", numpy.int64(300)), ("int8", numpy.array(300)), ("int8", numpy.array(300.0)), ("int8", [300.0]),
    ("int8", [1.7]), ("int8", [numpy.int64(300)]), ("int8", numpy.array([300])), ("float32", None),
    ("float32", [None]), ("int8", None), ("float64", 1 + 2j), ("int64", 1 + 2j),
    ("float64", numpy.complex128(1 + 2j)), ("float64", numpy.array([1 + 2j])), ("float64", [1 + 2j, 1]),
    ("bool", 0.5), ("bool", 2), ("float16", 10**6), ("float64", 10**400), ("uint64", 2**64 - 1),
    ("uint64", 2**64), ("float64", "5"), ("float64", "x"), ("int64", True), ("complex64", 1.5),
    ("float64", [[1, 2, 3]]), ("float64", [5]), ("float64", numpy.array([[5.0]])), ("float64", numpy.array(5)),
]


@pytest.mark.parametrize("dtype,value", VALUE_CASES, ids=repr)
@pytest.mark.parametrize("key", [0, slice(0, 1), [0], numpy.array([True, False, False]),
                                 numpy.array(0), (0, Ellipsis)], ids=repr)
def test_setitem_value_conversion(dtype, value, key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(_assign(key, value), numpy.zeros(3, dtype))


def test_complex_into_real_warns():
    a = shim.zeros(3)
    with pytest.warns(shim.ComplexWarning):
        a[:] = shim.asarray(numpy.array([1 + 2j, 3j, 1]))
    assert_same(numpy.array([1.0, 0.0, 1.0]), shim.to_numpy(a))
    with pytest.warns(shim.ComplexWarning):
        a[0] = numpy.complex128(5 + 1j)


SHAPE_CASES = [
    ((3,), slice(None), [1, 2]), ((3,), slice(None), numpy.array([[1, 2, 3]])), ((3,), slice(None), [[1, 2, 3]]),
    ((3,), [0, 1], [1, 2, 3]), ((3,), [0, 1], [[1, 2]]), ((3,), [0, 0, 0], [1, 2, 3]),
    ((3,), numpy.array([True, True, True]), [1, 2]), ((3,), numpy.array([True, False, True]), [1, 2]),
    ((3,), numpy.array([True, True, True]), [5]), ((3, 2), numpy.array([True, False, True]), [5, 6]),
    ((3, 2), numpy.array([True, False, True]), [[5], [6]]), ((3, 2), numpy.array([True, False, True]), [[5, 6], [7, 8]]),
    ((3, 2), numpy.array([True, False, True]), [[5, 6], [7, 8], [9, 10]]), ((3,), 0, [5, 6]),
    ((3,), [], [1, 2, 3]), ((3,), [], []), ((3,), [], [1]), ((3,), numpy.array([], int), [1, 2]),
    ((3,), slice(None), numpy.array([[1], [2], [3]])), ((2, 3), 0, [[1, 2, 3]]), ((2, 3), numpy.array(0), [[1, 2, 3]]),
    ((2, 3), numpy.array(0), numpy.array([[1, 2, 3]])), ((2, 3), [0], numpy.array([[[1, 2, 3]]])),
    ((2, 3), (0, 0), numpy.array([[1]])), ((2, 3), (0, 0, Ellipsis), numpy.array([[1]])),
    ((2, 3), (slice(None, None, -1), [2, 0]), [[1, 2], [3, 4]]), ((2, 3), (Ellipsis, slice(None, None, -2)), [7, 8]),
    ((2, 3), ([0, 1], slice(None, None, -1)), [[1, 2, 3]]), ((2, 3, 4), (slice(None), [0, 1], slice(None, None, -1)), numpy.arange(4)),
    ((2, 3, 4), (0, slice(None), [0, 1]), numpy.arange(6).reshape(3, 2)), ((2, 3, 4), ([0, 1], slice(None), [0, 1]), numpy.arange(6).reshape(2, 3)),
    ((2, 3), numpy.array([[True, False, True], [False, True, False]]), [1, 2, 3]),
    ((2, 3), (slice(None, None, -1), numpy.array([True, False, True])), [[1, 2], [3, 4]]),
    ((2, 3), (slice(None, None, -1), numpy.array([True, False, True])), [1, 2]),
    ((2, 3), (slice(None, None, -1), numpy.array([True, False, True])), [[1], [2]]),
    ((2, 3), True, 5), ((2, 3), False, [1, 2, 3]), ((2, 3), (None, 0), [1, 2, 3]), ((4,), [5], 1), ((4,), 5, 1),
    ((4,), 1.0, 1), ((0, 3), [0], 1), ((0, 3), [], 1), ((2, 3), numpy.array([True, False, True]), 1),
]


@pytest.mark.parametrize("shape,key,value", SHAPE_CASES, ids=repr)
def test_setitem_shapes(shape, key, value):
    check(_assign(key, value), numpy.arange(numpy.prod(shape), dtype=float).reshape(shape))


def test_setitem_overlapping_self():
    for key, source in [(slice(1, None), slice(None, -1)), (slice(None, -1), slice(1, None)),
                        ([1, 2, 3, 4], slice(None, -1)), (slice(None, None, -1), slice(None))]:
        def run(xp, a):
            a[key] = a[source]
            return a
        check(run, numpy.arange(5.0))


def test_setitem_through_views_changes_base():
    base = shim.zeros((3, 4))
    row = base[1]
    row[::-1] = shim.arange(4.0)
    column = base[:, 2]
    column[[0, 0]] = [7.0, 8.0]
    transposed = base.T
    transposed[3, transposed[3] == 0] = -1.0
    expected = numpy.zeros((3, 4))
    expected[1, ::-1] = numpy.arange(4.0)
    expected[:, 2][[0, 0]] = [7.0, 8.0]
    expected.T[3, expected.T[3] == 0] = -1.0
    assert_same(expected, shim.to_numpy(base))


def test_setitem_on_numpy_scalar_is_typeerror():
    with pytest.raises(TypeError):
        shim.float64(1)[()] = 5


# ---- functions ----------------------------------------------------------------------
@given(st.data())
def test_take_matches_numpy(data):
    arr = data.draw(arrays(data.draw(dtypes()), shapes(max_dims=3)))
    axis = data.draw(st.none() | st.integers(-arr.ndim - 1, arr.ndim))
    size = arr.size if axis is None or arr.ndim == 0 else (arr.shape[axis] if -arr.ndim <= axis < arr.ndim else 1)
    indices = data.draw(_int_array(size)).values
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    mode_of = _take_mode_for(mode, arr, axis)
    check(lambda xp, a: xp.take(a, indices, axis=axis, mode=mode_of(xp)), arr)
    check(lambda xp, a: a.take(indices, axis, None, mode_of(xp)), arr)


def _take_mode_for(mode, arr, axis):
    """NumPy (2.4, 2.5) loops forever in take(mode="wrap") from an empty axis whose result
    is empty (another axis is 0): it wraps an index by adding the axis length, 0. Wherever
    it does return there, mode="clip" gives the same answer (the empty-axis check comes
    first), so the oracle runs "clip" in that one place and the shim runs "wrap"."""
    empty_axis = axis is not None and arr.ndim > 0 and -arr.ndim <= axis < arr.ndim and arr.shape[axis] == 0
    return lambda xp: "clip" if (mode == "wrap" and empty_axis and xp is numpy) else mode


def test_take_wrap_from_an_empty_axis_with_an_empty_result():
    """The hypothesis counterexample (seed 851929299) where NumPy itself never returns: the
    shim answers the empty result mode="clip" gives, and raises where NumPy raises."""
    a = numpy.zeros((0, 2, 0))
    for indices in ([-1], [1], [[0, 2]]):
        expected = numpy.take(a, indices, axis=0, mode="clip")
        assert_same(expected, shim.to_numpy(shim.take(shim.asarray(a), indices, axis=0, mode="wrap")))
        assert_same(expected, shim.to_numpy(shim.asarray(a).take(indices, 0, None, "wrap")))
    with pytest.raises(IndexError):
        shim.take(shim.zeros((0, 3)), [[1]], axis=0, mode="wrap")


TAKE_CASES = [
    (numpy.arange(3), 1, {}), (numpy.arange(3), [1.0], {}), (numpy.arange(3), numpy.array([1.0]), {}),
    (numpy.arange(3), [True], {}), (numpy.arange(3), numpy.array([1], numpy.uint64), {}), (numpy.arange(3), -5, {}),
    (numpy.arange(3), 5, {"mode": "clip"}), (numpy.arange(3), -1, {"mode": "clip"}), (numpy.arange(3), -4, {"mode": "wrap"}),
    (numpy.zeros(0), [0], {"mode": "wrap"}), (numpy.zeros(0), [], {"mode": "wrap"}), (numpy.arange(3), [0], {"mode": "bad"}),
    (numpy.arange(6).reshape(2, 3), 1, {"axis": 1}), (numpy.array(5), 0, {}), (numpy.array(5), 0, {"axis": 0}),
    (numpy.arange(6).reshape(2, 3), [[0, 1]], {"axis": 0}), (numpy.arange(6).reshape(2, 3), [0], {"axis": 2}),
]


@pytest.mark.parametrize("arr,indices,kwargs", TAKE_CASES, ids=repr)
def test_take_cases(arr, indices, kwargs):
    check(lambda xp, a: xp.take(a, indices, **kwargs), arr)


@pytest.mark.parametrize("out_dtype,shape", [("float64", (2,)), ("int64", (2,)), ("int32", (2,)), ("int64", (3,))])
def test_take_out(out_dtype, shape):
    def run(xp, a, out):
        result = xp.take(a, [0, 1], out=out)
        return result is out, out
    check(run, numpy.arange(3), numpy.zeros(shape, out_dtype))
    check(run, numpy.arange(3.0), numpy.zeros(shape, out_dtype))


def _mutating(name, *args, **kwargs):
    def run(xp, a):
        return getattr(xp, name)(a, *args, **kwargs), a
    return run


PUT_CASES = [
    ([0, 2], [1, 2, 3], {}), ([0, 2, 4], [1, 2], {}), ([0, 0], [1, 2], {}), ([0, 7], [1, 2], {}),
    ([0, -7], [1, 2], {}), ([0, -2], [1, 2], {}), ([0, 7], [1, 2], {"mode": "clip"}), ([0, -7], [1, 2], {"mode": "wrap"}),
    ([0, 1], [], {}), ([0.0], [1], {}), (numpy.array([0.0]), [1], {}), (1, 3, {}), ([0], [1 + 1j], {}),
    ([0], numpy.array([1 + 1j]), {}), ([4, 0, 4, 0, 4], numpy.arange(5.0), {}), ([0], [0], {"mode": "x"}),
]


@pytest.mark.parametrize("ind,v,kwargs", PUT_CASES, ids=repr)
def test_put_cases(ind, v, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", shim.ComplexWarning)
        check(_mutating("put", ind, v, **kwargs), numpy.zeros(5))
        check(_mutating("put", ind, v, **kwargs), numpy.zeros((5, 2)).T)


def test_put_edges():
    check(_mutating("put", [0, 1], [1]), numpy.zeros(0))
    check(_mutating("put", [], [1]), numpy.zeros(0))
    check(_mutating("put", [0], [-1]), numpy.zeros(5, numpy.uint8))
    check(_mutating("put", [0], [1.7]), numpy.zeros(5, numpy.uint8))
    check(_mutating("put", [0, 1], [7, 8]), numpy.zeros(4, numpy.uint32))
    with pytest.raises(TypeError):
        shim.put([0, 0], [0], [1])
    scalar = shim.float64(1)
    assert shim.put(scalar, [0], [5]) is None and scalar == 1.0
    for target in ([0, 0], scalar):
        with pytest.raises(TypeError):
            shim.place(target, [True], [1])
        with pytest.raises(TypeError):
            shim.putmask(target, [True], [1])
    a = shim.zeros(3)
    assert a.put([1], 5.0) is None and a[1] == 5.0


@given(st.data())
def test_put_matches_numpy(data):
    arr = data.draw(arrays(data.draw(dtypes("iuf")), shapes(min_dims=1)))
    ind = data.draw(_int_array(arr.size)).values
    values = data.draw(finite_arrays(arr.dtype, shapes(max_dims=1), bound=100))
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    check(_mutating("put", ind, values, mode=mode), arr)


@given(st.data())
def test_nonzero_where_argwhere(data):
    arr = data.draw(arrays(data.draw(dtypes()), shapes()))
    check(lambda xp, a: xp.nonzero(a), arr)
    check(lambda xp, a: a.nonzero(), arr)
    check(lambda xp, a: xp.where(a), arr)
    check(lambda xp, a: xp.argwhere(a), arr)
    check(lambda xp, a: xp.flatnonzero(a), arr)


@given(st.data())
def test_where_three_arguments(data):
    shape = data.draw(shapes(max_dims=2))
    cond = data.draw(arrays(numpy.dtype(bool), shape))
    x = data.draw(arrays(data.draw(dtypes()), shapes(max_dims=2)))
    y = data.draw(st.sampled_from([1, 0.5, True, 2j, -3]) | arrays(data.draw(dtypes()), shape))
    check(lambda xp, c, a: xp.where(c, a, y), cond, x)
    check(lambda xp, c, a: xp.where(c, y, a), cond, x)


@pytest.mark.parametrize("args", [
    (True, 1, 0), ([1, 0], 1, 0.5), (numpy.float32(1), 1, 0.5), ([1, 0], 1),
    (5,), (numpy.array([[1, 0]]), [1, 2, 3], 0), ([True, False], numpy.arange(2, dtype=numpy.uint8), 300),
    ([True, False], numpy.arange(2, dtype=numpy.uint8), 255), ([True, False], numpy.arange(2, dtype=numpy.float32), 1e300),
    ([2.5, numpy.nan, 0], 1, 0), ([1j, 0j], numpy.arange(2, dtype=numpy.uint16), numpy.uint64(3)),
], ids=repr)
def test_where_cases(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(lambda xp: xp.where(*args))


def test_where_with_none_is_unsupported():
    with pytest.raises(shim.UnsupportedError):  # NumPy makes an object array
        shim.where([True, False], None, 1)


@pytest.mark.parametrize("fn,args", [
    ("nonzero", (numpy.array(5),)), ("argwhere", (numpy.array(5),)), ("argwhere", (0,)), ("flatnonzero", (5,)),
    ("extract", ([1, 0, 1, 1], numpy.arange(3))), ("extract", ([1, 0], numpy.arange(3))),
    ("extract", ([0, 0, 0, 0], numpy.arange(3))), ("extract", (numpy.arange(6).reshape(2, 3) % 2, numpy.arange(6).reshape(3, 2))),
    ("compress", ([1, 0], numpy.arange(3))), ("compress", ([0, 0, 0, 1], numpy.arange(3))), ("compress", ([[1]], numpy.arange(3))),
    ("compress", (numpy.array([1.5, 0]), numpy.arange(3))), ("compress", ([True, False, True], numpy.arange(6).reshape(3, 2), 0)),
    ("compress", ([False, True], numpy.arange(6).reshape(3, 2), -1)), ("compress", ([True], numpy.arange(6).reshape(3, 2), 2)),
    ("compress", ([True], numpy.array(3))), ("compress", ([True], numpy.array(3), 0)), ("compress", ([True], numpy.array(3), 1)),
], ids=repr)
def test_selection_functions(fn, args):
    check(lambda xp: getattr(xp, fn)(*args))


@given(st.data())
def test_compress_extract_match_numpy(data):
    arr = data.draw(arrays(data.draw(dtypes()), shapes(min_dims=1)))
    axis = data.draw(st.none() | st.integers(0, arr.ndim - 1))
    length = data.draw(st.integers(0, (arr.size if axis is None else arr.shape[axis]) + 1))
    cond = data.draw(arrays(numpy.dtype(bool), (length,)))
    check(lambda xp, a: xp.compress(cond, a, axis=axis), arr)
    check(lambda xp, a: xp.extract(cond, a), arr)


@pytest.mark.parametrize("out", [numpy.zeros(1, int), numpy.zeros(1), numpy.zeros(2, int)], ids=repr)
def test_compress_out(out):
    def run(xp, a, o):
        return xp.compress([1, 0], a, out=o) is o, o
    check(run, numpy.arange(3), out)
    check(run, numpy.arange(3.0), out)


PLACE_CASES = [
    ([True, False, True, False, True], [1, 2]), ([True] * 5, [1, 2]), (numpy.array([True] * 4), [1, 2]),
    (numpy.array([True] * 5), []), (numpy.array([False] * 5), []), (numpy.array([1, 0, 1, 0, 0]), [7]),
    (numpy.array([1, 0, 1, 0, 0]), [-1]), (numpy.array([1, 0, 1, 0, 0]), 2.5), (numpy.array([[1, 0, 1, 0, 0]]), [3, 4, 5]),
]


@pytest.mark.parametrize("mask,vals", PLACE_CASES, ids=repr)
@pytest.mark.parametrize("dtype", ["float64", "uint8", "uint32"])
def test_place(mask, vals, dtype):
    check(_mutating("place", mask, vals), numpy.zeros(5, dtype))


def test_place_non_contiguous_and_bad_input():
    check(_mutating("place", numpy.array([[1, 0], [0, 1], [1, 1]]), [4, 5]), numpy.zeros((2, 3)).T)
    with pytest.raises(TypeError):
        shim.place([0, 0], [True, True], [1])


PUTMASK_CASES = [
    (numpy.array([1, 0, 1, 0, 1]), [7, 8]), (numpy.array([1, 0, 1, 0]), [7, 8]), (numpy.ones(5, bool), []),
    ([True, False] * 2 + [True], 3), (numpy.ones(5, bool), -1), (numpy.ones(5, bool), numpy.array([300])),
    (numpy.ones(5, bool), 1.5), (numpy.ones(5, bool), numpy.array([1.5])), (numpy.ones(5, bool), numpy.int64(5)),
    (numpy.ones(5, bool), [numpy.int64(5)]), (numpy.ones(5, bool), numpy.array(5)), (numpy.ones(5, bool), numpy.arange(7)),
]


@pytest.mark.parametrize("mask,values", PUTMASK_CASES, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "int8", "uint8", "int64"])
def test_putmask(mask, values, dtype):
    check(_mutating("putmask", mask, values), numpy.zeros(5, dtype))


def test_putmask_shapes():
    check(_mutating("putmask", numpy.array([1, 0, 1]), [7, 8]), numpy.zeros((2, 3)))
    check(_mutating("putmask", numpy.arange(6).reshape(2, 3) % 2 == 0, [7, 8, 9, 10]), numpy.zeros((2, 3)))
    check(_mutating("putmask", numpy.eye(3, dtype=bool), numpy.arange(9.0)), numpy.zeros((3, 3)).T)


CHOOSE_CASES = [
    ([0, 1], [[1, 2], [3, 4]], {}), ([0, 2], [[1, 2], [3, 4]], {}), ([0, -1], [[1, 2], [3, 4]], {}),
    ([0, 2], [[1, 2], [3, 4]], {"mode": "wrap"}), ([0, -3], [[1, 2], [3, 4]], {"mode": "clip"}),
    (1, [numpy.int8(1), 300], {}), (1, [numpy.array([1], numpy.int8), 3], {}), ([0.0, 1], [[1, 2], [3, 4]], {}),
    (0, [1, 2], {}), ([0, 1], numpy.array([[1, 2], [3, 4]]), {}), ([0, 1], [[1, 2], [3, 4, 5]], {}),
    (numpy.array([0, 1], numpy.uint64), [[1, 2], [3, 4]], {}), ([[0], [1]], [[1, 2], [3, 4]], {}),
    ([0, 1], [1, 2.5], {}), ([0], [], {}), ([0, 1], [[1, 2], [3, 4]], {"mode": "bad"}),
    ([2, 0, 1], [numpy.arange(3, dtype=numpy.uint16), numpy.zeros(3, numpy.uint16), 7], {}),
]


@pytest.mark.parametrize("a,choices,kwargs", CHOOSE_CASES, ids=repr)
def test_choose(a, choices, kwargs):
    check(lambda xp: xp.choose(a, choices, **kwargs))


def test_choose_out_and_method():
    def run(xp, out):
        return xp.choose([0, 1], [[1.5, 2], [3, 4]], out=out) is out, out
    check(run, numpy.zeros(2))
    check(run, numpy.zeros(2, int))
    check(lambda xp, a: a.choose([[1, 2, 3], [4, 5, 6]], mode="wrap"), numpy.array([0, 1, 3]))


SELECT_CASES = [
    ([numpy.array([True, False])], [numpy.array([1, 2], numpy.int8)], 0),
    ([True], [numpy.int8(1)], 0), ([], [], 0), ([numpy.array([1, 0])], [numpy.array([1, 2])], 0),
    ([True], [1], 2.5), ([numpy.array([True, False]), numpy.array([True, True])], [1, 2], 0),
    ([numpy.array([True, False])], [1, 2], 0), ([numpy.array([True, False])], [numpy.array([1, 2, 3])], 0),
    ([numpy.array([True, False])], [numpy.array([1.5, 2], numpy.float32)], 1),
    ([numpy.bool_(True)], [numpy.int8(1)], numpy.int8(5)),
    ([numpy.array([[True], [False]]), numpy.array([False, True, True])], [numpy.arange(3), 7.5], -1),
]


@pytest.mark.parametrize("condlist,choicelist,default", SELECT_CASES, ids=repr)
def test_select(condlist, choicelist, default):
    check(lambda xp: xp.select(condlist, choicelist, default))


@given(st.data())
def test_take_and_put_along_axis(data):
    arr = data.draw(arrays(data.draw(dtypes("iufb")), shapes(min_dims=1, max_dims=3)))
    dim = data.draw(st.integers(0, arr.ndim - 1))
    ishape = [data.draw(st.sampled_from([1, s])) for s in arr.shape]  # other dims broadcast
    ishape[dim] = data.draw(st.integers(0, 4))
    ishape = tuple(ishape)
    indices = data.draw(_int_array(arr.shape[dim], ishape)).values
    axis = data.draw(st.sampled_from([dim, dim - arr.ndim]))
    check(lambda xp, a: xp.take_along_axis(a, indices, axis), arr)
    values = data.draw(arrays(arr.dtype, st.sampled_from([(), ishape[-1:], ishape])))

    def put(xp, a):
        return xp.put_along_axis(a, indices, values, axis), a
    check(put, arr)


ALONG_AXIS_CASES = [
    (numpy.array([[0], [2]]), 1), (numpy.array([[0, 2]]), 1), (numpy.array([0, 5]), None),
    (numpy.array([0, 5]), 1), (numpy.array([[0.0]]), 1), (numpy.array([[0, 5]]), 1), (numpy.array([[-1]]), 1),
    (numpy.array([[0], [1], [1]]), 1), (numpy.array([[0]]), None), (numpy.array([[0]]), 2),
]


@pytest.mark.parametrize("indices,axis", ALONG_AXIS_CASES, ids=repr)
def test_along_axis_cases(indices, axis):
    arr = numpy.arange(6).reshape(2, 3)
    check(lambda xp, a: xp.take_along_axis(a, indices, axis), arr)

    def put(xp, a):
        return xp.put_along_axis(a, indices, 9, axis), a
    check(put, arr)
    check(put, arr.T.copy().T)


def test_put_along_axis_repeats_and_casting():
    def put(indices, values, axis):
        def run(xp, a):
            return xp.put_along_axis(a, indices, values, axis), a
        return run
    check(put(numpy.array([[0, 0]]), [[1, 2]], 1), numpy.zeros((2, 3)))
    check(put(numpy.array([0]), -1, 0), numpy.zeros(3, numpy.uint8))
    check(put(numpy.array([0, 0, 0]), [1, 2, 3], 0), numpy.zeros(3))


@pytest.mark.parametrize("args", [
    ([1, 2], [True, False, True]), ([],), (numpy.array([1], numpy.int8),), ([1.5],), ([[1]],), (),
    (numpy.arange(3), numpy.arange(4), [0, 1]), (numpy.array([], dtype=numpy.float32), [2]),
], ids=repr)
def test_ix(args):
    check(lambda xp: xp.ix_(*args))


def test_ix_indexes_like_numpy():
    check(lambda xp, a: a[xp.ix_([0, 2], [True, False, True, True])], numpy.arange(12).reshape(3, 4))


RAVEL_CASES = [
    ((1, 2), (3, 4), {}), (([1], [2]), (3, 4), {}), ((1, 5), (3, 4), {}), ((1, 5), (3, 4), {"mode": "clip"}),
    ((1, -1), (3, 4), {"mode": ("raise", "wrap")}), ((1.0, 2), (3, 4), {}), ((1, 2, 3), (3, 4), {}),
    ((1, 2), (3, 4), {"order": "F"}), ((numpy.array([1, 2]), numpy.array([[1], [2]])), (3, 4), {}),
    ((numpy.int8(1), 2), (3, 4), {}), ((1, 2), (3, 4), {"mode": "bad"}), ((1, 2), (3, 4), {"order": "X"}),
    ((1, 2), (3, 0), {}), ((numpy.array([1], numpy.uint64), 2), (3, 4), {}), ((), (), {}),
    (numpy.array([[1, 2], [0, 1]]), (3, 4), {}), ((True, 2), (3, 4), {}), ((1, 2), (2**40, 2**40), {}),
    ((7, -8), (3, 4), {"mode": "wrap"}), ((1, 2), (3, 4), {"mode": ("raise",)}),
]


@pytest.mark.parametrize("multi_index,dims,kwargs", RAVEL_CASES, ids=repr)
def test_ravel_multi_index(multi_index, dims, kwargs):
    check(lambda xp: xp.ravel_multi_index(multi_index, dims, **kwargs))


UNRAVEL_CASES = [
    (6, (3, 4), {}), ([6], (3, 4), {}), (12, (3, 4), {}), (-1, (3, 4), {}), (1.0, (3, 4), {}),
    (6, (3, 4), {"order": "F"}), (6, 7, {}), (numpy.array([], int), (3, 4), {}), ([], (3, 4), {}),
    (numpy.array([[5]], numpy.int8), (3, 4), {}), (numpy.array(5, numpy.uint64), (3, 4), {}), (5, (), {}),
    (0, (), {}), (0, (0,), {}), (True, (3,), {}), (numpy.arange(24).reshape(2, 12), (2, 3, 4), {"order": "F"}),
]


@pytest.mark.parametrize("indices,shape,kwargs", UNRAVEL_CASES, ids=repr)
def test_unravel_index(indices, shape, kwargs):
    check(lambda xp: xp.unravel_index(indices, shape, **kwargs))


@given(st.integers(0, 5), st.integers(-6, 6), st.none() | st.integers(0, 5))
def test_triangle_indices(n, k, m):
    check(lambda xp: xp.tril_indices(n, k, m))
    check(lambda xp: xp.triu_indices(n, k, m))
    check(lambda xp: xp.mask_indices(n, xp.triu, k))
    check(lambda xp: xp.mask_indices(n, xp.tril, k))


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (0, 3), (3,), (2, 2, 2), ()])
@pytest.mark.parametrize("k", [0, 1, -2])
def test_triangle_indices_from(shape, k):
    arr = numpy.zeros(shape)
    check(lambda xp, a: xp.tril_indices_from(a, k), arr)
    check(lambda xp, a: xp.triu_indices_from(a, k=k), arr)


@pytest.mark.parametrize("shape", [(3, 3), (3, 4), (2, 2, 2), (3,), (0, 0)])
def test_diag_indices(shape):
    check(lambda xp, a: xp.diag_indices_from(a), numpy.zeros(shape))
    check(lambda xp: xp.diag_indices(shape[0], len(shape)))


FILL_CASES = [
    ((3, 3), "int8", 300, False), ((3, 3), "float64", [1, 2], False), ((5, 3), "float64", 7, True),
    ((5, 3), "float64", [1, 2, 3, 4], True), ((3, 5), "float64", [1, 2, 3, 4, 5], False),
    ((5, 3), "float64", 7, False), ((3, 3, 3), "float64", [1, 2], False), ((3, 3, 2), "float64", 1, False),
    ((3,), "float64", 1, False), ((3, 3), "float64", [], False), ((3, 3), "float64", 1 + 1j, False),
    ((3, 3), "float64", numpy.array(1 + 1j), False), ((0, 0), "float64", 1, False), ((4, 4), "uint32", 5, False),
]


@pytest.mark.parametrize("shape,dtype,val,wrap", FILL_CASES, ids=repr)
def test_fill_diagonal(shape, dtype, val, wrap):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", shim.ComplexWarning)
        check(_mutating("fill_diagonal", val, wrap=wrap), numpy.zeros(shape, dtype))
        if len(shape) == 2:
            check(_mutating("fill_diagonal", val, wrap=wrap), numpy.zeros(shape[::-1], dtype).T)


def test_mask_indices_with_custom_function():
    def upper_rows(m, k):
        out = m.copy()
        out[k:] = 0
        return out
    check(lambda xp: xp.mask_indices(4, upper_rows, 2))


# ---- tracing ----------------------------------------------------------------------------
def _wrapped(t):
    return shim.ndarray._wrap(t)


TRACED = {
    "views": lambda a, b: a[1:, ::2][0]._t,
    "negative step": lambda a, b: a[::-1, 1]._t,
    "element": lambda a, b: a[1, 2]._t,
    "fancy": lambda a, b: a[[0, 2], 1:]._t,
    "fancy separated": lambda a, b: a[[0, 2], :, None][:, 1]._t,
    "0-d index array": lambda a, b: a[_wrapped(b._t[0, 0].long()), 2]._t,
    "set slice": lambda a, b: (a.__setitem__((slice(None), 0), 5.0), a._t)[1],
    "set reversed": lambda a, b: (a.__setitem__(slice(None, None, -1), b), a._t)[1],
    "set repeated": lambda a, b: (a.__setitem__(([0, 0, 1], [1, 1, 2]), b[0, :3]), a._t)[1],
    "set mask": lambda a, b: (a.__setitem__(_wrapped(a._t > 2), 0.0), a._t)[1],
    "set mask rows": lambda a, b: (a.__setitem__(_wrapped(a._t[:, 0] > 2), b[0]), a._t)[1],
    "putmask": lambda a, b: (shim.putmask(a, _wrapped(a._t > 2), [1.0, 2.0]), a._t)[1],
    "where": lambda a, b: shim.where(_wrapped(a._t > 2), a, 0.5)._t,
    "take clip": lambda a, b: shim.take(a, [0, 7], axis=1, mode="clip")._t,
    "take_along_axis": lambda a, b: shim.take_along_axis(a, _wrapped(b._t[:, :1].long()), 1)._t,
    "put": lambda a, b: (shim.put(a, [0, 5, 0], [1.0, 2.0, 3.0]), a._t)[1],
    "choose wrap": lambda a, b: shim.choose(_wrapped(b._t.long()), [a, b], mode="wrap")._t,
    "select": lambda a, b: shim.select([_wrapped(a._t > 2)], [a])._t,
    "fill_diagonal": lambda a, b: (shim.fill_diagonal(a, [7.0, 8.0]), a._t)[1],
}


@pytest.mark.parametrize("name", TRACED)
def test_traces_without_data_dependence(name):
    """The common paths must trace with fake tensors (no .item(), no data-dependent
    branch) and the graph must compute what eager mode does."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    def run(x, y):
        return TRACED[name](_wrapped(x), _wrapped(y))
    a = torch.arange(12.0).reshape(3, 4)
    b = torch.ones(3, 4)
    graph = make_fx(run, tracing_mode="fake")(a.clone(), b.clone())
    with shim._boundary.as_inside():   # eager, as the trace sees the shim: scalars as 0-D arrays
        expected = run(a.clone(), b.clone())
    torch.testing.assert_close(graph(a.clone(), b.clone()), expected)


@pytest.mark.parametrize("key, value", [([0, 4], [1.0, 2.0, 3.0]), (slice(1, 5), [7.0, 8.0]),
                                        (slice(None, None, 2), 9.0), (3, 4.5), (2, [9.0, 10.0]),
                                        ([1, 1, 2], [5.0]), (slice(0, 3), [1.0, 2.0, 3.0, 4.0])])
@pytest.mark.parametrize("transposed", [False, True])
def test_flat_assignment_repeats_values_in_order(key, value, transposed):
    def assign(xp, a):
        target = a.T if transposed else a
        target.flat[key] = value
        return a

    check(assign, numpy.arange(6.0).reshape(2, 3))
