"""A NumPy array the shim must copy in (negative strides, read-only or misaligned memory)
keeps its layout as NumPy's own copy does (order K: a reversed Fortran array stays
Fortran), and a misaligned one is copied to aligned memory."""
import numpy
import pytest

import torch_numpy_shim as tnp
from torch_numpy_shim import _coerce


def _fortran():
    return numpy.asfortranarray(numpy.arange(24.0).reshape(2, 3, 4))


def _read_only(a):
    a.flags.writeable = False
    return a


def _misaligned(a):
    buffer = numpy.zeros(a.nbytes + 1, numpy.uint8)
    out = numpy.ndarray(a.shape, a.dtype, buffer=buffer, offset=1, strides=a.strides)
    out[...] = a
    return out


COPIED = {
    "fortran_reversed": lambda: _fortran()[::-1],
    "fortran_reversed_middle": lambda: _fortran()[:, ::-1],
    "fortran_read_only": lambda: _read_only(_fortran()),
    "transposed_read_only": lambda: _read_only(numpy.arange(24.0).reshape(4, 6)).T,
    "fortran_misaligned": lambda: _misaligned(_fortran()),
}


@pytest.mark.parametrize("name", sorted(COPIED))
def test_copied_input_keeps_numpy_layout(name):
    a = COPIED[name]()
    t = _coerce._from_numpy_array(a)
    expected = numpy.array(a, order="K")   # NumPy's own copy of it
    assert tuple(s * a.itemsize for s in t.stride()) == expected.strides
    assert t.data_ptr() % a.itemsize == 0
    numpy.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize("name", ["fortran_reversed", "fortran_reversed_middle", "fortran_read_only"])
def test_asarray_strides(name):
    a = COPIED[name]()
    assert tnp.asarray(a).strides == numpy.array(a, order="K").strides
