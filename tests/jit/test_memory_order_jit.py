"""Compiled functions hand back arrays in NumPy's layout: the shim decides strides while it
is traced (order='F', *_like of a Fortran input, Fortran reshape), the compiled graph keeps
them, and values never depend on them. Eager and Inductor backends, NumPy the oracle."""
import numpy
import pytest

import npcompile


def fortran_work(x):
    out = numpy.zeros(x.shape, order="F")
    out[...] = x * 2
    return out, numpy.zeros_like(x) + x, x.reshape(-1, order="F") + 1, numpy.asfortranarray(x * 1.5)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_compiled_results_have_numpy_layout(backend, order):
    x = numpy.asarray(numpy.arange(12.0).reshape(3, 4), order=order)
    expected = fortran_work(x.copy(order="K"))
    compiled = npcompile.jit(fortran_work, backend=backend)
    for _ in range(2):   # the first call compiles, the second runs from the cache
        got = compiled(x.copy(order="K"))
        for e, g in zip(expected, got, strict=True):
            assert type(g) is numpy.ndarray and g.strides == e.strides
            numpy.testing.assert_array_equal(g, e)


def test_layout_follows_inputs_of_new_sizes():
    """Later calls with other sizes (traced with symbolic sizes) keep NumPy's layout."""
    compiled = npcompile.jit(fortran_work, backend="eager")
    for shape in ((3, 4), (5, 6), (7, 2)):
        x = numpy.asfortranarray(numpy.arange(float(numpy.prod(shape))).reshape(shape))
        for e, g in zip(fortran_work(x.copy(order="K")), compiled(x.copy(order="K")), strict=True):
            assert g.strides == e.strides
            numpy.testing.assert_array_equal(g, e)
