"""NumPy's scalar classes as traced code sees them (issue 13, item 1).

Inside a trace the shim's classes stand for NumPy's (``np.float64`` is the shim's
``float64`` there), so everything code can ask of the class itself must answer as NumPy's
class does: its MRO (``np.float64`` derives from Python's ``float``, ``np.complex128``
from ``complex``, ``np.bool_`` and ``np.int64`` from no Python number), its bases, and
its metaclass (``type(np.float64) is type``). Debug mode hands out NumPy's own classes,
so it is checked too (it must stay so)."""
import numpy as np
import pytest

import torch_numpy_shim as shim
from tests.jit.harness import check_jit

NAMES = ["float64", "float32", "float16", "complex128", "complex64", "bool_", "int64", "int32", "uint8",
         "generic", "number", "integer", "floating", "complexfloating", "inexact", "signedinteger"]
PYTHON = [float, complex, int, bool, object]


def _class_probe(name):
    """What code can ask of ``np.<name>`` itself."""
    def probe(x):
        cls = getattr(np, name)
        return (cls.__mro__, cls.__bases__, type(cls), type(cls).__mro__,
                tuple(issubclass(cls, p) for p in PYTHON), tuple(p in cls.__mro__ for p in PYTHON))
    return probe


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("name", NAMES)
def test_scalar_class_as_numpys(name, backend):
    check_jit(_class_probe(name), np.float64(1.0), backend=backend, graphs=None)


def _type_probe(x):
    t = type(x)
    return (t.__mro__, t.__bases__, type(t), float in t.__mro__, complex in t.__mro__, int in t.__mro__,
            issubclass(t, float), issubclass(t, complex), issubclass(t, int),
            isinstance(x, float), isinstance(x, complex), isinstance(x, int),
            isinstance(x, np.floating), isinstance(x, np.integer), isinstance(x, np.number),
            isinstance(x, np.generic), [c.__name__ for c in t.__mro__])


@pytest.mark.parametrize("value", [np.float64(1.5), np.float32(2.0), np.complex128(1j), np.complex64(2),
                                   np.bool_(True), np.int64(3), np.int8(-2), np.uint16(7)],
                         ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("made", ["argument", "reduction"])
def test_type_of_a_scalar(value, made):
    fn = _type_probe if made == "argument" else (lambda x: _type_probe(np.array([x, x]).max()))
    check_jit(fn, value, graphs=None)


def test_a_function_dispatching_on_float():
    """The issue's case: code that branches on ``isinstance(x, float)``."""
    def describe(x):
        if isinstance(x, float) and issubclass(type(x), float):
            return x * 2
        if isinstance(x, complex):
            return x.imag
        return -x
    for value in (np.float64(3.0), np.float32(3.0), np.complex128(1 + 2j), np.int64(4)):
        check_jit(describe, value, graphs=None)


@pytest.mark.parametrize("name", NAMES)
def test_debug_mode_has_numpys_classes(name):
    cls = getattr(shim, name)
    assert cls is getattr(np, name)
    assert type(cls) is type
    assert [issubclass(cls, p) for p in PYTHON] == [issubclass(getattr(np, name), p) for p in PYTHON]
