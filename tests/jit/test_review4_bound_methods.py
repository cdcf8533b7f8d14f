"""A bound method of an array alive at a graph break (on the stack, in a local, a cell,
a container, an iterator, or returned) comes back as the method of the NumPy array the
shim array stands for: it was handed back as the shim's function bound to the NumPy
array, which failed ('numpy.ndarray' object has no attribute '_scalar'). A slot's
method-wrapper of a list or dict the function made (``values.__setitem__``) comes back
bound to the list handed back, not to the one the trace saw. NumPy and CPython are the
oracle: results, inputs after, exceptions."""
import numpy as np
import pytest

import npcompile
from tests.jit.harness import check_jit

BACKENDS = ["eager", "inductor"]


def explicit_setitem(a):
    a.__setitem__(a > 1, a[a > 1] * 2)   # a[a > 1]: a data-dependent size, a graph break
    return a


def mapped_setitem(a):
    list(map(a.__setitem__, [0, 1], a[a > 3]))
    return a


def reshape_on_the_stack(a):
    return a.reshape(int(a[0]) + 2, 3)   # int(): the break while a.reshape waits


def reshape_raising(a):
    return a.reshape(int(a[1]) + 4, 4)   # NumPy's ValueError, raised by the real method


def fill_in_a_local(a):
    fill = a.fill
    if a.sum() > 0:                      # a branch on data: a graph break
        fill(7.0)
    return a


def iadd_in_a_local(a):
    add = a.__iadd__
    if a.sum() > 0:
        out = add(1.5)
        return out, a                    # the same object as the input, as NumPy's
    return None, a


def sort_in_a_cell(a):
    sort = a.sort
    reader = lambda: sort               # noqa: E731 - makes ``sort`` a cell
    reader = None
    if a.sum() > 0:
        sort()
    return a, reader


def methods_in_containers(a):
    methods = {"sum": a.sum, "take": [a.take, a.max]}
    if a.sum() > 0:
        return methods["sum"](), methods["take"][0]([2, 0]), methods["take"][1]()
    return None


def scalar_method(a):
    item = a.sum().item
    if a.sum() > 0:
        return item()
    return None


def unbound_dunders(a):
    setitem, iadd = np.ndarray.__setitem__, np.ndarray.__iadd__
    if a.sum() > 0:
        setitem(a, 0, 9.0)
        return iadd(a, 1.0)
    return None


def view_methods_in_locals(a):
    setitem, iadd, fill = a[1:].__setitem__, a[::-1].__iadd__, a[::2].fill
    if a.sum() > 0:                      # the methods write through views of the input
        setitem(0, 9.0)
        iadd(1.0)
        fill(0.0)
    return a


def list_setitem_in_a_local(a):
    values = [0.0, 0.0]
    put = values.__setitem__             # a method-wrapper of a list the function made
    if a.sum() > 0:
        put(0, a[0])
        values.append(1.0)
    return values, put.__self__ is values


def dict_setitem_on_the_stack(a):
    counts = {}
    counts.__setitem__("n", int(a[0]))   # int(): the break while counts.__setitem__ waits
    return counts


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [explicit_setitem, mapped_setitem, reshape_on_the_stack, reshape_raising,
                                fill_in_a_local, iadd_in_a_local, sort_in_a_cell, methods_in_containers,
                                scalar_method, unbound_dunders, list_setitem_in_a_local,
                                view_methods_in_locals, dict_setitem_on_the_stack])
def test_bound_method_across_break(fn, backend):
    a = np.array([3.0, 1.0, 5.0, 0.5, 4.0, 2.0])
    jitted = check_jit(fn, a, backend=backend, graphs=None)
    assert jitted.breaks, "the case must cross a graph break"


def returns_bound_methods(a):
    b = a * 2
    return b.sum, [a.__setitem__, b.reshape]


@pytest.mark.parametrize("backend", BACKENDS)
def test_returned_bound_methods_are_numpy_methods(backend):
    a = np.arange(6.0)
    total, (setitem, reshape) = npcompile.jit(returns_bound_methods, backend=backend)(a)
    assert isinstance(total.__self__, np.ndarray) and total() == 30.0
    assert setitem.__self__ is a and reshape(2, 3).shape == (2, 3)
    setitem(0, 9.0)
    assert a[0] == 9.0
