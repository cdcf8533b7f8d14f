"""max/min over all or some axes reduce the input's own dims (no flattening copy):
Inductor vectorizes a reduction over a strided slice's dims, while a flattened one
indexes each item by division and remainder. Values against NumPy for every layout."""
import numpy
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import torch_numpy_shim as tnp

LAYOUTS = {
    "interior slice": lambda a: a[1:-1, 1:-1],
    "transposed": lambda a: a.T,
    "reversed": lambda a: a[::-1, ::2],
    "fortran": numpy.asfortranarray,
}


@pytest.mark.parametrize("name", ["max", "min", "nanmax", "nanmin"])
def test_reduction_of_a_slice_keeps_its_dims(name):
    def f(t):
        return getattr(tnp, name)(tnp.asarray(t)[1:-1, 1:-1])._t
    graph = make_fx(f)(torch.rand(6, 7, dtype=torch.float64)).graph
    targets = {str(node.target) for node in graph.nodes if node.op == "call_function"}
    assert not any("view" in t or "reshape" in t or "clone" in t or "permute" in t for t in targets), targets


CASES = [(name, dtype) for name in ("max", "min", "nanmax", "nanmin")
         for dtype in ("float64", "float32", "float16", "int8", "uint64", "bool")
         if dtype.startswith("float") or not name.startswith("nan")]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), ()])
@pytest.mark.parametrize(("name", "dtype"), CASES)
@pytest.mark.filterwarnings("ignore:All-NaN slice")
def test_values_as_numpy(layout, axis, name, dtype):
    base = numpy.arange(42.0).reshape(6, 7) * numpy.array([1, -1, 2, -2, 3, -3, 1])
    a = LAYOUTS[layout](base.astype(dtype))
    if a.dtype.kind == "f":
        a = a.copy()
        a[1, 0] = numpy.nan
        a = LAYOUTS[layout](numpy.ascontiguousarray(a)) if layout == "fortran" else a
    with numpy.errstate(all="ignore"):
        expected = getattr(numpy, name)(a, axis=axis)
    got = tnp.asarray(getattr(tnp, name)(a, axis=axis))
    assert got.dtype == expected.dtype
    numpy.testing.assert_array_equal(numpy.asarray(got), expected)
