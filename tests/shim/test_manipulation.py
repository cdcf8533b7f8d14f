"""Shape manipulation against NumPy: values, dtypes, result containers (list vs tuple),
exception classes, and views vs copies (mutate the result, compare the input after)."""
import warnings

import numpy
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import torch_numpy_shim as shim
from tests.oracle import SUPPORTED_DTYPES, arrays, assert_traces_like_eager, check, dtypes, finite_arrays, shapes

# NumPy's own cast/empty-mean warnings on edge values are expected here
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::numpy.exceptions.ComplexWarning")


def any_arrays(shape=None, kinds=None):
    """Arrays of any supported dtype (of ``kinds``), with edge values."""
    return dtypes(kinds).flatmap(lambda d: arrays(d, shape))


def mutated(result_fn):
    """``lambda xp, a: ...`` that writes 1 into the result and returns the input, so
    ``check`` sees whether the result aliased the input as in NumPy."""
    def run(xp, a, *rest):
        result = result_fn(xp, a, *rest)
        xp.copyto(result, 1, casting="unsafe")
        return a
    return run


ALL_DIMS = shapes(min_dims=0, max_dims=4)
SOME_DIMS = shapes(min_dims=1, max_dims=4)


# ---- reshape / ravel --------------------------------------------------------------------
@given(any_arrays(ALL_DIMS), st.sampled_from(["C", "F", "A"]), st.sampled_from([None, True, False]))
def test_reshape_views_and_orders(a, order, copy):
    for layout in (lambda xp, a: a, lambda xp, a: xp.transpose(a)):
        check(lambda xp, a: xp.reshape(layout(xp, a), -1, order=order, copy=copy), a)
        check(lambda xp, a: xp.reshape(layout(xp, a), tuple(reversed(a.shape)), order=order, copy=copy), a)
        check(mutated(lambda xp, a: xp.reshape(layout(xp, a), (1,) + a.shape[::-1], order=order, copy=copy)), a)
        if a.ndim:
            check(lambda xp, a: xp.reshape(layout(xp, a), (a.shape[0], -1), order=order), a)
            check(mutated(lambda xp, a: layout(xp, a).reshape(a.shape[0], -1, order=order)), a)


@pytest.mark.parametrize("shape", [(5,), (2, -1, -1), (-1,), (3, -1), (-2, 3), (0, -1), (4, 0), (), 6, (6, 1, 1),
                                   (2.0, 3), "6"])
def test_reshape_shapes_and_errors(shape):
    check(lambda xp, a: xp.reshape(a, shape), numpy.arange(6.0).reshape(2, 3))
    check(lambda xp, a: xp.reshape(a, shape), numpy.zeros((0, 3)))
    check(lambda xp, a: xp.reshape(a, shape, order="F"), numpy.arange(6))


def test_reshape_bad_order_and_method_forms():
    a = numpy.arange(6)
    check(lambda xp, a: xp.reshape(a, 6, order="Z"), a)
    check(lambda xp, a: a.reshape(3, 2), a)
    check(lambda xp, a: a.reshape((3, 2)), a)
    check(lambda xp, a: a.reshape(-1), a)


@given(any_arrays(ALL_DIMS), st.sampled_from(["C", "F", "A", "K"]))
def test_ravel(a, order):
    for layout in (lambda xp, a: a, lambda xp, a: xp.transpose(a), lambda xp, a: xp.moveaxis(a, 0, -1)
                   if a.ndim else a):
        check(lambda xp, a: xp.ravel(layout(xp, a), order), a)
        check(mutated(lambda xp, a: xp.ravel(layout(xp, a), order)), a)
        check(mutated(lambda xp, a: layout(xp, a).ravel(order)), a)
        check(mutated(lambda xp, a: layout(xp, a).flatten(order)), a)


# ---- axes ------------------------------------------------------------------------------
@given(any_arrays(ALL_DIMS), st.data())
def test_transpose_family(a, data):
    axes = data.draw(st.permutations(range(a.ndim)))
    check(lambda xp, a: xp.transpose(a), a)
    check(lambda xp, a: xp.transpose(a, axes), a)
    check(lambda xp, a: xp.transpose(a, [x - a.ndim for x in axes]), a)
    check(mutated(lambda xp, a: xp.transpose(a, axes)), a)
    check(mutated(lambda xp, a: xp.permute_dims(a, axes)), a)
    check(mutated(lambda xp, a: a.transpose(*axes) if axes else a.transpose()), a)
    check(mutated(lambda xp, a: xp.matrix_transpose(a)), a)
    check(mutated(lambda xp, a: a.T), a)


