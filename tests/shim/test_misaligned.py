"""Misaligned NumPy arrays (``a.flags.aligned`` False: a buffer read at an odd offset, a
field of a packed structured array) work in the shim as in NumPy: read, written through
``out=``/``copyto``, never a crash (torch's gather of misaligned complex128 was a
segmentation fault) and never a refusal (a packed field's strides are no multiple of its
item size). NumPy is the oracle: results, and the caller's arrays after the call."""
import numpy
import pytest

import npcompile
import torch_numpy_shim as np


def misaligned(dtype, n=16, offset=None):
    """``n`` values of ``dtype`` starting ``offset`` bytes into an aligned buffer."""
    dtype = numpy.dtype(dtype)
    offset = dtype.alignment // 2 or 1 if offset is None else offset
    buffer = numpy.zeros(dtype.itemsize * n + 64, numpy.uint8)
    a = buffer[offset:offset + dtype.itemsize * n].view(dtype)
    a[...] = numpy.arange(n, 0, -1)
    assert not a.flags.aligned
    return a


def packed_field(dtype=numpy.complex128):
    """The ``b`` field of a packed (1-byte-padded) record array: stride 1 + itemsize."""
    records = numpy.zeros(6, dtype=[("a", "u1"), ("b", dtype)])
    records["b"] = numpy.arange(6, 0, -1)
    return records, records["b"]


OPS = {
    "sort": lambda m, x: m.sort(x),
    "take": lambda m, x: m.take(x, [3, 1, 0]),
    "sum": lambda m, x: m.sum(x),
    "cumsum": lambda m, x: m.cumsum(x),
    "matmul": lambda m, x: x[:4].reshape(2, 2) @ x[4:8].reshape(2, 2),
    "concatenate": lambda m, x: m.concatenate([x, x[:2]]),
    "mul_out": lambda m, x: m.multiply(x, 2, out=x),
    "add_out_positional": lambda m, x: m.add(x, 1, x),
    "copyto": lambda m, x: m.copyto(x, 5),
    "copyto_reversed_self": lambda m, x: m.copyto(x, x[::-1]),
}


@pytest.mark.parametrize("dtype", ["complex128", "complex64", "float64", "float32", "int64", "int16"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_misaligned_arrays_work_as_in_numpy(op, dtype):
    expected_input, given = misaligned(dtype), misaligned(dtype)
    expected = OPS[op](numpy, expected_input)
    got = OPS[op](np, given)
    if expected is None or expected is expected_input:
        assert got is given if expected is expected_input else got is None
    else:
        numpy.testing.assert_array_equal(numpy.asarray(got), expected)
        assert numpy.asarray(got).dtype == expected.dtype
    numpy.testing.assert_array_equal(given, expected_input)


@pytest.mark.parametrize("op", ["sort", "sum", "mul_out", "copyto"])
def test_packed_record_field(op):
    expected_records, expected_field = packed_field()
    records, field = packed_field()
    expected = OPS[op](numpy, expected_field)
    got = OPS[op](np, field)
    if expected is not None and expected is not expected_field:
        numpy.testing.assert_array_equal(numpy.asarray(got), expected)
    numpy.testing.assert_array_equal(records, expected_records)


def test_read_only_misaligned_input_is_read():
    a = misaligned(numpy.complex128)
    a.flags.writeable = False
    numpy.testing.assert_array_equal(numpy.asarray(np.sort(a)), numpy.sort(a))


def test_compiled_function_on_misaligned_input():
    def f(x, y):
        numpy.multiply(x, 2, out=y)
        return numpy.sort(x) + y.sum()

    x, y = misaligned(numpy.complex128), misaligned(numpy.complex128)
    ex, ey = x.copy(), y.copy()
    expected = f(ex, ey)
    got = npcompile.jit(f, backend="eager")(x, y)
    numpy.testing.assert_array_equal(got, expected)
    numpy.testing.assert_array_equal(y, ey)


def _misaligned_fortran():
    return numpy.frombuffer(bytearray(8 * 6 + 1), dtype=numpy.float64, offset=1, count=6).reshape(3, 2).T


@pytest.mark.parametrize("op", [lambda m, a: m.add(a, 0), lambda m, a: m.sort(a, axis=0)], ids=["add", "sort"])
def test_a_misaligned_fortran_input_keeps_its_layout(op):
    """The aligned copy is made in the input's order (NumPy's results follow it)."""
    a = _misaligned_fortran()
    assert not a.flags.aligned and a.flags.f_contiguous
    expected, got = op(numpy, a), op(np, a)
    assert got.strides == expected.strides
    numpy.testing.assert_array_equal(got, expected)


def test_a_read_only_misaligned_output_is_refused():
    """A read-only misaligned array (frombuffer of bytes) refuses a write as NumPy does,
    instead of the write landing in the copy and being dropped."""
    a = numpy.frombuffer(bytes(8 * 6 + 1), dtype=numpy.float64, offset=1, count=6)
    with pytest.raises(ValueError) as expected:
        numpy.copyto(a, 1.0)
    with pytest.raises(ValueError) as got:
        np.copyto(a, 1.0)
    assert str(got.value) == str(expected.value)
