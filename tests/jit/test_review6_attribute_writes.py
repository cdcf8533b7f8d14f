"""Review 6 (issue 13): silent wrong answers found as a new user, attribute and container writes. Each test compares
npcompile.jit (eager and/or inductor backends) with real NumPy running the same function
on an identical copy of the inputs. Found at /work/main f8b3f61 (git archive snapshot);
rerun at HEAD 07ae0c3."""
import io

import numpy as np
import pytest

import npcompile
from tests.jit.review6_support import BACKENDS, assert_same, check
from tests.jit.test_attribute_and_container_writes import Scaled


# 1. Setting .shape on an input array: NumPy reshapes the caller's array in place;
#    jit (eager and inductor) leaves the caller's array 1-D (observed: input shape (6,),
#    NumPy: (3, 2)), and the returned `a` (which *is* the input) is (6,) too.
def _set_shape(a):
    a.shape = (3, 2)
    return a


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_shape_of_input_reaches_caller(backend):
    check(_set_shape, np.arange(6), backend=backend)


# 1b. Same bug seen through a graph break: after `a.shape = (2, 2)` and a print, the
#    resumed code sees the old 1-D array: observed a.sum(axis=0) == np.float64(6.0),
#    NumPy array([2., 4.]).
def _set_shape_then_break(a):
    a.shape = (2, 2)
    print(end="", file=io.StringIO())
    return a.sum(axis=0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_shape_of_input_across_break(backend):
    check(_set_shape_then_break, np.arange(4.), backend=backend)


# 3. `del obj.attr` inside a jitted function (not fullgraph) lets npcompile's internal
#    GraphBreak escape to the caller instead of running that part as written.
#    Observed (eager and inductor): npcompile.errors.GraphBreak('deleting an attribute');
#    NumPy returns a + 1 and removes the attribute.
class _Holder:
    pass


def _delete_attribute(obj, a):
    del obj.y
    return a + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_del_attribute_runs_as_written(backend):
    holder = _Holder()
    holder.y = 1
    check(_delete_attribute, holder, np.arange(2.), backend=backend)
    jitted_holder = _Holder()
    jitted_holder.y = 1
    npcompile.jit(_delete_attribute, backend=backend)(jitted_holder, np.arange(2.))
    assert not hasattr(jitted_holder, "y")


# 4. In-place operators on an input list or dict (`lst += [...]`, `lst *= 2`,
#    `d |= {...}`) change a copy: the caller's container keeps its old contents
#    (observed len 1 after `lst *= 2`, NumPy/Python 2; `d` without the new key), while
#    `lst.extend(...)` and set `|=` do reach the caller.
def _list_iadd(lst, a):
    lst += [a * 2]
    return a + len(lst)


def _list_imul(lst, a):
    lst *= 2
    return a * len(lst)


def _dict_ior(d, a):
    d |= {"z": a}
    return a - len(d)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, container", [(_list_iadd, [np.zeros(2)]), (_list_imul, [1]),
                                           (_dict_ior, {"a": 1})])
def test_inplace_operator_on_input_container(fn, container, backend):
    check(fn, container, np.arange(2.), backend=backend)


# 5. A property setter on an object passed in: the trace records `o.v = a` as a plain
#    attribute (its overlay) instead of calling the setter, so the following `o.v += 1`
#    reads `a` itself and increments the caller's input array `a` in place.
#    Observed (eager and inductor): returns [1. 2.], `a` becomes [1. 2.], o._v [2. 4.];
#    NumPy/Python: returns [2. 6.], `a` unchanged [0. 1.], o._v [2. 6.].
def _property_setter(obj, a):
    obj.v = a
    obj.v += 1
    return obj.v


@pytest.mark.parametrize("backend", BACKENDS)
def test_property_setter_of_argument(backend):
    _, (obj, a) = check(_property_setter, Scaled(), np.arange(2.), backend=backend)
    expected_obj = Scaled()
    _property_setter(expected_obj, np.arange(2.))
    assert_same(expected_obj._v, obj._v, "obj._v")


# 5b. Same fault through a class-level `__setattr__` (clamping what is stored): reading
#    the attribute back inside the jitted function gives the unclamped value.
#    Observed (eager and inductor) [-1. 1.]; NumPy/Python [0. 1.].
class _Clamped:
    def __setattr__(self, name, value):
        object.__setattr__(self, name, np.clip(value, 0, 1))


def _custom_setattr(obj, a):
    obj.a = a
    return obj.a + 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_setattr_of_argument(backend):
    check(_custom_setattr, _Clamped(), np.array([-1., 1.]), backend=backend)