def test_transpose_errors():
    a = numpy.zeros((2, 3))
    for axes in [(0, 0), (0,), (0, 2), (0, 1, 2), (-3, 0)]:
        check(lambda xp, a: xp.transpose(a, axes), a)
    check(lambda xp, a: xp.matrix_transpose(a), numpy.zeros(3))


@given(any_arrays(SOME_DIMS), st.data())
def test_moveaxis_swapaxes_rollaxis(a, data):
    n = a.ndim
    axis = st.integers(-n - 1, n)
    src, dst = data.draw(axis), data.draw(axis)
    check(mutated(lambda xp, a: xp.moveaxis(a, src, dst)), a)
    check(mutated(lambda xp, a: xp.swapaxes(a, src, dst)), a)
    check(mutated(lambda xp, a: a.swapaxes(src, dst)), a)
    start = data.draw(st.integers(-n - 1, n + 1))
    check(mutated(lambda xp, a: xp.rollaxis(a, src, start)), a)
    sources = data.draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True))
    targets = data.draw(st.permutations(range(n)))[:len(sources)]
    check(lambda xp, a: xp.moveaxis(a, sources, targets), a)
    check(lambda xp, a: xp.moveaxis(a, sources, targets[:-1]), a)


def test_moveaxis_repeated_axis():
    check(lambda xp, a: xp.moveaxis(a, [0, 0], [1, 2]), numpy.zeros((1, 2, 3)))


@given(any_arrays(shapes(min_dims=0, max_dims=4, max_side=2)), st.data())
def test_squeeze_expand_dims(a, data):
    check(mutated(lambda xp, a: xp.squeeze(a)), a)
    check(mutated(lambda xp, a: a.squeeze()), a)
    axis = data.draw(st.integers(-a.ndim - 1, a.ndim))
    check(lambda xp, a: xp.squeeze(a, axis), a)
    check(lambda xp, a: xp.squeeze(a, (axis, axis)), a)
    check(mutated(lambda xp, a: xp.expand_dims(a, axis)), a)
    axes = tuple(data.draw(st.lists(st.integers(-a.ndim - 3, a.ndim + 2), max_size=3)))
    check(mutated(lambda xp, a: xp.expand_dims(a, axes)), a)
    check(mutated(lambda xp, a: xp.squeeze(xp.transpose(a))), a)


# ---- broadcasting ----------------------------------------------------------------------
@given(any_arrays(shapes(max_dims=3, max_side=3)), shapes(max_dims=4, max_side=3), st.data())
def test_broadcast_to_and_arrays(a, shape, data):
    check(lambda xp, a: xp.broadcast_to(a, shape), a)
    check(lambda xp, a: xp.broadcast_to(a, a.shape), a)
    check(lambda xp, a: xp.broadcast_to(a, (2,) + a.shape), a)
    b = data.draw(any_arrays(st.just(shape)))
    check(lambda xp, a, b: xp.broadcast_arrays(a, b), a, b)
    check(lambda xp, a, b: xp.broadcast_arrays(a, b, 1.5)[2], a, b)
    check(lambda xp, a, b: xp.broadcast_arrays(a)[0] is a, a, b)
    check(lambda xp, a, b: xp.broadcast_shapes(a.shape, b.shape, 1, ()), a, b)


def test_broadcast_errors_and_edges():
    check(lambda xp, a: xp.broadcast_to(a, (-1, 2)), numpy.ones(2))
    check(lambda xp, a: xp.broadcast_to(a, 3), numpy.ones(2))
    check(lambda xp, a: xp.broadcast_to(a, (2,)), numpy.ones((2, 2)))
    check(lambda xp, a: xp.broadcast_to(a, 5), numpy.ones(()))
    check(lambda xp, a: xp.broadcast_to([1, 2], [3, 2]), numpy.ones(()))
    check(lambda xp: xp.broadcast_arrays())
    check(lambda xp: xp.broadcast_shapes())
    check(lambda xp: xp.broadcast_shapes((2,), (3,)))


@given(st.lists(any_arrays(shapes(max_dims=3, max_side=2)), min_size=1, max_size=3))
def test_atleast(arrs):
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        check(lambda xp, *xs: getattr(xp, name)(*xs), *arrs)
        check(lambda xp, a: getattr(xp, name)(a) is a, arrs[0])
        check(mutated(lambda xp, a: getattr(xp, name)(a)), arrs[0])
    check(lambda xp: xp.atleast_2d(3, [1, 2]))
    check(lambda xp: xp.atleast_1d())


