"""Constants the shim has NumPy convert (a weak Python scalar into a ufunc's loop dtype,
a value stored into an array, ``np.float32(1e300)``) report NumPy's floating-point
errors eagerly, as NumPy does, and nothing while torch traces: the compiled code reports
nothing on later calls (npcompile/trace/fp_state.py), so a report at trace time would
come on the first call only."""
import warnings

import numpy
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import torch_numpy_shim as shim
from tests.oracle import assert_same
from torch_numpy_shim import _dtypes
from torch_numpy_shim._boundary import as_inside


def _setitem(key):
    def store(x):
        x[key] = 1e300
        return x
    return store


def _namespace(x):
    return numpy if isinstance(x, numpy.ndarray) else shim


def _put(x):
    shim.put(x, [0], [1e300])
    return x


CASES = {
    "multiply": lambda x: x * 1e300,
    "add_float16": lambda x: x.astype(shim.float16) + 70000,
    "add_complex": lambda x: x + 1e300j,
    "scalar_type": lambda x: _dtypes.float32(1e300) + x,   # what np.float32 is in traced code
    "setitem_element": _setitem(0),
    "setitem_slice": _setitem(slice(None)),
    "setitem_fancy": _setitem([0]),
    "put": _put,
    "asarray_dtype": lambda x: x + _namespace(x).asarray(1e300, dtype=_namespace(x).float16),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_report_while_tracing(name):
    fn = CASES[name]
    with warnings.catch_warnings(), numpy.errstate(all="warn"):
        warnings.simplefilter("error")
        graph = make_fx(lambda t: fn(shim.asarray(t))._t)(torch.ones(2, dtype=torch.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with as_inside():
            expected = fn(shim.ones(2, shim.float32))
    torch.testing.assert_close(graph(torch.ones(2, dtype=torch.float32)), expected._t, equal_nan=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_reports_as_numpy(name):
    fn = CASES[name]
    with warnings.catch_warnings(record=True) as numpy_warnings, numpy.errstate(all="warn"):
        warnings.simplefilter("always")
        expected = fn(numpy.ones(2, numpy.float32))
    with warnings.catch_warnings(record=True) as shim_warnings, numpy.errstate(all="warn"):
        warnings.simplefilter("always")
        got = fn(shim.ones(2, shim.float32))
    assert [str(w.message) for w in shim_warnings] == [str(w.message) for w in numpy_warnings]
    assert_same(expected, shim.to_numpy(got))
