"""An input's WRITEABLE flag, set through a flags object across graph breaks, and reads of
an input's ``base`` and ownership/WRITEABLE flags (issue 13 leftovers).

1. ``fl = u.flags``, a graph break, ``fl.writeable = False`` (and the variants: the flags
   object taken after the break, ``fl["W"]``, a view's flags, an array made inside made
   read-only and writeable again): NumPy is the oracle for the result, for what later
   reads of the flag in the function see (the trace used to answer the graph input's
   flag, always writeable), and for the caller's array afterwards (its flags, and a write
   into it raising ValueError).
2. ``a.base is None``, ``a.base is not None``, ``a.flags.owndata``, ``a.flags.writeable``
   of an input (or a view of one) are traced: one graph, no break, the answer specialized
   on the caller's array and guarded, so a call with an array where the fact differs
   (a view, a read-only array: same dtype, shape and strides) recompiles and follows
   NumPy's control flow. These run on the arrays themselves, not on the harness's
   layout-keeping clones: a clone lives over a buffer of its own, so its ``base`` is never
   None.
"""
import io

import numpy as np
import pytest

import npcompile
from tests.jit.harness import CountingBackend, check_jit_calls
from tests.oracle import assert_same

BACKENDS = ["eager", pytest.param("inductor", marks=pytest.mark.inductor)]


def _break():
    print(end="", file=io.StringIO())   # a graph break


def _owning():
    return np.arange(5.0)


def _view():
    """Same dtype, shape and strides as ``_owning()``, but a view (base not None)."""
    return np.arange(10.0)[2:7]


def _read_only():
    a = np.arange(5.0)
    a.flags.writeable = False
    return a


def _read_only_view():
    base = np.arange(10.0)
    base.flags.writeable = False
    return base[2:7]


CALLERS = {"owning": _owning, "view": _view, "read_only": _read_only, "read_only_view": _read_only_view}


# ---- 1. setting WRITEABLE through a flags object, across breaks -----------------------------

def flags_object_before_break(u):
    fl = u.flags
    _break()
    fl.writeable = False
    return u * 2, u.flags.writeable


def flags_object_after_break(u):
    _break()
    fl = u.flags
    fl.writeable = False
    return u * 2, fl.writeable


def flags_key_before_break(u):
    fl = u.flags
    _break()
    fl["W"] = False
    return u * 2, u.flags["W"], u.flags["WRITEABLE"]


def flag_read_two_breaks_later(u):
    fl = u.flags
    _break()
    y = u * 2
    _break()
    fl.writeable = False
    return y, u.flags.writeable, u[1:].flags.writeable


def write_after_flag(u):
    fl = u.flags
    _break()
    fl.writeable = False
    try:
        u[0] = 7.0
        wrote = True
    except ValueError:
        wrote = False
    return wrote, u + 1


def view_flags_object(u):
    v = u[1:]
    fl = v.flags
    _break()
    fl.writeable = False
    try:
        v[0] = 3.0
    except ValueError:
        pass
    u[2] = 5.0 if u.flags.writeable else 0.0
    return v, v.flags.writeable, u.flags.writeable, u.sum()


def copy_read_only_then_writeable(u):
    c = u.copy()
    fl = c.flags
    fl.writeable = False
    _break()
    fl.writeable = True
    c[0] = 5.0
    return c, fl.writeable


def computed_read_only_then_writeable(u):
    c = u * 2
    c.flags.writeable = False
    _break()
    c.flags.writeable = True
    c[0] = 5.0
    return c


def copy_flags_after_break(u):
    c = u.copy()
    _break()
    fl = c.flags
    fl.writeable = False
    fl["W"] = True
    c[0] = 5.0
    return c, c.flags.writeable, c.flags.owndata, c.base is None


def flag_in_loop(u):
    fl = u.flags
    total = 0.0
    for i in range(3):
        _break()
        if i == 1:
            fl.writeable = False
        total = total + u.sum() * u.flags.writeable
    return total


SETTERS = [flags_object_before_break, flags_object_after_break, flags_key_before_break,
           flag_read_two_breaks_later, write_after_flag, view_flags_object, copy_read_only_then_writeable,
           computed_read_only_then_writeable, copy_flags_after_break, flag_in_loop]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", SETTERS, ids=lambda fn: fn.__name__)
def test_writeable_set_across_breaks(fn, backend):
    """Each caller in turn on one jitted function (cache entries meet other callers)."""
    names = ["owning", "owning", "view", "read_only", "read_only_view", "owning"]
    check_jit_calls(fn, [(CALLERS[name](),) for name in names], backend=backend, descriptions=names)


def _write_raises(array):
    try:
        array[0] = 1.0
    except ValueError:
        return True
    return False


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [flags_object_before_break, flags_object_after_break, flags_key_before_break,
                                view_flags_object], ids=lambda fn: fn.__name__)
def test_caller_array_after_the_call(fn, backend):
    """The caller's array afterwards: its flag, and whether writing into it raises."""
    jitted = npcompile.jit(fn, backend=backend)
    for make in (_owning, _view, _owning):
        expected, actual = make(), make()
        fn(expected)
        jitted(actual)
        assert actual.flags.writeable == expected.flags.writeable
        assert _write_raises(actual) == _write_raises(expected)
        np.testing.assert_array_equal(actual, expected)


# ---- 2. reads of base and flags, traced and guarded -------------------------------------------

def base_is_none(a):
    if a.base is None:
        return a * 2
    return a * 3


def base_is_not_none(a):
    viewed = a.base is not None
    return viewed, a + viewed