# ---- joining ---------------------------------------------------------------------------
@st.composite
def joinable(draw, max_parts=3):
    """Arrays (of possibly different dtypes) that share all dimensions but ``axis``."""
    base = draw(shapes(min_dims=1, max_dims=3, max_side=3))
    axis = draw(st.integers(0, len(base) - 1))
    parts = []
    for _ in range(draw(st.integers(1, max_parts))):
        shape = list(base)
        shape[axis] = draw(st.integers(0, 3))
        parts.append(draw(any_arrays(st.just(tuple(shape)))))
    return parts, axis


@given(joinable(), st.sampled_from([None, "float32", "int16", "complex128"]),
       st.sampled_from(["no", "safe", "same_kind", "unsafe"]))
def test_concatenate(parts_axis, dtype, casting):
    parts, axis = parts_axis
    check(lambda xp, *ps: xp.concatenate(ps, axis), *parts)
    check(lambda xp, *ps: xp.concatenate(list(ps), axis - len(parts[0].shape)), *parts)
    check(lambda xp, *ps: xp.concat(ps, axis=axis, dtype=dtype, casting=casting), *parts)
    check(lambda xp, *ps: xp.concatenate(ps, axis=None), *parts)
    check(mutated(lambda xp, a, *ps: xp.concatenate((a,) + ps, axis)), *parts)


def test_concatenate_out_and_errors():
    a, b = numpy.arange(2.0), numpy.arange(3)
    check(lambda xp, a, b, o: (xp.concatenate((a, b), out=o), o)[-1], a, b, numpy.zeros(5))
    check(lambda xp, a, b, o: xp.concatenate((a, b), out=o) is o, a, b, numpy.zeros(5, numpy.float32))
    check(lambda xp, a, b, o: xp.concatenate((a, b), out=o), a, b, numpy.zeros(5, int))
    check(lambda xp, a, b, o: xp.concatenate((a, b), out=o, casting="unsafe"), a, b, numpy.zeros(5, int))
    check(lambda xp, a, b, o: xp.concatenate((a, b), out=o), a, b, numpy.zeros(4))
    check(lambda xp, a, b: xp.concatenate((a, b), out=numpy.zeros(5), dtype=float), a, b)
    check(lambda xp, a, b: xp.concatenate((a, b), dtype=int), a, b)
    check(lambda xp: xp.concatenate([]))
    check(lambda xp: xp.concatenate([xp.asarray(1.0)]))
    check(lambda xp: xp.concatenate([xp.ones((2, 2)), xp.ones(2)]))
    check(lambda xp: xp.concatenate([xp.ones((2, 2)), xp.ones((3, 3))]))
    check(lambda xp: xp.concatenate([xp.ones((2, 2)), xp.ones((3, 2))], axis=2))
    check(lambda xp: xp.concatenate(([1, 2], [3.5])))
    check(lambda xp: xp.concatenate(([1, 2], (numpy.uint64(3),))))
    check(lambda xp: xp.concatenate(([1], [True])))


@given(any_arrays(shapes(max_dims=3, max_side=3)), dtypes(), st.integers(-4, 4))
def test_stack_family(a, other_dtype, axis):
    b = a.astype(other_dtype)
    check(lambda xp, a, b: xp.stack((a, b), axis), a, b)
    check(lambda xp, a, b: xp.stack([a, b, a], axis, dtype="float64", casting="unsafe"), a, b)
    check(lambda xp, a, b: xp.hstack((a, b)), a, b)
    check(lambda xp, a, b: xp.vstack((a, b)), a, b)
    check(lambda xp, a, b: xp.dstack((a, b)), a, b)
    check(lambda xp, a, b: xp.column_stack((a, b)), a, b)
    check(lambda xp, a, b: xp.hstack([a, b], dtype="complex64"), a, b)
    check(lambda xp, a, b: xp.vstack([a, b], dtype="int8"), a, b)
    check(lambda xp, a, b: (o := xp.zeros((2,) + a.shape), xp.stack((a, b), out=o), o)[-1], a, b)


@given(any_arrays(shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)))
def test_joining_an_array_joins_its_rows(a):
    for name in ("concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"):
        check(lambda xp, a: getattr(xp, name)(a), a)


