"""A bound ``__``-named method (a slot wrapper: ``a.__setitem__``, ``a.__iadd__``,
``lst.__len__``, ``d.__getitem__``) held in a local across a graph break (issue 13,
item 4). Real Python holds the method at the break; the code after it must be traced
(the method lifted as the same method of the lifted object, like ``lst.append``), not
run uncompiled, and its effects must land on the caller's objects as NumPy's and
CPython's do. ``check_jit`` counts one break (the print) and one graph (after it)."""
import numpy as np
import pytest

from tests.jit.harness import check_jit


def setitem(a):
    store = a.__setitem__
    print("break")
    store(0, 5.0)
    return a * 2 + 1


def iadd(a):
    add = a.__iadd__
    print("break")
    r = add(1.0)
    return r * 3


def getitem(a):
    get = a.__getitem__
    print("break")
    return get(1) * 2 + a.sum()


def mul(a):
    times = a.__mul__
    print("break")
    return times(2) + 1


def list_len(a, lst):
    n = lst.__len__
    print("break")
    return a * n() + 1


def list_writes(a, lst):
    store, extend, n = lst.__setitem__, lst.__iadd__, lst.__len__
    print("break")
    store(0, 9)
    extend([4])
    return a * n() + lst[0], lst


def dict_methods(a, d):
    get, store, has = d.__getitem__, d.__setitem__, d.__contains__
    print("break")
    store("k", 3)
    return a * get("k") + has("z")


def list_init(a, lst):
    init = lst.__init__
    print("break")
    init([7, 7, 7])
    return a + len(lst)


CASES = [(setitem, ()), (iadd, ()), (getitem, ()), (mul, ()), (list_len, ([1, 2],)),
         (list_writes, ([1, 2],)), (dict_methods, ({"z": 1},)), (list_init, ([1],))]


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn,extra", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_slot_wrapper_across_a_break_is_traced(fn, extra, backend):
    check_jit(fn, np.arange(3.0), *extra, backend=backend, graphs=1, breaks=1, calls=2)


def test_slot_wrappers_of_containers_inside_the_trace():
    """Taken and called inside one trace: no break at all, the list still written."""
    def fn(a, lst):
        lst.__setitem__(0, 5)
        lst.__iadd__([1])
        return a * lst.__len__() + lst.__getitem__(0), lst
    check_jit(fn, np.arange(3.0), [1, 2], graphs=1, breaks=0)
