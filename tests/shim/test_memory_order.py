"""NumPy's memory layout of the arrays the shim creates: for every creation function that
takes ``order=`` (and the ones that copy an input's layout), across input layouts (C, F,
permuted 3-D, negative strides, slices, 0-d, sizes 0 and 1), the result's strides, both
contiguity flags and values are NumPy's. An exhaustive table, NumPy the oracle."""
import numpy
import pytest

import torch_numpy_shim as np


def _inputs():
    a3 = numpy.arange(24.0).reshape(2, 3, 4)
    f2 = numpy.asfortranarray(numpy.arange(6.0).reshape(2, 3))
    return {
        "c1": numpy.arange(5.0),
        "c3": a3,
        "f2": f2,
        "f3": numpy.asfortranarray(a3),
        "t2": f2.T.copy().T,
        "perm3a": a3.transpose(1, 2, 0),
        "perm3b": a3.transpose(2, 0, 1),
        "neg1": numpy.arange(5.0)[::-1],
        "negc2": numpy.arange(12.0).reshape(3, 4)[::-1],
        "slice2": numpy.arange(30.0).reshape(5, 6)[::2, 1:5],
        "slicef": numpy.asfortranarray(numpy.arange(30.0).reshape(5, 6))[1:4, ::2],
        "zero_d": numpy.array(3.5),
        "size0": numpy.zeros((0, 3)),
        "size0f": numpy.zeros((3, 0, 2), order="F"),
        "size1": numpy.ones((1, 1)),
        "row": numpy.arange(4.0).reshape(1, 4),
        "col_t": numpy.arange(4.0).reshape(1, 4).T,
        "bcast_free_f1": numpy.asfortranarray(numpy.arange(6.0).reshape(3, 1, 2)),
    }


INPUTS = _inputs()
SHAPES = [(), (0,), (1,), (3,), (2, 3), (2, 3, 4), (0, 3), (1, 4), (2, 1, 3), (3, 0, 2)]


def _same_layout(expected, got, values=True, unit_strides=True):
    """``unit_strides``: compare the strides of length-1 axes too (they address nothing)."""
    got_np = numpy.asarray(got)
    assert type(got) is np.ndarray
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype)
    pairs = [(g, e) for g, e, n in zip(got.strides, expected.strides, got.shape) if unit_strides or n != 1]
    assert [g for g, _ in pairs] == [e for _, e in pairs]
    assert got.flags.c_contiguous == expected.flags.c_contiguous
    assert got.flags.f_contiguous == expected.flags.f_contiguous
    if values:
        numpy.testing.assert_array_equal(got_np, expected)


def _as_input(name, kind):
    """The input as NumPy holds it, and as the caller hands it to the shim: the NumPy array
    itself, or a shim array over the same data."""
    x = INPUTS[name]
    return x, (x if kind == "numpy" else np.asarray(x))


@pytest.mark.parametrize("order", ["C", "F", "c", "f"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "full"])
def test_from_shape(fn, shape, order):
    args = (shape, 2.5) if fn == "full" else (shape,)
    expected = getattr(numpy, fn)(*args, order=order)
    _same_layout(expected, getattr(np, fn)(*args, order=order), values=fn != "empty")


def test_eye_fortran():
    _same_layout(numpy.eye(3, 4, 1, order="F"), np.eye(3, 4, 1, order="F"))


LIKE_ORDERS = ["K", "A", "C", "F", None]


@pytest.mark.parametrize("kind", ["numpy", "shim"])
@pytest.mark.parametrize("order", LIKE_ORDERS)
@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like(fn, name, order, kind):
    x, given = _as_input(name, kind)
    args = (2.5,) if fn == "full_like" else ()
    kw = {} if order is None else {"order": order}
    expected = getattr(numpy, fn)(x, *args, **kw)
    _same_layout(expected, getattr(np, fn)(given, *args, **kw), values=fn != "empty_like")


@pytest.mark.parametrize("order", ["K", "A", "C", "F"])
@pytest.mark.parametrize("name", ["c3", "f3", "perm3a", "slicef"])
def test_like_with_dtype_and_shape(name, order):
    x, given = _as_input(name, "shim")
    _same_layout(numpy.zeros_like(x, dtype=numpy.int32, order=order),
                 np.zeros_like(given, dtype=np.int32, order=order))
    shape = x.shape[::-1]
    _same_layout(numpy.ones_like(x, order=order, shape=shape), np.ones_like(given, order=order, shape=shape))
    _same_layout(numpy.ones_like(x, order=order, shape=(6, 4)), np.ones_like(given, order=order, shape=(6, 4)))


def _copies():
    return {
        "copy": lambda m, x, o: m.copy(x) if o is None else m.copy(x, order=o),
        "method_copy": lambda m, x, o: x.copy() if o is None else x.copy(order=o),
        "astype": lambda m, x, o: x.astype(m.float32) if o is None else x.astype(m.float32, order=o),
        "array": lambda m, x, o: m.array(x) if o is None else m.array(x, order=o),
        "array_copy_none": lambda m, x, o: m.array(x, copy=None) if o is None else m.array(x, copy=None, order=o),
        "asarray": lambda m, x, o: m.asarray(x) if o is None else m.asarray(x, order=o),
        "ravel": lambda m, x, o: m.ravel(x) if o is None else m.ravel(x, order=o),
        "flatten": lambda m, x, o: x.flatten() if o is None else x.flatten(order=o),
    }