def test_stack_errors_and_row_stack():
    check(lambda xp: xp.stack([xp.ones(2), xp.ones(3)]))
    check(lambda xp: xp.stack([]))
    check(lambda xp: xp.stack(x for x in [xp.ones(2)]))
    check(lambda xp: xp.hstack(x for x in [xp.ones(2)]))
    check(lambda xp: xp.stack([xp.ones(2)], axis=2))
    check(lambda xp: xp.column_stack([[1, 2], [[3], [4]]]))
    check(lambda xp: xp.dstack([1, 2]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(lambda xp: xp.row_stack([[1, 2], [3, 4.5]]))   # AttributeError from NumPy 2.5
    if hasattr(numpy, "row_stack"):
        with pytest.warns(DeprecationWarning):
            shim.row_stack([[1]])


@pytest.mark.parametrize("blocks", [
    1, [1, 2], [[1, 2], [3, 4]], [[numpy.ones((2, 2)), numpy.zeros((2, 1))], [numpy.full((1, 3), 7)]],
    [numpy.ones(3), 2.5], [[[1]], [[2]]], [[1], [2, 3]], [(1, 2)], [], [[]], [[1, 2], 3],
    [[numpy.ones((2, 2), numpy.int8)], [numpy.ones((1, 2), numpy.float32)]],
    [numpy.eye(2), numpy.eye(2)], numpy.arange(3), [[numpy.arange(3)]], [[[numpy.ones((1, 1, 2))]]],
])
def test_block(blocks):
    check(lambda xp: xp.block(blocks))


def test_block_copies():
    check(mutated(lambda xp, a: xp.block(a)), numpy.arange(3.0))
    check(mutated(lambda xp, a: xp.block([a])), numpy.arange(3.0))


# ---- splitting -------------------------------------------------------------------------
@given(any_arrays(shapes(min_dims=1, max_dims=3, max_side=6)), st.data())
def test_split_family(a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim))
    sections = data.draw(st.integers(-1, 4))
    cuts = data.draw(st.lists(st.integers(-8, 8), max_size=3))
    check(lambda xp, a: xp.array_split(a, sections, axis), a)
    check(lambda xp, a: xp.split(a, sections, axis), a)
    check(lambda xp, a: xp.array_split(a, cuts, axis), a)
    check(lambda xp, a: xp.split(a, cuts, axis), a)
    check(lambda xp, a: xp.split(a, numpy.array(cuts, dtype=int), axis), a)
    check(lambda xp, a: xp.hsplit(a, sections), a)
    check(lambda xp, a: xp.vsplit(a, cuts), a)
    check(lambda xp, a: xp.dsplit(a, cuts), a)
    check(lambda xp, a: xp.unstack(a, axis=axis), a)
    if a.shape[0]:
        check(mutated(lambda xp, a: xp.array_split(a, 2)[0]), a)
        check(mutated(lambda xp, a: xp.unstack(a)[0]), a)


def test_split_of_0d_errors():
    for name in ("hsplit", "vsplit", "dsplit", "unstack"):
        check(lambda xp, a: getattr(xp, name)(a, 1) if name != "unstack" else xp.unstack(a), numpy.asarray(1.0))
    check(lambda xp, a: xp.split(a, 1), numpy.asarray(1.0))


# ---- repeating and reordering ---------------------------------------------------------
@given(any_arrays(shapes(max_dims=3, max_side=3)), st.lists(st.integers(0, 3), max_size=4))
def test_tile(a, reps):
    check(lambda xp, a: xp.tile(a, reps), a)
    check(lambda xp, a: xp.tile(a, tuple(reps)), a)
    check(lambda xp, a: xp.tile(a, reps[0] if reps else 2), a)
    check(mutated(lambda xp, a: xp.tile(a, [1] * len(reps))), a)


def test_tile_errors():
    check(lambda xp: xp.tile([1, 2], -1))
    check(lambda xp: xp.tile([1, 2], 1.5))
    check(lambda xp: xp.tile(3, (2, 2)))


@given(any_arrays(shapes(max_dims=3, max_side=3)), st.data())
def test_repeat(a, data):
    axis = data.draw(st.sampled_from([None] + list(range(-a.ndim - 1, a.ndim + 1))))
    n = a.size if axis is None else (a.shape[axis] if -a.ndim <= axis < a.ndim else 1)
    counts = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    check(lambda xp, a: xp.repeat(a, 2, axis), a)
    check(lambda xp, a: xp.repeat(a, counts, axis), a)
    check(lambda xp, a: a.repeat(numpy.array(counts, numpy.uint8), axis), a)
    check(lambda xp, a: xp.repeat(a, [2], axis), a)
    check(lambda xp, a: xp.repeat(a, counts + [1], axis), a)


def test_repeat_errors():
    check(lambda xp: xp.repeat([1, 2], -1))
    check(lambda xp: xp.repeat([1, 2], [1, -1]))
    check(lambda xp: xp.repeat([1, 2], [1.0, 2]))
    check(lambda xp: xp.repeat([1, 2], [1j, 2]))
    check(lambda xp: xp.repeat([1, 2], xp.asarray(2)))
    check(lambda xp: xp.repeat(xp.asarray(7), 3))


@given(any_arrays(ALL_DIMS), st.data())
def test_flips(a, data):
    axis = data.draw(st.sampled_from([None, ()] + list(range(-a.ndim - 1, a.ndim + 1))))
    check(lambda xp, a: xp.flip(a, axis), a)
    check(lambda xp, a: xp.fliplr(a), a)
    check(lambda xp, a: xp.flipud(a), a)
    axes = data.draw(st.lists(st.integers(-a.ndim, max(a.ndim - 1, 0)), max_size=3))
    check(lambda xp, a: xp.flip(a, tuple(axes)), a)
    check(mutated(lambda xp, a: xp.flip(a, ())), a)  # nothing reversed: a view in both


def test_flips_write_through_as_numpy_views():
    """NumPy's flip is a view with negative strides; the shim's is a copy (torch has no
    negative strides) kept in step with its source: writes reach the input, and writes
    into the input reach every reversed copy still alive (tests/shim/test_reversed_views.py)."""
    results = []
    for xp in (numpy, shim):
        a = xp.arange(4)
        flips = (xp.flip(a), xp.flipud(a), xp.fliplr(a.reshape(2, 2)), xp.rot90(a.reshape(2, 2)))
        for k, flipped in enumerate(flips):
            xp.copyto(flipped, 9 + k)
            a[k] = -k
        results.append([shim.to_numpy(a).tolist()] + [shim.to_numpy(f).tolist() for f in flips])
    assert results[0] == results[1]


@given(any_arrays(ALL_DIMS), st.data())
def test_roll(a, data):
    shift = data.draw(st.integers(-7, 7))
    shifts = tuple(data.draw(st.lists(st.integers(-7, 7), min_size=1, max_size=3)))
    axes = tuple(data.draw(st.lists(st.integers(-a.ndim - 1, a.ndim), min_size=1, max_size=3)))
    check(mutated(lambda xp, a: xp.roll(a, shift)), a)
    check(lambda xp, a: xp.roll(a, shifts), a)
    check(lambda xp, a: xp.roll(a, shift, axes), a)
    check(lambda xp, a: xp.roll(a, shifts, axes), a)
    check(lambda xp, a: xp.roll(a, shifts, axes[0]), a)
    check(lambda xp, a: xp.roll(a, 10**20 + 1, 0), a)


@given(any_arrays(shapes(min_dims=0, max_dims=3)), st.integers(-5, 5), st.data())
def test_rot90(m, k, data):
    axes = data.draw(st.sampled_from([(0, 1), (1, 0), (0, -1), (-1, 0), (1, 2), (0, 0), (0, 2), (0,), (0, 1, 2),
                                      (-3, 1)]))
    check(lambda xp, m: xp.rot90(m, k, axes), m)
    if m.ndim >= 2 and k % 4 == 0:
        check(mutated(lambda xp, m: xp.rot90(m, k)), m)


@given(any_arrays(shapes(min_dims=0, max_dims=4)), st.integers(-3, 3), st.data())
def test_diagonal(a, offset, data):
    axis1 = data.draw(st.integers(-a.ndim - 1, a.ndim))
    axis2 = data.draw(st.integers(-a.ndim - 1, a.ndim))
    check(lambda xp, a: xp.diagonal(a, offset, axis1, axis2), a)
    check(lambda xp, a: a.diagonal(offset), a)


# ---- resize / append / insert / delete / trim_zeros -----------------------------------
@given(any_arrays(shapes(max_dims=3, max_side=3)), shapes(max_dims=3, max_side=4))
def test_resize_and_append(a, new_shape):
    check(lambda xp, a: xp.resize(a, new_shape), a)
    check(lambda xp, a: xp.resize(a, 7), a)
    check(lambda xp, a: xp.resize(a, (2, -1)), a)
    check(lambda xp, a: xp.append(a, a), a)
    check(lambda xp, a: xp.append(a, [1.5, 2]), a)
    if a.ndim:
        check(lambda xp, a: xp.append(a, a, axis=0), a)
        check(lambda xp, a: xp.append(a, a, axis=-1), a)
        check(lambda xp, a: xp.append(a, [1], axis=0), a)
        check(mutated(lambda xp, a: xp.append(a, a, axis=0)), a)


@given(finite_arrays("int32", shapes(min_dims=1, max_dims=3, max_side=4)), st.data())
def test_insert(a, data):
    axis = data.draw(st.sampled_from([None] + list(range(-a.ndim - 1, a.ndim + 1))))
    n = a.size if axis is None else (a.shape[axis] if -a.ndim <= axis < a.ndim else 1)
    index = data.draw(st.integers(-n - 1, n + 1))
    indices = data.draw(st.lists(st.integers(-n, n), max_size=4))
    check(lambda xp, a: xp.insert(a, index, 99, axis), a)
    check(lambda xp, a: xp.insert(a, index, [7, 8], axis), a)
    check(lambda xp, a: xp.insert(a, [index], 7.9, axis), a)
    check(lambda xp, a: xp.insert(a, indices, 5, axis), a)
    check(lambda xp, a: xp.insert(a, indices, list(range(len(indices))), axis), a)
    check(lambda xp, a: xp.insert(a, slice(None, None, 2), -1, axis), a)
    check(lambda xp, a: xp.insert(a, numpy.array(indices, dtype=int), 3, axis), a)


def test_insert_edges():
    a = numpy.arange(6).reshape(2, 3)
    check(lambda xp, a: xp.insert(a, 1, [[7], [8]], axis=1), a)
    check(lambda xp, a: xp.insert(a, [1], [[7], [8]], axis=1), a)
    check(lambda xp, a: xp.insert(a, 1, [7, 8, 9], axis=0), a)
    check(lambda xp, a: xp.insert(a, 1, [7, 8], axis=0), a)
    check(lambda xp, a: xp.insert(a, [[1]], 7, axis=0), a)
    check(lambda xp, a: xp.insert(a, [1.5], 7, axis=0), a)
    check(lambda xp, a: xp.insert(a, 1, 300, axis=0), a.astype(numpy.int8))
    check(lambda xp, a: xp.insert(a, [], 7), a)
    check(lambda xp, a: xp.insert(a, 1, 2.5 + 1j), a.astype(numpy.complex64))
    with pytest.raises(shim.UnsupportedError):
        shim.insert(shim.arange(3), [True, False, True], 0)


@given(any_arrays(shapes(min_dims=1, max_dims=3, max_side=4)), st.data())
def test_delete(a, data):
    axis = data.draw(st.sampled_from([None] + list(range(-a.ndim - 1, a.ndim + 1))))
    n = a.size if axis is None else (a.shape[axis] if -a.ndim <= axis < a.ndim else 1)
    index = data.draw(st.integers(-n - 1, n))
    indices = data.draw(st.lists(st.integers(-n - 1, n), max_size=4))
    mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    check(lambda xp, a: xp.delete(a, index, axis), a)
    check(lambda xp, a: xp.delete(a, indices, axis), a)
    check(lambda xp, a: xp.delete(a, numpy.array(mask, dtype=bool), axis), a)
    check(lambda xp, a: xp.delete(a, mask + [True], axis), a)
    check(lambda xp, a: xp.delete(a, slice(1, None, 2), axis), a)
    check(lambda xp, a: xp.delete(a, slice(None, None, -1), axis), a)
    check(lambda xp, a: xp.delete(a, [1.0], axis), a)
    check(lambda xp, a: xp.delete(a, numpy.array(index), axis), a)
    check(lambda xp, a: xp.delete(a, [], axis), a)


@given(any_arrays(shapes(min_dims=1, max_dims=3, max_side=4), kinds="biuf"), st.data())
def test_trim_zeros(a, data):
    a = numpy.where(a == 0, 0, a)  # no -0.0: NumPy treats it as zero too, but keeps it simple
    trim = data.draw(st.sampled_from(["fb", "f", "b", "BF", "x"]))
    axis = data.draw(st.sampled_from([None] + list(range(-a.ndim - 1, a.ndim))))
    check(lambda xp, a: xp.trim_zeros(a, trim, axis), a)
    check(mutated(lambda xp, a: xp.trim_zeros(a, trim)), a)
    if a.ndim == 1:
        check(lambda xp: xp.trim_zeros(a.tolist(), trim))


def test_trim_zeros_keeps_input_type():
    check(lambda xp: xp.trim_zeros([0, 0, 1, 2, 0]))
    check(lambda xp: xp.trim_zeros((0, 3, 0)))
    check(lambda xp: xp.trim_zeros([0, 0]))


# ---- pad -------------------------------------------------------------------------------
PAD_WIDTHS = [0, 1, 3, (1, 2), ((1, 0),), [[2, 1], [0, 3]], ((0, 7), (5, 1), (2, 2)), 1.4, -1, [[1, 2, 3]],
              ((1, 2), (3, 4), (5, 6), (7, 8)), numpy.uint8(1), {0: 2}, {-1: (1, 3), 0: 1}, {0: 1.5}]


@given(any_arrays(shapes(min_dims=0, max_dims=3, max_side=4)),
       st.sampled_from(PAD_WIDTHS),
       st.sampled_from(["constant", "edge", "wrap", "reflect", "symmetric", "linear_ramp"]))
@example(numpy.array([0], dtype=numpy.uint16), {0: 2}, "linear_ramp")   # the end ramp flips: no uint16 flip in torch
def test_pad_modes(a, width, mode):
    if mode == "linear_ramp" and a.dtype.kind in "fc":
        a = numpy.nan_to_num(a, posinf=7, neginf=-7).clip(-1e6, 1e6).astype(a.dtype) if a.dtype.kind == "f" else \
            (numpy.nan_to_num(a.real).clip(-1e6, 1e6) + 1j * numpy.nan_to_num(a.imag).clip(-1e6, 1e6)).astype(a.dtype)
    if mode == "linear_ramp" and a.dtype.kind in "u":
        a = a % 100
    check(lambda xp, a: xp.pad(a, width, mode), a)


@pytest.mark.parametrize("dtype", [d.name for d in SUPPORTED_DTYPES if d.kind != "b"])
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("width", [1, 4, 9, (0, 6)])
def test_pad_odd_reflections(dtype, mode, width):
    a = numpy.array([[3, 1, 4, 1], [5, 9, 2, 6]], dtype=dtype)
    check(lambda xp, a: xp.pad(a, width, mode, reflect_type="odd"), a)
    check(lambda xp, a: xp.pad(a, width, mode, reflect_type="odd"), a[:, :1])
    check(lambda xp, a: xp.pad(a, width, mode, reflect_type="even"), a)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "float16", "float32", "float64", "bool", "complex64",
                                   "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
@pytest.mark.parametrize("stat_length", [None, 1, 2, (1, 3), ((2, 1), (1, 2)), 10])
def test_pad_statistics(dtype, mode, stat_length):
    a = numpy.array([[3, 1, 4, 1, 5], [5, 9, 2, 6, 5], [0, 2, 8, 7, 1]]).astype(dtype)
    if dtype == "complex64" and mode in ("maximum", "minimum", "median"):
        with pytest.raises(shim.UnsupportedError):
            shim.pad(shim.asarray(a), 2, mode, stat_length=stat_length)
        return
    check(lambda xp, a: xp.pad(a, ((1, 2), (3, 1)), mode, stat_length=stat_length), a, rtol=1e-3)


@given(finite_arrays("float64", shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)),
       st.sampled_from(["maximum", "minimum", "mean", "median"]), st.sampled_from([None, 1, 2, (2, 1)]))
