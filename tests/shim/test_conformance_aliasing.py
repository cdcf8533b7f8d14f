"""Writes whose index, values or output share memory with the array written, and the
messages of failed advanced assignments: NumPy's own tests (``test_indexing.py``:
``test_gh_26844``, ``test_broadcast_error_reports_correct_shape``) found them through
``benchmarks.numpy_conformance``; each case here fails without its fix."""
import numpy
import pytest

from tests.oracle import check


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint16"])
@pytest.mark.parametrize("write", [
    lambda a: a[2:].__setitem__(a[:-2], 3),                    # NumPy's gh-26844
    lambda a: a[2:].__setitem__((None, a[:-2]), 3),
    lambda a: a.__setitem__(a[::-1], a),
    lambda a: a[1:].__setitem__(a[:3], a[:3] * 2),
], ids=["gh-26844", "gh-26844-newaxis", "reversed-index", "index-and-values"])
def test_setitem_with_an_index_read_from_the_target(write, dtype):
    """torch refuses an index_put whose index views the tensor written; NumPy reads
    the index first."""
    check(lambda xp, a: (write(a), a)[1], numpy.arange(5, dtype=dtype))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract"])
@pytest.mark.parametrize("dtype", ["int64", "float32", "complex128"])
def test_ufunc_at_reads_values_before_writing(name, dtype):
    """``np.add.at(a, idx, a[1:4])``: the values are a view of ``a``; NumPy reads them
    all before the first write (a[4] gets the old a[3], not the one just updated)."""
    check(lambda xp, a: (getattr(xp, name).at(a, [3, 1, 4], a[1:4]), a)[1],
          numpy.array([3, 1, 4, 1, 5], dtype=dtype))


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64", "complex128"])
@pytest.mark.parametrize("decimals", [0, 1, -1])
@pytest.mark.parametrize("where", ["reversed", "shifted-right", "shifted-left"])
def test_around_into_an_output_overlapping_its_input(where, decimals, dtype):
    """An integer array rounded to decimals >= 0 is copied into ``out``: the copy is
    written back into a reversed view and is read before an overlapping write."""
    def fn(xp, a):
        src, dst = {"reversed": (a, a[::-1]), "shifted-right": (a[:-1], a[1:]),
                    "shifted-left": (a[1:], a[:-1])}[where]
        xp.around(src, decimals, out=dst)
        return a
    with numpy.errstate(all="ignore"):
        check(fn, numpy.array([3, 15, 4, 1, 57], dtype=dtype))


@pytest.mark.parametrize("key", [(Ellipsis, [1, 2], slice(None)), ([0, 1], Ellipsis, 0),
                                 (Ellipsis, [1, 2], [1, 2]), (slice(None), [0]), (Ellipsis,), (0,),
                                 (slice(None), numpy.array([True, False, True, False]))])
def test_failed_assignment_message_names_shapes_as_numpy(key):
    """NumPy's message ends with the indexing result's shape, printed without spaces:
    'shape mismatch: value array of shape (100,100) could not be broadcast to indexing
    result of shape (3,2,5,6,7)' (advanced), 'could not broadcast input array from
    shape (100,100) into shape (3,4,5,6,7)' (basic)."""
    messages = []
    for xp in (numpy, __import__("torch_numpy_shim")):
        arr = xp.zeros((3, 4, 5, 6, 7))
        with pytest.raises(ValueError) as info:
            arr[key] = xp.zeros((100, 100))
        messages.append(str(info.value))
    assert messages[1] == messages[0]


@pytest.mark.parametrize("mask_of", [lambda a: a > 0, lambda a: (a > 0)[:, 0], lambda a: (slice(None), (a > 0)[0])],
                         ids=["every-dim", "first-dim", "second-dim"])
@pytest.mark.parametrize("value", [[1.0, 2.0], numpy.zeros((3, 3)), numpy.zeros((2, 2))])
def test_failed_mask_assignment_message_as_numpy(mask_of, value):
    """A mask over every dim counts values ('cannot assign 2 input values to the 6
    output values'); a mask over some dims takes the general message with shapes."""
    messages = []
    for xp in (numpy, __import__("torch_numpy_shim")):
        arr = xp.ones((2, 3))
        try:
            arr[mask_of(arr)] = xp.asarray(value)
            messages.append(None)
        except (ValueError, TypeError) as exc:
            messages.append((type(exc), str(exc)))
    assert messages[1] == messages[0]
