"""Writes into read-only arrays through ``out=`` and ``.flat`` raise NumPy's ValueError
before anything is written (issue 13): the shim's read-only views (``diagonal``,
``broadcast_to``) and read-only NumPy arrays passed in."""
import numpy
import pytest

import torch_numpy_shim as np

WRITES = {
    "ufunc_out": lambda m, a, d: m.add(d, 1, out=d),
    "unary_out": lambda m, a, d: m.negative(d, out=d),
    "two_outs": lambda m, a, d: m.divmod(d, 2.0, out=(d, m.empty(3))),
    "reduction_out": lambda m, a, d: m.sum(a, axis=0, out=d),
    "matmul_out": lambda m, a, d: m.matmul(a, a[0], out=d),
    "flat": lambda m, a, d: d.flat.__setitem__(0, 5.0),
}


def _outcome(module, make, write):
    a, d = make(module)
    try:
        write(module, a, d)
        error = None
    except ValueError as exc:
        error = str(exc)
    return error, numpy.asarray(a).tolist()


def _diagonal(m):
    a = m.eye(3)
    return a, m.diagonal(a)


def _read_only_numpy(m):
    a = numpy.eye(3)
    d = numpy.ones(3)
    d.flags.writeable = False
    return a, d


@pytest.mark.parametrize("write", WRITES, ids=list(WRITES))
@pytest.mark.parametrize("make", [_diagonal, _read_only_numpy], ids=["shim_view", "numpy_array"])
def test_read_only_outputs_refuse_writes(write, make):
    expected = _outcome(numpy, make, WRITES[write])
    assert expected[0] is not None
    assert _outcome(np, make, WRITES[write]) == expected