def test_pad_statistics_random(a, mode, stat_length):
    check(lambda xp, a: xp.pad(a, 2, mode, stat_length=stat_length), a)


@given(arrays(numpy.dtype("uint64"), shapes(min_dims=1, max_dims=2, min_side=1, max_side=4)),
       st.sampled_from(["maximum", "minimum"]))
def test_pad_extremes_of_uint64(a, mode):
    check(lambda xp, a: xp.pad(a, 2, mode), a)


def test_pad_values_and_errors():
    a = numpy.arange(6).reshape(2, 3)
    check(lambda xp, a: xp.pad(a, 2, constant_values=(7, 8)), a)
    check(lambda xp, a: xp.pad(a, 2, constant_values=((1, 2), (3, 4))), a)
    check(lambda xp, a: xp.pad(a, 1, constant_values=2.7), a)
    check(lambda xp, a: xp.pad(a.astype(float), 1, constant_values=numpy.nan), a)
    check(lambda xp, a: xp.pad(a, 2, "linear_ramp", end_values=(5, -4)), a)
    check(lambda xp, a: xp.pad(a.astype(numpy.float32), 3, "linear_ramp", end_values=((1, 2), (3.5, 4))), a)
    check(lambda xp, a: (r := xp.pad(a, 1, "empty"), (r.shape, r.dtype, r[1:-1, 1:-1].tolist()))[-1]
          if xp is numpy else (r := xp.pad(a, 1, "empty"), (r.shape, r.dtype, xp.to_numpy(r)[1:-1, 1:-1].tolist()))[-1], a)
    check(lambda xp, a: xp.pad(a, 1, "bogus"), a)
    check(lambda xp, a: xp.pad(a, 1, "edge", constant_values=3), a)
    check(lambda xp, a: xp.pad(a, 1, "maximum", stat_length=0), a)
    check(lambda xp, a: xp.pad(a.astype(float), 1, "mean", stat_length=0), a)
    check(lambda xp, a: xp.pad(a, [[1, 2], [3]]), a)
    check(lambda xp, a: xp.pad(numpy.zeros((0, 2)), 1, "edge"), a)
    check(lambda xp, a: xp.pad(numpy.zeros((0, 2)), 1), a)
    check(lambda xp, a: xp.pad(numpy.zeros((0, 2)), ((0, 0), (1, 1)), "wrap"), a)
    with pytest.raises(shim.UnsupportedError):
        shim.pad(shim.asarray(a), 1, lambda vector, width, axis, kwargs: None)


