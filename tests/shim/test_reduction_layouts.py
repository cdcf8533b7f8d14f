"""Reductions over some axes of a transposed or Fortran input are laid out as NumPy's:
its iterator allocates the result in the input's memory order, so
``np.ones((3, 4, 5)).T.sum(axis=1)`` has strides (8, 40) and is F-contiguous. Values never
change. Debug mode and npcompile.jit (eager backend and Inductor)."""
import numpy as np
import pytest

import npcompile
import torch_numpy_shim as tnp

INPUTS = {
    "transposed": lambda: np.arange(60.0).reshape(3, 4, 5).T,
    "fortran": lambda: np.asfortranarray(np.arange(60.0).reshape(3, 4, 5)),
    "axes_swapped": lambda: np.arange(60.0).reshape(3, 4, 5).transpose(1, 0, 2),
    "c_order": lambda: np.arange(60.0).reshape(3, 4, 5),
}
CALLS = [("sum", {"axis": 1}), ("sum", {"axis": 1, "keepdims": True}), ("max", {"axis": 0}),
         ("min", {"axis": 2, "keepdims": True}), ("mean", {"axis": 2}), ("prod", {"axis": (0, 2), "keepdims": True}),
         ("std", {"axis": 1}), ("var", {"axis": 0, "keepdims": True}), ("nansum", {"axis": 1}),
         ("nanmax", {"axis": 0}), ("count_nonzero", {"axis": 1})]


def _layout(r):
    r = np.asarray(r)
    return r.dtype, r.shape, r.strides, r.flags.c_contiguous, r.flags.f_contiguous


@pytest.mark.parametrize("layout", INPUTS)
@pytest.mark.parametrize("name, kwargs", CALLS, ids=str)
def test_debug_mode(layout, name, kwargs):
    a = INPUTS[layout]()
    expected = getattr(np, name)(a, **kwargs)
    got = getattr(tnp, name)(tnp.asarray(a), **kwargs)
    assert _layout(got) == _layout(expected)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)   # products may round apart


def sums(a):
    return a.sum(axis=1), np.max(a, axis=0, keepdims=True), a.mean(axis=2)


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("layout", ["transposed", "fortran"])
def test_jit(layout, backend):
    a = INPUTS[layout]()
    jitted = npcompile.jit(sums, backend=backend)
    for _ in range(2):   # the compiling call, then the compiled code
        got = jitted(a)
        assert [_layout(g) for g in got] == [_layout(e) for e in sums(a)]