def base_is_none_value(a):
    return a.base is None, a - 1


def owndata(a):
    return a.flags.owndata, a * (1 + a.flags["O"])


def writeable(a):
    if a.flags.writeable:
        return a * 2, True
    return a * 3, a.flags["W"]


def layout_flags(a):
    return a.flags.c_contiguous, a.flags.f_contiguous, a.flags["C"], a + 1


def view_of_input(a):
    v = a[1:]
    return v.base is None, v.flags.owndata, v.flags.writeable, v.flags["W"], v * 2


def reversed_view_of_input(a):
    r = a[::-1]
    return r.base is not None, r.flags.owndata, r.flags.writeable, r + 1


def broadcast_of_input(a):
    b = np.broadcast_to(a, (2, 5))
    return b.flags.writeable, b.flags.owndata, b.base is None, b.sum()


def all_facts(a):
    return (a.base is None, a.base is not None, a.flags.owndata, a.flags.writeable,
            a[::2].flags.writeable, a.sum())


READS = [base_is_none, base_is_not_none, base_is_none_value, owndata, writeable, layout_flags,
         view_of_input, reversed_view_of_input, broadcast_of_input, all_facts]


def _compare(fn, jitted, make, context):
    """``fn`` and ``jitted`` on two arrays ``make`` builds: same result, same input after."""
    expected_input, actual_input = make(), make()
    expected, actual = fn(expected_input), jitted(actual_input)
    assert_same(expected, actual, path=f"result ({context})")
    assert_same(expected_input, actual_input, path=f"input after the call ({context})")
    assert actual_input.flags.writeable == expected_input.flags.writeable, context


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", READS, ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("caller", list(CALLERS))
def test_read_is_traced(fn, caller, backend):
    """One graph, no break, NumPy's answer, for each kind of caller's array (twice: the
    second call reuses the graph)."""
    counting = CountingBackend(backend)
    jitted = npcompile.jit(fn, backend=counting)
    for k in range(2):
        _compare(fn, jitted, CALLERS[caller], f"{caller}, call {k}")
    assert not jitted.breaks, [b.message for b in jitted.breaks]
    assert len(counting.graphs) == 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", READS, ids=lambda fn: fn.__name__)
def test_fact_change_recompiles(fn, backend):
    """Owning first, then a view, a read-only array and back, each compared with NumPy
    (a guard that missed the fact would reuse the first graph and answer wrong); no
    break, at most one graph per combination of facts, and a repeated call reuses its
    graph."""
    counting = CountingBackend(backend)
    jitted = npcompile.jit(fn, backend=counting)
    facts_seen = set()
    for name in ["owning", "view", "owning", "read_only", "view", "read_only_view", "read_only"]:
        make = CALLERS[name]
        _compare(fn, jitted, make, name)
        array = make()
        facts_seen.add((array.base is None, array.flags.owndata, array.flags.writeable))
        graphs = len(counting.graphs)
        _compare(fn, jitted, make, f"{name} again")
        assert len(counting.graphs) == graphs, f"{name} again: recompiled"
    assert not jitted.breaks, [b.message for b in jitted.breaks]
    assert len(counting.graphs) <= len(facts_seen)


def test_view_then_owning_follows_numpy_control_flow():
    """The first call takes a view (``a.base is None`` False); the second an owning array
    of the same layout must take the other branch: a recompile, not a reuse."""
    counting = CountingBackend("eager")
    jitted = npcompile.jit(base_is_none, backend=counting)
    for make in (_view, _owning, _view, _owning):
        _compare(base_is_none, jitted, make, make.__name__)
    assert len(counting.graphs) == 2 and not jitted.breaks


@pytest.mark.parametrize("fn", [base_is_none, base_is_not_none, owndata, all_facts], ids=lambda fn: fn.__name__)
def test_array_a_jitted_function_returned(fn):
    """An argument that a jitted function returned (its base is the tensor it was made
    from) is read as it is in a call. (After a graph break real code, and so the trace,
    reads any array with a tensor base as NumPy's own: real.fresh.)"""
    make = npcompile.jit(lambda a: a * 2, backend="eager")
    jitted = npcompile.jit(fn, backend="eager")
    for _ in range(2):
        array = make(np.arange(5.0))
        assert_same(fn(array), jitted(array))


def return_base(a):
    return a.base


def return_base_of_view(a):
    return a[1:].base


def view_base_is_input(a):
    v = a[1:]
    return v.base is a, v.base is a.base


@pytest.mark.parametrize("fn", [return_base, return_base_of_view, view_base_is_input],
                         ids=lambda fn: fn.__name__)
def test_base_object_is_numpys(fn):
    """The base object itself: traced where it is None or the input; another object is
    read by real NumPy (a break). Same object as NumPy's (the caller's base)."""
    jitted = npcompile.jit(fn, backend="eager")
    for make in (_owning, _view, _owning, _read_only_view):
        array = make()
        got, expected = jitted(array), fn(array)
        if isinstance(expected, tuple):
            assert got == expected, make.__name__
        else:
            assert got is expected, make.__name__


def test_callers_are_what_their_names_say():
    """Every caller has one layout (dtype, shape, strides): a guard on the fact, not on
    the layout, is what tells them apart."""
    arrays = {name: make() for name, make in CALLERS.items()}
    assert len({(a.dtype, a.shape, a.strides) for a in arrays.values()}) == 1
    facts = {name: (a.base is None, a.flags.writeable) for name, a in arrays.items()}
    assert facts == {"owning": (True, True), "view": (False, True), "read_only": (True, False),
                     "read_only_view": (False, False)}
