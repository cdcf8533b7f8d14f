"""Which returned arrays are the same object, and which are an argument, is NumPy's
(npcompile/native/returns.py). numba boxes each returned array anew, and hands back an
argument for any array with its data, shape and strides: a native kernel returning one
fresh array twice gave two objects (NumPy: ``r[0] is r[1]``), and ``return a[:]`` gave
``a`` itself (NumPy: a new view). Each case compares the identities and the memory
shared among the arguments and the returned arrays with NumPy's."""
import numpy as np
import pytest

import npcompile
from tests.native.helpers import compiled

pytest.importorskip("numba")


def doubled_twice(a):
    b = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        b[i] = a[i] * 2.0
    return b, b


def test_same_array_returned_twice_is_one_object():
    expected = doubled_twice(np.arange(50.0))
    assert expected[0] is expected[1]
    f = npcompile.jit(doubled_twice, backend="inductor")
    for _ in range(2):
        r = f(np.arange(50.0))
        assert f._native, "the native path served the call"
        np.testing.assert_array_equal(r[0], expected[0])
        assert r[0] is r[1]


def aliased(a):
    b = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        b[i] = a[i] * 2.0
    c = b
    return b, c


def same(x):
    return x


def through_helper(a):
    b = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        b[i] = a[i] * 2.0
    return b, same(b)


def array_and_full_view(a):
    b = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        b[i] = a[i] * 2.0
    return b, b[:]


def argument_full_view(a):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1.0
    return a[:]


def argument_itself(a):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1.0
    return a


def argument_twice(a):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1.0
    return a, a


def argument_and_result(a):
    b = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        b[i] = a[i] * 2.0
    return a, b, a


def swapped_buffers(a):
    u = np.zeros(a.shape[0])
    v = np.zeros(a.shape[0])
    for k in range(3):
        for i in range(a.shape[0]):
            v[i] = u[i] + a[i]
        u, v = v, u
    return u, v


def nested(a):
    b = np.zeros(a.shape[0])
    c = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        b[i] = a[i] * 2.0
        c[i] = a[i] - 1.0
    return (b, c), b, a


def two_returns(a, flag):
    b = np.zeros(a.shape[0])
    c = np.ones(a.shape[0])
    for i in range(a.shape[0]):
        b[i] = a[i] * 2.0
    if flag:
        return b, b
    return b, c


def _relaxed(p, times):
    for _ in range(times):
        for i in range(1, p.shape[0] - 1):
            p[i] = 0.5 * (p[i - 1] + p[i + 1])
    return p


def _relaxed_copy(p, times):
    q = p.copy()
    for _ in range(times):
        for i in range(1, q.shape[0] - 1):
            q[i] = 0.5 * (q[i - 1] + q[i + 1])
    return q


def rebound_to_itself(p, u):
    """cavity_flow's pressure: ``p`` bound anew to what a helper writes into it and
    returns (the argument itself)."""
    for _ in range(2):
        p = _relaxed(p, 2)
        p = _relaxed(times=1, p=p)
        u[0] = p[1]
    return u, p


def rebound_to_a_copy(p, u):
    for _ in range(2):
        p = _relaxed_copy(p, 2)
        u[0] = p[1]
    return u, p


def leaves(value):
    if isinstance(value, tuple):
        return [x for item in value for x in leaves(item)]
    return [value]


def shape_of_result(result, args):
    """The result's structure as identities: each returned array as the first argument
    or earlier returned array it is (``is``), else a new one, and which of those it
    shares memory with."""
    known = list(args)
    pattern = []
    for x in leaves(result):
        same = [i for i, k in enumerate(known) if k is x]
        shares = [i for i, k in enumerate(known) if isinstance(k, np.ndarray) and np.shares_memory(k, x)]
        pattern.append(("is", same[0]) if same else ("new", shares))
        known.append(x)
    return pattern


# (function, its arguments, whether the kernel serves it without NumPy's help)
CASES = [(doubled_twice, lambda: (np.arange(50.0),), True),
         (aliased, lambda: (np.arange(50.0),), False),
         (through_helper, lambda: (np.arange(50.0),), False),
         (array_and_full_view, lambda: (np.arange(50.0),), False),
         (argument_full_view, lambda: (np.arange(50.0),), False),
         (argument_itself, lambda: (np.arange(50.0),), True),
         (argument_twice, lambda: (np.arange(50.0),), True),
         (argument_and_result, lambda: (np.arange(50.0),), True),
         (swapped_buffers, lambda: (np.arange(50.0),), True),
         (nested, lambda: (np.arange(50.0),), True),
         (two_returns, lambda: (np.arange(50.0), True), False),
         (two_returns, lambda: (np.arange(50.0), False), True),
         (rebound_to_itself, lambda: (np.arange(50.0), np.zeros(3)), True),
         (rebound_to_a_copy, lambda: (np.arange(50.0), np.zeros(3)), True)]


@pytest.mark.parametrize("fn, make_args, native", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_returned_objects_are_numpys(fn, make_args, native):
    np_args, native_args = make_args(), make_args()
    kernel = compiled(fn, native_args)
    assert kernel, getattr(kernel, "reason", "")
    bailouts = kernel.bailouts
    for _ in range(2):      # a second call: nothing kept from the first
        expected, actual = fn(*np_args), kernel(*native_args)
        assert shape_of_result(actual, native_args) == shape_of_result(expected, np_args)
        for e, a in zip(leaves(expected), leaves(actual)):
            assert type(a) is type(e) and a.dtype == e.dtype
        np.testing.assert_equal(actual, expected)
        np.testing.assert_equal(native_args, np_args)
    assert (kernel.bailouts == bailouts) == native, "served natively" if native else "NumPy decided"