# ---- shape / ndim / size ----------------------------------------------------------------
@given(any_arrays(ALL_DIMS), st.data())
def test_shape_ndim_size(a, data):
    check(lambda xp, a: (xp.shape(a), xp.ndim(a), xp.size(a)), a)
    axis = data.draw(st.integers(-a.ndim - 1, a.ndim))
    check(lambda xp, a: xp.size(a, axis), a)
    check(lambda xp, a: xp.size(a, tuple(range(a.ndim))), a)
    check(lambda xp: (xp.shape([[1, 2]]), xp.ndim(3.0), xp.size([[1], [2]])))


# ---- traceability: no value-dependent Python, so make_fx can capture these -------------
TRACEABLE = {
    "reshape": lambda a: shim.reshape(a, (-1, 2)),
    "reshape_F": lambda a: shim.reshape(a, (2, -1), order="F"),
    "ravel_T": lambda a: shim.ravel(a.T),
    "concatenate": lambda a: shim.concatenate([a, a.astype(shim.float32)], axis=1),
    "stack": lambda a: shim.stack([a, a], -1),
    "pad_reflect": lambda a: shim.pad(a, 2, "reflect"),
    "pad_odd": lambda a: shim.pad(a, (1, 3), "symmetric", reflect_type="odd"),
    "pad_median": lambda a: shim.pad(a, 2, "median"),
    "pad_ramp": lambda a: shim.pad(a, 2, "linear_ramp", end_values=3),
    "flip": lambda a: shim.flip(a),
    "roll": lambda a: shim.roll(a, 3),
    "array_split": lambda a: shim.array_split(a, 3, axis=1),
    "tile": lambda a: shim.tile(a, (2, 1)),
    "repeat": lambda a: shim.repeat(a, 2, 1),
    "rot90": lambda a: shim.rot90(a),
    "block": lambda a: shim.block([[a, a], [a, a]]),
    "resize": lambda a: shim.resize(a, (5, 7)),
    "broadcast_to": lambda a: shim.broadcast_to(a, (2,) + a.shape),
    "squeeze": lambda a: shim.squeeze(shim.expand_dims(a, 0)),
    "moveaxis": lambda a: shim.moveaxis(a, 0, -1),
    "diagonal": lambda a: shim.diagonal(a, 1),
}


@pytest.mark.parametrize("name", sorted(TRACEABLE))
def test_traces_with_symbolic_shapes(name):
    import torch
    assert_traces_like_eager(TRACEABLE[name], torch.arange(12, dtype=torch.float64).reshape(4, 3))


@pytest.mark.parametrize("start, new_shape", [((2, 3), (6,)), ((2, 3), (3, -1)), ((6,), (4,)),
                                              ((6,), (2, 3))])
@pytest.mark.parametrize("transposed", [False, True])
def test_shape_assignment_is_in_place_or_refused(start, new_shape, transposed):
    def assign(xp, a):
        target = a.T if transposed else a
        target.shape = new_shape
        target.flat[0] = -1.0          # still a view of a
        return target

    check(assign, numpy.arange(6.0).reshape(start))


@pytest.mark.parametrize("call", [lambda xp, x: xp.transpose(x), lambda xp, x: xp.squeeze(x),
                                  lambda xp, x: xp.reshape(x, ()), lambda xp, x: xp.reshape(x, (1,)),
                                  lambda xp, x: xp.transpose(xp.asarray(x))])
def test_numpy_scalars_keep_their_type(call):
    check(lambda xp: call(xp, xp.float32(1.5)))