COPIES = _copies()


# NumPy's views of negative-stride arrays keep negative strides; the shim holds a reversed
# array as a reversed copy (see _flipped), so those inputs meet only the functions that copy
VIEWS = ("asarray", "array_copy_none", "ravel")
CASES = [(fn, name) for fn in sorted(COPIES) for name in sorted(INPUTS)
         if fn not in VIEWS or min(INPUTS[name].strides, default=0) >= 0]


@pytest.mark.parametrize("kind", ["numpy", "shim"])
@pytest.mark.parametrize("order", LIKE_ORDERS)
@pytest.mark.parametrize(("fn", "name"), CASES)
def test_copies(fn, name, order, kind):
    if kind == "numpy" and fn in ("method_copy", "astype", "flatten"):
        kind = "shim"   # methods of the shim's arrays
    x, given = _as_input(name, kind)
    _same_layout(COPIES[fn](numpy, x, order), COPIES[fn](np, given, order))


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("fn", ["ascontiguousarray", "asfortranarray"])
def test_contiguous_conversions(fn, name):
    x, given = _as_input(name, "shim")
    _same_layout(getattr(numpy, fn)(x), getattr(np, fn)(given))
    assert np.isfortran(given) == numpy.isfortran(x)


@pytest.mark.parametrize("order", ["C", "F", "A"])
@pytest.mark.parametrize("name", sorted(n for n in INPUTS if min(INPUTS[n].strides, default=0) >= 0))
def test_reshape(name, order):
    x, given = _as_input(name, "shim")
    for shape in ((-1,), x.shape[::-1], (1,) + x.shape):
        expected = numpy.reshape(x, shape, order=order)
        # a view's length-1 axes get strides by NumPy's own rule, which the shim does not follow
        view = numpy.shares_memory(expected, x)
        _same_layout(expected, np.reshape(given, shape, order=order), unit_strides=not view)


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("name", sorted(n for n in INPUTS if INPUTS[n].ndim))
def test_concatenate_and_stack(name, axis):
    x, given = _as_input(name, "shim")
    _same_layout(numpy.concatenate([x, x], axis=axis), np.concatenate([given, given], axis=axis))
    _same_layout(numpy.stack([x, x], axis=axis), np.stack([given, given], axis=axis))


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_tobytes(name, order):
    x, given = _as_input(name, "shim")
    assert given.tobytes(order=order) == x.tobytes(order=order)


# ---- regression examples: each failed before the shim followed NumPy's layout -------------
def test_fortran_zeros_are_fortran():
    a = np.zeros((2, 3), order="F")
    assert a.strides == (8, 16) and a.flags.f_contiguous and not a.flags.c_contiguous
    assert np.isfortran(a) and not np.isfortran(np.zeros((2, 3)))


def test_like_keeps_the_stride_order_of_a_permuted_prototype():
    x = numpy.arange(24.0).reshape(2, 3, 4).transpose(1, 2, 0)
    assert np.empty_like(np.asarray(x)).strides == numpy.empty_like(x).strides == (32, 8, 96)


def test_like_of_a_reversed_numpy_fortran_array_is_fortran():
    x = numpy.asfortranarray(numpy.arange(6.0).reshape(2, 3))[::-1]
    assert np.zeros_like(x).strides == numpy.zeros_like(x).strides == (8, 16)


def test_copy_keeps_fortran_and_astype_too():
    f = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    assert np.copy(f).strides == (8, 16) and f.astype(np.float32).strides == (4, 8)
    assert f.copy().strides == (24, 8) and f.copy(order="A").strides == (8, 16)


def test_asarray_with_order_copies_only_to_change_the_layout():
    c = np.arange(6.0).reshape(2, 3)
    f = np.asarray(c, order="F")
    assert f.strides == (8, 16)
    assert np.asarray(f, order="F")._t.data_ptr() == f._t.data_ptr()


def test_tobytes_in_the_array_order():
    x = numpy.asfortranarray(numpy.arange(6, dtype=numpy.int16).reshape(2, 3))
    assert np.asarray(x).tobytes(order="A") == x.tobytes(order="A") != x.tobytes()


def test_concatenate_of_fortran_arrays_is_fortran():
    f = numpy.asfortranarray(numpy.ones((2, 3)))
    assert np.concatenate([np.asarray(f), f]).strides == numpy.concatenate([f, f]).strides == (8, 32)


def test_empty_array_has_zero_strides():
    assert np.zeros((0, 3)).strides == numpy.zeros((0, 3)).strides == (0, 0)


# NumPy fills these into empty_like(a) (roll) or an array of a's order A (pad, insert, delete)
FILLED = {
    "roll": lambda m, x: m.roll(x, 1, axis=0),
    "pad": lambda m, x: m.pad(x, 1),
    "pad_edge": lambda m, x: m.pad(x, ((1, 0),) * x.ndim, mode="edge"),
    "insert": lambda m, x: m.insert(x, 1, 0.0, axis=0),
    "delete": lambda m, x: m.delete(x, 0, axis=-1),
}


@pytest.mark.parametrize("name", ["c3", "f2", "f3", "perm3a", "slicef", "t2", "row", "col_t"])
@pytest.mark.parametrize("fn", sorted(FILLED))
def test_filled_results(fn, name):
    x, given = _as_input(name, "shim")
    _same_layout(FILLED[fn](numpy, x), FILLED[fn](np, given))
